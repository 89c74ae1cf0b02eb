"""Provides `njit`: numba's compiler where numba is installed (compiled code cached on disk), else the plain function.

The core is written once; without numba it still runs (as slow Python over arrays), and `available()` says which.
numba is imported only when a compiled module is (about half a second): never for the first screen.
"""

from __future__ import annotations

import functools
import importlib.util


@functools.cache
def available() -> bool:
    """Whether the core can be compiled (numba is installed)."""
    return importlib.util.find_spec("numba") is not None


def njit(function):
    """Compile `function` with numba (cached on disk, no GIL held) where it is installed."""
    if not available():  # pragma: no cover - numba is a dependency; a machine without a wheel for it still plays
        return function
    import numba

    return numba.njit(cache=True, nogil=True)(function)
