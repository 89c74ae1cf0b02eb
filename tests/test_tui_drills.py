"""Drills, progress and weak spots in the app, driven by Pilot: a reviewed blunder becomes a drill, a wrong
answer comes back before a right one, the schedule survives closing the app, the progress screen plots the
games, and damaged files are reported without a crash or a loss."""

from datetime import datetime, timedelta, timezone

import pytest
from helpers import fixed, settle, worst_start

from cuarenta_tutor import coach, records
from cuarenta_tutor.app.session import GameSession
from cuarenta_tutor.coach import drills, stats
from cuarenta_tutor.tui import make_app
from cuarenta_tutor.tui.drills import DrillScreen
from cuarenta_tutor.tui.home import HomeScreen
from cuarenta_tutor.tui.review import ReviewGame
from cuarenta_tutor.tui.stats import StatsScreen

SIZE = (80, 24)
TINY = fixed(2)
"""The fewest worlds an analysis takes (the CLI's floor): it picks the person's worst moves and reviews them (what is
tested is what becomes of a mistake, not how sure the analysis is of it)."""


def reviewed_start(seed: int):
    """worst_start(seed) with the person's moves reviewed in TINY, stored in the record and saved again."""
    session = worst_start(seed)
    coach.store(session.record, coach.review(session.record, None, TINY), [0])
    records.save(session.record)
    return session


async def answer(pilot, screen: DrillScreen, action: int) -> str:
    """Pick `action` in the drill's move list with enter; the feedback shown."""
    menu = screen.query_one("#drill-moves")
    menu.highlighted = next(i for i in range(menu.option_count) if menu.get_option_at_index(i).id == str(action))
    await pilot.press("enter")
    await settle(pilot)
    return str(screen.query_one("#feedback").render())


@pytest.mark.usefixtures("one_process")
async def test_a_reviewed_blunder_becomes_a_drill_and_a_wrong_answer_comes_back_before_a_right_one():
    session = worst_start(seed=24)  # two mistakes or worse in TINY: moves 1 and 3
    path = records.games_dir() / f"{session.record.game_id}.json"
    app = make_app(start="review", game=path, agent_delay=0, review=TINY)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ReviewGame)
        assert any("2 new drills from your mistakes" in m for m in app.messages)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        menu = app.screen.query_one("#menu")
        assert any("Drills from your mistakes, 2 due" in str(menu.get_option_at_index(i).prompt)
                   for i in range(menu.option_count))
        await pilot.press("d")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DrillScreen)
        first = screen.drill
        assert "2 due" in str(screen.query_one("#title").render())
        shown = str(screen.query_one("#position").render())
        assert "Your hand:" in shown and "Played this deal:" in shown
        feedback = await answer(pilot, screen, first.played)  # what was played in the game: wrong
        assert "✗ Not this one." in feedback and "points below" in feedback and "Back now" in feedback
        await pilot.press("right")
        await settle(pilot)
        second = screen.drill
        assert second.id != first.id  # the other one waited longer
        feedback = await answer(pilot, screen, second.best["action"])
        assert "✓ Right." in feedback and "the best move" in feedback and "Back in 24 hours" in feedback
        await pilot.press("right")
        await settle(pilot)
        assert screen.drill.id == first.id  # the wrong one is back; the right one is not due
    deck = drills.load_deck()  # every answer was saved at once
    assert {d.id: (d.box, len(d.answers)) for d in deck.drills} == {first.id: (0, 1), second.id: (1, 1)}


async def test_the_schedule_survives_closing_the_app():
    session = worst_start(seed=24)
    found: list = []
    coach.review(session.record, None, TINY, drills=found)
    drills.add_drills(found)
    deck = drills.load_deck()
    now = datetime.now(timezone.utc)
    deck.drills[0].answer(deck.drills[0].best["action"], now)  # right: back tomorrow
    drills.save_deck(deck)
    app = make_app(start="drills", agent_delay=0)  # a new app, as after closing the last one
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, DrillScreen) and app.screen.drill.id == deck.drills[1].id
        await answer(pilot, app.screen, deck.drills[1].best["action"])
        await pilot.press("right")
        await settle(pilot)
        assert app.screen.drill is None and "next one is due in 24 hours" in str(
            app.screen.query_one("#position").render())
        await app.push_screen(DrillScreen(now=lambda: now + timedelta(days=2)))
        await settle(pilot)
        assert app.screen.drill is not None  # two days on, they are due again


async def test_the_progress_screen_plots_three_games_and_home_points_to_a_weak_spot(monkeypatch):
    for seed in (1, 7, 4):
        reviewed_start(seed)
    monkeypatch.setattr(stats, "REPEATED", 2)  # these three games leave a caída three times
    weak = stats.weak_spot(stats.load()[0])
    assert weak is not None and weak["count"] == 3
    app = make_app(agent_delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        shown = str(app.screen.query_one("#weak").render())
        assert f"Weak spot: {weak['kind']}, 3 times in your last 3 games" in shown and "Press w" in shown
        await pilot.press("w")
        await settle(pilot)
        assert app.screen.lesson.id == weak["lesson"]
        await pilot.press("escape")
        await pilot.press("s")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, StatsScreen) and len(screen.points) == 3
        text = str(screen.query_one("#stats-text").render())
        assert "3 games with you in them" in text and "Your level:" in text and "Mistakes by kind" in text
        app.save_screenshot("stats.svg", str(records.data_dir()))
        drawn = (records.data_dir() / "stats.svg").read_text()
        assert "Your&#160;accuracy&#160;per&#160;game" in drawn or "Your accuracy per game" in drawn


async def test_damaged_drills_stats_and_games_are_reported_on_home_and_kept():
    GameSession.new(seed=9, dealer=1)  # a saved game beside the damaged files
    data = records.data_dir()
    (data / "drills.json").write_text("{broken")
    (data / "stats.json").write_text("nope")
    (records.games_dir() / "cut.json").write_text('{"schema_version": 1, "moves": [')
    app = make_app(agent_delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        problems = str(app.screen.query_one("#problems").render())
        assert "drill deck" in problems and "cut.json" in problems
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, DrillScreen) and app.screen.drill is None
        assert any("drill deck" in m for m in app.messages)
    assert (data / "drills.json").read_text() == "{broken"  # reported, not replaced until a drill is saved
    assert (records.games_dir() / "cut.json").exists()
    assert [p.read_text() for p in data.glob("stats.damaged-*.json")] == ["nope"]
