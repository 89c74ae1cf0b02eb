"""Provides batched playouts: many sampled worlds, each continued by the agent on every seat, stepped together.

A lane is one world after one candidate move. Every seat of every lane keeps its own LSTM memory and is
stepped on every state of its lane (as at the table), all in one onnxruntime call per ply; the seat on
turn plays the network's most likely move. A lane ends at its horizon: the game's end (the exact result),
or the state after the next deal ("deal"), valued there by the critic from the analysing seat's memory, or
the end of the hand ("hand"), valued by the hand-value table (values.py) where the model has one for the
rules, else by the critic after the next hand's first deal. Deals come from each world's own stock order,
so every move of a world meets the same cards.

Where a table values the hand's end and the model has a playout policy (policy.py), that policy chooses every
seat's move instead of the network: no memory and no network step, the compiled lanes shared over two threads. With
`network_plies` the network plays each lane's first plies and the policy the rest (near the game's end: analyse.py).
"""

from __future__ import annotations

import functools
import itertools
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..agents.features import encode_into, move_features
from ..core.layout import TURN
from ..encoding import ENCODING_VERSION, N_ACTIONS, SIZES
from ..engine import Caida, Dealer, Dealt, Limpia, State, legal_actions
from .rows import RowLanes

HORIZONS = ("deal", "hand", "game")


@dataclass
class Lane:
    """One world after one candidate move, played on to its horizon."""

    state: State
    dealer: Dealer
    move: int
    """Index of the candidate move."""
    world: int
    value: float | None = None
    """Win probability of the analysing seat's team at the horizon, once reached."""
    plies: int = 0
    points: int = 0
    """The analysing team's points minus the other team's, from the move to the horizon."""
    reply: tuple = ()
    """The events of the opponents' first play after the move (for the caída and limpia risk)."""
    deals: int = 0
    """Deals dealt since the world's position (the move's own included)."""
    hand_no: int = 0
    """The world's hand."""
    leaf_se: float = 0.0
    """The standard error of the leaf's value where a table valued the lane (0 elsewhere)."""


def start_lane(world: State, stock_order, move: int, action: int, index: int, team: int, seed: int,
               next_hand: bool = True) -> Lane:
    """A lane: the candidate `action` played in a world (and the next deal dealt, if it ended the deal; a
    new hand's first deal only with `next_hand`)."""
    dealer = Dealer.for_world(world, stock_order, seed)
    after, events = dealer.play(world, action, next_hand=next_hand)
    lane = Lane(after, dealer, move, index, hand_no=world.hand_no)
    lane.points = _points(events, team)
    lane.deals = sum(isinstance(e, Dealt) for e in events)
    return lane


PLAYOUT_ENCODING = 2
"""Playouts give a network of encoding version 3 or 4 version 2's move features: version 3 plays every move out to
the deal's end where every card is known (version 4 also over 16 worlds late in 2 v 2's last deal), which in
playouts through a last deal costs far more than the network (64 worlds of 18 positions of deals 2-3, generation
6: 1.29 s median with them, 0.34 s without). A network of version 3 or 4 reads there what version 2 gives, the
one-reply estimate, as generation 5 did."""


class Playouts:
    """Plays lanes to their horizon with the network behind `run(obs, mask, h, c)` (an OnnxPolicy's).

    `leaf(state, team)`, for the "hand" horizon: the team's win probability at the end of a hand (the
    state awaiting the next hand's first deal), e.g. `HandValues.win`; lanes then stop there. Without it
    they stop after that deal and the critic values them."""

    def __init__(self, run, hidden: int, horizon: str = "deal", max_plies: int = 400, leaf=None, leaf_error=None,
                 encoding: int = ENCODING_VERSION, remember=None, policy=None, leaf_rows=None, network_plies=None):
        if horizon not in HORIZONS:
            raise ValueError(f"horizon must be one of {', '.join(HORIZONS)}, not {horizon!r}")
        self.run, self.hidden, self.horizon, self.max_plies = run, hidden, horizon, max_plies
        self.remember = remember
        """`remember(obs, h, c)`: the memory-only step (agents/memory_graph.py) for the rows whose probabilities and
        value go unread; None: every row runs `run`."""
        self.leaf = leaf if horizon == "hand" else None
        self.leaf_error = leaf_error
        """`leaf_error(state)`: the standard error of `leaf` there (e.g. `HandValues.error`)."""
        self.leaf_rows = leaf_rows if self.leaf is not None else None
        """`leaf_rows(scores, dealers, team)`: `leaf` and `leaf_error` of many lanes at once (HandValues.rows), for the
        compiled core's lanes; None: lane by lane."""
        self.encoding = min(encoding, PLAYOUT_ENCODING)
        """The encoding the network reads in the playouts (its own, up to PLAYOUT_ENCODING)."""
        self.width = SIZES[encoding]
        self.policy = policy if self.leaf is not None else None
        """The playout policy (analysis/policy.py) that chooses every seat's move instead of the network, where a leaf
        values the hand's end (no critic is read then); None: the network plays."""
        self.network_plies = network_plies if self.policy is not None else None
        """With a policy: the network plays each lane's first this many plies (every seat's memory stepped from the
        lane's start), then the policy the rest; None: the policy plays every ply."""
        self.watch = None
        """`watch(obs, mask, probs)`: each network step's rows of seats on turn (training/distil.py collects them)."""

    @property
    def past_hand(self) -> bool:
        """Whether lanes go on past the end of this hand, dealing cards no seat knows yet: to the game's end, or
        to the critic after the next hand's first deal (the "hand" horizon without a leaf)."""
        return self.horizon == "game" or (self.horizon == "hand" and self.leaf is None)

    @property
    def next_hand(self) -> bool:
        """Whether lanes deal a new hand's first cards (not when a leaf values the end of a hand)."""
        return self.leaf is None

    def play(self, lanes: list[Lane], seat: int, h0: np.ndarray, c0: np.ndarray) -> None:
        """Fill every lane's value. `h0`, `c0` [1, 1, H]: the analysing seat's memory before the candidate
        moves; the other seats start with an empty memory in every world (their past is not known)."""
        if not lanes:
            return
        n = lanes[0].state.rules.players
        team = seat & 1
        for lane in lanes:
            self._settle(lane, team)
        open_ = [i for i, lane in enumerate(lanes) if lane.value is None]
        if self.policy is None or self.network_plies:
            open_ = self._network(lanes, open_, seat, n, team, h0, c0)
        if self.policy is not None:
            features = functools.partial(move_features, version=self.encoding)
            while open_:
                for i in open_:
                    self._advance(lanes[i], self.policy.choose(lanes[i].state, features), team)
                open_ = [i for i in open_ if lanes[i].value is None]

    def _plies(self):
        """The network's plies: all of them without a policy, else its first `network_plies`."""
        return itertools.count() if self.policy is None else range(self.network_plies)

    def _network(self, lanes: list[Lane], open_: list, seat: int, n: int, team: int, h0, c0) -> list:
        """The network's plies of `play` on lanes `open_`: those still open after them."""
        memory = self._memory(n, len(lanes), seat, h0, c0)
        for _ in self._plies():
            if not open_:
                break
            rows = len(open_) * n
            obs = np.zeros((rows, self.width), np.float32)
            mask = np.ones((rows, N_ACTIONS), dtype=bool)
            for k, i in enumerate(open_):
                state = lanes[i].state
                for s in range(n):
                    encode_into(obs[k * n + s], state, s, self.encoding)
                row = mask[k * n + state.turn]
                row[:] = False
                row[list(legal_actions(state))] = True
            done = [self._at_horizon(lanes[i], self.horizon) for i in open_]
            need = self._needed(np.array(done, np.bool_), np.array([lanes[i].state.turn for i in open_]),
                                np.array([lanes[i].plies for i in open_]), seat, n)
            probs, values = self._step(memory, np.array(open_), obs, mask, need)
            still = []
            for k, i in enumerate(open_):
                lane = lanes[i]
                if done[k]:
                    lane.value = float(values[k * n + seat])
                    continue
                self._advance(lane, int(np.argmax(probs[k * n + lane.state.turn])), team)
                if lane.value is None and lane.plies >= self.max_plies:
                    lane.value = float(values[k * n + seat])
                if lane.value is None:
                    still.append(i)
            open_ = still
        return open_

    def _advance(self, lane: Lane, action: int, team: int) -> None:
        """Play `action` in the lane (and the deal it brings), keeping what the analysis reads of it."""
        mover = lane.state.turn & 1
        after, events = lane.dealer.play(lane.state, action, next_hand=self.next_hand)
        if lane.plies == 0 and mover != team:
            lane.reply = events
        lane.points += _points(events, team)
        lane.deals += sum(isinstance(e, Dealt) for e in events)
        lane.state, lane.plies = after, lane.plies + 1
        self._settle(lane, team)

    def play_rows(self, lanes: RowLanes, seat: int, h0: np.ndarray, c0: np.ndarray) -> None:
        """`play` on the compiled core: the same steps, the same network calls and the same numbers, over lane
        rows (RowLanes) instead of Lane values."""
        if not len(lanes.rows):
            return
        n = lanes.rules.players
        team = seat & 1
        lanes.settle(team, self)
        open_ = np.flatnonzero(np.isnan(lanes.value))
        if self.policy is None or self.network_plies:
            open_ = self._network_rows(lanes, open_, seat, n, team, h0, c0)
        if self.policy is not None:
            while len(open_):
                parts = np.array_split(open_, THREADS) if len(open_) >= SPLIT_FROM else [open_]
                list(_pool().map(functools.partial(self._policy_ply, lanes, team=team), parts))
                lanes.deal_new_hands(open_, team)
                lanes.settle(team, self, open_)
                open_ = open_[np.isnan(lanes.value[open_])]

    def _network_rows(self, lanes: RowLanes, open_: np.ndarray, seat: int, n: int, team: int, h0, c0) -> np.ndarray:
        """The network's plies of `play_rows` on lanes `open_`: those still open after them."""
        from ..core.encode import encode_lanes

        memory = self._memory(n, len(lanes.rows), seat, h0, c0)
        for _ in self._plies():
            if not len(open_):
                break
            rows = len(open_) * n
            obs = np.zeros((rows, self.width), np.float32)
            mask = np.ones((rows, N_ACTIONS), dtype=bool)
            encode_lanes(lanes.rows, open_, lanes.core_rules, lanes.tail, obs, mask)
            done = lanes.at_horizon(open_, self.horizon)
            need = self._needed(done, lanes.rows[open_, TURN], lanes.plies[open_], seat, n)
            probs, values = self._step(memory, open_, obs, mask, need)
            critic = values.reshape(len(open_), n)[:, seat]
            lanes.value[open_[done]] = critic[done]
            going = ~done
            moving = open_[going]
            turns = lanes.rows[moving, TURN]
            actions = np.argmax(probs.reshape(len(open_), n, N_ACTIONS)[np.flatnonzero(going), turns], axis=1)
            self._advance_rows(lanes, moving, actions.astype(np.int32), team)
            long = moving[np.isnan(lanes.value[moving]) & (lanes.plies[moving] >= self.max_plies)]
            lanes.value[long] = critic[going][np.isin(moving, long)]
            open_ = moving[np.isnan(lanes.value[moving])]
        return open_

    def _policy_ply(self, lanes: RowLanes, idx: np.ndarray, team: int) -> None:
        """The playout policy's move played in lanes `idx` (compiled, the GIL released: `idx` is a share of the lanes,
        played beside the others in another thread)."""
        from ..core.lanes import advance
        from ..core.scorer import policy_lanes

        actions = np.empty(len(idx), np.int32)
        policy_lanes(lanes.rows, idx, lanes.core_rules, self.policy.params, self.policy.hidden, actions)
        advance(lanes.rows, idx, actions, lanes.core_rules, team, self.next_hand, False, lanes.plies, lanes.points,
                lanes.deals, lanes.caida, lanes.limpia, lanes.await_deck)

    def _advance_rows(self, lanes: RowLanes, idx: np.ndarray, actions: np.ndarray, team: int) -> None:
        """`_advance` on the compiled core: actions[k] (int32) played in lane idx[k]."""
        from ..core.lanes import advance

        advance(lanes.rows, idx, actions, lanes.core_rules, team, self.next_hand, False, lanes.plies, lanes.points,
                lanes.deals, lanes.caida, lanes.limpia, lanes.await_deck)
        lanes.deal_new_hands(idx, team)
        lanes.settle(team, self, idx)

    def _memory(self, n: int, count: int, seat: int, h0: np.ndarray, c0: np.ndarray) -> tuple:
        """Every seat's LSTM memory in every lane, [lanes, n, H] each (lane-major, seat-minor: the rows of a step in
        order): the analysing seat's `h0`, `c0`, the others' empty."""
        h = np.zeros((count, n, self.hidden), np.float32)
        c = np.zeros((count, n, self.hidden), np.float32)
        h[:, seat], c[:, seat] = h0[0, 0], c0[0, 0]
        return h, c

    def _needed(self, done: np.ndarray, turns: np.ndarray, plies: np.ndarray, seat: int, n: int) -> np.ndarray:
        """The rows (lane-major, seat-minor) whose probabilities or value a step reads: the seat to play, or the
        analysing `seat` at the horizon (`done`), and the analysing seat where the ply limit comes next."""
        need = np.zeros((len(done), n), np.bool_)
        need[np.arange(len(done)), np.where(done, seat, turns)] = True
        need[:, seat] |= plies + 1 >= self.max_plies
        return need.reshape(-1)

    def _step(self, memory: tuple, idx: np.ndarray, obs: np.ndarray, mask: np.ndarray, need: np.ndarray) -> tuple:
        """One batched network step of every seat of lanes `idx` (obs and mask rows lane-major, seat-minor), their
        memory updated in place: (probs, values), read only at the rows `need` marks (with `remember`, the others
        step only their memory: their probs are 0 and values NaN). Large steps run in two threads (onnxruntime
        lets go of the GIL): the whole model's rows beside the memory graph's, or two halves of the rows."""
        h, c = memory
        rows, hidden = len(idx) * h.shape[1], self.hidden
        hb, cb = h[idx].reshape(1, rows, hidden), c[idx].reshape(1, rows, hidden)
        probs = np.zeros((rows, mask.shape[1]), np.float32)
        values = np.full(rows, np.nan, np.float32)
        h_out, c_out = np.empty_like(hb), np.empty_like(cb)

        def whole(part):
            probs[part], values[part], h_out[:, part], c_out[:, part] = self.run(obs[part], mask[part], hb[:, part],
                                                                                 cb[:, part])

        def memory_only(part):
            h_out[:, part], c_out[:, part] = self.remember(obs[part], hb[:, part], cb[:, part])

        # the same numbers however the rows are parted: a row's outputs do not depend on the batch around it
        threaded = rows >= SPLIT_STEP_FROM and THREADS > 1
        if self.remember is None or need.all():
            ends = np.linspace(0, rows, (THREADS if threaded else 1) + 1).astype(int)
            jobs = [(whole, slice(a, b)) for a, b in zip(ends[:-1], ends[1:], strict=True)]  # slices: views, not copies
        else:
            jobs = [(whole, np.flatnonzero(need)), (memory_only, np.flatnonzero(~need))]
        if threaded:
            for done in [_pool().submit(job, part) for job, part in jobs]:
                done.result()
        else:
            for job, part in jobs:
                job(part)
        if self.watch is not None:
            turn = np.flatnonzero(need & (obs[:, 91] == 1))  # slot 91: the seat is on turn
            self.watch(obs[turn], mask[turn], probs[turn])
        h[idx] = h_out.reshape(len(idx), -1, hidden)
        c[idx] = c_out.reshape(len(idx), -1, hidden)
        return probs, values

    @staticmethod
    def _at_horizon(lane: Lane, horizon: str) -> bool:
        if horizon == "deal":
            return lane.deals > 0
        if horizon == "hand":
            return lane.state.hand_no != lane.hand_no
        return False

    def _settle(self, lane: Lane, team: int) -> None:
        """Value a lane that needs no network: the game is over, or the hand ended and a leaf values it."""
        if lane.state.is_over:
            lane.value = float(lane.state.winner == team)
        elif self.leaf is not None and lane.state.hand_no != lane.hand_no:
            lane.value = float(self.leaf(lane.state, team))
            lane.leaf_se = float(self.leaf_error(lane.state)) if self.leaf_error else 0.0


THREADS = min(2, os.cpu_count() or 1)
"""Threads the playout policy's plies are shared over (each lane is its own: the numbers do not depend on it)."""
SPLIT_FROM = 64
"""Fewer open lanes than this are played in one thread (a thread's hand-off costs more than they do)."""
SPLIT_STEP_FROM = 256
"""Network steps of fewer rows than this run in one thread."""
_POOL: list = []
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    with _POOL_LOCK:
        if not _POOL:
            _POOL.append(ThreadPoolExecutor(THREADS, thread_name_prefix="playouts"))
        return _POOL[0]


def play_worlds(playouts: Playouts, worlds, actions, seat: int, seeds, h0, c0):
    """Every candidate action played in every world (engine.World) and continued to the horizon, on the compiled
    core where it serves (core.fast()), else on the Python engine: the lanes' values, points, leaf errors and the
    other team's first-reply caída and limpia, as arrays in lane order (world-major: lane w * len(actions) + m)."""
    from .. import core

    team = seat & 1
    if core.fast():
        lanes = RowLanes.after_moves(worlds, actions, team, seeds, playouts.next_hand)
        playouts.play_rows(lanes, seat, h0, c0)
        return lanes
    lanes = [start_lane(world.state, world.stock_order, m, a, w, team, seed, playouts.next_hand)
             for w, (world, seed) in enumerate(zip(worlds, seeds, strict=True)) for m, a in enumerate(actions)]
    playouts.play(lanes, seat, h0, c0)
    replies = [risks(lane.reply, team) for lane in lanes]
    return Outcomes(np.array([lane.value for lane in lanes]), np.array([lane.points for lane in lanes]),
                    np.array([lane.leaf_se for lane in lanes]), np.array([r[0] for r in replies], bool),
                    np.array([r[1] for r in replies], bool))


class Outcomes(NamedTuple):
    """What play_worlds gives of its lanes (RowLanes has the same fields)."""

    value: np.ndarray
    points: np.ndarray
    leaf_se: np.ndarray
    caida: np.ndarray
    limpia: np.ndarray


def _points(events, team: int) -> int:
    """The analysing team's points minus the other's in some events (plays, announcements, cartón)."""
    total = 0
    for e in events:
        points = getattr(e, "points", 0) + getattr(e, "ronda_bonus", 0)
        if hasattr(e, "carton"):
            points = e.carton[team] - e.carton[1 - team]
            total += points
            continue
        if points and hasattr(e, "team"):
            total += points if e.team == team else -points
    return total


def risks(events, team: int) -> tuple[bool, bool]:
    """Whether the other team's reply made a caída, and a limpia (that scored or not)."""
    caida = any(isinstance(e, Caida) and e.team != team for e in events)
    limpia = any(isinstance(e, Limpia) and e.team != team for e in events)
    return caida, limpia
