"""The `cuarenta-tutor` command: benchmarks, help, and clear refusals of bad input."""

import importlib.util
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from helpers import HANG

ROOT = Path(__file__).resolve().parent.parent


def cli(*args):
    return subprocess.run([sys.executable, "-m", "cuarenta_tutor.cli", *args], capture_output=True, text=True,
                          check=False, timeout=HANG, stdin=subprocess.DEVNULL)


def test_bench_engine_prints_figures_and_json():
    out = cli("bench", "engine", "--games", "5", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    for key in ("plays_per_second", "games_per_second", "plays_per_game", "peak_rss_mb"):
        assert result[key] > 0
    assert result["games"] == 5
    assert "plays_per_second" in out.stdout.splitlines()[0] + out.stdout


def test_help_lists_every_subcommand():
    out = cli("--help")
    assert out.returncode == 0
    for name in ("play", "review", "lessons", "arena", "bench", "train", "export"):
        assert name in out.stdout


def test_bench_bots_reports_latency_per_policy():
    out = cli("bench", "bots", "--positions", "6", "--policies", "random,greedy,expert", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert set(result) == {"random", "greedy", "expert"}
    assert all(r["median_ms"] > 0 and r["p95_ms"] >= r["median_ms"] for r in result.values())


def test_bad_rules_preset_is_refused_before_the_app_opens():
    out = cli("play", "--rules", "vegas")
    assert out.returncode == 2 and "unknown rules preset" in out.stderr


def test_a_missing_game_or_a_bad_model_is_refused_in_one_line_before_the_app_opens(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    for args, words in ((("review", str(tmp_path / "missing.json")), "missing.json"),
                        (("play", "--model", str(tmp_path / "nowhere.onnx")), "model file not found"),
                        (("play", "--model", str(bad)), "damaged or truncated"),
                        (("review", "--model", str(bad)), "damaged or truncated")):
        out = cli(*args)
        assert out.returncode == 2 and words in out.stderr, (args, out.stderr)
        assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr
        assert out.stderr.startswith(f"cuarenta-tutor {args[0]}: ")


def test_a_data_folder_that_cannot_be_made_is_refused_in_one_line(tmp_path):
    import os

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    env = {**os.environ, "CUARENTA_TUTOR_HOME": str(blocker / "home")}
    out = subprocess.run([sys.executable, "-m", "cuarenta_tutor.cli", "play"], capture_output=True, text=True,
                         check=False, timeout=HANG, stdin=subprocess.DEVNULL, env=env)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.startswith("cuarenta-tutor play: ") and "CUARENTA_TUTOR_HOME" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_review_text_of_a_damaged_file_says_so(tmp_path):
    bad = tmp_path / "game.json"
    bad.write_text("{ truncated")
    out = cli("review", str(bad), "--text")
    assert out.returncode == 2 and "review" in out.stderr


def test_bench_agent_and_tui_print_figures(capsys):
    import shutil

    from cuarenta_tutor.cli import main

    # in this process, the throughput timed a moment at each batch size; tui's below in its own, one start timed
    quick = ["--throughput-seconds", "0.01", "--json"]
    assert main(["bench", "agent", "--positions", "8", *quick]) == 0
    agent = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert agent["decision_median_ms"] > 0 and agent["batch256_positions_per_second"] > 0
    assert agent["players"] == 2
    assert main(["bench", "agent", "--positions", "20", "--players", "4", *quick]) == 0
    agent = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    # 2 v 2: late in the last deal the shipped model (encoding version 4) plays each move out over sampled worlds
    assert agent["players"] == 4 and agent["played_out"] > 0 and agent["played_out_median_ms"] > 0
    out = cli("bench", "tui", "--moves", "1", "--paints", "1", "--json")
    assert out.returncode == 0, out.stdout + out.stderr
    tui = json.loads(out.stdout.strip().splitlines()[-1])
    assert tui["agent_move_and_hints_median_ms"] > 0 and tui["measured_moves"] >= 1
    assert (tui["first_paint_s"] is None) == (shutil.which("tmux") is None)


def test_bench_train_reports_steps_per_second(tmp_path, capsys):
    import importlib.util

    import pytest

    if importlib.util.find_spec("torch") is None:
        pytest.skip("needs the train extra")
    config = tmp_path / "small.json"
    config.write_text(json.dumps({"num_envs": 4, "rollout_len": 8, "hidden": 16, "feature": 16, "strategy": 16,
                                  "threads": 1, "log_every": 2}))  # a metrics window every 2 updates of 32 steps
    from cuarenta_tutor.cli import main

    # in this process (a command of its own would spend most of its time importing torch): the command's exit code,
    # its JSON line, and an exception it does not turn into a line still fails the test
    assert main(["bench", "train", "--config", str(config), "--steps", "128", "--workers", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["steps_per_second"] > 0 and result["steps_per_second_overall"] > 0 and result["steps"] >= 128
    assert result["envs"] == 4 and result["workers"] == 1 and result["rollout_s"] > 0 and result["update_s"] > 0
    assert main(["bench", "train", "--config", str(config), "--steps", "64"]) == 2  # refused before it trains
    assert "too few: at least 128 steps" in capsys.readouterr().err
    assert main(["bench", "train", "--config", str(tmp_path / "nope.json")]) == 2
    assert "nope.json" in capsys.readouterr().err


def test_version_is_the_same_from_python_m_and_the_installed_command():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    module = subprocess.run([sys.executable, "-m", "cuarenta_tutor", "--version"], capture_output=True, text=True,
                            check=False, timeout=HANG, stdin=subprocess.DEVNULL)
    script = Path(sys.executable).parent / "cuarenta-tutor"
    command = subprocess.run([str(script), "--version"], capture_output=True, text=True, check=False, timeout=HANG,
                             stdin=subprocess.DEVNULL)
    assert module.returncode == 0 and command.returncode == 0, module.stderr + command.stderr
    assert module.stdout == command.stdout == f"cuarenta-tutor {declared}\n"


def test_python_m_runs_the_same_command_line():
    out = subprocess.run([sys.executable, "-m", "cuarenta_tutor", "arena", "greedy", "zorro"], capture_output=True,
                         text=True, check=False, timeout=HANG, stdin=subprocess.DEVNULL)
    assert out.returncode == 2 and "unknown policy" in out.stderr


def test_arena_help_names_every_policy_spec():
    out = cli("arena", "--help")
    for spec in ("random", "greedy", "expert", "search[:N]", "onnx[:PATH][@temp=T]"):
        assert spec in out.stdout.replace("\n", " ").replace("  ", " ")


def test_every_option_of_every_command_has_help():
    import argparse

    from cuarenta_tutor.cli import build_parser

    missing = []

    def walk(parser, path):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*path, name])
            elif not action.help and action.dest != "help":
                missing.append(" ".join([*path, action.dest]))

    walk(build_parser(), ["cuarenta-tutor"])
    assert not missing, f"options without help: {', '.join(missing)}"


def test_bench_and_policy_numbers_out_of_range_are_refused_in_one_line(capsys):
    from cuarenta_tutor.cli import main

    # in this process (the commands' own processes are run above and below): an exception main does not turn into
    # a line fails the test
    for args in (("bench", "agent", "--positions", "0"), ("bench", "tui", "--moves", "-1"),
                 ("bench", "bots", "--positions", "0"), ("bench", "engine", "--games", "0"),
                 ("arena", "onnx@temp=-5", "random", "--games", "2"), ("arena", "random", "greedy", "--jobs", "-3")):
        code = main(list(args))
        out = capsys.readouterr()
        assert code == 2 and "Traceback" not in out.out + out.err, args
        assert len((out.err or out.out).strip().splitlines()) == 1, args


@pytest.mark.parametrize("cache", ["kept", "cold"])
def test_ctrl_c_stops_a_command_with_a_line_not_a_traceback(cache, tmp_path):
    import signal
    import time

    # cold: an empty compile cache, so the stop lands inside numba's compile (half-built objects must stay quiet)
    env = dict(os.environ, **({"NUMBA_CACHE_DIR": str(tmp_path)} if cache == "cold" else {}))
    # a suite started in the background (`pytest &`) inherits SIGINT ignored, and so would the command: it gets
    # the default back, as in a terminal
    proc = subprocess.Popen([sys.executable, "-m", "cuarenta_tutor.cli", "bench", "engine", "--games", "1000000"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                            env=env, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        time.sleep(3.0)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=HANG)
    finally:  # a failure never leaves a million games running
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130 and "Traceback" not in err and err.strip() == "cuarenta-tutor bench: stopped"


def test_a_ctrl_c_a_finaliser_swallows_still_stops_the_command(monkeypatch):
    """Python swallows an exception raised inside a finaliser (`__del__`): a Ctrl-C that lands in one (llvmlite's
    run many while numba compiles) would leave the command running on, silent, to its end. It is raised again."""
    import signal

    from cuarenta_tutor.cli.main import _noting_interrupts

    class Finalised:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(100_000):  # the stop lands in here
                pass

    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal, even under `pytest &`
    noted, ran = [], 0
    try:
        with pytest.raises(KeyboardInterrupt), _noting_interrupts(noted):
            Finalised()
            for ran in range(100_000_000):  # noqa: B007 - the command's work: seconds, were the stop lost
                pass
    finally:
        signal.signal(signal.SIGINT, before)
    assert noted and ran < 99_999_999


def test_play_refuses_a_dealer_or_level_that_does_not_fit_the_players():
    out = cli("play", "--dealer", "2")
    assert out.returncode == 2 and "--dealer 2 is not a seat of a 2-player game" in out.stderr
    out = cli("play", "--players", "4", "--level", "adaptive")
    assert out.returncode == 2 and "adaptive level follows your own results" in out.stderr


def test_the_reviews_worlds_are_refused_below_two_before_the_app_starts(tmp_path, capsys):
    from cuarenta_tutor.cli import main

    assert main(["review", str(tmp_path / "game.json"), "--worlds", "1"]) == 2
    assert "argument --worlds: must be a whole number from 2 to" in capsys.readouterr().err


def test_help_imports_no_subcommand_s_work_nor_the_version():
    """`cuarenta-tutor --help` adds no subcommand's options (their choices come from the engine and records) and
    reads no version: only the parser."""
    code = ("import sys\nfrom cuarenta_tutor.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n"
            "    pass\nprint(' '.join(sorted(sys.modules)), file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=HANG)
    loaded = set(out.stderr.split())
    heavy = {"importlib.metadata", "cuarenta_tutor.engine", "cuarenta_tutor.records", "cuarenta_tutor.interop",
             "numpy", "onnxruntime", "textual", "torch"}
    assert "play" in out.stdout and not loaded & heavy, loaded & heavy
    assert "cuarenta_tutor.cli.play" in loaded  # the subcommands' modules are read, for their names and help


def test_every_subcommand_runs_through_its_own_module():
    import argparse
    import importlib

    from cuarenta_tutor.cli import build_parser
    from cuarenta_tutor.cli.main import COMMANDS

    parser = build_parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for name in COMMANDS:
        module = importlib.import_module(f"cuarenta_tutor.cli.{name}")
        assert sub.choices[module.NAME].get_default("run") is module.run, name
    assert parser.parse_args(["arena", "random", "greedy"]).run is importlib.import_module(
        "cuarenta_tutor.cli.arena").run
    assert parser.parse_args(["bench", "bots"]).bench.__name__ == "bench_bots"


def test_the_command_dispatches_through_a_table_not_a_chain_of_string_tests():
    import ast

    package = ROOT / "cuarenta_tutor"
    sources = sorted((package / "cli").glob("*.py")) or [package / "cli.py"]
    tests = []
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                names = {n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", None) for n in sides}
                strings = [c for side in sides for c in ast.walk(side)
                           if isinstance(c, ast.Constant) and isinstance(c.value, str)]
                if names & {"command", "target"} and strings:  # command == "bench", command in ("train", ...)
                    tests.append(f"{path.name}:{node.lineno}")
    assert not tests, f"dispatch by comparing the command's name: {', '.join(tests)}"


def test_choices_are_imported_from_where_they_are_defined():
    import argparse

    from cuarenta_tutor.cli import build_parser
    from cuarenta_tutor.engine import PLAYER_COUNTS, PRESETS
    from cuarenta_tutor.interop import BACKENDS
    from cuarenta_tutor.records import LEVELS
    from cuarenta_tutor.training.search_games import TEACHERS

    defined = {"level": LEVELS, "players": PLAYER_COUNTS, "backend": BACKENDS, "teacher": TEACHERS}
    seen = []

    def walk(parser, path):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*path, name])
            elif action.dest in defined:
                assert action.choices is defined[action.dest], (path, action.dest)  # the same object, not a copy
                seen.append(action.dest)

    walk(build_parser(), [])
    assert set(seen) == set(defined) and seen.count("players") == 4 and seen.count("backend") == 3
    rules_help = build_parser().parse_args(["play"])  # the play parser's --rules help names every preset
    assert rules_help.rules == "standard"
    out = cli("play", "--help")
    assert all(name in out.stdout for name in PRESETS)


BAD_ARGUMENTS = [  # (command line, the argument the line must name); in the test's cwd FILE is a file, DIR a folder,
    # g.json a saved game
    (("play", "--seed", "-1"), "--seed"), (("play", "--seed", "x"), "--seed"), (("play", "--dealer", "9"), "--dealer"),
    (("review", "g.json", "--worlds", "1000000000000"), "--worlds"), (("review", "--seat", "4"), "--seat"),
    (("review", "g.json", "--jobs", "100000"), "--jobs"),
    (("analyse", "g.json", "--worlds", "1000000000000"), "--worlds"), (("analyse", "g.json", "--ply", "0"), "--ply"),
    (("analyse", "g.json", "--jobs", "x"), "--jobs"), (("analyse", "g.json", "--seed", "1.5"), "--seed"),
    (("arena", "random", "greedy", "--games", "3"), "--games"),
    (("arena", "random", "greedy", "--games", "10000000"), "--games"),
    (("arena", "random", "greedy", "--jobs", "100000"), "--jobs"),
    (("arena", "random", "greedy", "--records", "FILE"), "--records"),
    (("arena", "strong:1000000000000", "greedy", "--games", "2"), "strong"),
    (("arena", "search:1000000000000", "greedy", "--games", "2"), "search"),
    (("train", "--steps", "0"), "--steps"), (("train", "--workers", "x"), "--workers"),
    (("train", "--gate", "3"), "--gate"), (("train", "--out", "FILE"), "--out"),
    (("train", "--out", "FILE/run"), "--out"), (("train", "--config", "DIR"), "--config"),
    (("train", "--gate", "2", "--promote", "DIR"), "--promote"),
    (("search-games", "--out", "s", "--games", "0"), "--games"),
    (("search-games", "--out", "s", "--games", "1", "--share", "nan"), "--share"),
    (("search-games", "--out", "s", "--games", "1", "--temperature", "-1"), "--temperature"),
    (("search-games", "--out", "FILE", "--games", "1"), "--out"),
    (("export", "x.pt", "--calibrate", "-1"), "--calibrate"), (("export", "x.onnx", "--encoding", "9"), "--encoding"),
    (("export", "x.pt", "--out", "DIR"), "--out"), (("export", "x.pt", "--out", "FILE/x.onnx"), "--out"),
    (("bench", "engine", "--games", "0"), "--games"), (("bench", "train", "--steps", "x"), "--steps"),
    (("bench", "analysis", "--reference-worlds", "1000000"), "--reference-worlds"),
    (("bench", "agent", "--positions", "-1"), "--positions"), (("bench", "bots", "--seed", "-3"), "--seed"),
    (("drills", "--level", "9"), "--level"), (("lessons", "3"), "3"), (("stats", "--json", "x"), "x"),
]


@pytest.mark.parametrize("argv, names", BAD_ARGUMENTS, ids=[" ".join(a) for a, _ in BAD_ARGUMENTS])
def test_every_command_refuses_bad_arguments_in_one_line_and_writes_nothing(argv, names, tmp_path, user_data,
                                                                            monkeypatch, capsys):
    from cuarenta_tutor import records
    from cuarenta_tutor.cli import main
    from cuarenta_tutor.engine import Rules

    monkeypatch.chdir(tmp_path)
    (tmp_path / "FILE").write_text("a file\n")
    (tmp_path / "DIR").mkdir()
    records.save(records.new_record(Rules(), 5, 0, [("greedy", "A"), ("greedy", "B")]), path=tmp_path / "g.json")
    before = sorted(tmp_path.rglob("*"))
    assert main(list(argv)) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("cuarenta-tutor"), err
    assert names in err and "Traceback" not in err
    assert sorted(tmp_path.rglob("*")) == before and not user_data.exists()  # nothing written, no data folder made


@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="needs the distributed extra")
def test_a_ray_address_where_nothing_answers_is_refused_before_any_work(tmp_path, capsys):
    import socket

    from cuarenta_tutor.cli import main

    with socket.socket() as free:  # a local port nobody listens on once this closes: refused at once
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    for address, words in ((f"127.0.0.1:{port}", f"no Ray cluster answers at 127.0.0.1:{port} (gave up after"),
                           ("nowhere", "is not HOST:PORT")):
        argv = ["arena", "random", "greedy", "--games", "2", "--backend", "ray", "--address", address, "--records",
                str(tmp_path / "games")]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert words in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "games").exists()


def test_a_word_no_option_takes_is_refused_by_the_subcommand_in_one_line():
    out = cli("stats", "--json", "x")
    assert out.returncode == 2 and out.stderr.strip() == \
        "cuarenta-tutor stats: unrecognized arguments: x (see cuarenta-tutor stats --help)"
