"""The playout policy (analysis/policy.py, core/scorer.py, training/distil.py): the scorer plays what its weights say,
a damaged one is reported and not used, the analysis's playouts use it where the table values the hand's end (and
no network step then), errors measured with the network are not taken for its, and distil fits and keeps one."""

import json
import math
import random
import sys
from dataclasses import replace

import numpy as np
import pytest
from helpers import agent_position, fixed

from cuarenta_tutor.agents.onnx_policy import OnnxPolicy
from cuarenta_tutor.analysis.analyse import analyse
from cuarenta_tutor.analysis.calibrate import settings_for, write_sidecar
from cuarenta_tutor.analysis.policy import PlayoutPolicy
from cuarenta_tutor.analysis.values import policy_for, read_sidecar, sidecar, sidecar_problem
from cuarenta_tutor.core.scorer import N_FEATURES, pick, size

HIDDEN = 2


def params(bias=None, linear=None) -> np.ndarray:
    """A scorer with no hidden layer's say (its output weights 0): an action's own bias and a linear term only."""
    p = np.zeros(size(HIDDEN))
    w_lin = HIDDEN * (N_FEATURES + 2) + 1
    if linear is not None:
        p[w_lin:w_lin + N_FEATURES] = linear
    if bias is not None:
        p[w_lin + N_FEATURES + 1:] = bias
    return p


@pytest.mark.parametrize("compiled", [True, False])
def test_the_scorer_plays_the_move_its_weights_rank_first(compiled):
    choose = pick if compiled else pick.py_func
    features = np.zeros((3, N_FEATURES), np.float32)
    features[:, 9] = [0.5, 2.0, -1.0]  # the expert's estimate of each of the three legal moves
    legal = np.array([4, 9, 30], np.int32)
    assert choose(features, legal, 3, params(bias=np.arange(53.0)), HIDDEN) == 30  # the highest own bias
    assert choose(features, legal, 3, params(linear=np.eye(N_FEATURES)[9]), HIDDEN) == 9  # the best estimate
    assert choose(features, legal, 3, params(), HIDDEN) == 4  # all equal: the first (lowest id) keeps it
    hidden = params()
    hidden[:N_FEATURES] = np.eye(N_FEATURES)[9]  # unit 0 reads the estimate; output weight -1: the worst estimate
    hidden[HIDDEN * N_FEATURES + HIDDEN] = -1.0
    features[:, 9] = [0.5, 2.0, 1.0]
    assert choose(features, legal, 3, hidden, HIDDEN) == 4


@pytest.mark.parametrize("damage, words", [
    ("not a dict", "not a JSON object"),
    ({"hidden": 0, "params": []}, "hidden size must be a whole number"),
    ({"hidden": 4, "params": [0.0] * 5}, f"needs {size(4)} parameters"),
    ({"hidden": 1, "params": [0.0] * (size(1) - 1) + ["x"]}, "not a finite number"),
])
def test_a_damaged_policy_is_reported_and_the_network_plays(model_copy, damage, words):
    agent = OnnxPolicy(model_copy)
    data = dict(read_sidecar(model_copy, agent.model_id))
    data["playout_policy"] = damage
    write_sidecar(model_copy, data)
    problem = sidecar_problem(model_copy, agent.model_id)
    assert "is damaged" in problem and words in problem and "training.distil --model" in problem
    assert policy_for(model_copy, agent.model_id) is None
    state, memory = agent_position(2, 3, 11)
    result = analyse(state, OnnxPolicy(model_copy), fixed(4), memory=memory)
    assert (result.leaf, result.playout) == ("table", "network")  # the table still serves
    with pytest.raises(ValueError, match=words):
        PlayoutPolicy.from_json(damage)


def test_a_policy_with_a_parameter_json_cannot_hold_is_refused():
    with pytest.raises(ValueError, match="not a finite number"):
        PlayoutPolicy.from_json({"hidden": 1, "params": [0.0] * (size(1) - 1) + [math.inf]})


def with_policy(model_copy, policy: PlayoutPolicy, errors: dict | None = None) -> OnnxPolicy:
    agent = OnnxPolicy(model_copy)
    data = dict(read_sidecar(model_copy, agent.model_id))
    data["playout_policy"] = policy.to_json()
    if errors is not None:
        data["errors"] = {**data["errors"], **errors}
    write_sidecar(model_copy, data)
    assert sidecar_problem(model_copy, agent.model_id) is None
    return agent


def counted(agent):
    calls = []
    run = agent.run

    def counting(*args):
        calls.append(len(args[0]))
        return run(*args)
    agent.run = counting
    return calls


def test_the_analysis_plays_the_policy_where_the_table_ends_the_hand_and_the_network_elsewhere(model_copy):
    state, memory = agent_position(2, 3, 11)
    expert_like = PlayoutPolicy(HIDDEN, params(linear=np.eye(N_FEATURES)[9]))  # plays the best one-reply estimate
    agent = with_policy(model_copy, expert_like)
    calls = counted(agent)
    policy = analyse(state, agent, fixed(8), memory=memory)
    assert policy.playout == "policy" and policy.leaf == "table" and not calls  # no network step in its playouts
    network = analyse(state, agent, replace(fixed(8), playout="network"), memory=memory)
    assert network.playout == "network" and calls
    assert [m.win_pct for m in policy.moves] != [m.win_pct for m in network.moves]
    critic = analyse(state, agent, replace(fixed(8), leaf="critic"), memory=memory)
    assert critic.playout == "network"  # no table: the critic needs the network's memory at the horizon
    bias_first = with_policy(model_copy, PlayoutPolicy(HIDDEN, params(bias=np.arange(53.0))))
    other = analyse(state, bias_first, fixed(8), memory=memory)
    assert [m.win_pct for m in other.moves] != [m.win_pct for m in policy.moves]  # the weights are what plays


def test_the_network_plays_where_every_card_is_known_and_the_first_plies_where_the_other_team_is_about_to_win(
        model_copy, monkeypatch):
    # the policy's line is far from the network's there (analyse.NETWORK_WITHIN); everywhere else it plays
    from cuarenta_tutor.analysis.analyse import NETWORK_PLIES, NETWORK_WITHIN
    from cuarenta_tutor.analysis.validate import played_by
    from cuarenta_tutor.engine import TARGET_SCORE, knows_every_card

    agent = with_policy(model_copy, PlayoutPolicy(HIDDEN, params(linear=np.eye(N_FEATURES)[9])))
    calls = counted(agent)
    state, memory = agent_position(2, 3, 11)
    mine, other = state.team_of(state.turn), 1 - state.team_of(state.turn)

    def played(at: dict):
        scores = [0, 0]
        for team, score in at.items():
            scores[team] = score
        calls.clear()
        result = analyse(state._replace(scores=tuple(scores)), agent, fixed(8), memory=memory)
        return result.playout, len(calls), [m.win_pct for m in result.moves]

    near = TARGET_SCORE - NETWORK_WITHIN
    playout, steps, network_first = played({other: near})
    assert (playout, steps) == played({other: near + 2, mine: 20})[:2] == ("policy", NETWORK_PLIES)  # a step a ply
    assert played({other: near - 1})[:2] == played({mine: near + 2, other: near - 1})[:2] == ("policy", 0)
    monkeypatch.setattr(sys.modules["cuarenta_tutor.analysis.analyse"], "NETWORK_PLIES", 0)
    _, steps, policy_only = played({other: near})
    assert steps == 0 and policy_only != network_first  # the network's plies are what changed the numbers
    last, last_memory = agent_position(2, 32, 11)  # the last deal of the first hand: every card known
    assert knows_every_card(last) and max(last.scores) < near
    known = analyse(last, agent, fixed(8), memory=last_memory)
    assert known.playout == "network"
    # the errors a fit measures are the policy's if it played any of its positions, the first one known or not
    assert played_by([known, analyse(state, agent, fixed(8), memory=memory)]) == "policy"
    assert played_by([known]) == "network"


def test_errors_measured_with_the_network_playing_are_not_the_policys(model_copy):
    policy = PlayoutPolicy(HIDDEN, params(linear=np.eye(N_FEATURES)[9]))
    with_policy(model_copy, policy, {"playout": "network", "value_sd": 1.25, "loss_sd": 2.5})
    assert (settings_for(model_copy).value_sd, settings_for(model_copy).loss_sd) == (0.0, 0.0)
    assert settings_for(model_copy, replace(settings_for(model_copy), playout="network")).loss_sd == 2.5
    with_policy(model_copy, policy, {"playout": "policy", "value_sd": 1.25, "loss_sd": 2.5})
    assert (settings_for(model_copy).value_sd, settings_for(model_copy).loss_sd) == (1.25, 2.5)


def test_settings_that_say_network_keep_the_identity_analyses_had_before_the_policy():
    from cuarenta_tutor.analysis.validate import REFERENCE

    assert "playout" not in REFERENCE.to_json() and REFERENCE.playout == "network"
    assert fixed(8).to_json()["playout"] == "policy"


def test_distil_fits_a_scorer_to_the_networks_choices():
    pytest.importorskip("torch")
    from cuarenta_tutor.training.distil import fit

    rng = np.random.default_rng(3)
    rows = 1500
    features = rng.normal(size=(rows, 53, N_FEATURES)).astype(np.float32)
    mask = rng.random((rows, 53)) < 0.1
    mask[:, 0] = True
    target = np.where(mask, features[..., 9], -np.inf).argmax(1)  # a network that plays the best estimate
    probs = np.eye(53, dtype=np.float32)[target]
    fitted = fit({"features": features, "mask": mask, "probs": probs, "held_out": np.arange(rows) % 5 == 0},
                 hidden=4, epochs=60)
    assert fitted.agreement >= 0.9 and fitted.held_out == rows // 5
    assert len(fitted.params) == size(4) and PlayoutPolicy.from_json(fitted.to_json()).hidden == 4
    chosen = [pick(features[i][mask[i]], np.flatnonzero(mask[i]).astype(np.int32), int(mask[i].sum()),
                   fitted.params, 4) for i in range(0, rows, 5)]
    assert np.mean(np.array(chosen) == target[::5]) == pytest.approx(fitted.agreement, abs=0.02)


def test_distil_keeps_its_policy_in_the_sidecar_and_the_analysis_then_plays_it(model_copy, capsys):
    pytest.importorskip("torch")
    from cuarenta_tutor.training.distil import main

    agent = OnnxPolicy(model_copy)
    data = dict(read_sidecar(model_copy, agent.model_id))
    data.pop("playout_policy", None)
    write_sidecar(model_copy, data)
    assert main(["--model", str(model_copy), "--positions", "7", "--keep", "1", "--worlds", "2", "--seed", "4"]) == 0
    out = json.loads(capsys.readouterr().out)
    written = json.loads(sidecar(model_copy).read_text())
    kept = written["playout_policy"]
    assert kept["rows"] == out["rows"] > 0 and kept["agreement"] == out["agreement"] and "distil" in kept["command"]
    assert written["hand_values"] == data["hand_values"] and written["errors"] == data["errors"]  # the rest stays
    state, memory = agent_position(2, 5, random.Random(2).randrange(1000))
    assert analyse(state, OnnxPolicy(model_copy), fixed(4), memory=memory).playout == "policy"


def test_bench_analysis_times_the_network_playing_beside_the_policy():
    from cuarenta_tutor.analysis.validate import REFERENCE, validate

    out = validate(2, 1, fixed(4), replace(REFERENCE, worlds=2, round_worlds=2))
    assert (out["positions"], out["playout"], out["leaf"], out["hint_worlds_min"]) == (2, "policy", "table", 4)
    assert 0 < out["network_hint_ms_p50"] <= out["network_hint_ms_p95"] and out["hint_ms_p50"] > 0
    network = validate(2, 1, replace(fixed(4), playout="network"), replace(REFERENCE, worlds=2, round_worlds=2))
    assert network["playout"] == "network" and "network_hint_ms_p50" not in network
