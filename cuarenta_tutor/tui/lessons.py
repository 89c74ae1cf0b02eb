"""Provides the lessons screens: the list with progress, and a lesson with its interactive positions."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Markdown, OptionList, Static
from textual.widgets.option_list import Option

from ..app import files
from ..engine import legal_actions
from ..i18n import N_, _, percent
from ..narrator import move_name
from .widgets import cards_text

TRACKS = {"rules": N_("Rules"), "strategy": N_("Strategy")}
"""Each track of lessons by its name (translated where shown)."""
MOVES = (N_("Move 1"), N_("Move 2"), N_("Move 3"), N_("Move 4"), N_("Move 5"), N_("Move 6"), N_("Move 7"),
         N_("Move 8"), N_("Move 9"))
"""The descriptions of the number keys of a lesson's position."""


class LessonList(Screen):
    """Every lesson, rules first, with how many of its positions you have solved."""

    BINDINGS = [Binding("escape", "app.pop_screen", N_("Back")), Binding("g", "first_game", N_("Play a game"))]
    lessons: list = []

    def compose(self) -> ComposeResult:
        yield Static(_("Lessons: the rules track teaches the game, the strategy track how to play it well."),
                     id="title")
        yield OptionList(id="lessons")
        yield Static(id="problems")
        yield Footer()

    def on_mount(self) -> None:
        try:
            self.lessons = files.load_lessons()
        except files.LessonError as err:
            self.lessons = []
            self.query_one("#problems", Static).update(_("The lessons could not be read: {error}").format(error=err))
        self.refill()

    def on_screen_resume(self) -> None:
        self.refill()

    def retranslate(self) -> None:
        self.query_one("#title", Static).update(
            _("Lessons: the rules track teaches the game, the strategy track how to play it well."))
        self.refill()

    def refill(self) -> None:
        progress = files.load_progress()
        menu = self.query_one(OptionList)
        highlighted = menu.highlighted
        menu.clear_options()
        tracks = {lesson.track: _(TRACKS[lesson.track]) if lesson.track in TRACKS else lesson.track.capitalize()
                  for lesson in self.lessons}
        track_width = max((len(name) for name in tracks.values()), default=0) + 1
        titles = [_(lesson.title) for lesson in self.lessons]
        title_width = min(max([57 - track_width, *map(len, titles)]), 66 - track_width)  # the % column aligned
        for i, (lesson, title) in enumerate(zip(self.lessons, titles, strict=True)):
            done = "✓" if progress.done(lesson) else percent(100 * progress.fraction(lesson))
            menu.add_option(Option(f"{tracks[lesson.track]:<{track_width}}{lesson.order:>2}. "
                                   f"{title:<{title_width}} {done}", id=str(i)))
        if self.lessons:
            menu.highlighted = highlighted or 0
        menu.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.app.push_screen(LessonView(self.lessons, int(event.option.id)))

    def action_first_game(self) -> None:
        self.app.start_game()


def keys_line() -> str:
    """The line above a lesson that says how to read it and answer (made when shown: the language may change)."""
    return _("↓ / PgDn read on · m jumps to the position and your moves · 1-9 pick a move")


class LessonView(Screen):
    """A lesson's text, then its positions: pick a move (1-9), read the feedback, go on."""

    BINDINGS = [Binding(str(i), f"pick({i})", MOVES[i - 1], show=False) for i in range(1, 10)] + [
        Binding("right", "position(1)", N_("Next position")),
        Binding("left", "position(-1)", N_("Previous position")),
        Binding("n", "lesson(1)", N_("Next lesson")), Binding("p", "lesson(-1)", N_("Previous lesson")),
        Binding("m", "to_position", N_("Position"), show=False),  # the line of keys above the lesson names m, 1-9
        Binding("g", "first_game", N_("Play a game"), show=False),
        Binding("escape", "app.pop_screen", N_("Lessons"))]

    def __init__(self, lessons, index: int):
        super().__init__()
        self.lessons, self.index, self.pos = lessons, index, 0
        self.answered: tuple[bool, str] | None = None
        """(whether the move picked is the answer, the feedback on it), once picked."""
        self.picked: int | None = None
        """The move picked at this position (its feedback is told again in another language)."""

    @property
    def lesson(self):
        return self.lessons[self.index]

    def compose(self) -> ComposeResult:
        yield Static(keys_line(), id="lesson-keys")
        with VerticalScroll(id="lesson"):
            yield Markdown(id="text")
            yield Static(id="position")
            yield Static(id="moves")
            yield Static(id="feedback")
        yield Footer()

    def on_mount(self) -> None:
        self.show_lesson()
        self.query_one("#lesson", VerticalScroll).focus()  # the arrows and PgDn scroll the lesson

    def action_to_position(self) -> None:
        """Scroll the position and the moves into view (at 80x24 the lesson's text fills the screen)."""
        self.query_one("#position", Static).scroll_visible(top=True, animate=False)

    def show_lesson(self) -> None:
        self.pos, self.answered, self.picked = 0, None, None
        self.show_text()
        self.show_position()

    def show_text(self) -> None:
        lesson = self.lesson
        self.query_one("#text", Markdown).update("## {title}\n\n{text}".format(title=_(lesson.title),
                                                                                 text=_(lesson.text)))

    def retranslate(self) -> None:
        """The lesson, its position and the feedback on show, in the language in use (where the reader was)."""
        self.query_one("#lesson-keys", Static).update(keys_line())
        self.show_text()
        if self.picked is not None and self.answered is not None:
            self.answered = files.feedback(self.lesson.positions[self.pos], self.picked)
        self.show_position()

    def show_position(self) -> None:
        lesson = self.lesson
        progress = files.load_progress()
        if not lesson.positions:
            self.query_one("#position", Static).update("")
            return
        position = lesson.positions[self.pos]
        state = position.state
        solved = position.id in progress.solved.get(lesson.id, ())
        heading = _("Position {n}/{count}  ✓ solved") if solved else _("Position {n}/{count}")
        t = Text(heading.format(n=self.pos + 1, count=len(lesson.positions)) + "\n", style="bold")
        t.append(_(position.prompt) + "\n")
        t.append("\n".join(files.seat_lines(state)) + "\n" + _("Table:") + " ")
        t.append_text(cards_text(state.table))
        t.append("\n" + _("Your hand:") + " ")
        t.append_text(cards_text(state.hands[0]))
        self.query_one("#position", Static).update(t)
        self.moves = list(legal_actions(state))
        listing = Text(_("Your move (press its number):") + "\n", style="bold")
        for i, action in enumerate(self.moves[:9]):
            listing.append(f"  {i + 1}. {move_name(state, action)}\n")
        self.query_one("#moves", Static).update(listing)
        self.show_feedback()

    def show_feedback(self) -> None:
        box = self.query_one("#feedback", Static)
        if self.answered is None:
            box.update("")
            return
        right, text = self.answered
        out = Text(_("✓ Right.") + " " if right else _("✗ Not this one.") + " ",
                   style="bold green" if right else "bold red")
        out.append(text)
        if right:
            last = self.pos + 1 >= len(self.lesson.positions)
            out.append("\n" + (_("→ next position") if not last else _("Lesson done: n for the next lesson")),
                       style="dim")
            if last and self.lesson is files.last_rules_lesson(self.lessons):
                out.append("\n" + _("You know the rules now: press g to play your first game!"), style="bold")
        box.update(out)

    def action_pick(self, n: int) -> None:
        if not self.lesson.positions or not 1 <= n <= min(9, len(self.moves)):
            return
        position = self.lesson.positions[self.pos]
        right, text = files.feedback(position, self.moves[n - 1])
        self.answered, self.picked = (right, text), self.moves[n - 1]
        if right:
            files.mark_solved(self.lesson.id, position.id)  # merged with progress another process saved
        self.show_position()
        self.call_after_refresh(self.query_one("#feedback", Static).scroll_visible, animate=False)

    def action_position(self, delta: int) -> None:
        count = len(self.lesson.positions)
        if count:
            self.pos = max(0, min(count - 1, self.pos + delta))
            self.answered = self.picked = None
            self.show_position()

    def action_lesson(self, delta: int) -> None:
        self.index = max(0, min(len(self.lessons) - 1, self.index + delta))
        self.show_lesson()

    def action_first_game(self) -> None:
        self.app.start_game()
