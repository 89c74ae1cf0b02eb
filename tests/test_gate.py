"""The gate of a new generation: accepted only when its interval against the model it would replace lies
above 0.5; every gate recorded in the card; a rejected generation never copied over the old model."""

import json
import shutil

import pytest
from helpers import HANG

onnx = pytest.importorskip("onnx")

from onnx import numpy_helper  # noqa: E402

from cuarenta_tutor.agents.onnx_policy import default_model_path  # noqa: E402
from cuarenta_tutor.training import gate  # noqa: E402


def random_player(path):
    """The shipped model with its policy heads (the actor's and the move head's) zeroed: it plays uniformly among
    the legal moves."""
    model = onnx.load(str(default_model_path()))
    for init in model.graph.initializer:
        if init.name.startswith(("net.actor.", "net.move_out.", "net.move_linear.")):
            init.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(init) * 0, init.name))
    onnx.save(model, str(path))
    return path


def test_a_better_generation_passes_and_is_promoted_an_equal_one_is_rejected_and_never_copied(tmp_path):
    weak = random_player(tmp_path / "weak.onnx")
    candidate = tmp_path / "candidate.onnx"
    shutil.copyfile(default_model_path(), candidate)
    passed = gate.gate(candidate, weak, games=4)  # two seed pairs, both won: the interval lies above 0.5
    assert passed["accepted"] and passed["ci95"][0] > 0.5 and passed["games"] == 4
    assert passed["command"].startswith("cuarenta-tutor arena onnx:") and "--games 4 --seed 31000" in passed["command"]
    gate.record(candidate.with_suffix(".json"), passed)
    destination = tmp_path / "models" / "current.onnx"
    destination.parent.mkdir()
    shutil.copyfile(weak, destination)
    assert gate.promote(candidate, destination)
    assert destination.read_bytes() == candidate.read_bytes()
    assert json.loads(destination.with_suffix(".json").read_text())["gates"] == [passed]

    same = gate.gate(candidate, default_model_path(), games=4)  # the same model: no better than itself
    assert not same["accepted"] and same["ci95"][0] <= 0.5
    gate.record(candidate.with_suffix(".json"), same)
    shutil.copyfile(weak, destination)
    before = destination.read_bytes()
    assert not gate.promote(candidate, destination)
    assert destination.read_bytes() == before  # the rejected generation never replaces the model
    assert [g["accepted"] for g in json.loads(candidate.with_suffix(".json").read_text())["gates"]] == [True, False]


def test_train_from_the_shipped_model_gated_and_promoted_only_if_accepted(tmp_path):
    import subprocess
    import sys

    config = tmp_path / "config.json"
    config.write_text(json.dumps({"total_steps": 32, "num_envs": 4, "rollout_len": 8, "eval_every": 0,
                                  "workers": 1, "snapshot_every": 4}))
    weak = random_player(tmp_path / "weak.onnx")
    destination = tmp_path / "current.onnx"
    shutil.copyfile(weak, destination)
    done = subprocess.run([sys.executable, "-m", "cuarenta_tutor.cli", "train", "--config", str(config), "--out",
                           str(tmp_path / "run"), "--init-from", str(default_model_path()), "--gate", "4",
                           "--gate-against", str(weak), "--promote", str(destination)],
                          capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "started from the weights of" in done.stderr and "gate: accepted" in done.stdout
    card = json.loads((tmp_path / "run" / "best.json").read_text())
    assert card["gates"][-1]["accepted"] and card["gates"][-1]["previous"] == str(weak)
    assert card["training"]["command"] == (f"cuarenta-tutor train --config {config} --out {tmp_path / 'run'} "
                                           f"--init-from {default_model_path()} --gate 4 --gate-against {weak} "
                                           f"--promote {destination}")  # this run's, not the shipped model's
    assert destination.read_bytes() == (tmp_path / "run" / "best.onnx").read_bytes()  # promoted


def test_promote_without_a_gate_is_refused_before_training(tmp_path, capsys):
    from cuarenta_tutor.cli import main

    assert main(["train", "--out", str(tmp_path / "r2"), "--promote", str(tmp_path / "current.onnx")]) == 2
    assert "need --gate GAMES" in capsys.readouterr().err and not (tmp_path / "r2").exists()
