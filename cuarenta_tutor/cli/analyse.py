"""Provides `cuarenta-tutor analyse`: a saved game's positions analysed in sampled worlds, as text or JSON lines."""

from __future__ import annotations

import sys

from ..i18n import N_, _, number, percent, pgettext
from .options import JOBS, SEED, seat, whole, worlds

NAME = "analyse"
HELP = N_("analyse the positions of a saved game in sampled worlds")
DESCRIPTION = N_("Every legal move of a position valued from the mover's view: the cards it cannot see are redrawn in "
                 "sampled worlds, every move is played in the same worlds and continued by the agent to the end of "
                 "the hand, valued there by the model's hand-value table; win % with a 95% interval, loss against "
                 "the best move, the chance of a caída or limpia in reply.")


def add_arguments(parser) -> None:
    from ..analysis import STANDARD

    parser.add_argument("game", metavar=pgettext("metavar", "game"), help=_("a saved game file"))
    parser.add_argument("--ply", type=whole(1, 10**6), help=_("only the position before move N (1 = the first move)"))
    parser.add_argument("--seat", type=seat(),
                        help=_("the seat whose moves to analyse (default: the person's, or all)"))
    parser.add_argument("--worlds", type=worlds(),
                        help=_("sampled worlds per position (2 or more), with no time cap (default: the analysis the "
                               "hints, the tutor, the review and the drills show: {worlds} worlds, cut short after "
                               "{seconds} seconds)").format(worlds=STANDARD.worlds, seconds=number(STANDARD.budget_s)))
    parser.add_argument("--seed", type=SEED, default=0, help=_("seed of the sampled worlds, mixed with what the seat "
                                                               "knows of the position (default 0)"))
    parser.add_argument("--model", help=_("ONNX model (default: the shipped one)"))
    parser.add_argument("--json", action="store_true", help=_("one JSON object per position, one per line"))
    parser.add_argument("--jobs", type=JOBS, help=_("processes (default: one per core, up to 8; the same results with "
                                                   "any number)"))


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
            print("cuarenta-tutor analyse: " + _("--ply must be 1..{last} for this game").format(
                last=len(record.moves)), file=sys.stderr)
            return 2
        if args.seat is not None and not 0 <= args.seat < len(record.seats):
            print("cuarenta-tutor analyse: " + _("--seat must be 0..{last} for this game").format(
                last=len(record.seats) - 1), file=sys.stderr)
            return 2
        model = args.model or default_model_path()
        load_session(model)  # a model that cannot be used is said alone, before anything about its sidecar
        settings = replace(review_settings(record, args.model, args.worlds), seed=args.seed)
        uncalibrated = sidecar_problem(Path(model), file_sha256(model))
        if uncalibrated:  # said before the work: the numbers that follow come from the critic
            print(f"cuarenta-tutor analyse: {uncalibrated}", file=sys.stderr)
        with progress_bar(_("analysing")) as advance:
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
        heading = (_("Move {move}, seat {seat} ({where}, win % for the mover's team, valued by the model's critic):")
                   if result.leaf == "critic" else _("Move {move}, seat {seat} ({where}, win % for the mover's team):"))
        print(heading.format(move=ply + 1, seat=result.seat, where=result.where))
        for m in result.moves:
            print(_("  {move} {win} [{low}, {high}]  loss {loss}  caída risk {caida}  limpia risk {limpia}").format(
                move=f"{m.name:<26}", win=percent(m.win_pct, 1).rjust(6), low=number(m.ci95[0], 1).rjust(4),
                high=number(m.ci95[1], 1).rjust(4), loss=number(m.loss, 1).rjust(4),
                caida=percent(100 * m.caida_risk).rjust(4), limpia=percent(100 * m.limpia_risk).rjust(4)))
    return 0
