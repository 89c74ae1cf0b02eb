"""Provides the person's settings as one typed value (read once and checked, kept aside when damaged, written
atomically), and the options of a new game as another.

`settings.json` in the user data folder holds `{"tutor": bool, "model": str, "level": str, "language": str,
"hints": bool}` ("" for the shipped model; "" for the language of the environment, else "en" or "es"). Reading never
raises and never resets anything in silence: a file that is not such an object, or holds a value of the wrong type
or an unknown level or language, is kept aside as `settings.damaged-<time>.json` (records.read_json, as every file
of the person's), the values it cannot use take their defaults, the repaired settings are written back where the file
could be kept aside, and each problem is a message for the person. A model that is no longer there (moved,
deleted) is a message too: the agent plays with the shipped one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

from ..engine import PLAYER_COUNTS, PRESETS
from ..i18n import LANGUAGES, _
from .lock import update_file
from .reader import FileError, read_json, refuse
from .store import data_dir, write_atomic

LEVELS = ("beginner", "club", "strong", "adaptive")
"""The levels of play a person chooses (players.py makes their policies; `play --level` and the new-game dialog
offer these)."""
MAX_BYTES = 1 << 16
"""A settings file is a few dozen bytes; a larger one is not ours (and is not read into memory)."""


@dataclass(frozen=True)
class Settings:
    """What the person chose, kept between runs. Frozen: a change is a new value (`dataclasses.replace`), saved
    with `save_settings`."""

    tutor: bool = True
    """The tutor asks before a clear mistake."""
    model: Path | None = None
    """The ONNX model the agent plays with; None: the shipped one."""
    level: str = "club"
    """The level of play last chosen for a new game (one of LEVELS)."""
    language: str = ""
    """The language of the interface: "en", "es", or "" for the environment's (i18n.from_environment)."""
    hints: bool = False
    """The hints panel open (h): the person's last choice, with which every new or continued game starts."""

    def __post_init__(self) -> None:
        problems = _problems(self.tutor, self.model, self.level, self.language, self.hints)
        if problems:
            raise ValueError("; ".join(problems.values()))

    def to_json(self) -> dict:
        return {"tutor": self.tutor, "model": "" if self.model is None else str(self.model), "level": self.level,
                "language": self.language, "hints": self.hints}


@dataclass(frozen=True)
class NewGame:
    """The options of a new game against the agent, as the new-game dialog and `play` give them to the app. Checked
    when made: a value that exists is a game that can be dealt. The model is the app's (`--model`, or the person's
    choice on the home screen), not a game's."""

    rules: str = "standard"
    """The rules preset (engine.PRESETS)."""
    players: int = 2
    """2: the person against the agent; 4: the person and an agent partner against two agents."""
    level: str | None = None
    """The level of play (one of LEVELS); None: the person's last choice (Settings.level)."""
    dealer: int | None = None
    """The seat that deals first; None: drawn from the seed."""
    seed: int | None = None
    """The seed of the deals (same seed, same cards); None: a new random game."""

    def __post_init__(self) -> None:
        if self.rules not in PRESETS:
            raise ValueError(_("unknown rules preset {name}; choose one of: {choices}").format(
                name=repr(self.rules), choices=", ".join(PRESETS)))
        if type(self.players) is not int or self.players not in PLAYER_COUNTS:
            raise ValueError(_("a game is for {one} or {other} players, not {value}").format(
                one=PLAYER_COUNTS[0], other=PLAYER_COUNTS[1], value=repr(self.players)))
        if self.level is not None and self.level not in LEVELS:
            raise ValueError(_("unknown level {level}; choose one of: {choices}").format(
                level=repr(self.level), choices=", ".join(LEVELS)))
        if self.dealer is not None and (type(self.dealer) is not int or not 0 <= self.dealer < self.players):
            raise ValueError(_("the dealer is a seat 0..{last}, not {value}").format(last=self.players - 1,
                                                                                    value=repr(self.dealer)))
        if self.seed is not None and type(self.seed) is not int:
            raise ValueError(_("the seed is a whole number, not {value}").format(value=repr(self.seed)))


def _problems(tutor, model, level, language="", hints=False) -> dict[str, str]:
    """The values that are not settings, by field, each with its reason."""
    found = {}
    if not isinstance(tutor, bool):
        found["tutor"] = _("tutor must be true or false, not {value}").format(value=repr(tutor))
    if model is not None and not isinstance(model, Path):
        found["model"] = _("model must be the path of an ONNX file, not {value}").format(value=repr(model))
    if not isinstance(level, str) or level not in LEVELS:
        found["level"] = _("level {value} is not a level of play (choose one of: {choices})").format(
            value=repr(level), choices=", ".join(LEVELS))
    if not isinstance(language, str) or language not in ("", *LANGUAGES):
        found["language"] = _("language {value} is not a language of the tutor (choose one of: {choices})").format(
            value=repr(language), choices=", ".join(LANGUAGES))
    if not isinstance(hints, bool):
        found["hints"] = _("hints must be true or false, not {value}").format(value=repr(hints))
    return found


def settings_path() -> Path:
    return data_dir() / "settings.json"


def load_settings(path=None) -> tuple[Settings, list[str]]:
    """The stored settings (the defaults where there are none) and what the person must be told about the file:
    see the module's docstring. Never raises."""
    path = Path(path or settings_path())
    try:
        data = read_json(path, _("the settings file"), _object, max_bytes=MAX_BYTES,
                         then=_("the defaults are used"), missing={})
    except FileError as err:
        return Settings(), [str(err)]
    defaults = Settings()
    values = {name: data.get(name, getattr(defaults, name))
              for name in ("tutor", "model", "level", "language", "hints")}
    if isinstance(values["model"], str):
        values["model"] = Path(values["model"]) if values["model"] else None
    damaged = _problems(**values)
    if "model" not in damaged and values["model"] is not None and values["model"].exists() \
            and (not values["model"].is_file() or values["model"].suffix != ".onnx"):
        damaged["model"] = _("the model {path} is not an ONNX model file").format(path=values["model"])
    for name in damaged:
        values[name] = getattr(defaults, name)
    settings = Settings(**values)
    if damaged:
        return settings, [_repair(path, settings, _("the settings file {path} has values it cannot use: "
                                                    "{problems}").format(path=path,
                                                                         problems="; ".join(damaged.values())))]
    if settings.model is not None and not settings.model.exists():  # an exported model deleted since: not damage
        gone = settings.model
        settings = replace(settings, model=None)
        try:
            save_settings(settings, path)
        except OSError:
            pass
        return settings, [_("the model {path} of your settings is not there any more; the agent plays with the "
                            "shipped one (m on the home screen chooses another)").format(path=gone)]
    return settings, []


def _object(data) -> dict:
    if not isinstance(data, dict):
        raise ValueError(_("not a JSON object of settings"))
    return data


def _repair(path: Path, settings: Settings, problem: str) -> str:
    """Keep the file aside (records.refuse) and write `settings` in its place; the message that says so."""
    err = refuse(path, problem, _("those values are back to their defaults"))
    if err.kept:
        try:
            save_settings(settings, path)
        except OSError:
            pass
    return str(err)


def update_settings(path=None, **changes) -> tuple[Settings, list[str]]:
    """Change the fields named in `changes` (`update_settings(level="strong")`) on the settings file as it is now
    (records.update_file: re-read under its lock, so a field another process changed meanwhile stays) and write it;
    the settings as written and what the person must be told about the file (load_settings's: a damaged file is
    kept aside and said, never reset in silence). A value that is not a setting raises, as Settings does, before
    anything is read."""
    replace(Settings(), **changes)  # checked first: a wrong value changes nothing
    told: list[str] = []

    def read(where: Path) -> Settings:
        settings, problems = load_settings(where)
        told.extend(problems)
        return settings

    def change(settings: Settings) -> Settings | None:
        changed = replace(settings, **changes)
        return None if changed == settings else changed

    return update_file(Path(path or settings_path()), read, change, save_settings), told


def save_settings(settings: Settings, path=None) -> Path:
    """Write the settings atomically (a temp file renamed over the old one: records.write_atomic). It writes over
    what is stored: a change of some fields is `update_settings` (made on the file as it is)."""
    if not isinstance(settings, Settings):
        raise TypeError(f"save_settings takes Settings, not {type(settings).__name__}")
    return write_atomic(Path(path or settings_path()), json.dumps(settings.to_json(), indent=1))
