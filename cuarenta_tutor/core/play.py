"""Provides the compiled rules steps of a lane: applying a play, a deal, the end of a hand, and the two together as
the dealer plays them (engine/play.py `apply`, `deal`, `_end_hand` and engine/dealing.py `Dealer.play` say the same
in Python, and are the reference the differential tests hold these to).

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
    DISC,
    DISC_LEN,
    EV_CAIDA,
    EV_DEALT,
    EV_FOUR,
    EV_GAME_WON,
    EV_HAND_ENDED,
    EV_LIMPIA,
    EV_PLAYED,
    EV_RONDA,
    EVENT_WIDTH,
    HAND_LEN,
    HAND_NO,
    HAND_SLOTS,
    HANDS,
    LAST_CAPTURER,
    MAX_EVENTS,
    PILE_LEN,
    PILE_SLOTS,
    PILES,
    PLAYED,
    PLAYED_LEN,
    PLAYS,
    R_FOUR_POINTS,
    R_FOUR_WINS,
    R_LEFTOVER_LAST,
    R_MATCH_ALL,
    R_PLAYERS,
    R_RONDA_CUTOFF,
    R_RONDA_POINTS,
    RONDAS,
    SCORES,
    TABLE,
    TABLE_LEN,
    TRAILED,
    TURN,
    WIDTH,
    WINNER,
)
from .moves import KIND, MATCH_KIND, RANK, TRAIL_KIND
from .scoring import capture_score, carton_points

BASE_LEN = np.array([len(b) for b in ACTION_BASE], dtype=np.int32)
BASE = np.full((N_ACTIONS, max(BASE_LEN)), -1, dtype=np.int32)
"""Per action, the base ranks it takes in the engine's order (ascending), -1 past BASE_LEN."""
for _a, _base in enumerate(ACTION_BASE):
    BASE[_a, :len(_base)] = _base


def buffers() -> tuple[np.ndarray, np.ndarray]:
    """An event buffer and a card buffer for the steps."""
    return np.zeros((MAX_EVENTS, EVENT_WIDTH), dtype=np.int32), np.full((2, DECK_SIZE), -1, dtype=np.int32)


@njit
def _event(events, i, kind, a, b, c, d, e, f):
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
def _clear(row, start, length):
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
        _clear(row, HANDS + s * HAND_SLOTS, row[HAND_LEN + s])
        row[HAND_LEN + s] = 0
        _clear(row, PLAYED + s * HAND_SLOTS, row[PLAYED_LEN + s])
        row[PLAYED_LEN + s] = 0
    _clear(row, TABLE, row[TABLE_LEN])
    row[TABLE_LEN] = 0
    for r in range(10):
        row[COUNTS + r] = 0
    for t in range(2):
        _clear(row, PILES + t * PILE_SLOTS, row[PILE_LEN + t])
        row[PILE_LEN + t] = 0
    _clear(row, DISC, row[DISC_LEN])
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
    k = _event(events, k, EV_HAND_ENDED, row[HAND_NO], c0, c1, p0, p1, kept)
    if winner < 0:
        _fresh_hand(row, rules)
        return k
    k = _event(events, k, EV_GAME_WON, winner, s0, s1, 0, 0, 0)
    row[WINNER] = winner
    for i in range(kept):
        row[DISC + i] = cards[1, i]
    row[DISC_LEN] = kept
    _clear(row, TABLE, leftover)
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
        k = _event(events, 0, EV_PLAYED, seat, card, action, 0, 0, 0)
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
        k = _event(events, 0, EV_PLAYED, seat, card, action, taken, 0, 0)
        before = row[SCORES + team]
        clears = row[TABLE_LEN] == 0
        caida_points, bonus, limpia = capture_score(rules, before, caida, row[RONDAS + (seat + n - 1) % n] == rank,
                                                    clears)
        if caida:
            k = _event(events, k, EV_CAIDA, seat, team, caida_points, bonus, 0, 0)
        if clears:
            k = _event(events, k, EV_LIMPIA, seat, team, limpia, 0, 0, 0)
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
                k = _event(events, k, EV_GAME_WON, team, row[SCORES], row[SCORES + 1], 0, 0, 0)
    row[TURN] = (seat + 1) % n
    row[PLAYS] += 1
    if winner < 0 and held == 1 and row[DECK_POS] >= DECK_SIZE:
        for s in range(n):
            if row[HAND_LEN + s] > 0:
                return k
        k = _end_hand(row, rules, events, k, cards)
    return k


@njit
def _deal_at(row, rules, events, k):
    """Deal from the lane's deck, writing events from row k on; returns the next free row."""
    n = rules[R_PLAYERS]
    dealer = row[DEALER]
    pos = row[DECK_POS]
    count = min(CARDS_PER_DEAL * n, DECK_SIZE - pos)
    any_played = False
    for s in range(4):
        if row[PLAYED_LEN + s] > 0:
            any_played = True
        _clear(row, PLAYED + s * HAND_SLOTS, row[PLAYED_LEN + s])
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
    k = _event(events, k, EV_DEALT, row[HAND_NO], row[DEAL_NO], dealer, 0, 0, 0)
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
            k = _event(events, k, EV_FOUR, seat, team, 0, 0, 0, 0)
            winner = team
            break
        value = rules[R_FOUR_POINTS] if best == 4 else rules[R_RONDA_POINTS]
        points = value if (s0 if team == 0 else s1) < rules[R_RONDA_CUTOFF] else 0
        row[SCORES + team] += points
        k = _event(events, k, EV_RONDA, seat, team, points, 1 if best == 4 else 0, 0, 0)
        if row[SCORES + team] >= TARGET_SCORE:
            winner = team
            break
    if winner >= 0:
        row[WINNER] = winner
        k = _event(events, k, EV_GAME_WON, winner, row[SCORES], row[SCORES + 1], 0, 0, 0)
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
    return _deal_at(row, rules, events, 0)


@njit
def step(row, rules, action, events, cards, next_hand):
    """A play and the deal it makes due (engine Dealer.play): the next deal of the hand, or with `next_hand` the
    next hand's first deal, when the lane holds that hand's deck; returns the number of event rows of both, in
    order. A lane whose next hand's deck is unknown stays awaiting its deal (`set_deck`, then `deal`)."""
    hand_no = row[HAND_NO]
    k = apply_play(row, rules, action, events, cards)
    if (next_hand or row[HAND_NO] == hand_no) and row[DECK_HAND] == row[HAND_NO] and needs_deal(row, rules):
        k = _deal_at(row, rules, events, k)
    return k
