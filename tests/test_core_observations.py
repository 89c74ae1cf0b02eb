"""The training rollouts' observations on the compiled core (core/observations.py) against the Python encoder
(agents.features.encode_into): equal bit for bit at every encoding version, for every preset, 1 v 1 and 2 v 2,
the outcomes played to the deal's end (versions 3 and 4) included; and a rollout fills the same buffers on either
core."""

import random

import numpy as np
import pytest
from helpers import another_thread_loading

from cuarenta_tutor import core
from cuarenta_tutor.agents.features import encode_into
from cuarenta_tutor.agents.known import plays_out
from cuarenta_tutor.core.observations import encode_games, encode_one
from cuarenta_tutor.encoding import N_ACTIONS, SIZES
from cuarenta_tutor.engine import PRESETS, Dealer, apply, legal_actions, preset
from cuarenta_tutor.table import Table

PER = 4  # streams a game, as a rollout with 2 v 2 games in its mix


def states_of(seed: int, count: int) -> list:
    """Positions of random games of every preset and player count, late deals (stock empty) among them."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        rules = preset(rng.choice(sorted(PRESETS)), players=rng.choice([2, 4]))
        table = Table(rules, [None] * rules.players, Dealer(rng.randrange(1 << 60)))
        table.start()
        for _ in range(rng.randrange(60)):
            if table.state.is_over:
                break
            table.play(rng.choice(legal_actions(table.state)))
        if not table.state.is_over:
            found.append(table.state)
    return found


def observed(states, version: int, monkeypatch, which: str):
    monkeypatch.setenv("CUARENTA_TUTOR_CORE", which)
    obs = np.full((PER * len(states), SIZES[version]), 7.0, np.float32)  # idle streams keep what they held
    masks = np.zeros((PER * len(states), N_ACTIONS), bool)
    encode_games(states, PER, version, obs, masks)
    return obs, masks


@pytest.mark.parametrize("version", [1, 2, 3, 4])
def test_the_compiled_observations_are_the_python_encoders_bit_for_bit(version, monkeypatch):
    assert core.fast()
    states = states_of(version, 150)
    if version >= 3:  # the played-out outcomes are among them
        assert {"known", "sampled"} <= {plays_out(s, 4) for s in states}
    fast_obs, fast_masks = observed(states, version, monkeypatch, "fast")
    python_obs, python_masks = observed(states, version, monkeypatch, "python")
    assert (fast_obs.view(np.int32) == python_obs.view(np.int32)).all()
    assert (fast_masks == python_masks).all()
    on_turn = [PER * g + s.turn for g, s in enumerate(states)]
    assert (python_masks[on_turn].sum(axis=1) == [len(legal_actions(s)) for s in states]).all()


def test_a_rollout_fills_the_same_buffers_on_either_core(monkeypatch):
    torch = pytest.importorskip("torch", reason="needs the train extra")
    from cuarenta_tutor.training.a2c import Config
    from cuarenta_tutor.training.rollout import Rollout, buffer_shapes

    cfg = Config.from_dict({"num_envs": 3, "rollout_len": 48, "encoding": 3, "workers": 1, "threads": 1,
                            "mix": {"standard": 0.6, "pagat/4": 0.4}, "pool": {"self": 0.5, "expert": 0.5}})
    filled = []
    for which in ("fast", "python"):
        monkeypatch.setenv("CUARENTA_TUTOR_CORE", which)
        torch.manual_seed(0)
        buffers = {name: torch.zeros(shape, dtype=dtype) for name, (shape, dtype) in buffer_shapes(cfg).items()}
        rollout = Rollout(cfg, buffers, 0, cfg.num_envs, 0, 0)
        rollout.run(0.0)
        filled.append(buffers)
    fast, python = filled
    for name in fast:
        assert torch.equal(fast[name], python[name]), name
    assert fast["acting"].sum() > 40  # 48 plays: a 1 v 1 game's last deal (stock empty, version 3's outcomes) too


def test_one_seats_observation_compiled_is_the_python_encoders_for_every_seat_and_version():
    """The network's own observations (core/observations.py encode_one): every seat, every version, positions after a
    play (a deal due, a game over) among them."""
    assert core.fast()
    states = states_of(5, 120)
    states += [table_after(s) for s in states if not s.is_over] + [finished(2), finished(4)]
    assert any(s.needs_deal for s in states)
    for state in states:
        for version in (1, 2, 3, 4):
            for seat in range(state.rules.players):
                python = encode_into(np.zeros(SIZES[version], np.float32), state, seat, version)
                compiled = encode_one(np.full(SIZES[version], 7.0, np.float32), state, seat, version)
                assert (python.view(np.int32) == compiled.view(np.int32)).all(), (version, seat)


def finished(players: int):
    """The last state of a random game."""
    rng = random.Random(players)
    table = Table(preset("standard", players=players), [None] * players, Dealer(players))
    table.start()
    while not table.state.is_over:
        table.play(rng.choice(legal_actions(table.state)))
    return table.state


def table_after(state):
    """The state after the play that ends the most (a game won, a deal due), else after the first legal play."""
    afters = [apply(state, a)[0] for a in legal_actions(state)]
    return max(afters, key=lambda s: (s.is_over, s.needs_deal))


def test_the_networks_levels_observe_on_the_compiled_core_with_the_same_decisions(monkeypatch):
    from cuarenta_tutor import players
    from cuarenta_tutor.core import observations

    compiled_encodes = []
    encode_seat = observations.encode_seat
    monkeypatch.setattr(observations, "encode_seat", lambda *args: compiled_encodes.append(1) or encode_seat(*args))
    state = next(s for s in states_of(9, 40) if plays_out(s, 4) and s.rules.players == 4)
    decisions, counts = [], []
    for which in ("fast", "python"):
        monkeypatch.setenv("CUARENTA_TUTOR_CORE", which)
        club = players.make("club")
        club.reset(state.turn)
        decisions.append(club.decide(state))
        counts.append(len(compiled_encodes))
    assert counts[0] > 0 and counts[1] == counts[0]  # the level observed on the core, and only where it serves
    fast, python = decisions
    assert fast.probs == python.probs and fast.value == python.value and fast.action_values == python.action_values


def test_the_networks_observation_never_waits_for_another_threads_load(monkeypatch):
    """The app's screen thread observes the person's moves (the helper's encode_one): while the warm thread loads
    the core from a whole cache, the Python encoder answers at once instead of waiting for the load as a hint does."""
    import threading

    monkeypatch.setattr(core, "_cached", lambda: True)
    monkeypatch.setattr(core, "LOAD_WAIT_S", 60.0)
    loader = threading.Timer(2.0, another_thread_loading(monkeypatch))
    loader.start()
    try:
        state = states_of(11, 1)[0]
        out = encode_one(np.zeros(SIZES[3], np.float32), state, state.turn, 3)
        assert not core._WARM["done"]  # answered before the load was over
        assert (out == encode_into(np.zeros(SIZES[3], np.float32), state, state.turn, 3)).all()
    finally:
        loader.cancel()
        core._WARMED.set()


def test_the_warm_compiles_the_networks_observation_so_its_first_decision_compiles_nothing():
    from cuarenta_tutor.agents.onnx_policy import OnnxPolicy
    from cuarenta_tutor.core.encode import encode_seat
    from cuarenta_tutor.core.observations import compiled_agent

    core.warm()  # done once per test process (conftest): what a fresh install's app warms at start
    compiled = list(encode_seat.signatures)
    agent = compiled_agent(OnnxPolicy())
    for rules in (preset("standard"), preset("pagat", players=4)):
        state = Dealer(5).start(rules)[0]
        agent.reset(state.turn)
        assert agent.decide(state).action in legal_actions(state)
    assert compiled and encode_seat.signatures == compiled  # a new type here would be compiled at a first move
