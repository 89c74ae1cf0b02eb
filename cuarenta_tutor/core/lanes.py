"""Provides the playouts' steps over many lanes at once, compiled: every open lane advanced one play (and the deal
it brings), with what the analysis keeps of it (the analysing team's points, deals dealt, the other team's first
reply's caída and limpia). analysis/playout.py drives it around the network's batched step."""

from __future__ import annotations

import numpy as np

from .deal import deal, needs_deal
from .jit import njit
from .layout import (
    DECK_HAND,
    EV_CAIDA,
    EV_DEALT,
    EV_HAND_ENDED,
    EV_LIMPIA,
    EV_RONDA,
    EVENT_WIDTH,
    HAND_NO,
    MAX_EVENTS,
    TURN,
)
from .play import step


@njit
def _tally(events, count, team, points, deals, i):
    """Add a step's events to lane i's points (the team's minus the other's) and deals; returns (the other team made
    a caída, a limpia)."""
    caida, limpia = False, False
    for e in range(count):
        kind = events[e, 0]
        if kind == EV_DEALT:
            deals[i] += 1
        elif kind == EV_RONDA:
            points[i] += events[e, 3] if events[e, 2] == team else -events[e, 3]
        elif kind == EV_CAIDA:
            gained = events[e, 3] + events[e, 4]
            points[i] += gained if events[e, 2] == team else -gained
            caida = caida or events[e, 2] != team
        elif kind == EV_LIMPIA:
            points[i] += events[e, 3] if events[e, 2] == team else -events[e, 3]
            limpia = limpia or events[e, 2] != team
        elif kind == EV_HAND_ENDED:
            mine = events[e, 4 + team]
            theirs = events[e, 5 - team]
            points[i] += mine - theirs
    return caida, limpia


@njit
def advance(rows, idx, actions, rules, team, next_hand, first, plies, points, deals, caida, limpia, await_deck):
    """Play `actions[k]` in lane `idx[k]` (and deal what it brings where the deck is known). `first`: the candidate
    moves themselves (no ply counted, no reply kept). `await_deck[i]`: the lane awaits a new hand's deck (from
    Python: set_deck, then deal_lanes)."""
    events = np.zeros((MAX_EVENTS, EVENT_WIDTH), dtype=np.int32)
    cards = np.zeros((2, 40), dtype=np.int32)
    for k in range(len(idx)):
        i = idx[k]
        row = rows[i]
        mover = row[TURN] & 1
        count = step(row, rules, actions[k], events, cards, next_hand)
        made_caida, made_limpia = _tally(events, count, team, points, deals, i)
        if not first:
            if plies[i] == 0 and mover != team:
                caida[i] = made_caida
                limpia[i] = made_limpia
            plies[i] += 1
        await_deck[i] = next_hand and needs_deal(row, rules) and row[DECK_HAND] != row[HAND_NO]


@njit
def deal_lanes(rows, idx, rules, team, points, deals):
    """Deal lane `idx[k]`'s next cards (its deck set), adding the deal's rondas to its points."""
    events = np.zeros((MAX_EVENTS, EVENT_WIDTH), dtype=np.int32)
    cards = np.zeros((2, 40), dtype=np.int32)
    for k in range(len(idx)):
        i = idx[k]
        count = deal(rows[i], rules, events, cards)
        _tally(events, count, team, points, deals, i)
