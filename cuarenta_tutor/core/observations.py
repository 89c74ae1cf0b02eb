"""Provides observations on the compiled core: the training rollouts' (every seat of many games at once, and the legal
masks) and the agent's own (one seat of one state), each as agents.features.encode_into gives it at an encoding
version (the reference). The moves' outcomes played to the deal's end that versions 3 and 4 read (agents/known.py)
are the search's compiled playouts (search.py deal_ends), read by the same end_outcome: the vectors are equal bit
for bit.
"""

from __future__ import annotations

import numpy as np

from ..agents.features import encode_into, value_feature
from ..agents.known import end_outcome, plays_out, sampled_worlds
from ..engine import legal_actions
from .encode import BASE_SIZE, MOVE_FEATURES, encode_lanes, encode_seat, rules_tail
from .expert import N_ACTIONS
from .layout import rules_of, to_row
from .search import END_FIELDS, END_HAND, END_PILE0, END_PILE1, END_SCORE0, END_SCORE1, END_WINNER, deal_ends


def encode_games(states: list, per: int, version: int, obs: np.ndarray, masks: np.ndarray | None = None) -> None:
    """Seat s of states[g] seen from s into obs[per * g + s] (float32, the version's size), and where `masks` is given
    masks[per * g + s] all True but the seat on turn's, True at its legal actions only; the rows of the streams no
    seat fills (a 1 v 1 game's seats 2 and 3 when `per` is 4) are left as they are. On the compiled core where it
    serves (core.fast()), else on the Python engine: the same numbers."""
    from . import fast

    if not fast():
        _encode_python(states, per, version, obs, masks)
        return
    groups: dict = {}
    for g, state in enumerate(states):
        groups.setdefault(state.rules, []).append(g)
    for rules, games in groups.items():
        n = rules.players
        rows = np.stack([to_row(states[g]) for g in games])
        some_obs = np.empty((len(games) * n, obs.shape[1]), dtype=np.float32)
        some_masks = np.empty((len(games) * n, N_ACTIONS), dtype=np.bool_)
        encode_lanes(rows, np.arange(len(games), dtype=np.int64), rules_of(rules), rules_tail(rules), some_obs,
                     some_masks)
        if obs.shape[1] > BASE_SIZE:
            for k, g in enumerate(games):
                _played_out(states[g], version, some_obs[k * n + states[g].turn])
        streams = (per * np.asarray(games)[:, None] + np.arange(n)[None, :]).ravel()
        obs[streams] = some_obs
        if masks is not None:
            masks[streams] = some_masks


def encode_one(out: np.ndarray, state, seat: int, version: int) -> np.ndarray:
    """agents.features.encode_into(out, state, seat, version) (`out` float32, the version's size): on the compiled core
    where it serves, the same numbers. It never waits for another thread's warm: the app's screen thread observes
    the person's moves with it."""
    from . import fast

    moves = out.shape[-1] > BASE_SIZE and seat == state.turn and not state.is_over
    if not moves or not fast(wait=False):  # without the move features Python's is the quicker (no row to make)
        return encode_into(out, state, seat, version)
    encode_seat(to_row(state), rules_of(state.rules), rules_tail(state.rules), seat, out)
    _played_out(state, version, out)
    return out


def compiled_agent(agent):
    """The network `agent` (agents/onnx_policy.py OnnxPolicy) observing with encode_one: the same numbers, compiled
    where the core serves."""
    agent.encoder = encode_one
    return agent


def _encode_python(states: list, per: int, version: int, obs: np.ndarray, masks: np.ndarray | None) -> None:
    """encode_games on the Python engine (agents.features.encode_into: the reference)."""
    for g, state in enumerate(states):
        for seat in range(state.rules.players):
            encode_into(obs[per * g + seat], state, seat, version)
            if masks is not None:
                masks[per * g + seat] = True
        if masks is not None:
            row = masks[per * g + state.turn]
            row[:] = False
            row[list(legal_actions(state))] = True


def _played_out(state, version: int, out: np.ndarray) -> None:
    """The value slot of each legal move in `out` (the seat on turn's observation) from its outcome played to the
    deal's end, where encoding `version` reads one (agents/known.py plays_out); else left as encoded."""
    how = plays_out(state, version)
    if how is None:
        return
    team = state.turn & 1
    worlds = [state] if how == "known" else sampled_worlds(state)
    actions = legal_actions(state)
    rows = np.stack([to_row(w) for w in worlds])
    ends = np.empty((len(worlds), len(actions), END_FIELDS), dtype=np.int32)
    deal_ends(rows, np.asarray(actions, dtype=np.int32), rules_of(state.rules), ends)
    for m, a in enumerate(actions):
        total = 0.0
        for w, world in enumerate(worlds):
            end = ends[w, m]
            piles = (int(end[END_PILE0]), int(end[END_PILE1]))
            total += end_outcome((int(end[END_SCORE0]), int(end[END_SCORE1])), int(end[END_WINNER]),
                                 int(end[END_HAND]), piles, world, team)
        value = total if how == "known" else total / len(worlds)
        out[BASE_SIZE + a * MOVE_FEATURES + MOVE_FEATURES - 1] = value_feature(value)
