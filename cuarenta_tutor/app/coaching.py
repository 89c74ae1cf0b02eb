"""Provides the coach as the screens see it: classes, hints, the words and figures of a review, luck vs skill
(the screens draw them; the coach and the analysis compute them; app/review.py runs a game's review)."""

from ..analysis.classes import Class, classify
from ..coach import REVIEW, loss_text, luck, margin_text, percent, provenance_lines, refined_hints, summary_accuracy

__all__ = ["Class", "classify", "REVIEW", "loss_text", "luck", "margin_text", "percent", "provenance_lines",
           "refined_hints", "summary_accuracy"]
