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
from ..narrator import why_better


def warning_for(analysis, action: int, preset: str = "standard") -> Class | None:
    """The class of a move worth a warning (a mistake or a blunder, the interval supporting it), or None."""
    move = analysis.move(action)
    klass = classify(move.loss, preset, move.loss_ci95)
    return klass if klass.is_mistake_or_worse else None


class TutorWarning(ModalScreen[str]):
    """Asks before a losing move; dismisses with "play" or "back"."""

    BINDINGS = [Binding("p", "choose('play')", "Play it anyway"), Binding("t", "choose('back')", "Take it back"),
                Binding("s", "show", "Show the better move"), Binding("escape", "choose('back')", "Back", show=False)]

    def __init__(self, state, analysis, action: int, klass: Class):
        super().__init__()
        self.state, self.analysis, self.action, self.klass = state, analysis, action, klass

    def compose(self) -> ComposeResult:
        move = self.analysis.move(self.action)
        with Vertical(id="dialog"):
            yield Static(Text(f"Tutor: {move.name} looks like a {self.klass}", style="bold yellow"))
            yield Static(f"It keeps your win at {coaching.analysis_win(self.analysis, move)}, "
                         f"{move.loss:.0f} points below the best move ({self.analysis.where}).",
                         id="warning")
            yield Static(id="better")
            yield Static(Text("[p] play it anyway   [t] take it back   [s] show the better move", style="dim"))
        yield Footer()

    def action_show(self) -> None:
        best, move = self.analysis.best, self.analysis.move(self.action)
        risks = {m.action: (m.caida_risk, m.limpia_risk) for m in (best, move)}
        reasons = why_better(self.state, self.action, best.action, risks)
        text = f"Better: {best.name} ({best.win_pct:.0f}%)."
        if reasons:
            text += f" {move.name} " + "; ".join(reasons) + "."
        self.query_one("#better", Static).update(text)

    def action_choose(self, value: str) -> None:
        self.dismiss(value)
