"""A warm start from the shipped ONNX model: the torch network rebuilt from the graph gives the same policy,
value and memory as onnxruntime, and a file that is not an exported agent is refused in one line."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")

from cuarenta_tutor.agents.onnx_contract import ModelError  # noqa: E402
from cuarenta_tutor.agents.onnx_policy import default_model_path, load_session  # noqa: E402
from cuarenta_tutor.encoding import N_ACTIONS, OBS_SIZE  # noqa: E402
from cuarenta_tutor.training.model import ActorCritic  # noqa: E402
from cuarenta_tutor.training.warm import load_into, sizes_from_onnx  # noqa: E402


def test_the_network_rebuilt_from_the_shipped_graph_matches_onnxruntime():
    path = default_model_path()
    net = ActorCritic(OBS_SIZE, N_ACTIONS, **sizes_from_onnx(path))
    load_into(net, path)
    session, hidden = load_session(path)
    rng = np.random.default_rng(0)
    obs = rng.random((4, OBS_SIZE), dtype=np.float32)
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
