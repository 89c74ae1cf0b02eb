"""Bad input found by an audit of every command: each is refused in one line that says what is wrong and what to
do, with a non-zero exit, never a traceback, and the file it read is left as it was."""

import importlib.util
import json
from datetime import datetime, timezone

import helpers
import pytest

from cuarenta_tutor import records
from cuarenta_tutor.cli import main
from cuarenta_tutor.coach import drills
from cuarenta_tutor.engine import N_ACTIONS, action_to_string, legal_actions


def saved(tmp_path, name: str, change=None) -> tuple:
    """A short game record written to tmp_path/name after `change(data)`: its path and bytes."""
    data = records.to_json(helpers.a_record(6))
    if change:
        change(data)
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path, path.read_bytes()


def one_line(err: str) -> str:
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err


def test_a_record_of_a_newer_version_says_to_upgrade_and_is_not_called_damaged(tmp_path, capsys):
    path, before = saved(tmp_path, "newer.json", lambda d: d.update(schema_version=99))
    assert main(["analyse", str(path)]) == 2
    err = one_line(capsys.readouterr().err)
    assert "was written by a newer cuarenta-tutor (record schema 99; this version reads 1)" in err
    assert "pip install -U cuarenta-tutor" in err and "damaged" not in err and err.count(str(path)) == 1
    assert path.read_bytes() == before


def test_a_record_whose_rules_are_not_an_object_says_so_in_its_words(tmp_path, capsys):
    path, before = saved(tmp_path, "rules.json", lambda d: d.update(rules="standard"))
    assert main(["analyse", str(path)]) == 2
    err = one_line(capsys.readouterr().err)
    assert f"{path} is a damaged Cuarenta game record: rules is not an object of rules options" in err
    assert "with_options" not in err and "mapping" not in err and path.read_bytes() == before


def test_a_result_the_moves_do_not_lead_to_is_refused(tmp_path, capsys):
    path, before = saved(tmp_path, "result.json", lambda d: d.update(result={"winner": 0, "scores": [40, 3]}))
    assert main(["analyse", str(path), "--ply", "1", "--worlds", "2", "--jobs", "1"]) == 2
    err = one_line(capsys.readouterr().err)
    assert "its result (team 0 won 40-3) is not where its moves lead (a game not over); the record is damaged" in err
    assert path.read_bytes() == before


def test_review_refuses_a_record_whose_moves_do_not_replay_before_the_app_opens(tmp_path, capsys, monkeypatch):
    from cuarenta_tutor.cli import review

    opened = []
    monkeypatch.setattr(review, "open_app", lambda *args: opened.append(args) or 0)

    def illegal(data):  # the third move one its seat could not make there
        before = records.replay(helpers.a_record(6))[2]
        data["moves"][2]["action"] = next(a for a in range(N_ACTIONS) if a not in legal_actions(before))

    path, before = saved(tmp_path, "illegal.json", illegal)
    assert main(["review", str(path)]) == 2
    err = one_line(capsys.readouterr().err)
    assert err.startswith("cuarenta-tutor review: game ") and "move 3 (seat" in err
    assert "does not fit the game" in err and "the record is damaged" in err
    assert not opened and path.read_bytes() == before


def test_analyse_says_a_model_it_cannot_use_alone_before_anything_about_a_sidecar(tmp_path, capsys):
    path, _ = saved(tmp_path, "game.json")
    folder = tmp_path / "folder.onnx"
    folder.mkdir()
    noise = tmp_path / "noise.onnx"
    noise.write_bytes(bytes(range(256)) * 40)
    for model, words in ((folder, f"{folder} is a folder, not a model file"),
                         (noise, f"{noise} is not a usable ONNX model (damaged or truncated?)")):
        assert main(["analyse", str(path), "--ply", "1", "--worlds", "2", "--jobs", "1", "--model", str(model)]) == 2
        err = one_line(capsys.readouterr().err)
        assert err.startswith(f"cuarenta-tutor analyse: {words}") and "sidecar" not in err and "Errno" not in err
    assert noise.read_bytes() == bytes(range(256)) * 40


def test_review_text_says_a_damaged_sidecar_and_keeps_it(tmp_path, capsys, model_copy):
    from cuarenta_tutor.analysis.values import forget, sidecar

    path, _ = saved(tmp_path, "game.json")
    beside = sidecar(model_copy)
    beside.write_text('{"model_sha256": "cut sh')
    forget()
    assert main(["review", str(path), "--text", "--model", str(model_copy), "--worlds", "2", "--jobs", "1"]) == 0
    err = capsys.readouterr().err
    assert f"cuarenta-tutor review: the analysis sidecar {beside} is damaged: invalid JSON" in err
    assert "python -m cuarenta_tutor.analysis.calibrate --model" in err and "Traceback" not in err
    assert beside.read_text() == '{"model_sha256": "cut sh'


def a_drill() -> dict:
    """A stored drill of a short game's position (every legal move with made-up numbers)."""
    record = helpers.a_record(6)
    state = records.replay(record)[-1]
    actions = legal_actions(state)
    moves = [{"action": a, "move": action_to_string(a), "win_pct": 50.0 - i, "ci95": [40.0, 60.0],
              "loss": float(i), "loss_ci95": [0.0, 1.0], "caida_risk": 0.0, "limpia_risk": 0.0,
              "class": "best" if i == 0 else "blunder"} for i, a in enumerate(actions)]
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    return {"id": "g:6", "game": records.to_json(record), "seat": state.turn, "played": actions[-1], "moves": moves,
            "kind": "other", "created": now, "box": 0, "due": now, "answers": [], "measured": True}


def test_drills_a_screen_could_not_serve_are_skipped_told_and_written_back_as_they_were():
    good = a_drill()
    moves = good["moves"]
    bad = {"box 2.5": ({**good, "id": "a", "box": 2.5}, "its box or its moves do not fit"),
           "answers": ({**good, "id": "b", "answers": [5]}, "its answers are not a list of answers with their time"),
           "answer": ({**good, "id": "c", "answers": [{"action": 1}]}, "something in it has no 'when'"),
           "id": ({**good, "id": 7}, "its id, kind or seat is not a drill's"),
           "seat": ({**good, "id": "d", "seat": 1 - good["seat"]}, "its id, kind or seat is not a drill's"),
           "kind": ({**good, "id": "e", "kind": 3}, "its id, kind or seat is not a drill's"),
           "created": ({**good, "id": "f", "created": 5}, "cannot be read"),
           "moves": ({**good, "id": "g", "moves": moves[:-1] + [{**moves[0], "action": 52}],
                      "played": moves[0]["action"]}, "its moves are not the legal moves of its position"),
           "name": ({**good, "id": "h", "moves": [{k: v for k, v in m.items() if k != "move"} for m in moves]},
                    "something in it has no 'move'"),
           "interval": ({**good, "id": "i", "moves": [{**m, "ci95": "xy"} for m in moves]},
                        "a move's name or interval is missing")}
    entries = [good] + [entry for entry, _ in bad.values()]
    path = drills.deck_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"schema_version": 1, "drills": entries}))
    deck = drills.load_deck()
    assert [d.id for d in deck.drills] == ["g:6"] and len(deck.problems) == len(bad)
    for problem, (entry, words) in zip(deck.problems, bad.values(), strict=True):
        assert f"drill {entry['id']!r} cannot be read" in problem and words in problem, problem
        assert problem.endswith(f"skipped (it stays in {path})") and "\n" not in problem
    [drill] = deck.due(datetime.now(timezone.utc))
    drill.answer(drill.played, datetime.now(timezone.utc))
    drills.save_deck(deck)
    assert json.loads(path.read_text())["drills"][1:] == entries[1:]  # written back untouched


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs the train extra")
def test_a_training_config_that_is_not_one_is_named_with_what_is_wrong(tmp_path, capsys):
    binary, listed = tmp_path / "binary.json", tmp_path / "list.json"
    binary.write_bytes(b"\xff\xfe{}")
    listed.write_text("[1, 2]")
    for args, path, words in (
            (["train", "--steps", "64", "--out", str(tmp_path / "run")], binary, "is not UTF-8 text"),
            (["train", "--steps", "64", "--out", str(tmp_path / "run")], listed,
             "is damaged (a config is a JSON object of settings, not a list)"),
            (["search-games", "--out", str(tmp_path / "games"), "--games", "1"], binary, "is not UTF-8 text"),
            (["bench", "train", "--steps", "128"], listed, "is damaged (a config is a JSON object of settings")):
        assert main([*args, "--config", str(path)]) == 2
        err = one_line(capsys.readouterr().err)
        assert f"the config file {path} {words}" in err and err.rstrip().endswith("fix it, or give another --config")
        assert "codec" not in err and "mapping" not in err
    assert binary.read_bytes() == b"\xff\xfe{}" and not (tmp_path / "run").exists()


def test_bench_bots_refuses_a_list_of_no_policies(capsys):
    assert main(["bench", "bots", "--policies", " , ", "--positions", "2"]) == 2
    err = one_line(capsys.readouterr().err)
    assert err.startswith("cuarenta-tutor bench bots: --policies names no policy") and capsys.readouterr().out == ""


@pytest.mark.parametrize("module", ["analysis.calibrate", "analysis.onepass", "training.distil"])
def test_the_sidecar_commands_refuse_a_damaged_model_in_one_line(module, tmp_path, capsys):
    import importlib

    noise = tmp_path / "noise.onnx"
    noise.write_bytes(b"not a model" * 100)
    command = importlib.import_module(f"cuarenta_tutor.{module}")
    assert command.main(["--model", str(noise)]) == 2
    err = one_line(capsys.readouterr().err)
    assert err.startswith(f"python -m cuarenta_tutor.{module}: {noise} is not a usable ONNX model")
    assert noise.read_bytes() == b"not a model" * 100 and not list(tmp_path.glob("noise.analysis*"))


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs the train extra")
def test_train_init_from_a_fifo_or_a_folder_is_refused_without_opening_it(tmp_path, capsys):
    import os
    import threading

    fifo, folder = tmp_path / "pipe.onnx", tmp_path / "folder.onnx"
    os.mkfifo(fifo)
    folder.mkdir()
    opened = []

    def writer():  # waits for a reader: a loader that opens the FIFO gets an empty file at once, and is caught
        fd = os.open(fifo, os.O_WRONLY)
        opened.append(not released)
        os.close(fd)

    released = False
    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    try:
        for model, why in ((fifo, "not a regular file"), (folder, "not a regular file"),
                           (tmp_path / "gone.onnx", "there is no such file")):
            assert main(["train", "--init-from", str(model), "--steps", "64", "--out", str(tmp_path / "run")]) == 2
            err = one_line(capsys.readouterr().err)
            assert f"{model} is not an ONNX model file ({why}); give an exported .onnx model" in err
    finally:
        released = True
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))  # lets the writer go
        thread.join(5)
    assert opened == [False] and not (tmp_path / "run").exists()


def test_the_lesson_checker_answers_help_and_refuses_an_unknown_option(capsys):
    from cuarenta_tutor.lessons.__main__ import main as check_lessons

    assert check_lessons(["--help"]) == 0
    assert "python -m cuarenta_tutor.lessons" in capsys.readouterr().out
    assert check_lessons(["--serch"]) == 2
    assert "unknown option --serch: the options are --search, --analysis" in one_line(capsys.readouterr().err)


def test_the_carton_fit_refuses_no_games(capsys):
    from cuarenta_tutor.agents import carton

    with pytest.raises(SystemExit) as done:
        carton.main(["--games", "-1"])
    assert done.value.code == 2 and "--games must be 1 or more" in capsys.readouterr().err


def test_search_options_without_a_count_take_the_default_worlds():
    from cuarenta_tutor.agents import parse_agent
    from cuarenta_tutor.agents.search import SearchPolicy

    spec = parse_agent("search@infer@solve=3")
    assert (spec.samples, spec.infer, spec.carton, spec.solve) == (SearchPolicy.DEFAULT_SAMPLES, True, False, 3)
    with pytest.raises(ValueError, match="search takes a number of sampled deals"):
        parse_agent("search@solve=-3")
