"""Provides the coach as the screens see it: classes, hints, the words and figures of a review, luck vs skill
(the screens draw them; the coach and the analysis compute them; app/review.py runs a game's review).

Where an analysis has no measured model error (an exported model with no analysis sidecar: the critic values the
playouts and `value_sd` is 0), its win % is shown with its interval unknown, "48% (uncalibrated)", never "±0"."""

from ..analysis.classes import Class, classify
from ..coach import (
    REVIEW,
    loss_text,
    luck,
    margin_text,
    measured_error,
    note_measured,
    percent,
    provenance_lines,
    reasons,
    refined_hints,
    star_note,
    summary_accuracy,
    win_text,
)
from ..coach.advice import key_of
from ..coach.review import seat_name
from ..i18n import number
from ..i18n import percent as _percent


def analysis_win(analysis, move) -> str:
    """An analysed move's win % with its interval ("62% ±3"), or "62% (uncalibrated)" where the analysis has no
    measured error."""
    return win_text(move.win_pct, move.ci95, measured_error(analysis.settings, analysis.leaf))


def hint_win(hint) -> str:
    """A hint's win % for its column: "62% ±3" refined, "62% ±?" refined without a measured error, "62%" the
    network's (at once)."""
    win = _percent(hint.win_pct).rjust(len(_percent(100)))  # the column aligned: " 62%" under "100%"
    if not hint.refined or hint.margin is None:
        return win
    return f"{win} ±{number(hint.margin)}" if hint.measured else f"{win} ±?"


__all__ = ["Class", "classify", "REVIEW", "analysis_win", "hint_win", "key_of", "loss_text", "luck", "margin_text",
           "measured_error", "note_measured", "percent", "provenance_lines", "reasons", "refined_hints", "star_note",
           "summary_accuracy", "win_text", "seat_name"]
