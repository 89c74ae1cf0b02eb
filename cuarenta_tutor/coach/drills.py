"""Provides drills: the positions of your own mistakes, served again with spaced repetition.

Every move of the person's that a review classes as a mistake or a blunder (the analysis's interval
clearing the threshold) becomes a drill: the game up to that move, so the position is exactly what they saw,
and the analysis of every legal move there, so any answer gets its numbers and the narrator's reason.

The schedule is Leitner's boxes: a right answer moves a drill up a box and it comes back after that box's
days (1, 3, 7, 16, 35); a wrong one puts it back in box 0, due at once. The deck is one JSON file in the user
data folder, written atomically after every answer, each change made on the file as it is then (re-read under its
lock: records.update_file), so two apps open at once never drop each other's drills or answers. A damaged file is
reported and kept aside (renamed, never deleted) before a new one is written; a damaged drill in it is reported,
skipped and written back as it was.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

from .. import records
from ..analysis.classes import Class, classify
from ..engine import legal_actions
from ..i18n import _, number
from ..narrator import move_name, why_better
from .advice import measured_error, win_text
from .annotate import move_risks
from .kinds import KINDS, kind

SCHEMA = 1
MAX_BYTES = 64 << 20
"""A deck is a few kilobytes a drill; a larger file is not one (and is not read into memory)."""
BOX_DAYS = (0, 1, 3, 7, 16, 35)
"""Days until a drill in each box is due again (box 0: at once)."""
NUMBERS = ("action", "win_pct", "loss", "caida_risk", "limpia_risk")


def deck_path() -> Path:
    return records.data_dir() / "drills.json"


def _at(when: datetime) -> str:
    return when.astimezone(timezone.utc).isoformat(timespec="seconds")


@dataclass
class Drill:
    """One position to solve again."""

    id: str
    """"<game id>:<ply>"."""
    game: dict
    """The game record up to the move (no annotations), as `records.to_json` writes it."""
    seat: int
    played: int
    """The action played in the game."""
    moves: list
    """Every legal move's analysis there (`MoveEval.to_json()` and its "class", a Class's word)."""
    kind: str
    created: str
    box: int = 0
    due: str = ""
    answers: list = field(default_factory=list)
    """[{"when", "action", "right"}] in order."""
    measured: bool = True
    """The analysis's intervals hold a measured model error (advice.measured_error); False: they are unknown, and
    its numbers show as "62% (uncalibrated)". Decks from before it was kept read as True."""

    def state(self):
        """The position, replayed from the game record."""
        return records.replay(records.from_json(self.game, f"drill {self.id}"))[-1]

    def move(self, action: int) -> dict:
        return next(m for m in self.moves if m["action"] == action)

    @property
    def best(self) -> dict:
        return min(self.moves, key=lambda m: m["loss"])

    def is_due(self, when: datetime) -> bool:
        return datetime.fromisoformat(self.due) <= when

    @property
    def order(self) -> tuple:
        """Its place in the queue: due soonest first; at one due time (kept to the second) the one answered
        longest ago, never before any, so a drill answered wrong comes back after those already waiting."""
        return self.due, self.answers[-1]["when"] if self.answers else "", self.created, self.id

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data) -> Drill:
        """ValueError says what is wrong with a stored drill."""
        if not isinstance(data, dict):
            raise ValueError(_("a drill is an object, not {kind}").format(kind=type(data).__name__))
        try:
            drill = cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})
            state = drill.state()  # the game replays to the position
            if not isinstance(drill.id, str) or drill.kind not in KINDS or drill.seat != state.turn:
                raise ValueError(_("its id, kind or seat is not a drill's"))
            if any(datetime.fromisoformat(when).tzinfo is None for when in (drill.due, drill.created)):
                raise ValueError(_("its due or created date has no time zone"))
            if not isinstance(drill.answers, list) or not all(
                    isinstance(a, dict) and datetime.fromisoformat(a["when"]).tzinfo for a in drill.answers):
                raise ValueError(_("its answers are not a list of answers with their time"))
            if type(drill.box) is not int or not 0 <= drill.box < len(BOX_DAYS) \
                    or drill.played not in {m["action"] for m in drill.moves}:
                raise ValueError(_("its box or its moves do not fit"))
            if sorted(m["action"] for m in drill.moves) != sorted(legal_actions(state)):
                raise ValueError(_("its moves are not the legal moves of its position"))
            if not all(isinstance(m["move"], str) and (m["ci95"] is None or (
                    len(m["ci95"]) == 2 and all(isinstance(x, (int, float)) for x in m["ci95"]))) for m in drill.moves):
                raise ValueError(_("a move's name or interval is missing"))
            if not all(isinstance(m[k], (int, float)) for m in drill.moves for k in NUMBERS):
                raise ValueError(_("a move's numbers are missing"))
            if not isinstance(drill.measured, bool):
                raise ValueError(_("its 'measured' is not true or false"))
            if not all(m.get("class") in set(Class) for m in drill.moves):
                raise ValueError(_("a move's class is not one of {classes}").format(classes=", ".join(Class)))
        except (TypeError, KeyError, ValueError, records.RecordError) as err:
            why = _("something in it has no {key}").format(key=err) if isinstance(err, KeyError) else err
            raise ValueError(_("drill {id!r} cannot be read ({why})").format(id=data.get("id", "?"), why=why)) from None
        return drill

    def answer(self, action: int, when: datetime) -> tuple[bool, str]:
        """Judge an answer, move the drill to its next box and due date, and say why: (right, feedback)."""
        chosen, best, played = self.move(action), self.best, self.move(self.played)
        right = Class(chosen["class"]).is_right
        self.box = min(self.box + 1, len(BOX_DAYS) - 1) if right else 0
        self.due = _at(when + timedelta(days=BOX_DAYS[self.box]))
        self.answers.append({"when": _at(when), "action": action, "right": right})
        return right, feedback(self.state(), chosen, best, played, self.measured)


def feedback(state, chosen: dict, best: dict, played: dict, measured: bool = True) -> str:
    """The numbers of the chosen move against the best, and the narrator's reason where it is worse; with
    `measured` False the intervals are unknown ("62% (uncalibrated)")."""
    def _win(m: dict) -> str:
        return win_text(m["win_pct"], m["ci95"], measured)

    def _name(m: dict) -> str:  # in the language in use (the deck keeps the name it was made with)
        return move_name(state, m["action"])

    def _it(reasons) -> str:  # the narrator's reasons, said of the worse move
        return " " + _("It {reasons}.").format(reasons=_("; it ").join(reasons))

    if Class(chosen["class"]).is_right:
        if chosen["loss"] <= 0:
            head = _("{move}: win {win}, the best move.").format(move=_name(chosen), win=_win(chosen))
        else:
            head = _("{move}: win {win}, within {loss} points of the best.").format(
                move=_name(chosen), win=_win(chosen), loss=number(chosen["loss"], 1))
    else:
        head = _("{move}: win {win}, {loss} points below {best} ({best_win}); {klass}.").format(
            move=_name(chosen), win=_win(chosen), loss=number(chosen["loss"], 1), best=_name(best),
            best_win=_win(best), klass=Class(chosen["class"]).label)
        risks = {m["action"]: (m["caida_risk"], m["limpia_risk"]) for m in (chosen, best)}
        reasons = why_better(state, chosen["action"], best["action"], risks)
        if reasons:
            head += _it(reasons)
    if chosen["action"] != played["action"]:
        head += " " + _("In the game you played {move} ({win}, {klass}).").format(
            move=_name(played), win=_win(played), klass=Class(played["class"]).with_article)
        if Class(chosen["class"]).is_right:  # why the right answer beats the game's move, as the tutor says it
            risks = {m["action"]: (m["caida_risk"], m["limpia_risk"]) for m in (chosen, played)}
            reasons = why_better(state, played["action"], chosen["action"], risks)
            if reasons:
                head += _it(reasons)
    return head


def make(game: records.GameRecord | records.ReplayedGame, found, preset: str = "standard") -> list[Drill]:
    """Drills from a review's analyses `found` ([(ply, Analysis)]) of the person's moves that are mistakes or
    blunders (`game` replayed, or a record to replay)."""
    game = records.ReplayedGame.of(game)
    record, states = game.record, game.states
    if record.human_seat is None:
        return []
    out = []
    for ply, analysis in found:
        move = record.moves[ply]
        played = analysis.move(move.action)
        if move.seat != record.human_seat or not classify(played.loss, preset, played.loss_ci95).is_mistake_or_worse:
            continue
        game = replace(record, moves=[replace(m, annotation=None) for m in record.moves[:ply]], result=None,
                       takebacks=[])
        moves = [{**m.to_json(), "class": classify(m.loss, preset, m.loss_ci95).value} for m in analysis.moves]
        best = analysis.best
        now = _at(datetime.now(timezone.utc))
        out.append(Drill(f"{record.game_id}:{ply}", records.to_json(game), move.seat, move.action, moves,
                         kind(states[ply], move.action, best.action, move_risks(played, best)), now, 0, now,
                         measured=measured_error(analysis.settings, analysis.leaf)))
    return out


@dataclass
class Deck:
    """The stored drills; `kept`: stored entries that could not be read (written back untouched);
    `problems`: what could not be read (a file that is not a deck is kept aside when the deck is next saved)."""

    drills: list = field(default_factory=list)
    kept: list = field(default_factory=list)
    problems: list = field(default_factory=list)

    def due(self, when: datetime | None = None) -> list[Drill]:
        """The drills due at `when` (now), the longest waiting first."""
        when = when or datetime.now(timezone.utc)
        return sorted((d for d in self.drills if d.is_due(when)), key=lambda d: d.order)

    def next_due(self) -> Drill | None:
        """The drill due soonest, due or not."""
        return min(self.drills, key=lambda d: d.order, default=None)

    def add(self, drills) -> int:
        """Add drills not already in the deck (by id); how many were new."""
        ids = {d.id for d in self.drills} | {k.get("id") for k in self.kept if isinstance(k, dict)}
        new = [d for d in drills if d.id not in ids]
        self.drills += new
        return len(new)


def load_deck(path=None) -> Deck:
    """The stored deck: none is empty; a damaged file or drill is reported in `problems`, never raised."""
    path = Path(path or deck_path())
    try:
        data = records.read_json(path, _("the drill deck"), _deck, max_bytes=MAX_BYTES, missing={"drills": []},
                                 keep=False, then=_("it is kept aside as {name} when new drills are saved").format(
                                     name=f"{path.stem}.damaged-<time>{path.suffix}"))
    except records.FileError as err:
        return Deck(problems=[str(err)])
    deck = Deck()
    for entry in data["drills"]:
        try:
            deck.drills.append(Drill.from_json(entry))
        except ValueError as err:
            deck.kept.append(entry)
            deck.problems.append(_("{error}; skipped (it stays in {path})").format(error=err, path=path))
    return deck


def _deck(data) -> dict:
    if not isinstance(data, dict) or data.get("schema_version") != SCHEMA or not isinstance(data.get("drills"), list):
        raise ValueError(_("not a drill deck of schema version {n}").format(n=SCHEMA))
    return data


def save_deck(deck: Deck, path=None) -> Path:
    """Write the deck atomically; a file there that is not a deck is first kept aside (records.read_json). It writes
    over what is stored: a change to the stored deck is `add_drills` or `save_answered` (made on the file as it is)."""
    path = Path(path or deck_path())
    try:
        records.read_json(path, _("the drill deck"), _deck, max_bytes=MAX_BYTES, missing=None, then="")
    except records.FileError:
        pass
    fields = Drill.__dataclass_fields__  # to_json's values, not copied: written as they are (a deck is rewritten often)
    text = json.dumps({"schema_version": SCHEMA,
                       "drills": [{name: getattr(d, name) for name in fields} for d in deck.drills] + deck.kept})
    return records.write_atomic(path, text)


def add_drills(drills, path=None) -> tuple[int, list]:
    """Add new drills to the stored deck, as it is now (records.update_file: re-read under its lock, so drills
    another process added or answered meanwhile stay): (how many were new, the deck's problems)."""
    added = []

    def add(deck: Deck) -> Deck | None:
        added.append(deck.add(drills))
        return deck if added[-1] else None

    deck = records.update_file(Path(path or deck_path()), load_deck, add, save_deck)
    return added[-1], deck.problems


def save_answered(drill: Drill, path=None) -> Deck:
    """Keep one answered drill in the stored deck, as it is now (records.update_file: re-read under its lock): that
    drill replaced by its id (added where the deck no longer holds it), every other drill as stored, so drills
    another process added or answered meanwhile stay; returns the deck as written (its `problems`: what could not be
    read). The drills screen calls this after each answer, never `save_deck` of the deck it read before."""
    def keep(deck: Deck) -> Deck:
        at = next((i for i, d in enumerate(deck.drills) if d.id == drill.id), None)
        if at is None:
            deck.drills.append(drill)
        else:
            deck.drills[at] = drill
        return deck

    return records.update_file(Path(path or deck_path()), load_deck, keep, save_deck)
