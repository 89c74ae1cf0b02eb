"""Provides the model card: the shipped model's facts gathered from its checkpoint, its arena runs and
the file itself, written next to the .onnx as JSON.

    python -m cuarenta_tutor.training.card CHECKPOINT MODEL.onnx ARENA.json... [--note TEXT]

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
from .a2c import load_checkpoint

TRAIN_COMMAND = "cuarenta-tutor train --config models/train-config.json --out runs/shipped"
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


def build_card(checkpoint, model, arenas: list[dict], note: str = "", bench: dict | None = None) -> dict:
    ckpt = load_checkpoint(checkpoint)
    progress, config = ckpt.get("progress", {}), ckpt["config"]
    model = Path(model)
    results = []
    for a in arenas:
        entry = {k: a.get(k) for k in ("b", "games", "pairs", "win_rate", "ci_low", "ci_high", "mean_point_diff",
                                       "rules", "seed", "decision_ms_a", "decision_ms_b")}
        entry["opponent"] = a["b"]["policy"] if isinstance(a.get("b"), dict) else a.get("b")
        del entry["b"]
        entry["command"] = (f"cuarenta-tutor arena onnx {entry['opponent']} --games {a['games']} --seed "
                            f"{a.get('seed', 0)} --jobs 2{' --calibration' if 'ece' in a else ''} --json")
        if "ece" in a:
            entry["calibration"] = {"ece": a["ece"], "bins": a["a"].get("reliability")}
        results.append(entry)
    return {
        "name": "cuarenta-a2c-lstm",
        "file": model.name,
        "sha256": file_sha256(model),
        "size_bytes": model.stat().st_size,
        "architecture": {"kind": "actor-critic: feature MLP -> strategy MLP -> LSTM -> actor + critic",
                         "feature": config["feature"], "strategy": config["strategy"], "hidden": config["hidden"],
                         "obs_size": encoding.OBS_SIZE, "n_actions": encoding.N_ACTIONS,
                         "value": "sigmoid of the critic: probability that the seat's team wins the game"},
        "encoding_version": encoding.ENCODING_VERSION,
        "encoding": encoding_table(),
        "training": {"command": TRAIN_COMMAND, "export": EXPORT_COMMAND.format(name=Path(checkpoint).name),
                     "config": config, "seed": config["seed"], "steps": progress.get("steps"),
                     "updates": progress.get("updates"), "wall_time_s": round(progress.get("seconds", 0), 1),
                     "best_eval_win_rate_vs_expert": progress.get("best_win_rate"), "machine": machine(config),
                     "code_commit": code_commit()},
        "arena": results,
        "benchmarks": bench or {},
        "notes": note,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="write the model card next to the model")
    parser.add_argument("checkpoint")
    parser.add_argument("model")
    parser.add_argument("arenas", nargs="*", help="files holding `arena --json` output (last line is read)")
    parser.add_argument("--note", default="")
    parser.add_argument("--bench", action="append", default=[],
                        help="a file holding `bench ... --json` output (last line), added under benchmarks")
    args = parser.parse_args(argv)
    arenas = [json.loads(Path(p).read_text().strip().splitlines()[-1]) for p in args.arenas]
    bench = {}
    for path in args.bench:
        bench[Path(path).stem] = json.loads(Path(path).read_text().strip().splitlines()[-1])
    card = build_card(args.checkpoint, args.model, arenas, args.note, bench)
    out = Path(args.model).with_suffix(".json")
    out.write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
