"""Provides the coach: hints, annotations, classes and accuracy (annotate.py), and game review (review.py)."""

from .advice import Hint, quick_hints, refined_hints
from .annotate import (
    CLASSES,
    PRESETS,
    Annotation,
    MoveHint,
    accuracy_by_group,
    annotate,
    classify,
    game_accuracy,
    hints,
    move_accuracy,
    summary_accuracy,
)
from .review import format_review, review

__all__ = ["CLASSES", "PRESETS", "Annotation", "MoveHint", "accuracy_by_group", "annotate", "classify",
           "game_accuracy", "hints", "move_accuracy", "summary_accuracy", "Hint", "quick_hints", "refined_hints",
           "format_review", "review"]
