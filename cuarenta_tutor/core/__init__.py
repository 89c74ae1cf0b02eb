"""Provides the compiled core: the playout path (legal moves, plays and deals, scoring, the observation and move
features, the expert's choice) over arrays of lanes, compiled with numba. The pure-Python engine stays the rules'
one readable statement and the reference the differential tests hold the core to.

`CUARENTA_TUTOR_CORE=python|fast` picks the core (default fast); `fast()` says whether the compiled one serves. It
compiles on first use (or loads numba's disk cache, jit.py): `warm()`, which the app runs in a worker at start. While
another thread compiles it, `fast()` says no and the Python core serves: the numbers are the same (the differential
tests), only slower, so compiling never delays the first screen or the first hint. While another thread loads it from
a cache a whole warm wrote (about a second), `fast()` waits for that load: a first hint is then faster than the
Python core's (up to `LOAD_WAIT_S`, should the cache turn out stale and numba compile after all).
"""

from __future__ import annotations

import os
import threading
import time

from ..i18n import _
from .jit import available

CORES = ("python", "fast")
_LOCK = threading.Lock()
_WARM = {"done": False, "busy": False, "seconds": None}
_WARMED = threading.Event()
"""Set once a warm in this process is over."""
LOAD_WAIT_S = 10.0
"""How long `fast()` waits for another thread's load from a whole cache before the Python core serves instead."""
WHOLE = "warmed"
"""The file a warm leaves in the cache folder once every part is compiled there: a later warm is a load."""


def chosen() -> str:
    """The core asked for by CUARENTA_TUTOR_CORE ("fast" unless it says "python"; `problem` tells of another value)."""
    return "python" if _asked() == "python" else "fast"


def problem() -> str | None:
    """What is wrong with CUARENTA_TUTOR_CORE, if anything (the fast core serves then)."""
    value = _asked()
    if value in CORES:
        return None
    return _("CUARENTA_TUTOR_CORE must be one of {choices}, not {value!r}: the fast core serves").format(
        choices=", ".join(CORES), value=value)


def _asked() -> str:
    return os.environ.get("CUARENTA_TUTOR_CORE", "fast").strip().lower() or "fast"


def fast(wait: bool = True) -> bool:
    """Whether the compiled core serves now: asked for, numba installed, and compiled (compiling it here unless
    another thread is doing so: then not yet, unless that thread only loads it from a whole cache and `wait`: then
    once loaded; without `wait`, for a caller that must not stall, such as the app's screen thread, not yet)."""
    if chosen() != "fast" or not available():
        return False
    if _WARM["done"]:
        return True
    if _WARM["busy"]:
        return wait and _cached() and _WARMED.wait(LOAD_WAIT_S) and _WARM["done"]
    warm()
    return True


def worker_context(preload_module: str):
    """How worker processes start (training's rollouts, the analysis's pools): forked from a server process that
    imported `preload_module` once (what the workers run, and the compiled core by `preload`), so a worker starts
    with both in place; spawned where there is no forkserver (Windows). Never a fork of the caller, whose threads
    (the app's, torch's) make that unsafe. The server is one per process and keeps the modules of the first start:
    every preload module loads the core, so any serves the others' workers, which import the rest themselves."""
    import multiprocessing

    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([preload_module])  # no effect once the server runs
    return context


def preload() -> None:
    """The compiled core loaded (or compiled) where it serves, in the server `worker_context` forks workers from
    (training/preload.py, analysis/preload.py). Should that fail, the server goes on without it: each worker then
    warms for itself, and says what is wrong where it does."""
    if chosen() != "fast" or not available():
        return
    try:
        warm()
    except Exception:  # noqa: BLE001, S110 - the workers warm themselves and report it
        pass


def _cached() -> bool:
    """Whether a whole warm left the compiled core in the cache folder (so a warm now loads it, not compiles it)."""
    from .jit import cache_dir

    return (cache_dir() / WHOLE).exists()


def warm() -> float:
    """Compile every compiled function the analysis calls (or load them from the disk cache), once per process;
    returns the seconds it took (0 when already done). Processes that warm at once share the work: each compiles a
    part no other is compiling (a file lock a part), then loads the others' parts from the disk cache."""
    with _LOCK:
        if _WARM["done"] or _WARM["busy"]:
            return 0.0
        _WARM["busy"] = True
        _WARMED.clear()
    started = time.perf_counter()
    try:
        try:
            _warm_parts()
        except Exception as err:  # a damaged cache (numba raises what its unpickling meets): aside, compile again
            aside = _set_cache_aside()
            if aside is None:
                raise
            _WARM["notice"] = _("the compiled core's cache was damaged ({error}); it was kept aside as {aside} and "
                                "the core compiled again").format(error=type(err).__name__, aside=aside)
            _warm_parts()
    finally:
        _WARM["seconds"] = time.perf_counter() - started
        _WARM["done"], _WARM["busy"] = True, False
        _WARMED.set()
    return _WARM["seconds"]


def _warm_parts() -> None:
    """Each part of the core compiled or loaded: what no other process is compiling now first, then the rest from
    the disk cache once the process at it is done."""
    from ..records.lock import file_lock
    from .jit import cache_dir

    later = []
    for name, part in (("play", _warm_play), ("encode", _warm_encode)):
        with file_lock(cache_dir() / f"warm-{name}.lock", wait=False) as lock:
            if lock.held:
                part()
                continue
        later.append((name, part))
    for name, part in later:
        with file_lock(cache_dir() / f"warm-{name}.lock"):
            part()
    try:
        (cache_dir() / WHOLE).touch()
    except OSError:  # no mark: a later warm is taken for a compile, and the Python core serves meanwhile
        pass


def _set_cache_aside():
    """The cache folder renamed `<folder>.damaged-<time>` and an empty one made in its place (the compiled functions
    keep its path); the new name, or None where there was nothing to set aside or it could not be moved."""
    from .jit import cache_dir

    folder = cache_dir()
    if not any(folder.rglob("*.nb[ic]")):
        return None
    aside = folder.with_name(f"{folder.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
    try:
        folder.rename(aside)
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return aside


def notice() -> str | None:
    """What a warm had to do that the person should hear of (a damaged cache set aside), once; None if nothing."""
    return _WARM.pop("notice", None)


def _rules():
    from ..engine import Rules
    from .layout import rules_array

    return Rules(), rules_array(Rules())


def _warm_play() -> None:
    """Compile the lanes' steps, the playout policy's choice and the search's playouts with the argument types their
    callers use (empty batches: compiling is the point)."""
    import numpy as np

    from .deal import set_deck
    from .lanes import advance, deal_lanes
    from .layout import WIDTH
    from .scorer import policy_lanes, size
    from .search import END_FIELDS, deal_ends

    _, core_rules = _rules()
    rows = np.zeros((1, WIDTH), np.int32)
    none = np.zeros(0, np.int64)
    counts, flags = np.zeros(1, np.int64), np.zeros(1, np.bool_)
    advance(rows, none, np.zeros(0, np.int32), core_rules, 0, True, True, counts, counts, counts, flags, flags, flags)
    deal_lanes(rows, none, core_rules, 0, counts, counts)
    set_deck(rows[0], np.arange(40, dtype=np.int32))
    params = np.zeros(size(1))
    params.flags.writeable = False  # as the sidecar's policy holds them
    policy_lanes(rows, none, core_rules, params, 1, np.zeros(0, np.int32))
    deal_ends(rows[:0], np.zeros(0, np.int32), core_rules, np.zeros((0, 0, END_FIELDS), np.int32))


def _warm_encode() -> None:
    """Compile the playouts' observation batch, as _warm_play does the steps, and one seat's observation with its
    move features (the network's decisions: observations.encode_one), on a real position."""
    import numpy as np

    from ..engine import Dealer
    from .encode import encode_lanes, encode_seat, rules_tail
    from .layout import WIDTH, to_row

    rules, core_rules = _rules()
    encode_seat(to_row(Dealer(0).start(rules)[0]), core_rules, rules_tail(rules), 0, np.zeros(636, np.float32))
    rows = np.zeros((1, WIDTH), np.int32)
    encode_lanes(rows, np.zeros(0, np.int64), core_rules, rules_tail(rules), np.zeros((0, 636), np.float32),
                 np.zeros((0, 53), np.bool_))
