"""Provides a model's memory graph: the part of its ONNX graph that steps the LSTM memory and nothing else,
kept beside the model as `<model>.memory.onnx` (written with every model the export or a recalibration writes:
training/recalibrate.py `write_memory_graph`).

In a playout every seat's memory is stepped every ply, but only the seat to play needs the move probabilities
(and the analysing seat the value, at the horizon): the other rows run this graph, which skips the value and move
heads (about 60% of a step), and gives the very same memory, bit for bit (tests/test_memory_graph.py). It names
the model it was cut from (metadata `source_sha256`); one made for another model, damaged or missing is not used,
and every row then runs the whole model: the same numbers, slower. It holds nothing a user made, so a bad one is
left as it is (the next export writes it again).
"""

from __future__ import annotations

import stat
from functools import lru_cache
from pathlib import Path

from .onnx_contract import one_thread_session

INPUTS = ("obs", "h", "c")
OUTPUTS = ("h_out", "c_out")


SUFFIX = ".memory.onnx"


def memory_path(model_path) -> Path:
    """Where the memory graph of the model at `model_path` is kept."""
    return Path(model_path).with_suffix(SUFFIX)


def is_memory_graph(path) -> bool:
    """Whether `path` names a memory graph (not a model a person can play)."""
    return Path(path).name.endswith(SUFFIX)


def load_memory(model_path, model_sha256: str):
    """A step function (obs, h, c) -> (h_out, c_out) on the memory graph beside the model, or None where there is
    none made for this model (or it does not load, or has other inputs or outputs). Loaded once per file version: a
    graph written later (an export beside a running app) is found then."""
    path = memory_path(model_path)
    try:
        found = path.stat()
    except OSError:
        return None
    return _load(str(path), model_sha256, found.st_mtime_ns) if stat.S_ISREG(found.st_mode) else None


@lru_cache(maxsize=8)
def _load(path: str, model_sha256: str, version: int):
    del version  # part of the cache's key only
    try:
        session = one_thread_session(path)
    except Exception:  # onnxruntime's own exception types: a damaged file is not used
        return None
    if session.get_modelmeta().custom_metadata_map.get("source_sha256") != model_sha256:
        return None
    if tuple(i.name for i in session.get_inputs()) != INPUTS or \
            tuple(o.name for o in session.get_outputs()) != OUTPUTS:
        return None

    def remember(obs, h, c):
        return session.run(None, {"obs": obs, "h": h, "c": c})

    return remember
