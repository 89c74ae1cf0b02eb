"""Provides the search bot's playouts, compiled: each legal move played in each sampled world, then experts to the end
of the deal (agents/search.py SearchPolicy.playout at its "deal" horizon), and what its outcome reads of the end:
the scores, the winner, the hand, the piles and the dealer. The search computes the outcome from them as it does
from a state (agents/known.py end_outcome, agents/carton.py), so the numbers are the same, bit for bit.
"""

from __future__ import annotations

import numpy as np

from .deal import needs_deal
from .expert import N_ACTIONS, N_TERMS, TERM_VALUE, choose, legal_terms
from .jit import njit
from .layout import (
    DEALER,
    DECK_HAND,
    EVENT_WIDTH,
    HAND_NO,
    MAX_EVENTS,
    PILE_LEN,
    SCORES,
    WIDTH,
    WINNER,
    rules_of,
    to_row,
)
from .play import step

END_SCORE0, END_SCORE1, END_PILE0, END_PILE1, END_WINNER, END_HAND, END_DEALER = range(7)
END_FIELDS = 7


@njit
def deal_ends(rows, actions, rules, out):
    """For world rows[w] and action actions[m]: the play, then the expert on every seat until the deal is over (a
    deal due, the hand or the game over), into out[w, m] (END_* fields)."""
    events = np.zeros((MAX_EVENTS, EVENT_WIDTH), dtype=np.int32)
    cards = np.zeros((2, 40), dtype=np.int32)
    terms = np.empty((N_ACTIONS, N_TERMS), dtype=np.float64)
    legal = np.empty(N_ACTIONS, dtype=np.int32)
    row = np.empty(WIDTH, dtype=np.int32)
    for w in range(rows.shape[0]):
        for m in range(len(actions)):
            for i in range(WIDTH):  # not row[:] = rows[w]: its shape check's message cost 5 s of compiling
                row[i] = rows[w, i]
            row[DECK_HAND] = -1  # no deck: the next deal is not dealt, its being due ends the playout
            hand = row[HAND_NO]
            step(row, rules, actions[m], events, cards, False)
            while row[WINNER] < 0 and row[HAND_NO] == hand and not needs_deal(row, rules):
                n_legal = legal_terms(row, rules, terms, legal)
                step(row, rules, choose(terms, legal, n_legal), events, cards, False)
            end = out[w, m]
            end[END_SCORE0], end[END_SCORE1] = row[SCORES], row[SCORES + 1]
            end[END_PILE0], end[END_PILE1] = row[PILE_LEN], row[PILE_LEN + 1]
            end[END_WINNER], end[END_HAND], end[END_DEALER] = row[WINNER], row[HAND_NO], row[DEALER]


def ends_of(states, actions) -> np.ndarray | None:
    """deal_ends of the worlds `states` (engine States of one rules) and `actions`: [worlds, actions, END_FIELDS]
    int32; None while the compiled core does not serve (core.fast()), so the caller plays them in Python."""
    from . import fast

    if not fast():
        return None
    rows = np.stack([to_row(s) for s in states])
    out = np.empty((len(states), len(actions), END_FIELDS), dtype=np.int32)
    deal_ends(rows, np.asarray(actions, dtype=np.int32), rules_of(states[0].rules), out)
    return out


def values_of(state) -> dict[int, float]:
    """agents.expert.move_values(state) (the expert's estimate of every legal move, in the same order): on the compiled
    core where it serves, the same numbers."""
    from . import fast

    if not fast():
        from ..agents.expert import move_values

        return move_values(state)
    terms = np.empty((N_ACTIONS, N_TERMS), dtype=np.float64)
    legal = np.empty(N_ACTIONS, dtype=np.int32)
    n_legal = legal_terms(to_row(state), rules_of(state.rules), terms, legal)
    return {int(a): float(terms[a, TERM_VALUE]) for a in legal[:n_legal]}
