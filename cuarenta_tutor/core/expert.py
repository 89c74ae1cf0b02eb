"""Provides the expert's terms of every legal move and its choice over a lane row, compiled (agents/expert.py says
the same in Python and is the reference: `move_terms`, `threat`, `best_gain`, `MoveTerms.value`, `decide`).

`terms` is float64[53, 9], one row per action id, columns TERM_* below; the rows of actions that are not legal are
zero. Every number is computed with the reference's operations in the reference's order, so the floats are equal.
"""

from __future__ import annotations

import numpy as np

from ..agents.expert import CARD_WEIGHT, THRESHOLD_BONUS, WIN
from ..engine import CARDS_PER_DEAL, CARTON_CARDS, TARGET_SCORE, p_holds
from ..engine.cards import COPIES, DECK_SIZE
from .jit import njit
from .layout import (
    COUNTS,
    DEALER,
    DECK_POS,
    HAND_LEN,
    HAND_SLOTS,
    HANDS,
    LAST_CAPTURER,
    PILE_LEN,
    PILE_SLOTS,
    PILES,
    R_CARTON_CUTOFF,
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
from .moves import (
    BASE_LEN,
    KIND,
    MATCH_KIND,
    RANK,
    SUM_FIRST,
    SUM_LAST,
    TRAIL_KIND,
    legal,
    outcome,
    sum_fits,
)
from .scoring import capture_score, carton_points

(TERM_POINTS, TERM_CARDS, TERM_CARTON, TERM_THREAT, TERM_KEEP, TERM_WON, TERM_LIMPIA, TERM_TABLE_LEFT,
 TERM_VALUE) = range(9)
N_TERMS = 9
N_ACTIONS = 53
MAX_HAND = 5
P_HOLDS = np.array([[[p_holds(k, hand, pool) if k <= pool else np.nan for pool in range(DECK_SIZE + 1)]
                     for hand in range(MAX_HAND + 1)] for k in range(COPIES + 1)], dtype=np.float64)
"""engine.p_holds(k, hand, pool) for every k, hand and pool the expert asks about (k <= pool: the k cards are among
the pool), from the engine's own function."""
P_HOLDS.flags.writeable = False


@njit
def round9(x):
    """Python's round(x, 9) exactly (numba's own round(x, 9) rounds x * 1e9, itself rounded, and can differ): the
    product is split exactly (Dekker), rounded half to even on its true value, and divided back (one rounding, as
    CPython's correctly rounded decimal)."""
    scale = 1e9
    hi = x * scale
    split = 134217729.0 * x
    xh = split - (split - x)
    xl = x - xh
    split = 134217729.0 * scale
    sh = split - (split - scale)
    sl = scale - sh
    lo = ((xh * sh - hi) + xh * sl + xl * sh) + xl * sl
    z = np.rint(hi)
    d = hi - z
    if d - 0.5 > -lo:
        z += 1.0
    elif d - 0.5 == -lo:
        if z % 2.0 != 0.0:
            z += 1.0
    elif d + 0.5 < -lo:
        z -= 1.0
    elif d + 0.5 == -lo:
        if z % 2.0 != 0.0:
            z -= 1.0
    return z / scale


@njit
def _gain(rules, them, total, taken, caida, on_ronda, opp_cards):
    """What a capture of `taken` table cards gains the next player's team (agents.expert best_gain's loop body)."""
    c, b, li = capture_score(rules, them, caida, on_ronda, taken == total)
    pts = c + b + li
    gain = pts + opp_cards * (taken + 1)
    if them + pts >= TARGET_SCORE:
        gain += WIN
    return gain


@njit
def best_gain(rules, them, counts, total, rank, caida, on_ronda):
    """The best a card of `rank` gains the team on `them` points on a table of rank `counts` holding `total` cards
    (agents.expert best_gain over its captures: the match, then the sums that fit). Every capture of a rank takes
    the same escalera (the run above the rank, which neither a match nor a sum touches), as engine.outcome does."""
    opp_cards = CARD_WEIGHT if them < rules[R_CARTON_CUTOFF] else 0.0
    run = 0
    r = rank + 1
    while r < 10 and counts[r] > 0:
        run += 1
        r += 1
    best = 0.0
    if counts[rank] > 0:
        taken = (counts[rank] if rules[R_MATCH_ALL] else 1) + run
        best = max(best, _gain(rules, them, total, taken, caida, on_ronda, opp_cards))
    for a in range(SUM_FIRST[rank], SUM_LAST[rank]):
        if sum_fits(a, counts, rules):
            best = max(best, _gain(rules, them, total, BASE_LEN[a] + run, False, on_ronda, opp_cards))
    return best


@njit
def threat(rules, them, my_ronda, counts, trailed, unseen, pool, hand, scratch):
    """Expected gain of the next player on a table of rank `counts` (agents.expert threat): the best capture per rank
    it may hold, sorted by (gain, chance) from the highest, each counted where no better one came before.
    `scratch`: float64[2, 10], work space."""
    gains, probs = scratch[0], scratch[1]
    total = 0
    for r in range(10):
        total += counts[r]
    m = 0
    for p in range(10):
        if unseen[p] == 0:
            continue
        gain = best_gain(rules, them, counts, total, p, trailed == p, my_ronda == p)
        if gain > 0:
            prob = P_HOLDS[unseen[p], hand, pool]
            j = m  # insertion, highest (gain, prob) first
            while j > 0 and (gains[j - 1] < gain or (gains[j - 1] == gain and probs[j - 1] < prob)):
                gains[j] = gains[j - 1]
                probs[j] = probs[j - 1]
                j -= 1
            gains[j] = gain
            probs[j] = prob
            m += 1
    expected, none_before = 0.0, 1.0
    for j in range(m):
        expected += gains[j] * probs[j] * none_before
        none_before *= 1.0 - probs[j]
    return expected


@njit
def _settles_win(row, rules, team, a_cards, b_cards, leftover, last_capturer, s0, s1):
    """Whether the hand's settlement (leftovers, cartón) wins the game for `team` (engine settle_hand)."""
    if leftover > 0 and rules[R_LEFTOVER_LAST] and last_capturer >= 0:
        if last_capturer == 0:
            a_cards += leftover
        else:
            b_cards += leftover
    p0, p1 = carton_points(a_cards, b_cards, row[DEALER] & 1, s0, s1, rules)
    if p0 and s0 + p0 >= TARGET_SCORE:
        return team == 0
    if p1 and s1 + p1 >= TARGET_SCORE:
        return team == 1
    return False


@njit
def legal_terms(row, rules, terms, actions):
    """The expert's terms of every legal action of the seat on turn (agents.expert move_terms) into `terms` (rows by
    action id, the others zero) and the legal actions into `actions` (int32[53], ascending); returns how many."""
    terms[:, :] = 0.0
    if row[WINNER] >= 0:
        return 0
    n_legal = legal(row, rules, actions)
    if n_legal == 0:
        return 0
    n = rules[R_PLAYERS]
    seat = row[TURN]
    team = seat & 1
    mine, theirs = row[SCORES + team], row[SCORES + 1 - team]
    my_ronda = row[RONDAS + seat]  # the other seats' rondas are secret: never read
    counts = row[COUNTS:COUNTS + 10]
    unseen = np.full(10, COPIES, dtype=np.int64)
    hand_at = HANDS + seat * HAND_SLOTS
    hand_len = row[HAND_LEN + seat]
    for i in range(hand_len):
        unseen[row[hand_at + i] >> 2] -= 1
    table_len = row[TABLE_LEN]
    for i in range(table_len):
        unseen[row[TABLE + i] >> 2] -= 1
    for t in range(2):
        for i in range(row[PILE_LEN + t]):
            unseen[row[PILES + t * PILE_SLOTS + i] >> 2] -= 1
    pool = 0
    for r in range(10):
        pool += unseen[r]
    nxt = (seat + 1) % n
    cutoff = rules[R_CARTON_CUTOFF]
    my_card_weight = CARD_WEIGHT if mine < cutoff or theirs < cutoff else 0.0
    pile = row[PILE_LEN + team]
    last_of_deal = hand_len == 1
    for s in range(n):
        if s != seat and row[HAND_LEN + s] != 0:
            last_of_deal = False
    ends_hand = last_of_deal and row[DECK_POS] == DECK_SIZE
    after = np.empty(10, dtype=np.int32)
    scratch = np.empty((2, 10), dtype=np.float64)
    for k in range(n_legal):
        a = actions[k]
        r = RANK[a]
        kind = KIND[a]
        if kind == TRAIL_KIND:
            cards, points, won = 0, 0, False
            for q in range(10):
                after[q] = counts[q]
            after[r] += 1
            left = table_len + 1
        else:
            taken = outcome(counts, a, rules, after)
            cards = taken + 1
            left = table_len - taken
            caida = kind == MATCH_KIND and row[TRAILED] == r
            c, b, li = capture_score(rules, mine, caida, False, left == 0)
            points = c + b + li
            won = mine + points >= TARGET_SCORE
        if ends_hand and not won:  # the hand's last play: its settlement may win
            s0, s1 = row[SCORES] + (points if team == 0 else 0), row[SCORES + 1] + (points if team == 1 else 0)
            a_cards, b_cards, last = row[PILE_LEN], row[PILE_LEN + 1], row[LAST_CAPTURER]
            if cards:
                a_cards += cards if team == 0 else 0
                b_cards += cards if team == 1 else 0
                last = team
            won = _settles_win(row, rules, team, a_cards, b_cards, left, last, s0, s1)
        carton = my_card_weight * cards
        if cards and pile < CARTON_CARDS <= pile + cards and mine < cutoff:
            carton += THRESHOLD_BONUS
        out = terms[a]
        out[TERM_POINTS] = points
        out[TERM_CARDS] = cards
        out[TERM_CARTON] = carton
        out[TERM_WON] = won
        out[TERM_LIMPIA] = cards > 0 and left == 0
        out[TERM_TABLE_LEFT] = left
        if won:
            out[TERM_VALUE] = WIN + points
            continue
        if ends_hand:
            out[TERM_VALUE] = points + carton - 0.0 + 0.0
            continue
        if last_of_deal:
            next_hand, trailed = CARDS_PER_DEAL, -1
        else:
            next_hand, trailed = row[HAND_LEN + nxt], (r if kind == TRAIL_KIND else -1)
        keep = 0.0
        if kind == TRAIL_KIND:
            same = 0
            for i in range(hand_len):
                if row[hand_at + i] >> 2 == r:
                    same += 1
            if same >= 2:
                keep = 0.1
        danger = threat(rules, theirs, my_ronda, after, trailed, unseen, pool, next_hand, scratch)
        out[TERM_THREAT] = danger
        out[TERM_KEEP] = keep
        out[TERM_VALUE] = points + carton - danger + keep
    return n_legal


@njit
def move_terms(row, rules, terms):
    """The expert's terms of every legal action (legal_terms without the actions); returns how many are legal."""
    actions = np.empty(N_ACTIONS, dtype=np.int32)
    return legal_terms(row, rules, terms, actions)


@njit
def choose(terms, actions, n_legal):
    """ExpertPolicy.decide's choice among `actions[:n_legal]` from their terms: the one legal move, else the highest
    (round(value, 9), rank, -action); -1 when none is legal."""
    if n_legal == 0:
        return -1
    best = actions[0]
    if n_legal == 1:
        return best
    best_value = round9(terms[best, TERM_VALUE])
    for k in range(1, n_legal):
        a = actions[k]
        value = round9(terms[a, TERM_VALUE])
        if value > best_value or (value == best_value and RANK[a] > RANK[best]):  # ascending ids: a lower id stays
            best, best_value = a, value
    return best


@njit
def expert_action(row, rules):
    """The expert's action for the seat on turn (ExpertPolicy.decide), or -1 when no play is due."""
    terms = np.empty((N_ACTIONS, N_TERMS), dtype=np.float64)
    actions = np.empty(N_ACTIONS, dtype=np.int32)
    n_legal = legal_terms(row, rules, terms, actions)
    return choose(terms, actions, n_legal)


@njit
def expert_lanes(rows, idx, rules, out_actions):
    """The expert's action for each lane rows[idx[k]] into out_actions[k] (-1 where no play is due)."""
    terms = np.empty((N_ACTIONS, N_TERMS), dtype=np.float64)
    actions = np.empty(N_ACTIONS, dtype=np.int32)
    for k in range(len(idx)):
        n_legal = legal_terms(rows[idx[k]], rules, terms, actions)
        out_actions[k] = choose(terms, actions, n_legal)
