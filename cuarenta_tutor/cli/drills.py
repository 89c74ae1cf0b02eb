"""Provides `cuarenta-tutor drills`: the positions of the person's mistakes again, in the app."""

from __future__ import annotations

from ..i18n import N_
from .app import one_thread, open_app

NAME = "drills"
HELP = N_("solve again the positions of your mistakes (spaced repetition)")


def add_arguments(parser) -> None:
    del parser  # no options


def run(args) -> int:
    one_thread()
    return open_app(NAME)
