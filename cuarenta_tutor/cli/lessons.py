"""Provides `cuarenta-tutor lessons`: the rules and the strategy, in the app."""

from __future__ import annotations

from ..i18n import N_
from .app import one_thread, open_app

NAME = "lessons"
HELP = N_("learn the rules and the strategy")
DESCRIPTION = N_("Open the lessons in the app: the rules of Cuarenta first, then the strategy. Each lesson is a short "
                 "text and positions to play, where every move you try is answered with why it is right or wrong; "
                 "the list shows how many positions of each lesson you have solved (kept in your data folder).")


def add_arguments(parser) -> None:
    del parser  # no options


def run(args) -> int:
    one_thread()
    return open_app(NAME)
