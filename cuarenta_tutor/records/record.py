"""Provides the game record: its JSON schema as typed entries, new records, checked reading, and replay.

A record holds the rules, the seed, the first dealer and the deck order of every hand started, the seats
and who played them, and every move (action id, card, the coach's annotation). JSON is the file format
(records/store.py reads and writes the files); in code the entries are small frozen values. `replay`
reproduces every state exactly; anything that does not fit raises `RecordError`. A `ReplayedGame` is a record
replayed once, to pass to everything that reads its positions.
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone

from ..engine import N_ACTIONS, Dealer, IllegalMove, Rules, State, action_to_string, legal_actions, seeded_deck
from ..engine.cards import DECK_SIZE, card_str, parse_card
from ..engine.rules import preset_name
from ..i18n import _, ngettext, number
from .reader import FileError

SCHEMA_VERSION = 1
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")
_LEVEL = re.compile(r"^[a-z]{1,20}(:[A-Za-z0-9@=._-]{1,40})?$")
"""A level as a record keeps it: "club", "adaptive:onnx@eps=0.5" (players.Level)."""
_FIELDS = ("schema_version", "game_id", "created", "updated", "rules", "rules_preset", "seed", "first_dealer",
           "decks", "seats", "human_seat", "model", "moves", "result")


class RecordError(FileError):
    """A record that cannot be used; the message says which file, what is wrong and what to do."""


def now() -> str:
    """The current time as the records write it (UTC, ISO 8601, seconds)."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def printable(text: str) -> str:
    """`text` without control characters (a name read from a file must not drive the terminal)."""
    return "".join(c for c in text if unicodedata.category(c)[0] != "C")


def when_text(iso: str) -> str:
    """A record's time as the screens show it, in local time: "2026-11-21 12:00" (the text itself if it is not
    a time)."""
    try:
        moment = datetime.fromisoformat(iso)
    except (TypeError, ValueError):
        return str(iso)
    return (moment.astimezone() if moment.tzinfo else moment).strftime("%Y-%m-%d %H:%M")


def _deck_strings(deck) -> list[str]:
    return [card_str(c, ascii_only=True) for c in deck]


@dataclass(frozen=True)
class SeatEntry:
    """Who sits in a seat: `player` is "human" or a policy name, `name` what the screens call them."""

    seat: int
    player: str
    name: str


@dataclass(frozen=True)
class MoveEntry:
    """One move as recorded: the seat, the action id, the card played ("7h"), the coach's annotation, and whether
    it was chosen with a hint shown."""

    seat: int
    action: int
    card: str
    annotation: dict | None = None
    """The coach's Annotation as a dict (`coach.Annotation.to_dict()`), or None."""
    hinted: bool = False
    """Whether the person chose it with help shown for that decision (the hints, the tutor's warning, or the
    coach's note on a move taken back there): the level estimate (coach/stats.py) leaves it out. In the file only
    when true (`"hinted": true`), so a game without hints is written as before and an older record reads as none."""


def move_json(m: MoveEntry) -> dict:
    """A move as the file keeps it (in `moves` and in `takebacks`)."""
    out = {"seat": m.seat, "action": m.action, "card": m.card, "annotation": m.annotation}
    if m.hinted:
        out["hinted"] = True
    return out


@dataclass(frozen=True)
class ModelRef:
    """The coaching agent's model: its sha256 and where it was loaded from."""

    id: str
    path: str


@dataclass(frozen=True)
class Result:
    """How a finished game ended: the winning team and both teams' scores."""

    winner: int
    scores: tuple


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
    """Per hand started so far (and any fixed in advance), its deck order as 40 card strings ("7h")."""
    seats: list
    """Per seat a SeatEntry."""
    human_seat: int | None
    model: ModelRef | None
    """The coaching agent's model, or None."""
    moves: list = field(default_factory=list)
    """The MoveEntry of every move so far."""
    result: Result | None = None
    """None while the game goes on."""
    takebacks: list = field(default_factory=list)
    """Moves taken back, in order: {"ply": where the taken-back moves began, "moves": those moves (as in
    `moves`)}. A game with takebacks says so wherever it is judged."""
    level: str | None = None
    """The agent's level of play (players.py: "beginner", "club", "strong", or "adaptive:<rung>"); None in
    games before levels, and in arena games."""

    @property
    def dealer(self) -> Dealer:
        """The dealer of this game: its recorded decks, then the seed's."""
        return Dealer(self.seed, [[parse_card(c) for c in d] for d in self.decks])

    def add_move(self, seat: int, action: int, card, annotation=None, after: State | None = None,
                 hinted: bool = False) -> None:
        """Append a move (`card` an id or string, `annotation` a dict or has `to_dict()`, `hinted` whether it was
        chosen with a hint shown: MoveEntry); with `after`, the state after the move, also note the deck of a hand
        it started and the result if it ended the game."""
        if annotation is not None and not isinstance(annotation, dict):
            annotation = annotation.to_dict()
        card = card_str(parse_card(card) if isinstance(card, str) else card, ascii_only=True)
        self.moves.append(MoveEntry(int(seat), int(action), card, annotation, bool(hinted)))
        self.updated = now()
        if after is not None:
            self.finish(after)

    def annotate(self, ply: int, annotation=None) -> None:
        """Replace the annotation of move `ply` (a dict, something with `to_dict()`, or None)."""
        if annotation is not None and not isinstance(annotation, dict):
            annotation = annotation.to_dict()
        self.moves[ply] = replace(self.moves[ply], annotation=annotation)
        self.updated = now()

    def finish(self, state: State) -> None:
        """Note a state reached by the moves: the decks of the hands started, and the result once it is over."""
        while len(self.decks) <= state.hand_no:
            self.decks.append(_deck_strings(seeded_deck(self.seed, len(self.decks))))
        if state.is_over and self.result is None:
            self.result = Result(state.winner, tuple(state.scores))
            self.updated = now()


def new_record(rules: Rules, seed: int, first_dealer: int, seats, human_seat: int | None = None,
               model: ModelRef | None = None, decks=()) -> GameRecord:
    """A record for a game about to start; `seats`: per seat a (player, name) pair; `decks`: the deck
    orders fixed in advance for the first hands, if any (as for `Dealer`)."""
    if len(seats) != rules.players:
        raise ValueError(_("{n} players need {n} seats, got {got}").format(n=rules.players, got=len(seats)))
    table = [SeatEntry(i, str(player), str(name)) for i, (player, name) in enumerate(seats)]
    given = max(decks, default=-1) + 1 if isinstance(decks, dict) else len(decks)  # a dict: decks by hand number
    fixed = [_deck_strings(Dealer(seed, decks).deck(h)) for h in range(max(1, given))]
    game_id = f"{datetime.now():%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"
    return GameRecord(SCHEMA_VERSION, game_id, *[now()] * 2, rules.to_dict(), preset_name(rules), int(seed),
                      int(first_dealer), fixed, table, human_seat, model)


def to_json(record: GameRecord) -> dict:
    """The record as a JSON-ready dict."""
    out = {name: getattr(record, name) for name in _FIELDS}
    out["seats"] = [asdict(s) for s in record.seats]
    # written out by hand: asdict deep-copies every annotation, and a record is saved after every move
    out["moves"] = [move_json(m) for m in record.moves]
    out["model"] = record.model and asdict(record.model)
    out["result"] = record.result and {"winner": record.result.winner, "scores": list(record.result.scores)}
    if record.takebacks:  # only then: a game without takebacks is written as before
        out["takebacks"] = record.takebacks
    if record.level is not None:
        out["level"] = record.level
    return out


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _parses(read, value) -> bool:
    try:
        read(value)
        return True
    except (TypeError, ValueError, AttributeError):
        return False


def _is_deck(deck) -> bool:
    return _parses(lambda d: [parse_card(c) for c in d], deck) and sorted(map(parse_card, deck)) == list(
        range(DECK_SIZE))


def _is_move(m, n: int) -> bool:
    return (isinstance(m, dict) and _is_int(m.get("seat")) and 0 <= m["seat"] < n and _is_int(m.get("action"))
            and 0 <= m["action"] < N_ACTIONS and isinstance(m.get("annotation"), (dict, type(None)))
            and isinstance(m.get("hinted", False), bool) and _parses(parse_card, m.get("card")))


def _problem(d: dict) -> str | None:
    """The first thing wrong with a record's fields (schema_version aside), or None."""
    missing = [f for f in _FIELDS if f not in d]
    if missing:
        return _("missing {fields}").format(fields=", ".join(missing))
    if not isinstance(d["rules"], dict):
        return _('rules is not an object of rules options, as in {example}').format(example='{"players": 2, ...}')
    try:
        rules = Rules().with_options(**d["rules"])
    except (TypeError, ValueError) as err:
        return _("its rules are not valid ({error})").format(error=err)
    n, label, named = rules.players, d["rules_preset"], preset_name(rules)
    seat = lambda x: _is_int(x) and 0 <= x < n
    model, result, seats = d["model"], d["result"], d["seats"]
    checks = [
        (lambda: isinstance(d["game_id"], str) and _ID.match(d["game_id"]),
         lambda: _("game_id is not letters, digits, '-', '_', '.'")),
        (lambda: all(_parses(datetime.fromisoformat, d[k]) for k in ("created", "updated")),
         lambda: _("created or updated is not an ISO date and time")),
        (lambda: label is None or isinstance(label, str), lambda: _("rules_preset is neither a name nor null")),
        (lambda: not isinstance(label, str) or label == named,
         lambda: (_("rules_preset {label} is not the name of its rules (those are {named})") if named else
                  _("rules_preset {label} is not the name of its rules (those are a custom set, null)")).format(
             label=repr(str(label)[:40]), named=repr(named))),
        (lambda: _is_int(d["seed"]), lambda: _("seed is not a whole number")),
        (lambda: seat(d["first_dealer"]), lambda: _("first_dealer is not a seat 0..{last}").format(last=n - 1)),
        (lambda: isinstance(d["decks"], list) and all(_is_deck(x) for x in d["decks"]),
         lambda: _("decks are not decks of 40 cards")),
        (lambda: isinstance(seats, list) and len(seats) == n and all(
            isinstance(s, dict) and s.get("seat") == i and isinstance(s.get("player"), str)
            and isinstance(s.get("name"), str) for i, s in enumerate(seats)),
         lambda: _("seats is not a list of {n} {entry} entries in seat order").format(n=n,
                                                                                      entry="{seat, player, name}")),
        (lambda: d["human_seat"] is None or seat(d["human_seat"]),
         lambda: _("human_seat is neither null nor a seat 0..{last}").format(last=n - 1)),
        (lambda: model is None or (isinstance(model, dict) and isinstance(model.get("id"), str)
                                   and isinstance(model.get("path"), str)),
         lambda: _("model is neither null nor an {object} object").format(object="{id, path}")),
        (lambda: result is None or (isinstance(result, dict) and result.get("winner") in (0, 1)
                                    and isinstance(result.get("scores"), list) and len(result["scores"]) == 2
                                    and all(_is_int(x) for x in result["scores"])),
         lambda: _("result is neither null nor a {object} object").format(object="{winner, scores}")),
        (lambda: isinstance(d["moves"], list), lambda: _("moves is not a list")),
        (lambda: isinstance(d["takebacks"], list) and all(
            isinstance(t, dict) and _is_int(t.get("ply")) and 0 <= t["ply"] <= len(d["moves"])
            and isinstance(t.get("moves"), list)
            and all(_is_move(m, n) for m in t["moves"]) for t in d["takebacks"]),
         lambda: _("takebacks is not a list of {entry} entries").format(entry="{ply (0 to the moves played), moves}")),
        (lambda: d["level"] is None or (isinstance(d["level"], str) and _LEVEL.match(d["level"])),
         lambda: _("level is neither null nor a level's name")),
    ]
    return next((what() for ok, what in checks if not ok()), None) or next((
        _("move {n} is not a {entry} entry").format(n=i + 1, entry=f"{{seat, action 0..{N_ACTIONS - 1}, card, "
                                                                   "annotation, hinted}")
        for i, m in enumerate(d["moves"]) if not _is_move(m, n)), None)


def from_json(data, source: str = "the record") -> GameRecord:
    """Check a decoded JSON value and build the record; RecordError says which file, what is wrong, what to do."""
    if not isinstance(data, dict) or "schema_version" not in data:
        kind = (_("no schema_version") if isinstance(data, dict) else
                _("a JSON {type}, not an object").format(type=type(data).__name__))
        raise RecordError(_("{source} is not a Cuarenta game record ({kind}); if it is not yours to keep there, move "
                            "it out of the games folder").format(source=source, kind=kind))
    version = data["schema_version"]
    if _is_int(version) and version > SCHEMA_VERSION:
        raise RecordError(_("{source} was written by a newer cuarenta-tutor (record schema {version}; this version "
                            "reads {known}); upgrade cuarenta-tutor (pip install -U cuarenta-tutor) to open it").format(
            source=source, version=version, known=SCHEMA_VERSION))
    d = {"moves": [], "result": None, "takebacks": [], "level": None, **data}
    bad = (None if _is_int(version) and version >= 1 else
           _("schema_version {value} is not a positive number").format(value=repr(version)))
    bad = bad or _problem(d)
    if bad:
        raise RecordError(_("{source} is a damaged Cuarenta game record: {problem}; delete it or restore it from a "
                            "backup").format(source=source, problem=bad))
    moves = [MoveEntry(m["seat"], m["action"], m["card"], m.get("annotation"), m.get("hinted", False))
             for m in d["moves"]]
    result = d["result"] and Result(d["result"]["winner"], tuple(d["result"]["scores"]))
    model = d["model"] and ModelRef(d["model"]["id"], d["model"]["path"])
    return GameRecord(version, d["game_id"], d["created"], d["updated"], Rules().with_options(**d["rules"]).to_dict(),
                      d["rules_preset"], d["seed"], d["first_dealer"], [list(x) for x in d["decks"]],
                      [SeatEntry(s["seat"], printable(s["player"]), printable(s["name"])) for s in d["seats"]],
                      d["human_seat"], model, moves, result, d["takebacks"], d["level"])


def replay_events(record: GameRecord) -> tuple[list[State], list[tuple]]:
    """The states from the start through every move, and per state the events that led to it (a deal a move
    brought about included). RecordError names a move that does not fit, or a result the moves do not lead to."""
    game = record.game_id
    try:
        dealer = record.dealer
        state, events = dealer.start(Rules().with_options(**record.rules), record.first_dealer)
    except (TypeError, ValueError) as err:
        raise RecordError(_("game {game} cannot be started: {error}; the record is damaged").format(
            game=game, error=err)) from None
    states, all_events = [state], [events]
    for i, m in enumerate(record.moves):
        name = action_to_string(m.action) if _is_int(m.action) and 0 <= m.action < N_ACTIONS else repr(m.action)
        where = dict(game=game, n=i + 1, seat=m.seat, move=name)
        if state.is_over:
            raise RecordError(_('game {game}: move {n} (seat {seat}, "{move}") does not fit the game: the game was '
                                'already over; the record is damaged').format(**where))
        if m.seat != state.turn:
            raise RecordError(_('game {game}: move {n} (seat {seat}, "{move}") does not fit the game: it was seat '
                                '{turn}\'s turn; the record is damaged').format(**where, turn=state.turn))
        try:
            state, events = dealer.play(state, m.action, card=parse_card(m.card))
        except (IllegalMove, ValueError, TypeError) as err:
            raise RecordError(_('game {game}: move {n} (seat {seat}, "{move}") does not fit the game: {error}; the '
                                'record is damaged').format(**where, error=err)) from None
        states.append(state)
        all_events.append(events)
    result = record.result
    if result is not None and (not state.is_over or result != Result(state.winner, tuple(state.scores))):
        led = (_("team {team} won {score}").format(team=state.winner, score=_score(state.scores)) if state.is_over
               else _("a game not over"))
        raise RecordError(_("game {game}: its result (team {team} won {score}) is not where its moves lead ({led}); "
                            "the record is damaged").format(game=game, team=result.winner,
                                                            score=_score(result.scores), led=led))
    return states, all_events


def _score(scores) -> str:
    return "-".join(number(s) for s in scores)


def replay(record: GameRecord) -> list[State]:
    """The states from the start through every move (len(moves) + 1); RecordError names a move that does not fit."""
    return replay_events(record)[0]


@dataclass(frozen=True)
class ReplayedGame:
    """A game record played through the engine once, for everything that reads its positions: a review, its
    annotations, luck vs skill, drills, the review screen. Build it once with `ReplayedGame.of(record)` and pass
    it on. `record` is the same object (annotations stored in it show through); its moves must not change."""

    record: GameRecord
    states: tuple
    """The state before each move, then the last one: len(moves) + 1 states."""
    events: tuple
    """Per state, the events that led to it: the first deal's, then each move's (with any deal it brought about,
    so a game that ends on a deal ends with that deal's events)."""
    choices: tuple
    """Per move, whether its mover had a choice (more than one legal move): the decisions a review analyses."""

    @classmethod
    def of(cls, game: GameRecord | ReplayedGame) -> ReplayedGame:
        """`game` replayed, or as it is when it already is a ReplayedGame; RecordError names a move that does not
        fit."""
        if isinstance(game, ReplayedGame):
            return game
        states, events = replay_events(game)
        return cls(game, tuple(states), tuple(events), tuple(len(legal_actions(s)) > 1 for s in states[:-1]))

    @property
    def moves(self) -> list:
        """The record's MoveEntry per move."""
        return self.record.moves

    @property
    def seats(self) -> tuple:
        """Per move, the seat that made it."""
        return tuple(m.seat for m in self.record.moves)

    @property
    def end(self) -> State:
        """The state after the last move."""
        return self.states[-1]

    @property
    def is_over(self) -> bool:
        return self.end.is_over

    def decisions(self, seats) -> list[int]:
        """The plies where one of `seats` had a choice."""
        seats = set(seats)
        return [i for i, (seat, choice) in enumerate(zip(self.seats, self.choices, strict=True))
                if choice and seat in seats]


def result_text(record: GameRecord) -> str:
    """The result in a few words, from the human's side when there is one."""
    if record.result is None:
        return _("unfinished")
    w, s = record.result.winner, record.result.scores
    if record.human_seat is not None:
        team = record.human_seat & 1
        text = _("you won {ours}-{theirs}") if w == team else _("you lost {ours}-{theirs}")
        return text.format(ours=number(s[team]), theirs=number(s[1 - team]))
    names = [seat.name for seat in record.seats if seat.seat % 2 == w]
    return ngettext("{names} won {won}-{lost}", "{names} won {won}-{lost}", len(names)).format(
        names=" & ".join(names), won=number(s[w]), lost=number(s[1 - w]))
