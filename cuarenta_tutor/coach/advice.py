"""Provides the hints a person sees: every legal move with the key that plays it, what it does now, its win %
(the network's at once, the analysis's once refined, with its interval) and what it risks next.

The first hint is the best by the numbers it shows: the highest win %. Refined hints come from the
possible-worlds analysis (analysis/), the quick ones from one forward pass of the network, shown on the analysis's
scale (analysis/onepass.py) and never with a class.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import ACTION_RANK, State, legal_actions, play_events
from ..narrator import Narrator, cards, move_name


@dataclass(frozen=True)
class Hint:
    """One legal move as shown to the person."""

    action: int
    name: str
    key: str
    """The key that plays it (the card's place in the hand; a capture choice may follow)."""
    does: str
    """What it does now: "trails", "takes 3♥ 4♠, caída +2"."""
    win_pct: float
    ci95: tuple | None = None
    """The interval of win_pct, once refined."""
    caida_risk: float | None = None
    """Chance that the other side's next play is a caída (refined only)."""
    limpia_risk: float | None = None
    refined: bool = False
    cut: bool = False
    """The analysis behind a refined hint was cut short by its time cap (fewer worlds than planned)."""

    @property
    def margin(self) -> float | None:
        """Half the interval's width ("62% ±3")."""
        return None if self.ci95 is None else (self.ci95[1] - self.ci95[0]) / 2


def key_of(state: State, action: int) -> str:
    """The key of the first card of the move's rank in the hand of the seat on turn."""
    rank = ACTION_RANK[action]
    return str(next(i for i, c in enumerate(state.hands[state.turn], 1) if c >> 2 == rank))


def does(state: State, action: int) -> str:
    """What a move does at once, in the narrator's words ("takes 3♥ 4♠, caída +2")."""
    events = play_events(state, action)
    taken = events[0].captured
    head = f"takes {cards(taken)}" if taken else "trails"
    return ", ".join([head, *Narrator(state.rules).notes(events)])


def quick_hints(state: State, decision, scale=None) -> list[Hint]:
    """Every legal move with the network's win % after it (one forward pass), best first; `scale` maps the network's
    value onto the analysis's win % (analysis.onepass.scale; None: the network's own, 100 * value)."""
    legal = legal_actions(state)
    scale = scale or (lambda v: 100.0 * v)
    hints = [Hint(a, move_name(state, a), key_of(state, a), does(state, a), scale(decision.action_values[a]))
             for a in legal]
    return sorted(hints, key=lambda h: (-h.win_pct, h.action))


def refined_hints(state: State, analysis) -> list[Hint]:
    """Every legal move with the analysis's win %, interval and risks, best first."""
    hints = [Hint(m.action, m.name, key_of(state, m.action), does(state, m.action), m.win_pct, m.ci95,
                  m.caida_risk, m.limpia_risk, True, analysis.cut) for m in analysis.moves]
    return sorted(hints, key=lambda h: (-h.win_pct, h.action))
