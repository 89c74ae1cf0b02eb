"""Provides the review screens: the list of saved games, and one game move by move with annotations."""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Footer, OptionList, ProgressBar, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from ..app import coaching, files
from ..app.review import GameReview
from ..engine import card_str, parse_card
from ..i18n import N_, _, ngettext, number, percent, pgettext
from .widgets import WinGraph, cards_text, move_name, styled
from .words import preset_name

Class = coaching.Class
STYLES = {Class.BLUNDER: "bold red", Class.MISTAKE: "red", Class.INACCURACY: "yellow", Class.UNCLEAR: "dim"}
"""How a move's class is shown (green for the rest)."""


class LuckTable(ModalScreen):
    """Per hand: the team's win % at its start and end, and the change split into luck and skill."""

    BINDINGS = [Binding("escape", "app.pop_screen", N_("Back")), Binding("t", "app.pop_screen", N_("Back"))]

    def __init__(self, luck):
        super().__init__()
        self.luck = luck

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(_("Luck vs skill, in win-% points for your side (escape to close)"), id="title")
            yield Static("\n".join(coaching.luck.table_lines(self.luck)) + "\n\n" +
                         coaching.luck.summary_line(self.luck) + "\n\n" +
                         _("Skill: the other side's losses against the best move minus yours. Luck: the rest of the "
                           "change (the deals, and the cards the other side turned out to hold)."))

    def retranslate(self) -> None:
        self.recompose()


class ReviewList(Screen):
    """Saved games: date, result, your accuracy, rules, model."""

    AUTO_FOCUS = "#games"

    BINDINGS = [Binding("escape", "app.pop_screen", N_("Back")), Binding("enter", "open", N_("Open"))]

    def compose(self) -> ComposeResult:
        yield Static(_("Saved games (enter to review)"), id="title")
        yield DataTable(id="games", cursor_type="row")
        yield Static(id="problems")
        yield Footer()

    games: list = []
    """The saved games listed, once read."""
    problems: list = []
    """What kept some files from being listed."""
    read = False

    class GamesRead(Message):
        """The saved games with their accuracy, read in a worker: (summaries, problems)."""

        def __init__(self, games: list, problems: list) -> None:
            super().__init__()
            self.games, self.problems = games, problems

    def on_mount(self) -> None:
        self.fill()
        self.read_games()

    @work(thread=True, exclusive=True, group="review-list")
    def read_games(self) -> None:
        """Read and summarise every saved game off the event loop."""
        self.post_message(self.GamesRead(*files.list_games(self.app.folder, accuracy=coaching.summary_accuracy)))

    @on(GamesRead)
    def games_read(self, message: GamesRead) -> None:
        self.games, self.problems, self.read = message.games, message.problems, True
        self.fill()
        self.query_one(DataTable).focus()

    def fill(self) -> None:
        """The table of the games read (none yet: their headings) and what was skipped, in the language in use."""
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear(columns=True)
        heads = (_("date"), _("mode"), _("result"), _("your accuracy"), _("rules"), _("model"))
        rows = [(files.when_text(g.created), "2 v 2" if g.players == 4 else "1 v 1", g.result,
                 "-" if g.accuracy is None else percent(g.accuracy), preset_name(g.rules_preset), (g.model or "-")[:8])
                for g in self.games]
        widths = [max(cell_len(str(cell)) for cell in column) for column in zip(heads, *rows, strict=True)]
        room = (self.app.size.width or 80) - 2 * table.cell_padding * len(heads) - 2  # each whole on an 80-column
        while sum(widths) > room and max(widths) > 8:  # screen: the widest cut first, never into the next column
            widths[widths.index(max(widths))] -= 1
        for head, width in zip(heads, widths, strict=True):
            table.add_column(head, width=width)
        for cells in rows:
            table.add_row(*cells)
        if self.games:
            table.move_cursor(row=min(row, len(self.games) - 1))
        if not self.read:
            said = _("Reading the saved games…")
        else:
            said = "\n".join(_("Skipped: {problem}").format(problem=p) for p in self.problems[:5]) or (
                "" if self.games else _("No saved games yet."))
        self.query_one("#problems", Static).update(said)

    def retranslate(self) -> None:
        self.fill()

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

    BINDINGS = [Binding("left", "step(-1)", N_("Previous")), Binding("right", "step(1)", N_("Next")),
                Binding("n", "mistake(1)", N_("Next mistake")), Binding("N", "mistake(-1)", N_("Prev mistake")),
                Binding("home", "jump(0)", N_("First move"), show=False),
                Binding("end", "jump(-1)", N_("Last move"), show=False),
                Binding("f", "face_up", N_("Face up"), show=False),
                Binding("d", "deeper", N_("Deeper review"), show=False),
                Binding("x", "explore", N_("Explore from here")),
                Binding("t", "luck_table", N_("Luck vs skill"), show=False),  # the luck line says "(t: per hand)"
                Binding("escape", "app.pop_screen", N_("Back")),
                Binding("ctrl+q", "app.quit", N_("Quit"), show=False)]
    """The footer shows what fits 80 columns in both languages (? Help lists every key: f, d, t, ctrl+q)."""

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
            with VerticalScroll(id="review-side", can_focus=False):  # a long move's notes scroll, never cut off
                yield Static(id="position")
                yield Static(id="move")
                yield WinGraph(id="graph")
                yield Static(id="luck")
        yield Footer(show_command_palette=False)  # ctrl+p still opens it: its place is the review's keys

    def on_mount(self) -> None:
        self.model_id = files.file_sha256(self.app.model)  # the provenance to compare with
        self.query_one(ProgressBar).display = False
        self.fill_move_list()
        self.show_summary()
        self.show()
        self.start_review(None)

    def fill_move_list(self) -> None:
        """Every move: its number, its mover, the move whole (a long one wraps under itself, never cut) and the mark
        of its annotation's class; choosing one shows it."""
        menu = self.query_one("#move-list", OptionList)
        menu.clear_options()
        width = int(menu.styles.width.value) - menu.styles.gutter.width - menu.styles.scrollbar_size_vertical
        for i, move in enumerate(self.record.moves):
            note = self.notes[i]
            said = Text(_("{seat}: {move}").format(seat=self.short(move.seat),
                                                   move=move_name(self.states[i], move.action)))
            if note and note.klass.mark:
                said.append(" " + note.klass.mark, style=STYLES.get(note.klass, "green"))
            menu.add_option(Option(numbered(i + 1, said, width), id=str(i)))
        menu.add_option(Option(numbered(None, Text(_("end of the game")), width), id=str(len(self.record.moves))))
        menu.highlighted = self.ply

    def short(self, seat: int) -> str:
        """A seat as the move list names it: "you", "agent", "East", "partner", "West" (Spanish "tú", "agente",
        "rival derecho", "compañero", "rival izquierdo"); another name as the record has it."""
        if seat == self.record.human_seat:
            return pgettext("move list", "you")
        name = self.record.seats[seat].name
        return {"Agent": pgettext("move list", "agent"), "East": pgettext("move list", "East"),
                "Partner": pgettext("move list", "partner"), "West": pgettext("move list", "West")}.get(name, name)

    @on(OptionList.OptionSelected, "#move-list")
    def move_chosen(self, event: OptionList.OptionSelected) -> None:
        self.ply = int(event.option.id)

    def show_summary(self) -> None:
        mine = [n for n in self.notes if n]
        acc = self.review.accuracy()
        per_hand = ", ".join(f"{number(i + 1)}: {coaching.percent(a)}" for i, a in self.review.hand_accuracy())
        text = Text(_("Review: {when} · rules {rules} · model {model}").format(
            when=files.when_text(self.record.created), rules=preset_name(self.record.rules_preset),
            model=self.record.model.id[:8] if self.record.model else "?") + "\n", style="bold")
        if self.human == self.record.human_seat:
            said = _("Your accuracy: {accuracy}   by hand: {hands}")
        else:
            said = _("{name}'s accuracy: {accuracy}   by hand: {hands}")
        text.append(said.format(name=coaching.seat_name(self.record.seats[self.human].name),
                                accuracy=coaching.percent(acc), hands=per_hand))
        if self.record.takebacks:
            n = len(self.record.takebacks)
            text.append("   " + ngettext("({n} takeback)", "({n} takebacks)", n).format(n=number(n)))
        if self.review.ending:
            text.append("\n" + self.review.ending)
        for line in coaching.provenance_lines(mine):
            text.append("\n" + line, style="dim")
        self.query_one("#summary", Static).update(text)
        self.query_one(WinGraph).data = tuple(n.win_after for n in mine)
        self.luck = self.review.luck(self.app.model, self.model_id)
        line = coaching.luck.summary_line(self.luck)
        self.query_one("#luck", Static).update(line + ("  " + _("(t: per hand)") if self.luck.hands else ""))

    def retranslate(self) -> None:
        self.fill_move_list()
        self.show_summary()
        self.show()

    def action_luck_table(self) -> None:
        """Luck vs skill per hand, in a dialog."""
        if not self.luck.hands:
            self.notify(_("No hand is analysed yet."))
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
        said = {"your": _("Analysing your moves: {done} of {total}…"),
                "the reviewed": _("Analysing the reviewed moves: {done} of {total}…"),
                "the other side's": _("Analysing the other side's moves: {done} of {total}…")}.get(
            message.whose, _("Analysing {whose} moves: {done} of {total}…"))
        self.query_one("#changes", Static).update(said.format(whose=message.whose, done=number(message.done),
                                                              total=number(message.total)))

    @on(Reviewed)
    def reviewed(self, message: Reviewed) -> None:
        self.query_one(ProgressBar).display = False
        changes = self.query_one("#changes", Static)
        if message.error is not None:
            changes.update(_("The review stopped: {error}").format(error=message.error))
            self.app.report_error(message.error)
            return
        lines, error = self.review.store(message.annotations, message.seats)
        if error is not None:
            self.app.report_error(error)
        self.fill_move_list()
        self.show_summary()
        self.show()
        if message.drills:
            self.notify(ngettext("{n} new drill from your mistakes: d on the home screen.",
                                 "{n} new drills from your mistakes: d on the home screen.",
                                 message.drills).format(n=number(message.drills)))
        n = len(message.annotations)
        if set(message.seats) & set(self.seats):
            self.outcome = ngettext("Reviewed {n} move on the analysis.", "Reviewed {n} moves on the analysis.",
                                    n).format(n=number(n))
            if lines:
                changed = "; ".join(lines[:2])
                if len(lines) > 2:
                    changed += ngettext("; and {n} more", "; and {n} more", len(lines) - 2).format(
                        n=number(len(lines) - 2))
                self.outcome += "\n" + _("Changed since the last review: {changes}").format(changes=changed)
            else:
                self.outcome += " " + _("No mistake changed.")
        else:
            self.outcome += " " + ngettext("The other side's {n} move too, for luck vs skill.",
                                           "The other side's {n} moves too, for luck vs skill.", n).format(
                n=number(n))
        changes.update(self.outcome.strip())
        self.call_after_refresh(changes.refresh, layout=True)  # laid out again once drawn: a busy app has been seen
        # to keep the line's old height, its end cut off

    def action_deeper(self) -> None:
        """Review again with four times the worlds: the one thing that changes a verdict (its lines say so)."""
        worlds = 4 * (self.app.review or coaching.REVIEW).worlds
        self.notify(_("A deeper review: every move again in {worlds} worlds; what it changes is listed…").format(
            worlds=number(worlds)))
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
        t = Text(_("Move {n}/{total} · score {ours}-{theirs} · hand {hand} deal {deal}").format(
            n=number(self.ply + 1), total=number(len(self.record.moves)), ours=number(state.scores[0]),
            theirs=number(state.scores[1]), hand=number(state.hand_no + 1), deal=number(state.deal_no + 1)) + "\n" +
            _("Table:") + " ", style="bold")
        t.append_text(cards_text(state.table))
        for seat in range(len(state.hands)):
            if seat == self.human or self.face_up:
                t.append(f"\n{self.who(seat)}: ")
                t.append_text(cards_text(state.hands[seat], empty=_("(none)")))
        self.query_one("#position", Static).update(t)
        self.show_marker()
        if self.ply >= len(self.record.moves):
            self.query_one("#move", Static).update(
                _("End of the game. {ending}").format(ending=self.review.ending) if self.review.ending else
                _("End of the moves: the game was not finished."))
            return
        move = self.record.moves[self.ply]
        played = (_("You played {move} ({card})") if self.record.human_seat is not None and
                  move.seat == self.record.human_seat else _("{name} played {move} ({card})"))
        line = Text(played.format(name=self.who(move.seat), move=move_name(state, move.action),
                                  card=card_str(parse_card(move.card))), style="bold")
        notes = self.narrator.notes(self.events[self.ply + 1])
        if notes:
            line.append("  · " + "; ".join(notes))
        note = self.notes[self.ply]
        if note:
            line.append("\n")
            line.append_text(styled(_("{klass}: win {win}{margin}"), klass=Text(note.klass.label,
                                                                                style=STYLES.get(note.klass, "green")),
                                    win=percent(note.win_after), margin=coaching.margin_text(note)))
            if note.action != note.best_action:
                line.append("; " + _("best was {best} ({win}, loss {loss}{interval})").format(
                    best=move_name(state, note.best_action), win=percent(note.win_best), loss=number(note.loss, 1),
                    interval=coaching.loss_text(note)))
            if note.accuracy is not None:
                line.append("; " + _("accuracy {accuracy}").format(accuracy=percent(note.accuracy)))
            why = coaching.reasons(state, note)  # the tutor's "show the better move", in the narrator's words
            if why:
                line.append("\n" + _("{move} {reasons}.").format(move=move_name(state, note.action),
                                                               reasons="; ".join(why)), style="dim")
        self.query_one("#move", Static).update(line)

    def who(self, seat: int) -> str:
        """A seat's name as the review shows it: "You" for the person, the app's seat names in the language in use
        ("Agent", "East"), any other as the record has it."""
        if self.record.human_seat is not None and seat == self.record.human_seat:
            return coaching.seat_name("You")
        return coaching.seat_name(self.record.seats[seat].name)

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
        self.notify(_("No more mistakes that way."))

    def action_face_up(self) -> None:
        self.face_up = not self.face_up

    def action_explore(self) -> None:
        """Play on from the move on show against the agent, as a new game (this one stays as it is)."""
        self.app.explore(self.record, min(self.ply, len(self.record.moves)))


def numbered(n: int | None, said: Text, width: int) -> Text:
    """A move list's entry in `width` cells: its number (none for the end), then `said`, wrapped at its words under
    itself (never cut)."""
    lines = said.wrap(Console(width=width), width - 4)
    entry = Text(f"{'' if n is None else number(n):>3} ")
    for i, line in enumerate(lines):
        entry.append_text(Text("\n    ") + line if i else line)
    return entry


class _Stopped(Exception):
    """A review stopped because its screen closed."""
