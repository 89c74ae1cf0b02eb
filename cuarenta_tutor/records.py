"""Provides game records: the JSON schema, atomic save, safe load, replay and resume, and the saved-games list.

One file per game, `<games folder>/<game_id>.json`, rewritten atomically after every move, so a crash
loses nothing and an unfinished game can be resumed. `replay` reproduces every state exactly; a damaged,
foreign or newer file raises `RecordError` (never anything else), and `list_games` skips it with a message.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import platformdirs

from .engine import N_ACTIONS, IllegalMove, Rules, State, action_to_string, apply, hand_deck, start_game
from .engine.cards import card_str, parse_card
from .engine.rules import preset_name

DATA_ENV = "CUARENTA_TUTOR_HOME"
SCHEMA_VERSION = 1
MAX_BYTES = 20 << 20  # a record is tens of kilobytes; a larger file is not one (and is not read into memory)
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")
_FIELDS = ("schema_version", "game_id", "created", "updated", "rules", "rules_preset", "seed", "first_dealer",
           "decks", "seats", "human_seat", "model", "moves", "result")


class RecordError(ValueError):
    """A record that cannot be used; the message says which file, what is wrong and what to do."""


def data_dir() -> Path:
    """The user data folder: $CUARENTA_TUTOR_HOME if set, else the platform's (platformdirs)."""
    env = os.environ.get(DATA_ENV)
    return Path(env) if env else Path(platformdirs.user_data_dir("cuarenta-tutor", appauthor=False))


def games_dir() -> Path:
    """The folder of saved games (created on demand)."""
    folder = data_dir() / "games"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _deck_strings(deck) -> list[str]:
    return [card_str(c, ascii_only=True) for c in deck]


@dataclass
class GameRecord:
    """One game as saved: mutable while it is played (moves are appended), plain JSON types throughout."""

    schema_version: int
    game_id: str
    created: str
    updated: str
    rules: dict
    """`Rules.to_dict()`."""
    rules_preset: str | None
    seed: int
    first_dealer: int
    decks: list
    """Per hand started so far, its deck order as 40 card strings ("7h"), next card first."""
    seats: list
    """Per seat {"seat": int, "player": "human" or a policy name, "name": display name}."""
    human_seat: int | None
    model: dict | None
    """{"id": sha256 of the .onnx, "path": str} of the coaching agent, or None."""
    moves: list = field(default_factory=list)
    """Per move {"seat", "action", "card", "annotation": dict or None}."""
    result: dict | None = None
    """None while the game goes on, then {"winner": team, "scores": [team 0, team 1]}."""

    def add_move(self, seat: int, action: int, card, annotation=None, after: State | None = None) -> None:
        """Append a move (`card` an id or string, `annotation` a dict or has `to_dict()`); with `after`, the
        state after the move, also note the deck of a hand it started and the result if it ended the game."""
        if annotation is not None and not isinstance(annotation, dict):
            annotation = annotation.to_dict()
        card = card_str(parse_card(card) if isinstance(card, str) else card, ascii_only=True)
        self.moves.append({"seat": int(seat), "action": int(action), "card": card, "annotation": annotation})
        self.updated = _now()
        if after is not None:
            self.finish(after)

    def finish(self, state: State) -> None:
        """Note a state reached by the moves: the decks of the hands started, and the result once it is over."""
        while len(self.decks) <= state.hand_no:
            self.decks.append(_deck_strings(hand_deck(self.seed, len(self.decks), state.decks)))
        if state.winner >= 0 and self.result is None:
            self.result = {"winner": state.winner, "scores": list(state.scores)}
            self.updated = _now()


def new_record(rules: Rules, seed: int, first_dealer: int, seats, human_seat: int | None = None,
               model: dict | None = None, decks=()) -> GameRecord:
    """A record for a game about to start; `seats`: per seat a dict (player, name) or a (player, name) pair;
    `decks`: the explicit deck orders the game is started with, if any (as for `start_game`)."""
    if len(seats) != rules.players:
        raise ValueError(f"{rules.players} players need {rules.players} seats, got {len(seats)}")
    pairs = [(s["player"], s.get("name", s["player"])) if isinstance(s, dict) else s for s in seats]
    table = [{"seat": i, "player": str(player), "name": str(name)} for i, (player, name) in enumerate(pairs)]
    explicit = [[parse_card(c) if isinstance(c, str) else c for c in d] for d in decks]
    game_id = f"{datetime.now():%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"
    return GameRecord(SCHEMA_VERSION, game_id, *[_now()] * 2, rules.to_dict(), preset_name(rules), int(seed),
                      int(first_dealer), [_deck_strings(hand_deck(seed, 0, explicit))], table, human_seat,
                      dict(model) if model else None)


def to_json(record: GameRecord) -> dict:
    """The record as a JSON-ready dict."""
    return {name: getattr(record, name) for name in _FIELDS}


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _parses(read, value) -> bool:
    try:
        read(value)
        return True
    except (TypeError, ValueError, AttributeError):
        return False


def _is_deck(deck) -> bool:
    return _parses(lambda d: [parse_card(c) for c in d], deck) and sorted(map(parse_card, deck)) == list(range(40))


def _is_move(m, n: int) -> bool:
    return (isinstance(m, dict) and _is_int(m.get("seat")) and 0 <= m["seat"] < n and _is_int(m.get("action"))
            and 0 <= m["action"] < N_ACTIONS and isinstance(m.get("annotation"), (dict, type(None)))
            and _parses(parse_card, m.get("card")))


def _problem(d: dict) -> str | None:
    """The first thing wrong with a record's fields (schema_version aside), or None."""
    missing = [f for f in _FIELDS if f not in d]
    if missing:
        return f"missing {', '.join(missing)}"
    try:
        n = Rules().with_options(**d["rules"]).players
    except (TypeError, ValueError) as err:
        return f"its rules are not valid ({err})"
    seat = lambda x: _is_int(x) and 0 <= x < n
    model, result, seats = d["model"], d["result"], d["seats"]
    checks = [
        (isinstance(d["game_id"], str) and _ID.match(d["game_id"]), "game_id is not letters, digits, '-', '_', '.'"),
        (all(_parses(datetime.fromisoformat, d[k]) for k in ("created", "updated")),
         "created or updated is not an ISO date and time"),
        (d["rules_preset"] is None or isinstance(d["rules_preset"], str), "rules_preset is neither a name nor null"),
        (_is_int(d["seed"]), "seed is not a whole number"),
        (seat(d["first_dealer"]), f"first_dealer is not a seat 0..{n - 1}"),
        (isinstance(d["decks"], list) and all(_is_deck(x) for x in d["decks"]), "decks are not decks of 40 cards"),
        (isinstance(seats, list) and len(seats) == n and all(
            isinstance(s, dict) and s.get("seat") == i and isinstance(s.get("player"), str)
            and isinstance(s.get("name"), str) for i, s in enumerate(seats)),
         f"seats is not a list of {n} {{seat, player, name}} entries in seat order"),
        (d["human_seat"] is None or seat(d["human_seat"]), f"human_seat is neither null nor a seat 0..{n - 1}"),
        (model is None or (isinstance(model, dict) and isinstance(model.get("id"), str)
                           and isinstance(model.get("path"), str)), "model is neither null nor an {id, path} object"),
        (result is None or (isinstance(result, dict) and result.get("winner") in (0, 1)
                            and isinstance(result.get("scores"), list) and len(result["scores"]) == 2
                            and all(_is_int(x) for x in result["scores"])),
         "result is neither null nor a {winner, scores} object"),
        (isinstance(d["moves"], list), "moves is not a list"),
    ]
    return next((what for ok, what in checks if not ok), None) or next((
        f"move {i + 1} is not a {{seat, action 0..{N_ACTIONS - 1}, card, annotation}} entry"
        for i, m in enumerate(d["moves"]) if not _is_move(m, n)), None)


def from_json(data, source: str = "the record") -> GameRecord:
    """Check a decoded JSON value and build the record; RecordError says which file, what is wrong, what to do."""
    if not isinstance(data, dict) or "schema_version" not in data:
        kind = "no schema_version" if isinstance(data, dict) else f"a JSON {type(data).__name__}, not an object"
        raise RecordError(f"{source} is not a Cuarenta game record ({kind}); if it is not yours to keep there, "
                          f"move it out of the games folder")
    version = data["schema_version"]
    if _is_int(version) and version > SCHEMA_VERSION:
        raise RecordError(f"{source} was written by a newer cuarenta-tutor (record schema {version}; this version "
                          f"reads {SCHEMA_VERSION}); upgrade cuarenta-tutor (pip install -U cuarenta-tutor) to open it")
    d = {"moves": [], "result": None, **data}
    bad = None if _is_int(version) and version >= 1 else f"schema_version {version!r} is not a positive number"
    bad = bad or _problem(d)
    if bad:
        raise RecordError(f"{source} is a damaged Cuarenta game record: {bad}; delete it or restore it from a backup")
    moves = [{k: m.get(k) for k in ("seat", "action", "card", "annotation")} for m in d["moves"]]
    result = d["result"] and {"winner": d["result"]["winner"], "scores": list(d["result"]["scores"])}
    return GameRecord(version, d["game_id"], d["created"], d["updated"], Rules().with_options(**d["rules"]).to_dict(),
                      d["rules_preset"], d["seed"], d["first_dealer"], [list(x) for x in d["decks"]],
                      [dict(s) for s in d["seats"]], d["human_seat"], dict(d["model"]) if d["model"] else None,
                      moves, result)


def write_atomic(path: Path, text: str) -> Path:
    """Write `text` to `path` atomically: a temp file in the same folder, fsync, os.replace (and fsync of
    the folder where the system allows), so a crash leaves the old file or the new one, never half."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
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


def save(record: GameRecord, folder=None) -> Path:
    """Write `<folder or games_dir()>/<game_id>.json` atomically; returns its path."""
    folder = Path(folder) if folder is not None else games_dir()
    return write_atomic(folder / f"{record.game_id}.json", json.dumps(to_json(record), ensure_ascii=False, indent=1))


def load(path) -> GameRecord:
    """Read a record; RecordError (and nothing else) for anything that is not a usable record."""
    path = Path(path)
    leave = "move it out of the games folder"
    try:
        if path.stat().st_size > MAX_BYTES:
            raise RecordError(f"{path} is too large to be a Cuarenta game record; {leave}")
        data = json.loads(path.read_bytes().decode("utf-8"))
    except OSError as err:
        raise RecordError(f"cannot read {path}: {err.strerror or err}; check that it exists and is readable") from None
    except UnicodeDecodeError:
        raise RecordError(f"{path} is not a Cuarenta game record (not UTF-8 text); {leave}") from None
    except json.JSONDecodeError as err:
        raise RecordError(f"{path} is damaged: invalid JSON at line {err.lineno} column {err.colno} ({err.msg}), "
                          f"probably cut short by a crash; delete it or restore it from a backup") from None
    except RecursionError:
        raise RecordError(f"{path} is not a Cuarenta game record (JSON nested too deeply); {leave}") from None
    return from_json(data, str(path))


def replay_events(record: GameRecord) -> tuple[list[State], list[tuple]]:
    """The states from the start through every move, and per state the events that led to it. Trailing decks
    that the seed gives anyway are not passed to the engine, so the states equal those of the game played."""
    where = f"game {record.game_id}"
    try:
        decks = [tuple(parse_card(c) for c in d) for d in record.decks]
        while decks and decks[-1] == hand_deck(record.seed, len(decks) - 1):
            decks.pop()
        state, events = start_game(Rules().with_options(**record.rules), record.seed, record.first_dealer, decks)
    except (TypeError, ValueError) as err:
        raise RecordError(f"{where} cannot be started: {err}; the record is damaged") from None
    states, all_events = [state], [events]
    for i, m in enumerate(record.moves):
        seat, action = m["seat"], m["action"]
        name = action_to_string(action) if _is_int(action) and 0 <= action < N_ACTIONS else repr(action)
        head = f'{where}: move {i + 1} (seat {seat}, "{name}") does not fit the game'
        if state.winner >= 0:
            raise RecordError(f"{head}: the game was already over; the record is damaged")
        if seat != state.turn:
            raise RecordError(f"{head}: it was seat {state.turn}'s turn; the record is damaged")
        try:
            state, events = apply(state, action, card=parse_card(m["card"]))
        except (IllegalMove, ValueError, TypeError) as err:
            raise RecordError(f"{head}: {err}; the record is damaged") from None
        states.append(state)
        all_events.append(events)
    return states, all_events


def replay(record: GameRecord) -> list[State]:
    """The states from the start through every move (len(moves) + 1); RecordError names a move that does not fit."""
    return replay_events(record)[0]


def resume(record: GameRecord) -> State:
    """The state after the last move, to go on playing an unfinished game."""
    return replay(record)[-1]


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


def result_text(record: GameRecord) -> str:
    """The result in a few words, from the human's side when there is one."""
    if record.result is None:
        return "unfinished"
    w, s = record.result["winner"], record.result["scores"]
    if record.human_seat is not None:
        team = record.human_seat & 1
        return f"you {'won' if w == team else 'lost'} {s[team]}-{s[1 - team]}"
    return f"{' & '.join(seat['name'] for seat in record.seats if seat['seat'] % 2 == w)} won {s[w]}-{s[1 - w]}"


def mean_accuracy(annotations: list[dict]) -> float | None:
    """The mean of the annotations' move accuracy %, or None."""
    values = [a["accuracy"] for a in annotations if isinstance(a.get("accuracy"), (int, float))]
    return sum(values) / len(values) if values else None


def summarize(record: GameRecord, path, accuracy=None) -> GameSummary:
    """The summary of a record; `accuracy(annotation dicts) -> float | None` (default: mean_accuracy)."""
    notes = [m["annotation"] for m in record.moves if m["annotation"] and m["seat"] == record.human_seat]
    try:
        acc = (accuracy or mean_accuracy)(notes) if notes else None
    except (TypeError, ValueError, KeyError):  # annotations it cannot read: no figure rather than no list
        acc = None
    return GameSummary(Path(path), record.game_id, record.created, record.updated, record.result is not None,
                       result_text(record), acc, record.rules_preset, record.model["id"][:12] if record.model else None,
                       len(record.moves))


def _when(text: str) -> float:
    moment = datetime.fromisoformat(text)
    return (moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)).timestamp()


def list_games(folder=None, accuracy=None) -> tuple[list[GameSummary], list[str]]:
    """The saved games, newest first, and one message per file skipped (damaged, foreign, newer, unreadable).
    `accuracy`: see `summarize` (`coach.summary_accuracy` gives the game accuracy a review shows)."""
    folder = Path(folder) if folder is not None else games_dir()
    if not folder.is_dir():
        return [], []
    found, skipped = [], []
    for path in sorted(folder.glob("*.json")):
        try:
            found.append(summarize(load(path), path, accuracy))
        except RecordError as err:
            skipped.append(f"{err} (it was skipped)")
    found.sort(key=lambda s: (_when(s.created), s.game_id), reverse=True)
    return found, skipped


def latest_unfinished(folder=None) -> GameSummary | None:
    """The newest game that is not over, or None."""
    return next((s for s in list_games(folder)[0] if not s.finished), None)


def delete(path) -> None:
    """Remove a saved game (no error if it is already gone)."""
    Path(path).unlink(missing_ok=True)
