"""End to end: the real `cuarenta-tutor` command in a real terminal (tmux), driven by keys."""

import os
import shutil
import subprocess
import sys
import time
import uuid

import pytest
from helpers import HANG

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def command():
    script = shutil.which("cuarenta-tutor")
    return [script] if script else [sys.executable, "-m", "cuarenta_tutor.cli"]


SOCKET = f"cuarenta-test-{os.getpid()}"
"""A private tmux server, so no other tmux session (or its environment) interferes."""


def tmux(*args, **kwargs):
    return subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True, **kwargs)


def screen(session):
    return tmux("capture-pane", "-t", session, "-p").stdout


def wait_for(session, text):
    """Poll the terminal until `text` shows (no fixed sleeps; the ceiling only guards against a hang)."""
    end = time.monotonic() + HANG
    while time.monotonic() < end:
        shown = screen(session)
        if text in shown:
            return shown
        time.sleep(0.1)
    raise AssertionError(f"{text!r} never appeared; the screen was:\n{screen(session)}")


def until(condition) -> bool:
    """Poll `condition` until it holds, or a hang's ceiling passes: what it gives last."""
    end = time.monotonic() + HANG
    while not condition() and time.monotonic() < end:
        time.sleep(0.1)
    return condition()


def saved_moves(user_data):
    """Moves in the game record on disk (0 before it exists)."""
    import json

    files = list((user_data / "games").glob("*.json"))
    return len(json.loads(files[0].read_text())["moves"]) if files else 0


def keys(session, *names):
    tmux("send-keys", "-t", session, *names, check=True)


def start(user_data, *args) -> tuple:
    """`cuarenta-tutor ARGS` in a new 80x24 tmux session: (session, the file its exit code goes to)."""
    session = f"cuarenta-{uuid.uuid4().hex[:8]}"
    user_data.mkdir(parents=True, exist_ok=True)
    cmd = " ".join(command() + list(args))
    done = user_data / "exit-code"
    tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24",
         f"env CUARENTA_TUTOR_HOME={user_data} TERM=xterm-256color {cmd}; echo $? > {done}; sleep 5", check=True)
    return session, done


def leave_and_quit(session, done) -> None:
    """Back to home (the game saved), quit, and the command exits 0 without a traceback."""
    keys(session, "Escape")
    wait_for(session, "Continue unfinished game")
    keys(session, "q")
    assert until(done.exists), screen(session)  # the app exited
    assert done.read_text().strip() == "0", screen(session)
    assert "Traceback" not in screen(session)


def test_play_a_few_moves_and_quit_cleanly(user_data):
    session, done = start(user_data, "play", "--seed", "7", "--dealer", "1")
    try:
        wait_for(session, "your turn: press 1-5")
        keys(session, "h")
        wait_for(session, "Hints (h hides)")
        wait_for(session, "[refined")  # the analysis refined the hints in its worker (cut short by its time cap if
        # the Python core served while the compiled one loaded: core.fast)
        assert "±" in screen(session)
        for turn in range(3):
            keys(session, "1")
            def answered(turn=turn):  # the real record has the move and the agent's reply
                shown = screen(session)
                if "What does" in shown:
                    keys(session, "1")
                elif "Tutor:" in shown:  # the tutor asks before a clear mistake: play it anyway
                    keys(session, "p")
                return saved_moves(user_data) >= 2 * turn + 2

            assert until(answered), screen(session)
            wait_for(session, "Agent played")
            wait_for(session, "your turn: press 1-")
        leave_and_quit(session, done)
        assert len(list((user_data / "games").glob("*.json"))) == 1
    finally:
        tmux("kill-server")


def test_a_2v2_game_shows_four_seats_and_a_hint(user_data):
    session, done = start(user_data, "play", "--players", "4", "--seed", "4", "--dealer", "1")
    try:
        shown = wait_for(session, "your turn: press 1-5")
        assert "North (partner)" in shown and "East:" in shown and "West:" in shown and "Your team" in shown
        keys(session, "h")
        wait_for(session, "[refined")  # the team's win % after each move, refined by the analysis (cut short by its
        # time cap on a very busy machine: then the header says so)
        assert "±" in screen(session)
        leave_and_quit(session, done)
    finally:
        tmux("kill-server")


def test_a_review_analyses_in_worker_processes_and_quitting_stops_them(user_data, tmp_path):
    # the review's positions are analysed in spawned processes from inside the real app (Textual's stderr has no
    # file descriptor, which multiprocessing once tripped on); quitting mid-review ends them and the app. Reviews in
    # few worlds a move (--worlds): quitting waits for the position being analysed, many seconds in the default 256
    from cuarenta_tutor import records
    from cuarenta_tutor.app.session import GameSession
    from cuarenta_tutor.arena.match import run_match

    run_match("onnx", "expert", 2, seed=3, records_dir=str(tmp_path))
    arena = tmp_path / "arena-S3-P0-a.json"
    session, done = start(user_data, "review", str(arena), "--seat", "0", "--worlds", "2")
    try:
        wait_for(session, "Analysing the reviewed moves")
        keys(session, "C-q")
        assert until(done.exists), screen(session)  # quitting mid-review ends the app and its workers
        assert done.read_text().strip() == "0", screen(session)
    finally:
        tmux("kill-server")
    notes = [m.annotation for m in records.load(arena).moves if m.annotation]
    assert not any(n["provenance"]["method"] == "analysis" for n in notes)  # it quit mid-review (a review saves)
    game = GameSession.new(seed=4, dealer=1)
    while len(game.record.moves) < 6:
        game.play_human(game.hints()[-1].action) if game.human_turn else game.play_agent()
    session, done = start(user_data, "review", str(user_data / "games" / f"{game.record.game_id}.json"),
                          "--worlds", "4")
    try:
        shown = wait_for(session, "Reviewed")
        assert "on the analysis" in shown and "stopped" not in shown and "went wrong" not in shown
        assert "up to 4 sampled worlds" in shown  # the review's worlds, as --worlds asked
    finally:
        tmux("kill-server")


def test_keys_pressed_fast_while_the_agent_plays_and_the_tutor_checks(user_data):
    # a key every 0.45 s, then every 0.1 s, blind to the screen, as a person hammering the keyboard: cards, and the
    # tutor's warning's "play it anyway" and "show the better move". The agent waits 0.4 s before its move and the
    # tutor's analysis takes its time budget, so keys land while the person must wait: they are refused in one line,
    # never a warning or an error, and the app goes on
    from cuarenta_tutor import records
    from cuarenta_tutor.engine import card_str

    session, done = start(user_data, "play", "--seed", "19", "--dealer", "1")
    try:
        wait_for(session, "your turn: press 1-5")
        def hammer(pace, presses):
            for i in range(presses):
                keys(session, "21p1s2p"[i % 7])
                time.sleep(pace)
                shown = screen(session)
                assert not done.exists() and "Traceback" not in shown, shown  # still running
                assert "went wrong" not in shown and "not your turn" not in shown, shown

        for pace, presses in ((0.45, 14), (0.1, 42)):
            hammer(pace, presses)
        # on a busy machine the agent and the tutor take longer, so fewer moves land in the same keys: keep pressing
        # (the same way) until four have, the ceiling only guarding a hang
        end = time.monotonic() + HANG
        while saved_moves(user_data) < 4 and time.monotonic() < end:
            hammer(0.45, 7)
        assert saved_moves(user_data) >= 4

        def settled():  # back to a plain turn of yours: a warning answered, a capture chosen (a key, not esc:
            shown = screen(session)  # should the dialog close after this capture, esc leaves the game, 1 plays a card)
            if "Tutor:" in shown:
                keys(session, "t")
            elif "What does" in shown:
                keys(session, "1")
            return "your turn: press 1" in shown and "Tutor:" not in shown and "What does" not in shown

        assert until(settled), screen(session)
        record = records.load(next((user_data / "games").glob("*.json")))
        hand = records.replay(record)[-1].hands[0]  # the saved game replays to the hand on the screen
        line = next(row for row in screen(session).splitlines() if "Your hand:" in row)
        keys_named = "press 1" if len(hand) == 1 else f"press 1-{len(hand)}"
        assert f"{keys_named} " in line + " " and all(card_str(card) in line for card in hand), line
        leave_and_quit(session, done)
    finally:
        tmux("kill-server")
