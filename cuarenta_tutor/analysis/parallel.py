"""Provides the analysis of many positions at once, in worker processes where the machine has cores for them.

A position's analysis depends only on the position, the seat's memory there, the settings and the model (its
worlds come from the settings' seed and what the seat knows, analyse.world_seed), so the results are the same with
any number of processes; only the time changes (unless the time cap cuts one, which it then says). In this
process a position analysed before (in play: the hints, the tutor) is not analysed again (analyse.verdict).
Workers are started with "spawn" (safe from the app's worker threads) and load the model once.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from ..agents.onnx_policy import OnnxPolicy, default_model_path
from ..core.observations import compiled_agent
from .analyse import Analysis, Settings, verdict

_AGENTS: dict = {}


def agent_for(model) -> OnnxPolicy:
    """The model's agent (None: the shipped one), loaded once per process (again when the file changes)."""
    path = Path(model) if model else default_model_path()
    try:
        key = (str(path), path.stat().st_mtime_ns)
    except OSError:
        return compiled_agent(OnnxPolicy(path))  # ModelError says the file is missing
    if key not in _AGENTS:
        _AGENTS[key] = compiled_agent(OnnxPolicy(path if model else None))
    return _AGENTS[key]


def default_jobs() -> int:
    """Processes for a review: one per core, at most 8."""
    return max(1, min(8, os.cpu_count() or 1))


def _analyse(job) -> Analysis:
    state, memory, settings, model = job
    return verdict(state, agent_for(model), settings, memory=memory)


WAIT_S = 0.2
"""How often `waiting` is called while the workers analyse."""


def analyse_positions(positions, settings: Settings, model=None, jobs: int = 1, waiting=None) -> Iterator[Analysis]:
    """Each (state, memory) position analysed from its mover's view, in order, in up to `jobs` processes (1:
    here). Stopping the iteration early stops the workers; so does `waiting` raising: it is called every WAIT_S
    while the workers analyse (a person who quits mid-review waits for no position to end)."""
    work = [(state, memory, settings, model) for state, memory in positions]
    if jobs <= 1 or len(work) < 2:
        yield from map(_analyse, work)
        return
    import multiprocessing

    pool = _spawn_pool(min(jobs, len(work)))
    try:
        results = pool.imap(_analyse, work)
        for _ in work:
            while True:
                try:
                    analysis = results.next(timeout=WAIT_S if waiting else None)
                    break
                except multiprocessing.TimeoutError:
                    waiting()
            yield analysis
    finally:
        pool.terminate()


def _spawn_pool(jobs: int):
    """A pool of `jobs` spawned processes. Inside the app, Textual's sys.stderr has no file descriptor (-1), and
    multiprocessing would hand that to its helper process ("bad value(s) in fds_to_keep"): the real stderr stands
    in while the pool starts."""
    import multiprocessing
    import sys

    saved = sys.stderr
    try:
        no_fd = saved.fileno() < 0
    except (AttributeError, OSError, ValueError):  # no fileno at all: multiprocessing passes none, as it should
        no_fd = False
    try:
        if no_fd and sys.__stderr__ is not None:
            sys.stderr = sys.__stderr__
        return multiprocessing.get_context("spawn").Pool(jobs)
    finally:
        sys.stderr = saved
