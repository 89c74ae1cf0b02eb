"""Provides the playout policy: the network's choices in the analysis's playouts, distilled into a scorer of each
legal move's 10 features (core/scorer.py), kept in the model's sidecar as "playout_policy".

Where the analysis values each hand's end by the table, its playouts only need the move each seat plays until
then. The network made that choice from its memory and every seat's observation, one batched LSTM step a ply for
every seat of every lane: most of a hint's time. The scorer makes the same choice in about 92 of 100 playout
positions (its sidecar says how many, held out) from the move features alone, with no network call, so a lane is
played to the hand's end in the compiled core. The deep reference still plays the network to the game's end, so
the analysis's measured error (calibrate.py) includes what the scorer changes. training/distil.py fits it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.scorer import N_FEATURES, pick, size
from ..engine import State, legal_actions
from ..i18n import _

MAX_HIDDEN = 256


@dataclass(frozen=True, eq=False)
class PlayoutPolicy:
    """A scorer's parameters (core/scorer.py `size(hidden)` of them, float64) and how often it chose as the network
    did on held-out playout positions (`agreement`, 0..1)."""

    hidden: int
    params: np.ndarray
    agreement: float = 0.0
    held_out: int = 0
    """The held-out playout rows `agreement` was measured on."""

    def to_json(self) -> dict:
        return {"hidden": self.hidden, "params": [float(x) for x in self.params], "agreement": self.agreement,
                "held_out": self.held_out}

    @classmethod
    def from_json(cls, data) -> PlayoutPolicy:
        """The policy `data` describes; ValueError (saying what is wrong) for one that is not a whole scorer."""
        if not isinstance(data, dict):
            raise ValueError(_("its playout policy is not a JSON object"))
        hidden, params = data.get("hidden"), data.get("params")
        if not isinstance(hidden, int) or isinstance(hidden, bool) or not 1 <= hidden <= MAX_HIDDEN:
            raise ValueError(_("its playout policy's hidden size must be a whole number 1-{most}, not "
                               "{hidden!r}").format(most=MAX_HIDDEN, hidden=hidden))
        if not isinstance(params, list) or len(params) != size(hidden):
            raise ValueError(_("its playout policy needs {n} parameters for {hidden} hidden units").format(
                n=size(hidden), hidden=hidden))
        if not all(isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) for x in params):
            raise ValueError(_("its playout policy has a parameter that is not a finite number"))
        values = np.array(params, dtype=np.float64)
        values.flags.writeable = False
        return cls(hidden, values, float(data.get("agreement", 0.0)), int(data.get("held_out", 0)))

    def __post_init__(self):
        object.__setattr__(self, "listed", self.params.tolist())
        """The parameters as Python floats, for `choose` (the same numbers as the compiled core reads)."""

    def choose(self, state: State, move_features) -> int:
        """The scorer's move for the seat on turn in `state` (the Python core's): `move_features(state)` gives the 530
        move-feature slots, as the network would have read them."""
        legal = sorted(legal_actions(state))
        if len(legal) == 1:
            return legal[0]
        slots = np.asarray(move_features(state), dtype=np.float32).astype(np.float64).reshape(-1, N_FEATURES)
        features = slots[legal].tolist()
        scorer = getattr(pick, "py_func", pick)  # the same loops, uncompiled: no compile on the Python core's path
        return int(scorer(features, legal, len(legal), self.listed, self.hidden))


def read_policy(data: dict) -> PlayoutPolicy | None:
    """A sidecar's playout policy, None where it has none or a damaged one (values._sidecar reports which)."""
    try:
        return PlayoutPolicy.from_json(data["playout_policy"]) if "playout_policy" in data else None
    except ValueError:
        return None
