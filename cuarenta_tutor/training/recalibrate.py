"""Provides recalibration of an exported model: its value's Platt scaling fitted again, nothing else changed.

The graph ends in value = sigmoid(a * logit + b), two constants. A second fit on the model's own values,
sigmoid(a' * logit(value) + b'), composes with the first into new constants a' * a and a' * b + b', written
in their place; the weights, and so the policy and every move it chooses, stay as they are (checked on
onnxruntime before the file is replaced). Needs onnx and onnxruntime, not torch.

The analysis sidecar (`.analysis.json`: the hand-value table and the analysis's measured error) goes with it
under the new sha256: the table comes from the policy's playouts and the analysis values its playouts with the
table at the hand's end, so neither reads the value head that changed.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import numpy as np

from ..agents.onnx_contract import ModelError
from ..agents.onnx_policy import file_sha256
from ..encoding import N_ACTIONS
from ..records import read_card, write_card


def _platt_nodes(graph):
    """The Constant nodes holding a and b in `value = Sigmoid(Add(Mul(logit, a), b))`."""
    made = {out: node for node in graph.node for out in node.output}
    sigmoid = next((n for n in graph.node if n.op_type == "Sigmoid" and "value" in n.output), None)
    add = made.get(sigmoid.input[0]) if sigmoid is not None else None
    mul = made.get(add.input[0]) if add is not None and add.op_type == "Add" else None
    if mul is None or mul.op_type != "Mul":
        raise ModelError("the graph's value is not sigmoid(a * logit + b): export it again with this version")
    scale, shift = made.get(mul.input[1]), made.get(add.input[1])
    if scale is None or shift is None or scale.op_type != "Constant" or shift.op_type != "Constant":
        raise ModelError("the graph's value scaling is not two constants: export it again with this version")
    return scale, shift


def rescale(model, out, a2: float, b2: float, note: str) -> tuple[float, float]:
    """Write `model` to `out` with its value rescaled by sigmoid(a2 * logit(value) + b2); the new (a, b)."""
    import onnx
    from onnx import numpy_helper

    proto = onnx.load(str(model))
    scale, shift = _platt_nodes(proto.graph)
    a = float(numpy_helper.to_array(scale.attribute[0].t))
    b = float(numpy_helper.to_array(shift.attribute[0].t))
    new = (a2 * a, a2 * b + b2)
    for node, value in zip((scale, shift), new, strict=True):
        node.attribute[0].t.CopyFrom(numpy_helper.from_array(np.array(value, np.float32), node.attribute[0].t.name))
    meta = {p.key: p for p in proto.metadata_props}
    for key, value in (("value_calibration", f"{new[0]:.6f},{new[1]:.6f}"), ("value_recalibration", note)):
        entry = meta.get(key) or proto.metadata_props.add()
        entry.key, entry.value = key, value
    with model_written(out) as tmp:
        onnx.save(proto, str(tmp))
        check_same_policy(model, tmp, a2, b2)
    return new


def check_same_policy(before, after, a2: float, b2: float, steps: int = 30, seed: int = 0) -> None:
    """The two models give the same probabilities and memories, and values related by the second scaling."""
    from ..agents.onnx_policy import load_session, obs_width
    from ..arena.stats import platt

    (first, hidden), (second, _) = load_session(before), load_session(after)
    sessions = (first, second)
    width = obs_width(first)
    rng = np.random.default_rng(seed)
    h = c = np.zeros((1, 3, hidden), np.float32)
    for _ in range(steps):
        feed = {"obs": rng.random((3, width), dtype=np.float32), "mask": rng.random((3, N_ACTIONS)) < 0.3,
                "h": h, "c": c}
        feed["mask"][:, 0] = True
        (p1, v1, h1, c1), (p2, v2, h2, c2) = (s.run(None, feed) for s in sessions)
        if not (np.array_equal(p1, p2) and np.array_equal(h1, h2) and np.array_equal(c1, c2)):
            raise ModelError("the recalibrated model's policy differs from the original's: not written")
        expected = np.array([platt(float(v), a2, b2) for v in v1])
        if not np.allclose(v2, expected, atol=1e-4):
            raise ModelError("the recalibrated model's value is not the rescaled original: not written")
        h, c = h1, c1


@contextmanager
def model_written(out):
    """The file to write the model `out` through (OUT.tmp.onnx): it replaces `out` when the block ends, and is
    removed when the block fails, so a failed export or recalibration leaves nothing beside `out`. Its memory graph
    (agents/memory_graph.py) is then written beside it."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp.onnx")
    try:
        yield tmp
        tmp.replace(out)
    finally:
        tmp.unlink(missing_ok=True)
    write_memory_graph(out)


def carry_sidecar(model, out, model_sha: str, why: str = "only the value's scaling changed (recalibrate.py)") -> bool:
    """Copy `model`'s analysis sidecar beside `out`, keyed to `out`'s sha256 (see the module's docstring); False
    where it has none made for it (`model_sha`: the model's sha256 before it was rescaled)."""
    from ..analysis.calibrate import write_sidecar
    from ..analysis.values import read_sidecar

    data = dict(read_sidecar(Path(model), model_sha))  # records.read_json; {} where it has none made for it
    if not data:
        return False
    data["model_sha256"] = file_sha256(out)
    data["carried_from"] = {"model_sha256": model_sha, "why": why}
    write_sidecar(Path(out), data)
    return True


def fit_scaling(model, games: int, seed: int, jobs: int = 2) -> tuple[float, float, dict]:
    """Play `model` (an ONNX file) against the expert over `games` and fit Platt scaling on the values of every
    decision: (a, b, {"a", "b" rounded, "games", "seed", "decisions", "ece_before", "ece_after"})."""
    from ..arena import run_match
    from ..arena.stats import fit_platt, platt, reliability

    results = run_match(f"onnx:{model}", "expert", games, jobs=jobs, seed=seed)
    pairs = [vw for r in results for vw in r.a.values]
    values, outcomes = [v for v, _ in pairs], [w for _, w in pairs]
    a, b = fit_platt(values, outcomes)
    return a, b, {"a": round(a, 6), "b": round(b, 6), "games": games, "seed": seed, "decisions": len(values),
                  "ece_before": round(reliability(values, outcomes)[1], 4),
                  "ece_after": round(reliability([platt(v, a, b) for v in values], outcomes)[1], 4)}


def recalibrate(model, out, games: int = 4000, seed: int = 777, jobs: int = 2) -> dict:
    """Play `model` against the expert over `games` (seeds apart from the evaluation's), fit a second Platt
    scaling on the values of every decision, and write the rescaled model to `out` (it may be `model`). Its card
    beside `out`, where there is one, gets the new sha256 and size and the fit under training.recalibration."""
    model_sha, card = file_sha256(model), read_card(Path(model).with_suffix(".json"))  # a bad card stops it here
    a2, b2, found = fit_scaling(model, games, seed, jobs)
    a, b = rescale(model, out, a2, b2, f"refitted on {games} games against the expert, seed {seed}")
    fit = {**found, "a": round(a, 6), "b": round(b, 6), "refit": [found["a"], found["b"]]}
    carry_sidecar(model, out, model_sha)
    carry_card(card, out, "recalibration", {
        **fit, "command": f"cuarenta-tutor export {model} --out {out} --calibrate {games} --calibrate-seed {seed}"})
    return fit


def carry_card(card: dict | None, out, key: str, change: dict, **fields) -> None:
    """Write the model's `card` (records.read_card: None where it has none) beside `out` with `out`'s sha256 and
    size, `fields` replaced and `change` under training.`key`."""
    if card is not None:
        card = dict(card)
        card.update(sha256=file_sha256(out), size_bytes=Path(out).stat().st_size, **fields)
        card.setdefault("training", {})[key] = change
        write_card(Path(out).with_suffix(".json"), card)


def reencode(model, out, version: int) -> dict:
    """Write `model` to `out` reading observation encoding `version` instead of its own, the weights unchanged:
    only a version of the same size, whose vectors differ only in the move features' values (encoding.py), e.g.
    generation 6 (version 3) reading version 4's outcomes of the last deal of 2 v 2. The card beside `out` gets
    the new version, sha256 and size, and the change under training.reencoded; the analysis sidecar goes with it
    (its playouts read version 2's features whatever the model's: analysis/playout.py)."""
    import onnx

    from ..encoding import SIZES

    proto = onnx.load(str(model))
    meta = {p.key: p for p in proto.metadata_props}
    if "encoding_version" not in meta:
        raise ModelError(f"{model} has no encoding_version in its metadata: it was not exported by cuarenta-tutor")
    before = int(meta["encoding_version"].value)
    if version not in SIZES or before not in SIZES or SIZES[version] != SIZES[before]:
        same = [str(v) for v in SIZES if before in SIZES and SIZES[v] == SIZES[before]]
        raise ModelError(f"{model} reads encoding version {before}; it can be given version {' or '.join(same) or '?'}"
                         f" (the same size), not {version}: a different size needs training")
    meta["encoding_version"].value = str(version)
    model_sha, card = file_sha256(model), read_card(Path(model).with_suffix(".json"))
    out = Path(out)
    with model_written(out) as tmp:
        onnx.save(proto, str(tmp))
    carry_sidecar(model, out, model_sha, why=f"only the encoding version changed ({before} to {version})")
    change = {"from": before, "to": version, "from_sha256": model_sha,
              "command": f"cuarenta-tutor export {model} --out {out} --encoding {version}"}
    carry_card(card, out, "reencoded", change, encoding_version=version)
    return change


def write_memory_graph(model) -> Path:
    """Cut the memory graph (obs, h, c -> h_out, c_out; agents/memory_graph.py) out of the ONNX model at `model` and
    write it beside it, naming the model's sha256 (through a temporary file: a stop leaves the old one or none)."""
    import onnx
    import onnx.utils

    from ..agents.memory_graph import INPUTS, OUTPUTS, memory_path

    model, out = Path(model), memory_path(model)
    tmp = out.with_suffix(".tmp")
    try:
        onnx.utils.extract_model(str(model), str(tmp), list(INPUTS), list(OUTPUTS))
        graph = onnx.load(str(tmp))
        del graph.metadata_props[:]
        entry = graph.metadata_props.add()
        entry.key, entry.value = "source_sha256", file_sha256(model)
        onnx.save(graph, str(tmp))
        tmp.replace(out)
    finally:
        tmp.unlink(missing_ok=True)
    return out

