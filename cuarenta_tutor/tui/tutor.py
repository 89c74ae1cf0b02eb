"""Provides the tutor's warning: before a move that loses at least a mistake's worth (and clearly, by the
analysis's interval), the person is asked to play it anyway, take it back, or see the better move and why."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from ..app import coaching
from ..app.coaching import Class, classify
from ..i18n import N_, _, number, percent
from ..narrator import move_name, why_better
from .dialogs import BelowTheHand


def warning_for(analysis, action: int, preset: str = "standard") -> Class | None:
    """The class of a move worth a warning (a mistake or a blunder, the interval supporting it), or None."""
    move = analysis.move(action)
    klass = classify(move.loss, preset, move.loss_ci95)
    return klass if klass.is_mistake_or_worse else None


class TutorWarning(BelowTheHand, ModalScreen[str]):
    """Asks before a losing move, below your hand (the score and the table in sight); dismisses with "play" or
    "back"."""

    BINDINGS = [Binding("p", "choose('play')", N_("Play it anyway")),
                Binding("t", "choose('back')", N_("Take it back")),
                Binding("s", "show", N_("Show the better move")),
                Binding("escape", "choose('back')", N_("Back"), show=False)]

    def __init__(self, state, analysis, action: int, klass: Class):
        super().__init__()
        self.state, self.analysis, self.action, self.klass = state, analysis, action, klass

    def compose(self) -> ComposeResult:
        move = self.analysis.move(self.action)
        with Vertical(id="dialog"):
            yield Static(Text(_("Tutor: {move} looks like {klass}").format(move=move_name(self.state, self.action),
                                                                            klass=self.klass.with_article),
                              style="bold yellow"))
            yield Static(_("It keeps your win at {win}, {loss} points below the best move ({where}).").format(
                win=coaching.analysis_win(self.analysis, move), loss=number(move.loss), where=self.analysis.where),
                id="warning")
            yield Static(self.better if self.shown else "", id="better")
            yield Static(Text(_("[p] play it anyway   [t] take it back   [s] show the better move"), style="dim"),
                         classes="keys")
        yield Footer()

    shown = False
    """Whether the better move is on show (s)."""

    @property
    def better(self) -> str:
        """The better move and why, in the narrator's words."""
        best, move = self.analysis.best, self.analysis.move(self.action)
        risks = {m.action: (m.caida_risk, m.limpia_risk) for m in (best, move)}
        reasons = why_better(self.state, self.action, best.action, risks)
        text = _("Better: {best} ({win}).").format(best=move_name(self.state, best.action), win=percent(best.win_pct))
        if reasons:
            text += " " + _("{move} {reasons}.").format(move=move_name(self.state, self.action),
                                                        reasons="; ".join(reasons))
        return text

    def action_show(self) -> None:
        self.shown = True
        self.query_one("#better", Static).update(self.better)
        self.call_after_refresh(self.fit_below)  # the box grew: its keys' line may give way

    def retranslate(self) -> None:
        self.recompose()

    def action_choose(self, value: str) -> None:
        self.dismiss(value)
