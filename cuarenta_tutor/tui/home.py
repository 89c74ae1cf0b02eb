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
from ..engine import PRESETS, preset_note
from ..i18n import N_, _, ngettext, number
from .words import preset_name

BANNER = N_("Cuarenta Tutor\nLearn and play Ecuador's fishing card game against a coaching agent.")


class NewGame(ModalScreen[files.NewGame | None]):
    """Rules preset, players, level of play, who deals first, an optional seed."""

    BINDINGS = [Binding("escape", "cancel", N_("Back"))]

    def __init__(self, level: str = "club"):
        super().__init__()
        self.level = level if level in files.LEVELS else "club"

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.styles.width = 76  # wider than the other dialogs: a level's line, in Spanish too, fits its list
            dialog.border_title = _("New game against the agent")
            yield Label(_("Rules"))
            yield Select([(preset_name(name), name) for name in PRESETS], value="standard", allow_blank=False,
                         id="rules")
            yield Static(preset_note("standard"), id="rules-note")
            yield Label(_("Players"))
            yield Select([(_("1 v 1: you against the agent"), 2),
                          (_("2 v 2: you and an agent partner against two agents"), 4)],
                         value=2, allow_blank=False, id="players")
            yield Label(_("Level of play"))
            rung = files.rung_name(files.load_ladder().spec)
            texts = {name: files.level_description(name) for name in files.LEVELS}
            texts["adaptive"] = _("{level} (now: {rung})").format(level=files.level_name("adaptive"), rung=rung)
            yield Select([(texts[name], name) for name in files.LEVELS], value=self.level, allow_blank=False,
                         id="level")
            with Horizontal(id="dealer-seed"):
                with Vertical():
                    yield Label(_("Who deals first"))
                    yield Select([(_("drawn at random"), "random"), (_("you"), "0"),
                                  (_("the agent (East in 2 v 2)"), "1")],
                                 value="random", allow_blank=False, id="dealer")
                with Vertical():
                    yield Label(_("Seed (same seed, same cards)"))
                    yield Input(placeholder=_("optional, a whole number"), id="seed", type="integer")
            yield Button(_("Start"), variant="primary", id="start")

    @on(Select.Changed, "#rules")
    def rules_chosen(self, event: Select.Changed) -> None:
        self.query_one("#rules-note", Static).update(preset_note(str(event.value)))

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

    def retranslate(self) -> None:
        """Drawn again in the language in use, with the choices made so far."""
        chosen = {name: self.query_one(f"#{name}", Select).value for name in ("rules", "players", "level", "dealer")}
        seed = self.query_one("#seed", Input).value

        async def redraw() -> None:
            await self.recompose()
            for name, value in chosen.items():
                self.query_one(f"#{name}", Select).value = value
            self.query_one("#seed", Input).value = seed
        self.call_later(redraw)


def model_label(path) -> str:
    """"cuarenta-a2c-lstm (967dfd4d, shipped)": a model's name, short sha256 and where it comes from."""
    path = Path(path)
    try:
        sha = files.file_sha256(path)[:8]
    except OSError:
        sha = _("missing")
    shipped = path.parent == files.default_model_path().parent
    if files.uncalibrated(path):
        text = _("{name} ({sha}, shipped, uncalibrated)") if shipped else _("{name} ({sha}, yours, uncalibrated)")
    else:
        text = _("{name} ({sha}, shipped)") if shipped else _("{name} ({sha}, yours)")
    return text.format(name=path.stem, sha=sha)


class ModelChoice(ModalScreen[Path | None]):
    """Pick the model the agent plays with: the shipped ones and the person's own (exported)."""

    BINDINGS = [Binding("escape", "cancel", N_("Back"))]

    def __init__(self, models: list, current: Path):
        super().__init__()
        self.models, self.current = models, current

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(_("The agent plays with a model (yours are in {folder})").format(folder=files.models_dir()))
            yield OptionList(*[Option(("● " if m == self.current else "  ") + model_label(m), id=str(i))
                               for i, m in enumerate(self.models)], id="choices")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.models[int(event.option.id)])

    def action_cancel(self) -> None:
        self.dismiss(None)

    def retranslate(self) -> None:
        self.refresh(recompose=True)


def game_label(game) -> str:
    """An unfinished game for the list to continue: "from 21 Nov 12:00 · 14 moves · Standard · 2 v 2"."""
    if game.players == 4:
        text = ngettext("from {when} · {n} move · {rules} · 2 v 2", "from {when} · {n} moves · {rules} · 2 v 2",
                        game.moves)
    else:
        text = ngettext("from {when} · {n} move · {rules}", "from {when} · {n} moves · {rules}", game.moves)
    return text.format(when=files.when_text(game.created), n=number(game.moves), rules=preset_name(game.rules_preset))


class ContinueChoice(ModalScreen[Path | None]):
    """Pick the unfinished game to continue, newest first."""

    BINDINGS = [Binding("escape", "cancel", N_("Back"))]

    def __init__(self, games: list):
        super().__init__()
        self.games = games

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(ngettext("{n} unfinished game, newest first (enter continues one)",
                                  "{n} unfinished games, newest first (enter continues one)",
                                  len(self.games)).format(n=number(len(self.games))))
            yield OptionList(*[Option(game_label(g), id=str(i)) for i, g in enumerate(self.games)], id="choices")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.games[int(event.option.id)].path)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def retranslate(self) -> None:
        self.refresh(recompose=True)


class HomeScreen(Screen):
    """New game, continue, review, lessons, settings, quit; the model the agent plays with."""

    BINDINGS = [Binding("n", "app.new_game", N_("New game"), show=False),  # the menu names these keys
                Binding("c", "continue_game", N_("Continue"), show=False),
                Binding("r", "app.review", N_("Review"), show=False),
                Binding("d", "app.drills", N_("Drills"), show=False),
                Binding("s", "app.stats", N_("Progress"), show=False),
                Binding("l", "app.lessons", N_("Lessons"), show=False),
                Binding("w", "weak_spot", N_("Weak spot"), show=False), Binding("m", "choose_model", N_("Model")),
                Binding("o", "app.settings", N_("Settings")), Binding("q", "app.quit", N_("Quit"), show=False)]

    def compose(self) -> ComposeResult:
        yield Static(_(BANNER), id="banner")
        yield OptionList(id="menu")
        yield Static(id="weak")
        yield Static(id="model")
        yield Static(id="problems")
        yield Footer()

    def show_model(self, label: str | None = None) -> None:
        """The model line, with the model's `label` (model_label: read from its file; None: read here)."""
        self.query_one("#model", Static).update(
            _("Model: {model}  (m to choose another)").format(model=label or model_label(self.app.model)))

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
        self.notify(_("The agent now plays with {model}.").format(model=model_label(path)))

    unfinished: list = []
    """The unfinished games (GameSummary), newest first, once the saved games have been read."""
    games: list = []
    problems: list = []
    """The saved games and what was wrong reading them, as last read (drawn again in another language)."""
    weak = None
    """The kind of mistake repeated in the recent games (coach.stats.weak_spot), once read."""
    due = 0
    """Drills due now."""

    class GamesRead(Message):
        """The saved games, read in a worker: (summaries, problems, drills due, weak spot, kept, model label)."""

        def __init__(self, games: list, problems: list, due: int = 0, weak: dict | None = None,
                     kept: list = (), model: tuple | None = None) -> None:
            super().__init__()
            self.games, self.problems, self.due, self.weak, self.kept = games, problems, due, weak, list(kept)
            self.model = model
            """(the agent's model, its label: model_label), read with them."""

    def on_screen_resume(self) -> None:  # on the first showing too, after on_mount
        self.call_after_refresh(self.read_games)  # the menu drawn first: the reading imports the coach (the analysis)

    def on_mount(self) -> None:
        self.refill([], [])

    @work(thread=True, exclusive=True, group="home")
    def read_games(self) -> None:
        """Read the games folder, the drills, the progress and the model's file off the event loop (they may be
        many, and the modules that read them are the analysis's)."""
        games, skipped = files.list_games(self.app.folder)
        model = self.app.model
        deck = files.load_deck()
        history, more = files.load_stats(self.app.folder)
        ladder = files.load_ladder()  # the adaptive level: a damaged file is kept aside and said here, as the others
        problems = [_("Skipped a saved file: {problem}").format(problem=p) for p in skipped] + deck.problems + [
            p for p in more if p not in skipped]
        self.post_message(self.GamesRead(games, problems, len(deck.due()), files.weak_spot(history),
                                         [ladder.problem] if ladder.problem else [], (model, model_label(model))))

    told: tuple = ()
    """Problems of files kept aside when read (the level file): said once by the read that moved them, kept on show
    for this visit, as a later read finds the file gone."""

    @on(GamesRead)
    def games_read(self, message: GamesRead) -> None:
        self.due, self.weak = message.due, message.weak
        self.told = tuple(dict.fromkeys(self.told + tuple(message.kept)))
        self.refill(message.games, list(dict.fromkeys(list(message.problems) + list(self.told))))
        self.show_weak()
        model, label = message.model or (None, None)
        self.show_model(label if model == self.app.model else None)  # another since (app.model_checked): read again

    def show_weak(self) -> None:
        weak = self.weak
        if not weak:
            self.query_one("#weak", Static).update("")
            return
        self.query_one("#weak", Static).update(ngettext(
            "Weak spot: {kind}, {count} times in your last {games} game. Press w for the lesson that teaches it.",
            "Weak spot: {kind}, {count} times in your last {games} games. Press w for the lesson that teaches it.",
            weak["games"]).format(kind=files.kind_label(weak["kind"]), count=number(weak["count"]),
                                  games=number(weak["games"])))

    def retranslate(self) -> None:
        """Every word again, in the language in use (the games as last read)."""
        self.query_one("#banner", Static).update(_(BANNER))
        menu = self.query_one(OptionList)
        highlighted = menu.highlighted
        self.refill(self.games, self.problems)
        menu.highlighted = highlighted
        self.show_model()
        self.show_weak()

    def action_weak_spot(self) -> None:
        if self.weak:
            self.app.open_lesson(self.weak["lesson"])

    def refill(self, games: list, problems: list) -> None:
        self.games, self.problems = games, problems
        menu = self.query_one(OptionList)
        menu.clear_options()
        menu.add_option(Option(_("New game  (n)"), id="new"))
        self.unfinished = [g for g in games if not g.finished]  # newest first, as listed
        if len(self.unfinished) == 1:
            menu.add_option(Option(_("Continue unfinished game from {when}  (c)").format(
                when=files.when_text(self.unfinished[0].created)), id="continue"))
        elif self.unfinished:
            count = len(self.unfinished)
            menu.add_option(Option(ngettext("Continue one of {n} unfinished game  (c)",
                                            "Continue one of {n} unfinished games  (c)", count).format(
                n=number(count)), id="continue"))
        menu.add_option(Option(_("Review saved games  (r)"), id="review"))
        drills = ngettext("Drills from your mistakes, {n} due  (d)", "Drills from your mistakes, {n} due  (d)",
                          self.due).format(n=number(self.due)) if self.due else _("Drills from your mistakes  (d)")
        menu.add_option(Option(drills, id="drills"))
        menu.add_option(Option(_("Your progress  (s)"), id="stats"))
        menu.add_option(Option(_("Lessons  (l)"), id="lessons"))
        menu.add_option(Option(_("Settings  (o)"), id="settings"))
        menu.add_option(Option(_("Quit  (q)"), id="quit"))
        menu.focus()
        self.query_one("#problems", Static).update("\n".join(problems[:3]))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        action = {"new": self.app.action_new_game, "continue": self.action_continue_game,
                  "review": self.app.action_review, "lessons": self.app.action_lessons,
                  "drills": self.app.action_drills, "stats": self.app.action_stats,
                  "settings": self.app.action_settings, "quit": self.app.exit}[event.option.id]
        action()

    def action_continue_game(self) -> None:
        if not self.unfinished:
            self.notify(_("There is no unfinished game."), severity="warning")
            return
        if len(self.unfinished) == 1:
            self.app.continue_game(self.unfinished[0].path)
            return
        self.app.push_screen(ContinueChoice(self.unfinished),
                             lambda path: self.app.continue_game(path) if path is not None else None)
