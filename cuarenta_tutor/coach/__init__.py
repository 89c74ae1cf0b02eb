"""Provides the coach: hints (advice.py), annotations, classes and accuracy (annotate.py), and the review of a
game on the possible-worlds analysis (review.py)."""

from ..analysis.classes import ERRORS, THRESHOLDS, Class, classify
from . import luck
from .advice import Hint, measured_error, quick_hints, refined_hints, star_note, win_text
from .annotate import (
    Annotation,
    MoveHint,
    Provenance,
    Risks,
    accuracy_by_group,
    annotate,
    from_analysis,
    game_accuracy,
    hints,
    summary_accuracy,
)
from .review import (
    REVIEW,
    decisions,
    ending,
    format_review,
    is_current,
    loss_text,
    margin_text,
    moves_json,
    note_measured,
    percent,
    provenance_lines,
    read,
    reasons,
    review,
    review_settings,
    reviewed_seats,
    store,
)

__all__ = ["ERRORS", "THRESHOLDS", "Class", "classify", "luck", "Annotation", "MoveHint", "Provenance", "Risks",
           "accuracy_by_group", "annotate", "from_analysis", "game_accuracy", "hints", "summary_accuracy", "Hint",
           "measured_error", "quick_hints", "refined_hints", "star_note", "note_measured", "reasons", "win_text",
           "REVIEW", "decisions", "ending", "format_review", "is_current",
           "loss_text", "margin_text", "moves_json", "percent", "provenance_lines", "read", "review",
           "review_settings", "reviewed_seats", "store"]
