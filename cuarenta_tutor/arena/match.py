"""Provides duplicate-deal matches between two policies, at the table, in parallel processes.

Every seed pair is played twice on the same cards: A in seat 0 and B in seat 1, then the seats
swapped (the first dealer's seat stays, so each player gets the other's cards). With 4 players A
holds seats 0 and 2 in the first game. Each game's policies are seeded from (seed, pair, seat), so
the result does not depend on --jobs, nor on the backend (Ray tasks with `backend="ray"`).
"""

from __future__ import annotations

import multiprocessing
from dataclasses import dataclass

from .. import records
from ..engine import Caida, Dealer, Limpia, Ronda, first_dealer, preset
from ..i18n import _
from ..interop import BACKENDS
from ..players import PlayerSpec, parse  # any player's name, and the levels of play
from ..table import Table

COUNTED = {Caida: "caidas", Limpia: "limpias", Ronda: "rondas"}
"""The events a match counts per side (a limpia only when it scored)."""


@dataclass(frozen=True)
class SideTally:
    """What one side did in one game."""

    points: int
    caidas: int = 0
    limpias: int = 0
    rondas: int = 0
    seconds: float = 0.0
    """Time spent deciding."""
    decisions: int = 0
    values: tuple = ()
    """(value, won) for every decision whose policy reported a win probability."""


@dataclass(frozen=True)
class GameResult:
    """One game of a match, seen from A's side."""

    pair: int
    swapped: bool
    a_won: bool
    a: SideTally
    b: SideTally


def play_game(a: PlayerSpec | str, b: PlayerSpec | str, rules_name: str, players: int, seed: int, pair: int,
              swapped: bool, records_dir: str | None = None) -> GameResult:
    """Play one duplicate game between two players (PlayerSpecs, or names parsed here); seed pair `pair`, A in the
    first seat unless `swapped`. With `records_dir`, the game is also saved there as a game record
    (`arena-S<seed>-P<pair>-<a|b>.json`, by who sits first)."""
    a, b = parse(a), parse(b)
    rules = preset(rules_name, players=players)
    game_seed = seed * 1_000_003 + pair
    a_team = 1 if swapped else 0
    side = ["a" if s % 2 == a_team else "b" for s in range(players)]
    seeds = [game_seed * 8 + s for s in range(players)]
    table = Table(rules, [(a if side[s] == "a" else b).make(seeds[s]) for s in range(players)],
                  Dealer(game_seed))
    tally = {k: {"caidas": 0, "limpias": 0, "rondas": 0, "seconds": 0.0, "decisions": 0} for k in "ab"}
    values: dict[str, list[float]] = {"a": [], "b": []}

    def count(events) -> None:
        for e in events:
            key = COUNTED.get(type(e))
            if key and (key != "limpias" or e.points):
                tally["a" if e.team == a_team else "b"][key] += 1

    first = first_dealer(game_seed, players)
    record = None
    if records_dir is not None:
        names = [(a.text, f"A {a.text}") if side[s] == "a" else (b.text, f"B {b.text}") for s in range(players)]
        record = records.new_record(rules, game_seed, first, names)
        record.game_id = f"arena-S{seed}-P{pair}-{'b' if swapped else 'a'}"
    count(table.start(first, seeds))
    while not table.over:
        step = table.step()
        if record is not None:
            record.add_move(step.seat, step.action, step.card, after=step.after)
        who = side[step.seat]
        tally[who]["seconds"] += step.seconds
        tally[who]["decisions"] += 1
        if step.decision.value is not None:
            values[who].append(step.decision.value)
        count(step.events)
    if record is not None:
        records.save(record, records_dir)
    state = table.state
    a_won = state.winner == a_team
    points = {"a": state.scores[a_team], "b": state.scores[1 - a_team]}
    sides = {k: SideTally(points[k], values=tuple((v, a_won == (k == "a")) for v in values[k]), **tally[k])
             for k in "ab"}
    return GameResult(pair, swapped, a_won, sides["a"], sides["b"])


def _play(args) -> GameResult:
    return play_game(*args)


def run_match(a: str, b: str, games: int, jobs: int | None = 1, seed: int = 0, rules: str = "standard",
              players: int = 2, progress=None, records_dir: str | None = None, backend: str = "local",
              address: str | None = None) -> list[GameResult]:
    """Play `games` (an even number: games / 2 seed pairs); results in a fixed order. `progress(done, total)`
    is called after every game. `backend="ray"` plays the games as Ray tasks (the `distributed` extra) on the
    cluster at `address`, or on a local Ray instance of `jobs` CPUs (None: all cores); the results are the same."""
    if games < 2 or games % 2:
        raise ValueError(_("--games must be an even number of 2 or more (every seed is played twice)"))
    if jobs is not None and jobs < 1:
        raise ValueError(_("--jobs must be 1 or more, not {n}").format(n=jobs))
    if backend not in BACKENDS:
        raise ValueError(_("unknown backend {backend!r}; choose {choices}").format(
            backend=backend, choices=_(" or ").join(BACKENDS)))
    a, b = parse(a), parse(b)  # parsed once; built once here so a bad name or model fails before any game
    a.make(), b.make(), preset(rules, players=players)
    tasks = [(a, b, rules, players, seed, pair, swapped, records_dir) for pair in range(games // 2)
             for swapped in (False, True)]
    if backend == "ray":
        from ..interop import distributed  # imports ray: only when asked for

        return distributed.map_in_order(play_game, tasks, progress, address=address, num_cpus=jobs)
    results = []
    if jobs in (None, 1):
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
