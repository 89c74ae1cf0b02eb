"""Provides the analysis of many positions at once, in worker processes where the machine has cores for them.

A position's analysis depends only on the position, the seat's memory there, the settings and the model (its
worlds come from the settings' seed and what the seat knows, analyse.world_seed), so the results are the same with
any number of processes; only the time changes (unless the time cap cuts one, which it then says). In this
process a position analysed before (in play: the hints, the tutor) is not analysed again (analyse.verdict).
Workers are forked from a server process that loaded the analysis once (workers.worker_pool: safe from the app's
worker threads) and load the model once.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from .analyse import Analysis, Settings, verdict
from .workers import agent_for, worker_pool


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

    pool = worker_pool(min(jobs, len(work)))
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
