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
from ..narrator import move_name
from .widgets import cards_text


class LessonList(Screen):
    """Every lesson, rules first, with how many of its positions you have solved."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("g", "first_game", "Play a game")]

    def compose(self) -> ComposeResult:
        yield Static("Lessons: the rules track teaches the game, the strategy track how to play it well.",
                     id="title")
        yield OptionList(id="lessons")
        yield Static(id="problems")
        yield Footer()

    def on_mount(self) -> None:
        try:
            self.lessons = files.load_lessons()
        except files.LessonError as err:
            self.lessons = []
            self.query_one("#problems", Static).update(f"The lessons could not be read: {err}")
        self.refill()

    def on_screen_resume(self) -> None:
        self.refill()

    def refill(self) -> None:
        progress = files.load_progress()
        menu = self.query_one(OptionList)
        highlighted = menu.highlighted
        menu.clear_options()
        for i, lesson in enumerate(self.lessons):
            done = "✓" if progress.done(lesson) else f"{100 * progress.fraction(lesson):.0f}%"
            menu.add_option(Option(f"{lesson.track.capitalize():<9}{lesson.order:>2}. {lesson.title:<48} {done}",
                                   id=str(i)))
        if self.lessons:
            menu.highlighted = highlighted or 0
        menu.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.app.push_screen(LessonView(self.lessons, int(event.option.id)))

    def action_first_game(self) -> None:
        self.app.start_game()


class LessonView(Screen):
    """A lesson's text, then its positions: pick a move (1-9), read the feedback, go on."""

    BINDINGS = [Binding(str(i), f"pick({i})", f"Move {i}", show=i == 1) for i in range(1, 10)] + [
        Binding("right", "position(1)", "Next position"), Binding("left", "position(-1)", "Previous position"),
        Binding("n", "lesson(1)", "Next lesson"), Binding("p", "lesson(-1)", "Previous lesson"),
        Binding("m", "to_position", "Position"), Binding("g", "first_game", "Play a game", show=False),
        Binding("escape", "app.pop_screen", "Lessons")]

    def __init__(self, lessons, index: int):
        super().__init__()
        self.lessons, self.index, self.pos = lessons, index, 0
        self.answered: tuple[bool, str] | None = None

    @property
    def lesson(self):
        return self.lessons[self.index]

    def compose(self) -> ComposeResult:
        yield Static("↓ / PgDn read on · m jumps to the position and your moves · 1-9 pick a move", id="lesson-keys")
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
        lesson = self.lesson
        self.query_one("#text", Markdown).update(f"## {lesson.title}\n\n{lesson.text}")
        self.pos, self.answered = 0, None
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
        t = Text(f"Position {self.pos + 1}/{len(lesson.positions)}{'  ✓ solved' if solved else ''}\n", style="bold")
        t.append(position.prompt + "\n")
        t.append("\n".join(files.seat_lines(state)) + "\nTable: ")
        t.append_text(cards_text(state.table))
        t.append("\nYour hand: ")
        t.append_text(cards_text(state.hands[0]))
        self.query_one("#position", Static).update(t)
        self.moves = list(legal_actions(state))
        listing = Text("Your move (press its number):\n", style="bold")
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
        out = Text("✓ Right. " if right else "✗ Not this one. ", style="bold green" if right else "bold red")
        out.append(text)
        if right:
            last = self.pos + 1 >= len(self.lesson.positions)
            out.append("\n→ next position" if not last else "\nLesson done: n for the next lesson", style="dim")
            if last and self.lesson is files.last_rules_lesson(self.lessons):
                out.append("\nYou know the rules now: press g to play your first game!", style="bold")
        box.update(out)

    def action_pick(self, n: int) -> None:
        if not self.lesson.positions or not 1 <= n <= min(9, len(self.moves)):
            return
        position = self.lesson.positions[self.pos]
        right, text = files.feedback(position, self.moves[n - 1])
        self.answered = (right, text)
        if right:
            progress = files.load_progress()
            progress.mark(self.lesson.id, position.id)
            files.save_progress(progress)
        self.show_position()
        self.call_after_refresh(self.query_one("#feedback", Static).scroll_visible, animate=False)

    def action_position(self, delta: int) -> None:
        count = len(self.lesson.positions)
        if count:
            self.pos = max(0, min(count - 1, self.pos + delta))
            self.answered = None
            self.show_position()

    def action_lesson(self, delta: int) -> None:
        self.index = max(0, min(len(self.lessons) - 1, self.index + delta))
        self.show_lesson()

    def action_first_game(self) -> None:
        self.app.start_game()
