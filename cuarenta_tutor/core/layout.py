"""Provides the compiled core's values: a game state as one row of int32 (a lane), the rules as a small int32 array,
the event rows a step writes, and the conversions to and from the engine's `State` and events.

The pure-Python engine (engine/) is the rules' one readable statement and the reference; the core (play.py, deal.py,
moves.py, expert.py, encode.py) computes the same over arrays of lanes, and the differential tests hold the two
together. A lane row:

| field            | slots | meaning                                                                  |
|------------------|-------|--------------------------------------------------------------------------|
| HAND_NO .. PLAYS | 8     | hand_no, dealer, deal_no, turn, trailed, last_capturer, winner, plays    |
| SCORES           | 2     | per team                                                                 |
| RONDAS           | 4     | per seat, the ronda rank this deal or -1 (seats past `players` unused)   |
| HAND_LEN, HANDS  | 4, 20 | per seat the cards in hand, sorted, 5 slots a seat                       |
| PLAYED_LEN/PLAYED| 4, 20 | per seat the cards played this deal, in order                            |
| TABLE_LEN, TABLE | 1, 40 | the table, oldest first                                                  |
| COUNTS           | 10    | the table's count per rank                                               |
| PILE_LEN, PILES  | 2, 80 | per team the cards captured this hand, in order, 40 slots a team         |
| DECK_POS, DECK   | 1, 40 | the hand's deck order; the stock is DECK[DECK_POS:40], dealt from there  |
| DECK_HAND        | 1     | the hand the deck belongs to (-1: none; a new hand's deck comes from Python) |
| DISC_LEN, DISC   | 1, 40 | `discarded`: the table cards left when the game ended at a hand's end    |

Cards are ints 0..39 (rank * 4 + suit) as in the engine; unused slots hold -1.
"""

from __future__ import annotations

import functools

import numpy as np

from ..engine import Rules, State
from ..engine.actions import pack
from ..engine.cards import DECK_SIZE
from ..engine.state import Caida, Dealt, FourOfAKind, GameWon, HandEnded, Limpia, Played, Ronda

HAND_NO, DEALER, DEAL_NO, TURN, TRAILED, LAST_CAPTURER, WINNER, PLAYS = range(8)
SCORES = 8
RONDAS = 10
HAND_LEN = 14
HANDS = 18
PLAYED_LEN = 38
PLAYED = 42
TABLE_LEN = 62
TABLE = 63
COUNTS = 103
PILE_LEN = 113
PILES = 115
DECK_POS = 195
DECK = 196
DECK_HAND = 236
DISC_LEN = 237
DISC = 238
WIDTH = 278
HAND_SLOTS = 5
PILE_SLOTS = 40

# The rules array.
(R_PLAYERS, R_STACK, R_RONDA_POINTS, R_RONDA_CUTOFF, R_FOUR_WINS, R_FOUR_POINTS, R_BONUS, R_BONUS_CUTOFF,
 R_CARTON_CUTOFF, R_LIMPIA_CUTOFF, R_SUM_LIMIT, R_MATCH_ALL, R_FORCED, R_LEFTOVER_LAST) = range(14)
RULES_WIDTH = 14
NO_CUTOFF = 1 << 20
"""A cut-off of None: no score reaches it."""

# Event rows: [kind, a, b, c, d, e, f, g]; the cards a Played took, and the leftovers of HandEnded, go to the
# step's card buffer (row 0 and row 1).
EV_DEALT, EV_RONDA, EV_FOUR, EV_PLAYED, EV_CAIDA, EV_LIMPIA, EV_HAND_ENDED, EV_GAME_WON = range(1, 9)
EVENT_WIDTH = 8
MAX_EVENTS = 12
"""A play makes at most Played, Caida, Limpia, GameWon, HandEnded, GameWon; a deal Dealt, 4 rondas, GameWon."""


def rules_array(rules: Rules) -> np.ndarray:
    """The rules as the core reads them."""
    def cut(value):
        return NO_CUTOFF if value is None else value

    return np.array([rules.players, rules.caida_limpia_stack, rules.ronda_points, cut(rules.ronda_cutoff),
                     rules.four_of_a_kind == "win", rules.four_of_a_kind_points, rules.ronda_caida_bonus,
                     cut(rules.ronda_caida_cutoff), cut(rules.carton_cutoff), cut(rules.limpia_cutoff),
                     rules.sum_limit, rules.match_takes_all_same_rank, rules.forced_capture,
                     rules.leftover_table_cards == "last_capturer"], dtype=np.int32)


@functools.cache
def rules_of(rules: Rules) -> np.ndarray:
    """rules_array, made once per Rules value: shared, never to be written."""
    return rules_array(rules)


def _put(row: np.ndarray, start: int, cards) -> None:
    row[start:start + len(cards)] = cards


def to_row(state: State, stock_order=None, out: np.ndarray | None = None) -> np.ndarray:
    """A lane row of `state`; `stock_order` is the order its stock will be dealt in (a sampled world's; default the
    stock sorted, as a deal that no one drew)."""
    row = np.full(WIDTH, -1, dtype=np.int32) if out is None else out
    row[:] = -1
    row[HAND_NO:PLAYS + 1] = (state.hand_no, state.dealer, state.deal_no, state.turn, state.trailed,
                              state.last_capturer, state.winner, state.plays)
    row[SCORES:SCORES + 2] = state.scores
    row[RONDAS:RONDAS + len(state.rondas)] = state.rondas
    for s, hand in enumerate(state.hands):
        row[HAND_LEN + s] = len(hand)
        _put(row, HANDS + s * HAND_SLOTS, hand)
    for s, played in enumerate(state.played):
        row[PLAYED_LEN + s] = len(played)
        _put(row, PLAYED + s * HAND_SLOTS, played)
    for s in range(len(state.hands), 4):
        row[HAND_LEN + s] = row[PLAYED_LEN + s] = 0
    row[TABLE_LEN] = len(state.table)
    _put(row, TABLE, state.table)
    counts = [0] * 10
    for c in state.table:
        counts[c >> 2] += 1
    row[COUNTS:COUNTS + 10] = counts
    for t in (0, 1):
        row[PILE_LEN + t] = len(state.piles[t])
        _put(row, PILES + t * PILE_SLOTS, state.piles[t])
    order = tuple(sorted(state.stock)) if stock_order is None else tuple(stock_order)
    if sorted(order) != sorted(state.stock):
        raise ValueError("the stock order must hold the state's stock")
    held = set(order)
    deck = [c for c in range(DECK_SIZE) if c not in held] + list(order)
    row[DECK_POS] = DECK_SIZE - len(order)
    row[DECK:DECK + DECK_SIZE] = deck
    row[DECK_HAND] = state.hand_no
    row[DISC_LEN] = len(state.discarded)
    _put(row, DISC, state.discarded)
    return row


def _cards(row: np.ndarray, start: int, length) -> tuple:
    return tuple(int(c) for c in row[start:start + int(length)])


def from_row(row: np.ndarray, rules: Rules) -> State:
    """The engine's State of a lane row (the stock sorted, as the engine keeps it)."""
    n = rules.players
    hands = tuple(_cards(row, HANDS + s * HAND_SLOTS, row[HAND_LEN + s]) for s in range(n))
    played = tuple(_cards(row, PLAYED + s * HAND_SLOTS, row[PLAYED_LEN + s]) for s in range(n))
    table = _cards(row, TABLE, row[TABLE_LEN])
    piles = tuple(_cards(row, PILES + t * PILE_SLOTS, row[PILE_LEN + t]) for t in (0, 1))
    stock = tuple(sorted(int(c) for c in row[DECK + int(row[DECK_POS]):DECK + DECK_SIZE]))
    return State(rules, int(row[HAND_NO]), int(row[DEALER]), int(row[DEAL_NO]), int(row[TURN]), hands, table,
                 pack(c >> 2 for c in table), stock, piles, (int(row[SCORES]), int(row[SCORES + 1])),
                 int(row[TRAILED]), tuple(int(r) for r in row[RONDAS:RONDAS + n]), played, int(row[LAST_CAPTURER]),
                 int(row[WINNER]), _cards(row, DISC, row[DISC_LEN]), int(row[PLAYS]))


def events_of(events: np.ndarray, count: int, cards: np.ndarray) -> tuple:
    """The engine's events of `count` event rows (`cards`: the step's card buffer, [2, 40] with lengths in column
    0 of each event that uses it, see play.py)."""
    out = []
    for kind, a, b, c, d, e, f, _ in events[:count].tolist():
        if kind == EV_DEALT:
            out.append(Dealt(a, b, c))
        elif kind == EV_RONDA:
            out.append(Ronda(a, b, c, "doble_ronda" if d else "ronda"))
        elif kind == EV_FOUR:
            out.append(FourOfAKind(a, b))
        elif kind == EV_PLAYED:
            out.append(Played(a, b, c, tuple(int(x) for x in cards[0, :d])))
        elif kind == EV_CAIDA:
            out.append(Caida(a, b, c, d))
        elif kind == EV_LIMPIA:
            out.append(Limpia(a, b, c))
        elif kind == EV_HAND_ENDED:
            out.append(HandEnded(a, (b, c), tuple(int(x) for x in cards[1, :f]), (d, e)))
        elif kind == EV_GAME_WON:
            out.append(GameWon(a, (b, c)))
        else:
            raise ValueError(f"unknown event kind {kind}")
    return tuple(out)
