"""Provides `cuarenta-tutor arena`: a duplicate-deal match between two policies, with its intervals."""

from __future__ import annotations

import sys

from ..i18n import N_, _
from .options import JOBS, MAX_GAMES, SEED, add_backend_options, folder_to_write, whole

NAME = "arena"
HELP = N_("duplicate-deal match between two policies")
DESCRIPTION = N_("Policies: random, greedy, expert, search[:N][@infer][@carton][@solve=K] (N sampled worlds; @infer: "
                 "weighted by what the other seats' plays reveal; @carton: a deal's end valued by the cartón the "
                 "piles lead to; @solve=K: the deal's last K cards solved exactly), onnx[:PATH][@temp=T][@eps=E] (the "
                 "shipped model, or the ONNX file at PATH; T > 0 samples its moves at that temperature, E plays that "
                 "share of random moves), the levels beginner, club, strong[:W] (W worlds, no time budget), "
                 "openspiel:ismcts[:SIMS] (openspiel extra).")


def add_arguments(parser) -> None:
    from ..engine import PLAYER_COUNTS

    parser.add_argument("a", help=_("policy A (the one reported on)"))
    parser.add_argument("b", help=_("policy B"))
    parser.add_argument("--games", type=whole(2, MAX_GAMES, even=True), default=200,
                        help=_("games to play, even, up to {most} (default 200)").format(most=MAX_GAMES))
    parser.add_argument("--jobs", type=JOBS, help=_("worker processes (default 1); with --backend ray, the CPUs of "
                                                   "the local Ray instance (default: all cores)"))
    parser.add_argument("--seed", type=SEED, default=0, help=_("seed of the first deal pair (default 0)"))
    parser.add_argument("--rules", default="standard", help=_("rules preset (default standard)"))
    parser.add_argument("--players", type=int, choices=PLAYER_COUNTS, default=2,
                        help=_("2 (1 v 1) or 4 (2 v 2, A in seats 0 and 2; default 2)"))
    parser.add_argument("--calibration", action="store_true",
                        help=_("reliability table and calibration error of reported values"))
    parser.add_argument("--json", action="store_true", help=_("also print one JSON object on the last line"))
    add_backend_options(parser, _("where the games are played: local processes (default), or Ray tasks and actors "
                                  "(distributed extra)"))
    parser.add_argument("--records", metavar="DIR", type=folder_to_write,
                        help=_("also save every game as a game record in DIR (to analyse or review it)"))


def run(args) -> int:
    import json

    from ..arena import format_summary, run_match, summarize
    from ..progressbar import progress_bar

    try:
        with progress_bar(_("{a} vs {b}").format(a=args.a, b=args.b)) as advance:
            results = run_match(args.a, args.b, args.games, args.jobs, args.seed, args.rules, args.players,
                                progress=advance, records_dir=args.records, backend=args.backend, address=args.address)
    except ValueError as err:
        print(f"cuarenta-tutor arena: {err}", file=sys.stderr)
        return 2
    except RuntimeError as err:  # no Ray cluster at --address
        print(f"cuarenta-tutor arena: {err}", file=sys.stderr)
        return 1
    except OSError as err:
        print("cuarenta-tutor arena: " + _("cannot save the game records in {folder}: {error}").format(
            folder=args.records, error=err.strerror or err), file=sys.stderr)
        return 2
    summary = summarize(args.a, args.b, results, calibration=args.calibration)
    print(format_summary(summary, args.rules, args.seed))
    if args.json:
        print(json.dumps(summary.to_json(rules=args.rules, seed=args.seed, players=args.players)))
    return 0
