"""Provides the coach: hints (advice.py), annotations, classes and accuracy (annotate.py), and the review of a
game on the possible-worlds analysis (review.py)."""

from . import luck
from .advice import Hint, quick_hints, refined_hints
from .annotate import (
    CLASSES,
    PRESETS,
    Annotation,
    MoveHint,
    accuracy_by_group,
    annotate,
    classify,
    from_analysis,
    game_accuracy,
    hints,
    summary_accuracy,
)
from .review import (
    REVIEW,
    decisions,
    format_review,
    is_current,
    loss_text,
    margin_text,
    percent,
    provenance_lines,
    read,
    review,
    review_settings,
    reviewed_seats,
    store,
)

__all__ = ["luck", "CLASSES", "PRESETS", "Annotation", "MoveHint", "accuracy_by_group", "annotate", "classify",
           "from_analysis", "game_accuracy", "hints", "summary_accuracy", "Hint", "quick_hints", "refined_hints",
           "REVIEW", "decisions", "format_review", "is_current", "loss_text", "margin_text", "percent",
           "provenance_lines", "read", "review", "review_settings", "reviewed_seats", "store"]
