"""The lessons screens driven by keys: feedback, progress that survives a restart, and the way to a first game."""

from helpers import settle

from cuarenta_tutor import lessons as lesson_data
from cuarenta_tutor.tui import make_app
from cuarenta_tutor.tui.lessons import LessonList, LessonView
from cuarenta_tutor.tui.play import PlayScreen

SIZE = (80, 24)


def key_of(view, action):
    return str(view.moves.index(action) + 1)


async def test_wrong_then_right_answer_and_progress_survives_a_restart():
    first = lesson_data.load_lessons()[0]
    position = first.positions[0]
    app = make_app(start="lessons", agent_delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LessonList)
        await pilot.press("enter")
        await settle(pilot)
        view = app.screen
        assert isinstance(view, LessonView) and view.lesson.id == first.id
        wrong = next(a for a in view.moves if a != position.answer)  # the first position offers a choice
        await pilot.press(key_of(view, wrong))
        right, text = view.answered
        assert not right and text and "Not this one" in str(view.query_one("#feedback").render())
        assert position.id not in lesson_data.load_progress().solved.get(first.id, ())
        await pilot.press(key_of(view, position.answer))
        assert view.answered[0] is True
        assert "Right" in str(view.query_one("#feedback").render())
    assert position.id in lesson_data.load_progress().solved[first.id]  # saved in the user data folder
    app = make_app(start="lessons", agent_delay=0)
    async with app.run_test(size=SIZE) as pilot:  # a fresh app sees the same progress
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert "solved" in str(app.screen.query_one("#position").render())


async def test_from_the_first_to_the_last_rules_lesson_then_a_first_game():
    all_lessons = lesson_data.load_lessons()
    last_rules = lesson_data.last_rules_lesson(all_lessons)
    app = make_app(start="lessons", agent_delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        view = app.screen
        while True:
            for i, position in enumerate(view.lesson.positions):
                view.pos = i
                view.show_position()
                await pilot.press(key_of(view, position.answer))
                assert view.answered[0]
            if view.lesson.id == last_rules.id:
                break
            await pilot.press("n")
        assert "first game" in str(view.query_one("#feedback").render())
        progress = lesson_data.load_progress()
        assert all(progress.done(lesson) for lesson in all_lessons if lesson.track == "rules")
        await pilot.press("g")
        await settle(pilot)
        assert isinstance(app.screen, PlayScreen)


async def test_at_80x24_the_lesson_says_how_to_reach_its_position_and_shows_the_feedback():
    first = lesson_data.load_lessons()[0]
    app = make_app(start="lessons", agent_delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        view = app.screen
        scroller = view.query_one("#lesson")
        moves = view.query_one("#moves")
        assert "m jumps to the position" in str(view.query_one("#lesson-keys").render())
        assert not scroller.region.contains_region(moves.region)  # the text fills the screen first
        await pilot.press("m")
        await settle(pilot)
        assert scroller.region.contains_region(moves.region)  # every move in sight
        await pilot.press(key_of(view, first.positions[0].answer))
        await settle(pilot)
        assert scroller.region.contains_region(view.query_one("#feedback").region)
