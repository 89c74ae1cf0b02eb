"""Provides the play screen: you against the agent, coached (its dialogs are in dialogs.py).

Workers compute, the screen applies: the agent's decision and the analysis are made in thread workers, off the event
loop, and come back as messages tagged with the request they answer (the game's ply and position when asked). The
screen, on the event loop, makes a move or uses an analysis only while the game is still where its request left it,
else drops it; only the screen changes the session. The person's position is analysed as their turn starts: every
number they read is that verdict (the hints, the tutor, the agent's win %, the win % kept for their move, for which a
move made before it is in waits), never the network's rougher one. While the person waits for the agent or the
tutor, their keys are refused with one line in place of whose turn it is. The screen holds the engine state in a
reactive attribute and passes it down to its widgets, which compute their words in the language in use each time
they draw.
"""

from __future__ import annotations

import time
from dataclasses import replace

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
from ..i18n import N_, _, ngettext, number, percent
from ..narrator import keys
from .dialogs import CaptureChoice, Notice
from .tutor import TutorWarning, warning_for
from .widgets import AgentPanel, HandView, HintsPanel, Scoreboard, SeatsView, TableView, WinGraph, move_name

ROOMY = 32
"""Rows from which the play screen shows the win-% graph beside open hints (below it, the hints hide the graph)."""
CARDS = (N_("Card 1"), N_("Card 2"), N_("Card 3"), N_("Card 4"), N_("Card 5"))
"""The descriptions of the card keys (the footer shows "1-5 Play" for them all; words.install translates them where
shown)."""


class PlayScreen(Screen):
    """The game: scoreboard, agent panel, table, callouts, your hand, hints and your win % line."""

    BINDINGS = [Binding("1", "card(1)", N_("Play"), key_display="1-5")] + [
        Binding(str(i), f"card({i})", CARDS[i - 1], show=False) for i in range(2, 6)] + [
        Binding("h", "toggle_hints", N_("Hints")),
        Binding("t", "toggle_tutor", N_("Tutor")),
        Binding("u", "take_back", N_("Take back")),
        Binding("escape", "leave", N_("Home (saved)")),
        Binding("ctrl+q", "app.quit", N_("Quit"), show=False),  # esc leaves the game saved: the footer fits 80 columns
    ]

    state: reactive[State | None] = reactive(None, always_update=True)
    """The engine state the widgets show (set after every move)."""
    show_hints: reactive[bool] = reactive(False)
    """The hints panel open (h): the person's last choice (settings.hints), kept for their next game."""
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
        self.failed: Request | None = None
        """The position whose analysis failed last (said once): asked again only by a key of the person's."""
        self.agent_asked: Request | None = None
        """The position the agent's worker is deciding at, if any: the person waits."""
        self.checking: tuple | None = None
        """(Request, action, card) of the person's move the tutor is checking, if any: the person waits."""

    @property
    def waiting(self) -> str | None:
        """What the person waits for, as the line that refuses their keys meanwhile (never queued), or None."""
        if self.agent_asked is not None:
            return _("Wait: the agent is playing")
        if self.checking is not None:
            return _("Wait: the tutor is checking") if self.tutor else _("Wait: your move is being analysed")
        return None

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
        self.set_reactive(PlayScreen.show_hints, self.app.settings.hints)  # every game starts as the last was left
        self.query_one(SeatsView).display = self.session.state.rules.players == 4
        self.show_opponent()
        self.show_notes(self.session.last.callouts if self.session.last else [])
        if self.session.agent_last:  # a resumed game: the agent's last move, without its numbers
            self.query_one(AgentPanel).move = self.session.agent_last
        self.state = self.session.state
        self.continue_game()

    def show_opponent(self) -> None:
        s = self.session
        opponent = _("level {level} · model {model} {id}").format(level=s.level, model=s.model_path.stem,
                                                                  id=s.agent.model_id[:8])
        self.query_one(AgentPanel).model = opponent
        self.query_one(Scoreboard).opponent = (  # all game long: the first that fits the line (2 v 2's is shorter)
            opponent, _("level {level} · model {id}").format(level=s.level, id=s.agent.model_id[:8]),
            _("level {level}").format(level=s.level))

    def retranslate(self) -> None:
        """Draw every word again in the language now in use (the settings screen changed it): the widgets compute
        their words as they draw."""
        self.show_opponent()
        for widget in (self.query_one(Scoreboard), self.query_one(SeatsView), self.query_one(TableView)):
            widget.watch_state(widget.state)
        self.query_one(HandView).render_hand()
        panel = self.query_one(AgentPanel)
        panel.watch_moves(panel.moves)
        self.state = self.session.state  # the hints (named anew), the win-% line

    # ---- drawing: attributes down ------------------------------------------------------------
    def watch_state(self, state: State | None) -> None:
        if state is None:
            return
        s = self.session
        for widget in (self.query_one(Scoreboard), self.query_one(SeatsView), self.query_one(TableView),
                       self.query_one(HandView)):
            widget.state = state
        self.show_turn()
        if s.human_turn and self.agent_asked is None:
            self.ask_analysis()  # your position's verdict, asked as your turn starts: the hints, the tutor, your win %
        self.show_agent_win()
        self.show_hints_panel()
        history = s.win_history
        self.query_one("#winlabel", Static).update(
            _("Your win % after each of your moves: {win} now").format(win=percent(history[-1])) if history else
            _("Your win % after each of your moves appears here"))
        line = self.query_one(WinGraph)
        line.data, line.marker = tuple(history), len(history) - 1  # the marker: where you are now
        self.fit_graph()

    def fit_graph(self) -> None:
        """The win-% graph, from your second move on, except while the hints are open on a short screen (80x24): both
        at once would push the footer off it."""
        hints = self.query_one(HintsPanel).display
        self.query_one(WinGraph).display = len(self.session.win_history) >= 2 and not (
            hints and self.size.height < ROOMY)

    def on_resize(self) -> None:
        self.fit_graph()

    def show_turn(self, notice: str = "") -> None:
        """Whose turn the hand's line says (and `notice`, one line in its place: a key that was not played)."""
        s, hand = self.session, self.query_one(HandView)
        hand.status = ("over" if s.over else ("checking" if self.tutor else "analysing") if self.checking else
                       "thinking" if self.agent_asked or not s.human_turn else "yours")
        hand.notice = notice

    def watch_show_hints(self) -> None:
        self.show_hints_panel()

    def show_hints_panel(self) -> None:
        hints = self.query_one(HintsPanel)
        hints.display = self.show_hints and self.session.human_turn and self.agent_asked is None
        self.fit_graph()
        if not hints.display:
            return
        state, result = self.session.state, self.current_analysis()
        if result is not None:  # the moves named as the language in use says them (an analysis keeps its names)
            refined = tuple(replace(h, name=move_name(state, h.action)) for h in coaching.refined_hints(state, result))
            self.session.hints_shown()  # the move made now is made with help on show (the level leaves it out)
            hints.note = coaching.star_note(state, refined)
            hints.hints = refined
            return
        hints.note = ""  # the moves, their keys and what they take at once, in the hand's order; no number until the
        # analysis's (the network's own is off by several points): "…" in its place
        hints.hints = tuple(sorted(self.session.quick_hints(), key=lambda h: (int(h.key), h.action)))
        self.ask_analysis()

    def show_agent_win(self) -> None:
        """The agent panel's win % after the agent's last move: the verdict of your position there once the analysis
        is in, "…" while it comes; kept while you play, until the agent's next move."""
        panel, result = self.query_one(AgentPanel), self.current_analysis()
        if self.session.human_turn and result is not None:
            panel.verdict, panel.coming = result.best.win_pct, False
        else:
            panel.coming = panel.verdict is None and self.asked is not None and self.session.at(self.asked)

    def current_analysis(self):
        """The analysis of the position the game is at, if it has come."""
        return self.analysis[1] if self.analysis is not None and self.session.at(self.analysis[0]) else None

    def ask_analysis(self) -> None:
        """Have the position the game is at analysed in a worker, unless it is in or under way already."""
        failed = self.failed is not None and self.session.at(self.failed)
        if self.current_analysis() is None and not failed and (self.asked is None or not self.session.at(self.asked)):
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
        self.show_agent_win()
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
            self.show_turn(self.waiting)
            return
        if not s.over and not s.human_turn:  # the agent's move failed (a save): again
            self.notify(_("The agent tries its move again…"), timeout=2)
            self.continue_game()
            return
        if s.over:
            self.notify(_("The game is over."), severity="warning")
            return
        hand = s.state.hands[0]
        if not 1 <= n <= len(hand):
            self.notify(ngettext("You have {n} card: press {keys}.", "You have {n} cards: press {keys}.",
                                 len(hand)).format(n=number(len(hand)), keys=keys(len(hand))), severity="warning")
            return
        card, request = hand[n - 1], s.request()
        options = s.options_for(card)
        if len(options) == 1:
            self.play(options[0].action, card, request)
            return
        names = [_("trail: leave the {card} on the table").format(card=card_str(card)) if o.kind == "trail"
                 else move_name(s.state, o.action) for o in options]
        self.app.push_screen(CaptureChoice(card, options, names),
                             lambda action: self.play(action, card, request) if action is not None else None)

    def play(self, action: int, card: int, request: Request) -> None:
        """The person chose a move with the game at `request`: on the analysis of the position (waited for if it
        is not in: the win % recorded for the move is its verdict), checked by the tutor in tutor mode, then played
        (play_checked). A choice made for a position gone is dropped."""
        if not self.session.at(request) or self.waiting:
            return
        if self.current_analysis() is not None:
            self.check_move(action, card)
        else:
            self.failed = None  # a failed analysis is tried again for the move
            self.checking = (request, action, card)
            self.show_turn()
            self.ask_analysis()

    def check_move(self, action: int, card: int) -> None:
        """Warn before a clear mistake (the tutor's modal, in tutor mode), else play: on the analysis of the position
        the game is at."""
        request, result = self.analysis
        klass = warning_for(result, action, self.session.coach_preset) if self.tutor else None
        if klass is None:
            self.play_checked(action, card, request)
            return
        self.session.hints_shown()  # the warning can show the better move: help, as the hints are
        self.app.push_screen(TutorWarning(request.state, result, action, klass),
                             lambda choice: self.play_checked(action, card, request) if choice == "play" else None)

    def play_checked(self, action: int, card: int, request: Request) -> None:
        """Play the person's move, chosen with the game at `request` (dropped if the game has moved on)."""
        if not self.session.at(request):
            return
        before = self.session.state
        try:
            report = self.session.play_human(action, card, self.current_analysis())
        except Exception as err:  # never a traceback: say what happened; the record is saved each move
            self.app.report_error(err)
            return
        self.query_one(AgentPanel).moves = ()
        note, extra = report.annotation, []
        if note and note.klass.is_error:
            extra.append(_("Coach: {klass} ({win}{margin} after; best {best} {best_win})").format(
                klass=note.klass.label, win=percent(note.win_after), margin=coaching.margin_text(note),
                best=move_name(before, note.best_action), best_win=percent(note.win_best)))
        self.after_move(report, report.callouts + extra)

    def action_take_back(self) -> None:
        """Take back your last move (and the agent's reply): the game goes on from before it."""
        if self.waiting:
            self.show_turn(self.waiting)
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
        self.notify(_("Taken back: your move again (the game's record keeps the takeback)."))

    def action_toggle_hints(self) -> None:
        self.show_hints = not self.show_hints
        self.app.change_settings(hints=self.show_hints)  # the next game, new or continued, starts so

    def action_toggle_tutor(self) -> None:
        self.tutor = self.app.tutor = not self.tutor
        self.app.change_settings(tutor=self.tutor)
        self.notify(_("Tutor on: it asks before a clear mistake.") if self.tutor else _("Tutor off (t turns it on)."))

    def action_leave(self) -> None:
        self.app.pop_screen()
        self.app.notify(_("Game saved: continue it from the home screen.") if not self.session.over else
                        _("Game saved."))

    # ---- the flow of the game ------------------------------------------------------------------
    def after_move(self, report: MoveReport, notes) -> None:
        self.show_notes(notes)
        self.state = self.session.state
        hand_end = next((e for e in report.events if isinstance(e, HandEnded)), None)
        if any(isinstance(e, GameWon) for e in report.events):
            self.game_over()
        elif hand_end is not None:
            s = self.session.state
            body = "\n".join((self.session.narrator.hand_over(hand_end, s), self.score_line(), next_dealer(s)))
            self.app.push_screen(Notice(_("End of hand {n}").format(n=number(hand_end.hand_no + 1)), body, ("go",)),
                                 lambda _choice: self.continue_game())
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
        panel.verdict = None  # its win % is the analysis's of where it leaves the game: "…" until it is in
        panel.move = move
        if self.session.state.rules.players == 4:  # every agent move since yours, one line each
            panel.moves = (*panel.moves, move)
        self.after_move(report, report.callouts)

    @on(WorkerFailed)
    def worker_failed(self, message: WorkerFailed) -> None:
        if message.request is self.asked:
            self.asked, self.failed = None, message.request
            checking, self.checking = self.checking, None
            self.query_one(AgentPanel).coming = False
            self.app.report_error(message.error)
            if checking is not None and not self.tutor:  # no analysis: the move is played on the network's numbers
                self.play_checked(checking[1], checking[2], checking[0])
            elif checking is not None:  # the move the tutor could not check is not played: said above
                self.state = self.session.state
        elif message.request is self.agent_asked:
            self.agent_asked = None
            self.agent_failed(message.error)

    def agent_failed(self, error: Exception) -> None:
        self.state = self.session.state
        self.app.report_error(error)
        if not self.session.over and self.session.state.turn != HUMAN:
            self.notify(_("Press a card key to let the agent try its move again."), timeout=8)

    def game_over(self) -> None:
        s = self.session.state
        body = final_line(s) + "\n" + _("The game is saved for review.")
        try:
            moved = self.session.count_result()  # an adaptive game moves the person's level
        except OSError as err:
            moved = None
            self.app.report_error(err)
        if moved:
            body += "\n" + moved
        if s.rules.players == 2:
            won = _("You win!") if s.winner == 0 else _("The agent wins.")
        else:
            won = _("Your team wins!") if s.winner == 0 else _("East and West win.")
        self.app.push_screen(Notice(won, body, ("review", "new", "home")), self.after_game)

    def score_line(self) -> str:
        """The score between hands: "Score: you 12, agent 20." (2 v 2: "your team", "their team")."""
        s = self.session.state
        said = (_("Score: you {ours}, agent {theirs}.") if s.rules.players == 2 else
                _("Score: your team {ours}, their team {theirs}."))
        return said.format(ours=number(s.scores[0]), theirs=number(s.scores[1]))

    def after_game(self, choice: str | None) -> None:
        path = self.app.record_path(self.session.record)
        self.app.pop_screen()
        if choice == "review":
            self.app.open_review(path)
        elif choice == "new":
            self.app.action_new_game()


def next_dealer(state: State) -> str:
    """Who deals the next hand, in a sentence: "Next hand: you deal." (2 v 2: east, partner, west)."""
    if state.dealer == 0:
        return _("Next hand: you deal.")
    if state.rules.players == 2:
        return _("Next hand: the agent deals.")
    return {1: _("Next hand: east deals."), 2: _("Next hand: partner deals."),
            3: _("Next hand: west deals.")}[state.dealer]


def final_line(state: State) -> str:
    """How the game ended, the winner's score first: "You won the game 40 to 24." (2 v 2: your team, East and
    West)."""
    won, lost = number(state.scores[state.winner]), number(state.scores[1 - state.winner])
    if state.rules.players == 2:
        said = _("You won the game {won} to {lost}.") if state.winner == 0 else \
            _("The agent won the game {won} to {lost}.")
    else:
        said = _("Your team won the game {won} to {lost}.") if state.winner == 0 else \
            _("East and West won the game {won} to {lost}.")
    return said.format(won=won, lost=lost)
