"""The tutor in the app (Pilot, shipped model): refined hints with intervals, and a warning before a clear
mistake (never before the best move), with take back and the better move explained."""

from helpers import settle

from cuarenta_tutor.analysis import Settings
from cuarenta_tutor.analysis.classes import classify
from cuarenta_tutor.app.session import GameSession
from cuarenta_tutor.coach.advice import key_of
from cuarenta_tutor.engine import ACTION_RANK
from cuarenta_tutor.tui import make_app
from cuarenta_tutor.tui.play import CaptureChoice, PlayScreen
from cuarenta_tutor.tui.tutor import TutorWarning
from cuarenta_tutor.tui.widgets import HintsPanel

SIZE = (80, 24)
REPEATABLE = Settings(worlds=64, budget_s=0)
"""No time budget: the app's analysis and the test's own see the same worlds (64 of them: in 16, trailing A♥ below
is a mistake only in some, so no clear one)."""


async def press_move(pilot, session, action):
    """Press the keys that play `action`: its card, then its place in the capture choice if one opens."""
    await pilot.press(key_of(session.state, action))
    await settle(pilot)
    if isinstance(pilot.app.screen, CaptureChoice):
        card = next(c for c in session.state.hands[0] if c >> 2 == ACTION_RANK[action])
        options = [o.action for o in session.options_for(card)]
        await pilot.press(str(options.index(action) + 1))
        await settle(pilot)


async def test_refined_hints_show_intervals_and_the_star_marks_the_best_shown():
    app = make_app(start="play", seed=11, dealer=1, agent_delay=0, analysis=REPEATABLE)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        panel = app.screen.query_one(HintsPanel)
        hints = panel.hints
        assert hints and all(h.refined for h in hints)
        assert hints[0].win_pct == max(h.win_pct for h in hints)  # the star: the best by the numbers shown
        text = str(panel.render())
        assert "±" in text and "[refined]" in text and f"[{hints[0].key}]" in text


async def test_the_tutor_warns_before_a_clear_mistake_and_not_before_the_best_move():
    # your first move (the network's choice) and the agent's reply leave 2♦ 4♠ on the table: 6♦ takes both, a limpia,
    # and trailing A♥ instead is a clear mistake (it gives up the limpia and leaves the table open to one)
    game = GameSession.new(seed=0, dealer=1)
    while len(game.record.moves) < 2:
        game.play_human(game.hints()[0].action) if game.human_turn else game.play_agent()
    app = make_app(agent_delay=0, analysis=REPEATABLE)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")  # continue the game there
        await settle(pilot)
        play = app.screen
        assert isinstance(play, PlayScreen) and play.tutor
        session = play.session
        assert session.human_turn and len(session.record.moves) == 2
        result = session.analyse(session.position())
        bad = [m for m in result.moves if classify(m.loss, loss_ci95=m.loss_ci95).is_mistake_or_worse]
        assert bad, "this position offers a clear mistake"
        moves = len(session.record.moves)
        await press_move(pilot, session, bad[0].action)
        warning = app.screen
        assert isinstance(warning, TutorWarning) and len(session.record.moves) == moves
        await pilot.press("s")
        assert f"Better: {result.best.name}" in str(warning.query_one("#better").render())
        await pilot.press("t")  # take it back: nothing is played
        await settle(pilot)
        assert app.screen is play and len(session.record.moves) == moves and session.human_turn
        await press_move(pilot, session, result.best.action)  # the best move: no warning, it is played
        assert not isinstance(app.screen, TutorWarning)
        assert session.record.moves[moves].action == result.best.action
