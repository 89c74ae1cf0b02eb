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
from ..narrator import article, keys, move_name
from .widgets import cards_text


def until(due: str, when: datetime) -> str:
    """"in 3 days", "in 5 hours", "now"."""
    seconds = (datetime.fromisoformat(due) - when).total_seconds()
    if seconds <= 0:
        return "now"
    days, hours = seconds / 86400, seconds / 3600
    return f"in {days:.0f} days" if days >= 1.5 else f"in {max(1, round(hours))} hours"


class DrillScreen(Screen):
    """One due drill at a time: the position as you saw it, your moves, and feedback on the one you pick."""

    AUTO_FOCUS = "#drill-moves"
    BINDINGS = [Binding(str(i), f"card({i})", f"Card {i}", show=i == 1) for i in range(1, 6)] + [
        Binding("right", "next", "Next drill"), Binding("escape", "app.pop_screen", "Back")]

    def __init__(self, now=None):
        super().__init__()
        self.now = now or (lambda: datetime.now(timezone.utc))
        """The clock (tests move it forward to see the schedule)."""
        self.drill = None
        self.answered = False

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
        self.answered = False
        self.drill = due[0] if due else None
        if self.drill is None:
            upcoming = self.deck.next_due()
            self.query_one("#title", Static).update(Text("Drills", style="bold"))
            self.query_one("#position", Static).update(
                f"No drill is due; the next one is due {until(upcoming.due, when)}." if upcoming else
                "No drills yet. Review a game (r on the home screen): each of your mistakes and blunders becomes "
                "a drill here.")
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
        for action in self.moves:  # each with the key of its card, as in play
            menu.add_option(Option(f"[{key_of(state, action)}] {move_name(state, action)}", id=str(action)))
        menu.highlighted = 0
        menu.focus()

    def show_position(self, state, due: int) -> None:
        drill, seat = self.drill, self.drill.seat
        game = drill.game
        title = Text(f"Drill · {due} due · box {drill.box} of {len(files.BOX_DAYS) - 1} · "
                     f"{article(drill.kind)} from your game of {files.when_text(game['created'])}", style="bold")
        self.query_one("#title", Static).update(title)
        mine, theirs = state.scores[seat % 2], state.scores[1 - seat % 2]
        t = Text(f"Score: you {mine}, them {theirs} · cartón: you {len(state.piles[seat % 2])}, them "
                 f"{len(state.piles[1 - seat % 2])} cards · hand {state.hand_no + 1}, deal {state.deal_no + 1}\n")
        t.append("Table: ")
        t.append_text(cards_text(state.table))
        t.append("\nYour hand: ")
        t.append_text(cards_text(state.hands[seat], numbered=True))
        played = [c for cards in state.played for c in cards]
        t.append("\nPlayed this deal: ")
        t.append_text(cards_text(sorted(played), empty="nothing yet"))
        t.append(f"\nWhat do you play? (press {keys(len(state.hands[seat]))}, or enter on a move)", style="bold")
        self.query_one("#position", Static).update(t)

    def action_card(self, n: int) -> None:
        """Key n plays card n of the hand, as in play: its one move is the answer; where it has several (captures),
        the menu moves to them and enter picks one."""
        if self.drill is None or self.answered:
            return
        state = self.drill.state()
        hand = state.hands[self.drill.seat]
        if not 1 <= n <= len(hand):
            self.notify(f"This hand has {len(hand)} card{'s' if len(hand) != 1 else ''}: press {keys(len(hand))}.",
                        severity="warning")
            return
        options = [i for i, a in enumerate(self.moves) if ACTION_RANK[a] == hand[n - 1] >> 2]
        if len(options) == 1:
            self.answer(self.moves[options[0]])
            return
        menu = self.query_one("#drill-moves", OptionList)
        menu.highlighted = options[0]
        menu.focus()
        self.notify(f"{len(options)} moves with that card: choose one and press enter.", timeout=4)

    @on(OptionList.OptionSelected, "#drill-moves")
    def picked(self, event: OptionList.OptionSelected) -> None:
        self.answer(int(event.option.id))

    def answer(self, action: int) -> None:
        """Judge the answer `action`, save the deck, and show the feedback."""
        if self.drill is None or self.answered:
            return
        right, text = self.drill.answer(action, self.now())
        self.answered = True
        try:
            files.save_deck(self.deck)
        except OSError as err:
            self.app.report_error(err)
        out = Text("✓ Right. " if right else "✗ Not this one. ", style="bold green" if right else "bold red")
        out.append(text)
        out.append(f"\nBack {until(self.drill.due, self.now())} (box {self.drill.box}). → for the next drill.",
                   style="dim")
        box = self.query_one("#feedback", Static)
        box.update(out)
        self.call_after_refresh(box.scroll_visible, animate=False)

    def action_next(self) -> None:
        self.serve()
