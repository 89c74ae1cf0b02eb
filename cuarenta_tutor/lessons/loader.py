"""Provides lesson files (TOML, see lessons/README.md) loaded and validated.

A lesson is a short text and 2-4 positions; a position is a real engine State with seat 0 (you) on
turn and one right answer, 1 v 1 (seat 1 is your opponent) or, with `players = 4`, 2 v 2 (seat 1 your
next opponent, seat 2 your partner, seat 3 your previous opponent). `load_lesson` checks everything a
file can get wrong and raises `LessonError` naming the file, the line and the problem.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path

from .. import records
from ..engine import (
    RANKS,
    State,
    preset,
)
from ..resources import data_dir
from .position import Position, build_position

TRACKS = ("rules", "strategy")
"""The tracks, in teaching order."""
_TOP = {"id", "track", "order", "title", "text", "rules", "players", "positions"}
_POS_HEADER = re.compile(r"\s*\[\[\s*positions\s*\]\]")


class LessonError(ValueError):
    """A lesson file that cannot be used; the message names the file, the line and the problem."""

    def __init__(self, path: str, line: int | None, problem: str):
        super().__init__(f"{path}, line {line}: {problem}" if line else f"{path}: {problem}")
        self.path, self.line, self.problem = path, line, problem


@dataclass(frozen=True)
class Lesson:
    """One lesson file: a text to read and its positions, in the order they are asked."""

    id: str
    track: str
    order: int
    title: str
    text: str
    positions: tuple
    path: Path
    players: int = 2
    """2 (1 v 1) or 4 (2 v 2: you and your partner, seats 0 and 2, against seats 1 and 3)."""


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _find(lines: list[str], start: int, end: int, key: str) -> int | None:
    """The 1-based line of `key = ...` between two 0-based line indexes, if any."""
    pattern = re.compile(rf"""\s*["']?{re.escape(key)}["']?\s*=""")
    return next((n + 1 for n in range(start, end) if pattern.match(lines[n])), None)


def load_lesson(path) -> Lesson:
    """Read and validate one lesson file; LessonError says what is wrong and where."""
    path = Path(path)
    name = _display(path)
    try:  # records.read_json's checks (a regular file, its size, text), the text as it is
        raw = records.read_json(path, "the lesson file", decode=str, max_bytes=1 << 20, keep=False,
                                then="fix it or move it out of the lessons folder")
        data = tomllib.loads(raw)
    except records.FileError as err:
        raise LessonError(name, None, err.reason) from None
    except tomllib.TOMLDecodeError as err:
        found = re.search(r"\s*\(at line (\d+), column (\d+)\)$", str(err))
        text = str(err)[:found.start()] + f" (column {found.group(2)})" if found else str(err)
        raise LessonError(name, int(found.group(1)) if found else len(raw.splitlines()),
                          f"TOML syntax error: {text}") from None
    lines = raw.splitlines()
    headers = [n for n, t in enumerate(lines) if _POS_HEADER.match(t)] or [0]

    def fail(problem: str, key: str | None = None, index: int | None = None):
        if index is None:  # a top-level field: look before the first [[positions]]
            raise LessonError(name, key and _find(lines, 0, headers[0] or len(lines), key), problem)
        start = headers[min(index, len(headers) - 1)]
        end = headers[index + 1] if index + 1 < len(headers) else len(lines)
        line = (key and _find(lines, start, end, key)) or _find(lines, start, end, "id") or start + 1
        raise LessonError(name, line, problem)

    unknown = sorted(set(data) - _TOP)
    if unknown:
        fail(f"unknown field {unknown[0]!r} (known: {', '.join(sorted(_TOP))})", unknown[0])
    for key, kind in (("id", str), ("track", str), ("order", int), ("title", str), ("text", str)):
        if key not in data:
            fail(f"the required field {key!r} is missing")
        if isinstance(data[key], bool) or not isinstance(data[key], kind) or data[key] == "":
            fail(f"{key!r} must be a non-empty {kind.__name__}", key)
    if data["track"] not in TRACKS:
        fail(f"unknown track {data['track']!r}: use one of {', '.join(TRACKS)}", "track")
    if path.parent.name in TRACKS and path.parent.name != data["track"]:
        fail(f"track {data['track']!r}, but the file is in the {path.parent.name!r} folder", "track")
    players = data.get("players", 2)
    if players not in (2, 4) or isinstance(players, bool):
        fail(f"'players' must be 2 (1 v 1) or 4 (2 v 2, partners facing each other), not {players!r}", "players")
    try:
        rules = preset(data.get("rules", "standard"), players=players)
    except (ValueError, TypeError) as err:
        fail(str(err), "rules")
    if not isinstance(data.get("positions"), list) or not data["positions"]:
        fail("a lesson needs at least one [[positions]] table", "positions")
    out: list[Position] = []
    for i, spec in enumerate(data["positions"]):
        try:
            pos = build_position(spec, data["track"], rules)
        except ValueError as err:
            pid = spec.get("id") if isinstance(spec, dict) else None
            fail(f"position {pid or i + 1!r}: {err.args[0]}", err.args[1] if len(err.args) > 1 else None, i)
        if any(p.id == pos.id for p in out):
            fail(f"position id {pos.id!r} is used twice in this lesson", "id", i)
        start = headers[min(i, len(headers) - 1)]
        out.append(replace(pos, line=_find(lines, start, len(lines), "id") or start + 1))
    return Lesson(data["id"], data["track"], data["order"], data["title"], data["text"], tuple(out), path, players)


def load_lessons(folder=None) -> list[Lesson]:
    """Every lesson under `folder` (default: the shipped lessons/), the rules track first, then by order."""
    lessons = [load_lesson(p) for p in sorted(Path(folder or data_dir("lessons")).glob("*/*.toml"))]
    for i, lesson in enumerate(lessons):
        twin = next((other for other in lessons[:i] if other.id == lesson.id), None)
        if twin is not None:
            line = _find(lesson.path.read_text(encoding="utf-8").splitlines(), 0, 10**6, "id")
            raise LessonError(_display(lesson.path), line, f"lesson id {lesson.id!r} is used by {_display(twin.path)}")
    return sorted(lessons, key=lambda s: (TRACKS.index(s.track), s.order, s.id))


def seat_lines(state: State) -> list[str]:
    """What a lesson screen shows of the seats besides your hand: the score and, in 2 v 2, who holds how many
    cards and who announced a ronda (the rank only for your own)."""
    if state.rules.players == 2:
        return [f"Score: you {state.scores[0]}, opponent {state.scores[1]}"]
    names = ("next opponent", "partner", "previous opponent")
    lines = [f"Score: your side (you and your partner) {state.scores[0]}, the other side {state.scores[1]}",
             "Cards in hand: " + ", ".join(f"{name} {len(state.hands[seat])}" for seat, name in enumerate(names, 1))]
    rondas = ([f"you ({RANKS[state.rondas[0]]}s)"] if state.rondas[0] >= 0 else []) + [
        f"your {name}" for seat, name in enumerate(names, 1) if state.rondas[seat] >= 0]
    if rondas:
        lines.append("Ronda announced this deal by: " + ", ".join(rondas))
    return lines


def last_rules_lesson(lessons) -> Lesson | None:
    """The last lesson of the rules track (after it the player is ready for a first game)."""
    rules = [s for s in lessons if s.track == "rules"]
    return max(rules, key=lambda s: s.order) if rules else None
