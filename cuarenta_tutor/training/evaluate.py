"""Provides the evaluation during training: a checkpoint exported and played against the expert in the arena."""

from __future__ import annotations

from pathlib import Path

from ..arena import run_match, summarize
from .config import Config
from .export import export


def evaluate(ckpt_path: Path, out: Path, cfg: Config) -> dict:
    """Export the checkpoint to ONNX and play it (greedy) against the expert in the arena."""
    model = out / "eval.onnx"
    export(ckpt_path, model, check=False)
    results = run_match(f"onnx:{model}", "expert", cfg.eval_games, jobs=1, seed=12345, rules=cfg.rules)
    s = summarize("onnx", "expert", results)
    return {k: getattr(s, k) for k in ("games", "win_rate", "ci_low", "ci_high", "mean_point_diff")}
