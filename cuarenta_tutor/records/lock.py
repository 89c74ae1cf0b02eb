"""Provides the lock of a file that more than one process may change at once (the drill deck, the settings, the stats
cache, the adaptive level, lesson progress; the compiled core's cache parts), and `update_file`: a person's file re-read
under its lock, changed, and written atomically, so what another process wrote meanwhile is merged, never lost.

Two apps open at once (the drills screen in one, a review adding drills in another; two windows changing settings)
each read the file, change it, and write it back: without the lock the later write drops what the earlier one
added. Under it, each change is made on the file as it is now. The lock is an exclusive `fcntl.flock` on a lock file
beside the file (`.<name>.lock`, left there: removing it would let two processes lock two different files); where
fcntl is missing (Windows) there is no lock. Taken again by the thread that holds it, it is already held (a reader
that repairs its file inside an update does not wait on itself).
"""

from __future__ import annotations

import threading
from pathlib import Path

_HELD = threading.local()
"""The lock files this thread holds (by path), so a nested lock of the same file does not wait on itself."""


def lock_path(path) -> Path:
    """The lock file of the file at `path`: `.<name>.lock` beside it."""
    path = Path(path)
    return path.with_name(f".{path.name}.lock")


class file_lock:
    """An exclusive lock on the file at `path` while inside (the lock file itself: `lock_path` names the one of a
    person's file). `held`: whether it was got; without `wait`, not when another process holds it. Where fcntl is
    missing there is no lock and it is always held. The folder is made where missing; a lock file that cannot be
    opened is an OSError, as the write it guards would be."""

    def __init__(self, path, wait: bool = True):
        self.path, self.wait, self.file, self.held = Path(path), wait, None, False
        self.nested = False

    def __enter__(self):
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not on Linux or macOS
            self.held = True
            return self
        held = _HELD.__dict__.setdefault("paths", set())
        key = str(self.path.absolute())
        if key in held:  # this thread holds it already
            self.held = self.nested = True
            return self
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.file = open(self.path, "a")  # noqa: SIM115 - held until __exit__
        try:
            fcntl.flock(self.file, fcntl.LOCK_EX | (0 if self.wait else fcntl.LOCK_NB))
            self.held = True
            held.add(key)
        except BlockingIOError:
            self.held = False
        return self

    def __exit__(self, *exc):
        if self.file is not None:
            if self.held:
                _HELD.paths.discard(str(self.path.absolute()))
            self.file.close()  # closing releases the lock
            self.file = None


def update_file(path, read, change, write):
    """Change the file at `path` on what it holds now: under its lock, `value = read(path)` (the file's own checked
    reader: a damaged file is kept aside and reported as that reader does), `new = change(value)`, and unless `new`
    is None (nothing to change), `write(new, path)` (atomically: records.write_atomic); returns `new`, or the value
    read where nothing changed."""
    path = Path(path)
    with file_lock(lock_path(path)):
        value = read(path)
        new = change(value)
        if new is None:
            return value
        write(new, path)
        return new
