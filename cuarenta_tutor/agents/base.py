"""Provides the Policy protocol every player implements and the Decision record it returns."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from ..engine import State


@dataclass(frozen=True)
class Decision:
    """What a policy chose, and what it thinks of the position (for hints, review and calibration)."""

    action: int
    """The chosen action id."""
    probs: dict[int, float] = field(default_factory=dict)
    """Probability of every legal action (empty when the policy has none to give)."""
    value: float | None = None
    """Win probability of the deciding seat's team before the move, if the policy estimates one."""
    action_values: dict[int, float] = field(default_factory=dict)
    """Win probability after each legal action, from the mover's point of view."""
    model_id: str = ""
    """Which policy or model made the decision (a model's sha256 for the ONNX agent)."""


@runtime_checkable
class Policy(Protocol):
    """A player: `reset` before a game, `observe` every play and deal, `decide` on its turns."""

    name: str

    def reset(self, seat: int, seed: int | None = None) -> None:
        """Start a game in `seat`; `seed` re-seeds the policy's own RNG (duplicate matches need it)."""

    def observe(self, state: State, events: tuple) -> None:
        """See the events of a play (any seat's) and the state after it."""

    def decide(self, state: State) -> Decision:
        """Choose a legal action for the seat on turn."""


class BasePolicy:
    """Shared plumbing: an injected RNG, a seat, and no memory to keep."""

    name = "base"

    def __init__(self, rng: random.Random | None = None):
        self.rng = rng or random.Random(0)
        self.seat = 0

    def reset(self, seat: int, seed: int | None = None) -> None:
        self.seat = seat
        if seed is not None:
            self.rng.seed(seed)

    def observe(self, state: State, events: tuple) -> None:
        del state, events  # Stateless policies remember nothing.

    def decide(self, state: State) -> Decision:  # pragma: no cover - abstract
        raise NotImplementedError
