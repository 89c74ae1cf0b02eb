"""Provides `cuarenta-tutor stats`: the person's progress, as text or JSON."""

from __future__ import annotations

from ..i18n import N_, _
from .app import one_thread

NAME = "stats"
HELP = N_("your progress: accuracy over time, mistakes by kind, results, level")


def add_arguments(parser) -> None:
    parser.add_argument("--json", action="store_true", help=_("one JSON object instead of text"))


def run(args) -> int:
    one_thread()
    from ..coach.command import stats

    return stats(args)
