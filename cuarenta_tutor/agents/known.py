"""Provides known_means: where the seat on turn knows every card (engine.knows_every_card: 1 v 1, the stock
empty), each legal move's outcome played out to the deal's end in the one true world, which is the state
itself, by experts: what the search bot (agents/search.py) scores in every world it draws there, without drawing.
Encoding version 3 reads it as a move feature; it imports the engine and the expert only, as the encoding may.

The outcome is the change in the score difference (the mover's team minus the other) to the deal's end, cartón
included, plus a whole game's worth when the game is won or lost on the way, and the captured-card difference at
the expert's card weight while the hand goes on.
"""

from __future__ import annotations

from ..engine import TARGET_SCORE, State, apply, legal_actions
from .expert import CARD_WEIGHT, ExpertPolicy

WIN_OUTCOME = float(TARGET_SCORE)
"""Worth, in points of score difference, of winning (or losing) the game inside a playout: a whole game's."""

_EXPERT = ExpertPolicy()


def known_means(state: State) -> dict[int, float]:
    """Each legal move's outcome for the mover's team, experts playing the rest of the deal in `state`."""
    team = state.turn & 1
    out = {}
    for a in legal_actions(state):
        after, _ = apply(state, a)
        while after.winner < 0 and not after.needs_deal:
            after, _ = apply(after, _EXPERT.decide(after).action)
        out[a] = deal_outcome(after, state, team)
    return out


def deal_outcome(state: State, world: State, team: int) -> float:
    """`team`'s outcome of the plays from `world` to `state`, the end of the deal (the module's docstring)."""
    diff = state.scores[team] - state.scores[1 - team] - (world.scores[team] - world.scores[1 - team])
    if state.winner >= 0:
        return diff + (WIN_OUTCOME if state.winner == team else -WIN_OUTCOME)
    if state.hand_no != world.hand_no:
        return diff
    cards = len(state.piles[team]) - len(state.piles[1 - team])
    return diff + CARD_WEIGHT * (cards - (len(world.piles[team]) - len(world.piles[1 - team])))
