"""Provides the home screen and the new-game dialog."""

from __future__ import annotations

from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from ..app import files
from ..engine import PRESET_NOTES, PRESETS

LEVEL_TEXT = {"beginner": "beginner: the agent, with half its moves at random",
              "club": "club: the agent (the trained network)",
              "strong": "strong: the agent with its search, half a second a move",
              "adaptive": "adaptive: follows your results, one step a game"}
BANNER = "Cuarenta Tutor\nLearn and play Ecuador's fishing card game against a coaching agent."


class NewGame(ModalScreen[files.NewGame | None]):
    """Rules preset, players, level of play, who deals first, an optional seed."""

    BINDINGS = [Binding("escape", "cancel", "Back")]

    def __init__(self, level: str = "club"):
        super().__init__()
        self.level = level if level in files.LEVELS else "club"

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = "New game against the agent"
            yield Label("Rules")
            yield Select([(name, name) for name in PRESETS], value="standard", allow_blank=False, id="rules")
            yield Static(PRESET_NOTES["standard"], id="rules-note")
            yield Label("Players")
            yield Select([("1 v 1: you against the agent", 2),
                          ("2 v 2: you and an agent partner against two agents", 4)],
                         value=2, allow_blank=False, id="players")
            yield Label("Level of play")
            rung = files.rung_name(files.load_ladder().spec)
            texts = {**LEVEL_TEXT, "adaptive": f"{LEVEL_TEXT['adaptive']} (now: {rung})"}
            yield Select([(texts[name], name) for name in files.LEVELS], value=self.level, allow_blank=False,
                         id="level")
            with Horizontal(id="dealer-seed"):
                with Vertical():
                    yield Label("Who deals first")
                    yield Select([("drawn at random", "random"), ("you", "0"), ("the agent (East in 2 v 2)", "1")],
                                 value="random", allow_blank=False, id="dealer")
                with Vertical():
                    yield Label("Seed (same seed, same cards)")
                    yield Input(placeholder="optional, a whole number", id="seed", type="integer")
            yield Button("Start", variant="primary", id="start")

    @on(Select.Changed, "#rules")
    def rules_chosen(self, event: Select.Changed) -> None:
        self.query_one("#rules-note", Static).update(PRESET_NOTES.get(str(event.value), ""))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.start()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.start()

    def start(self) -> None:
        seed_text = self.query_one("#seed", Input).value.strip()
        dealer = self.query_one("#dealer", Select).value
        self.dismiss(files.NewGame(rules=self.query_one("#rules", Select).value,
                                     players=self.query_one("#players", Select).value,
                                     level=self.query_one("#level", Select).value,
                                     dealer=None if dealer == "random" else int(dealer),
                                     seed=int(seed_text) if seed_text else None))

    def action_cancel(self) -> None:
        self.dismiss(None)


def model_label(path) -> str:
    """"cuarenta-a2c-lstm (967dfd4d, shipped)": a model's name, short sha256 and where it comes from."""
    path = Path(path)
    try:
        sha = files.file_sha256(path)[:8]
    except OSError:
        sha = "missing"
    where = "shipped" if path.parent == files.default_model_path().parent else "yours"
    return f"{path.stem} ({sha}, {where}{', uncalibrated' if files.uncalibrated(path) else ''})"


class ModelChoice(ModalScreen[Path | None]):
    """Pick the model the agent plays with: the shipped ones and the person's own (exported)."""

    BINDINGS = [Binding("escape", "cancel", "Back")]

    def __init__(self, models: list, current: Path):
        super().__init__()
        self.models, self.current = models, current

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(f"The agent plays with a model (yours are in {files.models_dir()})")
            yield OptionList(*[Option(("● " if m == self.current else "  ") + model_label(m), id=str(i))
                               for i, m in enumerate(self.models)], id="choices")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.models[int(event.option.id)])

    def action_cancel(self) -> None:
        self.dismiss(None)


def game_label(game) -> str:
    """An unfinished game for the list to continue: "from 21 Nov 12:00 · 14 moves · standard · 2 v 2"."""
    mode = " · 2 v 2" if game.players == 4 else ""
    return f"from {files.when_text(game.created)} · {game.moves} moves · {game.rules_preset or 'custom'}{mode}"


class ContinueChoice(ModalScreen[Path | None]):
    """Pick the unfinished game to continue, newest first."""

    BINDINGS = [Binding("escape", "cancel", "Back")]

    def __init__(self, games: list):
        super().__init__()
        self.games = games

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(f"{len(self.games)} unfinished games, newest first (enter continues one)")
            yield OptionList(*[Option(game_label(g), id=str(i)) for i, g in enumerate(self.games)], id="choices")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.games[int(event.option.id)].path)

    def action_cancel(self) -> None:
        self.dismiss(None)


class HomeScreen(Screen):
    """New game, continue, review, lessons, quit; the model the agent plays with."""

    BINDINGS = [Binding("n", "app.new_game", "New game"), Binding("c", "continue_game", "Continue"),
                Binding("r", "app.review", "Review"), Binding("d", "app.drills", "Drills"),
                Binding("s", "app.stats", "Progress"), Binding("l", "app.lessons", "Lessons"),
                Binding("w", "weak_spot", "Weak spot", show=False), Binding("m", "choose_model", "Model"),
                Binding("q", "app.quit", "Quit")]

    def compose(self) -> ComposeResult:
        yield Static(BANNER, id="banner")
        yield OptionList(id="menu")
        yield Static(id="weak")
        yield Static(id="model")
        yield Static(id="problems")
        yield Footer()

    def show_model(self) -> None:
        self.query_one("#model", Static).update(f"Model: {model_label(self.app.model)}  (m to choose another)")

    def action_choose_model(self) -> None:
        self.app.push_screen(ModelChoice(files.available_models(), self.app.model), self.model_chosen)

    def model_chosen(self, path: Path | None) -> None:
        if path is None:
            return
        try:
            files.load_session(path)  # a damaged file is refused here, not at the first move
        except files.ModelError as err:
            self.app.report_error(err)
            return
        self.app.model_path = None if path == files.default_model_path() else path
        self.app.change_settings(model=self.app.model_path)
        self.show_model()
        self.notify(f"The agent now plays with {model_label(path)}.")

    unfinished: list = []
    """The unfinished games (GameSummary), newest first, once the saved games have been read."""
    weak = None
    """The kind of mistake repeated in the recent games (coach.stats.weak_spot), once read."""
    due = 0
    """Drills due now."""

    class GamesRead(Message):
        """The saved games, read in a worker: (summaries, problems, drills due, weak spot)."""

        def __init__(self, games: list, problems: list, due: int = 0, weak: dict | None = None) -> None:
            super().__init__()
            self.games, self.problems, self.due, self.weak = games, problems, due, weak

    def on_screen_resume(self) -> None:
        self.read_games()

    def on_mount(self) -> None:
        self.refill([], [])
        self.show_model()
        self.read_games()

    @work(thread=True, exclusive=True, group="home")
    def read_games(self) -> None:
        """Read the games folder, the drills and the progress off the event loop (they may be many)."""
        games, skipped = files.list_games(self.app.folder)
        deck = files.load_deck()
        history, more = files.load_stats(self.app.folder)
        problems = [f"Skipped a saved file: {p}" for p in skipped] + deck.problems + [p for p in more
                                                                                     if p not in skipped]
        self.post_message(self.GamesRead(games, problems, len(deck.due()), files.weak_spot(history)))

    @on(GamesRead)
    def games_read(self, message: GamesRead) -> None:
        self.due, self.weak = message.due, message.weak
        self.refill(message.games, message.problems)
        self.query_one("#weak", Static).update(
            f"Weak spot: {self.weak['kind']}, {self.weak['count']} times in your last {self.weak['games']} "
            f"games. Press w for the lesson that teaches it." if self.weak else "")

    def action_weak_spot(self) -> None:
        if self.weak:
            self.app.open_lesson(self.weak["lesson"])

    def refill(self, games: list, problems: list) -> None:
        menu = self.query_one(OptionList)
        menu.clear_options()
        menu.add_option(Option("New game  (n)", id="new"))
        self.unfinished = [g for g in games if not g.finished]  # newest first, as listed
        if len(self.unfinished) == 1:
            menu.add_option(Option(f"Continue unfinished game from {files.when_text(self.unfinished[0].created)}  (c)",
                                   id="continue"))
        elif self.unfinished:
            menu.add_option(Option(f"Continue one of {len(self.unfinished)} unfinished games  (c)", id="continue"))
        menu.add_option(Option("Review saved games  (r)", id="review"))
        menu.add_option(Option(f"Drills from your mistakes{f', {self.due} due' if self.due else ''}  (d)",
                               id="drills"))
        menu.add_option(Option("Your progress  (s)", id="stats"))
        menu.add_option(Option("Lessons  (l)", id="lessons"))
        menu.add_option(Option("Quit  (q)", id="quit"))
        menu.focus()
        self.query_one("#problems", Static).update("\n".join(problems[:3]))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        action = {"new": self.app.action_new_game, "continue": self.action_continue_game,
                  "review": self.app.action_review, "lessons": self.app.action_lessons,
                  "drills": self.app.action_drills, "stats": self.app.action_stats,
                  "quit": self.app.exit}[event.option.id]
        action()

    def action_continue_game(self) -> None:
        if not self.unfinished:
            self.notify("There is no unfinished game.", severity="warning")
            return
        if len(self.unfinished) == 1:
            self.app.continue_game(self.unfinished[0].path)
            return
        self.app.push_screen(ContinueChoice(self.unfinished),
                             lambda path: self.app.continue_game(path) if path is not None else None)
