"""Provides the network's one-pass numbers on the analysis's scale: the win % after each move that the critic gives
at once (one forward pass), mapped by a monotone fit onto the win % the analysis (analyse.STANDARD) gives the same
move, so the numbers a person sees before the analysis arrives are on the scale of those that replace them.

The critic was calibrated against games with the expert, not against the agent's own play that the analysis
assumes: unfitted it reads high. The fit is logistic, win % = 100 * sigmoid(slope * logit(value) + intercept)
(monotone, so it never reorders moves; a won or lost game, 0 or 1, stays as it is), fitted to minimise the mean
absolute error over every legal move of positions from seeded games with the agent on every seat, and measured on
positions of other games (held out). It is kept in the model's sidecar (`<model>.analysis.json`, "one_pass"):

    python -m cuarenta_tutor.analysis.onepass [--positions N] [--held-out N] [--seed S] [--model PATH] [--jobs J]

No class is ever given from these numbers: a class comes from the analysis alone.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..agents.onnx_contract import ModelError
from ..agents.onnx_policy import OnnxPolicy, default_model_path, file_sha256, load_session
from ..core.observations import compiled_agent
from ..engine import Dealer, Rules, legal_actions
from ..table import Table
from .values import read_sidecar

FIT_SEED = 2001
"""The fitting positions' games; the held-out ones are from FIT_SEED + 1000."""
EPS = 1e-4


@dataclass(frozen=True)
class OnePassFit:
    """win % = 100 * sigmoid(slope * logit(value) + intercept)."""

    slope: float = 1.0
    intercept: float = 0.0

    def win_pct(self, value: float) -> float:
        """The network's `value` (a probability) as a win % on the analysis's scale (a decided game as it is)."""
        if value <= 0.0 or value >= 1.0:
            return 100.0 * min(1.0, max(0.0, value))
        v = min(1.0 - EPS, max(EPS, value))
        z = self.slope * math.log(v / (1.0 - v)) + self.intercept
        return 100.0 / (1.0 + math.exp(-z))

    def to_json(self) -> dict:
        return {"slope": round(self.slope, 5), "intercept": round(self.intercept, 5)}


IDENTITY = OnePassFit()
"""No fit: the network's own numbers (a model with none in its sidecar)."""


def for_model(model=None) -> OnePassFit | None:
    """The fit kept in the model's sidecar, None if it has none (or was made for another model)."""
    path = Path(model) if model else default_model_path()
    try:
        data = read_sidecar(path, file_sha256(path)).get("one_pass")
        return OnePassFit(float(data["slope"]), float(data["intercept"])) if data else None
    except (OSError, KeyError, TypeError, ValueError):
        return None


def scale(model=None):
    """value (0..1) -> win % on the analysis's scale: the model's fit, else the network's own (100 * value)."""
    return (for_model(model) or IDENTITY).win_pct


def sample(count: int, seed: int, model=None) -> list[tuple]:
    """(state, mover's memory, {action: network value after it}) for `count` decisions with a choice (about one in
    three) of seeded games with the agent on every seat."""
    rng = random.Random(seed)
    found, game = [], 0
    while len(found) < count:
        agents = [compiled_agent(OnnxPolicy(model)), compiled_agent(OnnxPolicy(model))]
        table = Table(Rules(), agents, Dealer(seed * 7919 + game))
        table.start()
        while not table.over and len(found) < count:
            state = table.state
            if len(legal_actions(state)) > 1 and rng.random() < 1 / 3:
                agent = agents[state.turn]
                decision = agent.decide(state)
                found.append((state, agent.memory, dict(decision.action_values)))
            table.step()
        game += 1
    return found


def pairs(found, settings, model=None, jobs: int = 1, progress=None) -> tuple[np.ndarray, np.ndarray]:
    """(network values, the analysis's win %) over every legal move of `found` (sample's)."""
    from .parallel import analyse_positions

    values, wins = [], []
    with closing(analyse_positions([(s, m) for s, m, _ in found], settings, model, jobs)) as results:
        for k, ((_, _, net), analysis) in enumerate(zip(found, results, strict=True)):
            for move in analysis.moves:
                values.append(net[move.action])
                wins.append(move.win_pct)
            if progress:
                progress(k + 1, len(found))
    return np.array(values), np.array(wins)


def mae(fit: OnePassFit, values, wins) -> float:
    return float(np.mean([abs(fit.win_pct(v) - w) for v, w in zip(values, wins, strict=True)]))


def bias(fit: OnePassFit, values, wins) -> float:
    return float(np.mean([fit.win_pct(v) - w for v, w in zip(values, wins, strict=True)]))


def fit(values, wins) -> OnePassFit:
    """The logistic map with the least mean absolute error from `values` to `wins`."""
    from scipy.optimize import minimize

    inner = (values > 0) & (values < 1)
    v = np.clip(values[inner], EPS, 1 - EPS)
    x, w = np.log(v / (1 - v)), wins[inner]

    def loss(p):
        return float(np.mean(np.abs(100.0 / (1.0 + np.exp(-(p[0] * x + p[1]))) - w)))

    best = minimize(loss, np.array([1.0, 0.0]), method="Nelder-Mead", options={"xatol": 1e-5, "fatol": 1e-6})
    return OnePassFit(float(best.x[0]), float(best.x[1]))


def measure(positions: int = 120, held_out: int = 60, seed: int = FIT_SEED, model=None, jobs: int = 1,
            progress=None) -> dict:
    """Fit on `positions` positions of seed's games, measure on `held_out` of other games (seed + 1000): the mean
    absolute error of the one-pass win % against the analysis's, before and after the fit."""
    from dataclasses import replace

    from .calibrate import settings_for

    settings = replace(settings_for(model), budget_s=0.0)  # every world, whatever the load
    fitting = pairs(sample(positions, seed, model), settings, model, jobs, progress)
    held = pairs(sample(held_out, seed + 1000, model), settings, model, jobs, progress)
    found = fit(*fitting)
    return {**found.to_json(), "positions": positions, "moves": len(fitting[0]), "seed": seed,
            "held_out_positions": held_out, "held_out_moves": len(held[0]), "held_out_seed": seed + 1000,
            "mae_before": round(mae(IDENTITY, *fitting), 3), "mae_after": round(mae(found, *fitting), 3),
            "held_out_mae_before": round(mae(IDENTITY, *held), 3),
            "held_out_mae_after": round(mae(found, *held), 3),
            "held_out_bias_before": round(bias(IDENTITY, *held), 3),
            "held_out_bias_after": round(bias(found, *held), 3),
            "analysis": settings.identity()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cuarenta_tutor.analysis.onepass",
                                     description="Fit the network's one-pass win % to the analysis's and keep the fit "
                                                 "in the model's sidecar.")
    parser.add_argument("--positions", type=int, default=120, help="fitting positions (default 120)")
    parser.add_argument("--held-out", type=int, default=60, help="positions of other games to measure on (default 60)")
    parser.add_argument("--seed", type=int, default=FIT_SEED, help=f"seed of the fitting games (default {FIT_SEED})")
    parser.add_argument("--model", help="ONNX model (default: the shipped one)")
    parser.add_argument("--jobs", type=int, default=1, help="processes for the analyses (default 1)")
    args = parser.parse_args(argv)
    if args.positions < 2 or args.held_out < 1 or args.jobs < 1:
        print("--positions must be 2 or more, --held-out and --jobs 1 or more", file=sys.stderr)
        return 2
    from ..progressbar import progress_bar
    from .calibrate import write_sidecar
    from .values import forget, sidecar

    path = Path(args.model) if args.model else default_model_path()
    try:
        load_session(path)
    except ModelError as err:  # one line, not a traceback
        print(f"{parser.prog}: {err}", file=sys.stderr)
        return 2
    model_id = file_sha256(path)
    data = dict(read_sidecar(path, model_id)) or {"model_sha256": model_id}
    with progress_bar("positions") as advance:
        result = measure(args.positions, args.held_out, args.seed, args.model, args.jobs, progress=advance)
    data["one_pass"] = {**result, "command": f"python -m cuarenta_tutor.analysis.onepass --positions "
                                             f"{args.positions} --held-out {args.held_out} --seed {args.seed}"}
    write_sidecar(path, data)
    forget()
    print(json.dumps(data["one_pass"]))
    print(f"wrote {sidecar(path)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
