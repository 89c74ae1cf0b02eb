"""Provides `njit`: numba's compiler where numba is installed (compiled code cached on disk), else the plain function.

The core is written once; without numba it still runs (as slow Python over arrays), and `available()` says which.
"""

from __future__ import annotations

try:
    import numba
except ImportError:  # pragma: no cover - numba is a dependency; a machine without a wheel for it still plays
    numba = None


def available() -> bool:
    """Whether the core is compiled (numba imports)."""
    return numba is not None


def njit(function):
    """Compile `function` with numba (cached on disk, no GIL held) where it is installed."""
    if numba is None:  # pragma: no cover
        return function
    return numba.njit(cache=True, nogil=True)(function)
