"""Provides game records: the schema and replay (record.py), the files in the user data folder (store.py), and the
person's settings (settings.py), and the one reader of every file of the person's (reader.py), and the lock and
the update under it of a file that more than one process may change (lock.py)."""

from .lock import file_lock, lock_path, update_file
from .reader import FileError, aside, read_json
from .record import (
    SCHEMA_VERSION,
    GameRecord,
    ModelRef,
    MoveEntry,
    RecordError,
    ReplayedGame,
    Result,
    SeatEntry,
    from_json,
    move_json,
    new_record,
    now,
    replay,
    replay_events,
    result_text,
    to_json,
    when_text,
)
from .settings import (
    LEVELS,
    NewGame,
    Settings,
    load_settings,
    save_settings,
    settings_path,
    update_settings,
)
from .store import (
    DATA_ENV,
    MAX_BYTES,
    GameSummary,
    clean_leftovers,
    data_dir,
    delete,
    games_dir,
    latest_unfinished,
    list_games,
    load,
    load_replayed,
    mean_accuracy,
    models_dir,
    read_card,
    save,
    summarize,
    write_atomic,
    write_card,
)

__all__ = [
    "SCHEMA_VERSION", "GameRecord", "ModelRef", "MoveEntry", "RecordError", "ReplayedGame", "Result", "SeatEntry",
    "from_json", "new_record", "now", "replay", "replay_events", "result_text", "to_json", "DATA_ENV", "MAX_BYTES",
    "GameSummary", "move_json", "load_replayed",
    "aside", "clean_leftovers", "data_dir", "delete", "games_dir", "latest_unfinished", "list_games", "load",
    "mean_accuracy", "models_dir", "read_card", "save", "summarize", "write_atomic", "write_card", "when_text",
    "LEVELS", "NewGame", "Settings", "load_settings", "save_settings", "settings_path", "FileError", "read_json",
    "file_lock", "lock_path", "update_file", "update_settings",
]
