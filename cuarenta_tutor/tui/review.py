"""Provides the review screens: the list of saved games, and one game move by move with annotations."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Sparkline, Static

from .. import coach, records
from ..engine import Rules
from ..narrator import Narrator
from .widgets import cards_text, move_name

MISTAKES = ("inaccuracy", "mistake", "blunder")


class ReviewList(Screen):
    """Saved games: date, result, your accuracy, rules, model."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("enter", "open", "Open")]

    def compose(self) -> ComposeResult:
        yield Static("Saved games (enter to review)", id="title")
        yield DataTable(id="games", cursor_type="row")
        yield Static(id="problems")
        yield Footer()

    games: list = []
    """The saved games listed, once read."""

    class GamesRead(Message):
        """The saved games with their accuracy, read in a worker: (summaries, problems)."""

        def __init__(self, games: list, problems: list) -> None:
            super().__init__()
            self.games, self.problems = games, problems

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("date", "result", "your accuracy", "rules", "model")
        self.query_one("#problems", Static).update("Reading the saved games…")
        self.read_games()

    @work(thread=True, exclusive=True, group="review-list")
    def read_games(self) -> None:
        """Read and summarise every saved game off the event loop."""
        self.post_message(self.GamesRead(*records.list_games(self.app.folder, accuracy=coach.summary_accuracy)))

    @on(GamesRead)
    def games_read(self, message: GamesRead) -> None:
        games, problems = message.games, message.problems
        self.games = games
        table = self.query_one(DataTable)
        for g in games:
            acc = "-" if g.accuracy is None else f"{g.accuracy:.0f}%"
            table.add_row(g.created[:16].replace("T", " "), g.result, acc, g.rules_preset or "custom",
                          (g.model or "-")[:8])
        self.query_one("#problems", Static).update(
            "\n".join(f"Skipped: {p}" for p in problems[:5]) or ("" if games else "No saved games yet."))
        table.focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open()

    def action_open(self) -> None:
        if not self.games:
            return
        row = self.query_one(DataTable).cursor_row
        self.app.open_review(self.games[row].path)


class ReviewGame(Screen):
    """One game, move by move: annotation, best alternative, class, win-% graph, accuracy."""

    ply: reactive[int] = reactive(0)
    """The move on show (len(moves) is the end of the game)."""
    face_up: reactive[bool] = reactive(False)
    """Whether every hand is shown."""

    BINDINGS = [Binding("left", "step(-1)", "Back"), Binding("right", "step(1)", "Next"),
                Binding("n", "mistake(1)", "Next mistake"), Binding("N", "mistake(-1)", "Prev mistake"),
                Binding("home", "jump(0)", "Start", show=False), Binding("end", "jump(-1)", "End", show=False),
                Binding("f", "face_up", "Face up"), Binding("escape", "app.pop_screen", "Back")]

    def __init__(self, path):
        super().__init__()
        self.record = records.load(path)
        self.states, self.events = records.replay_events(self.record)
        self.human = self.record.human_seat if self.record.human_seat is not None else 0
        self.notes = [coach.Annotation.from_dict(m.annotation) if m.annotation else None for m in self.record.moves]
        self.narrator = Narrator(Rules().with_options(**self.record.rules), [s.name for s in self.record.seats],
                                 self.human)

    def compose(self) -> ComposeResult:
        yield Static(id="summary")
        yield Static(id="position")
        yield Static(id="move")
        yield Sparkline([], id="graph")
        yield Footer()

    def on_mount(self) -> None:
        human_notes = [n for n in self.notes if n]
        acc = coach.game_accuracy(human_notes)
        per_hand = self.hand_accuracy()
        text = Text(f"Review: {self.record.created[:16].replace('T', ' ')} · rules {self.record.rules_preset} · "
                    f"model {self.record.model.id[:8] if self.record.model else '?'}\n", style="bold")
        text.append(f"Your accuracy: {'-' if acc is None else f'{acc:.0f}%'}   by hand: " +
                    ", ".join(f"{i + 1}: {a:.0f}%" for i, a in per_hand))
        self.query_one("#summary", Static).update(text)
        self.query_one(Sparkline).data = [n.win_after for n in self.notes if n] or [50.0]
        self.show()

    def hand_accuracy(self):
        groups: dict[int, list] = {}
        for i, note in enumerate(self.notes):
            if note:
                groups.setdefault(self.states[i].hand_no, []).append(note)
        return [(h, coach.game_accuracy(notes)) for h, notes in sorted(groups.items()) if notes]

    def watch_ply(self) -> None:
        self.show()

    def watch_face_up(self) -> None:
        self.show()

    def show(self) -> None:
        if not self.is_mounted:
            return
        state = self.states[self.ply]
        t = Text(f"Move {self.ply + 1}/{len(self.record.moves)} · score you {state.scores[0]} agent "
                 f"{state.scores[1]} · hand {state.hand_no + 1} deal {state.deal_no + 1}\nTable: ", style="bold")
        t.append_text(cards_text(state.table))
        for seat in range(len(state.hands)):
            if seat == self.human or self.face_up:
                t.append(f"\n{'You' if seat == self.human else 'Agent'}: ")
                t.append_text(cards_text(state.hands[seat], empty="(none)"))
        self.query_one("#position", Static).update(t)
        if self.ply >= len(self.record.moves):
            self.query_one("#move", Static).update("End of the game.")
            return
        move = self.record.moves[self.ply]
        who = "You" if move.seat == self.human else "Agent"
        line = Text(f"{who} played {move_name(state, move.action)} ({move.card})", style="bold")
        events = self.events[self.ply + 1]
        notes = self.narrator.notes(events)
        if notes:
            line.append("  · " + "; ".join(notes))
        note = self.notes[self.ply]
        if note:
            style = {"blunder": "bold red", "mistake": "red", "inaccuracy": "yellow"}.get(note.klass, "green")
            line.append(f"\n{note.klass}", style=style)
            line.append(f": your win {note.win_before:.0f}% → {note.win_after:.0f}%")
            if note.klass != "best":
                line.append(f"; best was {note.best_name} ({note.win_best:.0f}%, loss {note.loss:.1f})")
        self.query_one("#move", Static).update(line)

    def action_step(self, delta: int) -> None:
        self.ply = max(0, min(len(self.record.moves), self.ply + delta))

    def action_jump(self, where: int) -> None:
        self.ply = 0 if where == 0 else len(self.record.moves)

    def action_mistake(self, direction: int) -> None:
        i = self.ply + direction
        while 0 <= i < len(self.notes):
            if self.notes[i] and self.notes[i].klass in MISTAKES:
                self.ply = i
                return
            i += direction
        self.notify("No more mistakes that way.")

    def action_face_up(self) -> None:
        self.face_up = not self.face_up
