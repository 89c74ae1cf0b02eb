"""Provides known_means: where the seat on turn knows every card (engine.knows_every_card: 1 v 1, the stock
empty), each legal move's outcome played out to the deal's end in the one true world, which is the state
itself, by experts: what the search bot (agents/search.py) scores in every world it draws there, without drawing.
And sampled_means: the same averaged over worlds drawn from what the seat knows, where the stock is empty but
other hands are hidden (2 v 2's last deal) and few cards are left (SAMPLED_HAND). Encoding version 3 reads the
first as a move feature, version 4 both; this module imports the engine and the expert only, as the encoding may.

The outcome is the change in the score difference (the mover's team minus the other) to the deal's end, cartón
included, plus a whole game's worth when the game is won or lost on the way, and the captured-card difference at
the expert's card weight while the hand goes on.
"""

from __future__ import annotations

import random
import struct

from ..engine import TARGET_SCORE, State, apply, determinize, knows_every_card, legal_actions
from .expert import CARD_WEIGHT, ExpertPolicy

WIN_OUTCOME = float(TARGET_SCORE)
"""Worth, in points of score difference, of winning (or losing) the game inside a playout: a whole game's."""

SAMPLED_WORLDS = 16
"""Worlds sampled_means draws."""
SAMPLED_HAND = 3
"""sampled_means applies once the hand on turn holds this many cards or fewer: with more left the playouts are long
and the worlds many, and they mislead the network (generation 6's weights in 2 v 2 against the expert, 1,000 games
of `arena onnx expert --players 4 --seed 3`: 0.615 at 3 cards or fewer, 0.596 at 4, 0.584 at 2, 0.556 never; with
8 worlds at every hand size 0.490 over 600 games of seed 1)."""

_EXPERT = ExpertPolicy()


def known_means(state: State) -> dict[int, float]:
    """Each legal move's outcome for the mover's team, experts playing the rest of the deal in `state`."""
    team = state.turn & 1
    out = {}
    for a in legal_actions(state):
        after, _ = apply(state, a)
        while not after.is_over and not after.needs_deal:
            after, _ = apply(after, _EXPERT.decide(after).action)
        out[a] = deal_outcome(after, state, team)
    return out


def deal_outcome(state: State, world: State, team: int) -> float:
    """`team`'s outcome of the plays from `world` to `state`, the end of the deal (the module's docstring)."""
    return end_outcome(state.scores, state.winner, state.hand_no, tuple(map(len, state.piles)), world, team)


def end_outcome(scores, winner: int, hand_no: int, piles: tuple, world: State, team: int) -> float:
    """deal_outcome of an end given by its `scores`, `winner` (-1: none yet), `hand_no` and pile sizes (the compiled
    search's playouts end as numbers, core/search.py)."""
    diff = scores[team] - scores[1 - team] - (world.scores[team] - world.scores[1 - team])
    if winner >= 0:
        return diff + (WIN_OUTCOME if winner == team else -WIN_OUTCOME)
    if hand_no != world.hand_no:
        return diff
    cards = piles[team] - piles[1 - team]
    return diff + CARD_WEIGHT * (cards - (len(world.piles[team]) - len(world.piles[1 - team])))


def plays_out(state: State, version: int) -> str | None:
    """Which outcomes encoding `version` reads for the seat on turn: "known" where it knows every card (version 3
    on), "sampled" where the stock is empty and its hand is down to SAMPLED_HAND cards (version 4 on), else None
    (the one-reply estimate)."""
    if state.stock or version < 3:
        return None
    if knows_every_card(state):
        return "known"
    return "sampled" if version >= 4 and len(state.hands[state.turn]) <= SAMPLED_HAND else None


def sampled_means(state: State, worlds: int = SAMPLED_WORLDS) -> dict[int, float]:
    """Each legal move's outcome for the mover's team averaged over `worlds` worlds drawn from what the seat on
    turn knows (engine.determinize), experts playing the rest of the deal in each. The draws are seeded by that
    knowledge alone, so the same knowledge gives the same numbers and the hidden cards never change them."""
    total: dict[int, float] = {}
    for world in sampled_worlds(state, worlds):
        for a, m in known_means(world).items():
            total[a] = total.get(a, 0.0) + m
    return {a: m / worlds for a, m in total.items()}


def sampled_worlds(state: State, worlds: int = SAMPLED_WORLDS) -> list[State]:
    """The worlds sampled_means plays in: drawn from what the seat on turn knows, seeded by that knowledge alone."""
    rng = random.Random(knowledge_key(state, state.turn))
    return [determinize(state, state.turn, rng).state for _ in range(worlds)]


def knowledge_key(state: State, seat: int) -> bytes:
    """Bytes made of what `seat` knows of `state` (its hand, the table, both piles, what each seat played, the
    hand sizes, the scores, who announced a ronda), the same in every process."""
    known = [*state.hands[seat], 99, *state.table, 99, *state.piles[0], 99, *state.piles[1], 99,
             *(len(h) for h in state.hands), *state.scores, *(r >= 0 for r in state.rondas), state.rondas[seat] + 1,
             state.trailed + 1, state.turn, state.hand_no, state.deal_no]
    for played in state.played:
        known += [99, *played]
    return struct.pack(f"={len(known)}H", *known)  # a bytes seed: random.Random hashes it, alike in every process
