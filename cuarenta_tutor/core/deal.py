"""Provides the compiled deals of a lane: whether one is due, the deck's order, a new game, and dealing (engine/play.py
`deal` and engine/dealing.py say the same in Python, and are the reference the differential tests hold these to),
with the event rows every step writes (play.py's plays and ends of hands write them too).

Every function works in place on one lane row (layout.py) and the rules array; events as play.py says.
"""

from __future__ import annotations

import numpy as np

from ..engine.cards import DECK_SIZE
from ..engine.play import CARDS_PER_DEAL
from ..engine.rules import TARGET_SCORE
from .jit import njit
from .layout import (
    COUNTS,
    DEAL_NO,
    DEALER,
    DECK,
    DECK_HAND,
    DECK_POS,
    DISC_LEN,
    EV_DEALT,
    EV_FOUR,
    EV_GAME_WON,
    EV_RONDA,
    EVENT_WIDTH,
    HAND_LEN,
    HAND_NO,
    HAND_SLOTS,
    HANDS,
    MAX_EVENTS,
    PILE_LEN,
    PLAYED,
    PLAYED_LEN,
    PLAYS,
    R_FOUR_POINTS,
    R_FOUR_WINS,
    R_PLAYERS,
    R_RONDA_CUTOFF,
    R_RONDA_POINTS,
    RONDAS,
    SCORES,
    TABLE_LEN,
    TRAILED,
    TURN,
    WIDTH,
    WINNER,
)


def buffers() -> tuple[np.ndarray, np.ndarray]:
    """An event buffer and a card buffer for the steps."""
    return np.zeros((MAX_EVENTS, EVENT_WIDTH), dtype=np.int32), np.full((2, DECK_SIZE), -1, dtype=np.int32)


@njit
def event(events, i, kind, a, b, c, d, e, f):
    """Write event row i (the last column is always 0); returns i + 1."""
    events[i, 0] = kind
    events[i, 1] = a
    events[i, 2] = b
    events[i, 3] = c
    events[i, 4] = d
    events[i, 5] = e
    events[i, 6] = f
    events[i, 7] = 0
    return i + 1


@njit
def clear(row, start, length):
    for i in range(length):
        row[start + i] = -1


@njit
def needs_deal(row, rules):
    """Whether the next step is a deal (engine State.needs_deal): the game goes on, no hand holds a card, the stock
    holds some."""
    if row[WINNER] >= 0 or row[DECK_POS] >= DECK_SIZE:
        return False
    for s in range(rules[R_PLAYERS]):
        if row[HAND_LEN + s] > 0:
            return False
    return True


@njit
def deck_known(row):
    """Whether the lane holds the deck order of its hand (a deal can be made from it)."""
    return row[DECK_HAND] == row[HAND_NO]


@njit
def set_deck(row, deck):
    """Give a fresh hand its deck order (40 cards, dealt from the start)."""
    for i in range(DECK_SIZE):
        row[DECK + i] = deck[i]
    row[DECK_POS] = 0
    row[DECK_HAND] = row[HAND_NO]


@njit
def new_game(row, rules, dealer, deck):
    """A game before its first deal, `dealer` dealing hand 0 from `deck` (engine initial_state with 0-0 scores)."""
    for i in range(WIDTH):
        row[i] = -1
    n = rules[R_PLAYERS]
    row[HAND_NO] = 0
    row[DEALER] = dealer
    row[DEAL_NO] = 0
    row[TURN] = (dealer + 1) % n
    row[PLAYS] = 0
    row[SCORES] = 0
    row[SCORES + 1] = 0
    for s in range(4):
        row[HAND_LEN + s] = 0
        row[PLAYED_LEN + s] = 0
    row[TABLE_LEN] = 0
    for r in range(10):
        row[COUNTS + r] = 0
    row[PILE_LEN] = 0
    row[PILE_LEN + 1] = 0
    row[DISC_LEN] = 0
    set_deck(row, deck)


@njit
def deal_at(row, rules, events, k):
    """Deal from the lane's deck, writing events from row k on; returns the next free row."""
    n = rules[R_PLAYERS]
    dealer = row[DEALER]
    pos = row[DECK_POS]
    count = min(CARDS_PER_DEAL * n, DECK_SIZE - pos)
    any_played = False
    for s in range(4):
        if row[PLAYED_LEN + s] > 0:
            any_played = True
        clear(row, PLAYED + s * HAND_SLOTS, row[PLAYED_LEN + s])
        row[PLAYED_LEN + s] = 0
    if any_played:
        row[DEAL_NO] += 1
    for i in range(n):
        seat = (dealer + 1 + i) % n
        start = HANDS + seat * HAND_SLOTS
        first = i * CARDS_PER_DEAL
        last = min(first + CARDS_PER_DEAL, count)
        held = 0
        for j in range(first, last):  # insertion sort: the hand stays sorted
            card = row[DECK + pos + j]
            at = held
            while at > 0 and row[start + at - 1] > card:
                row[start + at] = row[start + at - 1]
                at -= 1
            row[start + at] = card
            held += 1
        row[HAND_LEN + seat] = held
    row[DECK_POS] = pos + count
    k = event(events, k, EV_DEALT, row[HAND_NO], row[DEAL_NO], dealer, 0, 0, 0)
    # The announcements (engine scoring.announcements): from the seat after the dealer; four of a kind wins at once
    # under four_of_a_kind="win"; every cut-off reads the scores before the deal.
    s0 = row[SCORES]
    s1 = row[SCORES + 1]
    for s in range(4):
        row[RONDAS + s] = -1
    winner = -1
    for i in range(1, n + 1):
        seat = (dealer + i) % n
        start = HANDS + seat * HAND_SLOTS
        held = row[HAND_LEN + seat]
        best = 0
        rank = 0
        for j in range(held):  # the hand is sorted: a rank's cards are adjacent, the lowest rank of the most first
            r = row[start + j] >> 2
            if j > 0 and row[start + j - 1] >> 2 == r:
                continue
            same = 1
            while j + same < held and row[start + j + same] >> 2 == r:
                same += 1
            if same > best:
                best = same
                rank = r
        if best < 3:
            continue
        team = seat & 1
        row[RONDAS + seat] = rank
        if best == 4 and rules[R_FOUR_WINS]:
            k = event(events, k, EV_FOUR, seat, team, 0, 0, 0, 0)
            winner = team
            break
        value = rules[R_FOUR_POINTS] if best == 4 else rules[R_RONDA_POINTS]
        points = value if (s0 if team == 0 else s1) < rules[R_RONDA_CUTOFF] else 0
        row[SCORES + team] += points
        k = event(events, k, EV_RONDA, seat, team, points, 1 if best == 4 else 0, 0, 0)
        if row[SCORES + team] >= TARGET_SCORE:
            winner = team
            break
    if winner >= 0:
        row[WINNER] = winner
        k = event(events, k, EV_GAME_WON, winner, row[SCORES], row[SCORES + 1], 0, 0, 0)
    row[TURN] = (dealer + 1) % n
    row[TRAILED] = -1
    return k


@njit
def deal(row, rules, events, cards):
    """The chance step from the lane's deck (engine deal with the deck's next cards): returns the number of event rows
    written (Dealt, then the announcements and a win), or -1 when the lane does not hold its hand's deck (nothing
    changes). The caller checks that a deal is due (`needs_deal`)."""
    if row[DECK_HAND] != row[HAND_NO]:
        return -1
    return deal_at(row, rules, events, 0)
