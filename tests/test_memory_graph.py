"""The memory graph beside the model (agents/memory_graph.py): the same LSTM memory as the whole model, bit for bit;
the analysis gives the same numbers with it as without, on either core, 1 v 1 and 2 v 2; one made for another model
or damaged is not used; the export writes it."""

import random
import shutil
from dataclasses import replace

import numpy as np
import pytest
from helpers import agent_position, fixed

from cuarenta_tutor import core
from cuarenta_tutor.agents.memory_graph import load_memory, memory_path
from cuarenta_tutor.agents.onnx_policy import OnnxPolicy, default_model_path, file_sha256
from cuarenta_tutor.analysis.analyse import analyse
from cuarenta_tutor.analysis.playout import Playouts, play_worlds
from cuarenta_tutor.engine import legal_actions
from cuarenta_tutor.engine.knowledge import determinize

AGENT = OnnxPolicy()


@pytest.fixture(scope="module")
def bare(tmp_path_factory):
    """The shipped model and its sidecar in a folder of their own, with no memory graph beside them."""
    folder = tmp_path_factory.mktemp("bare")
    shipped = default_model_path()
    for path in (shipped, shipped.with_suffix(".json"), shipped.with_suffix(".analysis.json")):
        shutil.copyfile(path, folder / path.name)
    return OnnxPolicy(folder / shipped.name)


def test_the_shipped_memory_graph_steps_the_memory_as_the_whole_model_does():
    remember = AGENT.remember
    assert remember is not None, f"{memory_path(AGENT.path)} is missing or made for another model"
    rng = np.random.default_rng(3)
    obs = rng.random((37, AGENT.width), dtype=np.float32)
    mask = rng.random((37, 53)) < 0.3
    mask[:, 0] = True
    h, c = (rng.standard_normal((1, 37, AGENT.hidden)).astype(np.float32) for _ in range(2))
    _, _, h_full, c_full = AGENT.run(obs, mask, h, c)
    h_mem, c_mem = remember(obs, h, c)
    assert np.array_equal(h_full, h_mem) and np.array_equal(c_full, c_mem)
    probs_part = AGENT.run(obs[5:9], mask[5:9], h[:, 5:9], c[:, 5:9])[0]  # a row's outputs do not hang on its batch
    assert np.array_equal(probs_part, AGENT.run(obs, mask, h, c)[0][5:9])


@pytest.mark.parametrize("name, players, plies, horizon", [
    ("fast", 2, 4, "hand"), ("fast", 2, 9, "deal"), ("fast", 4, 6, "hand"), ("python", 2, 4, "hand"),
    ("python", 4, 9, "deal")])
def test_the_analysis_is_the_same_with_the_memory_graph_and_without(monkeypatch, bare, name, players, plies,
                                                                    horizon):
    monkeypatch.setenv("CUARENTA_TUTOR_CORE", name)
    state, memory = agent_position(players, plies, random.Random(plies).randrange(1000))
    settings = replace(fixed(4), horizon=horizon, round_worlds=2)
    assert bare.remember is None and AGENT.remember is not None
    with_graph, without = analyse(state, AGENT, settings, memory=memory), analyse(state, bare, settings, memory=memory)
    assert with_graph.moves == without.moves
    assert with_graph.leaf == without.leaf


@pytest.mark.parametrize("name", core.CORES)
def test_lanes_cut_at_the_ply_limit_are_valued_by_the_same_critic(monkeypatch, name):
    """The analysing seat's value is read where a lane reaches `max_plies`: that row runs the whole model."""
    monkeypatch.setenv("CUARENTA_TUTOR_CORE", name)
    state, (h0, c0) = agent_position(2, 3, 11)
    rng = random.Random(2)
    worlds = [determinize(state, state.turn, rng) for _ in range(4)]
    seeds = [rng.randrange(1 << 62) for _ in worlds]
    found = []
    for remember in (AGENT.remember, None):
        playouts = Playouts(AGENT.run, AGENT.hidden, "game", max_plies=3, encoding=AGENT.encoding, remember=remember)
        found.append(play_worlds(playouts, worlds, legal_actions(state), state.turn, seeds, h0, c0).value)
    assert not np.isnan(found[0]).any()
    assert np.array_equal(found[0], found[1])


@pytest.mark.parametrize("remember", [AGENT.remember, None], ids=["memory graph", "whole model"])
def test_a_step_split_over_two_threads_gives_the_same_numbers(monkeypatch, remember):
    """Large network steps run in two threads (the whole model beside the memory graph, or two halves): the same
    values as one thread, bit for bit."""
    from cuarenta_tutor.analysis import playout

    state, (h0, c0) = agent_position(4, 6, 5)
    rng = random.Random(4)
    worlds = [determinize(state, state.turn, rng) for _ in range(6)]
    seeds = [rng.randrange(1 << 62) for _ in worlds]
    found = []
    monkeypatch.setattr(playout, "THREADS", 2)  # split even on a one-core machine
    for split_from in (1 << 30, 1):
        monkeypatch.setattr(playout, "SPLIT_STEP_FROM", split_from)
        playouts = Playouts(AGENT.run, AGENT.hidden, "game", max_plies=12, encoding=AGENT.encoding, remember=remember)
        found.append(play_worlds(playouts, worlds, legal_actions(state), state.turn, seeds, h0, c0).value)
    assert not np.isnan(found[0]).any()
    assert np.array_equal(found[0], found[1])


def test_a_graph_made_for_another_model_or_damaged_is_not_used(tmp_path, bare):
    model = tmp_path / "m.onnx"
    shutil.copyfile(bare.path, model)
    shutil.copyfile(memory_path(AGENT.path), memory_path(model))
    sha = file_sha256(model)
    assert load_memory(str(model), sha) is not None  # the copy names the same model
    assert load_memory(str(model), "0" * 64) is None  # made for another model
    damaged = tmp_path / "d.onnx"
    shutil.copyfile(bare.path, damaged)
    memory_path(damaged).write_bytes(memory_path(AGENT.path).read_bytes()[:5000])
    assert load_memory(str(damaged), sha) is None
    assert OnnxPolicy(damaged).remember is None


def test_a_graph_written_after_the_model_was_first_used_is_found(tmp_path, bare):
    model = tmp_path / "late.onnx"  # an app running while an export writes the graph beside its model
    shutil.copyfile(bare.path, model)
    sha = file_sha256(model)
    assert load_memory(str(model), sha) is None
    shutil.copyfile(memory_path(AGENT.path), memory_path(model))
    assert load_memory(str(model), sha) is not None


def test_writing_a_model_writes_its_memory_graph_naming_it(tmp_path):
    pytest.importorskip("onnx")
    from cuarenta_tutor.training.recalibrate import model_written

    out = tmp_path / "new.onnx"
    with model_written(out) as tmp:
        shutil.copyfile(default_model_path(), tmp)
    assert memory_path(out).is_file()
    agent = OnnxPolicy(out)
    assert agent.remember is not None
    assert memory_path(out).read_bytes() == memory_path(default_model_path()).read_bytes()
