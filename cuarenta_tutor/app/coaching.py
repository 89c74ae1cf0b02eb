"""Provides the coach as the screens see it: hints, classes, the review of a game and its figures, luck vs skill
(the screens draw them; the coach and the analysis compute them)."""

from ..analysis.classes import Class, classify
from ..analysis.parallel import default_jobs
from ..coach import (
    REVIEW,
    game_accuracy,
    is_current,
    loss_text,
    luck,
    margin_text,
    percent,
    provenance_lines,
    read,
    refined_hints,
    review,
    review_settings,
    reviewed_seats,
    store,
    summary_accuracy,
)

__all__ = ["Class", "classify", "default_jobs", "REVIEW", "game_accuracy", "is_current", "loss_text", "luck",
           "margin_text", "percent", "provenance_lines", "read", "refined_hints", "review", "review_settings",
           "reviewed_seats", "store", "summary_accuracy"]
