"""Provides what one seat knows, and the one place where worlds are sampled from it (determinization).

A seat sees its own hand, the table, both piles of this hand and the cards each seat has played in
this deal; it knows every hand's size, and which seats announced a ronda this deal (never the rank,
R-ANN-6). `determinize` redraws every card the seat cannot see consistently with all of that: the
other hands keep their sizes, a seat that announced a ronda was dealt three (or four, as a doble
ronda) of one rank, a seat that announced none was not, and the rest is the stock, in an order of its
own that the world's dealer follows. Nothing here reads a card the seat cannot see.
"""

from __future__ import annotations

import random
from functools import lru_cache
from math import comb
from typing import NamedTuple

from .actions import pack
from .cards import COPIES, DECK_SIZE, N_RANKS
from .state import State

RONDA_SIZE = 3
"""Cards of one rank that make a ronda (R-ANN-4)."""
MAX_TRIES = 1000
"""Draws before determinize gives up on a consistent world (a draw fails about 1 time in 20 per silent seat)."""


def knows_every_card(state: State) -> bool:
    """Whether every seat knows where every card is: 1 v 1 with the stock empty (the last deal of a hand), when the
    other hand holds exactly the cards a seat has not seen; every sampled world is then the true one (up to suits,
    which no rule reads)."""
    return state.rules.players == 2 and not state.stock


def seen_counts(state: State, seat: int) -> list[int]:
    """Per rank, the cards `seat` has seen this hand: its hand, the table, both piles."""
    counts = [0] * N_RANKS
    for group in (state.hands[seat], state.table, state.piles[0], state.piles[1]):
        for c in group:
            counts[c >> 2] += 1
    return counts


def unseen_counts(state: State, seat: int) -> list[int]:
    """Per rank, the cards `seat` has not seen: in the other hands or the stock."""
    return [COPIES - k for k in seen_counts(state, seat)]


@lru_cache(maxsize=65536)
def p_holds(k: int, hand: int, unseen: int) -> float:
    """Chance that `hand` cards drawn from `unseen` include at least one of `k` given cards."""
    if k <= 0 or hand <= 0 or unseen <= 0:
        return 0.0
    if hand >= unseen:
        return 1.0
    return 1.0 - comb(unseen - k, hand) / comb(unseen, hand)


def unseen_cards(state: State, seat: int) -> list[int]:
    """The card ids `seat` cannot see, sorted (so their hidden order never matters)."""
    visible = set(state.hands[seat]) | set(state.table) | set(state.piles[0]) | set(state.piles[1])
    return [c for c in range(DECK_SIZE) if c not in visible]


class World(NamedTuple):
    """A full state consistent with one seat's knowledge, and the order its stock will be dealt in."""

    state: State
    stock_order: tuple


def _ronda_rank(cards) -> int:
    counts = [0] * N_RANKS
    for c in cards:
        counts[c >> 2] += 1
    best = max(counts)
    return counts.index(best) if best >= RONDA_SIZE else -1


def _ronda_hand(state: State, s: int, pool: list[int], rng: random.Random) -> tuple[list[int], int]:
    """A hidden hand for seat `s`, who announced a ronda: uniform over the hands of its size from `pool` that
    make three (or, as a doble ronda, four) of a rank with the cards it played this deal. Returns (hand, rank),
    or ([], -1) when no such hand can be drawn from `pool`."""
    size = len(state.hands[s])
    played = [c >> 2 for c in state.played[s]]
    most = COPIES if state.rules.four_of_a_kind == "points" else RONDA_SIZE
    by_rank = [[c for c in pool if c >> 2 == r] for r in range(N_RANKS)]
    choices = []  # (ways, rank, cards of that rank in the hand)
    for r in range(N_RANKS):
        have, free, other = played.count(r), len(by_rank[r]), len(pool) - len(by_rank[r])
        for j in range(max(0, RONDA_SIZE - have), min(free, size, most - have) + 1):
            ways = comb(free, j) * comb(other, size - j)
            if ways:
                choices.append((ways, r, j))
    if not choices:
        return [], -1
    _, r, j = rng.choices(choices, weights=[w for w, _, _ in choices])[0]
    hand = rng.sample(by_rank[r], j) + rng.sample([c for c in pool if c >> 2 != r], size - j)
    return hand, r


def _draw(state: State, seats: list[int], announced: set[int], pool: list[int], rng: random.Random):
    """One draw of the hidden hands of `seats` (the announced ronda seats first) from `pool`: (hands, rondas,
    cards left), or None when an announced seat cannot make its ronda or a silent seat holds three of a kind."""
    hands, rondas, left = list(state.hands), list(state.rondas), pool
    for s in seats:
        if s in announced:
            hand, rondas[s] = _ronda_hand(state, s, left, rng)
            if rondas[s] < 0:
                return None
        else:
            hand = rng.sample(left, len(state.hands[s]))
        taken = set(hand)
        left = [c for c in left if c not in taken]
        hands[s] = tuple(sorted(hand))
    if any(_ronda_rank(hands[s] + state.played[s]) >= 0 for s in seats if s not in announced):
        return None
    return hands, rondas, left


def determinize(state: State, seat: int, rng: random.Random) -> World:
    """A world consistent with what `seat` knows: the unseen cards redrawn into the other hands (same sizes),
    respecting which seats announced a ronda this deal, and the rest shuffled into the stock order.

    Other seats' ronda ranks are the sampled ones (a ronda caída on them scores in the world as it would in
    the game). A seat that announced a ronda is drawn first, uniformly among its hands that make one; the
    others are drawn uniformly and redrawn until none of the silent seats holds three of a kind, so with at
    most one other announced seat every consistent deal is equally likely. A position built by hand that no
    deal fits gets free draws (hand sizes and the announced flags kept)."""
    pool = unseen_cards(state, seat)
    n = state.rules.players
    announced = {s for s in range(n) if s != seat and state.rondas[s] >= 0}
    seats = sorted(announced) + [s for s in range(n) if s != seat and s not in announced]
    for _ in range(MAX_TRIES):
        drawn = _draw(state, seats, announced, pool, rng)
        if drawn is not None:
            hands, rondas, left = drawn
            break
    else:  # nothing fits (a position built by hand): free draws, the flags kept
        hands, rondas, left = list(state.hands), list(state.rondas), pool.copy()
        rng.shuffle(left)
        for s in seats:
            size = len(state.hands[s])
            hands[s], left = tuple(sorted(left[:size])), left[size:]
            if s in announced:
                counts = [0] * N_RANKS
                for c in hands[s] + state.played[s]:
                    counts[c >> 2] += 1
                rondas[s] = counts.index(max(counts))
    left = list(left)
    rng.shuffle(left)
    order = tuple(left[:len(state.stock)])  # cards outside a position built by hand (if any) stay out
    world = state._replace(hands=tuple(hands), stock=tuple(sorted(order)), rondas=tuple(rondas),
                           table_packed=pack(c >> 2 for c in state.table))
    return World(world, order)
