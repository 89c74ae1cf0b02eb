"""Provides the export: training checkpoint -> single-step ONNX graph with metadata, then a parity
check of onnxruntime against PyTorch over carried LSTM steps (the export fails if it does not hold)."""

from __future__ import annotations

import datetime
import subprocess
import warnings
from pathlib import Path

import numpy as np
import torch
from torch import nn

from ..agents.onnx_contract import INPUTS, OPSET, OUTPUTS
from ..encoding import N_ACTIONS, SIZES
from .config import Config, load_checkpoint
from .model import build_net
from .recalibrate import model_written


class ExportError(RuntimeError):
    """The exported graph does not behave like the PyTorch network."""


class _Step(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, obs, mask, h, c):
        return self.net.step(obs, mask, h, c)


def _git_commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).parent, check=True).stdout.strip() or "unknown"
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def load_net(checkpoint) -> tuple[nn.Module, Config, dict]:
    ckpt = load_checkpoint(checkpoint)
    cfg = Config.from_dict(ckpt["config"])
    net = build_net(cfg)
    net.load_state_dict(ckpt["model"])
    net.eval()
    return net, cfg, ckpt.get("progress", {})


def export(checkpoint, out, check: bool = True, steps: int = 50, calibration=None) -> Path:
    """Write the ONNX model for `checkpoint` to `out`; with `check`, verify parity (atol 1e-5) at batch
    1 and 3 over `steps` carried steps and that the batch dimension is symbolic. `calibration` (a, b)
    Platt-scales the value: sigmoid(a * logit + b) (see `calibrate`). Nothing is left beside `out` when it fails."""
    net, cfg, progress = load_net(checkpoint)
    if calibration is not None:
        net.value_scale, net.value_shift = float(calibration[0]), float(calibration[1])
    out = Path(out)
    with model_written(out) as tmp:
        _write(net, cfg, progress, tmp, check, steps)
    return out


def _write(net, cfg: Config, progress: dict, tmp: Path, check: bool, steps: int) -> None:
    """The graph of `net` with its metadata in `tmp`, checked when asked (see `export`)."""
    import onnx

    B, H = 2, cfg.hidden  # an example batch of 2 or more keeps the batch dimension symbolic
    example = (torch.zeros(B, SIZES[cfg.encoding]), torch.ones(B, N_ACTIONS, dtype=torch.bool), torch.zeros(1, B, H),
               torch.zeros(1, B, H))
    batch = {"obs": {0: "batch"}, "mask": {0: "batch"}, "h": {1: "batch"}, "c": {1: "batch"},
             "probs": {0: "batch"}, "value": {0: "batch"}, "h_out": {1: "batch"}, "c_out": {1: "batch"}}
    with warnings.catch_warnings():
        # h and c are explicit inputs, which is what this exporter warning asks for.
        warnings.filterwarnings("ignore", message="Exporting a model to ONNX with a batch_size other than 1")
        torch.onnx.export(_Step(net), example, str(tmp), input_names=list(INPUTS), output_names=list(OUTPUTS),
                          dynamic_axes=batch, opset_version=OPSET, dynamo=False)
    model = onnx.load(str(tmp))
    meta = {"encoding_version": cfg.encoding, "obs_size": SIZES[cfg.encoding], "n_actions": N_ACTIONS,
            "hidden_size": H, "rules_preset": ", ".join(cfg.mix) if cfg.mix else cfg.rules,
            "train_steps": progress.get("steps", 0),
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "git_commit": _git_commit(),
            "value_calibration": f"{net.value_scale:.6f},{net.value_shift:.6f}"}
    del model.metadata_props[:]
    for key, value in meta.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, str(value)
    onnx.save(model, str(tmp))
    if check:
        check_symbolic_batch(tmp)
        check_parity(net, tmp, H, steps)


def check_symbolic_batch(path) -> None:
    import onnx

    graph = onnx.load(str(path)).graph
    for value in list(graph.input) + list(graph.output):
        dims = value.type.tensor_type.shape.dim
        axis = 1 if value.name in ("h", "c", "h_out", "c_out") else 0
        if not dims[axis].dim_param:
            raise ExportError(f"{value.name} has a fixed batch dimension {dims[axis].dim_value}")


def check_parity(net, path, hidden: int, steps: int = 50, atol: float = 1e-5, seed: int = 0) -> float:
    """Largest difference of probs and value between PyTorch and onnxruntime over `steps` carried steps at
    batch 1 and 3 (atol 1e-5); the carried h and c must agree within 1e-5 relative to their size."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(seed)
    worst = 0.0
    for B in (1, 3):
        h = np.zeros((1, B, hidden), np.float32)
        c = np.zeros((1, B, hidden), np.float32)
        th, tc = torch.zeros(1, B, hidden), torch.zeros(1, B, hidden)
        for _ in range(steps):
            obs = rng.random((B, net.obs_size), dtype=np.float32)
            mask = rng.random((B, N_ACTIONS)) < 0.2
            mask[:, 0] = True
            probs, value, h, c = session.run(None, {"obs": obs, "mask": mask, "h": h, "c": c})
            with torch.no_grad():
                tp, tv, th, tc = net.step(torch.from_numpy(obs), torch.from_numpy(mask), th, tc)
            for a, b in ((probs, tp), (value, tv)):
                worst = max(worst, float(np.abs(a - b.numpy()).max()))
            for name, a, b in (("h", h, th), ("c", c, tc)):
                # The carried memory can grow to several units: compare it relative to its size.
                if not np.allclose(a, b.numpy(), rtol=atol, atol=atol):
                    raise ExportError(f"onnxruntime and PyTorch memories ({name}) differ by "
                                      f"{float(np.abs(a - b.numpy()).max()):.2e}; the export is wrong")
    if worst > atol:
        raise ExportError(f"onnxruntime and PyTorch outputs differ by {worst:.2e} (> {atol:.0e}); the export is wrong")
    return worst


def calibrate(checkpoint, out, games: int = 400, seed: int = 777, jobs: int = 2) -> dict:
    """Export, play `games` against the expert (seeds apart from the evaluation's), fit Platt scaling on
    the values of every decision, and export again with it. Returns a, b and the fit's ECE before/after."""
    from .recalibrate import fit_scaling

    raw = Path(out).with_suffix(".uncalibrated.onnx")
    export(checkpoint, raw)
    try:
        a, b, fit = fit_scaling(raw, games, seed, jobs)
    finally:
        raw.unlink(missing_ok=True)
    export(checkpoint, out, calibration=(a, b))
    return fit
