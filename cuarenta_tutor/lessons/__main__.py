"""Checks lesson files: `python -m cuarenta_tutor.lessons [--search] [FILE...]` (default: all shipped); with
--search also that search plays every strategy answer."""

from __future__ import annotations

import sys

from ..narrator import move_name
from .feedback import search_choices
from .loader import LessonError, load_lesson, load_lessons


def main(args: list[str]) -> int:
    """Check lesson files (default: all shipped); with --search also that search plays every strategy answer."""
    try:
        lessons = [load_lesson(a) for a in args if a != "--search"] or load_lessons()
    except LessonError as err:
        return print(err, file=sys.stderr) or 1
    bad = [(p.id, move_name(p.state, a)) for lesson in lessons for p in lesson.positions
           for a in (search_choices(p) if "--search" in args and p.decided_by == "search" else ()) if a != p.answer]
    print(f"{len(lessons)} lessons, {sum(len(s.positions) for s in lessons)} positions: ok" if not bad else
          "\n".join(f"{pid}: search plays {name}" for pid, name in bad))
    return int(bool(bad))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
