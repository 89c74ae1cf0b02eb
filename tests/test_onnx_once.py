"""A model is loaded once per process: `analyse` and the one-pass fit each built an onnxruntime session for the
command's check, another for every agent and watcher, and another for the analysis's agent; every one of them now
shares the first (agents.onnx_policy: the checked sessions by the file's sha256). Counted on real runs: every call of
onnx_contract.one_thread_session, the one place a session is made, by file (the memory graph beside the model is a
file of its own, loaded once too)."""

import shutil
from collections import Counter
from pathlib import Path

import pytest
from helpers import a_record

from cuarenta_tutor import records
from cuarenta_tutor.agents import memory_graph, onnx_contract, onnx_policy
from cuarenta_tutor.analysis import onepass, workers
from cuarenta_tutor.cli import main


@pytest.fixture
def sessions(monkeypatch) -> Counter:
    """Sessions made from now on, by file name: one_thread_session wrapped (the real one still makes them), and no
    model loaded before in this process (the caches of sessions, agents and memory graphs emptied)."""
    made: Counter = Counter()
    real = onnx_contract.one_thread_session

    def counted(path):
        made[Path(path).name] += 1
        return real(path)

    for module in (onnx_contract, onnx_policy, memory_graph):
        monkeypatch.setattr(module, "one_thread_session", counted)
    monkeypatch.setattr(onnx_policy, "_SESSIONS", {})
    monkeypatch.setattr(workers, "_AGENTS", {})
    memory_graph._load.cache_clear()
    yield made
    memory_graph._load.cache_clear()  # none of the counted ones stays


def a_model(folder: Path) -> Path:
    """A copy of the shipped model with its sidecar, card and memory graph (the same bytes: the same model)."""
    shipped = onnx_policy.default_model_path()
    folder.mkdir()
    for suffix in (".onnx", ".analysis.json", ".json", ".memory.onnx"):
        shutil.copy(shipped.with_name(shipped.stem + suffix), folder / f"mine{suffix}")
    return folder / "mine.onnx"


def test_analyse_loads_the_model_once(sessions, tmp_path, capsys):
    record = a_record(12)
    assert record.human_seat is None  # every seat's moves analysed: a watcher for each seat
    path = records.save(record, tmp_path)
    model = a_model(tmp_path / "model")
    assert main(["analyse", str(path), "--worlds", "2", "--jobs", "1", "--model", str(model)]) == 0
    out = capsys.readouterr().out
    assert ", seat 0 (" in out and ", seat 1 (" in out
    assert sessions["mine.onnx"] == 1, f"the model was loaded {sessions['mine.onnx']} times"
    assert sessions["mine.memory.onnx"] <= 1 and set(sessions) <= {"mine.onnx", "mine.memory.onnx"}


def test_the_one_pass_fit_loads_the_model_once(sessions, tmp_path, capsys):
    model = a_model(tmp_path / "model")
    assert onepass.main(["--positions", "2", "--held-out", "1", "--jobs", "1", "--model", str(model)]) == 0
    assert '"slope"' in capsys.readouterr().out
    assert sessions["mine.onnx"] == 1, f"the model was loaded {sessions['mine.onnx']} times"
    assert sessions["mine.memory.onnx"] <= 1 and set(sessions) <= {"mine.onnx", "mine.memory.onnx"}


def test_a_changed_model_file_is_loaded_again_and_a_damaged_one_is_still_refused(sessions, tmp_path):
    model = a_model(tmp_path / "model")
    first = onnx_policy.OnnxPolicy(model)
    assert onnx_policy.OnnxPolicy(model).session is first.session and sessions["mine.onnx"] == 1
    assert onnx_policy.load_session(model)[0] is first.session
    other = tmp_path / "other.onnx"
    other.write_bytes(model.read_bytes()[:1000])  # truncated: refused, and nothing kept for it
    with pytest.raises(onnx_contract.ModelError, match="not a usable ONNX model"):
        onnx_policy.load_session(other)
    with pytest.raises(onnx_contract.ModelError, match="not a usable ONNX model"):
        onnx_policy.load_session(other)
    assert sessions["other.onnx"] == 2
    shutil.copy(model, other)  # now a good model: the same bytes as the first, so its session
    assert onnx_policy.load_session(other)[0] is first.session and sessions["other.onnx"] == 2
