"""Provides a warm start from an exported model: the ONNX graph's weights read back into the torch network, so
a new generation trains on from the shipped model instead of from scratch (no checkpoint is shipped).

The graph keeps the linear layers under their torch names ("net.feature.0.weight") and the LSTM as ONNX's
packed W, R and B, whose gates come in the order i, o, f, c where torch has i, f, g (= c), o. The Platt
scaling of the value (two constants in the graph) is not a weight: a warm-started network trains its critic
on, and `export --calibrate` scales it again.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from ..agents.onnx_contract import ModelError

ONNX_TO_TORCH_GATES = (0, 2, 3, 1)
"""For each torch gate (i, f, g, o), the ONNX gate block it comes from (ONNX: i, o, f, c)."""


def _gates(packed: np.ndarray, hidden: int) -> np.ndarray:
    blocks = [packed[k * hidden:(k + 1) * hidden] for k in range(4)]
    return np.concatenate([blocks[k] for k in ONNX_TO_TORCH_GATES])


def weights_from_onnx(path) -> dict:
    """The torch state dict of ActorCritic from an exported ONNX model; ModelError if the graph is not one."""
    import onnx
    from onnx import numpy_helper

    path = Path(path)
    if not path.is_file():  # never opened: a FIFO would be waited on for ever
        why = "not a regular file" if path.exists() else "there is no such file"
        raise ModelError(f"{path} is not an ONNX model file ({why}); give an exported .onnx model")
    try:
        graph = onnx.load(str(path)).graph
    except Exception as err:  # onnx's own errors: a damaged or foreign file
        raise ModelError(f"{path} cannot be read as an ONNX model ({str(err).splitlines()[0][:200]})") from None
    found = {init.name: numpy_helper.to_array(init) for init in graph.initializer}
    for node in graph.node:  # the exporter keeps one copy of equal weights (zeros, often) and aliases the others
        if node.op_type == "Identity" and node.input[0] in found and node.output[0].startswith("net."):
            found[node.output[0]] = found[node.input[0]]
    lstm = next((node for node in graph.node if node.op_type == "LSTM"), None)
    if lstm is None or any(not name.startswith("net.") for name in found if "LSTM" not in name and "lstm" not in name):
        raise ModelError(f"{path} is not an exported Cuarenta agent (no LSTM, or weights under other names)")
    w, r, b = (found[name] for name in lstm.input[1:4])
    hidden = r.shape[-1]
    state = {name[len("net."):]: torch.from_numpy(np.array(value)) for name, value in found.items()
             if name.startswith("net.")}
    state["lstm.weight_ih_l0"] = torch.from_numpy(_gates(w[0], hidden).copy())
    state["lstm.weight_hh_l0"] = torch.from_numpy(_gates(r[0], hidden).copy())
    state["lstm.bias_ih_l0"] = torch.from_numpy(_gates(b[0][:4 * hidden], hidden).copy())
    state["lstm.bias_hh_l0"] = torch.from_numpy(_gates(b[0][4 * hidden:], hidden).copy())
    return state


def sizes_from_onnx(path) -> dict:
    """The network sizes (feature, strategy, hidden) an exported model was trained with."""
    state = weights_from_onnx(path)
    return {"feature": state["feature.0.weight"].shape[0], "strategy": state["strategy.0.weight"].shape[0],
            "hidden": state["lstm.weight_hh_l0"].shape[1]}


def load_into(net, path) -> None:
    """Put an exported model's weights into `net` (its sizes must match: ModelError says which differ). A model of
    encoding version 1 has no move head: a version-2 network keeps its own new one (model.py: it starts from
    the expert's estimate), and reads the state slots as before."""
    state = weights_from_onnx(path)
    own = net.state_dict()
    if not any(k.startswith("move_") for k in state):
        state.update({k: v for k, v in own.items() if k.startswith("move_")})
    wrong = [k for k in own if k not in state or tuple(state[k].shape) != tuple(own[k].shape)]
    if wrong:
        raise ModelError(f"{path} does not fit this network ({', '.join(wrong[:3])}): train with the sizes it "
                         f"was trained with ({sizes_from_onnx(path)})")
    net.load_state_dict({k: state[k].to(own[k].dtype) for k in own})
