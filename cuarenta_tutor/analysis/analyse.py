"""Provides the analysis of a position from one seat's view: every legal move valued in sampled worlds.

Worlds are drawn with `engine.determinize` (never a card the seat cannot see); every move is played in
the same worlds (paired, so the differences between moves carry far less noise than their values) and
continued by the agent to a horizon (playout.py). Per move: win % with a 95% interval, the loss against
the best move with its own (paired) interval, the points the seat's team gains over the other to the
horizon, the chance that the other side's next play is a caída or a limpia, and the number of worlds.
It works in rounds of a fixed size until its worlds are done (or, with `min_worlds` below `worlds`, once the best
move is clear); its time budget is only a safety cap: a round that would end past it is not started, and the
analysis says it was cut (`Analysis.cut`). Where the seat knows every card (the last deal of a 1 v 1 hand) every
world is the true one: while its lanes stay in that hand it plays that one alone, with no sampling error (lanes
that deal the next hands still sample worlds). The playout policy (policy.py) plays the playouts where a table
values the hand's end, except where it misjudges the line: where every card is known (one world: the network's own
line is cheap, and plays it) and where the other team is within NETWORK_WITHIN points of winning (the network plays
the first NETWORK_PLIES plies there).

The worlds are drawn from a seed made of the settings' seed and what the seat knows of the position
(`world_seed`: its hand, the table, the piles, the cards played, the scores, the hand sizes, the ply; never a card
it cannot see), so two positions the seat cannot tell apart get the same worlds, and a position gets the same
worlds wherever it is analysed. `verdict` is the one way the app asks for a position's analysis: one settings
value (`STANDARD`, with the model's measured errors: calibrate.settings_for) and each result kept with its
position, so the hints, the tutor, the annotation, the review, the drills and `analyse` show one value.
"""

from __future__ import annotations

import hashlib
import math
import random
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, replace

import numpy as np

from .. import core
from ..engine import TARGET_SCORE, State, determinize, knows_every_card, legal_actions
from ..i18n import _, ngettext, number
from ..narrator import stable_move_name
from .classes import Z95
from .playout import Playouts, play_worlds
from .values import for_model, policy_for

NETWORK_WITHIN = 4
"""Where the other team is this many points or fewer from winning, the network plays the playouts' first
NETWORK_PLIES plies, not the playout policy: there the policy's line is far from the network's (on 240 positions of
agent-vs-expert games with the other team at 36 or more, its values were off the 4096-world reference by 5.6 win-%
points rms and up to 29, the network's by 1.3; elsewhere 1.4 and 1.3)."""
NETWORK_PLIES = 6
"""The plies the network plays near the end (NETWORK_WITHIN) before the policy plays on: the replies that can end
the game. On the 105 such positions of the four presets x 1 v 1 and 2 v 2 (of the fit's and the bench's positions,
391 moves, against their kept 4096-world references), off by (value, loss, rms win-% points): the network to the hand's
end 2.10 and 1.87, the policy 3.37 and 3.40, the network's first 2 plies 2.38 and 1.94, 4 plies 2.25 and 1.95, 6 plies
2.11 and 1.79 (1 v 1: 2.17 and 1.78, the network 1.88 and 1.70; 2 v 2: 2.08 and 1.79, the network 2.21 and 1.95); their
hints took 237 ms median and 454 ms at the 90th percentile with 6 plies, 555 and 1,175 with the network (both beside
a two-process calibration)."""


LATE_SCORE = 30
"""From here on (a team at 30 points or more: the standard rules' cut-off, past which the cartón and the ronda stop
counting) the model's error is measured apart: on 180 positions of seed 1001 the analysis was off by 2.30 win-%
points rms there (the sampling explaining 1.55), 1.35 before it (all of it sampling)."""


def is_late(state: State) -> bool:
    """Whether a team has LATE_SCORE points or more: where the model's error is measured apart."""
    return max(state.scores) >= LATE_SCORE


@dataclass(frozen=True)
class Settings:
    """How deep an analysis looks (and the time cap that may cut it short)."""

    worlds: int = 256
    """Worlds to sample: a fixed number, the same for every consumer (`STANDARD`)."""
    round_worlds: int = 128
    """Worlds per round (a round is one batch of playouts; a cut analysis has whole rounds)."""
    min_worlds: int = 256
    """Worlds before the analysis may stop because the best move is clear (`worlds` or more: never, a fixed number)."""
    budget_s: float = 5.0
    """A safety cap in seconds, not a budget to fill: a round that would end past it is not started and the analysis
    is marked cut (0: no cap). It is not part of what the analysis is (`identity`)."""
    horizon: str = "hand"
    """Where playouts stop: "deal" (after the next deal, valued by the critic), "hand" (the end of the hand,
    valued by `leaf`), or "game" (the real result). The end of the hand with the table is the closest to the
    deep reference for its cost (README, Measured)."""
    leaf: str = "table"
    """How the "hand" horizon is valued: "table" (the model's hand-value table, values.py, where it has one
    for the rules; else the critic) or "critic"."""
    seed: int = 0
    value_sd: float = 0.0
    """The model's error at the horizon, in win-% points, measured against the deep reference (calibrate.py);
    added in quadrature to the sampling error (and to the table entries' own error), so the intervals hold
    what the worlds cannot."""
    loss_sd: float = 0.0
    """The same for the paired difference between two moves (the loss)."""
    late_value_sd: float | None = None
    """value_sd late in the game (a team at LATE_SCORE points or more), where the model's error is larger (None: the
    same as value_sd)."""
    late_loss_sd: float | None = None
    """loss_sd late in the game (None: the same as loss_sd)."""
    playout: str = "policy"
    """Who plays the playouts: "policy" (the model's playout policy, analysis/policy.py, where its sidecar has one
    and the table values the hand's end; else the network) or "network"."""

    def to_json(self) -> dict:
        out = {"worlds": self.worlds, "round_worlds": self.round_worlds, "min_worlds": self.min_worlds,
               "budget_s": self.budget_s, "horizon": self.horizon, "leaf": self.leaf, "seed": self.seed,
               "value_sd": self.value_sd, "loss_sd": self.loss_sd}
        if self.playout != "network":  # absent: the network, as every analysis kept before the policy was
            out["playout"] = self.playout
        for name in ("late_value_sd", "late_loss_sd"):  # absent: one error for the whole game, as before
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out

    def errors_at(self, state: State) -> tuple[float, float]:
        """(value_sd, loss_sd) for a position: the late ones where a team has LATE_SCORE points or more."""
        if not is_late(state):
            return self.value_sd, self.loss_sd
        return (self.value_sd if self.late_value_sd is None else self.late_value_sd,
                self.loss_sd if self.late_loss_sd is None else self.late_loss_sd)

    def identity(self) -> dict:
        """`to_json` without the time cap: what makes two analyses of a position the same one."""
        out = self.to_json()
        del out["budget_s"]
        return out


STANDARD = Settings()
"""The one analysis of a position (before the model's measured errors are added, calibrate.settings_for): the
hints, the tutor, the annotation made in play, the review, the drills and `analyse` all use it. 256 worlds in two
rounds of 128, on the compiled core (core/): a hint in about half a second median on the 2-core machine, most of it
the network's batched steps (README, Measured); the review's deeper pass (`d`, four times the worlds) is the one
thing that looks further. On the Python core (no numba, or while the compiled one warms) the 5 s cap may cut it to
its first round."""
INTERACTIVE = STANDARD
"""The settings of hints in play: STANDARD (one value for every consumer)."""


def standard() -> Settings:
    """STANDARD, read when asked (calibrate.settings_for adds the model's errors to it; a test may change it)."""
    return STANDARD


@dataclass(frozen=True)
class MoveEval:
    """One legal move, analysed (percentages are win % for the analysing seat's team)."""

    action: int
    name: str
    win_pct: float
    ci95: tuple
    """(low, high) of win_pct."""
    loss: float
    """Win % of the best move minus this one's (0 for the best)."""
    loss_ci95: tuple
    points: float
    """Mean points the team gains over the other from the move to the horizon."""
    caida_risk: float
    """Share of worlds where the other side's next play is a caída."""
    limpia_risk: float
    worlds: int

    def to_json(self) -> dict:
        return {"move": self.name, "action": self.action, "win_pct": round(self.win_pct, 2),
                "ci95": [round(x, 2) for x in self.ci95], "loss": round(self.loss, 2),
                "loss_ci95": [round(x, 2) for x in self.loss_ci95], "points": round(self.points, 2),
                "caida_risk": round(self.caida_risk, 3), "limpia_risk": round(self.limpia_risk, 3),
                "worlds": self.worlds}


@dataclass(frozen=True)
class Analysis:
    """Every legal move of a position from one seat's view, best first."""

    seat: int
    moves: tuple
    """MoveEval per legal move, best first."""
    worlds: int
    seconds: float
    settings: Settings
    model_id: str = ""
    leaf: str = "critic"
    """What valued the playouts' ends: "table", "critic", or "result" (every playout to the game's end)."""
    known: bool = False
    """The seat knew every card (engine.knows_every_card) and the lanes stayed in the hand: the one world played
    was the true one."""
    cut: bool = False
    """The time cap (settings.budget_s) stopped it before its worlds were done: `worlds` is fewer than planned."""
    playout: str = "network"
    """Who played the playouts: "policy" (the model's playout policy; near the end after the network's first
    NETWORK_PLIES plies) or "network"."""

    @property
    def where(self) -> str:
        """Where the numbers come from, for a sentence: "with every card known", "in N sampled worlds", or, cut by
        the time cap, "in only N of M sampled worlds (cut by the time cap)"."""
        if self.known:
            return _("with every card known")
        if self.cut:
            return ngettext("in only {n} of {planned} sampled worlds (cut by the time cap)",
                            "in only {n} of {planned} sampled worlds (cut by the time cap)",
                            self.settings.worlds).format(n=number(self.worlds), planned=number(self.settings.worlds))
        return ngettext("in {n} sampled world", "in {n} sampled worlds", self.worlds).format(n=number(self.worlds))

    @property
    def best(self) -> MoveEval:
        return self.moves[0]

    def move(self, action: int) -> MoveEval:
        return next(m for m in self.moves if m.action == action)


def _mean_ci(x: np.ndarray, extra_sd: float = 0.0, known: bool = False) -> tuple[float, float, float]:
    """Mean and 95% interval: the sampling error over worlds (none when the `known` world is the true one) and
    `extra_sd` (a measured model error) in quadrature."""
    n = len(x)
    mean = float(x.mean())
    if n < 2 and not known:
        return mean, mean - 100.0, mean + 100.0
    half = Z95 * math.sqrt((0.0 if known else float(x.var(ddof=1)) / n) + extra_sd ** 2)
    return mean, mean - half, mean + half


def observed(state: State, seat: int) -> tuple:
    """What `seat` knows of a position: everything in it but the cards it cannot see (the other hands are their
    sizes, the stock its size, another seat's ronda only that it was announced)."""
    return (state.rules, state.hand_no, state.dealer, state.deal_no, state.turn, seat, state.hands[seat],
            tuple(len(h) for h in state.hands), state.table, len(state.stock), state.piles, state.scores,
            state.trailed, tuple(r if s == seat else r >= 0 for s, r in enumerate(state.rondas)), state.played,
            state.last_capturer, state.winner, state.discarded, state.plays)


def world_seed(state: State, seat: int, seed: int = 0) -> int:
    """The seed of the worlds of `seat`'s position: from `seed` and what the seat knows (`observed`), never a hidden
    card, and the same in every process (a digest, not Python's salted hash)."""
    digest = hashlib.sha256(repr((seed, observed(state, seat))).encode()).digest()
    return int.from_bytes(digest[:8], "big")


def analyse(state: State, agent, settings: Settings = INTERACTIVE, seat: int | None = None,
            memory: tuple | None = None, watch=None) -> Analysis:
    """Analyse the position of the seat on turn (or `seat`) with `agent`, an OnnxPolicy that has observed
    the game so far from that seat; `memory` gives the seat's LSTM memory at the position instead (h, c
    after observing it). The agent's memory is not changed (beyond observing `state` if it had not). `watch`:
    Playouts.watch."""
    core.fast()  # the core compiled (or loaded) here, before the time cap counts, unless the app's thread compiles it
    started = time.perf_counter()
    seat = state.turn if seat is None else seat
    legal = list(legal_actions(state))
    if not legal:
        raise ValueError(_("there is no move to analyse: the game is over or a deal is due"))
    if memory is None:
        agent.observe(state)  # the seat's memory at this position (a no-op if it has already seen it)
        memory = agent.memory
    h0, c0 = memory
    rng = random.Random(world_seed(state, seat, settings.seed))
    hand_values = None
    if settings.horizon == "hand" and settings.leaf == "table":
        hand_values = for_model(agent.path, agent.model_id, state.rules)
    every_card = knows_every_card(state)
    # the playout policy plays where the table ends the hand, but the network where the policy's line is far from its
    # own: with every card known (one world: cheap; the policy's one line was 17 points off on a move, with nothing to
    # average it), and the first plies with the other team NETWORK_WITHIN points from winning
    near_end = TARGET_SCORE - state.scores[1 - state.team_of(seat)] <= NETWORK_WITHIN
    policy = policy_for(agent.path, agent.model_id) if hand_values and settings.playout == "policy" and \
        not every_card else None
    playouts = Playouts(agent.run, agent.hidden, settings.horizon, leaf=hand_values.win if hand_values else None,
                        leaf_error=hand_values.error if hand_values else None, encoding=agent.encoding,
                        remember=getattr(agent, "remember", None), policy=policy,
                        leaf_rows=hand_values.rows if hand_values else None,
                        network_plies=NETWORK_PLIES if near_end else None)
    playouts.watch = watch
    values: list[list[float]] = [[] for _ in legal]
    points: list[list[float]] = [[] for _ in legal]
    caidas, limpias = [0] * len(legal), [0] * len(legal)
    table_errors: list[list[float]] = [[] for _ in legal]
    worlds, playing, cut = 0, 0.0, False
    # every world is the true one while the lanes stay in this hand: one is enough, and it has no sampling error;
    # lanes that deal the next hands (to the game's end, or for the critic after the next first deal) meet chance
    known = every_card and not playouts.past_hand
    most = 1 if known else settings.worlds
    while worlds < most:
        batch = min(settings.round_worlds, most - worlds)
        # the cap: a round that would end past it (at the rate so far) is not started; the rounds keep their size, so
        # a cut analysis is the first rounds of the whole one, and says it was cut
        if settings.budget_s and worlds and \
                time.perf_counter() - started + batch * playing / worlds > settings.budget_s:
            cut = True
            break
        round_started = time.perf_counter()
        drawn, laters = [], []
        for _draw in range(batch):
            drawn.append(determinize(state, seat, rng))
            laters.append(rng.randrange(1 << 62))
        got = play_worlds(playouts, drawn, legal, seat, laters, h0, c0)
        for m in range(len(legal)):
            values[m] += (100.0 * got.value[m::len(legal)]).tolist()
            points[m] += got.points[m::len(legal)].tolist()
            table_errors[m] += (100.0 * got.leaf_se[m::len(legal)]).tolist()
            caidas[m] += int(got.caida[m::len(legal)].sum())
            limpias[m] += int(got.limpia[m::len(legal)].sum())
        worlds += batch
        playing += time.perf_counter() - round_started
        if worlds >= settings.min_worlds and len(legal) > 1 and _clear(np.array(values)):
            break
    table = np.array(values)  # [moves, worlds]
    value_sd, loss_sd = settings.errors_at(state)
    means = table.mean(axis=1)
    best = int(np.argmax(means))
    out = []
    for m, a in enumerate(legal):
        exact = bool(np.all(table[m] == table[m][0])) and table[m][0] in (0.0, 100.0)  # the game's result
        # the table's error is shared by the worlds (the same entries): its mean adds to the model error
        extra = math.hypot(value_sd, float(np.mean(table_errors[m])))
        mean, low, high = _mean_ci(table[m], 0.0 if exact else extra, known)
        if m == best:
            loss, loss_ci = 0.0, (0.0, 0.0)
        else:
            d, dl, dh = _mean_ci(table[best] - table[m], loss_sd, known)
            loss, loss_ci = max(0.0, d), (dl, dh)
        out.append(MoveEval(a, stable_move_name(state, a), mean, (max(0.0, low), min(100.0, high)), loss, loss_ci,
                            float(np.mean(points[m])), caidas[m] / worlds, limpias[m] / worlds, worlds))
    out.sort(key=lambda e: (e.loss, -e.win_pct, e.action))
    leaf = "result" if settings.horizon == "game" else "table" if hand_values else "critic"
    return Analysis(seat, tuple(out), worlds, time.perf_counter() - started, settings, agent.model_id, leaf, known,
                    cut, "policy" if policy else "network")


_KEPT: OrderedDict = OrderedDict()
"""Analyses made by `verdict`, by position, model and settings (the latest KEEP)."""
KEEP = 512
_LOCK = threading.Lock()
"""The app asks from worker threads (the hints', the tutor's)."""


def position_key(state: State, seat: int, memory, model_id: str, settings: Settings) -> str:
    """What identifies a position's analysis: what the seat knows of it, its memory there, the model, the settings
    (their `identity`: the time cap is not part of it)."""
    digest = hashlib.sha256(repr(observed(state, seat)).encode())
    for part in memory:
        digest.update(np.ascontiguousarray(part, dtype=np.float32).tobytes())
    digest.update(repr(sorted(settings.identity().items())).encode() + model_id.encode())
    return digest.hexdigest()


def verdict(state: State, agent, settings: Settings, memory: tuple | None = None, seat: int | None = None) -> Analysis:
    """The analysis of a position, computed once and kept with it: the one value every consumer shows. A kept
    analysis that the time cap cut is given again only to a request that has a cap too (an uncapped one, a review
    in the background, completes it)."""
    seat = state.turn if seat is None else seat
    if memory is None:
        agent.observe(state)
        memory = agent.memory
    key = position_key(state, seat, memory, agent.model_id, settings)
    with _LOCK:
        kept = _KEPT.get(key)
        if kept is not None and (not kept.cut or settings.budget_s):
            _KEPT.move_to_end(key)
            return replace(kept, settings=settings) if kept.settings != settings else kept
    result = analyse(state, agent, settings, seat, memory)
    with _LOCK:
        _KEPT[key] = result
        while len(_KEPT) > KEEP:
            _KEPT.popitem(last=False)
    return result


def forget() -> None:
    """Drop the kept analyses."""
    with _LOCK:
        _KEPT.clear()


def _clear(table: np.ndarray) -> bool:
    """Whether the best move's paired lead over every other move is outside noise (95%)."""
    best = int(np.argmax(table.mean(axis=1)))
    for m in range(len(table)):
        if m != best and _mean_ci(table[best] - table[m])[1] <= 0:
            return False
    return True
