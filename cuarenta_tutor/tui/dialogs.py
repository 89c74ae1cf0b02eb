"""Provides the play screen's dialogs: the capture choice, and the end-of-hand / game-over notice. Each (the tutor's
warning too: tutor.py) sits at the bottom of the screen, below your hand (`BelowTheHand`): the scoreboard, the table
and your hand stay in sight while it asks."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from ..i18n import N_, _
from .widgets import card_text

OPTIONS = (N_("Option 1"), N_("Option 2"), N_("Option 3"), N_("Option 4"), N_("Option 5"), N_("Option 6"),
           N_("Option 7"), N_("Option 8"), N_("Option 9"))
"""The descriptions of the number keys of a choice (keys panel)."""


class BelowTheHand(ModalScreen):
    """A dialog of the play screen laid over the hints and the graph only: its box (#dialog) at the bottom, at most as
    tall as the rows below the hand of the screen under it, so the scoreboard, the table and your hand stay in sight.
    Where the box would not hold all of its text there (2 v 2's taller table on 80x24), its line of keys (`.keys`: the
    footer shows them too) gives way; what still does not fit scrolls inside it."""

    def on_mount(self) -> None:
        self.fit_below()

    def on_resize(self) -> None:
        self.fit_below()

    def fit_below(self) -> None:
        under = self.app.screen_stack[-2] if len(self.app.screen_stack) > 1 else None
        hands = under.query("#hand") if under is not None else ()
        if not hands:
            return
        footer = 1 if self.query(Footer) else 0
        room = self.size.height - hands.first().region.bottom - footer
        self.query_one("#dialog").styles.max_height = max(3, room)
        for keys in self.query(".keys"):
            keys.display = True
        self.call_after_refresh(self.trim)

    def trim(self) -> None:
        """Hide the box's line of keys where the box scrolls with it (the footer says the same keys)."""
        if self.query_one("#dialog").max_scroll_y > 0:
            for keys in self.query(".keys"):
                keys.display = False


def with_card(template: str, card: int) -> Text:
    """A translated sentence with `{card}` in it, the card drawn in its colours there."""
    before, _sep, after = template.partition("{card}")
    return Text.assemble(before, card_text(card), after)


class CaptureChoice(BelowTheHand, ModalScreen[int | None]):
    """Pick what a card takes (or trail it); dismisses with the action id, None on escape."""

    BINDINGS = [Binding("escape", "cancel", N_("Back"))] + [
        Binding(str(i), f"pick({i})", OPTIONS[i - 1], show=False) for i in range(1, 10)]

    def __init__(self, card: int, options: list, names: list[str]):
        super().__init__()
        self.card, self.options, self.names = card, options, names

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(with_card(_("What does {card} take?  (number, arrows + enter, esc)"), self.card))
            yield OptionList(*[Option(f"{i + 1}. {name}", id=str(i)) for i, name in enumerate(self.names)],
                             id="choices")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.options[int(event.option.id)].action)

    def action_pick(self, n: int) -> None:
        if 1 <= n <= len(self.options):
            self.dismiss(self.options[n - 1].action)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def retranslate(self) -> None:
        self.refresh(recompose=True)


class Notice(BelowTheHand, ModalScreen[str]):
    """A short summary (end of hand, game over) with some of these choices; the others are hidden."""

    BINDINGS = [Binding("enter", "choose('go')", N_("Next hand")),
                Binding("r", "choose('review')", N_("Review this game")),
                Binding("n", "choose('new')", N_("New game")), Binding("escape", "choose('home')", N_("Home"))]

    def __init__(self, title: str, body: str, choices: tuple[str, ...]):
        super().__init__()
        self.title_text, self.body, self.choices = title, body, choices

    def compose(self) -> ComposeResult:
        offered = [b for b in self.BINDINGS if b.action.split("'")[1] in self.choices]
        with Vertical(id="dialog"):
            yield Static(Text(self.title_text, style="bold"))
            yield Static(self.body)
            yield Static(Text("   ".join(f"[{b.key}] {_(b.description)}" for b in offered), style="dim"),
                         classes="keys")
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action != "choose" or parameters[0] in self.choices

    def action_choose(self, value: str) -> None:
        self.dismiss(value)

    def retranslate(self) -> None:
        self.refresh(recompose=True)
