"""Provides the files of game records: the user data folder, atomic save, safe load, and the saved-games list.

One file per game, `<games folder>/<game_id>.json`, rewritten atomically after every move, so a crash
loses nothing and an unfinished game can be resumed. A damaged, foreign or newer file raises
`RecordError` (never anything else), and `list_games` skips it with a message, as it does a record whose moves
do not replay (`load_replayed`).
"""

from __future__ import annotations

import json
import os
import secrets
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ..i18n import _
from ..resources import DATA_ENV, user_data_dir  # noqa: F401 (DATA_ENV: records exports it)
from .reader import read_json
from .record import GameRecord, RecordError, from_json, replay, result_text, to_json

MAX_BYTES = 20 << 20  # a record is tens of kilobytes; a larger file is not one (and is not read into memory)


def data_dir() -> Path:
    """The user data folder: $CUARENTA_TUTOR_HOME if set, else the platform's (platformdirs; resources.py)."""
    return user_data_dir()


def games_dir() -> Path:
    """The folder of saved games (created on demand)."""
    folder = data_dir() / "games"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


CARD_BYTES = 16 << 20
"""A model card is tens of kilobytes; a larger file is not one (and is not read into memory)."""


def read_card(path) -> dict | None:
    """A model card (the JSON object beside a model), None where there is none; read with read_json, left where it
    is when it cannot be used, and a symbolic link is refused (a card is rewritten and copied beside other models:
    through a link it would carry, or overwrite, another file)."""
    def card(data) -> dict:
        if not isinstance(data, dict):
            raise ValueError(_("a model card is a JSON object, not {kind}").format(kind=_json_kind(data)))
        return data
    return read_json(path, _("the model card"), card, max_bytes=CARD_BYTES, keep=False, links=False, missing=None,
                     then=_("fix it, or move it away from its model; nothing was written"))


def _json_kind(data) -> str:
    """What a JSON value is, with its article, as a message says it ("a list" / "una lista")."""
    if isinstance(data, list):
        return _("a list")
    if isinstance(data, str):
        return _("a text")
    if isinstance(data, bool):
        return _("true or false")
    return _("a number") if isinstance(data, (int, float)) else _("null")


def write_card(path: Path, card: dict) -> Path:
    """Write a model card (or any JSON document kept in the repository) atomically: indented, UTF-8, one final
    newline."""
    return write_atomic(Path(path), json.dumps(card, indent=2, ensure_ascii=False) + "\n")


def write_atomic(path: Path, text: str) -> Path:
    """Write `text` to `path` atomically: a temp file in the same folder, fsync, os.replace (and fsync of
    the folder where the system allows), so a crash leaves the old file or the new one, never half."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # not mkstemp: its file is private (0600) whatever the umask, and a rewrite would take that mode with it
    tmp = path.parent / f".{path.stem}.{secrets.token_hex(8)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)  # the umask applies
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            try:
                os.chmod(tmp, path.stat().st_mode & 0o7777)  # a rewrite keeps the file's permissions
            except FileNotFoundError:
                pass  # a new file: the umask's
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    try:  # make the rename itself durable (POSIX; Windows cannot open a folder)
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass
    return path


def clean_leftovers(folder=None, older_than_s: float = 3600.0) -> list[Path]:
    """Delete the temp files of saves a kill or a crash cut short (".<name>.<random>.tmp", older than an hour, so
    a save in progress elsewhere is left alone); returns them."""
    folder = Path(folder) if folder is not None else games_dir()
    gone = []
    for tmp in folder.glob(".*.tmp"):
        try:
            if tmp.is_file() and time.time() - tmp.stat().st_mtime > older_than_s:
                tmp.unlink()
                gone.append(tmp)
        except OSError:
            pass
    return gone


def save(record: GameRecord, folder=None, path=None) -> Path:
    """Write `<folder or games_dir()>/<game_id>.json` (or `path` itself) atomically; returns its path."""
    if path is None:
        path = (Path(folder) if folder is not None else games_dir()) / f"{record.game_id}.json"
    return write_atomic(Path(path), json.dumps(to_json(record), ensure_ascii=False, indent=1))


def load(path) -> GameRecord:
    """Read a record (records.read_json: a regular file, MAX_BYTES at most, strict JSON); RecordError (and nothing
    else) for anything that is not a usable record. A damaged record is left where it is: the app never writes
    over another game's file."""
    return read_json(path, _("the game record"), lambda data: from_json(data, str(path)), max_bytes=MAX_BYTES,
                     then=_("move it out of the games folder, or restore it from a backup"), keep=False,
                     error=RecordError)


_REPLAYED: dict = {}
"""Per game file (its absolute path), the identity (size, mtime_ns, inode, device) of the version last found to
replay. A record that does not replay is not kept: it is checked again each time (it is rare, and its message is
then in the language in use)."""


def _identity(path: Path) -> tuple | None:
    try:
        info = os.stat(path)
    except OSError:
        return None  # load says what is wrong
    return info.st_size, info.st_mtime_ns, info.st_ino, info.st_dev


def load_replayed(path) -> GameRecord:
    """`load`, then the record's moves replayed: a record edited by hand can be well-formed and still hold a move
    that does not fit its game, and would be listed, then refused when opened. RecordError names the file and the
    move. What the saved-games list and the progress figures read. The replay is kept by the file's identity
    (path, size, mtime_ns, inode: `_REPLAYED`, in this process), so a list shown again replays only the files
    saved since; the identity is taken before the file is read, so a file replaced meanwhile is checked again."""
    path = Path(path)
    key, identity = os.path.abspath(path), _identity(path)
    record = load(path)
    if identity is None or _REPLAYED.get(key) != identity:
        try:
            replay(record)
        except RecordError as err:
            _REPLAYED.pop(key, None)
            raise RecordError(_("the game record {path} does not replay: {error}; move it out of the games folder, "
                                "or restore it from a backup").format(path=path, error=err)) from None
        if identity is not None:
            _REPLAYED[key] = identity
    return record


@dataclass(frozen=True)
class GameSummary:
    """One line of the saved-games list: `result` as "you won 42-30" / "you lost 30-42" / "Ana won 41-12" (no
    human seat) / "unfinished"; `accuracy` the human's % over annotated moves or None; `model` a short sha256."""

    path: Path
    game_id: str
    created: str
    updated: str
    finished: bool
    result: str
    accuracy: float | None
    rules_preset: str | None
    model: str | None
    moves: int
    players: int = 2


def mean_accuracy(annotations: list[dict]) -> float | None:
    """The mean of the annotations' move accuracy %, or None."""
    values = [a["accuracy"] for a in annotations if isinstance(a.get("accuracy"), (int, float))]
    return sum(values) / len(values) if values else None


def summarize(record: GameRecord, path, accuracy=None) -> GameSummary:
    """The summary of a record; `accuracy(annotation dicts) -> float | None` (default: mean_accuracy)."""
    notes = [m.annotation for m in record.moves if m.annotation and m.seat == record.human_seat]
    try:
        acc = (accuracy or mean_accuracy)(notes) if notes else None
    except (TypeError, ValueError, KeyError):  # annotations it cannot read: no figure rather than no list
        acc = None
    return GameSummary(Path(path), record.game_id, record.created, record.updated, record.result is not None,
                       result_text(record), acc, record.rules_preset, record.model.id[:12] if record.model else None,
                       len(record.moves), len(record.seats))


def _when(text: str) -> float:
    moment = datetime.fromisoformat(text)
    return (moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)).timestamp()


def list_games(folder=None, accuracy=None) -> tuple[list[GameSummary], list[str]]:
    """The saved games, newest first, and one message per file skipped (damaged, foreign, newer, unreadable, moves
    that do not replay: `load_replayed`). `accuracy`: see `summarize` (`coach.summary_accuracy` gives the game
    accuracy a review shows)."""
    folder = Path(folder) if folder is not None else games_dir()
    if not folder.is_dir():
        return [], []
    found, skipped = [], []
    for path in sorted(folder.glob("*.json")):
        try:
            found.append(summarize(load_replayed(path), path, accuracy))
        except RecordError as err:
            skipped.append(_("{error} (it was skipped)").format(error=err))
    found.sort(key=lambda s: (_when(s.created), s.game_id), reverse=True)
    return found, skipped


def latest_unfinished(folder=None) -> GameSummary | None:
    """The newest game that is not over, or None."""
    return next((s for s in list_games(folder)[0] if not s.finished), None)


def delete(path) -> None:
    """Remove a saved game (no error if it is already gone)."""
    Path(path).unlink(missing_ok=True)


def models_dir() -> Path:
    """The person's own models (where `cuarenta-tutor export` writes by default)."""
    return data_dir() / "models"
