"""Provides the progress screen: your accuracy per game as a plot, mistakes by kind, results by opponent and
your level (coach/stats.py), read in a worker."""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static
from textual_plotext import PlotextPlot

from ..app import files
from ..i18n import N_, _


class StatsScreen(Screen):
    """Accuracy over time, then the figures as text."""

    BINDINGS = [Binding("escape", "app.pop_screen", N_("Back"))]

    points: list = []
    """(game number, accuracy) plotted, once read."""

    class Read(Message):
        def __init__(self, games: list, problems: list) -> None:
            super().__init__()
            self.games, self.problems = games, problems

    def compose(self) -> ComposeResult:
        yield Static(_("Your progress"), id="title")
        yield PlotextPlot(id="accuracy-plot")
        yield Static(_("Reading your saved games…"), id="stats-text")
        yield Footer()

    def on_mount(self) -> None:
        self.read()

    def retranslate(self) -> None:
        """Drawn again in the language in use (the games read again: the figures' text is made as they are read)."""
        self.query_one("#title", Static).update(_("Your progress"))
        self.read()

    @work(thread=True, exclusive=True, group="stats")
    def read(self) -> None:
        self.post_message(self.Read(*files.load_stats(self.app.folder)))

    @on(Read)
    def shown(self, message: Read) -> None:
        games = message.games
        reviewed = [(i + 1, g.accuracy) for i, g in enumerate(games) if g.accuracy is not None]
        self.points = reviewed
        plot = self.query_one(PlotextPlot)
        plt = plot.plt
        plt.clear_data()
        plt.title(_("Your accuracy per game (%)"))
        plt.xlabel(_("game"))
        plt.ylim(0, 100)
        if reviewed:
            plt.plot([x for x, _ in reviewed], [y for _, y in reviewed], marker="dot")
            step = max(1, len(games) // 8)
            plt.xticks(list(range(1, len(games) + 1, step)))
        plot.refresh()
        lines = files.report_text(games).splitlines()
        text = [lines[0]] + [line for line in lines[1:] if not line.startswith("  ")]  # the plot shows the games
        if not reviewed:
            text.append(_("Review a game (r on the home screen) to see your accuracy here."))
        text += [_("Skipped: {problem}").format(problem=p) for p in message.problems[:3]]
        self.query_one("#stats-text", Static).update("\n".join(text))
