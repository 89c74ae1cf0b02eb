"""Provides the observation encoding: a state seen from one seat, as a float32 vector, and the legal mask.

Everything here is what that seat may know: its own hand, the table, the cards captured this hand
(so every card seen can be counted), the card the previous player just trailed, the scores and
cartón counts with the 30/38 thresholds, the deal and the stock, who deals, its own ronda and whether
another seat announced one (never the rank), and the rules options that change play. Hidden cards
never reach the vector (tests reshuffle them and compare).

| slice     | size | meaning                                                      | scaling         |
|-----------|------|--------------------------------------------------------------|-----------------|
| 0-9       | 10   | own hand, count per rank A..K                                | / 4             |
| 10-19     | 10   | table, count per rank                                        | / 4             |
| 20-29     | 10   | captured this hand by own team, per rank                     | / 4             |
| 30-39     | 10   | captured this hand by the other team, per rank               | / 4             |
| 40-49     | 10   | unseen by this seat (other hands + stock), per rank          | / 4             |
| 50-59     | 10   | rank just trailed by the previous player (caída target)      | one-hot         |
| 60-69     | 10   | own ronda rank this deal                                     | one-hot         |
| 70        | 1    | another seat announced a ronda this deal (other team)        | 0/1             |
| 71        | 1    | partner announced a ronda this deal (4 players)              | 0/1             |
| 72-73     | 2    | score: own team, other team                                  | / 40            |
| 74-77     | 4    | own >= 30, own >= 38, other >= 30, other >= 38               | 0/1             |
| 78-79     | 2    | cards captured this hand: own team, other team               | / 40            |
| 80-81     | 2    | own pile >= 20, other pile >= 20                             | 0/1             |
| 82-85     | 4    | deal number within the hand                                  | one-hot         |
| 86        | 1    | cards left in the stock                                      | / 40            |
| 87        | 1    | cards in own hand                                            | / 5             |
| 88        | 1    | cards in the next player's hand                              | / 5             |
| 89        | 1    | this seat deals this hand                                    | 0/1             |
| 90        | 1    | own team deals this hand                                     | 0/1             |
| 91        | 1    | it is this seat's turn                                       | 0/1             |
| 92        | 1    | table is empty                                               | 0/1             |
| 93        | 1    | rules: caída y limpia stack (4 points)                       | 0/1             |
| 94        | 1    | rules: ronda points                                          | / 4             |
| 95        | 1    | rules: ronda cut-off (none = 1)                              | / 40            |
| 96        | 1    | rules: four of a kind wins                                   | 0/1             |
| 97        | 1    | rules: ronda-caída bonus                                     | / 10            |
| 98        | 1    | rules: cartón cut-off (none = 1)                             | / 40            |
| 99        | 1    | rules: limpia cut-off (none = 1)                             | / 40            |
| 100       | 1    | rules: sums of 2 cards only                                  | 0/1             |
| 101       | 1    | rules: a match takes every card of the rank                  | 0/1             |
| 102       | 1    | rules: forced capture                                        | 0/1             |
| 103       | 1    | rules: leftovers go to the last capturer                     | 0/1             |
| 104       | 1    | rules: 4 players                                             | 0/1             |
| 105       | 1    | game over                                                    | 0/1             |
| 106-635   | 530  | for each of the 53 actions, 10 move features (below)         | see below       |

The move features (encoding version 2) are filled only for the seat on turn, and only for its legal
actions (action a at 106 + 10a): what the expert (agents/expert.py) reckons of the move from what
the seat may know (another seat's ronda counts as not announced: its rank, and so a caída's bonus on
it, is secret). 0: legal (1); 1: points scored now / 4; 2: cards taken, the played one included,
/ 10; 3: their worth in the cartón race / 4; 4: the threat, what the next player can expect to take
back from the table left / 4; 5: a trail keeping a card of its rank in hand (0/1); 6: wins the game
(0/1); 7: empties the table (0/1); 8: cards left on the table / 10; 9: the expert's whole estimate
in points / 4, clipped to [-5, 5]. A network reads these for each move beside the state, so it
need not work out alone what every move takes and leaves.

Encoding version 3 (the same size) differs in one place: where the seat on turn knows every card
(engine.knows_every_card: 1 v 1, the stock empty, the last deal of a hand), move feature 9 is the move's
outcome played out to the deal's end in the one true world (agents/known.py: experts play the
rest; the change in score difference, a captured card at the expert's card weight, a game won or lost at
40) / 4, clipped to [-5, 5], instead of the one-reply estimate.

Encoding version 4 (the same size) also plays the moves out where the stock is empty but other hands are hidden
(2 v 2's last deal) once the hand on turn is down to 3 cards (agents/known.py SAMPLED_HAND): move feature 9 is
then each move's outcome averaged over 16 worlds drawn from what the seat knows (agents/known.py sampled_means,
seeded by that knowledge, so hidden cards never change it). In 1 v 1 versions 3 and 4 are the same vector.
Versions 1 (slots 0-105 only), 2 and 3 are still read, for older models.
"""

from __future__ import annotations

import functools
import struct

import numpy as np

from .engine import CARTON_CARDS, N_ACTIONS, TARGET_SCORE, Rules, State, legal_actions
from .engine.cards import DECK_SIZE

ENCODING_VERSION = 4
BASE_SIZE = 106
"""Slots 0-105: the state (encoding version 1 has only these)."""
MOVE_FEATURES = 10
OBS_SIZE = BASE_SIZE + N_ACTIONS * MOVE_FEATURES
SIZES = {1: BASE_SIZE, 2: OBS_SIZE, 3: OBS_SIZE, 4: OBS_SIZE}
"""The observation size of each encoding version this code reads."""
MOVE_BOUNDS = ((0, 1), (0, 5), (0, 4), (0, 4), (0, 40), (0, 1), (0, 1), (0, 1), (0, 4), (-5, 5))
"""The range of each move feature (the threat / 4 passes 25 when the next player may win the game)."""

__all__ = ["ENCODING_VERSION", "OBS_SIZE", "BASE_SIZE", "MOVE_FEATURES", "MOVE_BOUNDS", "SIZES", "N_ACTIONS", "encode",
           "encode_into", "legal_mask", "INDEX_MAP"]

INDEX_MAP = [line.strip("| ").split("|")[0].strip() for line in __doc__.splitlines()
             if line.startswith("| ") and line[2].isdigit()]
"""The slice column of the docstring table (kept in the model card)."""


STANDARD = Rules()
MARKS = (STANDARD.carton_cutoff, STANDARD.limpia_cutoff)
"""The score marks of slots 74-77: the standard preset's cut-offs (30 and 38), fixed so the slots mean the same
under every preset (the rules slots 93-104 say what each preset does at them)."""


def _cut(value) -> float:
    return 1.0 if value is None else value / TARGET_SCORE


@functools.cache
def _rules_tail(rules) -> tuple:
    """Slots 93-104 (the rules options), computed once per Rules value."""
    return (float(rules.caida_limpia_stack), rules.ronda_points / 4, _cut(rules.ronda_cutoff),
            float(rules.four_of_a_kind == "win"), rules.ronda_caida_bonus / 10, _cut(rules.carton_cutoff),
            _cut(rules.limpia_cutoff), float(rules.sum_max_cards == 2), float(rules.match_takes_all_same_rank),
            float(rules.forced_capture), float(rules.leftover_table_cards == "last_capturer"),
            float(rules.players == 4))


def encode_into(out: np.ndarray, state: State, seat: int, moves=None) -> np.ndarray:
    """Fill `out` (float32, BASE_SIZE or OBS_SIZE long) with the observation of `state` from `seat`; returns `out`.

    `moves` are the move features (slots 106-635) of the seat on turn, as the bots reckon them in the encoding
    version wanted (agents.features.move_features, which also wraps this function to fill them): they are needed
    when `seat` is on turn in a game not over and `out` has room for them, and never computed here (the versions of
    one size differ only in them).

    The vector is built as a Python list and written once with struct: numpy item writes cost far
    more, and training encodes two observations per play."""
    v = [0.0] * 50
    team = seat & 1
    for c in state.hands[seat]:
        v[c >> 2] += 0.25
    for c in state.table:
        v[10 + (c >> 2)] += 0.25
    own_cards, other_cards = state.piles[team], state.piles[1 - team]
    for c in own_cards:
        v[20 + (c >> 2)] += 0.25
    for c in other_cards:
        v[30 + (c >> 2)] += 0.25
    for r in range(10):
        v[40 + r] = 1.0 - v[r] - v[10 + r] - v[20 + r] - v[30 + r]
    v += _ZEROS_50_92
    if state.trailed >= 0:
        v[50 + state.trailed] = 1.0
    n = state.rules.players
    rondas = state.rondas
    if rondas[seat] >= 0:
        v[60 + rondas[seat]] = 1.0
    v[70] = float(any(rondas[s] >= 0 for s in range(n) if (s & 1) != team))
    if n == 4:
        v[71] = float(any(rondas[s] >= 0 for s in range(n) if s != seat and (s & 1) == team))
    mine, theirs = state.scores[team], state.scores[1 - team]
    low, high = MARKS
    v[72], v[73] = mine / TARGET_SCORE, theirs / TARGET_SCORE
    v[74], v[75], v[76], v[77] = float(mine >= low), float(mine >= high), float(theirs >= low), float(theirs >= high)
    own_pile, other_pile = len(own_cards), len(other_cards)
    v[78], v[79] = own_pile / DECK_SIZE, other_pile / DECK_SIZE
    v[80], v[81] = float(own_pile >= CARTON_CARDS), float(other_pile >= CARTON_CARDS)
    v[82 + min(state.deal_no, 3)] = 1.0
    v[86] = len(state.stock) / DECK_SIZE
    v[87] = len(state.hands[seat]) / 5
    v[88] = len(state.hands[(seat + 1) % n]) / 5
    v[89] = float(state.dealer == seat)
    v[90] = float((state.dealer & 1) == team)
    v[91] = float(state.turn == seat and not state.is_over)
    v[92] = float(not state.table)
    v += _rules_tail(state.rules)
    v.append(float(state.is_over))
    if out.shape[-1] > BASE_SIZE:
        if state.turn == seat and not state.is_over:
            if moves is None:
                raise ValueError("the seat on turn needs its move features: use agents.features.encode_into")
            v += moves
        else:
            v += _ZEROS_MOVES
    if out.dtype == np.float32 and out.flags.c_contiguous:
        (_PACK if len(v) == OBS_SIZE else _PACK_BASE).pack_into(out, 0, *v)
    else:
        out[:] = v
    return out


_PACK = struct.Struct(f"={OBS_SIZE}f")
_PACK_BASE = struct.Struct(f"={BASE_SIZE}f")
_ZEROS_MOVES = [0.0] * (N_ACTIONS * MOVE_FEATURES)
_ZEROS_50_92 = [0.0] * 43
"""Slots 50-92, filled in place by encode_into."""


def encode(state: State, seat: int, version: int = ENCODING_VERSION, moves=None) -> np.ndarray:
    """The observation of `state` from `seat` (any seat, its turn or not) in encoding `version`, as a new float32
    vector (`moves` as encode_into takes them)."""
    return encode_into(np.empty(SIZES[version], dtype=np.float32), state, seat, moves)


def legal_mask(state: State) -> np.ndarray:
    """A bool vector over the action table: True for the legal actions of the seat on turn."""
    mask = np.zeros(N_ACTIONS, dtype=bool)
    mask[list(legal_actions(state))] = True
    return mask
