"""The wheel a person installs: the app, the shipped model with its memory graph, card and analysis sidecar, the
lessons, and nothing else of models/ or artifacts/ (past generations, training configs and the search's games stay
in the repository)."""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from helpers import HANG

ROOT = Path(__file__).resolve().parent.parent
MAX_WHEEL_BYTES = 3 * 1024 * 1024


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    pytest.importorskip("hatchling", reason="the dev extra builds the wheel with hatchling")
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation",
                           "-q", "-w", str(out)], capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0, done.stderr[-2000:]
    (path,) = out.glob("cuarenta_tutor-*.whl")
    return path


def test_the_wheel_is_small_and_ships_only_what_the_app_loads(wheel):
    assert wheel.stat().st_size <= MAX_WHEEL_BYTES, f"{wheel.name} is {wheel.stat().st_size:,} bytes"
    names = zipfile.ZipFile(wheel).namelist()
    models = sorted(n.rsplit("/", 1)[1] for n in names if n.startswith("cuarenta_tutor/_data/models/"))
    assert models == ["cuarenta-a2c-lstm.analysis.json", "cuarenta-a2c-lstm.json", "cuarenta-a2c-lstm.memory.onnx",
                      "cuarenta-a2c-lstm.onnx"]
    lessons = {n for n in names if n.startswith("cuarenta_tutor/_data/lessons/") and n.endswith(".toml")}
    assert lessons and len(lessons) == len(list((ROOT / "lessons").rglob("*.toml")))
    assert not [n for n in names if "artifacts" in n or "generations/" in n or "search-games" in n]


def test_the_shipped_files_are_in_models_and_the_history_in_artifacts():
    # what the wheel maps from models/ is all models/ holds besides its README: a new shipped file needs its line
    # in pyproject.toml, and the past stays in artifacts/
    shipped = sorted(p.name for p in (ROOT / "models").iterdir() if p.name != "README.md")
    assert shipped == ["cuarenta-a2c-lstm.analysis.json", "cuarenta-a2c-lstm.json", "cuarenta-a2c-lstm.memory.onnx",
                       "cuarenta-a2c-lstm.onnx"]
    assert (ROOT / "artifacts" / "generations" / "gen6.onnx").is_file()
    assert sorted(p.name for p in (ROOT / "artifacts" / "configs").glob("*.json"))[0] == "train-config-ei1.json"
