"""Provides GameSession: one game of a person against the agent, with the coach and the record.

The TUI drives it and only draws what it holds. It keeps the engine state, the agent (an
OnnxPolicy in its seat), a second OnnxPolicy in the person's seat that only coaches (hints and
annotations), the game record (saved atomically after every move) and the win-% history.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from . import coach, records
from .agents.onnx_policy import OnnxPolicy, default_model_path, file_sha256
from .engine import (
    Caida,
    FourOfAKind,
    GameWon,
    HandEnded,
    IllegalMove,
    Limpia,
    Played,
    Ronda,
    State,
    apply,
    capture_options,
    preset,
    preset_name,
    rank_of,
    start_game,
)
from .engine.state import first_dealer

HUMAN, AGENT = 0, 1
"""Seats: the person always sits in seat 0 (team 0) in the 1 v 1 game."""


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


def callouts(events, human_seat: int = HUMAN) -> list[str]:
    """Short announcements for the notable events of a move (caída, limpia, ronda, 30/38, win)."""
    out = []
    for e in events:
        who = "You" if getattr(e, "seat", getattr(e, "team", None)) == human_seat else "The agent"
        if isinstance(e, Caida):
            extra = f" + {e.ronda_bonus} ronda bonus" if e.ronda_bonus else ""
            out.append(f"¡Caída! {who}: {e.points} points{extra}")
        elif isinstance(e, Limpia):
            out.append(f"¡Limpia! {who}: {e.points} points" if e.points else
                       f"Limpia, but {who.lower()} at 38 or more score nothing for it (the 38 rule)")
        elif isinstance(e, Ronda):
            kind = "Doble ronda" if e.kind == "doble_ronda" else "Ronda"
            pts = f"{e.points} points" if e.points else "no points (30 or more)"
            out.append(f"{kind}! {who} holds three of a kind: {pts}")
        elif isinstance(e, FourOfAKind):
            out.append(f"{who} was dealt four of a kind and wins at once!")
        elif isinstance(e, HandEnded):
            c = e.carton
            out.append(f"Hand over. Cartón: you {e.captured[0]} cards ({c[0]} pts), "
                       f"agent {e.captured[1]} cards ({c[1]} pts)")
        elif isinstance(e, GameWon):
            out.append("You win the game!" if e.team == human_seat else "The agent wins the game.")
    return out


def threshold_notes(before: State, after: State) -> list[str]:
    """Announce a team crossing 30 (no more ronda or cartón) or 38 (only a caída can finish)."""
    notes = []
    for team, who in ((0, "You"), (1, "The agent")):
        for mark, text in ((30, "reached 30: rondas and the cartón no longer score"),
                           (38, "reached 38: only a caída can finish (38 que no juega)")):
            if before.scores[team] < mark <= after.scores[team] and after.winner < 0:
                notes.append(f"{who} {text}.")
    return notes


class GameSession:
    """A person (seat 0) against the ONNX agent (seat 1), coached, recorded after every move."""

    def __init__(self, record: records.GameRecord, state: State, model_path: Path, folder=None,
                 coach_preset: str = "standard"):
        self.record, self.state, self.folder = record, state, folder
        self.model_path = Path(model_path)
        self.agent = OnnxPolicy(self.model_path)
        self.helper = OnnxPolicy(self.model_path)
        self.agent.reset(AGENT)
        self.helper.reset(HUMAN)
        self.coach_preset = coach_preset
        self.win_history: list[float] = []
        self.last: MoveReport | None = None

    @classmethod
    def new(cls, rules_name: str = "standard", seed: int | None = None, dealer: int | None = None,
            model_path=None, folder=None) -> GameSession:
        import random

        rules = preset(rules_name)
        seed = random.SystemRandom().randrange(1 << 31) if seed is None else seed
        dealer = first_dealer(seed, 2) if dealer is None else dealer
        model_path = Path(model_path) if model_path else default_model_path()
        state, events = start_game(rules, seed=seed, dealer=dealer)
        seats = [{"seat": HUMAN, "player": "human", "name": "You"},
                 {"seat": AGENT, "player": "onnx", "name": "Agent"}]
        record = records.new_record(rules, seed, dealer, seats, human_seat=HUMAN,
                                    model={"id": file_sha256(model_path), "path": str(model_path)})
        session = cls(record, state, model_path, folder)
        session._observe(state, events)
        session.last = MoveReport(-1, -1, -1, events, callouts=callouts(events))
        records.save(record, folder)
        return session

    @classmethod
    def resume(cls, path, model_path=None, folder=None) -> GameSession:
        """Continue a saved, unfinished game (the LSTM memories are rebuilt by replaying it)."""
        record = records.load(path)
        states = records.replay(record)
        model_path = Path(model_path) if model_path else default_model_path()
        session = cls(record, states[0], model_path, folder)
        for i, state in enumerate(states):
            session.state = state
            session._observe(state, ())
            if i < len(record.moves):
                note = record.moves[i].get("annotation")
                if note:
                    session.win_history.append(note["win_after"])
        return session

    @property
    def rules_name(self) -> str:
        return preset_name(self.state.rules) or "custom"

    @property
    def over(self) -> bool:
        return self.state.winner >= 0

    @property
    def human_turn(self) -> bool:
        return not self.over and self.state.turn == HUMAN

    def _observe(self, state: State, events) -> None:
        self.agent.observe(state, events)
        self.helper.observe(state, events)

    def coach_decision(self):
        """The coach's view of the person's position: probabilities and win % for every legal move."""
        return self.helper.decide(self.state)

    def hints(self) -> list[coach.MoveHint]:
        return coach.hints(self.state, self.coach_decision())

    def options_for(self, card: int) -> list[dict]:
        """The moves a card from the person's hand can make: each capture option, and the trail if allowed."""
        from .engine import is_legal, trail_action

        r = rank_of(card)
        opts = [o for o in capture_options([rank_of(c) for c in self.state.table], r, self.state.rules)]
        if is_legal(self.state, trail_action(r)):
            opts.append({"action": trail_action(r), "kind": "trail", "base": [], "sequence": [], "captured": []})
        return opts

    def play_human(self, action: int, card: int | None = None) -> MoveReport:
        if not self.human_turn:
            raise IllegalMove("it is not your turn" if not self.over else "the game is over", "not_your_turn")
        decision = self.coach_decision()
        ply = len(self.record.moves)
        note = coach.annotate(self.state, decision, action, ply, self.coach_preset)
        report = self._play(HUMAN, action, card, decision, note)
        self.win_history.append(note.win_after)
        return report

    def play_agent(self) -> MoveReport:
        decision = self.agent.decide(self.state)
        return self._play(AGENT, decision.action, None, decision, None)

    def _play(self, seat, action, card, decision, note) -> MoveReport:
        before = self.state
        after, events = apply(before, action, card)
        played = next(e for e in events if isinstance(e, Played))
        self.record.add_move(seat, action, played.card, note, after=after)
        self.state = after
        records.save(self.record, self.folder)
        self._observe(after, events)
        notes = callouts(events) + threshold_notes(before, after)
        self.last = MoveReport(seat, action, played.card, events, decision, note, notes)
        return self.last
