"""Provides the action table as arrays, and the legal moves and capture outcomes of a lane, compiled (engine/play.py
and engine/captures.py say the same in Python, and are the reference)."""

from __future__ import annotations

import numpy as np

from ..engine.actions import ACTION_BASE, ACTION_KIND, ACTION_RANK, MATCH, N_ACTIONS, SUM, TRAIL
from ..engine.cards import N_RANKS
from .jit import njit
from .layout import COUNTS, HAND_LEN, HAND_SLOTS, HANDS, R_FORCED, R_MATCH_ALL, R_SUM_LIMIT, TURN, WINNER

KIND = np.array(ACTION_KIND, dtype=np.int32)
RANK = np.array(ACTION_RANK, dtype=np.int32)
BASE_LEN = np.array([len(b) for b in ACTION_BASE], dtype=np.int32)
BASE_COUNTS = np.zeros((N_ACTIONS, N_RANKS), dtype=np.int32)
for _a, _base in enumerate(ACTION_BASE):
    for _r in _base:
        BASE_COUNTS[_a, _r] += 1
SUM_FIRST = np.zeros(N_RANKS, dtype=np.int32)
SUM_LAST = np.zeros(N_RANKS, dtype=np.int32)
"""The sum action ids of a played rank are SUM_FIRST[r] up to SUM_LAST[r] (exclusive)."""
for _r in range(N_RANKS):
    _ids = [a for a in range(N_ACTIONS) if ACTION_KIND[a] == SUM and ACTION_RANK[a] == _r]
    SUM_FIRST[_r], SUM_LAST[_r] = (_ids[0], _ids[-1] + 1) if _ids else (0, 0)
TRAIL_KIND, MATCH_KIND, SUM_KIND = TRAIL, MATCH, SUM


@njit
def sum_fits(action, counts, rules):
    """Whether the sum `action` may take its cards from a table of rank `counts` under `rules` (length, cards)."""
    if BASE_LEN[action] > rules[R_SUM_LIMIT]:
        return False
    for r in range(RANK[action]):
        if BASE_COUNTS[action, r] > counts[r]:
            return False
    return True


@njit
def rank_moves(rank, counts, rules):
    """The legal actions that play `rank` on a table of rank `counts` (engine rank_actions), as bits of an int64
    (bit a: action a)."""
    bits = np.int64(0)
    one = np.int64(1)
    if counts[rank] > 0:
        bits |= one << (10 + rank)
    for a in range(SUM_FIRST[rank], SUM_LAST[rank]):
        if sum_fits(a, counts, rules):
            bits |= one << a
    if bits == 0 or rules[R_FORCED] == 0:
        bits |= one << rank
    return bits


@njit
def legal(row, rules, out):
    """The legal action ids of the seat on turn, ascending, written to `out` (int32[53]); returns how many (0 when
    the game is over or a deal is due: no seat on turn holds a card)."""
    if row[WINNER] >= 0:
        return 0
    seat = row[TURN]
    counts = row[COUNTS:COUNTS + 10]
    bits = np.int64(0)
    done = 0
    for i in range(row[HAND_LEN + seat]):
        r = row[HANDS + seat * HAND_SLOTS + i] >> 2
        if not done & (1 << r):
            done |= 1 << r
            bits |= rank_moves(r, counts, rules)
    n = 0
    a = 0
    while bits:
        if bits & 1:
            out[n] = a
            n += 1
        bits >>= 1
        a += 1
    return n


@njit
def outcome(counts, action, rules, after):
    """A capture or trail's effect on a table of rank `counts`: `after` gets the counts left, and it returns the table
    cards taken (base and escalera; 0 for a trail)."""
    for r in range(10):
        after[r] = counts[r]
    rank = RANK[action]
    kind = KIND[action]
    if kind == TRAIL_KIND:
        after[rank] += 1
        return 0
    taken = 0
    if kind == MATCH_KIND:
        take = counts[rank] if rules[R_MATCH_ALL] else 1
        after[rank] -= take
        taken += take
    else:
        for r in range(rank):
            after[r] -= BASE_COUNTS[action, r]
            taken += BASE_COUNTS[action, r]
    r = rank + 1
    while r < 10 and after[r] > 0:
        after[r] -= 1
        taken += 1
        r += 1
    return taken
