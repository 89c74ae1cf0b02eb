"""Provides GameSession: one game of a person against the agent, with the coach and the record.

The TUI drives it and only draws what it holds. It keeps the table (the person's seat waits for
their moves, the agent's seat is an OnnxPolicy), a second OnnxPolicy watching the person's seat
that only coaches (hints and annotations), the game record (saved atomically after every move) and
the win-% history.
"""

from __future__ import annotations

import errno
import random
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

from .. import coach, core, records
from ..agents.memory_graph import is_memory_graph
from ..agents.onnx_policy import OnnxPolicy, default_model_path, file_sha256
from ..analysis import verdict
from ..analysis.calibrate import settings_for
from ..analysis.onepass import scale
from ..analysis.values import sidecar_problem
from ..engine import (
    CaptureOption,
    IllegalMove,
    Rules,
    State,
    capture_options,
    check_action,
    first_dealer,
    parse_card,
    preset,
    preset_name,
    rank_of,
)
from ..i18n import _
from ..narrator import Narrator, move_name
from ..players import LEVELS, Level, compiled, load_ladder, record_result, rung_name
from ..players import make as make_player
from ..table import Table

HUMAN, AGENT, PARTNER = 0, 1, 2
"""Seats: the person always sits in seat 0 (team 0); in 1 v 1 the agent in seat 1; in 2 v 2 the partner
faces them in seat 2 and the two agents of the other team sit in seats 1 (east, playing after you) and 3."""
NAMES = ("You", "The agent")
NAMES_4 = ("You", "East", "Partner", "West")


def seat_names(players: int) -> tuple:
    return NAMES if players == 2 else NAMES_4


@dataclass
class MoveReport:
    """What one move did, for the screen: who, the move, the events, the coach's notes."""

    seat: int
    action: int
    card: int
    events: tuple
    decision: object = None
    annotation: coach.Annotation | None = None
    callouts: list = field(default_factory=list)


class Request(NamedTuple):
    """Where the game was when a worker was asked for something (the agent's decision, an analysis): its
    answer is applied only while the game is still there (`GameSession.at`), else dropped."""

    ply: int
    """Moves made when it was asked."""
    state: State
    """The position it was asked about."""


def warm_core() -> None:
    """Compile the analysis's core (or load it from the disk cache) in a thread of its own, so the first hint never
    waits for a compile: until it is compiled the Python core serves, with the same numbers (a load from a whole disk
    cache, about a second, is waited for: core.fast). A daemon thread, not a Textual worker: quitting never waits for
    a compile, and nothing on screen depends on it."""
    if core.chosen() == "fast" and core.available():
        threading.Thread(target=core.warm, name="warm-core", daemon=True).start()


def available_models() -> list[Path]:
    """The ONNX models a person can play against: the shipped ones, then their own (exported), by name (not the
    memory graphs beside them: agents/memory_graph.py)."""
    def models_in(folder: Path) -> list[Path]:
        return sorted(p for p in folder.glob("*.onnx") if not is_memory_graph(p)) if folder.is_dir() else []

    shipped = models_in(default_model_path().parent)
    own = models_in(records.models_dir())
    return shipped + [p for p in own if p not in shipped]


class SaveError(Exception):
    """A move that was not made because the game could not be saved; the message says what to do."""

    def __init__(self, err: OSError, folder):
        if err.errno == errno.ENOSPC:
            text = _("The move was not made: the game could not be saved in {folder} ({error}). Free some disk "
                     "space, then play it again.")
        else:
            text = _("The move was not made: the game could not be saved in {folder} ({error}). Fix that, then "
                     "play it again.")
        super().__init__(text.format(folder=folder, error=err.strerror or err))


class GameSession:
    """A person (seat 0) against the ONNX agent (seat 1), coached, recorded after every move."""

    def __init__(self, record: records.GameRecord, model_path: Path, folder=None, coach_preset: str = "standard"):
        self.record, self.folder = record, folder
        self.model_path = Path(model_path)
        rules = Rules().with_options(**record.rules)
        spec = Level.of(record.level).spec
        self.agents = {seat: make_player(spec if seat % 2 else "club", record.seed + seat - 1, self.model_path)
                       for seat in range(1, rules.players)}
        """Every agent seat's policy, each with its own memory: the other team at the record's level (players.py;
        the network alone in games before levels), a 2 v 2 partner the network alone."""
        self.agent = self.agents[AGENT]
        self.helper = compiled(OnnxPolicy(self.model_path))
        self.table = Table(rules, [None] + [self.agents[s] for s in range(1, rules.players)], record.dealer,
                           watchers=[(HUMAN, self.helper)])
        self.names = seat_names(rules.players)
        self.narrator = Narrator(rules, self.names, you=HUMAN)
        self.coach_preset = coach_preset
        self.analysis_settings = settings_for(self.model_path, rules=rules)
        """The one analysis of a position (analysis.STANDARD with the model's measured errors): hints, warnings and
        annotations; a review of the game asks for the same (coach.review_settings)."""
        self.one_pass = scale(self.model_path)
        """The network's one-pass value -> win % on the analysis's scale (analysis/onepass.py)."""
        self.win_history: list[float] = []
        self.last: MoveReport | None = None
        self.agent_last: tuple | None = None
        """(state before, Decision or None, name) of the agent's last move when the game was resumed."""
        self.hinted_at: int | None = None
        """The move (its ply) for which help was shown to the person (`hints_shown`): played, it is recorded as
        chosen with a hint shown (records.MoveEntry.hinted)."""

    @property
    def uncalibrated(self) -> str | None:
        """Why the model has no analysis sidecar it can use (none, damaged, another model's), so that the numbers
        come from its critic with no measured error, and what to do, in one line; None where it has one."""
        return sidecar_problem(self.model_path, self.helper.model_id)

    @classmethod
    def new(cls, rules_name: str = "standard", seed: int | None = None, dealer: int | None = None,
            model_path=None, folder=None, level: str = "club", players: int = 2) -> GameSession:
        """A new game; `level` one of LEVELS ("adaptive" plays at the person's rung of the ladder, 1 v 1
        only); `players` 2, or 4 for you and an agent partner against two agents."""
        if players not in (2, 4):
            raise ValueError(_("a game is for 2 or 4 players, not {n}").format(n=players))
        rules = preset(rules_name, players=players)
        if level not in LEVELS:
            raise ValueError(_("unknown level {level!r}; choose one of: {choices}").format(
                level=level, choices=", ".join(LEVELS)))
        if level == "adaptive" and players != 2:
            raise ValueError(_("the adaptive level follows your own results: it is for 1 v 1 games"))
        seed = random.SystemRandom().randrange(1 << 31) if seed is None else seed
        dealer = first_dealer(seed, players) if dealer is None else dealer
        if not 0 <= dealer < players:
            raise ValueError(_("the dealer is a seat 0..{last}, not {dealer}").format(last=players - 1, dealer=dealer))
        model_path = Path(model_path) if model_path else default_model_path()
        names = seat_names(players)
        seats = [("human", names[0])] + [("onnx", "Agent" if players == 2 else names[s]) for s in range(1, players)]
        record = records.new_record(rules, seed, dealer, seats, human_seat=HUMAN,
                                    model=records.ModelRef(file_sha256(model_path), str(model_path)))
        record.level = f"adaptive:{load_ladder().spec}" if level == "adaptive" else level
        session = cls(record, model_path, folder)
        events = session.table.start(dealer)
        session.last = MoveReport(-1, -1, -1, events, callouts=session.narrator.callouts(events, session.state))
        records.save(record, folder)
        return session

    @classmethod
    def resume(cls, path, model_path=None, folder=None) -> GameSession:
        """Continue a saved, unfinished game."""
        return cls.from_record(records.load(path), model_path, folder)

    @classmethod
    def explore(cls, record: records.GameRecord, ply: int, model_path=None, folder=None) -> GameSession:
        """A new game that starts as `record` went up to move `ply` (0-based, before it), you in seat 0 against
        the agent, saved as a game of its own: the record itself is not touched."""
        if not 0 <= ply <= len(record.moves) or len(record.seats) != 2:
            raise ValueError(_("a game of two can be explored from move 1 to {last}").format(
                last=len(record.moves) + 1))
        model_path = Path(model_path) if model_path else default_model_path()
        rules = Rules().with_options(**record.rules)
        fresh = records.new_record(rules, record.seed, record.first_dealer,
                                   [("human", NAMES[HUMAN]), ("onnx", "Agent")], human_seat=HUMAN,
                                   model=records.ModelRef(file_sha256(model_path), str(model_path)),
                                   decks=[list(d) for d in record.decks])
        fresh.moves = [replace(m, annotation=None) for m in record.moves[:ply]]
        session = cls.from_record(fresh, model_path, folder)
        records.save(fresh, folder)
        return session

    @classmethod
    def from_record(cls, record: records.GameRecord, model_path=None, folder=None) -> GameSession:
        """A session at the end of a record's moves: they are played again at the table, so the LSTM memories
        are what they were."""
        records.replay(record)  # RecordError names a move that does not fit, before anything is built
        model_path = Path(model_path) if model_path else default_model_path()
        session = cls(record, model_path, folder)
        session.table.start(record.first_dealer)
        for move in record.moves:
            step = session.table.play(move.action, card=parse_card(move.card))
            note = coach.read(move.annotation)
            if note is not None:
                session.win_history.append(note.win_after)
            if move.seat != HUMAN:
                session.agent_last = (step.before, None, move_name(step.before, move.action))
        return session

    @property
    def state(self) -> State:
        return self.table.state

    @property
    def rules_name(self) -> str:
        return preset_name(self.state.rules) or "custom"

    @property
    def over(self) -> bool:
        return self.state.is_over

    @property
    def adaptive(self) -> bool:
        """Whether the game counts for the person's adaptive level."""
        return self.level.adaptive

    @property
    def level(self) -> Level:
        """The game's level of play (its record's), as a value."""
        return Level.of(self.record.level)

    def count_result(self) -> str | None:
        """Once the game is over, move the adaptive ladder with its result (once per game, kept in the user data
        folder); what changed, in words, or None for a game of another level."""
        if not self.adaptive or not self.over:
            return None
        before, ladder = record_result(self.record.game_id, self.state.winner == (HUMAN & 1))
        if ladder.rung == before:
            return _("Adaptive level: it stays at {rung}.").format(rung=rung_name(ladder.spec))
        if ladder.rung > before:
            return _("Adaptive level: one rung up, to {rung}, for your next game.").format(rung=rung_name(ladder.spec))
        return _("Adaptive level: one rung down, to {rung}, for your next game.").format(rung=rung_name(ladder.spec))

    @property
    def human_turn(self) -> bool:
        return not self.over and self.state.turn == HUMAN

    def coach_decision(self):
        """The coach's view of the person's position: probabilities and win % for every legal move."""
        return self.helper.decide(self.state)

    def hints_shown(self) -> None:
        """Note that help is on show for the person's decision now (the hints, refined or not; the tutor's warning):
        the move they make here is recorded as chosen with a hint shown, and the level estimate leaves it out
        (coach/stats.py). `hints` and `quick_hints` note it themselves."""
        if self.human_turn:
            self.hinted_at = len(self.record.moves)

    def hints(self) -> list[coach.MoveHint]:
        self.hints_shown()
        return coach.hints(self.state, self.coach_decision())

    def quick_hints(self) -> list:
        """The person's moves with the network's win % after each (at once), best first (noted as shown:
        `hints_shown`)."""
        self.hints_shown()
        return coach.quick_hints(self.state, self.coach_decision(), self.one_pass)

    def request(self) -> Request:
        """The game as it is now, to tag a worker's question with (on the thread that plays)."""
        return Request(len(self.record.moves), self.state)

    def at(self, request: Request) -> bool:
        """Whether the game is still where `request` was made: no move made since, nothing taken back."""
        return request.ply == len(self.record.moves) and request.state is self.state

    def position(self) -> tuple:
        """(state, the coach's memory there) to analyse, taken on the thread that plays (the coach watches
        the person's seat at the table, so it has observed the state)."""
        return self.state, self.helper.memory

    def analyse(self, position: tuple):
        """The possible-worlds analysis of a position taken with `position()` (safe in a worker thread: the
        coach's memory is passed in, never changed): computed once and kept with the position (analysis.verdict),
        so the hints, the tutor's warning and the annotation show one value."""
        state, memory = position
        return verdict(state, self.helper, self.analysis_settings, memory=memory)

    def take_back(self) -> GameSession:
        """Take back your last move and the agent's replies after it: a session at that point. The record keeps
        what was taken back (its `takebacks`) and is saved first (SaveError: nothing changed). IllegalMove when
        there is nothing to take back or the game is over."""
        if self.over:
            raise IllegalMove(_("the game is over; review it to see the other moves"), "game_over")
        if self.adaptive:
            raise IllegalMove(_("no takebacks in an adaptive game: its result moves your level"), "adaptive_game")
        last = max((i for i, m in enumerate(self.record.moves) if m.seat == HUMAN), default=None)
        if last is None:
            raise IllegalMove(_("you have not played a move to take back"), "nothing_to_take_back")
        record = self.record
        kept = (list(record.moves), list(record.takebacks), record.updated)
        taken = [records.move_json(m) for m in record.moves[last:]]
        record.moves = record.moves[:last]
        record.takebacks = [*record.takebacks, {"ply": last, "moves": taken}]
        record.updated = records.now()
        try:
            records.save(record, self.folder)
        except OSError as err:
            record.moves, record.takebacks, record.updated = kept
            raise SaveError(err, self.folder or records.games_dir()) from None
        session = GameSession.from_record(record, self.model_path, self.folder)
        session.analysis_settings, session.coach_preset = self.analysis_settings, self.coach_preset
        session.hinted_at = last  # chosen again knowing the coach's note on the move taken back
        return session

    def options_for(self, card: int) -> list[CaptureOption]:
        """The moves a card from the person's hand can make: each capture option, and the trail if allowed."""
        return capture_options([rank_of(c) for c in self.state.table], rank_of(card), self.state.rules,
                               with_trail=True)

    def play_human(self, action: int, card: int | None = None, analysis=None) -> MoveReport:
        """The person's move (IllegalMove says why not), annotated by the coach, saved. The annotation comes
        from `analysis` (this position's, from `analyse`) if given, else from the network's one pass."""
        if not self.human_turn:
            raise IllegalMove(_("it is not your turn") if not self.over else _("the game is over"), "not_your_turn")
        check_action(self.state, action, card)  # the rule a move breaks, before the coach judges it
        decision = self.coach_decision()
        ply = len(self.record.moves)
        if analysis is not None:
            note = coach.from_analysis(analysis, action, ply, self.coach_preset)
        else:
            note = coach.annotate(self.state, decision, action, ply, self.coach_preset, self.one_pass)
        report = self._play(action, card, decision, note, hinted=self.hinted_at == ply)
        self.win_history.append(note.win_after)
        return report

    def agent_decision(self, request: Request):
        """The decision of the agent on turn at `request`'s position. Safe in a worker thread: it asks only that
        seat's policy (its own random draws), which nothing else uses until its move is made; the table, the
        record and every memory stay as they are. `play_agent` makes the move, on the thread that plays."""
        policy = self.table.seats[request.state.turn]
        if policy is None or request.state.winner >= 0:
            raise IllegalMove(_("the game is over") if request.state.winner >= 0
                              else _("it is your turn, not the agent's"), "not_agent_turn")
        return policy.decide(request.state)

    def play_agent(self, decision=None) -> MoveReport:
        """The agent's move, saved: `decision` (agent_decision's, for the position the game is at), or decided
        now."""
        if self.over or self.state.turn == HUMAN:
            raise IllegalMove(_("the game is over") if self.over else _("it is your turn, not the agent's"),
                              "not_agent_turn")
        if decision is None:
            decision = self.agent_decision(self.request())
        return self._play(decision.action, None, decision, None)

    def _play(self, action, card, decision, note, hinted: bool = False) -> MoveReport:
        """Save the move, then make it: both happen or neither (SaveError says why and what to do). The move is
        worked out once, saved, and that same step is made at the table."""
        step = self.table.move(action, card, decision)  # IllegalMove says why not; nothing changed yet
        kept = (list(self.record.moves), list(self.record.decks), self.record.result, self.record.updated)
        self.record.add_move(step.seat, action, step.card, note, after=step.after, hinted=hinted)
        try:
            records.save(self.record, self.folder)
        except OSError as err:
            self.record.moves, self.record.decks, self.record.result, self.record.updated = kept
            raise SaveError(err, self.folder or records.games_dir()) from None
        self.table.commit(step)
        notes = self.narrator.callouts(step.events, step.after) + self.narrator.thresholds(step.before, step.after)
        self.last = MoveReport(step.seat, action, step.card, step.events, decision, note, notes)
        return self.last
