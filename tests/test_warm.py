"""A warm start from the shipped ONNX model: the torch network rebuilt from the graph gives the same policy,
value and memory as onnxruntime, and a file that is not an exported agent is refused in one line."""

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")

from cuarenta_tutor.agents.expert import move_values  # noqa: E402
from cuarenta_tutor.agents.features import encode  # noqa: E402
from cuarenta_tutor.agents.onnx_contract import ModelError  # noqa: E402
from cuarenta_tutor.agents.onnx_policy import OnnxPolicy, default_model_path, load_session  # noqa: E402
from cuarenta_tutor.encoding import N_ACTIONS, OBS_SIZE, SIZES, legal_mask  # noqa: E402
from cuarenta_tutor.engine import Dealer, preset  # noqa: E402
from cuarenta_tutor.training.model import MOVE_PRIOR, ActorCritic  # noqa: E402
from cuarenta_tutor.training.warm import load_into, sizes_from_onnx  # noqa: E402

GENERATIONS = Path(__file__).resolve().parent.parent / "artifacts" / "generations"
"""The past generations, kept in the checkout (never in the wheel)."""
VERSION_1 = GENERATIONS / "gen1.onnx"
"""Generation 1, of encoding version 1 (the state alone), kept among the generations."""
VERSION_2 = GENERATIONS / "gen5.onnx"
"""Generation 5, of encoding version 2 (each move's features beside the state)."""


@pytest.mark.parametrize("path", [VERSION_1, VERSION_2, default_model_path()],
                         ids=["version-1", "version-2", "shipped"])
def test_the_network_rebuilt_from_the_graph_matches_onnxruntime(path):
    width = OnnxPolicy(path).width
    net = ActorCritic(width, N_ACTIONS, **sizes_from_onnx(path))
    load_into(net, path)
    session, hidden = load_session(path)
    rng = np.random.default_rng(0)
    obs = rng.random((4, width), dtype=np.float32)
    mask = rng.random((4, N_ACTIONS)) > 0.5
    h, c = (rng.standard_normal((1, 4, hidden)).astype(np.float32) for _ in range(2))
    probs, value, h_out, c_out = session.run(None, {"obs": obs, "mask": mask, "h": h, "c": c})
    with torch.no_grad():
        mine = net.step(*(torch.from_numpy(x) for x in (obs, mask, h, c)))
    for theirs, ours in zip((probs, h_out, c_out), (mine[0], mine[2], mine[3]), strict=True):
        assert np.abs(theirs - ours.numpy()).max() < 1e-5
    # the value: the graph's Platt scaling is not a weight; without it the order of the values is the same
    assert np.argsort(value).tolist() == np.argsort(mine[1].numpy()).tolist()


def test_a_file_that_is_not_an_exported_agent_is_refused(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(ModelError, match="cannot be read as an ONNX model"):
        sizes_from_onnx(bad)
    small = ActorCritic(OBS_SIZE, N_ACTIONS, feature=64, strategy=32, hidden=16)
    with pytest.raises(ModelError, match="does not fit this network"):
        load_into(small, default_model_path())


def test_a_version_2_network_warm_started_from_a_version_1_model_adds_the_experts_estimate():
    # Its move head starts at MOVE_PRIOR x the expert's points for each move: the old model's probabilities
    # times exp(MOVE_PRIOR x points), renormalised, on real positions.
    assert OnnxPolicy(VERSION_1).encoding == 1
    old = ActorCritic(SIZES[1], N_ACTIONS, **sizes_from_onnx(VERSION_1))
    new = ActorCritic(SIZES[2], N_ACTIONS, **sizes_from_onnx(VERSION_1))
    load_into(old, VERSION_1)
    load_into(new, VERSION_1)
    dealer = Dealer(5)
    state, _ = dealer.start(preset("standard"))
    zero = torch.zeros(1, 1, 128)
    checked = 0
    while not state.is_over and checked < 12:
        mask = torch.from_numpy(legal_mask(state))[None]
        with torch.no_grad():
            p_old = old.step(torch.from_numpy(encode(state, state.turn)[:SIZES[1]])[None], mask, zero, zero)[0][0]
            p_new = new.step(torch.from_numpy(encode(state, state.turn))[None], mask, zero, zero)[0][0]
        values = move_values(state)
        legal = sorted(values)
        mixed = np.array([np.log(float(p_old[a])) + MOVE_PRIOR * max(-20, min(20, values[a])) for a in legal])
        mixed = np.exp(mixed - mixed.max())
        assert np.allclose(mixed / mixed.sum(), [float(p_new[a]) for a in legal], atol=1e-4)
        checked += len(legal) > 1
        state, _ = dealer.play(state, legal[0])
    assert checked >= 5
