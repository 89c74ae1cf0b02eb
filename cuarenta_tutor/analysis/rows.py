"""Provides lanes as rows of the compiled core (core/layout.py) for the analysis's playouts (playout.py plays them):
every candidate move played in every world, the deals they bring, and the lanes that need no network valued (the
game over, or the hand ended where a leaf values it).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.layout import DEALER, HAND_NO, SCORES, WINNER
from ..engine import seeded_deck


class HandEnd(NamedTuple):
    """What a leaf reads of a lane at the end of a hand (HandValues.win: the scores and the next dealer)."""

    scores: tuple
    dealer: int


class RowLanes:
    """Lanes as rows of the compiled core (core/layout.py): lane `w * moves + m` is world w after candidate move m.
    `value`, `points`, `leaf_se`, `caida`, `limpia`, `plies`, `deals` per lane as Lane has them (`caida`/`limpia`:
    the other team's first reply made one)."""

    def __init__(self, rows: np.ndarray, rules, seeds):
        from ..core.encode import rules_tail
        from ..core.layout import rules_array

        count = len(rows)
        self.rows, self.rules, self.core_rules = rows, rules, rules_array(rules)
        self.tail = rules_tail(rules)
        self.seeds = seeds
        """The seed of each lane's later hands (as Dealer.for_world has it)."""
        self.hand0 = rows[:, HAND_NO].copy()
        self.value = np.full(count, np.nan)
        self.leaf_se = np.zeros(count)
        self.points = np.zeros(count, np.int64)
        self.plies = np.zeros(count, np.int64)
        self.deals = np.zeros(count, np.int64)
        self.caida = np.zeros(count, np.bool_)
        self.limpia = np.zeros(count, np.bool_)
        self.await_deck = np.zeros(count, np.bool_)

    @classmethod
    def after_moves(cls, worlds, actions, team: int, seeds, next_hand: bool) -> RowLanes:
        """Every action played in every world (engine.World), and the deal it brings (start_lane for each)."""
        from ..core.lanes import advance
        from ..core.layout import to_row

        moves = len(actions)
        base = np.stack([to_row(w.state, w.stock_order) for w in worlds])
        lanes = cls(np.repeat(base, moves, axis=0), worlds[0].state.rules, [s for s in seeds for _ in range(moves)])
        everyone = np.arange(len(lanes.rows))
        advance(lanes.rows, everyone, np.tile(np.asarray(actions, np.int32), len(worlds)), lanes.core_rules, team,
                next_hand, True, lanes.plies, lanes.points, lanes.deals, lanes.caida, lanes.limpia, lanes.await_deck)
        lanes.deal_new_hands(everyone, team)
        return lanes

    def deal_new_hands(self, idx: np.ndarray, team: int) -> None:
        """Deal the first cards of a new hand in the lanes that await them, from each lane's seeded deck."""
        from ..core.deal import set_deck
        from ..core.lanes import deal_lanes

        waiting = idx[self.await_deck[idx]]
        if not len(waiting):
            return
        for i in waiting:
            set_deck(self.rows[i], np.asarray(seeded_deck(self.seeds[i], int(self.rows[i, HAND_NO])), np.int32))
        self.await_deck[waiting] = False
        deal_lanes(self.rows, waiting, self.core_rules, team, self.points, self.deals)

    def at_horizon(self, idx: np.ndarray, horizon: str) -> np.ndarray:
        if horizon == "deal":
            return self.deals[idx] > 0
        if horizon == "hand":
            return self.rows[idx, HAND_NO] != self.hand0[idx]
        return np.zeros(len(idx), np.bool_)

    def settle(self, team: int, playouts, idx: np.ndarray | None = None) -> None:
        """Value the lanes that need no network (Playouts._settle, `playouts` a Playouts): over, or past the hand with
        a leaf."""
        idx = np.arange(len(self.rows)) if idx is None else idx
        winner = self.rows[idx, WINNER]  # the columns read, not whole rows: this runs every ply
        over = winner >= 0
        self.value[idx[over]] = (winner[over] == team).astype(float)
        if playouts.leaf is None:
            return
        ended = ~over & (self.rows[idx, HAND_NO] != self.hand0[idx])
        if playouts.leaf_rows is not None:
            done = idx[ended]
            self.value[done], self.leaf_se[done] = playouts.leaf_rows(self.rows[done, SCORES:SCORES + 2],
                                                                      self.rows[done, DEALER], team)
            return
        for i in idx[ended]:
            row = self.rows[i]
            at = HandEnd((int(row[SCORES]), int(row[SCORES + 1])), int(row[DEALER]))
            self.value[i] = float(playouts.leaf(at, team))
            self.leaf_se[i] = float(playouts.leaf_error(at)) if playouts.leaf_error else 0.0
