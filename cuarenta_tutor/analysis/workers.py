"""Provides what the analysis's worker processes share: starting them (forked from a server process that loaded the
analysis and the compiled core once, preload.py: safe from the app's worker threads, and quick after the first pool)
and the model's agent, loaded once in each. The analysis of many positions (parallel.py) and a hand-value table's
build (values.py) use them; this module imports neither, so both can.
"""

from __future__ import annotations

from pathlib import Path

from ..agents.onnx_policy import OnnxPolicy, default_model_path
from ..core import worker_context
from ..core.observations import compiled_agent

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


def worker_pool(jobs: int):
    """A pool of `jobs` worker processes (core.worker_context: forked from a server process that imported the
    analysis and loaded the compiled core once, preload.py; the server outlives the pool, so a later pool starts at
    once). Inside the app, Textual's sys.stderr has no file descriptor
    (-1), and multiprocessing would hand that to its helper process ("bad value(s) in fds_to_keep"): the real stderr
    stands in while the pool starts."""
    import sys

    saved = sys.stderr
    try:
        no_fd = saved.fileno() < 0
    except (AttributeError, OSError, ValueError):  # no fileno at all: multiprocessing passes none, as it should
        no_fd = False
    try:
        if no_fd and sys.__stderr__ is not None:
            sys.stderr = sys.__stderr__
        return worker_context(f"{__package__}.preload").Pool(jobs)
    finally:
        sys.stderr = saved
