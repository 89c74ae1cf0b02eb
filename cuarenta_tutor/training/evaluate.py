"""Provides the evaluation during training (a checkpoint exported and played against the expert in the arena)
and the match over every kind of game a config trains on, which the evaluation and the gate both play."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from ..arena import run_match, summarize
from .config import Config, variants
from .export import export

PAIRS_APART = 1_000_000
"""Seed pairs of the k-th kind of game are numbered from k * PAIRS_APART, so the interval counts each once."""


def match_over(a: str, b: str, games: int, kinds: list[tuple[str, int]], seed: int, jobs: int = 1,
               progress=None) -> tuple:
    """`games` split evenly over `kinds` ((preset, players) pairs, an even number each, at least 2): the summary
    of all of them together (its interval by seed pair) and {"preset" or "preset/4": summary} per kind."""
    each = max(2, games // len(kinds) // 2 * 2)
    done, total, results, by_kind = 0, each * len(kinds), [], {}

    def step(n, _total):
        if progress:
            progress(done + n, total)

    for k, (rules, players) in enumerate(kinds):
        part = run_match(a, b, each, jobs=jobs, seed=seed, rules=rules, players=players, progress=step)
        done += each
        by_kind[rules if players == 2 else f"{rules}/{players}"] = summarize(a, b, part)
        results += [dataclasses.replace(r, pair=k * PAIRS_APART + r.pair) for r in part]
    return summarize(a, b, results), by_kind


def kinds_of(cfg: Config) -> list[tuple[str, int]]:
    """The (preset, players) of every kind of game the config trains on, in the config's order."""
    return [(rules, players) for rules, players, _ in variants(cfg)]


def evaluate(ckpt_path: Path, out: Path, cfg: Config) -> dict:
    """Export the checkpoint to ONNX and play it (greedy) against the expert in the arena, `eval_games` split over
    the kinds of game it trains on."""
    model = out / "eval.onnx"
    export(ckpt_path, model, check=False)
    s, by_kind = match_over(f"onnx:{model}", "expert", cfg.eval_games, kinds_of(cfg), seed=12345)
    result = {k: getattr(s, k) for k in ("games", "win_rate", "ci_low", "ci_high", "mean_point_diff")}
    if len(by_kind) > 1:
        result["by_kind"] = {k: v.win_rate for k, v in by_kind.items()}
    return result
