"""Recalibration of an exported model (training/recalibrate.py): only the value's two constants change."""

import json
import shutil

import numpy as np
import pytest

from cuarenta_tutor.agents.onnx_contract import ModelError
from cuarenta_tutor.agents.onnx_policy import OnnxPolicy, default_model_path, file_sha256, load_session
from cuarenta_tutor.analysis.values import sidecar
from cuarenta_tutor.arena.stats import platt
from cuarenta_tutor.cli import main
from cuarenta_tutor.encoding import N_ACTIONS
from cuarenta_tutor.training.recalibrate import recalibrate, rescale

onnx = pytest.importorskip("onnx")


def shipped_copy(tmp_path):
    """The shipped model with its card and sidecar, in a folder of the test's own."""
    model = tmp_path / "model.onnx"
    for src, dst in ((default_model_path(), model), (default_model_path().with_suffix(".json"), model.with_suffix(
            ".json")), (sidecar(default_model_path()), sidecar(model))):
        shutil.copy(src, dst)
    return model


def outputs(path, feeds):
    session, _ = load_session(path)
    return [session.run(None, feed) for feed in feeds]


def test_rescaling_keeps_the_policy_and_composes_the_value(tmp_path):
    model = shipped_copy(tmp_path)
    out = tmp_path / "out.onnx"
    rng = np.random.default_rng(3)
    width = OnnxPolicy(model).width
    feeds = [{"obs": rng.random((4, width), dtype=np.float32), "mask": rng.random((4, N_ACTIONS)) < 0.3,
              "h": rng.normal(size=(1, 4, 128)).astype(np.float32), "c": np.zeros((1, 4, 128), np.float32)}
             for _ in range(5)]
    a, b = rescale(model, out, 1.5, -0.2, "a test")
    meta = {p.key: p.value for p in onnx.load(str(out)).metadata_props}
    old = {p.key: p.value for p in onnx.load(str(model)).metadata_props}
    a0, b0 = map(float, old["value_calibration"].split(","))
    assert (a, b) == pytest.approx((1.5 * a0, 1.5 * b0 - 0.2), abs=1e-5)  # the metadata keeps 6 decimals
    assert meta["value_calibration"] == f"{a:.6f},{b:.6f}" and meta["value_recalibration"] == "a test"
    for (p1, v1, h1, _), (p2, v2, h2, _) in zip(outputs(model, feeds), outputs(out, feeds), strict=True):
        assert np.array_equal(p1, p2) and np.array_equal(h1, h2)
        assert np.allclose(v2, [platt(float(v), 1.5, -0.2) for v in v1], atol=1e-5)
        assert not np.allclose(v1, v2, atol=1e-3)


def test_recalibrating_in_place_updates_the_card_and_carries_the_sidecar(tmp_path):
    model = shipped_copy(tmp_path)
    before = file_sha256(model)
    fit = recalibrate(model, model, games=6, seed=5, jobs=1)
    assert fit["games"] == 6 and fit["decisions"] > 100 and fit["ece_after"] <= fit["ece_before"] + 1e-9
    card = json.loads(model.with_suffix(".json").read_text())
    assert card["sha256"] == file_sha256(model) != before
    assert card["training"]["recalibration"]["a"] == fit["a"]
    kept = json.loads(sidecar(model).read_text())
    assert kept["model_sha256"] == file_sha256(model) and kept["carried_from"]["model_sha256"] == before
    assert kept["hand_values"] == json.loads(sidecar(default_model_path()).read_text())["hand_values"]


def test_a_graph_without_the_value_scaling_is_refused_and_nothing_written(tmp_path):
    model = shipped_copy(tmp_path)
    proto = onnx.load(str(model))
    for node in proto.graph.node:
        if node.op_type == "Sigmoid":
            node.op_type = "Relu"
    onnx.save(proto, str(model))
    with pytest.raises(ModelError, match="export it again"):
        rescale(model, tmp_path / "out.onnx", 1.1, 0.0, "no")
    assert not (tmp_path / "out.onnx").exists()


def test_export_of_an_onnx_model_needs_calibrate(tmp_path, capsys):
    assert main(["export", str(shipped_copy(tmp_path))]) == 2
    assert "--calibrate GAMES" in capsys.readouterr().err


def test_card_update_replaces_the_result_it_repeats_and_adds_a_new_one(tmp_path):
    from cuarenta_tutor.training.card import main as card_main

    model = shipped_copy(tmp_path)
    card = json.loads(model.with_suffix(".json").read_text())
    expert = next(a for a in card["arena"] if a["opponent"] == "expert" and a.get("players", 2) == 2)
    again = {"b": {"policy": "expert"}, "a": {"reliability": [{"low": 0.0}]}, "games": expert["games"],
             "pairs": expert["pairs"], "win_rate": 0.5, "ci_low": 0.4, "ci_high": 0.6, "mean_point_diff": 0.0,
             "rules": "standard", "seed": expert["seed"], "players": 2, "ece": 0.001}
    (tmp_path / "a.json").write_text("progress...\n" + json.dumps(again))
    (tmp_path / "b.json").write_text(json.dumps({**again, "rules": "pagat", "seed": 9}))
    rescale(model, model, 1.2, 0.0, "test")  # the file changed since its card was written
    assert card_main(["--update", str(model), str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 0
    after = json.loads(model.with_suffix(".json").read_text())
    assert len(after["arena"]) == len(card["arena"]) + 1 and after["sha256"] == file_sha256(model)
    mine = [a for a in after["arena"] if a["opponent"] == "expert" and a["rules"] == "standard"
            and a.get("players", 2) == 2]
    assert len(mine) == 1 and mine[0]["win_rate"] == 0.5 and mine[0]["calibration"]["ece"] == 0.001
    assert after["arena"][-1]["command"].endswith("--rules pagat --calibration --json")


def test_export_recalibrates_into_the_persons_models_folder_and_leaves_the_source(tmp_path, user_data, capsys):
    model = shipped_copy(tmp_path)
    before = model.read_bytes()
    assert main(["export", str(model), "--calibrate", "4", "--calibrate-seed", "4"]) == 0  # seed 4: a game lost
    written = user_data / "models" / "model-recalibrated.onnx"
    assert written.exists() and f"wrote {written}" in capsys.readouterr().out
    assert model.read_bytes() == before and written.read_bytes() != before
    assert json.loads(written.with_suffix(".json").read_text())["sha256"] == file_sha256(written)


def test_export_gives_a_model_another_encoding_of_its_size_and_refuses_another_size(tmp_path, capsys):
    # Generation 6 was trained on version 3; the shipped model is its weights reading version 4.
    from pathlib import Path

    source = tmp_path / "gen6.onnx"
    gens = Path(__file__).resolve().parent.parent / "artifacts" / "generations"  # kept in the checkout
    for suffix in (".onnx", ".json", ".analysis.json"):
        shutil.copy(gens / f"gen6{suffix}", tmp_path / f"gen6{suffix}")
    out = tmp_path / "gen6-v4.onnx"
    assert main(["export", str(source), "--out", str(out), "--encoding", "4"]) == 0
    assert "reading encoding version 4 instead of 3" in capsys.readouterr().out
    old, new = OnnxPolicy(source), OnnxPolicy(out)
    assert (old.encoding, new.encoding, new.width) == (3, 4, old.width)
    rng = np.random.default_rng(2)
    feeds = [{"obs": rng.random((3, old.width), dtype=np.float32), "mask": rng.random((3, N_ACTIONS)) < 0.3,
              "h": rng.normal(size=(1, 3, 128)).astype(np.float32), "c": np.zeros((1, 3, 128), np.float32)}]
    for x, y in zip(outputs(source, feeds), outputs(out, feeds), strict=True):
        assert all(np.array_equal(a, b) for a, b in zip(x, y, strict=True))  # the same weights
    card = json.loads(out.with_suffix(".json").read_text())
    assert card["encoding_version"] == 4 and card["sha256"] == file_sha256(out)
    assert card["training"]["reencoded"]["from_sha256"] == file_sha256(source)
    assert json.loads(sidecar(out).read_text())["model_sha256"] == file_sha256(out)
    # a version of another size needs training: refused, nothing written
    assert main(["export", str(gens / "gen1.onnx"), "--out", str(tmp_path / "no.onnx"), "--encoding", "4"]) == 1
    assert "not 4: a different size needs training" in capsys.readouterr().err
    assert not (tmp_path / "no.onnx").exists()


def test_export_refuses_a_card_that_is_a_link_before_writing_and_says_when_the_model_is_uncalibrated(tmp_path,
                                                                                                   capsys):
    from pathlib import Path

    gens = Path(__file__).resolve().parent.parent / "artifacts" / "generations"
    source, out = tmp_path / "gen6.onnx", tmp_path / "gen6-v4.onnx"
    shutil.copy(gens / "gen6.onnx", source)
    source.with_suffix(".json").symlink_to(gens / "gen6.json")  # someone else's file: not followed, not copied
    assert main(["export", str(source), "--out", str(out), "--encoding", "4"]) == 2
    assert "is a symbolic link" in capsys.readouterr().err
    assert not out.exists() and not out.with_suffix(".json").exists()
    source.with_suffix(".json").unlink()  # no card and no sidecar: the model is written, and said uncalibrated
    assert main(["export", str(source), "--out", str(out), "--encoding", "4"]) == 0
    said = capsys.readouterr().out
    assert "has no analysis sidecar" in said and f"cuarenta_tutor.analysis.calibrate --model {out}" in said


@pytest.mark.parametrize("damage, words", [
    ("model", "is not a usable ONNX model"), ("card", "not a list"),
])
def test_export_of_a_damaged_model_or_card_is_refused_before_any_work(tmp_path, damage, words, capsys):
    model = shipped_copy(tmp_path)
    if damage == "model":
        model.write_bytes(b"garbage")
    else:
        model.with_suffix(".json").write_text("[1, 2]")
    out = tmp_path / "out" / "new.onnx"
    for flags in (["--encoding", "3"], ["--calibrate", "2"]):
        assert main(["export", str(model), "--out", str(out), *flags]) == 2
        err = capsys.readouterr().err
        assert words in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "out").exists()
