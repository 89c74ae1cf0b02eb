"""Provides `cuarenta-tutor bench TARGET`: benchmarks that print figures (the benchmarks are in bench.py); each
target is a function here, chosen by the parser."""

from __future__ import annotations

import json
import sys

from ..i18n import N_, _
from .options import JOBS, MAX_GAMES, MAX_POSITIONS, SEED, add_backend_options, number, settings_file, whole, worlds

NAME = "bench"
HELP = N_("benchmarks that print figures")


def add_arguments(parser) -> None:
    from ..engine import PLAYER_COUNTS
    from ..engine.rules import PRESETS
    from ..training import MAX_STEPS
    from .options import sentence

    positions = whole(1, MAX_POSITIONS)

    targets = parser.add_subparsers(dest="target", required=True)

    def target(name: str, summary: str):
        """A target's parser: its summary in `bench --help`, as a sentence in its own."""
        return targets.add_parser(name, help=summary, description=sentence(summary))

    engine = target("engine", _("random-vs-random games through the rules engine"))
    engine.add_argument("--games", type=whole(1, MAX_GAMES), default=2000,
                        help=_("random-vs-random games (default 2000)"))
    engine.add_argument("--seed", type=SEED, default=0, help=_("seed of the games (default 0)"))
    engine.add_argument("--json", action="store_true", help=_("also print one JSON object on the last line"))
    engine.set_defaults(bench=bench_engine)
    core = target("core", _("the compiled rules against the Python engine, ply by ply in random play"))
    core.add_argument("--positions", type=positions, default=100_000,
                      help=_("plies compared per rules and players (default 100000)"))
    core.add_argument("--seed", type=SEED, default=0, help=_("seed of the games (default 0)"))
    core.add_argument("--json", action="store_true", help=_("also print one JSON object on the last line"))
    core.set_defaults(bench=bench_core)
    train = target("train", _("environment steps per second of training (train extra)"))
    train.add_argument("--steps", type=whole(1, MAX_STEPS), default=300_000,
                       help=_("environment steps to time (default 300000)"))
    train.add_argument("--config", type=settings_file,
                       help=_("a training config file (default: the A2C defaults, 128 games)"))
    train.add_argument("--envs", type=whole(1, 4096), help=_("games side by side (default 128 or the config's)"))
    train.add_argument("--workers", type=JOBS, help=_("rollout processes (default 2, one per core)"))
    train.add_argument("--threads", type=JOBS,
                       help=_("torch threads of the learner, which works alone while the workers wait "
                              "(default 2, or the config's)"))
    add_backend_options(train, _("where the rollout workers run: local processes (default), or Ray tasks and actors "
                                 "(distributed extra)"))
    train.add_argument("--json", action="store_true", help=_("also print one JSON object on the last line"))
    train.set_defaults(bench=bench_train)
    analysis = target("analysis", _("the analysis against a deep reference: error, intervals, mistakes found, time "
                                    "per hint and per review, accuracy of the bots"))
    analysis.add_argument("--positions", type=whole(2, MAX_POSITIONS), default=40,
                          help=_("positions compared (default 40)"))
    analysis.add_argument("--accuracy-games", type=whole(0, MAX_GAMES), default=20,
                          help=_("games per bot for the accuracy figures (default 20; 0 skips them)"))
    analysis.add_argument("--reference-worlds", type=worlds(), default=4096,
                          help=_("worlds of the deep reference, each played to the end of the game (default 4096)"))
    analysis.add_argument("--jobs", type=JOBS, default=1,
                          help=_("processes for the deep reference and a second timing of the review (default 1; the "
                                 "hints are timed alone first)"))
    analysis.add_argument("--seed", type=SEED, default=1, help=_("seed of the positions' games (default 1)"))
    analysis.add_argument("--rules", default="standard", choices=list(PRESETS),
                          help=_("the rules preset of the positions' games (default standard)"))
    analysis.add_argument("--players", type=int, choices=PLAYER_COUNTS, default=2,
                          help=_("2 (1 v 1) or 4 (2 v 2: the agent with an expert partner); default 2"))
    analysis.add_argument("--model", help=_("ONNX model (default: the shipped one)"))
    analysis.add_argument("--seat-player", type=seat_player, default=None, metavar="P",
                          help=_("the positions are a learner's seat, played by bot P ('expert', 'greedy', "
                                 "'onnx@eps=0.5') against the agent, as the app analyses a person's (default: the "
                                 "agent's own seat against the expert)"))
    analysis.add_argument("--json", action="store_true", help=_("also print one JSON object on the last line"))
    analysis.set_defaults(bench=bench_analysis)
    agent = target("agent", _("the ONNX agent: full decision latency and batch throughput"))
    agent.add_argument("--model", help=_("ONNX model (default: the shipped one)"))
    agent.add_argument("--positions", type=positions, default=300, help=_("positions timed (default 300)"))
    agent.add_argument("--seed", type=SEED, default=0, help=_("seed of the positions' games (default 0)"))
    agent.add_argument("--players", type=int, choices=PLAYER_COUNTS, default=2,
                       help=_("positions of 1 v 1 (2, the default) or 2 v 2 (4) games"))
    agent.add_argument("--throughput-seconds", type=number(0, 60, above_low=True), default=1.0,
                       help=_("seconds the network's batch throughput is timed at each batch size (default 1)"))
    agent.add_argument("--json", action="store_true", help=_("also print one JSON object on the last line"))
    agent.set_defaults(bench=bench_agent)
    tui = target("tui", _("first paint of the app (in tmux) and the agent's move plus hints"))
    tui.add_argument("--moves", type=whole(1, 10_000), default=60,
                     help=_("moves timed, each the agent's move and the hints after it (default 60)"))
    tui.add_argument("--seed", type=SEED, default=0, help=_("seed of the game (default 0)"))
    tui.add_argument("--paints", type=whole(1, 100), default=3,
                     help=_("starts of the app in tmux timed to their first paint, the median reported (default 3)"))
    tui.add_argument("--json", action="store_true", help=_("also print one JSON object on the last line"))
    tui.set_defaults(bench=bench_tui)
    bots = target("bots", _("decision latency of each bot"))
    bots.add_argument("--positions", type=positions, default=300, help=_("positions timed per policy (default 300)"))
    bots.add_argument("--policies", default="random,greedy,expert,search",
                      help=_("comma-separated policy names (default random,greedy,expert,search)"))
    bots.add_argument("--seed", type=SEED, default=0, help=_("seed of the positions' games (default 0)"))
    bots.add_argument("--json", action="store_true", help=_("also print one JSON object on the last line"))
    bots.set_defaults(bench=bench_bots)


def run(args) -> int:
    return args.bench(args)


def bench_engine(args) -> int:
    from ..bench import bench_engine, report

    report(bench_engine(args.games, args.seed), args.json)
    return 0


def bench_core(args) -> int:
    from ..bench import bench_core

    def show(row):
        print(f"{row['rules']:<44}{row['players']:>8}{row['positions']:>11}{row['games']:>8}{row['mismatches']:>12}"
              f"{row['seconds']:>9}", flush=True)

    print(f"{'rules':<44}{'players':>8}{'positions':>11}{'games':>8}{'mismatches':>12}{'seconds':>9}", flush=True)
    result = bench_core(args.positions, args.seed, show)
    print(f"{'all':<52}{result['positions']:>11}{'':>8}{result['mismatches']:>12}{result['seconds']:>9}")
    first = next((row["first_mismatch"] for row in result["combinations"] if row["first_mismatch"]), None)
    if first:
        print(f"first mismatch: {first}")
    if args.json:
        print(json.dumps(result))
    return 1 if result["mismatches"] else 0


def bench_train(args) -> int:
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        print("cuarenta-tutor bench train: " + _('needs the train extra: pip install -e ".[train]"'), file=sys.stderr)
        return 2
    from ..bench import bench_train, report
    from ..training.config import read_config

    settings = {}
    try:
        if args.config:
            settings = read_config(args.config)
        for key, value in (("num_envs", args.envs), ("workers", args.workers), ("threads", args.threads)):
            if value is not None:
                settings[key] = value
        report(bench_train(args.steps, settings, args.backend, args.address), args.json)
    except (OSError, ValueError, TypeError, RuntimeError) as err:
        print(f"cuarenta-tutor bench train: {err}", file=sys.stderr)
        return 2
    return 0


def _with_model(name: str, figures, as_json: bool) -> int:
    """Print the figures of a benchmark that loads a model; a model that cannot be used is one line and exit 2."""
    from ..agents.onnx_contract import ModelError
    from ..bench import report

    try:
        report(figures(), as_json)
    except ModelError as err:
        print(f"cuarenta-tutor bench {name}: {err}", file=sys.stderr)
        return 2
    return 0


def bench_tui(args) -> int:
    from ..bench import bench_tui

    return _with_model("tui", lambda: bench_tui(args.moves, args.seed, args.paints), args.json)


def bench_analysis(args) -> int:
    from ..bench import bench_analysis
    from ..engine.rules import preset

    rules = preset(args.rules, args.players)
    return _with_model("analysis", lambda: bench_analysis(args.positions, args.seed, args.accuracy_games, args.model,
                                                          args.reference_worlds, args.jobs, rules, args.seat_player),
                       args.json)


def seat_player(text: str) -> str | None:
    """--seat-player: analysis.validate.seat_player, its refusal as argparse says it."""
    import argparse

    from ..analysis.validate import seat_player

    try:
        return seat_player(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def bench_agent(args) -> int:
    from ..bench import bench_agent

    return _with_model("agent", lambda: bench_agent(args.model, args.positions, args.seed, args.players,
                                                    args.throughput_seconds), args.json)


def bench_bots(args) -> int:
    from ..bench import bench_bots

    names = [n.strip() for n in args.policies.split(",") if n.strip()]
    if not names:
        print("cuarenta-tutor bench bots: " + _("--policies names no policy; give them separated by commas, as in "
                                                "random,greedy"), file=sys.stderr)
        return 2
    try:
        result = bench_bots(names, args.positions, args.seed)
    except ValueError as err:
        print(f"cuarenta-tutor bench bots: {err}", file=sys.stderr)
        return 2
    print(f"{'policy':<14}{'median ms':>12}{'p95 ms':>12}{'positions':>11}")
    for name, r in result.items():
        print(f"{name:<14}{r['median_ms']:>12}{r['p95_ms']:>12}{r['positions']:>11}")
    if args.json:
        print(json.dumps(result))
    return 0
