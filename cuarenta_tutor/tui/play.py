"""Provides the play screen: you against the agent, coached (its dialogs are in dialogs.py).

Workers compute, the screen applies: the agent's decision and the analysis are made in thread workers, off the event
loop, and come back as messages tagged with the request they answer (the game's ply and position when asked). The
screen, on the event loop, makes a move or uses an analysis only while the game is still where its request left it,
else drops it; only the screen changes the session. While the person waits for the agent or the tutor, their keys are
refused with one line in place of whose turn it is. The screen holds the engine state in a reactive attribute and
passes it down to its widgets.
"""

from __future__ import annotations

import time

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Static

from ..app import coaching
from ..app.session import HUMAN, GameSession, MoveReport, Request
from ..engine import GameWon, HandEnded, State, card_str
from ..narrator import keys
from .dialogs import CaptureChoice, Notice
from .tutor import TutorWarning, warning_for
from .widgets import AgentPanel, HandView, HintsPanel, Scoreboard, SeatsView, TableView, WinGraph, move_name


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

    class AgentDecided(Message):
        """The agent's decision, made in a worker for the game at `request`."""

        def __init__(self, request: Request, decision) -> None:
            super().__init__()
            self.request, self.decision = request, decision

    class Analysed(Message):
        """The analysis of the position at `request`, made in a worker."""

        def __init__(self, request: Request, analysis) -> None:
            super().__init__()
            self.request, self.analysis = request, analysis

    class WorkerFailed(Message):
        """A worker (the agent's, or the analysis's) could not answer `request`."""

        def __init__(self, request: Request, error: Exception) -> None:
            super().__init__()
            self.request, self.error = request, error

    def __init__(self, session: GameSession, tutor: bool = True):
        super().__init__()
        self.session = session
        self.set_reactive(PlayScreen.tutor, tutor)
        self.analysis = None
        """(Request, Analysis) of the last position analysed."""
        self.asked: Request | None = None
        """The position the analysis's worker is working on, if any."""
        self.agent_asked: Request | None = None
        """The position the agent's worker is deciding at, if any: the person waits."""
        self.checking: tuple | None = None
        """(Request, action, card) of the person's move the tutor is checking, if any: the person waits."""

    @property
    def waiting(self) -> str | None:
        """What the person waits for, in words, or None: their keys are refused meanwhile (never queued)."""
        if self.agent_asked is not None:
            return "the agent is playing"
        return "the tutor is checking" if self.checking is not None else None

    def compose(self) -> ComposeResult:
        yield Scoreboard(id="score")
        yield SeatsView(id="seats")
        yield AgentPanel(id="agent")
        yield TableView(id="table")
        yield Static(id="callout")
        yield HandView(id="hand")
        yield HintsPanel(id="hints")
        yield Static(id="winlabel")
        yield WinGraph(id="winline")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(SeatsView).display = self.session.state.rules.players == 4
        s = self.session
        opponent = f"level {s.level} · model {s.model_path.stem} {s.agent.model_id[:8]}"
        self.query_one(AgentPanel).model = opponent
        self.query_one(Scoreboard).opponent = opponent  # all game long, not only until the agent's first move
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
        self.show_turn()
        self.show_hints_panel()
        history = s.win_history
        self.query_one("#winlabel", Static).update(
            f"Your win % after each of your moves: {history[-1]:.0f}% now" if history else
            "Your win % after each of your moves appears here")
        line = self.query_one(WinGraph)
        line.display = len(history) >= 2
        line.data, line.marker = tuple(history), len(history) - 1  # the marker: where you are now

    def show_turn(self, notice: str = "") -> None:
        """Whose turn the hand's line says (and `notice`, one line in its place: a key that was not played)."""
        s, hand = self.session, self.query_one(HandView)
        hand.status = ("over" if s.over else "checking" if self.checking else "thinking" if self.agent_asked
                       or not s.human_turn else "yours")
        hand.notice = notice

    def watch_show_hints(self) -> None:
        self.show_hints_panel()

    def show_hints_panel(self) -> None:
        hints = self.query_one(HintsPanel)
        hints.display = self.show_hints and self.session.human_turn and self.agent_asked is None
        if not hints.display:
            return
        state, result = self.session.state, self.current_analysis()
        if result is not None:
            refined = tuple(coaching.refined_hints(state, result))
            hints.note = coaching.star_note(state, refined)
            hints.hints = refined
            return
        hints.note = ""
        hints.hints = tuple(self.session.quick_hints())  # the network's numbers at once (a few ms)
        self.ask_analysis()

    def current_analysis(self):
        """The analysis of the position the game is at, if it has come."""
        return self.analysis[1] if self.analysis is not None and self.session.at(self.analysis[0]) else None

    def ask_analysis(self) -> None:
        """Have the position the game is at analysed in a worker, unless that is under way already."""
        if self.asked is None or not self.session.at(self.asked):
            self.asked = self.session.request()
            self.analyse(self.session, self.session.position(), self.asked)

    @work(thread=True, group="analysis")
    def analyse(self, session: GameSession, position: tuple, request: Request) -> None:
        """The possible-worlds analysis of the person's position, off the event loop (about a second); it returns
        its answer tagged with `request`, and changes nothing."""
        time.sleep(self.app.analysis_delay)
        try:
            result = session.analyse(position)
        except Exception as err:  # reported on the screen; the quick hints stay
            self.post_message(self.WorkerFailed(request, err))
            return
        self.post_message(self.Analysed(request, result))

    @on(Analysed)
    def analysed(self, message: Analysed) -> None:
        if self.asked is message.request:
            self.asked = None
        if not self.session.at(message.request):
            return  # the game has moved on: an answer about a position gone
        self.analysis = (message.request, message.analysis)
        if self.checking is not None:
            asked, action, card = self.checking
            self.checking = None
            self.show_turn()
            if self.session.at(asked):
                self.check_move(action, card)
        else:
            self.show_hints_panel()

    def show_notes(self, notes) -> None:
        self.query_one("#callout", Static).update(Text("  ".join(notes), style="bold yellow") if notes else "")

    # ---- your moves ----------------------------------------------------------------------------
    def action_card(self, n: int) -> None:
        s = self.session
        if self.waiting:  # refused, said in place of whose turn it is: one line, never a pile of warnings
            self.show_turn(f"Wait: {self.waiting}")
            return
        if not s.over and not s.human_turn:  # the agent's move failed (a save): again
            self.notify("The agent tries its move again…", timeout=2)
            self.continue_game()
            return
        if s.over:
            self.notify("The game is over.", severity="warning")
            return
        hand = s.state.hands[0]
        if not 1 <= n <= len(hand):
            self.notify(f"You have {len(hand)} card{'s' if len(hand) != 1 else ''}: press {keys(len(hand))}.",
                        severity="warning")
            return
        card, request = hand[n - 1], s.request()
        options = s.options_for(card)
        if len(options) == 1:
            self.play(options[0].action, card, request)
            return
        names = [("trail: leave the " + card_str(card) + " on the table") if o.kind == "trail"
                 else move_name(s.state, o.action) for o in options]
        self.app.push_screen(CaptureChoice(card, options, names),
                             lambda action: self.play(action, card, request) if action is not None else None)

    def play(self, action: int, card: int, request: Request) -> None:
        """The person chose a move with the game at `request`: in tutor mode it is checked first (play_checked
        plays it). A choice made for a position gone is dropped."""
        if not self.session.at(request) or self.waiting:
            return
        if not self.tutor:
            self.play_checked(action, card, request)
        elif self.current_analysis() is not None:
            self.check_move(action, card)
        else:
            self.checking = (request, action, card)
            self.show_turn()
            self.ask_analysis()

    def check_move(self, action: int, card: int) -> None:
        """Warn before a clear mistake (the tutor's modal), else play: on the analysis of the position the game is
        at."""
        request, result = self.analysis
        klass = warning_for(result, action, self.session.coach_preset)
        if klass is None:
            self.play_checked(action, card, request)
            return
        self.app.push_screen(TutorWarning(request.state, result, action, klass),
                             lambda choice: self.play_checked(action, card, request) if choice == "play" else None)

    def play_checked(self, action: int, card: int, request: Request) -> None:
        """Play the person's move, chosen with the game at `request` (dropped if the game has moved on)."""
        if not self.session.at(request):
            return
        try:
            report = self.session.play_human(action, card, self.current_analysis())
        except Exception as err:  # never a traceback: say what happened; the record is saved each move
            self.app.report_error(err)
            return
        self.query_one(AgentPanel).moves = ()
        note = report.annotation
        extra = [f"Coach: {note.klass} ({note.win_after:.0f}%{coaching.margin_text(note)} after; best {note.best_name} "
                 f"{note.win_best:.0f}%)"] if note and note.klass.is_error else []
        self.after_move(report, report.callouts + extra)

    def action_take_back(self) -> None:
        """Take back your last move (and the agent's reply): the game goes on from before it."""
        if self.waiting:
            self.show_turn(f"Wait: {self.waiting}")
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
        self.app.change_settings(tutor=self.tutor)
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
        """If an agent is on turn, ask for its move (the person waits)."""
        s = self.session
        if not s.over and s.state.turn != HUMAN and self.agent_asked is None:
            self.agent_asked = s.request()
            self.state = s.state
            self.agent_turn(s, self.agent_asked)

    @work(thread=True, group="agent")
    def agent_turn(self, session: GameSession, request: Request) -> None:
        """The agent's decision, in a thread: the network stays off the event loop. It returns the decision tagged
        with `request`; the move is made by the handler below (on the event loop), once."""
        time.sleep(self.app.agent_delay)
        try:
            decision = session.agent_decision(request)
        except Exception as err:  # reported on the screen by the handler below
            self.post_message(self.WorkerFailed(request, err))
            return
        self.post_message(self.AgentDecided(request, decision))

    @on(AgentDecided)
    def agent_decided(self, message: AgentDecided) -> None:
        if message.request is not self.agent_asked:
            return  # an answer nobody waits for any more
        self.agent_asked = None
        if not self.session.at(message.request):
            self.continue_game()  # the game has moved on: ask again where it is
            return
        before = self.session.state
        try:
            report = self.session.play_agent(message.decision)
        except Exception as err:  # a save that failed: nothing was played
            self.agent_failed(err)
            return
        move = (before, report.decision, move_name(before, report.action) + f" ({card_str(report.card)})")
        panel = self.query_one(AgentPanel)
        panel.move = move
        if self.session.state.rules.players == 4:  # every agent move since yours, one line each
            panel.moves = (*panel.moves, move)
        self.after_move(report, report.callouts)

    @on(WorkerFailed)
    def worker_failed(self, message: WorkerFailed) -> None:
        if message.request is self.asked:
            self.asked = None
            if self.checking is not None:  # the move the tutor could not check is not played: say why
                self.checking = None
                self.state = self.session.state
            self.app.report_error(message.error)
        elif message.request is self.agent_asked:
            self.agent_asked = None
            self.agent_failed(message.error)

    def agent_failed(self, error: Exception) -> None:
        self.state = self.session.state
        self.app.report_error(error)
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
