"""Provides the Textual app: screens, commands, and error reports as messages (never a traceback)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.command import CommandPalette
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static

from ..app import files
from ..i18n import N_, _, language, paragraphs
from . import words
from .home import HomeScreen, NewGame

# The play and review screens, the game session and the analysis behind them (numba, onnxruntime, numpy) are
# imported where they are first used, and by `CuarentaApp.warm` in a worker once the first screen is drawn: the home
# screen opens without them (tests/test_fast_start.py).

HELP = Path(__file__).with_name("help.md")


class HelpScreen(Screen):
    """The keys and the glossary, in a focused scroll: arrows, PgUp/PgDn, Home/End reach all of it."""

    AUTO_FOCUS = "#help"
    BINDINGS = [Binding("escape", "app.pop_screen", N_("Back"))]
    shown_in = ""
    """The language of the text on show (the screen is kept: a later opening in another language redraws it)."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):  # one rich renderable, not a widget a block: it opens at once
            yield Static(self.text())
        yield Footer()

    def text(self):
        """The help in the language in use, paragraph by paragraph (i18n.paragraphs; catalogs.DOCS)."""
        from rich.markdown import Markdown as RichMarkdown  # markdown-it: only when the help opens

        self.shown_in = language()
        return RichMarkdown(paragraphs(HELP.read_text(encoding="utf-8")))

    def retranslate(self) -> None:
        if self.shown_in != language():
            self.query_one("#help Static", Static).update(self.text())

    def on_screen_resume(self) -> None:
        self.retranslate()
        self.query_one("#help", VerticalScroll).scroll_home(animate=False)  # each opening starts at the top


class CuarentaApp(App):
    """Cuarenta Tutor. `folder` overrides where games are saved (tests use a temporary one)."""

    CSS_PATH = "tutor.tcss"
    TITLE = "Cuarenta Tutor"
    SCREENS = {"help": HelpScreen}  # made on its first opening and kept: it opens at once after that
    BINDINGS = [Binding("question_mark", "help", N_("Help")), Binding("f1", "help", N_("Help"), show=False),
                Binding("ctrl+q", "quit", N_("Quit"))]

    def __init__(self, folder=None, model_path=None, start: str = "home", seed: int | None = None,
                 rules: str = "standard", game=None, agent_delay: float = 0.4, dealer: int | None = None,
                 tutor: bool | None = None, analysis=None, review=None, seat: int | None = None,
                 level: str | None = None, players: int = 2, new_game: files.NewGame | None = None,
                 analysis_delay: float = 0.0):
        super().__init__()
        words.install()  # every footer shows its keys in the language in use
        self.new_game = new_game or files.NewGame(rules=rules, players=players, level=level, dealer=dealer,
                                                    seed=seed)
        """The game opened at start (`play`), and the players and level of the lessons' first game; `rules`,
        `seed`, `dealer`, `level` and `players` are a shorthand for it."""
        self.folder = Path(folder) if folder else None
        self.settings, self.settings_problems = files.read_settings()
        """The person's settings, read once here (what they change is kept with change_settings), and what was
        wrong with their file (told when the app opens); the model they name is checked to load in `warm`."""
        self.model_path = model_path or self.settings.model
        """The model the agent plays with: given, else the person's choice (home, m), else None: the shipped one."""
        self.start, self.game = start, game
        self.agent_delay = agent_delay
        """Seconds the agent waits before its move, so a person sees it come."""
        self.analysis_delay = analysis_delay
        """Seconds the analysis worker waits before it starts: tests slow the tutor on purpose with it."""
        self.analysis = analysis
        """Analysis settings for new sessions (None: the model's own; tests fix them for repeatable numbers)."""
        self.review = review
        """Analysis settings for reviews (None: coach.review_settings, the model's own)."""
        self.seat = seat
        """The seat to review in the game opened at start (None: the person's, or every seat)."""
        self.tutor = self.settings.tutor if tutor is None else tutor
        """Tutor mode for new play screens (the person's setting, unless the app was made with one)."""
        self.messages: list[str] = []
        """Every notification shown, in order (what a person has been told; tests read it)."""

    @property
    def model(self) -> Path:
        """The model file the agent plays with."""
        return Path(self.model_path) if self.model_path else files.default_model_path()

    def on_mount(self) -> None:
        self.push_screen(HomeScreen())
        for problem in self.settings_problems:
            self.notify(problem, title=_("Your settings"), severity="warning", timeout=12, markup=False)
        if self.start == "home":  # the first screen drawn first; what a game needs loads while the person reads it
            self.call_after_refresh(self.warm)
        else:  # the screen asked for needs the model now, and says itself what is wrong with it
            self.model_checked(self.ModelChecked(*files.drop_unusable_model(self.settings)))
            self.warm(tell=False)
        if self.start == "play":
            self.start_game(self.new_game)
        elif self.start == "lessons":
            self.action_lessons()
        elif self.start == "drills":
            self.action_drills()
        elif self.start == "review":
            self.open_review(self.game, self.seat) if self.game else self.action_review()

    class ModelChecked(Message):
        """The person's settings with their model checked to load (files.drop_unusable_model), and what was wrong."""

        def __init__(self, settings: files.Settings, problems: list[str]) -> None:
            super().__init__()
            self.settings, self.problems = settings, problems

    class ModelUnusable(Message):
        """The agent's model does not load (files.ModelError): said on the home screen."""

        def __init__(self, error: str) -> None:
            super().__init__()
            self.error = error

    @work(thread=True, group="warm", exit_on_error=False)
    def warm(self, tell: bool = True) -> None:
        """Load what the first game needs, off the event loop while the home screen is read: the person's model checked
        (a damaged one dropped and told), the agent's model loaded (onnxruntime; one that does not load told, unless
        not `tell`), the compiled core warmed in a thread of its own (session.warm_core: numba), and the game's and the
        review's screens imported (the analysis). Each is done again where it is needed, and a problem said there: a
        failure here stops nothing."""
        model = self.model
        settings, problems = files.drop_unusable_model(self.settings)
        if problems:
            self.post_message(self.ModelChecked(settings, problems))
            if self.model_path == self.settings.model:  # the dropped one (model_checked forgets it): the shipped one
                model = files.default_model_path()
        from ..app.session import warm_core

        warm_core()
        try:
            files.load_session(model)  # kept by the process: the first game opens at once
        except files.ModelError as err:  # the home command does not check it before the app opens
            if tell:
                self.post_message(self.ModelUnusable(str(err)))
        from . import play, review  # noqa: F401 (imported here so that opening them does not wait)

    @on(ModelUnusable)
    def model_unusable(self, message: ModelUnusable) -> None:
        self.notify(message.error, title=_("The agent's model"), severity="error", timeout=12, markup=False)

    @on(ModelChecked)
    def model_checked(self, message: ModelChecked) -> None:
        """The person's model checked: one that does not load is dropped (from the settings, and as the agent's
        model where it was that), and told."""
        settings, problems = message.settings, message.problems
        gone = self.settings.model
        if settings.model is None and gone is not None:
            self.settings = replace(self.settings, model=None)
            if self.model_path == gone:
                self.model_path = None
            show = getattr(self.screen, "show_model", None)
            if callable(show):
                show()
        for problem in problems:
            self.notify(problem, title=_("Your settings"), severity="warning", timeout=12, markup=False)

    def get_system_commands(self, screen):
        for command in super().get_system_commands(screen):  # Textual's own, in words.TEXTUAL_WORDS
            yield command._replace(title=_(command.title), help=_(command.help))
        yield SystemCommand(_("New game"), _("Play a new game against the agent"), self.action_new_game)
        yield SystemCommand(_("Review games"), _("Step through saved games with the coach's notes"),
                            self.action_review)
        yield SystemCommand(_("Lessons"), _("Learn the rules and the strategy"), self.action_lessons)
        yield SystemCommand(_("Drills"), _("Solve the positions of your mistakes again"), self.action_drills)
        yield SystemCommand(_("Progress"), _("Your accuracy over time, mistakes by kind, your level"),
                            self.action_stats)
        yield SystemCommand(_("Settings"), _("The language of the tutor, and the tutor mode"), self.action_settings)
        yield SystemCommand(_("Help"), _("Keys and the rules in brief"), self.action_help)

    def action_command_palette(self) -> None:
        if self.use_command_palette and not CommandPalette.is_open(self):
            self.push_screen(CommandPalette(placeholder=_("Search for commands…"), id="--command-palette"))

    # ---- navigation ----------------------------------------------------------------------
    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen("help")

    def action_settings(self) -> None:
        from .settings import SettingsScreen

        if not isinstance(self.screen, SettingsScreen):
            self.push_screen(SettingsScreen())

    def retranslate(self) -> None:
        """Show the language now in use at once: every screen on the stack redraws its words (its `retranslate`,
        where it has one: the screens compute their words when they draw them), and every footer its keys."""
        for screen in self.screen_stack:
            redraw = getattr(screen, "retranslate", None)
            if callable(redraw):
                redraw()
            screen.refresh_bindings()
        self.refresh(layout=True)

    def action_new_game(self) -> None:
        self.push_screen(NewGame(self.settings.level), self.new_game_chosen)

    def new_game_chosen(self, choice: files.NewGame | None) -> None:
        if choice is None:
            return
        if choice.level is not None and self.settings.level != choice.level:
            self.change_settings(level=choice.level)
        self.start_game(choice)

    def action_review(self) -> None:
        from .review import ReviewList

        self.push_screen(ReviewList())

    def action_lessons(self) -> None:
        from .lessons import LessonList

        self.push_screen(LessonList())

    def open_lesson(self, lesson_id: str) -> None:
        """The lesson with this id (a weak spot's)."""
        from .lessons import LessonView

        try:
            found = files.load_lessons()
        except files.LessonError as err:
            self.report_error(err)
            return
        index = next((i for i, lesson in enumerate(found) if lesson.id == lesson_id), None)
        if index is None:
            self.notify(_("There is no lesson {lesson}.").format(lesson=repr(lesson_id)), severity="warning")
            return
        self.push_screen(LessonView(found, index))

    def action_drills(self) -> None:
        from .drills import DrillScreen

        self.push_screen(DrillScreen())

    def action_stats(self) -> None:
        from .stats import StatsScreen

        self.push_screen(StatsScreen())

    def start_game(self, options: files.NewGame | None = None) -> None:
        """A new game with `options` (None: the standard rules, with the players and level the app was opened
        with); a level of None is the person's last choice (settings)."""
        if options is None:
            options = files.NewGame(players=self.new_game.players, level=self.new_game.level)
        level = options.level or self.settings.level
        from ..app.session import GameSession

        if options.players == 4 and level == "adaptive":
            level = "club"  # the adaptive level follows one person's results: 1 v 1 only
            self.notify(_("Adaptive is for 1 v 1 games: this 2 v 2 game is at club level."))
        self.open_play(lambda: GameSession.new(options.rules, options.seed, options.dealer, self.model_path,
                                               self.folder, level, options.players))

    def continue_game(self, path) -> None:
        from ..app.session import GameSession

        self.open_play(lambda: GameSession.resume(path, self.model_path, self.folder))

    def explore(self, record, ply: int) -> None:
        """A new game from move `ply` of a saved one (which is not touched)."""
        from ..app.session import GameSession

        if self.open_play(lambda: GameSession.explore(record, ply, self.model_path, self.folder)):
            self.notify(_("A new game from this point; the reviewed game stays as it was."))

    def open_play(self, make_session) -> bool:
        """Open the play screen on the session `make_session()` builds; a problem is a message. Whether it opened."""
        from .play import PlayScreen

        try:
            session = make_session()
            if self.analysis is not None:
                session.analysis_settings = self.analysis
        except (files.ModelError, files.RecordError, OSError, ValueError) as err:
            self.report_error(err)
            return False
        self.push_screen(PlayScreen(session, tutor=self.tutor))
        return True

    def open_review(self, path, seat: int | None = None) -> None:
        from .review import ReviewGame

        try:
            screen = ReviewGame(path, seat)
        except (files.RecordError, OSError, ValueError) as err:
            self.report_error(err)
            return
        self.push_screen(screen)

    def record_path(self, record) -> Path:
        return (self.folder or files.games_dir()) / f"{record.game_id}.json"

    def change_settings(self, **changes) -> None:
        """Keep changed settings (a new value) and write them; a file that cannot be written is a message."""
        self.settings = replace(self.settings, **changes)
        try:  # only these fields, on the file as it is now (another process may have changed others)
            self.settings, told = files.update_settings(**changes)
        except OSError as err:
            self.report_error(err)
            return
        for problem in told:
            self.notify(problem, title=_("Your settings"), severity="warning", timeout=12, markup=False)

    # ---- errors: a message, never a traceback ---------------------------------------------
    def notify(self, message: str, *, title: str = "", severity="information", timeout=None, markup=True) -> None:
        self.messages.append(str(message))
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def report_error(self, err: BaseException) -> None:
        where = self.folder or files.games_dir()
        self.notify(_("{error}\n(Your games are saved after every move in {folder}.)").format(error=err, folder=where),
                    title=_("Something went wrong"), severity="error", timeout=12, markup=False)


def make_app(**options) -> CuarentaApp:
    """The app, configured (tests and the CLI use this factory)."""
    return CuarentaApp(**options)
