"""Provides the analysis's measured model error: how far the critic at the horizon is from the deep
reference beyond what sampling explains, fitted once per model and kept beside it as JSON.

    python -m cuarenta_tutor.analysis.errors [--positions N] [--seed S] [--model PATH]

writes `<model>.analysis.json` (the shipped one: models/cuarenta-a2c-lstm.analysis.json). The analysis
adds these errors to its sampling error, so its intervals hold the reference (`bench analysis` checks it on
positions from other seeds).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..agents.onnx_policy import OnnxPolicy, default_model_path, file_sha256
from ..records import write_atomic
from .analyse import INTERACTIVE, Z95, Settings, analyse
from .validate import REFERENCE, sample_positions

FIT_SEED = 1001
"""Positions for fitting come from these games; `bench analysis` measures on others (seed 1)."""


def sidecar(model) -> Path:
    """The JSON beside a model that holds its analysis errors."""
    path = Path(model) if model else default_model_path()
    return path.with_suffix(".analysis.json")


def settings_for(model=None, base: Settings = INTERACTIVE) -> Settings:
    """`base` with the model's measured errors, when its sidecar exists and was fitted on this very model."""
    try:
        data = json.loads(sidecar(model).read_text(encoding="utf-8"))
        if data.get("model_sha256") != file_sha256(Path(model) if model else default_model_path()):
            return base
        if data.get("horizon") != base.horizon:
            return base
        return replace(base, value_sd=float(data["value_sd"]), loss_sd=float(data["loss_sd"]))
    except (OSError, ValueError, KeyError, TypeError):
        return base


def _sampling_sd(low: float, high: float) -> float:
    return (high - low) / (2 * Z95)


def fit(positions: int = 60, seed: int = FIT_SEED, model=None, progress=None) -> dict:
    """Measure the critic's error at the interactive horizon against the deep reference on `positions`."""
    agent = OnnxPolicy(model)
    quick_settings = replace(INTERACTIVE, budget_s=0, min_worlds=INTERACTIVE.worlds)
    value_err, value_var, loss_err, loss_var = [], [], [], []
    found = sample_positions(positions, seed, model)
    for i, (state, memory) in enumerate(found):
        quick = analyse(state, agent, quick_settings, memory=memory)
        deep = analyse(state, agent, REFERENCE, memory=memory)
        for move in quick.moves:
            truth = deep.move(move.action)
            value_err.append(move.win_pct - truth.win_pct)
            value_var.append(_sampling_sd(*move.ci95) ** 2 + _sampling_sd(*truth.ci95) ** 2)
            if move.action != quick.best.action and truth.action != deep.best.action:
                loss_err.append(move.loss - truth.loss)
                loss_var.append(_sampling_sd(*move.loss_ci95) ** 2 + _sampling_sd(*truth.loss_ci95) ** 2)
        if progress:
            progress(i + 1, len(found))
    value_err, loss_err = np.array(value_err), np.array(loss_err)
    return {"model_sha256": agent.model_id, "horizon": quick_settings.horizon,
            "value_sd": round(math.sqrt(max(0.0, float(np.mean(value_err ** 2)) - float(np.mean(value_var)))), 3),
            "loss_sd": round(math.sqrt(max(0.0, float(np.mean(loss_err ** 2)) - float(np.mean(loss_var)))), 3),
            "value_bias": round(float(value_err.mean()), 3), "positions": len(found), "moves": len(value_err),
            "seed": seed, "interactive": quick_settings.to_json(), "reference": REFERENCE.to_json(),
            "command": f"python -m cuarenta_tutor.analysis.errors --positions {positions} --seed {seed}"}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cuarenta_tutor.analysis.errors",
                                     description="Measure the analysis's model error and write it beside the model.")
    parser.add_argument("--positions", type=int, default=60, help="positions to fit on (default 60)")
    parser.add_argument("--seed", type=int, default=FIT_SEED, help=f"seed of their games (default {FIT_SEED})")
    parser.add_argument("--model", help="ONNX model (default: the shipped one)")
    args = parser.parse_args(argv)
    if args.positions < 2:
        print("--positions must be 2 or more", file=sys.stderr)
        return 2
    result = fit(args.positions, args.seed, args.model)
    path = write_atomic(sidecar(args.model), json.dumps(result, indent=1) + "\n")
    print(json.dumps(result))
    print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
