"""Provides the person's own files as the screens see them: saved games, settings, models, the drill deck, lesson
progress, the progress figures and the adaptive ladder, each read through the one checked reader (records.read_json);
whether a model is calibrated for the analysis; the settings with a model checked to load."""

from dataclasses import replace
from pathlib import Path

from ..agents.onnx_contract import ModelError
from ..agents.onnx_policy import default_model_path, file_sha256, load_session
from ..analysis.values import sidecar_problem
from ..coach.drills import BOX_DAYS, add_drills, load_deck, save_answered, save_deck
from ..coach.kinds import label as kind_label
from ..coach.kinds import with_article as kind_with_article
from ..coach.stats import load as load_stats
from ..coach.stats import report_text, weak_spot
from ..i18n import _
from ..lessons import (
    LessonError,
    feedback,
    last_rules_lesson,
    load_lessons,
    load_progress,
    mark_solved,
    save_progress,
    seat_lines,
)
from ..players import LEVELS, level_description, level_name, load_ladder, record_result, rung_name
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
from .session import available_models

__all__ = ["ModelError", "default_model_path", "file_sha256", "load_session", "available_models", "BOX_DAYS",
           "add_drills", "load_deck", "save_deck", "load_stats", "report_text", "weak_spot", "LessonError",
           "feedback", "last_rules_lesson", "load_lessons", "load_progress", "save_progress", "seat_lines", "LEVELS",
           "load_ladder", "rung_name", "NewGame", "RecordError", "ReplayedGame", "Settings", "games_dir",
           "list_games", "load", "load_settings", "models_dir", "save", "save_settings", "when_text", "uncalibrated",
           "kind_label", "kind_with_article", "level_name", "level_description", "save_answered", "mark_solved",
           "record_result", "update_settings"]


def uncalibrated(model) -> str | None:
    """Why the model at `model` has no analysis sidecar it can use (analysis.values.sidecar_problem: the numbers then
    come from its critic, with no measured error), in one line that says what to do; None where it has one, or
    where the model cannot be read (that is said where it is loaded)."""
    try:
        return sidecar_problem(model, file_sha256(model))
    except OSError:
        return None


def load_settings(path=None) -> tuple[Settings, list[str]]:
    """The person's settings (records.load_settings) with the model they name checked to load: one that does not
    (damaged, not a model, another version's) is told once and dropped from the settings, and the shipped one
    plays."""
    settings, problems = read_settings(path)
    if settings.model is None:
        return settings, problems
    try:
        load_session(settings.model)
    except ModelError as err:
        problems.append(_("the model of your settings cannot be used ({error}); the agent plays with the shipped "
                          "one and your settings no longer name it (m on the home screen chooses another)").format(
            error=err))
        gone = settings.model
        settings = replace(settings, model=None)
        try:  # on the file as it is now (records.update_file): dropped only where it still names that model
            update_file(Path(path or settings_path()), lambda where: read_settings(where)[0],
                        lambda fresh: replace(fresh, model=None) if fresh.model == gone else None, save_settings)
        except OSError:
            pass
    return settings, problems
