"""Provides the person's own files as the screens see them: saved games, settings, models, the drill deck, lesson
progress, the progress figures and the adaptive ladder, each read through the one checked reader (records)."""

from ..agents.onnx_contract import ModelError
from ..agents.onnx_policy import default_model_path, file_sha256, load_session
from ..coach.drills import BOX_DAYS, add_drills, load_deck, save_deck
from ..coach.stats import load as load_stats
from ..coach.stats import report_text, weak_spot
from ..lessons import (
    LessonError,
    feedback,
    last_rules_lesson,
    load_lessons,
    load_progress,
    save_progress,
    seat_lines,
)
from ..players import LEVELS, load_ladder, rung_name
from ..records import (
    NewGame,
    RecordError,
    ReplayedGame,
    Settings,
    games_dir,
    list_games,
    load,
    load_settings,
    models_dir,
    save,
    save_settings,
    when_text,
)
from .session import available_models

__all__ = ["ModelError", "default_model_path", "file_sha256", "load_session", "available_models", "BOX_DAYS",
           "add_drills", "load_deck", "save_deck", "load_stats", "report_text", "weak_spot", "LessonError",
           "feedback", "last_rules_lesson", "load_lessons", "load_progress", "save_progress", "seat_lines", "LEVELS",
           "load_ladder", "rung_name", "NewGame", "RecordError", "ReplayedGame", "Settings", "games_dir",
           "list_games", "load", "load_settings", "models_dir", "save", "save_settings", "when_text"]
