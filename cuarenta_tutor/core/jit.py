"""Provides `njit`: numba's compiler where numba is installed (compiled code cached on disk), else the plain function.

The core is written once; without numba it still runs (as slow Python over arrays), and `available()` says which.
numba is imported only when a compiled module is (about half a second): never for the first screen.

numba's disk cache keys a function on its own file, not on the functions it calls from other files, so an edit of
moves.py would leave play.py's cached code stale: the cache lives in a folder named for the digest of every core
source, the numba version and the optimisation level (`cache_dir`); folders of other digests unused for a week are
removed.

The core is compiled at LLVM optimisation level 1 (OPT_LEVEL; numba's default is 3): a third less compile time for the
same speed.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import shutil
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
OPT_LEVEL = "1"
"""numba's optimisation level for the core, unless NUMBA_OPT says otherwise. Measured on an empty cache (2026-11-28,
2 cores, one process): the whole warm 29.0 s at 3, 25.2 s at 2, 20.6 s at 1, and 13.0 s at 0, which leaves the
global tables out of the cache (numba: "uses dynamic globals"), so 0 compiles every run. `bench engine` 2.76M plays/s
at 3 and 2.62-2.76M at 1; `bench bots` search:48 3.7-4.2 ms median at 3, 3.7-4.4 at 1; strong 44-48 ms at either."""
STALE_S = 7 * 24 * 3600
"""A cache folder of other sources unused this long is removed (another checkout may still use a newer one)."""


@functools.cache
def available() -> bool:
    """Whether the core can be compiled (numba is installed)."""
    return importlib.util.find_spec("numba") is not None


def digest() -> str:
    """A digest of the core's sources (every .py beside this file)."""
    h = hashlib.sha256()
    for path in sorted(HERE.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


@functools.cache
def cache_dir() -> Path:
    """Where the compiled core is kept: NUMBA_CACHE_DIR if set, else the user cache folder, in a folder per digest of
    the sources, numba's version and the optimisation level (folders of other sources unused for a week removed)."""
    level = opt_level()  # set before numba is imported here
    import numba
    import platformdirs

    roots = [Path(os.environ.get("NUMBA_CACHE_DIR") or Path(platformdirs.user_cache_dir("cuarenta-tutor")) / "numba"),
             Path(tempfile.gettempdir()) / f"cuarenta-tutor-numba-{os.getuid() if hasattr(os, 'getuid') else 0}"]
    for root in roots:  # a home folder that cannot be written: the temporary folder
        folder = root / f"core-{digest()}-{numba.__version__}-O{level}"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            os.utime(folder)
        except OSError:
            continue
        for old in root.glob("core-*"):
            if old != folder and old.is_dir() and time.time() - old.stat().st_mtime > STALE_S:
                shutil.rmtree(old, ignore_errors=True)
        return folder
    raise OSError(f"no folder to keep the compiled core in: {', '.join(map(str, roots))} cannot be written")


def opt_level() -> str:
    """The optimisation level the core is compiled at: NUMBA_OPT where set, else OPT_LEVEL, set there (numba reads its
    settings from the environment, at import and again at a compile once they changed)."""
    return os.environ.setdefault("NUMBA_OPT", OPT_LEVEL)


def njit(function):
    """Compile `function` with numba (cached on disk in `cache_dir`, no GIL held) where it is installed."""
    if not available():  # pragma: no cover - numba is a dependency; a machine without a wheel for it still plays
        return function
    folder = str(cache_dir())  # before numba is imported: it sets the optimisation level
    import numba

    numba.config.CACHE_DIR = folder
    dispatcher = numba.njit(cache=True, nogil=True)(function)
    typed = dispatcher.get_call_template
    dispatcher.get_call_template = lambda args, kws: typed(tuple(map(_plain, args)),
                                                           {k: _plain(v) for k, v in kws.items()})
    return dispatcher


def _plain(argument):
    """The type a compiled function is compiled for when another calls it with an argument of this type: not a
    constant's own (numba would compile `step(..., False)` apart from `step(..., flag)`, and `event(events, k,
    EV_PLAYED, ...)` once per kind of event) and no integer narrower than 64 bits (an action from an int32 array and
    one from the expert's choice would be two compiles of the play). A third of the compile time went on such
    copies."""
    from numba.core import types

    argument = types.unliteral(argument)
    if isinstance(argument, types.Integer) and argument.signed and argument.bitwidth < 64:
        return types.int64
    return argument
