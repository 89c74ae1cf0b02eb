"""Provides the play screen (you against the agent), the capture choice and the end-of-hand / game-over dialogs.

The agent thinks in a thread worker, off the event loop; its move comes back as an `AgentMoved`
message. The screen holds the engine state in a reactive attribute and passes it down to its widgets.
"""

from __future__ import annotations

import time

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, OptionList, Sparkline, Static
from textual.widgets.option_list import Option

from .. import coach, records
from ..engine import GameWon, HandEnded, State, card_str
from ..play.session import HUMAN, GameSession, MoveReport
from .tutor import TutorWarning, warning_for
from .widgets import AgentPanel, HandView, HintsPanel, Scoreboard, SeatsView, TableView, card_text, move_name


class CaptureChoice(ModalScreen[int | None]):
    """Pick what a card takes (or trail it); dismisses with the action id, None on escape."""

    BINDINGS = [Binding("escape", "cancel", "Back")] + [
        Binding(str(i), f"pick({i})", f"Option {i}", show=False) for i in range(1, 10)]

    def __init__(self, card: int, options: list, names: list[str]):
        super().__init__()
        self.card, self.options, self.names = card, options, names

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text.assemble("What does ", card_text(self.card), " take?  (number, arrows + enter, esc)"))
            yield OptionList(*[Option(f"{i + 1}. {name}", id=str(i)) for i, name in enumerate(self.names)],
                             id="choices")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.options[int(event.option.id)].action)

    def action_pick(self, n: int) -> None:
        if 1 <= n <= len(self.options):
            self.dismiss(self.options[n - 1].action)

    def action_cancel(self) -> None:
        self.dismiss(None)


class Notice(ModalScreen[str]):
    """A short summary (end of hand, game over) with some of these choices; the others are hidden."""

    BINDINGS = [Binding("enter", "choose('go')", "Next hand"), Binding("r", "choose('review')", "Review this game"),
                Binding("n", "choose('new')", "New game"), Binding("escape", "choose('home')", "Home")]

    def __init__(self, title: str, body: str, choices: tuple[str, ...]):
        super().__init__()
        self.title_text, self.body, self.choices = title, body, choices

    def compose(self) -> ComposeResult:
        offered = [b for b in self.BINDINGS if b.action.split("'")[1] in self.choices]
        with Vertical(id="dialog"):
            yield Static(Text(self.title_text, style="bold"))
            yield Static(self.body)
            yield Static(Text("   ".join(f"[{b.key}] {b.description}" for b in offered), style="dim"))
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action != "choose" or parameters[0] in self.choices

    def action_choose(self, value: str) -> None:
        self.dismiss(value)


class PlayScreen(Screen):
    """The game: scoreboard, agent panel, table, callouts, your hand, hints and your win % line."""

    BINDINGS = [Binding(str(i), f"card({i})", f"Card {i}", show=i == 1) for i in range(1, 6)] + [
        Binding("h", "toggle_hints", "Hints"),
        Binding("t", "toggle_tutor", "Tutor"),
        Binding("u", "take_back", "Take back"),
        Binding("escape", "leave", "Home (saved)"),
    ]

    state: reactive[State | None] = reactive(None, always_update=True)
    """The engine state the widgets show (set after every move)."""
    show_hints: reactive[bool] = reactive(False)
    tutor: reactive[bool] = reactive(True)
    """Tutor mode: ask before a move the analysis finds a clear mistake or blunder."""

    class AgentMoved(Message):
        """The agent's move, played in the worker."""

        def __init__(self, report: MoveReport, before: State) -> None:
            super().__init__()
            self.report, self.before = report, before

    class Analysed(Message):
        """The analysis of a position, made in a worker."""

        def __init__(self, state: State, analysis, purpose: tuple) -> None:
            super().__init__()
            self.state, self.analysis, self.purpose = state, analysis, purpose

    class AgentFailed(Message):
        """The agent's worker could not play."""

        def __init__(self, error: Exception) -> None:
            super().__init__()
            self.error = error

    def __init__(self, session: GameSession, tutor: bool = True):
        super().__init__()
        self.session = session
        self.thinking = False
        self.set_reactive(PlayScreen.tutor, tutor)
        self.analysis = None
        """(state, Analysis) of the last position analysed."""

    def compose(self) -> ComposeResult:
        yield Scoreboard(id="score")
        yield SeatsView(id="seats")
        yield AgentPanel(id="agent")
        yield TableView(id="table")
        yield Static(id="callout")
        yield HandView(id="hand")
        yield HintsPanel(id="hints")
        yield Static(id="winlabel")
        yield Sparkline([], id="winline")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(SeatsView).display = self.session.state.rules.players == 4
        level = (self.session.record.level or "club").replace("adaptive:", "adaptive, now ")
        self.query_one(AgentPanel).model = (f"level {level} · model {self.session.model_path.stem} "
                                            f"{self.session.agent.model_id[:8]}")
        self.query_one(AgentPanel).scale = self.session.one_pass  # the network's win % on the analysis's scale
        self.show_notes(self.session.last.callouts if self.session.last else [])
        if self.session.agent_last:  # a resumed game: the agent's last move, without its numbers
            self.query_one(AgentPanel).move = self.session.agent_last
        self.state = self.session.state
        self.continue_game()

    # ---- drawing: attributes down ------------------------------------------------------------
    def watch_state(self, state: State | None) -> None:
        if state is None:
            return
        s = self.session
        for widget in (self.query_one(Scoreboard), self.query_one(SeatsView), self.query_one(TableView),
                       self.query_one(HandView)):
            widget.state = state
        self.query_one(HandView).status = "over" if s.over else "yours" if s.human_turn and not self.thinking \
            else "thinking"
        self.show_hints_panel()
        history = s.win_history
        self.query_one("#winlabel", Static).update(
            f"Your win % after each of your moves: {history[-1]:.0f}% now" if history else
            "Your win % after each of your moves appears here")
        line = self.query_one(Sparkline)
        line.display = len(history) >= 2
        line.data = history

    def watch_show_hints(self) -> None:
        self.show_hints_panel()

    def show_hints_panel(self) -> None:
        hints = self.query_one(HintsPanel)
        hints.display = self.show_hints and self.session.human_turn and not self.thinking
        if not hints.display:
            return
        state = self.session.state
        if self.analysis is not None and self.analysis[0] is state:
            hints.hints = tuple(coach.refined_hints(state, self.analysis[1]))
            return
        hints.hints = tuple(self.session.quick_hints())  # the network's numbers at once (a few ms)
        self.analyse(self.session.position(), ("hints",))

    @work(thread=True, exclusive=True, group="analysis")
    def analyse(self, position: tuple, purpose: tuple) -> None:
        """The possible-worlds analysis of the person's position, off the event loop (under a second)."""
        try:
            result = self.session.analyse(position)
        except Exception as err:  # reported on the screen; the quick hints stay
            self.post_message(self.AgentFailed(err))
            return
        self.post_message(self.Analysed(position[0], result, purpose))

    @on(Analysed)
    def analysed(self, message: Analysed) -> None:
        if message.state is not self.session.state:
            return  # a move was made meanwhile: the analysis is of a position gone
        self.analysis = (message.state, message.analysis)
        if message.purpose[0] == "check":
            self.check_move(*message.purpose[1:])
        else:
            self.show_hints_panel()

    def show_notes(self, notes) -> None:
        self.query_one("#callout", Static).update(Text("  ".join(notes), style="bold yellow") if notes else "")

    # ---- your moves ----------------------------------------------------------------------------
    def action_card(self, n: int) -> None:
        s = self.session
        if not s.over and not s.human_turn and not self.thinking:  # the agent's move failed (a save): again
            self.notify("The agent tries its move again…", timeout=2)
            self.continue_game()
            return
        if not s.human_turn or self.thinking:
            self.notify("It is not your turn yet." if not s.over else "The game is over.", severity="warning")
            return
        hand = s.state.hands[0]
        if not 1 <= n <= len(hand):
            self.notify(f"You have {len(hand)} card(s): press 1-{len(hand)}.", severity="warning")
            return
        card = hand[n - 1]
        options = s.options_for(card)
        if len(options) == 1:
            self.play(options[0].action, card)
            return
        names = [("trail: leave the " + card_str(card) + " on the table") if o.kind == "trail"
                 else move_name(s.state, o.action) for o in options]
        self.app.push_screen(CaptureChoice(card, options, names),
                             lambda action: self.play(action, card) if action is not None else None)

    def play(self, action: int, card: int) -> None:
        """The person chose a move: in tutor mode it is checked first (play_checked plays it)."""
        if not self.tutor or not self.session.human_turn:
            self.play_checked(action, card)
        elif self.analysis is not None and self.analysis[0] is self.session.state:
            self.check_move(action, card)
        else:
            self.notify("The tutor is looking at your move…", timeout=2)
            self.analyse(self.session.position(), ("check", action, card))

    def check_move(self, action: int, card: int) -> None:
        """Warn before a clear mistake (the tutor's modal), else play."""
        state, result = self.analysis
        klass = warning_for(result, action)
        if klass is None:
            self.play_checked(action, card)
            return
        self.app.push_screen(TutorWarning(state, result, action, klass),
                             lambda choice: self.play_checked(action, card) if choice == "play" else None)

    def play_checked(self, action: int, card: int) -> None:
        try:
            analysis = self.analysis[1] if self.analysis and self.analysis[0] is self.session.state else None
            report = self.session.play_human(action, card, analysis)
        except Exception as err:  # never a traceback: say what happened; the record is saved each move
            self.app.report_error(err)
            return
        self.query_one(AgentPanel).moves = ()
        note = report.annotation
        extra = [f"Coach: {note.klass} ({note.win_after:.0f}%{coach.margin_text(note)} after; best {note.best_name} "
                 f"{note.win_best:.0f}%)"] if note and note.klass in ("inaccuracy", "mistake", "blunder") else []
        self.after_move(report, report.callouts + extra)

    def action_take_back(self) -> None:
        """Take back your last move (and the agent's reply): the game goes on from before it."""
        if self.thinking:
            self.notify("Wait for the agent's move first.", severity="warning")
            return
        try:
            self.session = self.session.take_back()
        except Exception as err:  # IllegalMove (nothing to take back) or SaveError: say so, change nothing
            self.notify(str(err), severity="warning")
            return
        self.analysis = None
        self.query_one(AgentPanel).move = self.session.agent_last
        self.show_notes([])
        self.state = self.session.state
        self.notify("Taken back: your move again (the game's record keeps the takeback).")

    def action_toggle_hints(self) -> None:
        self.show_hints = not self.show_hints

    def action_toggle_tutor(self) -> None:
        self.tutor = self.app.tutor = not self.tutor
        settings = records.load_settings()
        settings["tutor"] = self.tutor
        try:
            records.save_settings(settings)
        except OSError as err:
            self.app.report_error(err)
        self.notify("Tutor on: it asks before a clear mistake." if self.tutor else "Tutor off (t turns it on).")

    def action_leave(self) -> None:
        self.app.pop_screen()
        self.app.notify("Game saved: continue it from the home screen." if not self.session.over else "Game saved.")

    # ---- the flow of the game ------------------------------------------------------------------
    def after_move(self, report: MoveReport, notes) -> None:
        self.show_notes(notes)
        self.state = self.session.state
        hand_end = next((e for e in report.events if isinstance(e, HandEnded)), None)
        if any(isinstance(e, GameWon) for e in report.events):
            self.game_over()
        elif hand_end is not None:
            s = self.session.state
            ours, theirs = self.sides()
            dealer = "you deal" if s.dealer == 0 else f"{self.session.names[s.dealer].lower()} deals"
            body = (f"{self.session.narrator.hand_over(hand_end, s)}\nScore: {ours} {s.scores[0]}, {theirs} "
                    f"{s.scores[1]}.\nNext hand: {dealer}.")
            self.app.push_screen(Notice(f"End of hand {hand_end.hand_no + 1}", body, ("go",)),
                                 lambda _: self.continue_game())
        else:
            self.continue_game()

    def continue_game(self) -> None:
        if not self.session.over and self.session.state.turn != HUMAN and not self.thinking:
            self.thinking = True
            self.state = self.session.state
            self.agent_turn()

    @work(thread=True, exclusive=True, group="agent")
    def agent_turn(self) -> None:
        """The agent's move, in a thread: the network and the save stay off the event loop."""
        time.sleep(self.app.agent_delay)
        s = self.session
        before = s.state
        try:
            report = s.play_agent()
        except Exception as err:  # reported on the screen by the handler below
            self.post_message(self.AgentFailed(err))
            return
        self.post_message(self.AgentMoved(report, before))

    @on(AgentMoved)
    def agent_moved(self, message: AgentMoved) -> None:
        self.thinking = False
        report = message.report
        move = (message.before, report.decision,
                move_name(message.before, report.action) + f" ({card_str(report.card)})")
        panel = self.query_one(AgentPanel)
        panel.move = move
        if self.session.state.rules.players == 4:  # every agent move since yours, one line each
            panel.moves = (*panel.moves, move)
        self.after_move(report, report.callouts)

    @on(AgentFailed)
    def agent_failed(self, message: AgentFailed) -> None:
        self.thinking = False
        self.state = self.session.state
        self.app.report_error(message.error)
        if not self.session.over and self.session.state.turn != HUMAN:
            self.notify("Press a card key to let the agent try its move again.", timeout=8)

    def game_over(self) -> None:
        s = self.session.state
        ours, theirs = self.sides()
        body = f"Final score: {ours} {s.scores[0]}, {theirs} {s.scores[1]}.\nThe game is saved for review."
        try:
            moved = self.session.count_result()  # an adaptive game moves the person's level
        except OSError as err:
            moved = None
            self.app.report_error(err)
        if moved:
            body += "\n" + moved
        won = ("You win!", "The agent wins.") if s.rules.players == 2 else ("Your team wins!", "East and West win.")
        self.app.push_screen(Notice(won[0] if s.winner == 0 else won[1], body,
                                    ("review", "new", "home")), self.after_game)

    def sides(self) -> tuple:
        """("you", "agent"), or in 2 v 2 ("your team", "their team")."""
        return ("you", "agent") if self.session.state.rules.players == 2 else ("your team", "their team")

    def after_game(self, choice: str | None) -> None:
        path = self.app.record_path(self.session.record)
        self.app.pop_screen()
        if choice == "review":
            self.app.open_review(path)
        elif choice == "new":
            self.app.action_new_game()
