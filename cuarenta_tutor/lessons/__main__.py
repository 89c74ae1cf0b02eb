"""Checks lesson files: `python -m cuarenta_tutor.lessons [--search] [--analysis] [FILE...]` (default: all
shipped); with --search also that search plays every strategy answer, with --analysis that the tutor's analysis
takes every strategy answer as a right answer to a drill (best, or within the inaccuracy threshold; its 2 v 2 and
variant positions valued with their own rules' table)."""

from __future__ import annotations

import sys

from ..i18n import N_, _, ngettext, set_language
from ..narrator import move_name
from .feedback import analysis_doubts, search_choices
from .loader import LessonError, load_lesson, load_lessons

FLAGS = ("--search", "--analysis")
USAGE = N_("""Checks lesson files: `python -m cuarenta_tutor.lessons [--search] [--analysis] [FILE...]` (default: all
shipped); with --search also that search plays every strategy answer, with --analysis that the tutor's analysis
takes every strategy answer as a right answer to a drill (best, or within the inaccuracy threshold; its 2 v 2 and
variant positions valued with their own rules' table).""")
"""What -h prints (the module's docstring, in the language in use)."""


def main(args: list[str]) -> int:
    """Check lesson files (default: all shipped); with --search also that search plays every strategy answer, with
    --analysis that the analysis finds none losing."""
    if "-h" in args or "--help" in args:
        return print(_(USAGE)) or 0
    unknown = [a for a in args if a.startswith("-") and a not in FLAGS]
    if unknown:
        return print(_("unknown option {option}: the options are {options}").format(
            option=unknown[0], options=", ".join(FLAGS)), file=sys.stderr) or 2
    try:
        lessons = [load_lesson(a) for a in args if a not in FLAGS] or load_lessons()
    except LessonError as err:
        return print(err, file=sys.stderr) or 1
    searched = [p for lesson in lessons for p in lesson.positions if p.decided_by == "search"]
    bad = [_("{position}: search plays {move}").format(position=p.id, move=move_name(p.state, a)) for p in searched
           for a in (search_choices(p) if "--search" in args else ()) if a != p.answer]
    bad += [_("{position}: {problem}").format(position=p.id, problem=doubt)
            for p in (searched if "--analysis" in args else ()) for doubt in [analysis_doubts(p)] if doubt]
    positions = sum(len(s.positions) for s in lessons)
    print(_("{lessons}, {positions}: ok").format(
        lessons=ngettext("{count} lesson", "{count} lessons", len(lessons)).format(count=len(lessons)),
        positions=ngettext("{count} position", "{count} positions", positions).format(count=positions))
          if not bad else "\n".join(bad))
    return int(bool(bad))


if __name__ == "__main__":
    set_language()  # the environment's (LANGUAGE, LANG...)
    sys.exit(main(sys.argv[1:]))
