"""Provides the play screen (you against the agent), the capture choice and the end-of-hand / game-over dialogs."""

from __future__ import annotations

import asyncio

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, OptionList, Sparkline, Static
from textual.widgets.option_list import Option

from ..engine import GameWon, HandEnded, card_str
from ..session import AGENT, GameSession
from .widgets import AgentPanel, HintsPanel, Scoreboard, TableView, card_text, cards_text, move_name


class CaptureChoice(ModalScreen[int | None]):
    """Pick what a card takes (or trail it); dismisses with the action id, None on escape."""

    BINDINGS = [Binding("escape", "cancel", "Back")] + [
        Binding(str(i), f"pick({i})", f"Option {i}", show=False) for i in range(1, 10)]

    def __init__(self, card: int, options: list[dict], names: list[str]):
        super().__init__()
        self.card, self.options, self.names = card, options, names

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text.assemble("What does ", card_text(self.card), " take?  (number, arrows + enter, esc)"))
            yield OptionList(*[Option(f"{i + 1}. {name}", id=str(i)) for i, name in enumerate(self.names)],
                             id="choices")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.options[int(event.option.id)]["action"])

    def action_pick(self, n: int) -> None:
        if 1 <= n <= len(self.options):
            self.dismiss(self.options[n - 1]["action"])

    def action_cancel(self) -> None:
        self.dismiss(None)


class Notice(ModalScreen[str]):
    """A short summary (end of hand, game over) with a few keyed choices."""

    def __init__(self, title: str, body: str, choices: list[tuple[str, str, str]]):
        super().__init__()
        self.title_text, self.body, self.choices = title, body, choices
        for key, value, label in choices:
            self._bindings.bind(key, f"choose('{value}')", label)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text(self.title_text, style="bold"))
            yield Static(self.body)
            yield Static(Text("   ".join(f"[{k}] {label}" for k, _, label in self.choices), style="dim"))
        yield Footer()

    def action_choose(self, value: str) -> None:
        self.dismiss(value)


class PlayScreen(Screen):
    """The game: scoreboard, agent panel, table, callouts, your hand, hints and your win % line."""

    BINDINGS = [Binding(str(i), f"card({i})", f"Card {i}", show=i == 1) for i in range(1, 6)] + [
        Binding("h", "toggle_hints", "Hints"),
        Binding("escape", "leave", "Home (saved)"),
    ]

    def __init__(self, session: GameSession):
        super().__init__()
        self.session = session
        self.show_hints = False
        self.agent_seen = None  # (state before, decision, name) of the agent's last move

    def compose(self) -> ComposeResult:
        yield Scoreboard(id="score")
        yield AgentPanel(id="agent")
        yield TableView(id="table")
        yield Static(id="callout")
        yield Static(id="hand")
        yield HintsPanel(id="hints")
        yield Static(id="winlabel")
        yield Sparkline([], id="winline")
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_view(self.session.last.callouts if self.session.last else [])
        self.continue_game()

    # ---- drawing -------------------------------------------------------------------------
    def refresh_view(self, notes=()) -> None:
        s = self.session
        state = s.state
        self.query_one(Scoreboard).show(state)
        self.query_one(TableView).show(state)
        before, decision, name = self.agent_seen or (None, None, "")
        self.query_one(AgentPanel).show(before, decision, name)
        hand = Text("Your hand: ", style="bold")
        hand.append_text(cards_text(state.hands[0], numbered=True, empty="(no cards)"))
        if state.hands[0]:
            hand.append(" ")
        if s.over:
            hand.append("   game over", style="bold")
        elif s.human_turn:
            hand.append("   your turn: press 1-5", style="green")
        else:
            hand.append("   agent is thinking…", style="dim")
        self.query_one("#hand", Static).update(hand)
        self.query_one("#callout", Static).update(Text("  ".join(notes), style="bold yellow") if notes else "")
        hints = self.query_one(HintsPanel)
        hints.display = self.show_hints and s.human_turn
        if hints.display:
            hints.show(s.hints())
        history = s.win_history
        self.query_one("#winlabel", Static).update(
            f"Your win % after each of your moves: {history[-1]:.0f}% now" if history else
            "Your win % after each of your moves appears here")
        line = self.query_one(Sparkline)
        line.display = len(history) >= 2
        line.data = history

    # ---- your moves ----------------------------------------------------------------------
    def action_card(self, n: int) -> None:
        s = self.session
        if not s.human_turn:
            self.notify("It is not your turn yet." if not s.over else "The game is over.", severity="warning")
            return
        hand = s.state.hands[0]
        if not 1 <= n <= len(hand):
            self.notify(f"You have {len(hand)} card(s): press 1-{len(hand)}.", severity="warning")
            return
        card = hand[n - 1]
        options = s.options_for(card)
        if len(options) == 1:
            self.play(options[0]["action"], card)
            return
        names = [("trail: leave the " + card_str(card) + " on the table") if o["kind"] == "trail"
                 else move_name(s.state, o["action"]) for o in options]
        self.app.push_screen(CaptureChoice(card, options, names),
                             lambda action: self.play(action, card) if action is not None else None)

    def play(self, action: int, card: int) -> None:
        try:
            report = self.session.play_human(action, card)
        except Exception as err:  # never a traceback: say what happened; the record is saved each move
            self.app.report_error(err)
            return
        note = report.annotation
        extra = [f"Coach: {note.klass} ({note.win_after:.0f}% after; best {note.best_name} {note.win_best:.0f}%)"
                 ] if note and note.klass in ("inaccuracy", "mistake", "blunder") else []
        self.after_move(report, report.callouts + extra)

    def action_toggle_hints(self) -> None:
        self.show_hints = not self.show_hints
        self.refresh_view(self.session.last.callouts if self.session.last else [])

    def action_leave(self) -> None:
        self.app.pop_screen()
        self.app.notify("Game saved: continue it from the home screen." if not self.session.over else "Game saved.")

    # ---- the flow of the game ------------------------------------------------------------
    def after_move(self, report, notes) -> None:
        self.refresh_view(notes)
        hand_end = next((e for e in report.events if isinstance(e, HandEnded)), None)
        won = next((e for e in report.events if isinstance(e, GameWon)), None)
        if won is not None:
            self.game_over()
        elif hand_end is not None:
            s = self.session.state
            c = hand_end.carton
            body = (f"Cards captured: you {hand_end.captured[0]}, agent {hand_end.captured[1]}"
                    f"  (left on the table: {len(hand_end.leftover)})\n"
                    f"Cartón: you +{c[0]}, agent +{c[1]}\nScore: you {s.scores[0]}, agent {s.scores[1]}\n"
                    f"Next hand: {'you deal' if s.dealer == 0 else 'the agent deals'}.")
            self.app.push_screen(Notice(f"End of hand {hand_end.hand_no + 1}", body,
                                        [("enter", "go", "Next hand")]), lambda _: self.continue_game())
        else:
            self.continue_game()

    def continue_game(self) -> None:
        if not self.session.over and self.session.state.turn == AGENT:
            self.agent_turn()

    @work(exclusive=True, group="agent")
    async def agent_turn(self) -> None:
        await asyncio.sleep(self.app.agent_delay)
        s = self.session
        if s.over or s.state.turn != AGENT:
            return
        before = s.state
        try:
            report = s.play_agent()
        except Exception as err:
            self.app.report_error(err)
            return
        self.agent_seen = (before, report.decision, move_name(before, report.action) + f" ({card_str(report.card)})")
        self.after_move(report, report.callouts)

    def game_over(self) -> None:
        s = self.session.state
        you_won = s.winner == 0
        body = f"Final score: you {s.scores[0]}, agent {s.scores[1]}.\nThe game is saved for review."
        self.app.push_screen(Notice("You win!" if you_won else "The agent wins.", body,
                                    [("r", "review", "Review this game"), ("n", "new", "New game"),
                                     ("escape", "home", "Home")]), self.after_game)

    def after_game(self, choice: str | None) -> None:
        path = self.app.record_path(self.session.record)
        self.app.pop_screen()
        if choice == "review":
            self.app.open_review(path)
        elif choice == "new":
            self.app.action_new_game()
