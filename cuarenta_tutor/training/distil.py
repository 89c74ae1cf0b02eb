"""Provides the fit of the playout policy (analysis/policy.py): the network's own choices in the analysis's
playouts, distilled into a scorer of each legal move's features and written into the model's sidecar.

Positions come from games of the agent against the expert in every preset, 1 v 1 and 2 v 2
(validate.sample_positions). Each is analysed as a hint is, the network playing the playouts, and a share of the
playout rows where the seat on turn had a choice is kept: every legal move's 10 features and the network's
probabilities. The scorer is fitted to those probabilities (cross-entropy) on most positions and judged on the
rest, held out: the share of their rows where it picks the network's move. Needs torch (the `train` extra).

    python -m cuarenta_tutor.training.distil [--model M] [--positions 200] [--seed 31]

The analysis's measured errors were measured with the network playing: run the calibration again afterwards
(analysis/calibrate.py; its deep references are kept, so only the quick analyses are made again).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..agents.onnx_contract import ModelError
from ..agents.onnx_policy import OnnxPolicy, default_model_path
from ..analysis.analyse import STANDARD, analyse
from ..analysis.calibrate import write_sidecar
from ..analysis.policy import PlayoutPolicy
from ..analysis.validate import sample_positions
from ..analysis.values import calibrate_command, read_sidecar
from ..core.scorer import N_FEATURES, size
from ..encoding import BASE_SIZE, N_ACTIONS
from ..engine.rules import preset

PLAN = (("standard", 2, 6), ("pagat", 2, 2), ("quito_todo_dos", 2, 2), ("agent_dory", 2, 2), ("standard", 4, 2),
        ("pagat", 4, 1), ("quito_todo_dos", 4, 1), ("agent_dory", 4, 1))
"""(preset, players, weight): the share of the positions each kind gets."""
HELD_OUT = 7
"""Every 7th position is held out of the fit and judges it."""
HIDDEN = 16


def collect(model, positions: int, seed: int, keep: float, progress=None, worlds: int = STANDARD.worlds) -> dict:
    """The kept playout rows of `positions` positions analysed in `worlds` worlds: "features" [rows, 53, 10] float32,
    "mask" [rows, 53], "probs" [rows, 53] (the network's) and "held_out" [rows] (the row's position judges the
    fit)."""
    agent = OnnxPolicy(model)
    settings = replace(STANDARD, playout="network", budget_s=0, worlds=worlds, round_worlds=min(worlds, 128),
                       min_worlds=worlds)
    rng = np.random.default_rng(seed)
    total = sum(w for *_, w in PLAN)
    kinds = [(name, players, max(1, round(positions * w / total))) for name, players, w in PLAN]
    count = sum(k[2] for k in kinds)
    rows = {"features": [], "mask": [], "probs": [], "held_out": []}
    done = 0
    for k, (name, players, many) in enumerate(kinds):
        for state, memory in sample_positions(many, seed + 1000 * k, model, preset(name, players)):
            held = done % HELD_OUT == HELD_OUT - 1

            def watch(obs, mask, probs, held=held):
                chosen = np.flatnonzero((mask.sum(1) > 1) & (rng.random(len(obs)) < keep))
                rows["features"].append(obs[chosen, BASE_SIZE:].reshape(-1, N_ACTIONS, N_FEATURES))
                rows["mask"].append(mask[chosen])
                rows["probs"].append(probs[chosen])
                rows["held_out"].append(np.full(len(chosen), held))

            analyse(state, agent, settings, memory=memory, watch=watch)
            done += 1
            if progress:
                progress(done, count)
    return {key: np.concatenate(parts) for key, parts in rows.items()}


def fit(data: dict, hidden: int = HIDDEN, epochs: int = 30, seed: int = 0) -> PlayoutPolicy:
    """The scorer fitted to `data` (collect's) and its agreement with the network on the held-out rows."""
    import torch

    torch.manual_seed(seed)
    features = torch.tensor(data["features"], dtype=torch.float32)
    mask = torch.tensor(data["mask"])
    target = torch.tensor(data["probs"], dtype=torch.float32)
    held = torch.tensor(data["held_out"])
    hid, out, lin = torch.nn.Linear(N_FEATURES, hidden), torch.nn.Linear(hidden, 1), torch.nn.Linear(N_FEATURES, 1)
    bias = torch.nn.Parameter(torch.zeros(N_ACTIONS))
    parts = [*hid.parameters(), *out.parameters(), *lin.parameters(), bias]
    optimiser = torch.optim.Adam(parts, 3e-3)

    def scores(i):
        f = features[i]
        s = out(torch.relu(hid(f)))[..., 0] + lin(f)[..., 0] + bias
        return s.masked_fill(~mask[i], -1e9)

    train, test = torch.nonzero(~held)[:, 0], torch.nonzero(held)[:, 0]
    for _ in range(epochs):
        order = train[torch.randperm(len(train))]
        for b in range(0, len(order), 512):
            i = order[b:b + 512]
            loss = -(target[i] * torch.log_softmax(scores(i), 1)).sum(1).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    with torch.no_grad():
        agreement = float((scores(test).argmax(1) == target[test].argmax(1)).float().mean()) if len(test) else 0.0
        params = np.concatenate([hid.weight.numpy().ravel(), hid.bias.numpy(), out.weight.numpy()[0],
                                 out.bias.numpy(), lin.weight.numpy()[0], lin.bias.numpy(), bias.numpy()])
    assert len(params) == size(hidden)
    return PlayoutPolicy(hidden, params.astype(np.float64), round(agreement, 4), int(len(test)))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cuarenta_tutor.training.distil",
                                     description="Fit the analysis's playout policy to the network's choices in its "
                                                 "playouts, and keep it in the model's sidecar.")
    parser.add_argument("--model", help="ONNX model (default: the shipped one)")
    parser.add_argument("--positions", type=int, default=200, help="positions to analyse (default 200)")
    parser.add_argument("--seed", type=int, default=31, help="seed of their games and the fit (default 31)")
    parser.add_argument("--keep", type=float, default=0.05, help="share of the playout rows kept (default 0.05)")
    parser.add_argument("--worlds", type=int, default=STANDARD.worlds,
                        help=f"worlds a position is analysed in (default {STANDARD.worlds}, as a hint)")
    args = parser.parse_args(argv)
    if args.positions < HELD_OUT or not 0 < args.keep <= 1 or args.worlds < 1:
        print(f"--positions must be {HELD_OUT} or more, --keep in (0, 1] and --worlds 1 or more", file=sys.stderr)
        return 2
    path = Path(args.model) if args.model else default_model_path()
    try:
        agent = OnnxPolicy(path)
    except ModelError as err:  # one line, not a traceback
        print(f"{parser.prog}: {err}", file=sys.stderr)
        return 2
    data = dict(read_sidecar(path, agent.model_id))
    if not data:
        print(f"{path} has no analysis sidecar to keep a playout policy in: {calibrate_command(path)} first",
              file=sys.stderr)
        return 1
    from ..progressbar import progress_bar

    with progress_bar("positions analysed") as advance:
        rows = collect(path, args.positions, args.seed, args.keep, advance, args.worlds)
    policy = fit(rows, seed=args.seed)
    command = (f"python -m cuarenta_tutor.training.distil --positions {args.positions} --seed {args.seed} "
               f"--keep {args.keep} --worlds {args.worlds}")
    data["playout_policy"] = {**policy.to_json(), "rows": int(len(rows["mask"])), "command": command}
    write_sidecar(path, data)
    print(json.dumps({"agreement": policy.agreement, "held_out_rows": policy.held_out, "rows": len(rows["mask"])}))
    print(f"wrote the playout policy into {path.with_suffix('.analysis.json')}; the analysis's measured errors were "
          f"the network's playouts': {calibrate_command(path)} measures them again", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
