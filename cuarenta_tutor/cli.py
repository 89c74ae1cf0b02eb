"""Provides the `cuarenta-tutor` command and its subcommands (each imports what it needs lazily)."""

from __future__ import annotations

import argparse
import sys

from .progressbar import progress_bar
from .resources import version

RAY_EXTRA = "the ray backend needs the distributed extra: pip install -e '.[distributed]'"


def add_backend_options(parser: argparse.ArgumentParser, work: str) -> None:
    """--backend and --address, for a command whose `work` Ray can spread over a cluster."""
    parser.add_argument("--backend", choices=("local", "ray"), default="local",
                        help=f"where {work}: local processes (default), or Ray tasks and actors (distributed extra)")
    parser.add_argument("--address", help="with --backend ray: join the Ray cluster at this address (HOST:PORT, or "
                                          "auto); default: start a local Ray instance")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cuarenta-tutor", description="Learn and play Cuarenta in the terminal.")
    parser.add_argument("--version", action="version", version=f"cuarenta-tutor {version()}")
    sub = parser.add_subparsers(dest="command")
    play = sub.add_parser("play", help="play a game against the agent")
    play.add_argument("--seed", type=int, help="deal the cards of this seed (default: a new random game)")
    play.add_argument("--rules", default="standard", help="rules preset (standard, pagat, agent_dory, quito_todo_dos)")
    play.add_argument("--dealer", type=int, choices=(0, 1, 2, 3),
                      help="0: you deal first, 1: the agent (East in 2 v 2), 2: your partner, 3: West")
    play.add_argument("--model", help="ONNX model (default: the shipped one)")
    play.add_argument("--players", type=int, choices=(2, 4), default=2,
                      help="2: you against the agent (default); 4: you and an agent partner against two agents")
    play.add_argument("--level", choices=("beginner", "club", "strong", "adaptive"),
                      help="how strong the agent plays: beginner (half its moves random), club (the network), strong "
                           "(with its search), adaptive (follows your results; default: your last choice)")
    review = sub.add_parser("review", help="review saved games")
    review.add_argument("game", nargs="?", help="a saved game file (default: the list of saved games)")
    review.add_argument("--text", action="store_true",
                        help="print the annotated game as plain text (analysing the moves not yet analysed)")
    review.add_argument("--seat", type=int, help="the seat whose moves to review (default: the person's, or all)")
    review.add_argument("--worlds", type=int,
                        help="the deeper pass: every move again in this many worlds, with no time cap (default: the "
                             "one analysis of the hints and the tutor, 48 worlds, only for the moves not yet analysed "
                             "with this model and these settings)")
    review.add_argument("--model", help="ONNX model (default: the shipped one)")
    review.add_argument("--jobs", type=int, help="processes that analyse the moves (default: one per core, up to 8; "
                                                 "the same annotations with any number)")
    review.add_argument("--json", action="store_true",
                        help="print luck vs skill as one JSON object: per hand and for the game, the change in "
                             "the seat's team's win %% split into luck and skill (analyses every seat's moves "
                             "not yet analysed)")
    sub.add_parser("lessons", help="learn the rules and the strategy")
    sub.add_parser("drills", help="solve again the positions of your mistakes (spaced repetition)")
    stats = sub.add_parser("stats", help="your progress: accuracy over time, mistakes by kind, results, level")
    stats.add_argument("--json", action="store_true", help="one JSON object instead of text")
    analyse = sub.add_parser("analyse", help="analyse the positions of a saved game in sampled worlds",
                             description="Every legal move of a position valued from the mover's view: the "
                                         "cards it cannot see are redrawn in sampled worlds, every move is "
                                         "played in the same worlds and continued by the agent to the end of "
                                         "the hand, valued there by the model's hand-value table; win %% with "
                                         "a 95%% interval, loss against the best move, the chance of a caída "
                                         "or limpia in reply.")
    analyse.add_argument("game", help="a saved game file")
    analyse.add_argument("--ply", type=int, help="only the position before move N (1 = the first move)")
    analyse.add_argument("--seat", type=int, help="the seat whose moves to analyse (default: the person's, or all)")
    analyse.add_argument("--worlds", type=int,
                         help="sampled worlds per position, with no time cap (default: the one analysis the hints, the "
                              "tutor, the review and the drills show, analysis.STANDARD)")
    analyse.add_argument("--seed", type=int, default=0, help="seed of the sampled worlds, mixed with what the seat "
                                                              "knows of the position (default 0)")
    analyse.add_argument("--model", help="ONNX model (default: the shipped one)")
    analyse.add_argument("--json", action="store_true", help="one JSON object per position, one per line")
    analyse.add_argument("--jobs", type=int, help="processes (default: one per core, up to 8; the same results with "
                                                  "any number)")
    arena = sub.add_parser("arena", help="duplicate-deal match between two policies",
                           description="Policies: random, greedy, expert, search[:N][@infer][@carton][@solve=K] "
                                       "(N sampled worlds; @infer: weighted by what the other seats' plays "
                                       "reveal; @carton: a deal's end valued by the cartón the piles lead to; "
                                       "@solve=K: the deal's last K cards solved exactly), "
                                       "onnx[:PATH][@temp=T][@eps=E] (the shipped model, or the ONNX file at "
                                       "PATH; T > 0 samples its moves at that temperature, E plays that share "
                                       "of random moves), the levels beginner, club, strong[:W] (W worlds, no "
                                       "time budget), openspiel:ismcts[:SIMS] (openspiel extra).")
    arena.add_argument("a", help="policy A (the one reported on)")
    arena.add_argument("b", help="policy B")
    arena.add_argument("--games", type=int, default=200, help="games to play, even (default 200)")
    arena.add_argument("--jobs", type=int, help="worker processes (default 1); with --backend ray, the CPUs of the "
                                                "local Ray instance (default: all cores)")
    arena.add_argument("--seed", type=int, default=0, help="seed of the first deal pair (default 0)")
    arena.add_argument("--rules", default="standard", help="rules preset (default standard)")
    arena.add_argument("--players", type=int, choices=(2, 4), default=2,
                       help="2 (1 v 1) or 4 (2 v 2, A in seats 0 and 2; default 2)")
    arena.add_argument("--calibration", action="store_true",
                       help="reliability table and calibration error of reported values")
    arena.add_argument("--json", action="store_true", help="also print one JSON object on the last line")
    add_backend_options(arena, "the games are played")
    arena.add_argument("--records", metavar="DIR",
                       help="also save every game as a game record in DIR (to analyse or review it)")
    train = sub.add_parser("train", help="train the agent (needs the train extra)")
    train.add_argument("--config", help="JSON file of training settings (fields of training.a2c.Config)")
    train.add_argument("--steps", type=int, help="environment steps to train for")
    train.add_argument("--out", default="runs/agent", help="folder for checkpoints and metrics (default runs/agent)")
    train.add_argument("--seed", type=int, help="seed of the run (default: the config's)")
    train.add_argument("--workers", type=int, help="rollout processes, one per core (default 2; 1: none)")
    train.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.pt")
    add_backend_options(train, "the rollout workers run (the same results either way)")
    train.add_argument("--init-from", metavar="MODEL",
                       help="start a new run from the weights of this exported ONNX model (the shipped one: "
                            "models/cuarenta-a2c-lstm.onnx); the config's network sizes must be the model's")
    train.add_argument("--gate", type=int, metavar="GAMES",
                       help="after training, export OUT/best.pt and play it against --gate-against over GAMES "
                            "duplicate games; accepted only if the 95%% interval of its win rate is above 0.5; "
                            "the result goes in its card")
    train.add_argument("--gate-against", metavar="MODEL",
                       help="the model the new generation must beat (default: --init-from, else the shipped one)")
    train.add_argument("--promote", metavar="MODEL",
                       help="with --gate: copy an accepted generation (and its card) over this ONNX file; a rejected "
                            "one never replaces it")
    games = sub.add_parser("search-games", help="self-play games labelled by a search, for expert iteration (needs "
                                                "the train extra)",
                           description="Games of a model against itself in which a share of the moves are chosen "
                                       "by a search; training with distill_data set to OUT moves the network "
                                       "toward the search's choices. Resumable: shards already in OUT are kept.")
    games.add_argument("--out", required=True, help="folder for the games (shard-NNNNN.npz)")
    games.add_argument("--games", type=int, required=True, help="games to play (in shards of 10)")
    games.add_argument("--model", help="ONNX model that plays them (default: the shipped one)")
    games.add_argument("--config",
                       help="a training config: its mix of rules and player counts (default standard 1 v 1)")
    games.add_argument("--seed", type=int, default=0, help="seed of the games (default 0)")
    games.add_argument("--teacher", choices=("search", "analysis"), default="search",
                       help="search: the search bot, expert playouts (default); analysis: the model's own analysis")
    games.add_argument("--worlds", type=int, default=48, help="worlds per labelled move (default 48)")
    games.add_argument("--share", type=float, default=0.5, help="share of the decisions labelled (default 0.5)")
    games.add_argument("--known-only", action="store_true",
                       help="label only positions where the mover knows every card (1 v 1, stock empty): the "
                            "search plays the one true world there, so the labels are exact and quick")
    games.add_argument("--temperature", type=float, default=0.5,
                       help="softmax temperature over the moves' values: points (search), win %% (analysis)")
    games.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    export = sub.add_parser("export", help="export a checkpoint to ONNX, or recalibrate a model's value (needs the "
                                           "train extra)")
    export.add_argument("checkpoint", help="a training checkpoint (best.pt or checkpoint.pt), or an exported .onnx "
                                           "model with --calibrate: only its value's scaling is fitted again")
    export.add_argument("--out", help="the ONNX file to write (default: RUN-CHECKPOINT.onnx in your models "
                                      "folder, where the app finds it; the shipped model is replaced only when "
                                      "named here)")
    export.add_argument("--calibrate", type=int, metavar="GAMES", default=0,
                        help="Platt-scale the value on GAMES games against the expert (seed --calibrate-seed)")
    export.add_argument("--calibrate-seed", type=int, default=777,
                        help="seed of the calibration games (default 777)")
    export.add_argument("--encoding", type=int, metavar="N",
                        help="with an .onnx model: the same weights reading observation encoding version N (of the "
                             "same size) instead of their own")
    bench = sub.add_parser("bench", help="benchmarks that print figures")
    bench_sub = bench.add_subparsers(dest="target", required=True)
    engine = bench_sub.add_parser("engine", help="random-vs-random games through the rules engine")
    engine.add_argument("--games", type=int, default=2000, help="random-vs-random games (default 2000)")
    engine.add_argument("--seed", type=int, default=0, help="seed of the games (default 0)")
    engine.add_argument("--json", action="store_true", help="also print one JSON object on the last line")
    train_bench = bench_sub.add_parser("train", help="environment steps per second of training (train extra)")
    train_bench.add_argument("--steps", type=int, default=300_000, help="environment steps to time (default 300000)")
    train_bench.add_argument("--config", help="a training config file (default: the A2C defaults, 128 games)")
    train_bench.add_argument("--envs", type=int, help="games side by side (default 128 or the config's)")
    train_bench.add_argument("--workers", type=int, help="rollout processes (default 2, one per core)")
    train_bench.add_argument("--threads", type=int,
                             help="torch threads of the learner, which works alone while the workers wait "
                                  "(default 2, or the config's)")
    add_backend_options(train_bench, "the rollout workers run")
    train_bench.add_argument("--json", action="store_true", help="also print one JSON object on the last line")
    analysis = bench_sub.add_parser("analysis", help="the analysis against a deep reference: error, intervals, "
                                    "mistakes found, time per hint and per review, accuracy of the bots")
    analysis.add_argument("--positions", type=int, default=40, help="positions compared (default 40)")
    analysis.add_argument("--accuracy-games", type=int, default=20,
                          help="games per bot for the accuracy figures (default 20; 0 skips them)")
    analysis.add_argument("--reference-worlds", type=int, default=4096,
                          help="worlds of the deep reference, each played to the end of the game (default 4096)")
    analysis.add_argument("--jobs", type=int, default=1,
                          help="processes for the deep reference and a second timing of the review (default 1; the "
                               "hints are timed alone first)")
    analysis.add_argument("--seed", type=int, default=1, help="seed of the positions' games (default 1)")
    analysis.add_argument("--model", help="ONNX model (default: the shipped one)")
    analysis.add_argument("--json", action="store_true", help="also print one JSON object on the last line")
    agent = bench_sub.add_parser("agent", help="the ONNX agent: full decision latency and batch throughput")
    agent.add_argument("--model", help="ONNX model (default: the shipped one)")
    agent.add_argument("--positions", type=int, default=300, help="positions timed (default 300)")
    agent.add_argument("--seed", type=int, default=0, help="seed of the positions' games (default 0)")
    agent.add_argument("--players", type=int, choices=(2, 4), default=2,
                       help="positions of 1 v 1 (2, the default) or 2 v 2 (4) games")
    agent.add_argument("--json", action="store_true", help="also print one JSON object on the last line")
    tui = bench_sub.add_parser("tui", help="first paint of the app (in tmux) and the agent's move plus hints")
    tui.add_argument("--moves", type=int, default=60,
                     help="moves timed, each the agent's move and the hints after it (default 60)")
    tui.add_argument("--seed", type=int, default=0, help="seed of the game (default 0)")
    tui.add_argument("--json", action="store_true", help="also print one JSON object on the last line")
    bots = bench_sub.add_parser("bots", help="decision latency of each bot")
    bots.add_argument("--positions", type=int, default=300, help="positions timed per policy (default 300)")
    bots.add_argument("--policies", default="random,greedy,expert,search",
                      help="comma-separated policy names (default random,greedy,expert,search)")
    bots.add_argument("--seed", type=int, default=0, help="seed of the positions' games (default 0)")
    bots.add_argument("--json", action="store_true", help="also print one JSON object on the last line")
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return run(args)
    except KeyboardInterrupt:  # Ctrl-C, at any point (an import, a load): a line, not a traceback
        print(f"\ncuarenta-tutor {args.command or ''}: stopped".rstrip(), file=sys.stderr)
        return 130


def run(args) -> int:
    import importlib.util

    command = args.command or "home"
    if getattr(args, "address", None) and args.backend != "ray":
        print(f"cuarenta-tutor {command}: --address needs --backend ray", file=sys.stderr)
        return 2
    if getattr(args, "backend", "local") == "ray" and importlib.util.find_spec("ray") is None:
        print(f"cuarenta-tutor {command}: {RAY_EXTRA}", file=sys.stderr)
        return 2
    if command == "bench":
        from . import bench

        return bench.run(args)
    if command == "arena":
        return run_arena(args)
    if command == "analyse":
        return run_analyse(args)
    if command in ("train", "export", "search-games"):
        from .training.command import run_training_command

        return run_training_command(args)
    if command in ("home", "play", "review", "lessons", "drills", "stats"):
        return run_tutor(command, args)
    build_parser().print_usage(sys.stderr)
    return 2


def run_tutor(command: str, args) -> int:
    """Open the app (or print a review as text); every problem becomes a message, never a traceback."""
    import os

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if command == "review" and (args.text or args.json):
        from .coach.command import review_text

        return review_text(args)
    if command == "stats":
        from .coach.command import stats

        return stats(args)
    problem = preflight(command, args)
    if problem:
        print(f"cuarenta-tutor {command}: {problem}", file=sys.stderr)
        return 2
    try:
        from .tui import make_app

        options = {"start": command}
        if command == "play":
            options.update(seed=args.seed, rules=args.rules, dealer=args.dealer, model_path=args.model,
                           level=args.level, players=args.players)
        if command == "review":
            options.update(game=args.game, seat=args.seat, model_path=args.model)
            if args.game and args.worlds is not None:  # the game's review in up to that many worlds a move
                from . import records
                from .coach import review_settings

                options["review"] = review_settings(records.load(args.game), args.model, args.worlds)
        make_app(**options).run()
    except Exception as err:  # the last line of defence: a message, never a traceback
        print(f"cuarenta-tutor: {err}", file=sys.stderr)
        return 1
    return 0


def preflight(command: str, args) -> str | None:
    """What stops the app before it opens (a bad flag, model, game file or data folder), in one line; None if
    nothing."""
    import os

    from . import records
    from .agents.onnx_contract import ModelError
    from .engine import PRESETS

    if command == "play" and args.rules not in PRESETS:
        return f"unknown rules preset {args.rules!r}; choose one of: {', '.join(PRESETS)}"
    if command == "play" and args.dealer is not None and args.dealer >= args.players:
        return f"--dealer {args.dealer} is not a seat of a {args.players}-player game (0..{args.players - 1})"
    if command == "review":
        from .coach.command import review_flags_problem

        problem = review_flags_problem(args)
        if problem:
            return problem
    if command == "play" and args.players == 4 and args.level == "adaptive":
        return "the adaptive level follows your own results: it is for 1 v 1 games (choose another --level)"
    try:
        if command in ("home", "play", "review"):
            from .agents.onnx_policy import default_model_path, load_session

            load_session(getattr(args, "model", None) or default_model_path())
        if command in ("home", "play"):
            folder = records.games_dir()  # games are saved after every move: the folder must take them
            if not os.access(folder, os.W_OK):
                return f"the games folder {folder} is not writable; fix its permissions or set {records.DATA_ENV}"
            records.clean_leftovers(folder)  # temp files of saves cut short by a kill
        if command == "review" and args.game:
            from .coach import reviewed_seats

            reviewed_seats(records.load(args.game), args.seat)
    except OSError as err:
        return f"{err.filename or 'the user data folder'}: {err.strerror or err}; set {records.DATA_ENV} to a " \
               f"folder you can write, or fix this one"
    except (ModelError, records.RecordError, ValueError) as err:
        return str(err)
    return None


def run_analyse(args) -> int:
    """Print the analysis of a saved game's positions (text, or JSON lines)."""
    import json
    from dataclasses import replace

    from . import records
    from .agents.onnx_contract import ModelError
    from .analysis import analyse_game
    from .analysis.parallel import default_jobs
    from .coach import review_settings

    if (args.worlds is not None and args.worlds < 2) or (args.jobs is not None and args.jobs < 1):
        print("cuarenta-tutor analyse: --worlds must be 2 or more, --jobs 1 or more", file=sys.stderr)
        return 2
    try:
        record = records.load(args.game)
        if args.ply is not None and not 1 <= args.ply <= len(record.moves):
            print(f"cuarenta-tutor analyse: --ply must be 1..{len(record.moves)} for this game", file=sys.stderr)
            return 2
        if args.seat is not None and not 0 <= args.seat < len(record.seats):
            print(f"cuarenta-tutor analyse: --seat must be 0..{len(record.seats) - 1} for this game", file=sys.stderr)
            return 2
        settings = replace(review_settings(record, args.model, args.worlds), seed=args.seed)
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
                              "cut": result.cut, "moves": [m.to_json() for m in result.moves]}))
            continue
        print(f"Move {ply + 1}, seat {result.seat} ({result.where}, win % for the mover's team):")
        for m in result.moves:
            print(f"  {m.name:<26} {m.win_pct:5.1f}% [{m.ci95[0]:4.1f}, {m.ci95[1]:4.1f}]  loss {m.loss:4.1f}  "
                  f"caída risk {100 * m.caida_risk:3.0f}%  limpia risk {100 * m.limpia_risk:3.0f}%")
    return 0


def run_arena(args) -> int:
    import json

    from .arena import format_summary, run_match, summarize

    try:
        with progress_bar(f"{args.a} vs {args.b}") as advance:
            results = run_match(args.a, args.b, args.games, args.jobs, args.seed, args.rules, args.players,
                                progress=advance, records_dir=args.records, backend=args.backend, address=args.address)
    except ValueError as err:
        print(f"cuarenta-tutor arena: {err}", file=sys.stderr)
        return 2
    except RuntimeError as err:  # no Ray cluster at --address
        print(f"cuarenta-tutor arena: {err}", file=sys.stderr)
        return 1
    except OSError as err:
        print(f"cuarenta-tutor arena: cannot save the game records in {args.records}: {err.strerror or err}",
              file=sys.stderr)
        return 2
    summary = summarize(args.a, args.b, results, calibration=args.calibration)
    print(format_summary(summary, args.rules, args.seed))
    if args.json:
        print(json.dumps(summary.to_json(rules=args.rules, seed=args.seed, players=args.players)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
