"""Provides a plain-text rendering of a state from one seat's point of view (others' cards hidden)."""

from __future__ import annotations

from .cards import card_str
from .state import State


def render(state: State, seat: int, ascii_only: bool = False) -> str:
    """The position as `seat` sees it: own hand, table, others' card counts, scores, piles, stock."""
    n = state.rules.players
    show = lambda cards: " ".join(card_str(c, ascii_only) for c in cards) or "-"  # noqa: E731
    lines = [
        f"Hand {state.hand_no + 1}, deal {state.deal_no + 1}/{state.rules.deals_per_hand}, "
        f"dealer: seat {state.dealer}, stock: {len(state.stock)} cards",
        f"Score  team 0: {state.scores[0]}  team 1: {state.scores[1]}   "
        f"(captured this hand: {len(state.piles[0])} / {len(state.piles[1])})",
        f"Table: {show(state.table)}",
    ]
    for s in range(n):
        if s == seat:
            lines.append(f"Seat {s} (you, team {s & 1}): {show(state.hands[s])}")
        else:
            lines.append(f"Seat {s} (team {s & 1}): {len(state.hands[s])} cards")
    if state.is_over:
        lines.append(f"Game over: team {state.winner} wins {state.scores[0]}-{state.scores[1]}")
    elif state.needs_deal:
        lines.append(f"Next: seat {state.dealer} deals; seat {state.turn} leads")
    else:
        lines.append(f"To play: seat {state.turn}")
    return "\n".join(lines)
