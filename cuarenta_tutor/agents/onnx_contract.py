"""Provides the ONNX contract between export and play: tensor names, shapes and metadata keys.

Single-step graph. Inputs: obs [B, OBS_SIZE] float32, mask [B, N_ACTIONS] bool, h [1, B, H],
c [1, B, H]. Outputs: probs [B, N_ACTIONS] (0 on illegal), value [B] (win probability of the
observing seat's team), h_out, c_out. B is symbolic. Metadata: the keys below.
"""

from __future__ import annotations

from ..encoding import ENCODING_VERSION, N_ACTIONS, OBS_SIZE

INPUTS = ("obs", "mask", "h", "c")
OUTPUTS = ("probs", "value", "h_out", "c_out")
METADATA_KEYS = ("encoding_version", "obs_size", "n_actions", "hidden_size", "rules_preset", "train_steps",
                 "created", "git_commit")
OPSET = 17
REEXPORT = "re-export it from its checkpoint with `cuarenta-tutor export CHECKPOINT --out MODEL.onnx`"


class ModelError(ValueError):
    """A model file that cannot be used; the message says what is wrong and how to fix it."""


def check_metadata(meta: dict, path: str) -> int:
    """Check a model's metadata against this code; returns the LSTM hidden size."""
    missing = [k for k in METADATA_KEYS if k not in meta]
    if missing:
        raise ModelError(f"{path} lacks the metadata {', '.join(missing)}: it was not exported by cuarenta-tutor; "
                         f"{REEXPORT}")
    want = {"encoding_version": ENCODING_VERSION, "obs_size": OBS_SIZE, "n_actions": N_ACTIONS}
    for key, value in want.items():
        if str(meta[key]) != str(value):
            raise ModelError(f"{path} was exported for {key}={meta[key]}, but this version of cuarenta-tutor uses "
                             f"{key}={value}; {REEXPORT} (retrain first if the encoding changed)")
    try:
        return int(meta["hidden_size"])
    except ValueError:
        raise ModelError(f"{path} has a bad hidden_size {meta['hidden_size']!r}; {REEXPORT}") from None
