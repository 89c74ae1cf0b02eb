"""Provides the review screens: the list of saved games, and one game move by move with annotations."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Footer, OptionList, ProgressBar, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from ..app import coaching, files
from ..app.review import GameReview
from ..engine import card_str, parse_card
from .widgets import WinGraph, cards_text, move_name

Class = coaching.Class
STYLES = {Class.BLUNDER: "bold red", Class.MISTAKE: "red", Class.INACCURACY: "yellow", Class.UNCLEAR: "dim"}
"""How a move's class is shown (green for the rest)."""


class LuckTable(ModalScreen):
    """Per hand: the team's win % at its start and end, and the change split into luck and skill."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("t", "app.pop_screen", "Back")]

    def __init__(self, luck):
        super().__init__()
        self.luck = luck

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static("Luck vs skill, in win-% points for your side (escape to close)", id="title")
            yield Static("\n".join(coaching.luck.table_lines(self.luck)) + "\n\n" +
                         coaching.luck.summary_line(self.luck) + "\n\nSkill: the other side's losses against the "
                         "best move minus yours. Luck: the rest of the change (the deals, and the cards the "
                         "other side turned out to hold).")


class ReviewList(Screen):
    """Saved games: date, result, your accuracy, rules, model."""

    AUTO_FOCUS = "#games"

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
        self.query_one(DataTable).add_columns("date", "mode", "result", "your accuracy", "rules", "model")
        self.query_one("#problems", Static).update("Reading the saved games…")
        self.read_games()

    @work(thread=True, exclusive=True, group="review-list")
    def read_games(self) -> None:
        """Read and summarise every saved game off the event loop."""
        self.post_message(self.GamesRead(*files.list_games(self.app.folder, accuracy=coaching.summary_accuracy)))

    @on(GamesRead)
    def games_read(self, message: GamesRead) -> None:
        games, problems = message.games, message.problems
        self.games = games
        table = self.query_one(DataTable)
        for g in games:
            acc = "-" if g.accuracy is None else f"{g.accuracy:.0f}%"
            table.add_row(files.when_text(g.created), "2 v 2" if g.players == 4 else "1 v 1", g.result, acc,
                          g.rules_preset or "custom", (g.model or "-")[:8])
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
    """One game, move by move: the analysis's annotation (win % ± interval, best alternative, class), win-%
    graph, accuracy. Moves not yet analysed with this model and these settings are analysed on opening, in
    a worker, with a progress bar; what changed since the last review is listed."""

    ply: reactive[int] = reactive(0)
    """The move on show (len(moves) is the end of the game)."""
    face_up: reactive[bool] = reactive(False)
    """Whether every hand is shown."""

    BINDINGS = [Binding("left", "step(-1)", "Back"), Binding("right", "step(1)", "Next"),
                Binding("n", "mistake(1)", "Next mistake"), Binding("N", "mistake(-1)", "Prev mistake"),
                Binding("home", "jump(0)", "Start", show=False), Binding("end", "jump(-1)", "End", show=False),
                Binding("f", "face_up", "Face up"), Binding("d", "deeper", "Deeper review"),
                Binding("x", "explore", "Explore from here"), Binding("t", "luck_table", "Luck vs skill"),
                Binding("escape", "app.pop_screen", "Back")]

    class Progress(Message):
        """Moves analysed so far by the review worker, and whose."""

        def __init__(self, done: int, total: int, whose: str) -> None:
            super().__init__()
            self.done, self.total, self.whose = done, total, whose

    class Reviewed(Message):
        """The review worker's annotations of `seats`' moves and the drills it added, or the error that stopped
        it."""

        def __init__(self, annotations: list | None, seats=(), drills: int = 0, error: BaseException | None = None):
            super().__init__()
            self.annotations, self.seats, self.drills, self.error = annotations, list(seats), drills, error

    def __init__(self, path, seat: int | None = None):
        super().__init__()
        self.review = GameReview(path, seat)
        """The game under review (app/review.py): its record replayed once, its notes and figures."""
        self.record, self.game, self.seats, self.human = (self.review.record, self.review.game, self.review.seats,
                                                          self.review.human)
        self.states, self.events, self.narrator = self.game.states, self.game.events, self.review.narrator

    @property
    def notes(self) -> list:
        return self.review.notes

    def compose(self) -> ComposeResult:
        yield Static(id="summary")
        yield ProgressBar(id="progress", show_eta=True)
        yield Static(id="changes")
        with Horizontal(id="review-body"):
            yield OptionList(id="move-list")
            with Vertical():
                yield Static(id="position")
                yield Static(id="move")
                yield WinGraph(id="graph")
                yield Static(id="luck")
        yield Footer()

    def on_mount(self) -> None:
        self.model_id = files.file_sha256(self.app.model)  # the provenance to compare with
        self.query_one(ProgressBar).display = False
        self.fill_move_list()
        self.show_summary()
        self.show()
        self.start_review(None)

    def fill_move_list(self) -> None:
        """Every move, its mover and the class of its annotation; choosing one shows it."""
        menu = self.query_one("#move-list", OptionList)
        menu.clear_options()
        for i, move in enumerate(self.record.moves):
            note = self.notes[i]
            who = "you" if move.seat == self.record.human_seat else self.record.seats[move.seat].name[:3]
            mark = note.klass.mark if note else ""
            menu.add_option(Option(f"{i + 1:3d} {who:<3} {move_name(self.states[i], move.action)[:13]:<13}{mark:>2}",
                                   id=str(i)))
        menu.add_option(Option("    end of the game", id=str(len(self.record.moves))))
        menu.highlighted = self.ply

    @on(OptionList.OptionSelected, "#move-list")
    def move_chosen(self, event: OptionList.OptionSelected) -> None:
        self.ply = int(event.option.id)

    def show_summary(self) -> None:
        mine = [n for n in self.notes if n]
        acc = self.review.accuracy()
        per_hand = self.review.hand_accuracy()
        who = "Your" if self.human == self.record.human_seat else f"{self.record.seats[self.human].name}'s"
        text = Text(f"Review: {files.when_text(self.record.created)} · rules {self.record.rules_preset} · "
                    f"model {self.record.model.id[:8] if self.record.model else '?'}\n", style="bold")
        text.append(f"{who} accuracy: {coaching.percent(acc)}   by hand: " +
                    ", ".join(f"{i + 1}: {coaching.percent(a)}" for i, a in per_hand))
        if self.record.takebacks:
            text.append(f"   ({len(self.record.takebacks)} takeback(s))")
        if self.review.ending:
            text.append("\n" + self.review.ending)
        for line in coaching.provenance_lines(mine):
            text.append("\n" + line, style="dim")
        self.query_one("#summary", Static).update(text)
        self.query_one(WinGraph).data = tuple(n.win_after for n in mine)
        self.luck = self.review.luck(self.app.model, self.model_id)
        line = coaching.luck.summary_line(self.luck)
        self.query_one("#luck", Static).update(line + ("  (t: per hand)" if self.luck.hands else ""))

    def action_luck_table(self) -> None:
        """Luck vs skill per hand, in a dialog."""
        if not self.luck.hands:
            self.notify("No hand is analysed yet.")
            return
        self.app.push_screen(LuckTable(self.luck))

    # ---- the review in a worker ------------------------------------------------------------
    def start_review(self, worlds: int | None) -> None:
        """Analyse the moves whose annotations are not from this model and these settings (all of them with
        `worlds`: a deeper review)."""
        self.run_review(self.review.settings(self.app.model_path, worlds, self.app.review), worlds is not None)

    @work(thread=True, exclusive=True, group="review")
    def run_review(self, settings, again: bool) -> None:
        """The reviewed seats' moves first (they fill the move list and make drills), then the other side's (for
        luck vs skill), each posted when done: the worker computes, the screen stores (`reviewed`)."""
        worker = get_current_worker()

        def stopped() -> None:
            if worker.is_cancelled:  # the screen closed or the app quit: stop, and the analysis's processes end
                raise _Stopped

        def progress(done: int, total: int, whose: str) -> None:
            stopped()
            self.post_message(self.Progress(done, total, whose))

        try:
            for seats, whose, plies in self.review.batches(settings, again, self.model_id):
                self.post_message(self.Progress(0, len(plies), whose))
                annotations, added = self.review.analyse(seats, plies, settings, self.app.model_path,
                                                         lambda done, total, w=whose: progress(done, total, w),
                                                         waiting=stopped)  # quitting waits for no position
                self.post_message(self.Reviewed(annotations, seats, added))
        except _Stopped:
            return
        except Exception as err:  # reported on the screen; the stored annotations stay
            self.post_message(self.Reviewed(None, error=err))

    outcome = ""
    """What the review found, for the line above the move list."""

    @on(Progress)
    def progressed(self, message: Progress) -> None:
        bar = self.query_one(ProgressBar)
        bar.display = True
        bar.update(total=message.total, progress=message.done)
        self.query_one("#changes", Static).update(
            f"Analysing {message.whose} moves: {message.done} of {message.total}…")

    @on(Reviewed)
    def reviewed(self, message: Reviewed) -> None:
        self.query_one(ProgressBar).display = False
        changes = self.query_one("#changes", Static)
        if message.error is not None:
            changes.update(f"The review stopped: {message.error}")
            self.app.report_error(message.error)
            return
        lines, error = self.review.store(message.annotations, message.seats)
        if error is not None:
            self.app.report_error(error)
        self.fill_move_list()
        self.show_summary()
        self.show()
        if message.drills:
            self.notify(f"{message.drills} new drill(s) from your mistakes: d on the home screen.")
        if set(message.seats) & set(self.seats):
            self.outcome = f"Reviewed {len(message.annotations)} moves on the analysis." + (
                "\nChanged since the last review: " + "; ".join(lines[:2]) +
                (f"; and {len(lines) - 2} more" if len(lines) > 2 else "") if lines else " No mistake changed.")
        else:
            self.outcome += f" The other side's {len(message.annotations)} moves too, for luck vs skill."
        changes.update(self.outcome.strip())
        self.call_after_refresh(changes.refresh, layout=True)  # laid out again once drawn: a busy app has been seen
        # to keep the line's old height, its end cut off

    def action_deeper(self) -> None:
        """Review again with four times the worlds: the one thing that changes a verdict (its lines say so)."""
        worlds = 4 * (self.app.review or coaching.REVIEW).worlds
        self.notify(f"A deeper review: every move again in {worlds} worlds; what it changes is listed…")
        self.start_review(worlds)

    # ---- drawing ---------------------------------------------------------------------------
    def watch_ply(self) -> None:
        if self.is_mounted:
            self.query_one("#move-list", OptionList).highlighted = self.ply
        self.show()

    def show_marker(self) -> None:
        """The graph's marker on the last annotated move up to the one on show (None before the first)."""
        shown = sum(1 for note in self.notes[:self.ply + 1] if note)
        self.query_one(WinGraph).marker = shown - 1 if shown else None

    def watch_face_up(self) -> None:
        self.show()

    def show(self) -> None:
        if not self.is_mounted:
            return
        state = self.states[self.ply]
        t = Text(f"Move {self.ply + 1}/{len(self.record.moves)} · score {state.scores[0]}-{state.scores[1]} · "
                 f"hand {state.hand_no + 1} deal {state.deal_no + 1}\nTable: ", style="bold")
        t.append_text(cards_text(state.table))
        for seat in range(len(state.hands)):
            if seat == self.human or self.face_up:
                t.append(f"\n{self.who(seat)}: ")
                t.append_text(cards_text(state.hands[seat], empty="(none)"))
        self.query_one("#position", Static).update(t)
        self.show_marker()
        if self.ply >= len(self.record.moves):
            self.query_one("#move", Static).update(f"End of the game. {self.review.ending}" if self.review.ending else
                                                   "End of the moves: the game was not finished.")
            return
        move = self.record.moves[self.ply]
        line = Text(f"{self.who(move.seat)} played {move_name(state, move.action)} "
                    f"({card_str(parse_card(move.card))})", style="bold")
        notes = self.narrator.notes(self.events[self.ply + 1])
        if notes:
            line.append("  · " + "; ".join(notes))
        note = self.notes[self.ply]
        if note:
            style = STYLES.get(note.klass, "green")
            line.append(f"\n{note.klass}", style=style)
            line.append(f": win {note.win_after:.0f}%{coaching.margin_text(note)}")
            if note.action != note.best_action:
                line.append(f"; best was {note.best_name} ({note.win_best:.0f}%, loss {note.loss:.1f}"
                            f"{coaching.loss_text(note)})")
            if note.accuracy is not None:
                line.append(f"; accuracy {note.accuracy:.0f}%")
            why = coaching.reasons(state, note)  # the tutor's "show the better move", in the narrator's words
            if why:
                line.append(f"\n{note.name} {'; '.join(why)}.", style="dim")
        self.query_one("#move", Static).update(line)

    def who(self, seat: int) -> str:
        if self.record.human_seat is None:
            return self.record.seats[seat].name
        return "You" if seat == self.record.human_seat else self.record.seats[seat].name

    def action_step(self, delta: int) -> None:
        self.ply = max(0, min(len(self.record.moves), self.ply + delta))

    def action_jump(self, where: int) -> None:
        self.ply = 0 if where == 0 else len(self.record.moves)

    def action_mistake(self, direction: int) -> None:
        i = self.ply + direction
        while 0 <= i < len(self.notes):
            if self.notes[i] and self.notes[i].klass.is_error:
                self.ply = i
                return
            i += direction
        self.notify("No more mistakes that way.")

    def action_face_up(self) -> None:
        self.face_up = not self.face_up

    def action_explore(self) -> None:
        """Play on from the move on show against the agent, as a new game (this one stays as it is)."""
        self.app.explore(self.record, min(self.ply, len(self.record.moves)))


class _Stopped(Exception):
    """A review stopped because its screen closed."""
