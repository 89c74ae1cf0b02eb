"""Provides the compiled core: the playout path (legal moves, plays and deals, scoring, the observation and move
features, the expert's choice) over arrays of lanes, compiled with numba. The pure-Python engine stays the rules'
one readable statement and the reference the differential tests hold the core to.

`CUARENTA_TUTOR_CORE=python|fast` picks the core (default fast); `fast()` says whether the compiled one serves.
"""

from __future__ import annotations

import os

from .jit import available

CORES = ("python", "fast")


def chosen() -> str:
    """The core asked for by CUARENTA_TUTOR_CORE ("fast" unless it says "python")."""
    value = os.environ.get("CUARENTA_TUTOR_CORE", "fast").strip().lower() or "fast"
    if value not in CORES:
        raise ValueError(f"CUARENTA_TUTOR_CORE must be one of {', '.join(CORES)}, not {value!r}")
    return value


def fast() -> bool:
    """Whether the compiled core serves: asked for and numba installed."""
    return chosen() == "fast" and available()
