"""Provides the compiled rules steps of a lane: applying a play, the end of a hand, and a play with the deal it brings
as the dealer plays them (engine/play.py `apply`, `_end_hand` and engine/dealing.py `Dealer.play` say the same in
Python, and are the reference the differential tests hold these to); the deals themselves are deal.py's.

Every function works in place on one lane row (layout.py) and the rules array, and writes what happened as event
rows (`events`: int32[MAX_EVENTS, EVENT_WIDTH]; layout.events_of turns them back into the engine's events) with the
cards a Played took in `cards[0]` and a HandEnded's leftovers in `cards[1]` (`cards`: int32[2, 40]). A play is not
checked: the caller passes a legal action (moves.legal lists them).

A lane deals from its DECK; a hand's deck order is known while DECK_HAND == HAND_NO. The last play of a hand starts
the next one with DECK_HAND = -1 (its order is chance, which Python supplies): the caller puts it with `set_deck`
and then `deal`s.
"""

from __future__ import annotations

import numpy as np

from ..engine.actions import ACTION_BASE, N_ACTIONS
from ..engine.cards import DECK_SIZE
from ..engine.rules import TARGET_SCORE
from .deal import clear, deal_at, event, needs_deal
from .jit import njit
from .layout import (
    COUNTS,
    DEAL_NO,
    DEALER,
    DECK_HAND,
    DECK_POS,
    DISC,
    DISC_LEN,
    EV_CAIDA,
    EV_GAME_WON,
    EV_HAND_ENDED,
    EV_LIMPIA,
    EV_PLAYED,
    HAND_LEN,
    HAND_NO,
    HAND_SLOTS,
    HANDS,
    LAST_CAPTURER,
    PILE_LEN,
    PILE_SLOTS,
    PILES,
    PLAYED,
    PLAYED_LEN,
    PLAYS,
    R_LEFTOVER_LAST,
    R_MATCH_ALL,
    R_PLAYERS,
    RONDAS,
    SCORES,
    TABLE,
    TABLE_LEN,
    TRAILED,
    TURN,
    WINNER,
)
from .moves import KIND, MATCH_KIND, RANK, TRAIL_KIND
from .scoring import capture_score, carton_points

BASE_LEN = np.array([len(b) for b in ACTION_BASE], dtype=np.int32)
BASE = np.full((N_ACTIONS, max(BASE_LEN)), -1, dtype=np.int32)
"""Per action, the base ranks it takes in the engine's order (ascending), -1 past BASE_LEN."""
for _a, _base in enumerate(ACTION_BASE):
    BASE[_a, :len(_base)] = _base


@njit
def _take_newest(row, rank):
    """Remove the newest table card of `rank` (the table keeps its order) and return it; -1 if none."""
    length = row[TABLE_LEN]
    for i in range(length - 1, -1, -1):
        card = row[TABLE + i]
        if card >> 2 == rank:
            for j in range(i, length - 1):
                row[TABLE + j] = row[TABLE + j + 1]
            row[TABLE + length - 1] = -1
            row[TABLE_LEN] = length - 1
            row[COUNTS + rank] -= 1
            return card
    return -1


@njit
def _fresh_hand(row, rules):
    """The next hand before its first deal (engine _fresh_hand): all 40 cards in the stock, its order unknown."""
    n = rules[R_PLAYERS]
    dealer = (row[DEALER] + 1) % n
    row[HAND_NO] += 1
    row[DEALER] = dealer
    row[DEAL_NO] = 0
    row[TURN] = (dealer + 1) % n
    row[TRAILED] = -1
    row[LAST_CAPTURER] = -1
    for s in range(4):
        row[RONDAS + s] = -1
        clear(row, HANDS + s * HAND_SLOTS, row[HAND_LEN + s])
        row[HAND_LEN + s] = 0
        clear(row, PLAYED + s * HAND_SLOTS, row[PLAYED_LEN + s])
        row[PLAYED_LEN + s] = 0
    clear(row, TABLE, row[TABLE_LEN])
    row[TABLE_LEN] = 0
    for r in range(10):
        row[COUNTS + r] = 0
    for t in range(2):
        clear(row, PILES + t * PILE_SLOTS, row[PILE_LEN + t])
        row[PILE_LEN + t] = 0
    clear(row, DISC, row[DISC_LEN])
    row[DISC_LEN] = 0
    row[DECK_POS] = 0
    row[DECK_HAND] = -1


@njit
def _end_hand(row, rules, events, k, cards):
    """Settle the hand after its last play (engine _end_hand and settle_hand): leftovers, cartón, a win, else the
    next hand; writes HandEnded (and GameWon) from event row k on and returns the next free row."""
    lc = row[LAST_CAPTURER]
    leftover = row[TABLE_LEN]
    c0 = row[PILE_LEN]
    c1 = row[PILE_LEN + 1]
    moved = leftover > 0 and rules[R_LEFTOVER_LAST] != 0 and lc >= 0
    if moved:
        if lc == 0:
            c0 += leftover
        else:
            c1 += leftover
    s0 = row[SCORES]
    s1 = row[SCORES + 1]
    p0, p1 = carton_points(c0, c1, row[DEALER] & 1, s0, s1, rules)
    s0 += p0
    s1 += p1
    winner = -1
    if p0 > 0 and s0 >= TARGET_SCORE:
        winner = 0
    elif p1 > 0 and s1 >= TARGET_SCORE:
        winner = 1
    row[SCORES] = s0
    row[SCORES + 1] = s1
    kept = 0
    if moved:
        start = PILES + lc * PILE_SLOTS + row[PILE_LEN + lc]
        for i in range(leftover):
            row[start + i] = row[TABLE + i]
        row[PILE_LEN + lc] += leftover
    else:
        kept = leftover
        for i in range(leftover):
            cards[1, i] = row[TABLE + i]
    k = event(events, k, EV_HAND_ENDED, row[HAND_NO], c0, c1, p0, p1, kept)
    if winner < 0:
        _fresh_hand(row, rules)
        return k
    k = event(events, k, EV_GAME_WON, winner, s0, s1, 0, 0, 0)
    row[WINNER] = winner
    for i in range(kept):
        row[DISC + i] = cards[1, i]
    row[DISC_LEN] = kept
    clear(row, TABLE, leftover)
    row[TABLE_LEN] = 0
    for r in range(10):
        row[COUNTS + r] = 0
    return k


@njit
def apply_play(row, rules, action, events, cards):
    """Play the legal `action` for the seat on turn (engine apply, unchecked), in place; returns the number of event
    rows written. The card played is the first of its rank in the hand; captures take the newest table card of a
    rank; the hand's last play settles it and starts the next hand (its deck unknown) unless the game is won."""
    n = rules[R_PLAYERS]
    seat = row[TURN]
    team = seat & 1
    rank = RANK[action]
    kind = KIND[action]
    start = HANDS + seat * HAND_SLOTS
    held = row[HAND_LEN + seat]
    i = 0
    while row[start + i] >> 2 != rank:
        i += 1
    card = row[start + i]
    for j in range(i, held - 1):
        row[start + j] = row[start + j + 1]
    row[start + held - 1] = -1
    row[HAND_LEN + seat] = held - 1
    done = row[PLAYED_LEN + seat]
    row[PLAYED + seat * HAND_SLOTS + done] = card
    row[PLAYED_LEN + seat] = done + 1
    winner = -1
    if kind == TRAIL_KIND:
        row[TABLE + row[TABLE_LEN]] = card
        row[TABLE_LEN] += 1
        row[COUNTS + rank] += 1
        row[TRAILED] = rank
        k = event(events, 0, EV_PLAYED, seat, card, action, 0, 0, 0)
    else:
        taken = 0
        if kind == MATCH_KIND:
            take = row[COUNTS + rank] if rules[R_MATCH_ALL] else 1
            for _ in range(take):
                cards[0, taken] = _take_newest(row, rank)
                taken += 1
        else:
            for j in range(BASE_LEN[action]):
                cards[0, taken] = _take_newest(row, BASE[action, j])
                taken += 1
        r = rank + 1
        while r < 10 and row[COUNTS + r] > 0:
            cards[0, taken] = _take_newest(row, r)
            taken += 1
            r += 1
        caida = kind == MATCH_KIND and row[TRAILED] == rank
        row[TRAILED] = -1
        row[LAST_CAPTURER] = team
        k = event(events, 0, EV_PLAYED, seat, card, action, taken, 0, 0)
        before = row[SCORES + team]
        clears = row[TABLE_LEN] == 0
        caida_points, bonus, limpia = capture_score(rules, before, caida, row[RONDAS + (seat + n - 1) % n] == rank,
                                                    clears)
        if caida:
            k = event(events, k, EV_CAIDA, seat, team, caida_points, bonus, 0, 0)
        if clears:
            k = event(events, k, EV_LIMPIA, seat, team, limpia, 0, 0, 0)
        pile = PILES + team * PILE_SLOTS + row[PILE_LEN + team]
        row[pile] = card
        for j in range(taken):
            row[pile + 1 + j] = cards[0, j]
        row[PILE_LEN + team] += taken + 1
        points = caida_points + bonus + limpia
        if points:
            row[SCORES + team] = before + points
            if before + points >= TARGET_SCORE:
                winner = team
                row[WINNER] = team
                k = event(events, k, EV_GAME_WON, team, row[SCORES], row[SCORES + 1], 0, 0, 0)
    row[TURN] = (seat + 1) % n
    row[PLAYS] += 1
    if winner < 0 and held == 1 and row[DECK_POS] >= DECK_SIZE:
        for s in range(n):
            if row[HAND_LEN + s] > 0:
                return k
        k = _end_hand(row, rules, events, k, cards)
    return k


@njit
def step(row, rules, action, events, cards, next_hand):
    """A play and the deal it makes due (engine Dealer.play): the next deal of the hand, or with `next_hand` the
    next hand's first deal, when the lane holds that hand's deck; returns the number of event rows of both, in
    order. A lane whose next hand's deck is unknown stays awaiting its deal (`set_deck`, then `deal`)."""
    hand_no = row[HAND_NO]
    k = apply_play(row, rules, action, events, cards)
    if (next_hand or row[HAND_NO] == hand_no) and row[DECK_HAND] == row[HAND_NO] and needs_deal(row, rules):
        k = deal_at(row, rules, events, k)
    return k
