"""The tutor in a browser: `cuarenta-tutor serve` started as a command, its page opened in a real Chromium (driven by
Playwright, the system's Chromium: no browser download), played with keys; what a person sees on the page and what
the games folder holds. The page's screenshot is kept in $PYTEST_ARTIFACTS (default tests/artifacts/, ignored by
git)."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest
from helpers import HANG, children, free_port

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = Path(os.environ.get("PYTEST_ARTIFACTS") or ROOT / "tests" / "artifacts")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here (Debian: apt-get install chromium)")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-3d-apis", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
"""Headless, and nothing that reaches out of the machine (its closed network refuses it, slowly). No WebGL: the page's
terminal draws without it, as for a visitor whose browser has none, instead of on Chromium's software GPU (the file's
tests, one process, 2 cores: 31.8-34.2 CPU-s against 36.6-39.7 with it)."""

pytestmark = pytest.mark.xdist_group("serve")  # one browser and one server for the file's tests

CAPTURE = """Object.defineProperty(Object.prototype, "terminal", {configurable: true, set(value) {
  Object.defineProperty(this, "terminal", {value, writable: true, configurable: true, enumerable: true});
  if (value && value.buffer && value.buffer.active && !window.cuarentaTerminal) window.cuarentaTerminal = value;
}});"""
"""Run before the page's own script: keeps the xterm.js Terminal that textual-serve's page makes (`this.terminal =
new Terminal(...)`; the page does not expose it) in `window.cuarentaTerminal`, so a test reads the screen's cells."""
SCREEN = """() => { const term = window.cuarentaTerminal; if (!term) return "";
  const buffer = term.buffer.active, rows = [];
  for (let y = 0; y < term.rows; y++) rows.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? "");
  return rows.join("\\n"); }"""
"""The text on the page's terminal, row by row: what a person reads there."""
WHERE = """(text) => { const term = window.cuarentaTerminal, buffer = term.buffer.active;
  const box = term.element.querySelector(".xterm-screen").getBoundingClientRect();
  for (let y = 0; y < term.rows; y++) {
    const x = buffer.getLine(buffer.viewportY + y)?.translateToString(true).indexOf(text) ?? -1;
    if (x >= 0) return {x: box.left + (x + text.length / 2) * box.width / term.cols,
                        y: box.top + (y + 0.5) * box.height / term.rows};
  }
  return null; }"""
"""Where on the page `text` shows on the terminal (its middle), or null."""


def until(condition, what):
    """Poll `condition` until it gives something true (no fixed sleeps; the ceiling only guards against a hang);
    else fail, saying `what` (called: it reads what there was)."""
    end = time.monotonic() + HANG
    while time.monotonic() < end:
        got = condition()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(what())


class Served:
    """A running `cuarenta-tutor serve`: its process, URL and output files."""

    def __init__(self, proc, port, out: Path, err: Path):
        self.proc, self.url, self.out, self.err = proc, f"http://127.0.0.1:{port}", out, err

    def stop(self) -> None:
        """Ctrl-C, as a person stops it (killed only if it hangs, so a failure leaves nothing running)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=HANG)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


@contextmanager
def serving(home: Path, *args, port=None):
    """`cuarenta-tutor serve ARGS` with `home` as the user data folder, once it says it listens; stopped after."""
    port = port or free_port()
    home.mkdir(parents=True, exist_ok=True)
    out, err = home / f"serve-{port}.out", home / f"serve-{port}.err"
    # SIGINT back to its default, as in a terminal: a suite started in the background (`pytest &`) has it ignored
    with open(out, "w") as stdout, open(err, "w") as stderr:
        proc = subprocess.Popen([sys.executable, "-m", "cuarenta_tutor.cli", "serve", "--port", str(port), *args],
                                stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL,
                                env=dict(os.environ, CUARENTA_TUTOR_HOME=str(home)),
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    served = Served(proc, port, out, err)
    try:
        until(lambda: "open http://" in out.read_text() or proc.poll() is not None, lambda: "no URL line")
        assert proc.poll() is None, err.read_text()
        yield served
    finally:
        served.stop()


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """The module server's user data folder, with the tutor off in its settings: the games played in its tabs check no
    move before it is played (the browser is the point here; the tutor's checks are test_tui's and test_e2e_tmux's)."""
    folder = tmp_path_factory.mktemp("serve-home")
    (folder / "settings.json").write_text('{"tutor": false, "model": "", "level": "club"}')
    return folder


@pytest.fixture(scope="module")
def server(home):
    with serving(home) as served:
        yield served


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@contextmanager
def tabs(browser, url, count: int = 1):
    """`count` browser tabs on `url`, opened at once (their apps start side by side), each with its terminal focused
    once the app's home screen shows."""
    pages = []
    try:
        for _ in range(count):
            page = browser.new_page(viewport={"width": 1000, "height": 640})
            pages.append(page)
            # the page asks Google for a font: refused at once, as this machine has no outside network
            page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(url) else route.abort())
            page.add_init_script(CAPTURE)
            page.goto(url)
        for page in pages:
            shows(page, "New game  (n)")
            page.focus(".xterm-helper-textarea")  # keys to the terminal, no mouse event for the app
        yield pages
    finally:
        for page in pages:
            page.close()


@contextmanager
def tab(browser, url):
    """A browser tab on `url`, its terminal focused once the app's home screen shows."""
    with tabs(browser, url) as (page,):
        yield page


def shows(page, text):
    """The page's terminal once it shows `text`."""
    def showing():
        screen = page.evaluate(SCREEN)
        return screen if text in screen else None
    return until(showing, lambda: f"{text!r} never showed on the page; it showed:\n{page.evaluate(SCREEN)}")


def saved_games(home) -> set[Path]:
    return set((home / "games").glob("*.json"))


def click(page, text) -> None:
    """A click in the middle of `text` on the page's terminal, as a person clicks a button."""
    spot = page.evaluate(WHERE, text)
    assert spot, f"no {text!r} on the page"
    page.mouse.click(spot["x"], spot["y"])


def start_game(page, home, seed: int) -> Path:
    """`seed` typed in the new-game dialog and a click on its Start, once n (pressed before) has opened it (keys typed
    ahead of the app, as a test does, can land before a focus change they follow: a person's click cannot): the new
    game's record, once the game shows. (The seed fixes the cards: an unseeded game ended at its first deal, once in
    about a thousand, when a hand of four of a kind won it.)"""
    before = saved_games(home)
    shows(page, "New game against the agent")
    click(page, "optional, a whole number")
    page.keyboard.type(str(seed))
    until(lambda: "a whole number" not in page.evaluate(SCREEN), lambda: f"the seed {seed} never showed in the dialog")
    click(page, "Start")
    shows(page, "Your hand:")
    return until(lambda: next(iter(saved_games(home) - before), None), lambda: "no record of the new game")


def play_a_card(page, record: Path) -> dict:
    """On the person's turn, the first card (the capture dialog and the tutor's question answered as they come):
    the game's record on disk, once it holds the person's move."""
    shows(page, "your turn: press 1")
    page.keyboard.press("1")

    def saved():
        screen = page.evaluate(SCREEN)
        if "What does" in screen:
            page.keyboard.press("1")
        elif "Tutor:" in screen:  # before a clear mistake: play it anyway
            page.keyboard.press("p")
        game = json.loads(record.read_text())
        return game if any(move["seat"] == game["human_seat"] for move in game["moves"]) else None
    return until(saved, lambda: f"no move of the person's in {record}; the page showed:\n{page.evaluate(SCREEN)}")


def test_the_page_is_served(server):
    with urllib.request.urlopen(server.url, timeout=HANG) as response:
        assert response.status == 200 and "Cuarenta Tutor" in response.read().decode()


def test_only_the_servers_own_page_reaches_an_app(server):
    # any web page may open a websocket to this machine: one from another site's page is refused, as is a request
    # through another name (a DNS rebinding) to a server for this machine only
    handshake = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                 "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
    port = server.url.rsplit(":", 1)[1]
    for path, headers in (("/ws", {**handshake, "Origin": "http://elsewhere.example"}),
                          ("/ws", {**handshake, "Host": f"rebound.example:{port}",
                                   "Origin": f"http://rebound.example:{port}"}),
                          ("/", {"Host": f"rebound.example:{port}"})):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(urllib.request.Request(server.url + path, headers=headers), timeout=HANG)
        assert refused.value.code == 403, (path, headers)  # before any app starts


@needs_chromium
def test_two_tabs_play_two_games_at_once_each_saved_in_the_data_folder(server, browser, home):
    with tabs(browser, server.url, 2) as (first, second):
        assert "Cuarenta Tutor" in first.evaluate(SCREEN)  # the home screen's banner
        first.keyboard.press("n")  # the new-game dialog in each tab
        second.keyboard.press("n")
        games = start_game(first, home, 4), start_game(second, home, 5)
        play_a_card(second, games[1])  # the second tab first: each tab is its own app
        game = play_a_card(first, games[0])
        assert game["rules_preset"] == "standard" and game["seed"] == 4  # the seed typed in the dialog
        shows(first, "your turn: press 1")  # the agent's reply, then the hints, as the screenshot shows them
        first.keyboard.press("h")
        assert "Traceback" not in shows(first, "Hints (h hides)")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        first.screenshot(path=ARTIFACTS / "serve-game.png")
    assert games[0] != games[1]
    assert "Traceback" not in server.out.read_text() + server.err.read_text()


@needs_chromium
def test_a_game_from_the_terminal_continues_in_the_browser(browser, user_data):
    from cuarenta_tutor import records
    from cuarenta_tutor.app.session import GameSession
    from cuarenta_tutor.engine import card_str

    game = GameSession.new(seed=4, dealer=1)  # as the terminal app plays it: saved in the user data folder
    while len(game.record.moves) < 4 or not game.human_turn:
        game.play_human(game.hints()[-1].action) if game.human_turn else game.play_agent()
    with serving(user_data) as served, tab(browser, served.url) as page:
        shows(page, "Continue unfinished game")  # the home screen lists the saved games once a worker has read them
        page.keyboard.press("c")
        shown = shows(page, "your turn: press 1")
    hand = records.replay(records.load(user_data / "games" / f"{game.record.game_id}.json"))[-1].hands[0]
    line = next(row for row in shown.splitlines() if "Your hand:" in row)
    assert len(hand) == 3 and all(card_str(card) in line for card in hand), line  # the game where it was left


def test_a_port_in_use_is_refused_in_one_line(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = subprocess.run([sys.executable, "-m", "cuarenta_tutor.cli", "serve", "--port", str(port)],
                             capture_output=True, text=True, timeout=HANG, stdin=subprocess.DEVNULL,
                             env=dict(os.environ, CUARENTA_TUTOR_HOME=str(tmp_path)))
    assert out.returncode == 2 and out.stdout == "", out
    assert out.stderr == f"cuarenta-tutor serve: port {port} is in use on 127.0.0.1; stop what uses it or choose " \
                         f"another with --port\n"


def test_another_host_is_served_with_a_warning_line(tmp_path):
    with serving(tmp_path, "--host", "0.0.0.0") as served:
        lines = served.err.read_text().splitlines()
        assert lines == ["cuarenta-tutor serve: warning: listening on 0.0.0.0: anyone who can reach this address can "
                         "play and read your saved games"]
        assert f"open {served.url} in a browser" in served.out.read_text()
    assert served.proc.returncode == 130


def test_the_port_and_the_web_extra_are_checked_in_one_line(monkeypatch, capsys):
    from cuarenta_tutor.cli import main

    assert main(["serve", "--port", "65536"]) == 2
    assert "argument --port: must be a whole number from 1 to 65535" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "textual_serve", None)  # as if the web extra were not installed
    assert main(["serve"]) == 2
    assert capsys.readouterr().err == 'cuarenta-tutor serve: serving in a browser needs the web extra: pip install ' \
                                      '"cuarenta-tutor[web]"\n'




@needs_chromium
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the app processes in Linux's /proc")
def test_ctrl_c_stops_the_server_and_its_apps(browser, tmp_path):
    with serving(tmp_path) as served, tab(browser, served.url):
        apps = until(lambda: children(served.proc.pid), lambda: "no app process for the tab")
        assert all(b"cuarenta_tutor.cli" in Path(f"/proc/{pid}/cmdline").read_bytes() for pid in apps)
        served.stop()
    assert served.proc.returncode == 130
    assert served.err.read_text().strip() == "cuarenta-tutor serve: stopped"
    assert not [pid for pid in apps if Path(f"/proc/{pid}").exists()]  # each app ended (and was waited for)
