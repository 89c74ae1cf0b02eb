"""Provides worlds weighted by what the other seats' plays reveal (inference for the search).

Plain determinization (engine.determinize) draws every hidden hand consistent with the cards seen, as if the
other seats played at random. They do not: a seat that trails beside a card it could have taken probably did
not hold its rank. `Plays` keeps the other seats' plays of the current deal with the position before each; a
world's weight is the chance that an opponent model (the expert's move values, softened) makes those plays from
the hands the world gives them. `weighted_worlds` draws more candidates than it needs and keeps a weighted
resample of them (importance resampling), so the search spends its playouts on the likely worlds. It reads only
what the seat may know: the world's hands replace every hidden hand before a play is judged.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from ..engine import Played, State, World, determinize, legal_actions
from .expert import move_values

TEMPERATURE = 1.0
"""Points of the expert's move values per unit of the softmax that models the other seats' choices."""
NOISE = 0.1
"""Share of the model that is a uniformly random legal move: no play makes a world impossible."""
CANDIDATES = 3
"""Candidate worlds drawn per world kept."""


@dataclass
class Plays:
    """The other seats' plays of the current deal, each with the position before it; fed by `observe`."""

    seat: int = 0
    plays: list = field(default_factory=list)
    """[(state before the play, seat, action)] of this deal, oldest first."""
    _last: State | None = None

    def reset(self, seat: int, seed: int | None = None) -> None:
        del seed  # nothing random here
        self.seat, self.plays, self._last = seat, [], None

    def observe(self, state: State, events) -> None:
        before = self._last
        self._last = state
        if before is None:
            return
        if (before.hand_no, before.deal_no) != (state.hand_no, state.deal_no):
            self.plays = [p for p in self.plays if (p[0].hand_no, p[0].deal_no) == (state.hand_no, state.deal_no)]
        for e in events:
            if isinstance(e, Played) and e.seat != self.seat and len(legal_actions(before)) > 1:
                self.plays.append((before, e.seat, e.action))

    def of_deal(self, state: State) -> list:
        return [p for p in self.plays if (p[0].hand_no, p[0].deal_no) == (state.hand_no, state.deal_no)]


def likelihood(world: State, now: State, plays, seat: int, cache: dict | None = None, values=move_values) -> float:
    """Chance of `plays` (Plays.of_deal) under the opponent model when the hidden cards are `world`'s: before
    each play, a hidden seat held its hand in `world` plus the cards it has played since (public), and the
    stock was the world's (no deal comes inside a deal). Nothing hidden of the positions before is read. `values`:
    move_values, or what gives the same numbers (core/search.py values_of, compiled)."""
    p = 1.0
    for i, (before, s, action) in enumerate(plays):
        hands = tuple(
            h if t == seat else tuple(sorted(world.hands[t] + now.played[t][len(before.played[t]):]))
            for t, h in enumerate(before.hands))
        key = (i, hands[s])
        if cache is not None and key in cache:
            q = cache[key]
        else:
            judged = values(before._replace(hands=hands, rondas=world.rondas, stock=world.stock))
            top = max(judged.values())
            weights = {a: math.exp((v - top) / TEMPERATURE) for a, v in judged.items()}
            q = (1 - NOISE) * weights.get(action, 0.0) / sum(weights.values()) + NOISE / len(judged)
            if cache is not None:
                cache[key] = q
        p *= q
    return p


def weighted_worlds(state: State, seat: int, plays, n: int, rng: random.Random,
                    values=move_values) -> list[tuple[World, int]]:
    """`n` worlds for `seat`, as (world, copies): `CANDIDATES`·n candidates drawn by determinize, kept by
    systematic resampling in proportion to their likelihood (`values`: as likelihood's). With no informative play
    yet: n plain draws."""
    if not plays:
        return [(determinize(state, seat, rng), 1) for _ in range(n)]
    cache: dict = {}
    candidates = [determinize(state, seat, rng) for _ in range(CANDIDATES * n)]
    weights = [likelihood(w.state, state, plays, seat, cache, values) for w in candidates]
    total = sum(weights)
    step = total / n
    point, acc, kept, i = rng.random() * step, 0.0, {}, -1
    for _ in range(n):
        while acc <= point and i + 1 < len(candidates):
            i += 1
            acc += weights[i]
        kept[i] = kept.get(i, 0) + 1
        point += step
    return [(candidates[i], k) for i, k in kept.items()]
