"""Provides the person's own files as the screens see them: saved games, settings, models, the drill deck, lesson
progress, the progress figures and the adaptive ladder, each read through the one checked reader (records.read_json);
whether a model is calibrated for the analysis; the settings with a model checked to load."""

import importlib
from dataclasses import replace
from pathlib import Path

from ..i18n import _
from ..records import (
    NewGame,
    RecordError,
    ReplayedGame,
    Settings,
    games_dir,
    list_games,
    load,
    models_dir,
    save,
    save_settings,
    settings_path,
    update_file,
    update_settings,
    when_text,
)
from ..records import load_settings as read_settings

_LATER = {
    "..agents.onnx_contract": ("ModelError",),
    "..agents.onnx_policy": ("default_model_path", "file_sha256", "load_session"),
    "..analysis.values": ("sidecar_problem",),
    "..coach.drills": ("BOX_DAYS", "add_drills", "load_deck", "save_answered", "save_deck"),
    "..coach.kinds": (("kind_label", "label"), ("kind_with_article", "with_article")),
    "..coach.stats": (("load_stats", "load"), "report_text", "weak_spot"),
    "..lessons": ("LessonError", "feedback", "last_rules_lesson", "load_lessons", "load_progress", "mark_solved",
                  "save_progress", "seat_lines"),
    "..players": ("LEVELS", "level_description", "level_name", "load_ladder", "record_result", "rung_name"),
    ".session": ("available_models",),
}
"""The names this module gives from modules imported on first use (PEP 562 `__getattr__`), not with it: the home
screen imports this module, and the analysis, numba, numpy and onnxruntime behind these load in a worker after the
first screen is drawn (tests/test_fast_start.py). A name's module: (name here, name there) where the two differ."""
_WHERE = {(entry if isinstance(entry, str) else entry[0]): (module, entry if isinstance(entry, str) else entry[1])
          for module, entries in _LATER.items() for entry in entries}


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, there = _WHERE[name]
    value = getattr(importlib.import_module(module, __package__), there)
    globals()[name] = value  # looked up once
    return value


__all__ = ["NewGame", "RecordError", "ReplayedGame", "Settings", "games_dir", "list_games", "load", "load_settings",
           "models_dir", "save", "save_settings", "when_text", "uncalibrated", "update_settings", "read_settings",
           "drop_unusable_model", *_WHERE]


def uncalibrated(model) -> str | None:
    """Why the model at `model` has no analysis sidecar it can use (analysis.values.sidecar_problem: the numbers then
    come from its critic, with no measured error), in one line that says what to do; None where it has one, or
    where the model cannot be read (that is said where it is loaded)."""
    from ..agents.onnx_policy import file_sha256
    from ..analysis.values import sidecar_problem

    try:
        return sidecar_problem(model, file_sha256(model))
    except OSError:
        return None


def load_settings(path=None) -> tuple[Settings, list[str]]:
    """The person's settings (records.load_settings) with the model they name checked to load: one that does not
    (damaged, not a model, another version's) is told once and dropped from the settings, and the shipped one
    plays."""
    settings, problems = read_settings(path)
    settings, more = drop_unusable_model(settings, path)
    return settings, problems + more


def drop_unusable_model(settings: Settings, path=None) -> tuple[Settings, list[str]]:
    """`settings` (as read from the file at `path`, default the person's) with the model they name checked to load
    (onnxruntime: the app does it in a worker, after its first screen): one that does not is dropped from the
    settings and from the file, and told in the one problem returned."""
    from ..agents.onnx_contract import ModelError
    from ..agents.onnx_policy import load_session

    if settings.model is None:
        return settings, []
    try:
        load_session(settings.model)
    except ModelError as err:
        problem = _("the model of your settings cannot be used ({error}); the agent plays with the shipped one and "
                    "your settings no longer name it (m on the home screen chooses another)").format(error=err)
        gone = settings.model
        settings = replace(settings, model=None)
        try:  # on the file as it is now (records.update_file): dropped only where it still names that model
            update_file(Path(path or settings_path()), lambda where: read_settings(where)[0],
                        lambda fresh: replace(fresh, model=None) if fresh.model == gone else None, save_settings)
        except OSError:
            pass
        return settings, [problem]
    return settings, []
