"""Provides `cuarenta-tutor analyse`: a saved game's positions analysed in sampled worlds, as text or JSON lines."""

from __future__ import annotations

import sys

from .options import JOBS, SEED, seat, whole, worlds

NAME = "analyse"
HELP = "analyse the positions of a saved game in sampled worlds"
DESCRIPTION = ("Every legal move of a position valued from the mover's view: the cards it cannot see are redrawn in "
               "sampled worlds, every move is played in the same worlds and continued by the agent to the end of "
               "the hand, valued there by the model's hand-value table; win % with a 95% interval, loss against "
               "the best move, the chance of a caída or limpia in reply.")


def add_arguments(parser) -> None:
    parser.add_argument("game", help="a saved game file")
    parser.add_argument("--ply", type=whole(1, 10**6), help="only the position before move N (1 = the first move)")
    parser.add_argument("--seat", type=seat(), help="the seat whose moves to analyse (default: the person's, or all)")
    parser.add_argument("--worlds", type=worlds(),
                        help="sampled worlds per position (2 or more), with no time cap (default: the one analysis "
                             "the hints, the tutor, the review and the drills show, analysis.STANDARD)")
    parser.add_argument("--seed", type=SEED, default=0, help="seed of the sampled worlds, mixed with what the seat "
                                                             "knows of the position (default 0)")
    parser.add_argument("--model", help="ONNX model (default: the shipped one)")
    parser.add_argument("--json", action="store_true", help="one JSON object per position, one per line")
    parser.add_argument("--jobs", type=JOBS, help="processes (default: one per core, up to 8; the same results with "
                                                 "any number)")


def run(args) -> int:
    """Print the analysis of a saved game's positions (text, or JSON lines)."""
    import json
    from dataclasses import replace
    from pathlib import Path

    from .. import records
    from ..agents.onnx_contract import ModelError
    from ..agents.onnx_policy import default_model_path, file_sha256, load_session
    from ..analysis import analyse_game
    from ..analysis.parallel import default_jobs
    from ..analysis.values import sidecar_problem
    from ..coach import review_settings
    from ..progressbar import progress_bar

    try:
        record = records.load(args.game)
        if args.ply is not None and not 1 <= args.ply <= len(record.moves):
            print(f"cuarenta-tutor analyse: --ply must be 1..{len(record.moves)} for this game", file=sys.stderr)
            return 2
        if args.seat is not None and not 0 <= args.seat < len(record.seats):
            print(f"cuarenta-tutor analyse: --seat must be 0..{len(record.seats) - 1} for this game", file=sys.stderr)
            return 2
        model = args.model or default_model_path()
        load_session(model)  # a model that cannot be used is said alone, before anything about its sidecar
        settings = replace(review_settings(record, args.model, args.worlds), seed=args.seed)
        uncalibrated = sidecar_problem(Path(model), file_sha256(model))
        if uncalibrated:  # said before the work: the numbers that follow come from the critic
            print(f"cuarenta-tutor analyse: {uncalibrated}", file=sys.stderr)
        with progress_bar("analysing") as advance:
            found = analyse_game(record, settings, seats=None if args.seat is None else [args.seat],
                                 plies=None if args.ply is None else [args.ply - 1], model=args.model,
                                 progress=advance, jobs=args.jobs or default_jobs())
    except (records.RecordError, ModelError, OSError) as err:
        print(f"cuarenta-tutor analyse: {err}", file=sys.stderr)
        return 2
    for ply, result in found:
        if args.json:
            print(json.dumps({"ply": ply + 1, "seat": result.seat, "worlds": result.worlds, "known": result.known,
                              "cut": result.cut, "leaf": result.leaf, "playout": result.playout,
                              "moves": [m.to_json() for m in result.moves]}))
            continue
        critic = ", valued by the model's critic" if result.leaf == "critic" else ""
        print(f"Move {ply + 1}, seat {result.seat} ({result.where}, win % for the mover's team{critic}):")
        for m in result.moves:
            print(f"  {m.name:<26} {m.win_pct:5.1f}% [{m.ci95[0]:4.1f}, {m.ci95[1]:4.1f}]  loss {m.loss:4.1f}  "
                  f"caída risk {100 * m.caida_risk:3.0f}%  limpia risk {100 * m.limpia_risk:3.0f}%")
    return 0
