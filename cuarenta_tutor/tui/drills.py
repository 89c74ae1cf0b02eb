"""Provides the drills screen: the positions of your own mistakes, served when they are due (coach/drills.py),
with the analysis's numbers and the narrator's reason for every answer."""

from __future__ import annotations

from datetime import datetime, timezone

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from ..app import files
from ..app.coaching import key_of
from ..engine import ACTION_RANK, legal_actions
from ..i18n import N_, _, ngettext, number
from ..narrator import keys, move_name
from .widgets import cards_text

CARDS = (N_("Card 1"), N_("Card 2"), N_("Card 3"), N_("Card 4"), N_("Card 5"))
"""The descriptions of the card keys (as in play: key n plays card n of the hand)."""


def until(due: str, when: datetime) -> str:
    """"in 3 days", "in 5 hours", "now"."""
    seconds = (datetime.fromisoformat(due) - when).total_seconds()
    if seconds <= 0:
        return _("now")
    days, hours = seconds / 86400, seconds / 3600
    if days >= 1.5:
        n = round(days)
        return ngettext("in {n} day", "in {n} days", n).format(n=number(n))
    n = max(1, round(hours))
    return ngettext("in {n} hour", "in {n} hours", n).format(n=number(n))


class DrillScreen(Screen):
    """One due drill at a time: the position as you saw it, your moves, and feedback on the one you pick."""

    AUTO_FOCUS = "#drill-moves"
    BINDINGS = [Binding("1", "card(1)", N_("Play"), key_display="1-5")] + [
        Binding(str(i), f"card({i})", CARDS[i - 1], show=False) for i in range(2, 6)] + [
        Binding("right", "next", N_("Next drill")), Binding("escape", "app.pop_screen", N_("Back"))]

    def __init__(self, now=None):
        super().__init__()
        self.now = now or (lambda: datetime.now(timezone.utc))
        """The clock (tests move it forward to see the schedule)."""
        self.drill = None
        self.answered = False
        self.told: tuple[bool, str] | None = None
        """The feedback on the answer on show: (right, what the drill said)."""

    def compose(self) -> ComposeResult:
        yield Static(id="title")
        with VerticalScroll(id="drill"):
            yield Static(id="position")
            yield OptionList(id="drill-moves")
            yield Static(id="feedback")
        yield Footer()

    def on_mount(self) -> None:
        self.serve()

    def serve(self) -> None:
        """Show the drill due longest, or when the next one is due."""
        self.deck = files.load_deck()
        for problem in self.deck.problems:
            self.notify(problem, severity="warning", timeout=10, markup=False)
        when = self.now()
        due = self.deck.due(when)
        menu = self.query_one("#drill-moves", OptionList)
        menu.clear_options()
        self.query_one("#feedback", Static).update("")
        self.answered, self.told = False, None
        self.drill = due[0] if due else None
        if self.drill is None:
            upcoming = self.deck.next_due()
            self.query_one("#title", Static).update(Text(_("Drills"), style="bold"))
            self.query_one("#position", Static).update(
                _("No drill is due; the next one is due {when}.").format(when=until(upcoming.due, when)) if upcoming
                else _("No drills yet. Review a game (r on the home screen): each of your mistakes and blunders "
                       "becomes a drill here."))
            menu.display = False
            return
        menu.display = True
        try:
            state = self.drill.state()
        except files.RecordError as err:  # checked on load; a record format change would show here
            self.app.report_error(err)
            return
        self.show_position(state, len(due))
        self.moves = list(legal_actions(state))
        self.fill_moves(state)
        menu.highlighted = 0
        menu.focus()

    def fill_moves(self, state) -> None:
        menu = self.query_one("#drill-moves", OptionList)
        highlighted = menu.highlighted
        menu.clear_options()
        for action in self.moves:  # each with the key of its card, as in play
            menu.add_option(Option(f"[{key_of(state, action)}] {move_name(state, action)}", id=str(action)))
        menu.highlighted = highlighted

    def show_position(self, state, due: int) -> None:
        self.shown_due = due
        drill, seat = self.drill, self.drill.seat
        game = drill.game
        heading = ngettext("Drill · {due} due · box {box} of {boxes} · {a_kind} from your game of {when}",
                           "Drill · {due} due · box {box} of {boxes} · {a_kind} from your game of {when}", due)
        title = Text(heading.format(due=number(due), box=number(drill.box), boxes=number(len(files.BOX_DAYS) - 1),
                                    a_kind=files.kind_with_article(drill.kind),
                                    when=files.when_text(game["created"])), style="bold")
        self.query_one("#title", Static).update(title)
        mine, theirs = state.scores[seat % 2], state.scores[1 - seat % 2]
        ours, other = len(state.piles[seat % 2]), len(state.piles[1 - seat % 2])
        t = Text(ngettext("Score: you {mine}, them {theirs} · cartón: you {ours}, them {other} card · hand {hand}, "
                          "deal {deal}",
                          "Score: you {mine}, them {theirs} · cartón: you {ours}, them {other} cards · hand {hand}, "
                          "deal {deal}", other).format(
            mine=number(mine), theirs=number(theirs), ours=number(ours), other=number(other),
            hand=number(state.hand_no + 1), deal=number(state.deal_no + 1)) + "\n")
        t.append(_("Table:") + " ")
        t.append_text(cards_text(state.table))
        t.append("\n" + _("Your hand:") + " ")
        t.append_text(cards_text(state.hands[seat], numbered=True))
        played = [c for cards in state.played for c in cards]
        t.append("\n" + _("Played this deal:") + " ")
        t.append_text(cards_text(sorted(played), empty=_("nothing yet")))
        t.append("\n" + _("What do you play? (press {keys}, or enter on a move)").format(
            keys=keys(len(state.hands[seat]))), style="bold")
        self.query_one("#position", Static).update(t)

    def action_card(self, n: int) -> None:
        """Key n plays card n of the hand, as in play: its one move is the answer; where it has several (captures),
        the menu moves to them and enter picks one."""
        if self.drill is None or self.answered:
            return
        state = self.drill.state()
        hand = state.hands[self.drill.seat]
        if not 1 <= n <= len(hand):
            self.notify(ngettext("This hand has {n} card: press {keys}.", "This hand has {n} cards: press {keys}.",
                                 len(hand)).format(n=number(len(hand)), keys=keys(len(hand))), severity="warning")
            return
        options = [i for i, a in enumerate(self.moves) if ACTION_RANK[a] == hand[n - 1] >> 2]
        if len(options) == 1:
            self.answer(self.moves[options[0]])
            return
        menu = self.query_one("#drill-moves", OptionList)
        menu.highlighted = options[0]
        menu.focus()
        self.notify(ngettext("{n} move with that card: choose one and press enter.",
                             "{n} moves with that card: choose one and press enter.", len(options)).format(
            n=number(len(options))), timeout=4)

    @on(OptionList.OptionSelected, "#drill-moves")
    def picked(self, event: OptionList.OptionSelected) -> None:
        self.answer(int(event.option.id))

    def answer(self, action: int) -> None:
        """Judge the answer `action`, save the deck, and show the feedback."""
        if self.drill is None or self.answered:
            return
        right, text = self.drill.answer(action, self.now())
        self.answered, self.told = True, (right, text)
        try:
            self.deck = files.save_answered(self.drill)  # merged with drills another process added meanwhile
        except OSError as err:
            self.app.report_error(err)
        box = self.show_feedback()
        self.call_after_refresh(box.scroll_visible, animate=False)

    def show_feedback(self) -> Static:
        box = self.query_one("#feedback", Static)
        if self.told is None:
            box.update("")
            return box
        right, text = self.told
        out = Text(_("✓ Right.") + " " if right else _("✗ Not this one.") + " ",
                   style="bold green" if right else "bold red")
        out.append(text)
        out.append("\n" + _("Back {when} (box {box}). → for the next drill.").format(
            when=until(self.drill.due, self.now()), box=number(self.drill.box)), style="dim")
        box.update(out)
        return box

    def retranslate(self) -> None:
        """The drill on show in the language in use (an answer's feedback kept: the drill was judged once)."""
        if self.drill is None or not self.answered:
            self.serve()
            return
        state = self.drill.state()
        self.show_position(state, self.shown_due)
        self.fill_moves(state)
        self.show_feedback()

    def action_next(self) -> None:
        self.serve()
