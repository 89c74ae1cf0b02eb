"""Provides the ONNX contract between export and play: tensor names, shapes and metadata keys.

Single-step graph. Inputs: obs [B, obs_size] float32 (the size of the model's encoding version:
encoding.SIZES), mask [B, N_ACTIONS] bool, h [1, B, H],
c [1, B, H]. Outputs: probs [B, N_ACTIONS] (0 on illegal), value [B] (win probability of the
observing seat's team), h_out, c_out. B is symbolic. Metadata: the keys below.
"""

from __future__ import annotations

from ..encoding import N_ACTIONS, SIZES

INPUTS = ("obs", "mask", "h", "c")
OUTPUTS = ("probs", "value", "h_out", "c_out")
METADATA_KEYS = ("encoding_version", "obs_size", "n_actions", "hidden_size", "rules_preset", "train_steps",
                 "created", "git_commit")
OPSET = 17
REEXPORT = "re-export it from its checkpoint with `cuarenta-tutor export CHECKPOINT --out MODEL.onnx`"


def one_thread_session(path):
    """An onnxruntime session of the graph at `path` on one thread, quiet (onnxruntime's own exceptions where it
    cannot load it)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


class ModelError(ValueError):
    """A model file that cannot be used; the message says what is wrong and how to fix it."""


def check_metadata(meta: dict, path: str) -> tuple[int, int]:
    """Check a model's metadata against this code; returns the LSTM hidden size and the observation size."""
    missing = [k for k in METADATA_KEYS if k not in meta]
    if missing:
        raise ModelError(f"{path} lacks the metadata {', '.join(missing)}: it was not exported by cuarenta-tutor; "
                         f"{REEXPORT}")
    versions = {str(v): size for v, size in SIZES.items()}
    version = str(meta["encoding_version"])
    if version not in versions:
        raise ModelError(f"{path} was exported for encoding_version={version}, but this version of cuarenta-tutor "
                         f"reads encoding_version {' or '.join(versions)}; {REEXPORT} (retrain first if the encoding "
                         f"changed)")
    want = {"obs_size": versions[version], "n_actions": N_ACTIONS}
    for key, value in want.items():
        if str(meta[key]) != str(value):
            raise ModelError(f"{path} was exported for {key}={meta[key]}, but encoding_version {version} has "
                             f"{key}={value}; {REEXPORT} (retrain first if the encoding changed)")
    try:
        return int(meta["hidden_size"]), versions[version]
    except ValueError:
        raise ModelError(f"{path} has a bad hidden_size {meta['hidden_size']!r}; {REEXPORT}") from None
