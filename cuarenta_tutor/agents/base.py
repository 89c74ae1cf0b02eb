"""Provides BasePolicy: the plumbing the bots share (an injected RNG, a seat, no memory)."""

from __future__ import annotations

import random

from ..engine import State
from ..table import Decision


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
