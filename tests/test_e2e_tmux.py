"""End to end: the real `cuarenta-tutor` command in a real terminal (tmux), driven by keys."""

import itertools
import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from helpers import HANG

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def command():
    script = shutil.which("cuarenta-tutor")
    return [script] if script else [sys.executable, "-m", "cuarenta_tutor.cli"]


SOCKET = {"name": f"cuarenta-test-{os.getpid()}"}
"""A private tmux server, so no other tmux session (or its environment) interferes: a new one for each app `start`
(a server just killed can still hold its socket: a new session there fails now and then)."""


def tmux(*args, **kwargs):
    return subprocess.run(["tmux", "-L", SOCKET["name"], *args], capture_output=True, text=True, **kwargs)


def stop() -> None:
    """End the tmux server of the last `start` (its app with it) and remove its socket."""
    path = tmux("display-message", "-p", "#{socket_path}").stdout.strip()
    tmux("kill-server")
    if path:
        Path(path).unlink(missing_ok=True)


def screen(session):
    return tmux("capture-pane", "-t", session, "-p").stdout


def wait_for(session, text, *stops):
    """Poll the terminal until `text` (or one of `stops`: the caller looks at what it got) shows (no fixed sleeps;
    the ceiling only guards against a hang)."""
    end = time.monotonic() + HANG
    while time.monotonic() < end:
        shown = screen(session)
        if any(line in shown for line in (text, *stops)):
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


def start(user_data, *args, env: str = "") -> tuple:
    """`cuarenta-tutor ARGS` in a new 80x24 tmux session (`env`: more VAR=value words for it): (session, the file
    its exit code goes to)."""
    session = f"cuarenta-{uuid.uuid4().hex[:8]}"
    SOCKET["name"] = f"cuarenta-test-{os.getpid()}-{session}"
    user_data.mkdir(parents=True, exist_ok=True)
    cmd = " ".join(command() + list(args))
    done = user_data / "exit-code"
    tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24",
         f"env CUARENTA_TUTOR_HOME={user_data} TERM=xterm-256color {env} {cmd}; echo $? > {done}; sleep 5",
         check=True)
    return session, done


def leave_and_quit(session, done) -> None:
    """Back to home (the game saved), quit, and the command exits 0 without a traceback."""
    keys(session, "Escape")
    wait_for(session, "Continue unfinished game")
    keys(session, "q")
    assert until(done.exists), screen(session)  # the app exited
    assert done.read_text().strip() == "0", screen(session)
    assert "Traceback" not in screen(session)


WAITS = {"Wait: the tutor is checking", "Wait: the agent is playing"}
"""What the hand's line says to a key that comes while the person must wait."""


def tutor_off(user_data) -> None:
    """The person's settings with the tutor off (t in a game turns it back on): no analysis before each of their
    moves, so the first one a test waits for is its hint's, asked once the app's compiled core has had the moves'
    time to load (core.warm; before, the Python core serves: slower, the same numbers)."""
    user_data.mkdir(parents=True, exist_ok=True)
    (user_data / "settings.json").write_text('{"tutor": false, "model": "", "level": "club"}')


WORDS = {
    "en": {"turn": "your turn: press 1-", "capture": "What does", "played": "Agent played", "hints": "Hints (h hides)",
           "refined": "[refined", "home": "Continue unfinished game"},
    "es": {"turn": "tu turno: pulsa 1-", "capture": "¿Qué se lleva", "played": "El agente:",
           "hints": "Pistas (h oculta)", "refined": "[afinadas", "home": "Continuar la partida sin terminar"},
}
"""What each language shows where these tests wait."""


def play_first_card(session, user_data, moves: int, lang: str = "en") -> None:
    """Card 1 on the person's turn (a capture's choice answered with 1), until the record on disk holds `moves` moves
    (the person's and the agents' replies), and it is the person's turn again."""
    keys(session, "1")

    def answered():
        if WORDS[lang]["capture"] in screen(session):
            keys(session, "1")
        return saved_moves(user_data) >= moves

    assert until(answered), screen(session)
    wait_for(session, WORDS[lang]["turn"])


ENGLISH = re.compile(r"\b(the|you|your|Hints|Back|Quit|Help|Agent|played|takes|trails)\b")
"""Words that give English away on a Spanish screen."""


@pytest.mark.parametrize("lang", ["en", "es"])
def test_play_a_few_moves_and_quit_cleanly(user_data, lang):
    # once in each language: English by --lang in a Spanish environment, Spanish by the environment alone (es_EC)
    tutor_off(user_data)
    args = ("--lang", "en") if lang == "en" else ()
    session, done = start(user_data, *args, "play", "--seed", "7", "--dealer", "1",
                          env="LANGUAGE= LC_ALL= LC_MESSAGES= LANG=es_EC.UTF-8")
    words = WORDS[lang]
    try:
        wait_for(session, words["turn"] + "5")
        for turn in range(2):
            play_first_card(session, user_data, 2 * turn + 2, lang)  # the real record has the move and the reply
            wait_for(session, words["played"])
        keys(session, "h")
        wait_for(session, words["hints"])
        wait_for(session, words["refined"])  # the analysis refined the hints in its worker (cut short by its time
        # cap if the Python core served while the compiled one loaded: core.fast)
        shown = screen(session)
        assert "±" in shown
        if lang == "es":
            assert " %" in shown and not ENGLISH.search(shown), shown  # "62 % ±3": es_EC's percent, no English
        keys(session, "Escape")
        wait_for(session, words["home"])
        if lang == "es":
            assert not ENGLISH.search(screen(session).replace("Cuarenta Tutor", "")), screen(session)
        keys(session, "q")
        assert until(done.exists), screen(session)
        assert done.read_text().strip() == "0" and "Traceback" not in screen(session), screen(session)
        assert len(list((user_data / "games").glob("*.json"))) == 1
    finally:
        stop()


def test_a_2v2_game_shows_four_seats_and_a_hint(user_data):
    tutor_off(user_data)
    session, done = start(user_data, "play", "--players", "4", "--seed", "4", "--dealer", "1")
    try:
        shown = wait_for(session, "your turn: press 1-5")
        assert "North (partner)" in shown and "East:" in shown and "West:" in shown and "Your team" in shown
        play_first_card(session, user_data, 4)  # yours, then East's, your partner's and West's, each said on its line
        for seat in ("East", "Partner", "West"):
            wait_for(session, f"{seat} played")
        keys(session, "h")
        wait_for(session, "[refined")  # the team's win % after each move, refined by the analysis (cut short by its
        # time cap on a very busy machine: then the header says so)
        assert "±" in screen(session)
        leave_and_quit(session, done)
    finally:
        stop()


def test_a_review_analyses_in_worker_processes_and_quitting_stops_them(user_data):
    # the review's positions are analysed in worker processes from inside the real app (Textual's stderr has no
    # file descriptor, which multiprocessing once tripped on): the person's moves (stored once analysed), then the
    # other side's, for luck vs skill; quitting in the middle of those ends their processes and the app, and keeps
    # nothing of them. Reviews in few worlds a move (--worlds): quitting waits for the position being analysed
    from cuarenta_tutor import records
    from cuarenta_tutor.app.session import GameSession
    from cuarenta_tutor.coach.review import decisions

    game = GameSession.new(seed=4, dealer=1)
    while len(game.record.moves) < 40:  # twenty decisions each: a pool of processes for each side's, the other side's
        # long enough that the quit lands inside it even on a fast machine (with three each it once finished first,
        # with ten one run in three on a quiet fast machine)
        game.play_human(game.hints()[-1].action) if game.human_turn else game.play_agent()
    path = user_data / "games" / f"{game.record.game_id}.json"
    session, done = start(user_data, "review", str(path), "--seat", "0", "--worlds", "4")
    try:
        shown = wait_for(session, "Analysing the other side's moves", "stopped", "went wrong")
        assert "stopped" not in shown and "went wrong" not in shown, shown
        # the person's moves reviewed, in the worlds --worlds asked (the header polled: on a loaded machine a capture
        # once caught the progress line drawn and the header not yet)
        wait_for(session, "up to 4 sampled worlds")
        keys(session, "C-q")
        assert until(done.exists), screen(session)  # quitting mid-review ends the app and its workers
        assert done.read_text().strip() == "0", screen(session)
    finally:
        stop()
    notes = {m.seat: [] for m in game.record.moves}
    for move in records.load(path).moves:
        if move.annotation and move.annotation["provenance"]["method"] == "analysis":
            notes[move.seat].append(move.annotation["provenance"]["settings"]["worlds"])
    # the person's saved as analysed (each decision with a choice), the other side's quit mid-review
    assert notes == {0: [4] * len(decisions(game.record, [0])), 1: []}, notes


def test_keys_pressed_fast_while_the_agent_plays_and_the_tutor_checks(user_data):
    # keys every 0.45 s, then every 0.1 s, blind to the screen, as a person hammering the keyboard: cards, and the
    # tutor's warning's "play it anyway" and "show the better move". The agent waits 0.4 s before its move and the
    # tutor's analysis takes seconds on the Python core (as on a machine without numba; the compiled one checks in a
    # tenth of a second, too short for a key to land in surely), so keys land while the person must wait: they are
    # refused in one line, never a warning or an error, and the app goes on
    from cuarenta_tutor import records
    from cuarenta_tutor.engine import card_str

    session, done = start(user_data, "play", "--seed", "19", "--dealer", "1", env="CUARENTA_TUTOR_CORE=python")
    try:
        wait_for(session, "your turn: press 1-5")
        said = set()

        def hammer(pace, least, enough):
            """Keys at `pace`, at least `least` of them and on until `enough(moves in the record)` (a busy machine
            makes the agent and the tutor slower, so more keys are needed: the ceiling only guards a hang)."""
            end = time.monotonic() + HANG
            for i in itertools.count():
                if i >= least and enough(saved_moves(user_data)) or time.monotonic() > end:
                    break
                keys(session, "21p1s2p"[i % 7])
                time.sleep(pace)
                shown = screen(session)
                assert not done.exists() and "Traceback" not in shown, shown  # still running
                assert "went wrong" not in shown and "not your turn" not in shown, shown
                said.update(wait for wait in WAITS if wait in shown)
            assert enough(saved_moves(user_data))

        hammer(0.45, 7, lambda moves: moves >= 2)  # a move of yours and the agent's reply
        hammer(0.1, 14, lambda moves: moves >= 4 and said == WAITS or moves >= 8)  # another, and both waits said
        assert said == WAITS  # keys came while the tutor checked and while the agent played: said in their place

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
        stop()
