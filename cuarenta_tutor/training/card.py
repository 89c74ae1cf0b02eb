"""Provides the model card: the shipped model's facts gathered from its checkpoint, its arena runs and
the file itself, written next to the .onnx as JSON.

    python -m cuarenta_tutor.training.card CHECKPOINT MODEL.onnx ARENA.json... [--note TEXT]
    python -m cuarenta_tutor.training.card --update MODEL.onnx ARENA.json...

The second form needs no checkpoint: the card beside the model gets these results in place of the ones they
repeat, and the model's sha256 and size as the file is now.

Each ARENA.json is the last line of `cuarenta-tutor arena ... --json` (calibration included where asked).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

from .. import encoding
from ..agents.onnx_policy import file_sha256
from ..records import read_card, write_card
from .a2c import load_checkpoint

TRAIN_COMMAND = "cuarenta-tutor train --config artifacts/configs/train-config.json --out runs/shipped"
EXPORT_COMMAND = ("cuarenta-tutor export runs/shipped/{name} --out models/cuarenta-a2c-lstm.onnx --calibrate 400 "
                  "--calibrate-seed 777")


def encoding_table() -> list[dict]:
    rows = []
    for line in encoding.__doc__.splitlines():
        if line.startswith("| ") and line[2].isdigit():
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows.append({"slice": cells[0], "size": int(cells[1]), "meaning": cells[2], "scaling": cells[3]})
    return rows


def machine(config: dict) -> dict:
    import torch

    return {"cpu_cores": os.cpu_count(), "platform": platform.platform(), "processor": platform.machine(),
            "python": platform.python_version(), "torch": torch.__version__,
            "learner_torch_threads": config.get("threads", 1), "rollout_workers": config.get("workers", 1)}


def code_commit() -> str | None:
    """The git commit of the code that wrote the card (training is reproducible only with the same code)."""
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10,
                              cwd=Path(__file__).parent)
    except OSError:
        return None
    return done.stdout.strip() or None


def arena_command(a: dict, spec: str = "onnx") -> str:
    """The command that reproduces an arena result (`arena --json` output)."""
    extra = f" --rules {a['rules']}" if a.get("rules", "standard") != "standard" else ""
    extra += f" --players {a['players']}" if a.get("players", 2) != 2 else ""
    opponent = a["b"]["policy"] if isinstance(a.get("b"), dict) else a.get("b")
    return (f"cuarenta-tutor arena {spec} {opponent} --games {a['games']} --seed {a.get('seed', 0)} --jobs 2{extra}"
            f"{' --calibration' if 'ece' in a else ''} --json")


def arena_entry(a: dict) -> dict:
    """The card's record of an arena result (`arena --json` output)."""
    entry = {k: a.get(k) for k in ("b", "games", "pairs", "win_rate", "ci_low", "ci_high", "mean_point_diff",
                                   "rules", "seed", "decision_ms_a", "decision_ms_b")}
    entry["players"] = a.get("players", 2)
    entry["opponent"] = a["b"]["policy"] if isinstance(a.get("b"), dict) else a.get("b")
    del entry["b"]
    entry["command"] = arena_command(a)
    if "ece" in a:
        entry["calibration"] = {"ece": a["ece"], "bins": a["a"].get("reliability")}
    return entry


def update_arenas(card: dict, model, arenas: list[dict]) -> dict:
    """`card` with each arena result in place of the one it repeats (the same opponent, rules, players, games and
    seed), or added, and the sha256 and size of `model` as it is now (no checkpoint needed)."""
    same = ("opponent", "rules", "players", "games", "seed")
    results = list(card.get("arena", []))
    for a in map(arena_entry, arenas):
        old = [i for i, r in enumerate(results) if all(r.get(k, 2 if k == "players" else None) == a[k] for k in same)]
        if old:
            results[old[0]] = a
        else:
            results.append(a)
    return {**card, "sha256": file_sha256(model), "size_bytes": Path(model).stat().st_size, "arena": results}


def build_card(checkpoint, model, arenas: list[dict], note: str = "", bench: dict | None = None,
               command: str = TRAIN_COMMAND, export_command: str | None = None, previous: dict | None = None) -> dict:
    """The card of `model`, exported from `checkpoint`. `previous`: the card of the model this generation replaces;
    its generations (and itself) are kept in `generations`, oldest first."""
    ckpt = load_checkpoint(checkpoint)
    progress, config = ckpt.get("progress", {}), ckpt["config"]
    version = config["encoding"]
    model = Path(model)
    results = [arena_entry(a) for a in arenas]
    return {
        "name": "cuarenta-a2c-lstm",
        "file": model.name,
        "sha256": file_sha256(model),
        "size_bytes": model.stat().st_size,
        "architecture": {"kind": "actor-critic: feature MLP -> strategy MLP -> LSTM -> actor + critic"
                                 + (" + move head over each move's features" if version > 1 else ""),
                         "feature": config["feature"], "strategy": config["strategy"], "hidden": config["hidden"],
                         "obs_size": encoding.SIZES[version], "n_actions": encoding.N_ACTIONS,
                         "value": "sigmoid of the critic: probability that the seat's team wins the game"},
        "encoding_version": version,
        "encoding": encoding_table() if version > 1 else encoding_table()[:-1],  # the last row: move features
        "training": {"command": command, "export": export_command or EXPORT_COMMAND.format(name=Path(checkpoint).name),
                     "config": config, "seed": config["seed"], "steps": progress.get("steps"),
                     "updates": progress.get("updates"), "wall_time_s": round(progress.get("seconds", 0), 1),
                     "best_eval_win_rate_vs_expert": progress.get("best_win_rate"), "machine": machine(config),
                     "code_commit": code_commit()},
        "arena": results,
        "benchmarks": bench or {},
        "notes": note,
        "generations": generations(previous),
    }


def generations(previous: dict | None) -> list[dict]:
    """The generations before this one, oldest first: each one's training, arena results, gates and sha256."""
    if not previous:
        return []
    keep = {k: previous.get(k) for k in ("sha256", "training", "arena", "gates", "notes") if k in previous}
    return [*previous.get("generations", []), keep]


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["--update"]:
        if len(argv) < 2:
            print("usage: python -m cuarenta_tutor.training.card --update MODEL.onnx ARENA.json...", file=sys.stderr)
            return 2
        out = Path(argv[1]).with_suffix(".json")
        arenas = [json.loads(Path(p).read_text().strip().splitlines()[-1]) for p in argv[2:]]
        card = update_arenas(read_card(out) or {}, argv[1], arenas)
        write_card(out, card)
        print(f"updated {out}")
        return 0
    parser = argparse.ArgumentParser(description="write the model card next to the model")
    parser.add_argument("checkpoint")
    parser.add_argument("model")
    parser.add_argument("arenas", nargs="*", help="files holding `arena --json` output (last line is read)")
    parser.add_argument("--note", default="")
    parser.add_argument("--command", default=TRAIN_COMMAND, help="the training command of this generation")
    parser.add_argument("--export-command", help="the export command (default: the shipped model's)")
    parser.add_argument("--previous", help="the card of the model this generation replaces (kept in generations)")
    parser.add_argument("--gates-from", action="append", default=[],
                        help="a card whose gates this one keeps (a run's best.json: accepted or rejected), repeatable")
    parser.add_argument("--bench", action="append", default=[],
                        help="a file holding `bench ... --json` output (last line), added under benchmarks")
    args = parser.parse_args(argv)
    arenas = [json.loads(Path(p).read_text().strip().splitlines()[-1]) for p in args.arenas]
    bench = {}
    for path in args.bench:
        bench[Path(path).stem] = json.loads(Path(path).read_text().strip().splitlines()[-1])
    previous = read_card(args.previous) if args.previous else None
    card = build_card(args.checkpoint, args.model, arenas, args.note, bench, args.command, args.export_command,
                      previous)
    if args.gates_from:
        card["gates"] = [g for path in args.gates_from
                         for g in (read_card(path) or {}).get("gates", [])]
    out = Path(args.model).with_suffix(".json")
    write_card(out, card)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
