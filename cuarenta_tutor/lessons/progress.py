"""Provides lesson progress: which positions of which lessons the learner has solved, kept as JSON in
the user data folder and written atomically."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from .. import records
from ..i18n import _


@dataclass
class Progress:
    """Solved position ids per lesson id; `problem` says why a stored file could not be read."""

    solved: dict = field(default_factory=dict)
    problem: str | None = None

    def mark(self, lesson_id: str, position_id: str) -> None:
        self.solved.setdefault(lesson_id, set()).add(position_id)

    def is_solved(self, lesson_id: str, position_id: str) -> bool:
        return position_id in self.solved.get(lesson_id, ())

    def fraction(self, lesson) -> float:
        done = sum(self.is_solved(lesson.id, p.id) for p in lesson.positions)
        return done / len(lesson.positions) if lesson.positions else 1.0

    def done(self, lesson) -> bool:
        return self.fraction(lesson) >= 1.0


def progress_path() -> Path:
    return records.data_dir() / "lessons.json"


def load_progress(path=None) -> Progress:
    """The stored progress; a missing file is empty, a damaged one is empty with `problem` set (the file is kept
    aside: records.read_json)."""
    path = Path(path or progress_path())
    try:
        return records.read_json(path, _("the lesson progress file"), _progress, max_bytes=1 << 22, missing=None,
                                 then=_("you start with no lesson solved")) or Progress()
    except records.FileError as err:
        return Progress(problem=str(err))


def _progress(data) -> Progress:
    if not isinstance(data, dict) or data.get("schema_version") != 1 or not isinstance(data.get("solved"), dict) \
            or not all(isinstance(v, list) and all(isinstance(p, str) for p in v) for v in data["solved"].values()):
        raise ValueError(_("not a lesson progress file of schema version 1"))
    return Progress({k: set(v) for k, v in data["solved"].items()})


def mark_solved(lesson_id: str, position_id: str, path=None) -> Progress:
    """Mark a position solved in the stored progress as it is now (records.update_file: re-read under its lock, so
    what another process marked meanwhile, in this lesson or another, stays); the progress as written (its
    `problem`: load_progress's, where the file was damaged and kept aside)."""
    def mark(progress: Progress) -> Progress | None:
        if progress.is_solved(lesson_id, position_id):
            return None
        progress.mark(lesson_id, position_id)
        return progress

    return records.update_file(Path(path or progress_path()), load_progress, mark, save_progress)


def save_progress(progress: Progress, path=None) -> Path:
    """Write the progress atomically; returns the path. It writes over what is stored: a position solved is
    `mark_solved` (marked on the file as it is)."""
    solved = {k: sorted(v) for k, v in sorted(progress.solved.items())}
    return records.write_atomic(Path(path or progress_path()),
                                json.dumps({"schema_version": 1, "solved": solved}, indent=1))
