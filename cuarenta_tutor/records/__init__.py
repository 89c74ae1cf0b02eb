"""Provides game records: the schema and replay (record.py) and the files in the user data folder (store.py)."""

from .record import (
    SCHEMA_VERSION,
    GameRecord,
    ModelRef,
    MoveEntry,
    RecordError,
    Result,
    SeatEntry,
    from_json,
    new_record,
    now,
    replay,
    replay_events,
    result_text,
    to_json,
    when_text,
)
from .store import (
    DATA_ENV,
    MAX_BYTES,
    GameSummary,
    aside,
    clean_leftovers,
    data_dir,
    delete,
    games_dir,
    latest_unfinished,
    list_games,
    load,
    load_settings,
    mean_accuracy,
    models_dir,
    save,
    save_settings,
    summarize,
    write_atomic,
    write_card,
)

__all__ = [
    "SCHEMA_VERSION", "GameRecord", "ModelRef", "MoveEntry", "RecordError", "Result", "SeatEntry", "from_json",
    "new_record", "now", "replay", "replay_events", "result_text", "to_json", "DATA_ENV", "MAX_BYTES", "GameSummary",
    "aside", "clean_leftovers", "data_dir", "delete", "games_dir", "latest_unfinished", "list_games", "load",
    "mean_accuracy", "models_dir", "save", "summarize", "write_atomic", "write_card", "load_settings", "save_settings",
    "when_text",
]
