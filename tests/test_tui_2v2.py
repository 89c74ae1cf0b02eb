"""2 v 2 in the app, driven by Pilot: you and an agent partner against two agents, a seeded game played to the
end by key presses (a hint, a capture choice, a callout naming a seat and its team), resumed after closing
mid-game, and reviewed."""

import pytest
from helpers import fixed, settle

from cuarenta_tutor import records
from cuarenta_tutor.tui import make_app
from cuarenta_tutor.tui.play import CaptureChoice, Notice, PlayScreen
from cuarenta_tutor.tui.review import ReviewGame

SIZE = (80, 24)
SEED = 92
"""With the first card and the first capture every time, a game of 20 moves: capture choices before and after the
break, callouts naming a seat's team, and East dealt four of a kind at the end (the end of a hand: test_tui)."""
TINY = fixed(2)
"""The fewest worlds an analysis takes (the CLI's floor): the hint and the review are made, not weighed."""


def text(screen, selector: str) -> str:
    return str(screen.query_one(selector).render())


async def play_on(pilot, app, seen: dict, stop_after: int | None = None) -> None:
    """Press keys until the game is over (or `stop_after` moves of yours): the first card, the first capture
    offered, enter on every notice. `seen` collects what was shown along the way."""
    moves = 0
    while True:
        screen = app.screen
        if isinstance(screen, CaptureChoice):
            seen["capture"] = True
            await pilot.press("1")
        elif isinstance(screen, Notice):
            if screen.title_text.startswith(("Your team wins", "East and West win")):
                seen["over"] = screen.title_text
                return
            await pilot.press("enter")
        else:
            assert isinstance(screen, PlayScreen)
            seen.setdefault("callouts", []).append(text(screen, "#callout"))
            if stop_after is not None and moves >= stop_after:
                return
            moves += 1
            await pilot.press("1")
        await settle(pilot)


@pytest.mark.usefixtures("one_process")  # the review in this process (test_e2e_tmux: in worker processes)
async def test_a_seeded_2v2_game_is_played_resumed_and_reviewed_by_key_presses():
    app = make_app(start="play", seed=SEED, dealer=1, agent_delay=0, players=4, tutor=False, analysis=TINY,
                   review=TINY)
    seen: dict = {}
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        play = app.screen
        assert isinstance(play, PlayScreen) and play.session.state.rules.players == 4
        seats = text(play, "#seats")
        assert "North (partner)" in seats and "East" in seats and "West" in seats and "your turn" in seats
        assert "Your team" in text(play, "#score") and "Their team" in text(play, "#score")
        assert "played" in text(play, "#agent") and "their team win" in text(play, "#agent")  # West moved first
        await pilot.press("h")
        await settle(pilot)
        hints = text(play, "#hints")
        assert "★" in hints and "win % after" in hints and "%" in hints.split("\n")[1]
        await pilot.press("h")
        await play_on(pilot, app, seen, stop_after=3)
        game_id = play.session.record.game_id
        await pilot.press("escape")  # leave mid-game: saved after every move
        await settle(pilot)
    path = records.games_dir() / f"{game_id}.json"
    saved = records.load(path)
    assert len(saved.seats) == 4 and saved.result is None and [s.name for s in saved.seats][2] == "Partner"
    app = make_app(agent_delay=0, tutor=False, review=TINY)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")  # continue the unfinished 2 v 2 game
        await settle(pilot)
        play = app.screen
        assert isinstance(play, PlayScreen) and play.session.record.game_id == game_id
        assert len(play.session.record.moves) == len(saved.moves)
        await play_on(pilot, app, seen)
        assert seen["over"] and seen.get("capture")
        callouts = " ".join(seen["callouts"])
        assert "(the other team)" in callouts or "(your team)" in callouts  # a seat named with its team
        await pilot.press("r")  # review the finished game
        await settle(pilot)
        review = app.screen
        assert isinstance(review, ReviewGame) and len(review.record.seats) == 4
        assert "luck" in text(review, "#luck") and "Reviewed" in text(review, "#changes")
    finished = records.load(path)
    assert finished.result is not None  # reviewed and saved with its annotations (the agents' moves have none in play)
    assert any(m.seat != 0 and m.annotation and m.annotation["provenance"]["method"] == "analysis"
               for m in finished.moves)
