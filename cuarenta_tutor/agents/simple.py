"""Provides the two baseline bots: uniform random, and greedy (most points now, then most cards)."""

from __future__ import annotations

from ..engine import ACTION_RANK, Played, State, legal_actions, play_events, play_points
from ..table import Decision
from .base import BasePolicy


class RandomPolicy(BasePolicy):
    """Uniform over the legal actions."""

    name = "random"

    def decide(self, state: State) -> Decision:
        legal = legal_actions(state)
        p = 1.0 / len(legal)
        return Decision(self.rng.choice(legal), {a: p for a in legal}, model_id=self.name)


def immediate_gain(state: State, action: int) -> tuple[int, int]:
    """(points the play scores for the mover's team, cards it captures), by playing it in the engine."""
    events = play_events(state, action)
    played = next(e for e in events if isinstance(e, Played))
    return play_points(events), len(played.captured) + 1 if played.captured else 0


class GreedyPolicy(BasePolicy):
    """Most points now, then most cards captured, then the higher rank (a fixed tie-break)."""

    name = "greedy"

    def decide(self, state: State) -> Decision:
        legal = legal_actions(state)
        best = max(legal, key=lambda a: (*immediate_gain(state, a), ACTION_RANK[a], -a))
        return Decision(best, {a: float(a == best) for a in legal}, model_id=self.name)
