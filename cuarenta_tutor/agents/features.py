"""Provides the move features the observation carries (encoding.py, slots 106-635: what the expert reckons of each
legal move of the seat on turn), and `encode` / `encode_into`, the observation with them filled in.

The encoder takes these features as input and never calls a bot: the bots sit above it.
"""

from __future__ import annotations

import numpy as np

from .. import encoding
from ..encoding import BASE_SIZE, ENCODING_VERSION, MOVE_FEATURES, N_ACTIONS, SIZES
from ..engine import State
from .expert import move_terms
from .known import known_means, plays_out, sampled_means


def move_features(state: State, version: int = ENCODING_VERSION) -> list:
    """Slots 106-635 of the observation: the move features of every legal action of the seat on turn."""
    v = [0.0] * (N_ACTIONS * MOVE_FEATURES)
    how = plays_out(state, version)
    known = known_means(state) if how == "known" else sampled_means(state) if how == "sampled" else None
    for a, t in move_terms(state).items():
        i = a * MOVE_FEATURES
        value = known[a] if known else t.value
        v[i:i + MOVE_FEATURES] = (1.0, t.points / 4, t.cards / 10, t.carton / 4, t.threat / 4, float(t.keep > 0),
                                  float(t.won), float(t.limpia), t.table_left / 10, value_feature(value))
    return v


def value_feature(value: float) -> float:
    """A move's last feature: its estimate or outcome in points, a quarter of it, within -5 to 5."""
    return min(5.0, max(-5.0, value / 4))


def encode_into(out: np.ndarray, state: State, seat: int, version: int | None = None) -> np.ndarray:
    """encoding.encode_into with the move features of the seat on turn filled in where `out` has room for them."""
    version = version or (1 if out.shape[-1] == BASE_SIZE else ENCODING_VERSION)
    wanted = out.shape[-1] > BASE_SIZE and state.turn == seat and not state.is_over
    return encoding.encode_into(out, state, seat, move_features(state, version) if wanted else None)


def encode(state: State, seat: int, version: int = ENCODING_VERSION) -> np.ndarray:
    """The observation of `state` from `seat` in encoding `version`, as a new float32 vector."""
    return encode_into(np.empty(SIZES[version], dtype=np.float32), state, seat, version)
