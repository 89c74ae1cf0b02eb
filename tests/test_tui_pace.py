"""Keys pressed at a steady pace while the agent plays and the tutor checks (Pilot, real engine, shipped model): the
app never fails, says every wait in the hand's line (no toast, so none stacks up), makes every move once, and the
game it saves replays to what it shows.

The analysis is slowed on purpose (the app's `analysis_delay`) and the agent takes its time (`agent_delay`), each longer
than the time between two keys: at every pace keys land while the tutor checks a move and while the agent plays (and
while the tutor's warning or the capture choice is open)."""

import asyncio
import itertools

import pytest
from helpers import HANG, fixed, settle

from cuarenta_tutor import records
from cuarenta_tutor.engine import DECK_SIZE
from cuarenta_tutor.tui import make_app
from cuarenta_tutor.tui.dialogs import CaptureChoice, Notice
from cuarenta_tutor.tui.play import PlayScreen
from cuarenta_tutor.tui.tutor import TutorWarning
from cuarenta_tutor.tui.widgets import HandView

PACES = (0.05, 0.2, 0.45, 0.8, 1.0)
"""Seconds between two keys."""
SECONDS = 1
"""How long keys are pressed at each pace at the least; then on until the person has moved and keys have landed while
the tutor checked and while the agent played (WAITS), or the person has made MOST moves: a few moves, not a game."""
MOST = 8
"""(4 was too few once on a loaded CI machine: no key had landed during the tutor's check by the 4th move.)"""
WAITS = {"Wait: the tutor is checking", "Wait: the agent is playing"}
"""What the hand's line says to a key that comes while the person must wait."""
WARNING_KEYS = ("s", "t", "p")
"""The tutor's warning, answered in turn: show the better move, take it back, play it anyway."""


def plays_made(state) -> int:
    """Moves the table has made in the game so far, counted from its cards: every card dealt and not in a hand was
    played (each hand deals the whole deck)."""
    return state.hand_no * DECK_SIZE + DECK_SIZE - len(state.stock) - sum(len(hand) for hand in state.hands)


def next_key(app, i: int) -> str:
    """What a person hammering the keyboard presses next, for what the screen shows at the moment of pressing."""
    screen = app.screen
    if isinstance(screen, TutorWarning):
        return WARNING_KEYS[i % len(WARNING_KEYS)]
    if isinstance(screen, CaptureChoice):
        return str(1 + i % len(screen.options))
    if isinstance(screen, Notice):
        return "enter"
    hand = screen.session.state.hands[0] if isinstance(screen, PlayScreen) else ()
    # 2 only from three cards up: the move the tutor is checking may be played (a card fewer) before the key lands
    return "2" if i % 2 == 0 and len(hand) >= 3 else "1"


@pytest.mark.parametrize("pace", PACES)
async def test_keys_at_a_steady_pace_never_fail_and_every_move_is_made_once(pace):
    app = make_app(start="play", seed=19, dealer=1, tutor=True, agent_delay=1.5 * pace, analysis=fixed(4),
                   analysis_delay=1.5 * pace)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("h")  # the hints too ask the analysis, at every turn of yours
        play, said = app.screen, set()
        for i in itertools.count():
            moved = sum(move.seat == 0 for move in play.session.record.moves)
            if i * pace >= SECONDS and (WAITS <= said and moved or moved >= MOST):
                break
            assert i * pace < HANG, said  # a hang's guard only
            app.simulate_key(next_key(app, i))  # as a terminal sends it: the test does not wait for the app
            await asyncio.sleep(0.02)  # the key is taken
            said.add(play.query_one(HandView).notice)
            assert len(app.screen.query("Toast")) <= 1  # no toasts stacked up
            await asyncio.sleep(pace - 0.02)
        await settle(pilot)
        session = play.session
        assert play.tutor and not app.messages  # no toast, no error, no "not your turn": a wait is said in place
        record = session.record
        assert any(move.seat == 0 for move in record.moves)
        assert len(record.moves) == plays_made(session.state)  # every move the table made is recorded, once
        saved = records.load(app.record_path(record))
        assert saved.moves == record.moves
        assert records.replay(saved)[-1] == session.state  # the saved game replays to what the screen shows
        assert WAITS <= said  # keys came while the tutor checked and while the agent played: said in place
