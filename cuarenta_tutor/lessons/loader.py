"""Provides lesson files (TOML, see lessons/README.md) loaded and validated.

A lesson is a short text and 2-4 positions; a position is a real engine State with seat 0 (you) on
turn and one right answer. `load_lesson` checks everything a file can get wrong and raises
`LessonError` naming the file, the line and the problem.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..engine import (
    RANKS,
    TARGET_SCORE,
    IllegalMove,
    State,
    action_to_string,
    card_str,
    choice_to_action,
    legal_actions,
    make_position,
    parse_card,
    parse_rank,
    preset,
)
from ..engine.cards import DECK_SIZE
from ..narrator import move_name
from ..resources import data_dir

TRACKS = ("rules", "strategy")
"""The tracks, in teaching order."""
_TOP = {"id", "track", "order", "title", "text", "rules", "positions"}
_FIELDS = {"id", "prompt", "hand", "opponent", "table", "trailed", "scores", "captured", "pile_sizes", "stock",
           "ronda", "opponent_ronda", "answer", "why", "decided_by", "reason", "feedback"}
_POS_HEADER = re.compile(r"\s*\[\[\s*positions\s*\]\]")


class LessonError(ValueError):
    """A lesson file that cannot be used; the message names the file, the line and the problem."""

    def __init__(self, path: str, line: int | None, problem: str):
        super().__init__(f"{path}, line {line}: {problem}" if line else f"{path}: {problem}")
        self.path, self.line, self.problem = path, line, problem


@dataclass(frozen=True)
class Position:
    """One exercise: find the right move for seat 0 (on turn) in `state`."""

    id: str
    prompt: str
    state: State
    answer: int
    """The right move's action id."""
    why: str
    feedback: dict = field(default_factory=dict, hash=False)
    """Hand-written text per action id; other moves get generated feedback."""
    decided_by: str = "rules"
    """"rules": the rules alone make the answer right (see `reason`); "search": it is what search plays."""
    reason: str = ""
    line: int = 0
    """The line of the position's id in its file."""

    @property
    def answer_name(self) -> str:
        return move_name(self.state, self.answer)

    def moves(self) -> dict[str, int]:
        """The legal moves by name, in action order."""
        return {move_name(self.state, a): a for a in legal_actions(self.state)}


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
    try:
        raw = path.read_text(encoding="utf-8")
        data = tomllib.loads(raw)
    except (OSError, UnicodeDecodeError) as err:
        raise LessonError(name, None, f"cannot read the file ({err})") from None
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
    try:
        rules = preset(data.get("rules", "standard"))
    except (ValueError, TypeError) as err:
        fail(str(err), "rules")
    if not isinstance(data.get("positions"), list) or not data["positions"]:
        fail("a lesson needs at least one [[positions]] table", "positions")
    out: list[Position] = []
    for i, spec in enumerate(data["positions"]):
        try:
            pos = _position(spec, data["track"], rules)
        except ValueError as err:
            pid = spec.get("id") if isinstance(spec, dict) else None
            fail(f"position {pid or i + 1!r}: {err.args[0]}", err.args[1] if len(err.args) > 1 else None, i)
        if any(p.id == pos.id for p in out):
            fail(f"position id {pos.id!r} is used twice in this lesson", "id", i)
        start = headers[min(i, len(headers) - 1)]
        out.append(replace(pos, line=_find(lines, start, len(lines), "id") or start + 1))
    return Lesson(data["id"], data["track"], data["order"], data["title"], data["text"], tuple(out), path)


def _problem(message: str, key: str | None = None) -> ValueError:
    """A position's problem, with the field to point the line number at."""
    return ValueError(message, key)


def _cards(value, key: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise _problem(f"{key!r} must be a list of cards such as [\"5h\", \"K\"]", key)
    return value


def _place(groups: dict[str, list[str]]) -> dict[str, list[int]]:
    """Card ids for each group of card strings: suited cards first, then ranks alone on free suits."""
    used: dict[int, str] = {}
    placed: dict[str, dict] = {g: {} for g in groups}
    for suited in (True, False):
        for group, items in groups.items():
            key = group.split()[0]
            for n, item in enumerate(items):
                text = item.strip()
                if (len(text) >= 2 and text[-1] in "shdcSHDC♠♥♦♣") != suited:
                    continue
                try:
                    card = parse_card(text) if suited else next(
                        (parse_rank(text) * 4 + s for s in range(4) if parse_rank(text) * 4 + s not in used), None)
                except ValueError as err:
                    raise _problem(f"{group}: {err}", key) from None
                if card is None:
                    raise _problem(f"more than four cards of rank {text} (the last in {group})", key)
                if card in used:
                    raise _problem(f"the card {card_str(card)} appears twice (in {used[card]} and {group})", key)
                used[card], placed[group][n] = group, card
    return {g: [cards[n] for n in sorted(cards)] for g, cards in placed.items()}


def _rank(spec: dict, key: str) -> int | None:
    if spec.get(key) is None:
        return None
    try:
        if not isinstance(spec[key], str):
            raise ValueError(f"write the rank in quotes, such as \"5\", not {spec[key]!r}")
        return parse_rank(spec[key])
    except ValueError as err:
        raise _problem(f"{key!r}: {err}", key) from None


def _position(spec, track: str, rules) -> Position:
    """A Position from one [[positions]] table; ValueError(message, field) says what is wrong."""
    if not isinstance(spec, dict):
        raise _problem("a position must be a table")
    unknown = sorted(set(spec) - _FIELDS)
    if unknown:
        raise _problem(f"unknown field {unknown[0]!r} (known: {', '.join(sorted(_FIELDS))})", unknown[0])
    for key in ("id", "prompt", "why", "answer"):
        if key not in spec or key != "answer" and not (isinstance(spec[key], str) and spec[key].strip()):
            raise _problem(f"the field {key!r} is missing or empty", key)
    captured = spec.get("captured", [[], []])
    if not (isinstance(captured, list) and len(captured) == 2):
        raise _problem("'captured' must be two lists of cards: [[yours], [your opponent's]]", "captured")
    ids = _place({"hand": _cards(spec.get("hand"), "hand"), "opponent": _cards(spec.get("opponent"), "opponent"),
                  "table": _cards(spec.get("table", []), "table"), "captured (yours)": _cards(captured[0], "captured"),
                  "captured (theirs)": _cards(captured[1], "captured")})
    hand, opp = ids["hand"], ids["opponent"]
    if not 1 <= len(hand) <= 5:
        raise _problem(f"your hand must hold 1 to 5 cards, not {len(hand)}", "hand")
    if len(opp) not in (len(hand), len(hand) - 1):
        raise _problem(f"the opponent must hold as many cards as you ({len(hand)}: you lead this deal) "
                       f"or one fewer (they lead), not {len(opp)}", "opponent")
    placed = sum(map(len, ids.values()))
    stock = spec.get("stock", next((s for s in (30, 20, 10) if placed + s <= DECK_SIZE), 0))
    if isinstance(stock, bool) or stock not in (0, 10, 20, 30):
        raise _problem(f"'stock' must be 0, 10, 20 or 30 (cards left to deal), not {stock!r}", "stock")
    fill = DECK_SIZE - placed - stock
    if fill < 0:
        raise _problem(f"too many cards: {placed} placed and {stock} in the stock make more than 40", "stock")
    piles = [ids["captured (yours)"], ids["captured (theirs)"]]
    sizes, total = spec.get("pile_sizes"), fill + len(piles[0]) + len(piles[1])
    if sizes is not None and not (isinstance(sizes, list) and len(sizes) == 2 and sum(sizes) == total and all(
            type(n) is int and n >= len(p) for n, p in zip(sizes, piles, strict=True))):
        raise _problem(f"'pile_sizes' must be two counts, each at least its captured cards, adding up to {total} "
                       f"(the cards that are not in the hands, on the table or in the stock)", "pile_sizes")
    rest = sorted((c for c in range(DECK_SIZE) if all(c not in v for v in ids.values())), key=lambda c: (c & 3, c >> 2))
    for card in rest[:fill]:  # earlier captures: one of each rank in turn, to the smaller pile (yours on a tie)
        piles[(len(piles[0]) >= sizes[0]) if sizes else int(len(piles[1]) < len(piles[0]))].append(card)
    scores = spec.get("scores", [0, 0])
    if not (isinstance(scores, list) and len(scores) == 2
            and all(type(s) is int and 0 <= s < TARGET_SCORE for s in scores)):
        raise _problem(f"'scores' must be [yours, your opponent's], each 0 to {TARGET_SCORE - 1}", "scores")
    trailed, ronda, opp_ronda = (_rank(spec, k) for k in ("trailed", "ronda", "opponent_ronda"))
    if trailed is not None and trailed not in [c >> 2 for c in ids["table"]]:
        raise _problem(f"trailed = {spec['trailed']!r}, but no {RANKS[trailed]} is on the table", "trailed")
    if trailed is not None and len(opp) == 5:
        raise _problem("trailed is set, but your opponent has not played in this deal", "trailed")
    show = lambda cards: [card_str(c, ascii_only=True) for c in cards]  # noqa: E731
    state = make_position(rules, hands=[show(hand), show(opp)], table=show(ids["table"]), scores=tuple(scores),
                          dealer=int(len(opp) == len(hand)), piles=(show(piles[0]), show(piles[1])),
                          stock=show(rest[fill:]), trailed=trailed, rondas=[ronda, opp_ronda],
                          deal_no=(30 - stock) // 10)
    if not legal_actions(state):
        raise _problem("there is no legal move in this position")
    answer = _action(state, spec["answer"], "answer")
    notes = spec.get("feedback", {})
    if not isinstance(notes, dict) or not all(isinstance(v, str) for v in notes.values()):
        raise _problem("'feedback' must be a table of move name = \"text\"", "feedback")
    feedback = {_action(state, key, key, "feedback key"): text for key, text in notes.items()}
    decided_by = spec.get("decided_by", "rules" if track == "rules" else None)
    if decided_by not in ("rules", "search"):
        raise _problem(f"'decided_by' must be \"search\" or \"rules\", not {decided_by!r}", "decided_by")
    reason = spec.get("reason", spec["why"] if track == "rules" else "")
    if decided_by == "rules" and not (isinstance(reason, str) and reason.strip()):
        raise _problem("decided_by = \"rules\" needs a 'reason': why the rules alone make the answer right", "reason")
    return Position(spec["id"], spec["prompt"], state, answer, spec["why"], feedback, decided_by, reason or "")


def _norm(text: str) -> str:
    return re.sub(r"\s*\+\s*", "+", " ".join(text.lower().replace(",", " , ").split())).replace(" ,", ",")


def _action(state: State, spec, key: str, what: str = "answer") -> int:
    """The legal action a move name (or a {played, kind, base} table) stands for."""
    legal = legal_actions(state)
    listing = ", ".join(move_name(state, a) for a in legal)
    if isinstance(spec, str):
        for a in legal:
            if _norm(spec) in (_norm(move_name(state, a)), _norm(action_to_string(a))):
                return a
        raise _problem(f"the {what} {spec!r} is not a legal move here (legal: {listing})", key)
    if not (isinstance(spec, dict) and isinstance(spec.get("played"), str) and isinstance(spec.get("base", []), list)):
        raise _problem(f"the {what} must be a move name such as \"5 takes 5\" or a table {{played, kind, base}}", key)
    try:
        a = choice_to_action(parse_rank(spec["played"]), spec.get("kind", "trail"),
                             [parse_rank(b) for b in spec.get("base", [])], state.rules)
    except (IllegalMove, ValueError, TypeError, AttributeError) as err:
        raise _problem(f"the {what} is not a move: {err}", key) from None
    if a not in legal:
        raise _problem(f"the {what} {action_to_string(a)!r} is not a legal move here (legal: {listing})", key)
    return a


def load_lessons(folder=None) -> list[Lesson]:
    """Every lesson under `folder` (default: the shipped lessons/), the rules track first, then by order."""
    lessons = [load_lesson(p) for p in sorted(Path(folder or data_dir("lessons")).glob("*/*.toml"))]
    for i, lesson in enumerate(lessons):
        twin = next((other for other in lessons[:i] if other.id == lesson.id), None)
        if twin is not None:
            line = _find(lesson.path.read_text(encoding="utf-8").splitlines(), 0, 10**6, "id")
            raise LessonError(_display(lesson.path), line, f"lesson id {lesson.id!r} is used by {_display(twin.path)}")
    return sorted(lessons, key=lambda s: (TRACKS.index(s.track), s.order, s.id))


def last_rules_lesson(lessons) -> Lesson | None:
    """The last lesson of the rules track (after it the player is ready for a first game)."""
    rules = [s for s in lessons if s.track == "rules"]
    return max(rules, key=lambda s: s.order) if rules else None
