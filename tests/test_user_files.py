"""Every file of the person's that the app reads or writes, damaged every way, fed to its loader (records.read_json
behind each): no traceback, no hang (a FIFO is never opened), one line that names the file, the damaged file kept
(aside where the app would write over it, else where it is) and every good file beside it byte-identical."""

import json
import os
import random
import re
import stat
import threading
from pathlib import Path

import helpers
import pytest

from cuarenta_tutor import lessons, players, records
from cuarenta_tutor.agents.onnx_policy import default_model_path
from cuarenta_tutor.analysis import validate, values
from cuarenta_tutor.coach import drills, stats

SHIPPED = default_model_path()
SIDECAR_ID = json.loads(SHIPPED.with_suffix(".analysis.json").read_text())["model_sha256"]


def a_record() -> records.GameRecord:
    return helpers.a_record(6)


def _messages(call) -> list:
    """[] where `call()` reads the file, else its one line (the reference cache says its own on stderr)."""
    try:
        call()
    except records.FileError as err:
        return [str(err)]
    return []


def _load_and_save_deck() -> list:
    """What the app does when a review adds drills: the deck read (a damaged file is said), then saved (and it is
    kept aside first)."""
    deck = drills.load_deck()
    drills.save_deck(deck)
    return deck.problems


KINDS = {  # name: (path in the data folder, good bytes, loader -> messages, kept aside when damaged)
    "record": ("games/damaged.json", lambda: json.dumps(records.to_json(a_record())).encode(),
               lambda home, path: records.list_games(home / "games")[1], False),
    "lessons": ("lessons.json", lambda: b'{"schema_version": 1, "solved": {"rules-01": ["p1", "p2"]}}',
                lambda home, path: [lessons.load_progress().problem], True),
    "card": ("models/mine.json", lambda: SHIPPED.with_suffix(".json").read_bytes(),
             lambda home, path: _messages(lambda: records.read_card(path)), False),
    "sidecar": ("models/mine.analysis.json", lambda: SHIPPED.with_suffix(".analysis.json").read_bytes(),
                lambda home, path: [values.sidecar_problem(path.parent / "mine.onnx", SIDECAR_ID)], False),
    "settings": ("settings.json", lambda: b'{"tutor": false, "model": "", "level": "strong"}',
                 lambda home, path: records.load_settings()[1], True),
    "level": ("level.json", lambda: b'{"schema_version": 1, "rung": 3, "games": [{"game_id": "g", "rung": 2, '
                                    b'"won": true}]}',
              lambda home, path: [players.load_ladder().problem], True),
    "drills": ("drills.json", lambda: b'{"schema_version": 1, "drills": []}',
               lambda home, path: _load_and_save_deck(), True),
    "stats": ("stats.json", lambda: b'{"schema_version": 1, "games": []}',
              lambda home, path: stats.load(home / "games")[1], True),
    "references": ("cache/references.jsonl", lambda: b'{"key": "k", "moves": [], "n": 1}\n',
                   lambda home, path: _messages(lambda: validate._read_kept(path)), True),
}
HUGE = (1 << 28) + 1
"""Larger than any file's cap (records.read_json's max_bytes): a sparse file, so nothing is written."""


def damage(path: Path, good: bytes, how: str) -> None:
    """Put the damaged version `how` of `good` at `path`."""
    rng = random.Random(how)
    if how == "directory":
        path.mkdir()
        (path / "inside").write_text("mine")
    elif how == "fifo":
        os.mkfifo(path)
    elif how == "huge":
        with path.open("wb") as fh:
            fh.truncate(HUGE)
    else:
        number = re.compile(rb"(?<=[:\[,] )(-?\d+(\.\d+)?|true|false)")
        path.write_bytes({"truncated": good[:len(good) // 2], "readonly": good[:len(good) // 2],
                          "random": rng.randbytes(3000),
                          "flipped": bytes(0xFF if i % 97 == 5 else b for i, b in enumerate(good)),
                          "shape": b"[1, 2, 3]", "nan": number.sub(b"NaN", good, count=1),
                          "inf": number.sub(b"1e999", good, count=1)}[how])
        if how == "readonly":
            path.chmod(0o444)


def what(path: Path):
    """What is at `path`, to compare before and after: its bytes, or what it is."""
    info = os.lstat(path)
    if stat.S_ISFIFO(info.st_mode):
        return "fifo"
    if stat.S_ISDIR(info.st_mode):
        return ("directory", (path / "inside").read_text())
    return ("huge", info.st_size) if info.st_size == HUGE else path.read_bytes()


def writer_waiting(fifo: Path):
    """A writer waiting on the FIFO: a loader that opens it to read gets an empty file instead of waiting forever,
    and `opened()` says it did. `release()` lets the writer go once the loader is done (wherever the FIFO is now)."""
    seen = {"released": False, "opened": False}

    def wait():
        try:
            fd = os.open(fifo, os.O_WRONLY)
        except OSError:  # kept aside (renamed) before the writer came
            return
        seen["opened"] = not seen["released"]
        os.close(fd)

    thread = threading.Thread(target=wait, daemon=True)
    thread.start()

    def release(where: list[Path]) -> None:
        seen["released"] = True
        fds = [os.open(p, os.O_RDONLY | os.O_NONBLOCK) for p in where if stat.S_ISFIFO(os.lstat(p).st_mode)]
        thread.join()
        for fd in fds:
            os.close(fd)
    return (lambda: seen["opened"]), release


DAMAGES = ["truncated", "random", "flipped", "shape", "nan", "inf", "huge", "directory", "fifo", "readonly"]


@pytest.mark.parametrize("damage_how", DAMAGES)
@pytest.mark.parametrize("kind", list(KINDS))
def test_a_damaged_file_is_told_in_one_line_and_kept_and_the_good_ones_beside_stay(user_data, kind, damage_how,
                                                                                    capsys):
    values.forget()
    goods = [records.save(a_record(), user_data / "games")]  # a good game beside the damaged one
    for rel, good, _, _ in KINDS.values():  # and every file good
        goods.append(user_data / rel)
        goods[-1].parent.mkdir(parents=True, exist_ok=True)
        goods[-1].write_bytes(good())
    rel, good, load, keep = KINDS[kind]
    path = user_data / rel
    goods = {p: p.read_bytes() for p in goods if p != path}
    path.unlink()
    damage(path, good(), damage_how)
    before = what(path)
    if damage_how == "fifo":
        opened, release = writer_waiting(path)

    messages = [m for m in load(user_data, path) if m] + [e for e in capsys.readouterr().err.splitlines() if e]

    kept = sorted(path.parent.glob(f"{path.stem}.damaged-*{path.suffix}"))
    if damage_how == "fifo":
        release([p for p in (path, *kept) if os.path.lexists(p)])
        assert not opened(), "the loader opened the FIFO to read it"
    assert all("\n" not in m and "Traceback" not in m for m in messages)
    if kind == "references" and damage_how in ("truncated", "shape", "nan", "inf", "readonly"):
        assert not messages and what(path) == before  # a row cut short or not a reference is skipped, not fatal
    else:
        assert len(messages) == 1 and path.name in messages[0], messages
        if keep:
            assert len(kept) == 1 and what(kept[0]) == before
            assert kept[0].name in messages[0] or f"{path.stem}.damaged-<time>" in messages[0]  # drills: at save
        else:
            assert not kept and what(path) == before
    for other, data in goods.items():
        assert other.read_bytes() == data, other


def test_a_good_file_of_every_kind_loads_with_nothing_to_say(user_data, capsys):
    for rel, good, _, _ in KINDS.values():
        path = user_data / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(good())
    values.forget()
    for name, (rel, _, load, _) in KINDS.items():
        assert [m for m in load(user_data, user_data / rel) if m] == [], name
    assert capsys.readouterr().err == "" and not list(user_data.rglob("*.damaged-*"))


@pytest.mark.parametrize("card", ["link", "list"])
def test_a_model_card_that_is_a_link_or_not_an_object_is_refused_and_nothing_is_copied(tmp_path, card):
    from cuarenta_tutor.training.gate import promote

    theirs = tmp_path / "theirs.json"
    theirs.write_text(json.dumps({"gates": [{"accepted": True}], "secret": "theirs"}))
    model = tmp_path / "mine.onnx"
    model.write_bytes(b"weights")
    if card == "link":
        model.with_suffix(".json").symlink_to(theirs)
    else:
        model.with_suffix(".json").write_text("[1, 2]")
    with pytest.raises(records.FileError, match="symbolic link" if card == "link" else "JSON object, not a list"):
        promote(model, tmp_path / "promoted.onnx")
    assert not (tmp_path / "promoted.onnx").exists() and not (tmp_path / "promoted.json").exists()
    assert json.loads(theirs.read_text())["secret"] == "theirs"


def test_a_settings_model_that_does_not_load_is_told_once_and_dropped(user_data, tmp_path):
    from cuarenta_tutor.app import files

    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"not a model")
    records.save_settings(records.Settings(tutor=False, model=garbage, level="strong"))
    settings, problems = files.load_settings()
    assert settings == records.Settings(tutor=False, model=None, level="strong")
    assert len(problems) == 1 and str(garbage) in problems[0] and "shipped one" in problems[0]
    assert files.load_settings() == (settings, [])  # told once: the settings no longer name it
    assert garbage.read_bytes() == b"not a model"
