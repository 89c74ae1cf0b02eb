"""Provides what one seat knows: the cards it has seen this hand, the odds of what others hold,
and sampled deals of the unseen cards consistent with that (determinization). Nothing here reads a
card the seat cannot see."""

from __future__ import annotations

import random
from functools import lru_cache
from math import comb

from ..engine import State
from ..engine.actions import pack


def seen_counts(state: State, seat: int) -> list[int]:
    """Per rank, the cards `seat` has seen this hand: its hand, the table, both piles."""
    counts = [0] * 10
    for group in (state.hands[seat], state.table, state.piles[0], state.piles[1]):
        for c in group:
            counts[c >> 2] += 1
    return counts


def unseen_counts(state: State, seat: int) -> list[int]:
    """Per rank, the cards `seat` has not seen: in the other hands or the stock."""
    return [4 - k for k in seen_counts(state, seat)]


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
    return [c for c in range(40) if c not in visible]


def determinize(state: State, seat: int, rng: random.Random) -> State:
    """A full state consistent with what `seat` knows: the unseen cards dealt at random to the other
    hands (same sizes) and the stock. Other seats' ronda ranks are unknown to `seat` and are cleared.

    Known approximation: an opponent's announced ronda is not used to bias their sampled hand.
    """
    pool = unseen_cards(state, seat)
    rng.shuffle(pool)
    hands = list(state.hands)
    i = 0
    for s in range(len(hands)):
        if s != seat:
            k = len(hands[s])
            hands[s] = tuple(sorted(pool[i:i + k]))
            i += k
    rondas = tuple(r if s == seat else -1 for s, r in enumerate(state.rondas))
    stock = tuple(pool[i:i + len(state.stock)])  # cards outside the position (if any) stay out
    return state._replace(hands=tuple(hands), stock=stock, rondas=rondas,
                          table_packed=pack(c >> 2 for c in state.table))
