"""Provides the search bot: perfect-information Monte Carlo (PIMC) over sampled deals.

For each of N deals of the unseen cards consistent with what the seat knows (see knowledge.py),
every legal move is played out to the end of the hand with the expert for every seat; the move
with the best mean outcome wins. The outcome is the change in the score difference (mover's team
minus the other) to the end of the hand, cartón included, plus a large bonus or penalty when the
game is won or lost on the way. Every move is scored on the same N deals (common random numbers),
and ties go to the expert's own preference. It never reads a hidden card: the deals are drawn from
the sorted unseen cards with the policy's own RNG.
"""

from __future__ import annotations

from ..engine import Dealt, GameWon, HandEnded, State, apply, legal_actions
from .base import BasePolicy, Decision
from .expert import CARD_WEIGHT, ExpertPolicy, move_values
from .knowledge import determinize

WIN_OUTCOME = 40.0
"""Worth, in points of score difference, of winning (or losing) the game inside a playout."""


class SearchPolicy(BasePolicy):
    """PIMC with `samples` sampled deals per decision, expert playouts to the end of the hand."""

    DEFAULT_SAMPLES = 48

    def __init__(self, samples: int = DEFAULT_SAMPLES, rng=None, horizon: str = "deal"):
        super().__init__(rng)
        if horizon not in ("deal", "hand"):
            raise ValueError("horizon must be 'deal' or 'hand'")
        self.horizon = horizon
        if samples < 1:
            raise ValueError("search needs at least one sampled deal")
        self.samples = samples
        self.name = f"search:{samples}"
        self._rollout = ExpertPolicy()

    def decide(self, state: State) -> Decision:
        legal = legal_actions(state)
        if len(legal) == 1:
            return Decision(legal[0], {legal[0]: 1.0}, model_id=self.name)
        seat = state.turn
        team = seat & 1
        totals = dict.fromkeys(legal, 0.0)
        for _ in range(self.samples):
            world = determinize(state, seat, self.rng)
            for a in legal:
                totals[a] += self._playout(world, a, team)
        prefer = move_values(state)
        best = max(legal, key=lambda a: (round(totals[a], 6), prefer[a], -a))
        return Decision(best, {a: float(a == best) for a in legal}, model_id=self.name)

    def _playout(self, world: State, action: int, team: int) -> float:
        """Outcome for `team` of playing `action` in `world`, then expert play to the horizon: the change
        in score difference, plus (at a deal horizon) the captured-card difference at the expert's
        card weight."""
        start = world.scores[team] - world.scores[1 - team]
        piles = len(world.piles[team]) - len(world.piles[1 - team])
        state, events = apply(world, action)
        decide = self._rollout.decide
        stop_at_deal = self.horizon == "deal"
        while True:
            for e in events:
                if isinstance(e, GameWon):
                    diff = state.scores[team] - state.scores[1 - team] - start
                    return diff + (WIN_OUTCOME if e.team == team else -WIN_OUTCOME)
                if isinstance(e, HandEnded):
                    return state.scores[team] - state.scores[1 - team] - start
                if stop_at_deal and isinstance(e, Dealt):
                    cards = len(state.piles[team]) - len(state.piles[1 - team]) - piles
                    return state.scores[team] - state.scores[1 - team] - start + CARD_WEIGHT * cards
            state, events = apply(state, decide(state).action)
