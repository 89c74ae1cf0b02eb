"""Provides `cuarenta-tutor drills`: the positions of the person's mistakes again, in the app."""

from __future__ import annotations

from ..i18n import N_
from .app import one_thread, open_app

NAME = "drills"
HELP = N_("solve again the positions of your mistakes (spaced repetition)")
DESCRIPTION = N_("Open the drills in the app: the positions of your own mistakes and blunders, taken from your games "
                 "as they are reviewed, to play again when they are due. A right answer brings a position back after "
                 "more days each time (1, 3, 7, 16, then 35), a wrong one at once; every answer gets the analysis's "
                 "numbers and the reason.")


def add_arguments(parser) -> None:
    del parser  # no options


def run(args) -> int:
    one_thread()
    return open_app(NAME)
