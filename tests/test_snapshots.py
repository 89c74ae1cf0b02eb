"""Pictures of every screen at 80x24 (pytest-textual-snapshot): home, new game, model choice, play with hints,
review, lesson list, a lesson, help. (The review list is checked with Pilot instead: its DataTable splits the
same picture into different segments from run to run.)

After a deliberate change (or a new shipped model), look at the report, then refresh them with
`python -m pytest tests/test_snapshots.py --snapshot-update`.
"""

import pytest
from helpers import drawn, fixed, pressing, settle, worst_start

from cuarenta_tutor import records
from cuarenta_tutor.tui import make_app

SIZE = (80, 24)
REPEATABLE = fixed(16)
"""Analysis without a time budget: the same worlds every run, so the refined hints' picture stays put (16 of them, to
be quick)."""


def test_home(snap_compare):
    assert snap_compare(make_app(agent_delay=0), terminal_size=SIZE, run_before=settle)


def test_play_with_hints(snap_compare):
    app = make_app(start="play", seed=11, dealer=1, agent_delay=0, analysis=REPEATABLE)
    assert snap_compare(app, terminal_size=SIZE, run_before=pressing("h"))


def fixed_game():
    """The first six moves of a game in which the person plays the move an analysis in two worlds likes least, its
    record with fixed dates, so the picture does not change with the clock."""
    session = worst_start(1)
    record = session.record
    old = records.games_dir() / f"{record.game_id}.json"
    record.game_id, record.created, record.updated = "20261121-120000-abcdef", "2026-11-21T12:00:00", \
        "2026-11-21T12:30:00"
    old.unlink()
    return records.save(record)


@pytest.mark.usefixtures("one_process")
def test_review(snap_compare):
    """The review's toast about new drills lasts a few seconds, so whether it is still up depends on how long the
    review took: the picture is taken without it (test_tui_drills checks the message). The review analyses in this
    process (test_e2e_tmux reviews in worker processes: the same annotations)."""
    path = fixed_game()
    few = fixed(2)  # two worlds: a mistake at move 3 of this game (worlds seeded from what the seat knows)
    app = make_app(start="review", game=str(path), agent_delay=0, review=few)
    keys = pressing("right", "n")

    async def before(pilot):
        await keys(pilot)
        pilot.app.clear_notifications()
        await drawn(pilot, "luck vs skill")  # a busy machine may lay the review's last line out frames late
    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_new_game_dialog(snap_compare):
    assert snap_compare(make_app(agent_delay=0), terminal_size=SIZE, run_before=pressing("n"))


def test_lesson_at_its_position(snap_compare):
    assert snap_compare(make_app(start="lessons", agent_delay=0), terminal_size=SIZE, run_before=pressing("enter", "m"))


def test_lesson_list(snap_compare):
    assert snap_compare(make_app(start="lessons", agent_delay=0), terminal_size=SIZE, run_before=settle)


def test_help(snap_compare):
    assert snap_compare(make_app(agent_delay=0), terminal_size=SIZE, run_before=pressing("question_mark"))


def test_model_choice(snap_compare, monkeypatch):
    import shutil
    from pathlib import Path

    home = Path("/tmp/cuarenta-tutor-snapshot-home")  # the dialog names the folder: the same one every run
    shutil.rmtree(home, ignore_errors=True)
    monkeypatch.setenv("CUARENTA_TUTOR_HOME", str(home))
    assert snap_compare(make_app(agent_delay=0), terminal_size=SIZE, run_before=pressing("m"))
