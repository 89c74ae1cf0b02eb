"""Provides `cuarenta-tutor lessons`: the rules and the strategy, in the app."""

from __future__ import annotations

from ..i18n import N_
from .app import one_thread, open_app

NAME = "lessons"
HELP = N_("learn the rules and the strategy")


def add_arguments(parser) -> None:
    del parser  # no options


def run(args) -> int:
    one_thread()
    return open_app(NAME)
