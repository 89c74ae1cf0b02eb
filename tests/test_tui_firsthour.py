"""The first hour at 80x24 (issue 37): what a new player meets, each checked on a position or a screen built for it."""

from helpers import settle

from cuarenta_tutor.tui import make_app

SIZE = (80, 24)


async def test_the_help_scrolls_by_keyboard_to_the_end_of_the_glossary():
    from cuarenta_tutor.tui.app import HelpScreen

    app = make_app(agent_delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        scroll = app.screen.query_one("#help")
        assert scroll.max_scroll_y > 0  # the help is longer than the screen
        await pilot.press("down")
        await settle(pilot)
        assert scroll.scroll_y == 1
        await pilot.press("pagedown")
        await settle(pilot)
        assert scroll.scroll_y > 1
        await pilot.press("end")
        await settle(pilot)
        assert scroll.scroll_y == scroll.max_scroll_y
        await pilot.press("pageup")
        await settle(pilot)
        assert scroll.scroll_y < scroll.max_scroll_y
        await pilot.press("home")
        await settle(pilot)
        assert scroll.scroll_y == 0
