"""The `cuarenta-tutor` command: the engine benchmark, and honest refusals for what is not built yet."""

import json
import subprocess
import sys

import pytest


def cli(*args):
    return subprocess.run([sys.executable, "-m", "cuarenta_tutor.cli", *args], capture_output=True, text=True,
                          check=False, timeout=120, stdin=subprocess.DEVNULL)


def test_bench_engine_prints_figures_and_json():
    out = cli("bench", "engine", "--games", "5", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    for key in ("plays_per_second", "games_per_second", "plays_per_game", "peak_rss_mb"):
        assert result[key] > 0
    assert result["games"] == 5
    assert "plays_per_second" in out.stdout.splitlines()[0] + out.stdout


@pytest.mark.parametrize("args", [["lessons"]])
def test_unbuilt_subcommands_say_so_and_exit_2(args):
    out = cli(*args)
    assert out.returncode == 2
    assert "not built yet" in out.stderr


def test_bad_rules_preset_is_refused_before_the_app_opens():
    out = cli("play", "--rules", "vegas")
    assert out.returncode == 2 and "unknown rules preset" in out.stderr


def test_review_text_of_a_damaged_file_says_so(tmp_path):
    bad = tmp_path / "game.json"
    bad.write_text("{ truncated")
    out = cli("review", str(bad), "--text")
    assert out.returncode == 2 and "review" in out.stderr
