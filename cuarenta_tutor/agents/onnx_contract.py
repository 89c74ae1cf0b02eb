"""Provides the ONNX contract between export and play: tensor names, shapes and metadata keys.

Single-step graph. Inputs: obs [B, obs_size] float32 (the size of the model's encoding version:
encoding.SIZES), mask [B, N_ACTIONS] bool, h [1, B, H],
c [1, B, H]. Outputs: probs [B, N_ACTIONS] (0 on illegal), value [B] (win probability of the
observing seat's team), h_out, c_out. B is symbolic. Metadata: the keys below.
"""

from __future__ import annotations

from ..encoding import N_ACTIONS, SIZES
from ..i18n import N_, _

INPUTS = ("obs", "mask", "h", "c")
OUTPUTS = ("probs", "value", "h_out", "c_out")
METADATA_KEYS = ("encoding_version", "obs_size", "n_actions", "hidden_size", "rules_preset", "train_steps",
                 "created", "git_commit")
OPSET = 17
REEXPORT = N_("re-export it from its checkpoint with {command}")
"""What fixes a model that does not fit this code (translated where said: `reexport`)."""
EXPORT_COMMAND = "`cuarenta-tutor export CHECKPOINT --out MODEL.onnx`"


def reexport() -> str:
    """How to make a model this code reads, in the language in use."""
    return _(REEXPORT).format(command=EXPORT_COMMAND)


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
        raise ModelError(_("{path} lacks the metadata {keys}: it was not exported by cuarenta-tutor; {fix}").format(
            path=path, keys=", ".join(missing), fix=reexport()))
    versions = {str(v): size for v, size in SIZES.items()}
    version = str(meta["encoding_version"])
    if version not in versions:
        raise ModelError(_("{path} was exported for encoding_version={version}, but this version of cuarenta-tutor "
                           "reads encoding_version {versions}; {fix} (retrain first if the encoding changed)").format(
            path=path, version=version, versions=_(" or ").join(versions), fix=reexport()))
    want = {"obs_size": versions[version], "n_actions": N_ACTIONS}
    for key, value in want.items():
        if str(meta[key]) != str(value):
            raise ModelError(_("{path} was exported for {key}={found}, but encoding_version {version} has "
                               "{key}={value}; {fix} (retrain first if the encoding changed)").format(
                path=path, key=key, found=meta[key], version=version, value=value, fix=reexport()))
    try:
        return int(meta["hidden_size"]), versions[version]
    except ValueError:
        raise ModelError(_("{path} has a bad hidden_size {size!r}; {fix}").format(
            path=path, size=meta["hidden_size"], fix=reexport())) from None
