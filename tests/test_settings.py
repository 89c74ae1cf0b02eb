"""The person's settings: one typed value read once through records, checked, a damaged file kept aside and told
(never reset in silence), written atomically. Real files in the test's own user data folder (conftest)."""

import json
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest

from cuarenta_tutor.records import LEVELS, Settings, load_settings, save_settings, settings_path


def write(data) -> Path:
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else json.dumps(data).encode())
    return path


def kept_aside() -> list[Path]:
    return sorted(settings_path().parent.glob("settings.damaged-*.json"))


def test_no_file_gives_the_defaults_and_nothing_to_tell():
    assert load_settings() == (Settings(tutor=True, model=None, level="club"), [])
    assert not settings_path().exists()


def test_valid_settings_are_read_as_a_typed_frozen_value(tmp_path):
    mine = tmp_path / "mine.onnx"
    mine.write_bytes(b"weights")
    path = write({"tutor": False, "model": str(mine), "level": "strong"})
    before = path.read_bytes()
    settings, problems = load_settings()
    assert settings == Settings(tutor=False, model=mine, level="strong") and problems == []
    assert isinstance(settings.model, Path)
    with pytest.raises(FrozenInstanceError):
        settings.level = "club"
    assert path.read_bytes() == before and not kept_aside()  # a good file is only read


def test_saved_settings_read_back_equal():
    chosen = Settings(tutor=False, model=None, level="beginner")
    save_settings(chosen)
    assert load_settings() == (chosen, [])
    assert json.loads(settings_path().read_text()) == {"tutor": False, "model": "", "level": "beginner", "language": "",
                                                      "hints": False}


@pytest.mark.parametrize("data", [b"{ truncated", b"\xff\xfe not text", b"[1, 2]", b"\"club\"", b"{}" * 40_000],
                         ids=["cut-short", "not-utf8", "a-list", "a-string", "too-large"])
def test_a_damaged_file_is_kept_aside_and_told_never_reset_in_silence(data):
    write(data)
    settings, problems = load_settings()
    assert settings == Settings()
    [aside] = kept_aside()
    assert aside.read_bytes() == data  # the person's file, whole, beside the new one
    assert len(problems) == 1 and "damaged" in problems[0] and aside.name in problems[0]
    assert "\n" not in problems[0]
    assert load_settings() == (Settings(), [])  # told once: the repaired file is read quietly next time


def test_an_unknown_level_is_named_and_the_other_settings_are_kept():
    write({"tutor": False, "model": "", "level": "grandmaster"})
    settings, problems = load_settings()
    assert settings == Settings(tutor=False, model=None, level="club")
    assert len(problems) == 1 and "'grandmaster' is not a level of play" in problems[0]
    assert all(level in problems[0] for level in LEVELS)
    [aside] = kept_aside()
    assert json.loads(aside.read_text())["level"] == "grandmaster" and aside.name in problems[0]
    assert load_settings() == (Settings(tutor=False, model=None, level="club"), [])  # tutor off survived


@pytest.mark.parametrize("field, value, words", [("tutor", "yes", "tutor must be true or false"),
                                                 ("model", 42, "model must be the path of an ONNX file"),
                                                 ("level", ["club"], "is not a level of play")])
def test_a_value_of_the_wrong_type_is_a_clear_message(field, value, words):
    write({**Settings(tutor=False, level="strong").to_json(), field: value})
    settings, problems = load_settings()
    assert getattr(settings, field) == getattr(Settings(), field)
    assert len(problems) == 1 and words in problems[0] and len(kept_aside()) == 1


def test_a_model_that_is_not_a_model_file_is_refused(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("not a model")
    write({"tutor": True, "model": str(notes), "level": "club"})
    settings, problems = load_settings()
    assert settings.model is None
    assert len(problems) == 1 and f"{notes} is not an ONNX model file" in problems[0] and len(kept_aside()) == 1


def test_a_model_deleted_since_is_told_and_the_shipped_one_plays(tmp_path):
    write({"tutor": False, "model": str(tmp_path / "gone.onnx"), "level": "strong"})
    settings, problems = load_settings()
    assert settings == Settings(tutor=False, model=None, level="strong")
    assert len(problems) == 1 and "gone.onnx of your settings is not there any more" in problems[0]
    assert not kept_aside()  # nothing was wrong with the file itself
    assert load_settings() == (settings, [])


def test_settings_values_are_checked_when_made():
    with pytest.raises(ValueError, match="'expert' is not a level of play"):
        Settings(level="expert")
    with pytest.raises(ValueError, match="tutor must be true or false"):
        Settings(tutor=1)
    with pytest.raises(TypeError):
        save_settings({"tutor": True, "model": "", "level": "club"})  # a dict is not the settings


def test_settings_are_written_atomically_a_reader_never_sees_half_a_file():
    save_settings(Settings(tutor=True, level="club"))
    path = settings_path()
    with path.open("rb") as reader:  # a reader that opened the file before the save
        save_settings(Settings(tutor=False, level="strong"))
        old = {"tutor": True, "model": "", "level": "club", "language": "", "hints": False}
        assert json.loads(reader.read()) == old  # the whole old file
    assert load_settings() == (Settings(tutor=False, level="strong"), [])
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]  # no temp file left behind


def test_a_folder_where_the_settings_file_should_be_is_told_and_kept_aside():
    settings_path().mkdir(parents=True)
    (settings_path() / "mine").write_text("kept")
    settings, problems = load_settings()
    assert settings == Settings() and len(problems) == 1 and "is not a regular file but a folder" in problems[0]
    [aside] = kept_aside()
    assert (aside / "mine").read_text() == "kept" and aside.name in problems[0]
    save_settings(Settings(tutor=False))  # the next change is kept
    assert load_settings() == (Settings(tutor=False), [])


async def test_the_app_reads_the_settings_once_and_tells_what_was_wrong():
    from helpers import settle

    from cuarenta_tutor.tui import make_app

    write({"tutor": False, "model": "", "level": "grandmaster"})
    app = make_app(agent_delay=0)
    assert app.settings == Settings(tutor=False, level="club") and app.tutor is False
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert any("'grandmaster' is not a level of play" in m for m in app.messages)
        write({"tutor": False, "model": "", "level": "beginner"})  # changed behind its back (another process):
        app.change_settings(tutor=True)  # only the field changed here is written, on the file as it is now
        assert app.settings == Settings(tutor=True, level="beginner")
    assert load_settings() == (Settings(tutor=True, level="beginner"), [])


def test_a_new_games_options_are_one_checked_value():
    from cuarenta_tutor.engine import PRESETS
    from cuarenta_tutor.records import NewGame

    assert NewGame() == NewGame(rules="standard", players=2, level=None, dealer=None, seed=None)
    assert NewGame(rules="pagat", players=4, level="strong", dealer=3, seed=12).dealer == 3
    for options, words in ((dict(rules="vegas"), f"unknown rules preset 'vegas'; choose one of: {', '.join(PRESETS)}"),
                           (dict(players=3), "a game is for 2 or 4 players, not 3"),
                           (dict(level="grandmaster"), "unknown level 'grandmaster'"),
                           (dict(dealer=2), "the dealer is a seat 0..1, not 2"),
                           (dict(players=4, dealer=4), "the dealer is a seat 0..3, not 4"),
                           (dict(seed="7"), "the seed is a whole number, not '7'")):
        with pytest.raises(ValueError) as err:
            NewGame(**options)
        assert words in str(err.value), options
    with pytest.raises(FrozenInstanceError):
        NewGame().seed = 3


async def test_the_new_game_dialog_gives_the_app_a_new_game_value_and_the_game_follows_it():
    from helpers import settle
    from textual.widgets import Select

    from cuarenta_tutor.records import NewGame
    from cuarenta_tutor.tui import make_app
    from cuarenta_tutor.tui.home import NewGame as NewGameDialog
    from cuarenta_tutor.tui.play import PlayScreen

    app = make_app(agent_delay=0, tutor=False)
    chosen = []
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.push_screen(NewGameDialog("strong"), chosen.append)
        await settle(pilot)
        dialog = app.screen
        dialog.query_one("#rules", Select).value = "pagat"
        dialog.query_one("#dealer", Select).value = "1"
        dialog.query_one("#seed").value = "12"
        await pilot.click("#start")
        await settle(pilot)
        assert chosen == [NewGame(rules="pagat", players=2, level="strong", dealer=1, seed=12)]
        app.start_game(chosen[0])
        await settle(pilot)
        record = app.screen.session.record
        assert isinstance(app.screen, PlayScreen)
        assert (record.rules_preset, record.seed, record.first_dealer, record.level) == ("pagat", 12, 1, "strong")


def test_the_language_is_kept_and_a_foreign_one_is_reported_and_set_aside(tmp_path):
    save_settings(Settings(language="es"))
    assert load_settings()[0].language == "es"
    path = settings_path()
    path.write_text(json.dumps({"tutor": True, "model": "", "level": "club", "language": "klingon"}))
    settings, problems = load_settings()
    assert settings.language == "" and "language 'klingon'" in problems[0]
    assert list(path.parent.glob("settings.damaged-*.json"))
