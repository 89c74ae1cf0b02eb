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
from ..i18n import _
from ..resources import data_dir
from .position import Position, build_position

TRACKS = ("rules", "strategy")
"""The tracks, in teaching order."""
_TOP = {"id", "track", "order", "title", "text", "rules", "players", "positions"}
_POS_HEADER = re.compile(r"\s*\[\[\s*positions\s*\]\]")


class LessonError(ValueError):
    """A lesson file that cannot be used; the message names the file, the line and the problem."""

    def __init__(self, path: str, line: int | None, problem: str):
        super().__init__(_("{path}, line {line}: {problem}").format(path=path, line=line, problem=problem) if line
                         else _("{path}: {problem}").format(path=path, problem=problem))
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
        raw = records.read_json(path, _("the lesson file"), decode=str, max_bytes=1 << 20, keep=False,
                                then=_("fix it or move it out of the lessons folder"))
        data = tomllib.loads(raw)
    except records.FileError as err:
        raise LessonError(name, None, err.reason) from None
    except tomllib.TOMLDecodeError as err:
        found = re.search(r"\s*\(at line (\d+), column (\d+)\)$", str(err))
        text = _("{problem} (column {column})").format(problem=str(err)[:found.start()], column=found.group(2)) \
            if found else str(err)
        raise LessonError(name, int(found.group(1)) if found else len(raw.splitlines()),
                          _("TOML syntax error: {problem}").format(problem=text)) from None
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
        fail(_("unknown field {key} (known: {known})").format(key=repr(unknown[0]), known=", ".join(sorted(_TOP))),
             unknown[0])
    for key, kind in (("id", str), ("track", str), ("order", int), ("title", str), ("text", str)):
        if key not in data:
            fail(_("the required field {key} is missing").format(key=repr(key)))
        if isinstance(data[key], bool) or not isinstance(data[key], kind) or data[key] == "":
            fail((_("{key} must be a non-empty str") if kind is str else _("{key} must be a non-empty int")).format(
                key=repr(key)), key)
    if data["track"] not in TRACKS:
        fail(_("unknown track {track}: use one of {tracks}").format(track=repr(data["track"]),
                                                                     tracks=", ".join(TRACKS)), "track")
    if path.parent.name in TRACKS and path.parent.name != data["track"]:
        fail(_("track {track}, but the file is in the {folder} folder").format(track=repr(data["track"]),
                                                                              folder=repr(path.parent.name)), "track")
    players = data.get("players", 2)
    if players not in (2, 4) or isinstance(players, bool):
        fail(_("'players' must be 2 (1 v 1) or 4 (2 v 2, partners facing each other), not {players}").format(
            players=repr(players)), "players")
    try:
        rules = preset(data.get("rules", "standard"), players=players)
    except (ValueError, TypeError) as err:
        fail(str(err), "rules")
    if not isinstance(data.get("positions"), list) or not data["positions"]:
        fail(_("a lesson needs at least one [[positions]] table"), "positions")
    out: list[Position] = []
    for i, spec in enumerate(data["positions"]):
        try:
            pos = build_position(spec, data["track"], rules)
        except ValueError as err:
            pid = spec.get("id") if isinstance(spec, dict) else None
            fail(_("position {position}: {problem}").format(position=repr(pid or i + 1), problem=err.args[0]),
                 err.args[1] if len(err.args) > 1 else None, i)
        if any(p.id == pos.id for p in out):
            fail(_("position id {position} is used twice in this lesson").format(position=repr(pos.id)), "id", i)
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
            raise LessonError(_display(lesson.path), line, _("lesson id {lesson} is used by {path}").format(
                lesson=repr(lesson.id), path=_display(twin.path)))
    return sorted(lessons, key=lambda s: (TRACKS.index(s.track), s.order, s.id))


def seat_lines(state: State) -> list[str]:
    """What a lesson screen shows of the seats besides your hand: the score and, in 2 v 2, who holds how many
    cards and who announced a ronda (the rank only for your own)."""
    if state.rules.players == 2:
        return [_("Score: you {ours}, opponent {theirs}").format(ours=state.scores[0], theirs=state.scores[1])]
    lines = [_("Score: your side (you and your partner) {ours}, the other side {theirs}").format(
                 ours=state.scores[0], theirs=state.scores[1]),
             _("Cards in hand: next opponent {next}, partner {partner}, previous opponent {previous}").format(
                 next=len(state.hands[1]), partner=len(state.hands[2]), previous=len(state.hands[3]))]
    names = (_("your next opponent"), _("your partner"), _("your previous opponent"))
    rondas = ([_("you ({rank}s)").format(rank=RANKS[state.rondas[0]])] if state.rondas[0] >= 0 else []) + [
        name for seat, name in enumerate(names, 1) if state.rondas[seat] >= 0]
    if rondas:
        lines.append(_("Ronda announced this deal by: {players}").format(players=", ".join(rondas)))
    return lines


def last_rules_lesson(lessons) -> Lesson | None:
    """The last lesson of the rules track (after it the player is ready for a first game)."""
    rules = [s for s in lessons if s.track == "rules"]
    return max(rules, key=lambda s: s.order) if rules else None
