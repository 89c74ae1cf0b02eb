"""Provides the arena: duplicate-deal matches between two policies, in parallel processes.

Every seed pair is played twice on the same cards: A in seat 0 and B in seat 1, then the seats
swapped (the first dealer's seat stays, so each player gets the other's cards). With 4 players A
holds seats 0 and 2 in the first game. Each game's policies are seeded from (seed, pair, seat), so
the result does not depend on --jobs.
"""

from __future__ import annotations

import multiprocessing
import sys
import time
from dataclasses import dataclass, field

from .agents import make_policy
from .engine import Caida, Limpia, Ronda, apply, preset, start_game
from .engine.state import first_dealer
from .stats import reliability, win_rate_interval

COUNTED = {Caida: "caidas", Limpia: "limpias", Ronda: "rondas"}


@dataclass
class GameResult:
    """One game, seen from A's side."""

    pair: int
    swapped: bool
    a_won: bool
    a_points: int
    b_points: int
    counts: dict = field(default_factory=dict)
    """Per side ("a", "b"): caídas, limpias (that scored) and rondas."""
    seconds: dict = field(default_factory=dict)
    decisions: dict = field(default_factory=dict)
    values: dict = field(default_factory=dict)
    """Per side: (value, won) for every decision whose policy reported a value."""


def play_game(a: str, b: str, rules_name: str, players: int, seed: int, pair: int, swapped: bool) -> GameResult:
    """Play one duplicate game; seed pair `pair`, A in the first seat unless `swapped`."""
    rules = preset(rules_name, players=players)
    game_seed = seed * 1_000_003 + pair
    a_team = 1 if swapped else 0
    side = {s: "a" if s % 2 == a_team else "b" for s in range(players)}
    policies = {s: make_policy(a if side[s] == "a" else b, seed=game_seed * 8 + s) for s in range(players)}
    for s, p in policies.items():
        p.reset(s, seed=game_seed * 8 + s)
    state, events = start_game(rules, seed=game_seed, dealer=first_dealer(game_seed, players))
    result = GameResult(pair, swapped, False, 0, 0, {k: dict.fromkeys(COUNTED.values(), 0) for k in "ab"},
                        {"a": 0.0, "b": 0.0}, {"a": 0, "b": 0}, {"a": [], "b": []})
    pending = {"a": [], "b": []}
    while True:
        for e in events:
            key = COUNTED.get(type(e))
            if key and (key != "limpias" or e.points):
                result.counts["a" if e.team == a_team else "b"][key] += 1
        for p in policies.values():
            p.observe(state, events)
        if state.winner >= 0:
            break
        seat = state.turn
        start = time.perf_counter()
        decision = policies[seat].decide(state)
        result.seconds[side[seat]] += time.perf_counter() - start
        result.decisions[side[seat]] += 1
        if decision.value is not None:
            pending[side[seat]].append(decision.value)
        state, events = apply(state, decision.action)
    result.a_won = state.winner == a_team
    result.a_points, result.b_points = state.scores[a_team], state.scores[1 - a_team]
    for k in "ab":
        won = result.a_won if k == "a" else not result.a_won
        result.values[k] = [(v, won) for v in pending[k]]
    return result


def _play(args) -> GameResult:
    return play_game(*args)


def run_match(a: str, b: str, games: int, jobs: int = 1, seed: int = 0, rules: str = "standard",
              players: int = 2, progress=None) -> list[GameResult]:
    """Play `games` (an even number: games / 2 seed pairs); results in a fixed order."""
    if games < 2 or games % 2:
        raise ValueError("--games must be an even number of 2 or more (every seed is played twice)")
    make_policy(a), make_policy(b), preset(rules, players=players)  # fail fast on bad names
    tasks = [(a, b, rules, players, seed, pair, swapped) for pair in range(games // 2) for swapped in (False, True)]
    results = []
    if jobs <= 1:
        for t in tasks:
            results.append(_play(t))
            if progress:
                progress(len(results), games)
        return results
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for r in pool.imap(_play, tasks, chunksize=2):
            results.append(r)
            if progress:
                progress(len(results), games)
    return results


def summarize(a: str, b: str, results: list[GameResult], calibration: bool = False) -> dict:
    """The figures the arena reports for A (and per policy)."""
    pairs: dict[int, list[float]] = {}
    for r in results:
        pairs.setdefault(r.pair, []).append(float(r.a_won))
    rate, low, high = win_rate_interval([sum(v) / len(v) for v in pairs.values()])
    n = len(results)
    out = {"a": a, "b": b, "games": n, "pairs": len(pairs), "win_rate": round(rate, 4), "ci_low": round(low, 4),
           "ci_high": round(high, 4), "mean_point_diff": round(sum(r.a_points - r.b_points for r in results) / n, 2)}
    for k, name in (("a", a), ("b", b)):
        decisions = sum(r.decisions[k] for r in results)
        side = {"policy": name, "wins": sum(r.a_won == (k == "a") for r in results),
                "mean_points": round(sum(r.a_points if k == "a" else r.b_points for r in results) / n, 2),
                "decision_ms": round(1000 * sum(r.seconds[k] for r in results) / max(1, decisions), 4)}
        for key in COUNTED.values():
            side[f"{key}_per_game"] = round(sum(r.counts[k][key] for r in results) / n, 3)
        values = [vw for r in results for vw in r.values[k]]
        if calibration and values:
            table, ece = reliability([v for v, _ in values], [w for _, w in values])
            side["ece"] = round(ece, 4)
            side["reliability"] = table
        out[k] = side
        out[f"decision_ms_{k}"] = side["decision_ms"]
    if calibration and "ece" in out["a"]:
        out["ece"] = out["a"]["ece"]
    return out


def format_summary(s: dict, rules: str, seed: int) -> str:
    """A plain-text report of `summarize`'s figures."""
    a, b = s["a"], s["b"]
    lines = [f"arena: {a['policy']} (A) vs {b['policy']} (B), {s['games']} games on {s['pairs']} duplicate seed pairs, "
             f"rules {rules}, seed {seed}",
             f"A win rate {s['win_rate']:.3f}  95% CI [{s['ci_low']:.3f}, {s['ci_high']:.3f}]   "
             f"mean point difference {s['mean_point_diff']:+.2f}",
             "", f"{'':22}{'A ' + a['policy']:>18}{'B ' + b['policy']:>18}"]
    for key, label in (("wins", "wins"), ("mean_points", "final points"), ("caidas_per_game", "caídas / game"),
                       ("limpias_per_game", "limpias / game"), ("rondas_per_game", "rondas / game"),
                       ("decision_ms", "ms / decision")):
        lines.append(f"{label:22}{a[key]:>18}{b[key]:>18}")
    for k, side in (("A", a), ("B", b)):
        if "reliability" in side:
            lines += ["", f"calibration of {k} {side['policy']}: expected calibration error {side['ece']:.4f}",
                      f"{'bin':>12}{'decisions':>11}{'predicted':>11}{'observed':>10}"]
            for row in side["reliability"]:
                if row["count"]:
                    lines.append(f"{row['low']:>5.1f}-{row['high']:<5.1f} {row['count']:>11}"
                                 f"{row['predicted']:>11.3f}{row['observed']:>10.3f}")
        elif "ece" not in side and s.get("calibration_requested"):
            lines.append(f"{k} {side['policy']} reports no value: no calibration")
    return "\n".join(lines)


def progress_bar(done: int, total: int, stream=sys.stderr) -> None:
    """A one-line progress bar on stderr (redrawn in place on a terminal)."""
    if stream.isatty():
        filled = int(30 * done / total)
        stream.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {done}/{total} games")
        if done == total:
            stream.write("\n")
    elif done == total or done % max(1, total // 10) == 0:
        stream.write(f"{done}/{total} games\n")
    stream.flush()
