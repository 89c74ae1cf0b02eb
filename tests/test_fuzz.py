"""Damaged files fed to every loader: cut short, random bytes, JSON of the wrong shape, too big. Each loader
answers with its own error and a one-line message (or its documented fallback), and the good file beside the
damaged one is neither touched nor refused."""

import json
import random
from pathlib import Path

import helpers
import pytest

from cuarenta_tutor import lessons, records
from cuarenta_tutor.agents.onnx_contract import ModelError
from cuarenta_tutor.agents.onnx_policy import default_model_path, load_session
from cuarenta_tutor.analysis.values import HandValues
from cuarenta_tutor.records.settings import settings_path
from cuarenta_tutor.resources import data_dir

SHAPES = [b"", b"null", b"[]", b"{}", b'"text"', b"42", b"[1, 2, 3]", b'{"schema_version": "one"}',
          b'{"schema_version": 1, "moves": 7}', b"\xff\xfe\x00garbage"]
"""Valid JSON of the wrong shape, and some that is not JSON or not text at all."""


def damaged(good: bytes, seed: int = 0) -> dict[str, bytes]:
    """Damaged versions of a good file's bytes, by name."""
    rng = random.Random(seed)
    out = {f"shape{i}": s for i, s in enumerate(SHAPES)}
    for cut in (1, len(good) // 3, len(good) // 2, len(good) - 1):
        out[f"cut{cut}"] = good[:cut]
    for i in range(4):
        out[f"noise{i}"] = rng.randbytes(rng.randrange(1, 4000))
        flipped = bytearray(good)
        for _ in range(8):
            flipped[rng.randrange(len(flipped))] = rng.randrange(256)
        out[f"flip{i}"] = bytes(flipped)
    return out


def one_line(err: BaseException) -> bool:
    text = str(err)
    return bool(text) and "\n" not in text and "Traceback" not in text


def a_record() -> records.GameRecord:
    return helpers.a_record(12)


def test_damaged_records_are_refused_in_one_line_and_the_good_one_beside_stays(tmp_path):
    good_path = records.save(a_record(), tmp_path)
    good = good_path.read_bytes()
    for name, data in damaged(good).items():
        bad = tmp_path / f"{name}.json"
        bad.write_bytes(data)
        try:
            loaded = records.load(bad)
        except records.RecordError as err:
            assert one_line(err), name
        else:  # a flipped byte can land in a name, a date or a move: replaying it says which move
            try:
                records.replay(loaded)
            except records.RecordError as err:
                assert one_line(err), name
    huge = tmp_path / "huge.json"
    with huge.open("wb") as fh:
        fh.truncate(records.MAX_BYTES + 1)
    with pytest.raises(records.RecordError, match="too large"):
        records.load(huge)
    games, problems = records.list_games(tmp_path)
    assert good_path.read_bytes() == good and good_path in [g.path for g in games]
    assert problems and all(one_line(p) for p in problems)


def test_damaged_lesson_files_are_refused_in_one_line_with_the_file_named(tmp_path):
    source = next(Path(data_dir("lessons")).rglob("*.toml"))
    good = source.read_bytes()
    for name, data in damaged(good, seed=1).items():
        bad = tmp_path / f"{name}.toml"
        bad.write_bytes(data)
        try:
            lessons.load_lesson(bad)
        except lessons.LessonError as err:
            assert one_line(err) and bad.name in str(err), name
    assert source.read_bytes() == good


def test_damaged_model_files_are_refused_in_one_line(tmp_path):
    good = default_model_path().read_bytes()
    for name, data in damaged(good, seed=2).items():
        if name.startswith("flip"):
            continue  # a flipped weight is still a model; its outputs are checked when it runs (test_training)
        bad = tmp_path / f"{name}.onnx"
        bad.write_bytes(data)
        with pytest.raises(ModelError) as caught:
            load_session(bad)
        assert one_line(caught.value), name


def test_damaged_progress_settings_and_hand_value_tables_fall_back_with_a_word(tmp_path, monkeypatch):
    monkeypatch.setenv(records.DATA_ENV, str(tmp_path))
    progress_file = lessons.progress_path()
    progress_file.parent.mkdir(parents=True, exist_ok=True)
    for name, data in damaged(b'{"schema_version": 1, "solved": {"rules-01": ["p1"]}}', seed=3).items():
        progress_file.write_bytes(data)
        progress = lessons.load_progress()
        assert progress.solved == {} or progress.problem is None, name
        assert progress.problem is None or one_line(progress.problem), name
        settings_path().write_bytes(data)
        loaded, problems = records.load_settings()
        assert loaded == records.Settings() and all(one_line(p) for p in problems), name  # the defaults, told
    table = json.loads(default_model_path().with_suffix(".analysis.json").read_text())["hand_values"]
    for broken in ({**table, "win_team0": [[1, 2]]}, {**table, "rules": {"players": "two"}}, {}, {"win_team0": 3}):
        with pytest.raises((ValueError, KeyError, TypeError)):
            HandValues.from_json(broken)


def test_damaged_drill_decks_and_stats_files_are_reported_kept_aside_and_never_fatal(tmp_path, monkeypatch):
    from cuarenta_tutor.coach import drills, stats

    monkeypatch.setenv(records.DATA_ENV, str(tmp_path))
    folder = tmp_path / "games"
    good_path = records.save(a_record(), folder)
    good = good_path.read_bytes()
    empty_deck = b'{"schema_version": 1, "drills": []}'
    for name, data in damaged(empty_deck, seed=4).items():
        drills.deck_path().write_bytes(data)
        deck = drills.load_deck()
        assert not deck.drills and all(one_line(p) for p in deck.problems), name
        drills.save_deck(deck)  # a damaged file went aside, a good empty deck takes its place
        assert drills.load_deck().problems == [], name
        stats.stats_path().write_bytes(data)
        games, problems = stats.load(folder)
        assert all(one_line(p) for p in problems) and stats.load(folder)[1] == [], name  # rebuilt
    kept = {p.read_bytes() for p in tmp_path.glob("drills.damaged-*.json")}
    assert kept and kept <= set(damaged(empty_deck, seed=4).values())
    assert good_path.read_bytes() == good
