"""Provides the `cuarenta-tutor` command and its subcommands (each imports what it needs lazily)."""

from __future__ import annotations

import argparse
import sys

NOT_BUILT = {
    "home": "the terminal tutor",
    "play": "the terminal tutor",
    "review": "game review",
    "lessons": "the lessons",
    "arena": "the arena",
    "train": "training",
    "export": "ONNX export",
}


def _not_built(name: str) -> int:
    print(f"cuarenta-tutor {name}: {NOT_BUILT[name]} is not built yet in this version.", file=sys.stderr)
    return 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cuarenta-tutor", description="Learn and play Cuarenta in the terminal.")
    sub = parser.add_subparsers(dest="command")
    play = sub.add_parser("play", help="play a game against the agent")
    play.add_argument("--seed", type=int)
    play.add_argument("--rules", default="standard")
    review = sub.add_parser("review", help="review saved games")
    review.add_argument("game", nargs="?")
    review.add_argument("--text", action="store_true")
    sub.add_parser("lessons", help="learn the rules and the strategy")
    arena = sub.add_parser("arena", help="duplicate-deal match between two policies")
    arena.add_argument("a")
    arena.add_argument("b")
    sub.add_parser("train", help="train the agent (needs the train extra)")
    sub.add_parser("export", help="export a checkpoint to ONNX (needs the train extra)")
    bench = sub.add_parser("bench", help="benchmarks that print figures")
    bench_sub = bench.add_subparsers(dest="target", required=True)
    engine = bench_sub.add_parser("engine", help="random-vs-random games through the rules engine")
    engine.add_argument("--games", type=int, default=2000)
    engine.add_argument("--seed", type=int, default=0)
    engine.add_argument("--json", action="store_true", help="also print one JSON object on the last line")
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    command = args.command or "home"
    if command == "bench":
        from . import bench

        return bench.run(args)
    return _not_built(command)


if __name__ == "__main__":
    sys.exit(main())
