"""Provides the observation of a lane row from one seat, with the move features of encoding version 2, compiled
(encoding.encode_into and agents.features.move_features say the same in Python and are the reference), and the
batch the playouts feed the network: every seat of every lane, and the legal masks.

Every slot is computed in float64 as the reference computes it and stored as float32 (rounded to nearest, as
struct.pack does), so the vectors are equal bit for bit.
"""

from __future__ import annotations

import functools

import numpy as np

from ..encoding import MARKS
from ..encoding import encode as python_encode
from ..engine import CARTON_CARDS, TARGET_SCORE, Rules, initial_state
from ..engine.cards import DECK_SIZE
from .expert import (
    N_ACTIONS,
    N_TERMS,
    TERM_CARDS,
    TERM_CARTON,
    TERM_KEEP,
    TERM_LIMPIA,
    TERM_POINTS,
    TERM_TABLE_LEFT,
    TERM_THREAT,
    TERM_VALUE,
    TERM_WON,
    legal_terms,
)
from .jit import njit
from .layout import (
    DEAL_NO,
    DEALER,
    DECK_POS,
    HAND_LEN,
    HAND_SLOTS,
    HANDS,
    PILE_LEN,
    PILE_SLOTS,
    PILES,
    R_PLAYERS,
    RONDAS,
    SCORES,
    TABLE,
    TABLE_LEN,
    TRAILED,
    TURN,
    WINNER,
)

BASE_SIZE = 106
MOVE_FEATURES = 10
OBS_SIZE = BASE_SIZE + N_ACTIONS * MOVE_FEATURES
LOW_MARK, HIGH_MARK = MARKS
"""Slots 74-77 mark the standard cut-offs under every preset."""
TAIL = slice(93, 105)


@functools.cache
def rules_tail(rules: Rules) -> np.ndarray:
    """Slots 93-104 (the rules options) as encode reads them: the reference encoder's own numbers (read back from
    its float32 slots, which they fill unchanged), once per Rules value. Read only."""
    tail = python_encode(initial_state(rules), 0, version=1)[TAIL].astype(np.float64)
    tail.flags.writeable = False
    return tail


@njit
def _flag(b):
    return 1.0 if b else 0.0


@njit
def encode_base(row, rules, tail, seat, out):
    """Slots 0-105 of the observation of `row` from `seat` (encoding.encode_into) into `out` (float32)."""
    v = np.zeros(BASE_SIZE, dtype=np.float64)
    n = rules[R_PLAYERS]
    team = seat & 1
    at = HANDS + seat * HAND_SLOTS
    for i in range(row[HAND_LEN + seat]):
        v[row[at + i] >> 2] += 0.25
    for i in range(row[TABLE_LEN]):
        v[10 + (row[TABLE + i] >> 2)] += 0.25
    for i in range(row[PILE_LEN + team]):
        v[20 + (row[PILES + team * PILE_SLOTS + i] >> 2)] += 0.25
    other = 1 - team
    for i in range(row[PILE_LEN + other]):
        v[30 + (row[PILES + other * PILE_SLOTS + i] >> 2)] += 0.25
    for r in range(10):
        v[40 + r] = 1.0 - v[r] - v[10 + r] - v[20 + r] - v[30 + r]
    if row[TRAILED] >= 0:
        v[50 + row[TRAILED]] = 1.0
    if row[RONDAS + seat] >= 0:
        v[60 + row[RONDAS + seat]] = 1.0
    for s in range(n):
        if row[RONDAS + s] >= 0:
            if (s & 1) != team:
                v[70] = 1.0
            elif n == 4 and s != seat:
                v[71] = 1.0
    mine, theirs = row[SCORES + team], row[SCORES + other]
    v[72], v[73] = mine / TARGET_SCORE, theirs / TARGET_SCORE
    v[74], v[75] = _flag(mine >= LOW_MARK), _flag(mine >= HIGH_MARK)
    v[76], v[77] = _flag(theirs >= LOW_MARK), _flag(theirs >= HIGH_MARK)
    own_pile, other_pile = row[PILE_LEN + team], row[PILE_LEN + other]
    v[78], v[79] = own_pile / DECK_SIZE, other_pile / DECK_SIZE
    v[80], v[81] = _flag(own_pile >= CARTON_CARDS), _flag(other_pile >= CARTON_CARDS)
    v[82 + min(row[DEAL_NO], 3)] = 1.0
    v[86] = (DECK_SIZE - row[DECK_POS]) / DECK_SIZE
    v[87] = row[HAND_LEN + seat] / 5
    v[88] = row[HAND_LEN + (seat + 1) % n] / 5
    v[89] = _flag(row[DEALER] == seat)
    v[90] = _flag((row[DEALER] & 1) == team)
    over = row[WINNER] >= 0
    v[91] = _flag(row[TURN] == seat and not over)
    v[92] = _flag(row[TABLE_LEN] == 0)
    for j in range(12):
        v[93 + j] = tail[j]
    v[105] = _flag(over)
    for j in range(BASE_SIZE):
        out[j] = v[j]


@njit
def move_slots(t, out, i):
    """The 10 move features of one legal action from its expert terms `t` into out[i:i + 10] (float32)."""
    value = t[TERM_VALUE] / 4
    clipped = min(5.0, max(-5.0, value))
    out[i] = 1.0
    out[i + 1] = t[TERM_POINTS] / 4
    out[i + 2] = t[TERM_CARDS] / 10
    out[i + 3] = t[TERM_CARTON] / 4
    out[i + 4] = t[TERM_THREAT] / 4
    out[i + 5] = _flag(t[TERM_KEEP] > 0)
    out[i + 6] = t[TERM_WON]
    out[i + 7] = t[TERM_LIMPIA]
    out[i + 8] = t[TERM_TABLE_LEFT] / 10
    out[i + 9] = clipped


@njit
def encode_moves(terms, actions, n_legal, out):
    """Slots 106-635 (agents.features.move_features, version 2) from the expert's terms of the `n_legal` legal
    `actions` into `out` (the observation, float32); the other actions' slots are zero."""
    out[BASE_SIZE:] = 0.0
    for k in range(n_legal):
        a = actions[k]
        move_slots(terms[a], out, BASE_SIZE + a * MOVE_FEATURES)


@njit
def encode(row, rules, tail, seat, out, terms, actions, n_legal):
    """The observation of `row` from `seat` (agents.features.encode_into, encoding version 2) into `out` (float32,
    BASE_SIZE or OBS_SIZE long); `terms`, `actions`, `n_legal`: legal_terms's answer for the row, read only when
    `seat` is on turn in a game not over and `out` has room for the move features."""
    encode_base(row, rules, tail, seat, out)
    if out.shape[0] > BASE_SIZE:
        if row[TURN] == seat and row[WINNER] < 0:
            encode_moves(terms, actions, n_legal, out)
        else:
            out[BASE_SIZE:] = 0.0


@njit
def encode_seat(row, rules, tail, seat, out):
    """encode with the terms computed here (one seat's observation alone)."""
    terms = np.empty((N_ACTIONS, N_TERMS), dtype=np.float64)
    actions = np.empty(N_ACTIONS, dtype=np.int32)
    n_legal = legal_terms(row, rules, terms, actions)
    encode(row, rules, tail, seat, out, terms, actions, n_legal)


@njit
def encode_lanes(rows, idx, rules, tail, obs, mask):
    """The playouts' batch (analysis.playout Playouts.play): for each k, the lane rows[idx[k]] seen from every seat
    s into obs[k * players + s] (the move terms computed once a lane, for the seat on turn), and mask rows all True
    but the seat on turn's, True at its legal actions only."""
    n = rules[R_PLAYERS]
    terms = np.empty((N_ACTIONS, N_TERMS), dtype=np.float64)
    actions = np.empty(N_ACTIONS, dtype=np.int32)
    for k in range(len(idx)):
        row = rows[idx[k]]
        n_legal = legal_terms(row, rules, terms, actions)
        for s in range(n):
            encode(row, rules, tail, s, obs[k * n + s], terms, actions, n_legal)
            mask[k * n + s, :] = True
        turn = mask[k * n + row[TURN]]
        turn[:] = False
        for j in range(n_legal):
            turn[actions[j]] = True
