"""Provides `cuarenta-tutor bench ...`: benchmarks that print figures (never timed tests)."""

from __future__ import annotations

import json
import random
import resource
import time


def peak_rss_mb() -> float:
    """Peak resident memory of this process in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_engine(games: int, seed: int) -> dict:
    """Random-vs-random complete games to 40, 2 players, standard rules, one thread."""
    from .engine import apply, legal_actions, new_game

    rng = random.Random(seed)
    plays = 0
    start = time.perf_counter()
    for g in range(games):
        state = new_game(seed=seed * 1_000_003 + g)
        while state.winner < 0:
            state, _ = apply(state, rng.choice(legal_actions(state)))
            plays += 1
    seconds = time.perf_counter() - start
    return {"games": games, "plays": plays, "seconds": round(seconds, 3),
            "plays_per_second": round(plays / seconds), "games_per_second": round(games / seconds, 1),
            "plays_per_game": round(plays / games, 1), "peak_rss_mb": round(peak_rss_mb(), 1)}


def report(result: dict, as_json: bool) -> None:
    width = max(len(k) for k in result)
    for key, value in result.items():
        print(f"{key:<{width}}  {value}")
    if as_json:
        print(json.dumps(result))


def run(args) -> int:
    if args.target == "engine":
        if args.games < 1:
            print("--games must be at least 1")
            return 2
        report(bench_engine(args.games, args.seed), args.json)
        return 0
    print(f"unknown benchmark {args.target!r}")
    return 2
