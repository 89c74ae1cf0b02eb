"""Loose ends of the command line (issue 65): `serve` runs its most apps at once and turns the rest away, ending a
closed tab's app soon; every count of a benchmark refused out of range; the help's expert commands apart, each
subcommand described, no name from the code in any help."""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import HANG, children, free_port

from cuarenta_tutor.cli import build_parser, main
from cuarenta_tutor.cli.main import EXPERT


async def until(condition, what):
    """Poll `condition` (an async callable) until it gives something true; the ceiling only guards against a hang."""
    end = time.monotonic() + HANG
    while time.monotonic() < end:
        got = await condition()
        if got:
            return got
        await asyncio.sleep(0.1)
    raise AssertionError(what())


FULL = "The tutor is already open in 2 tabs, the most this server runs at once"


async def first_bytes(websocket) -> bytes:
    """What a tab's terminal gets first: the app's first output, or the words that turn it away."""
    import aiohttp

    message = await websocket.receive(timeout=HANG)
    assert message.type == aiohttp.WSMsgType.BINARY, message
    return message.data


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the app processes in Linux's /proc")
def test_serve_runs_its_most_apps_turns_the_next_tab_away_and_frees_a_closed_tab_s_place(tmp_path):
    pytest.importorskip("textual_serve")
    import aiohttp

    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text('{"tutor": false, "model": "", "level": "club"}')  # light apps
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    out, err = home / "serve.out", home / "serve.err"
    with open(out, "w") as stdout, open(err, "w") as stderr:
        proc = subprocess.Popen([sys.executable, "-m", "cuarenta_tutor.cli", "serve", "--host", "127.0.0.1", "--port",
                                 str(port), "--max-apps", "2"], stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL,
                                env=dict(os.environ, CUARENTA_TUTOR_HOME=str(home)),
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))

    async def tabs() -> None:
        async def listening():
            return "open http://" in out.read_text() or proc.poll() is not None
        await until(listening, lambda: "no URL line")
        assert proc.poll() is None, err.read_text()
        async with aiohttp.ClientSession() as session:
            def tab():  # as the page opens it: its websocket, from its own origin, with the terminal's size
                return session.ws_connect(f"{url}/ws?width=80&height=24", origin=url)

            first, second = await tab(), await tab()
            for websocket in (first, second):
                assert FULL.encode() not in await first_bytes(websocket)  # an app's screen
            assert len(children(proc.pid)) == 2
            third = await tab()
            said = await first_bytes(third)
            assert FULL.encode() in said and b"reload this page" in said, said
            async with session.get(url) as page:  # a new tab's page says so too, before it opens a websocket
                assert page.status == 503
                text = await page.text()
                assert FULL in text and 'lang="en"' in text
            assert len(children(proc.pid)) == 2  # no app started for the turned-away tab
            await third.close()
            await first.close()

            async def ended():  # the closed tab's app ends now, not when the server stops
                return len(children(proc.pid)) == 1
            await until(ended, lambda: f"the closed tab's app still runs: {children(proc.pid)}")

            async def accepted():
                websocket = await tab()
                if FULL.encode() in await first_bytes(websocket):
                    await websocket.close()
                    return None
                return websocket
            fourth = await until(accepted, lambda: "no new tab accepted once the closed tab's app had ended")
            assert len(children(proc.pid)) == 2
            await fourth.close()
            await second.close()

    try:
        asyncio.run(tabs())
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=HANG)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    lines = err.read_text().splitlines()
    assert "cuarenta-tutor serve: a tab was turned away: 2 apps already run, the most at once (--max-apps)" in lines
    assert "Traceback" not in err.read_text() + out.read_text()


def test_an_app_that_does_not_quit_when_its_tab_closes_is_killed_and_its_place_freed():
    """An app stuck in its work (here one that never reads the quit) is killed `quit_seconds` after its tab closed."""
    pytest.importorskip("textual_serve")
    import aiohttp
    from aiohttp import web

    from cuarenta_tutor.cli.web import TutorServer

    stuck = (f"exec {sys.executable} -c \"import sys, time; sys.stdout.write('__GANGLION__\\n'); "
             f"sys.stdout.flush(); time.sleep(600)\"")

    async def run() -> None:
        server = TutorServer(stuck, local_only=True, max_apps=1, quit_seconds=0.2)
        runner = web.AppRunner(await server._make_app(), access_log=None)
        await runner.setup()
        port = free_port()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        url = f"http://127.0.0.1:{port}"
        try:
            async with aiohttp.ClientSession() as session:
                websocket = await session.ws_connect(f"{url}/ws", origin=url)

                async def started():
                    return next(iter(server.apps.values()))._process if server.apps else None
                process = await until(started, lambda: "no app started")
                await websocket.close()

                async def freed():
                    return not server.apps
                await until(freed, lambda: "the closed tab's place was never freed")
                assert process.returncode == -signal.SIGKILL  # killed: it never quit
                again = await session.ws_connect(f"{url}/ws", origin=url)
                await until(started, lambda: "the freed place took no new tab")
                await again.close()
        finally:
            await runner.cleanup()
        assert not server.apps

    asyncio.run(run())


def test_the_turned_away_tab_s_words_are_spanish(spanish):
    from cuarenta_tutor.cli.web import TutorServer, full_page

    server = TutorServer("true", local_only=True, max_apps=2)
    page = full_page(server.full_message())
    assert 'lang="es"' in page and "El tutor ya está abierto en 2 pestañas" in page
    assert "vuelve a cargar esta página" in page


def test_the_default_most_apps_follows_the_machine_s_memory(monkeypatch):
    from cuarenta_tutor.cli import serve

    for memory, most in ((1 << 30, 3), (512 << 20, 2), (64 << 30, 16), (None, serve.UNKNOWN_MEMORY_APPS)):
        monkeypatch.setattr(serve, "memory_bytes", lambda memory=memory: memory)
        assert serve.default_max_apps() == most, memory
    memory = serve.memory_bytes()  # this machine's: read, and a positive number of bytes where known
    assert memory is None or memory > 0


def test_max_apps_is_in_serve_s_help_and_range_checked(capsys):
    from cuarenta_tutor.cli.serve import default_max_apps

    assert main(["serve", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "--max-apps N" in out and f"from 2 to 16: {default_max_apps()} here" in out
    for bad in ("0", "-1", "x"):
        assert main(["serve", "--max-apps", bad]) == 2
        err = capsys.readouterr().err
        assert err.startswith("cuarenta-tutor serve: argument --max-apps: must be a whole number from 1 to"), err


COUNTS = {
    ("bench", "engine"): ["--games"],
    ("bench", "core"): ["--positions"],
    ("bench", "train"): ["--steps", "--envs", "--workers", "--threads"],
    ("bench", "analysis"): ["--positions", "--reference-worlds", "--jobs"],
    ("bench", "agent"): ["--positions"],
    ("bench", "tui"): ["--moves", "--paints"],
    ("bench", "bots"): ["--positions"],
    ("arena",): ["--games", "--jobs"],
    ("search-games", "--out", "OUT"): ["--games", "--worlds", "--jobs"],
    ("analyse", "game.json"): ["--ply", "--worlds", "--jobs"],
    ("review",): ["--worlds", "--jobs"],
}
"""Every count of every bench target, and of the other commands: none takes 0 or fewer."""


def test_every_count_of_every_bench_target_refuses_zero_and_below(capsys, tmp_path):
    targets = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    bench = next(a for a in targets["bench"]._actions if isinstance(a, argparse._SubParsersAction))
    assert {words[1] for words in COUNTS if words[0] == "bench"} == set(bench.choices)  # every target
    for words, options in COUNTS.items():
        words = [str(tmp_path / "out") if word == "OUT" else word for word in words]
        for option in options:
            for value in ("-1", "0"):
                extra = ["random", "greedy"] if words[0] == "arena" else []
                needed = ["--games", "2"] if words[0] == "search-games" and option != "--games" else []
                argv = [*words, *extra, *needed, option, value]
                assert main(argv) == 2, argv
                err = capsys.readouterr().err
                assert err.count("\n") == 1 and f"argument {option}: must be" in err, (argv, err)
    # the seed of `bench core` too, and the counts where 0 means none (documented so): -1 refused
    for argv in (["bench", "core", "--seed", "-1"], ["bench", "analysis", "--accuracy-games", "-1"],
                 ["export", "model.onnx", "--calibrate", "-1"]):
        assert main(argv) == 2, argv
        assert f"argument {argv[-2]}: must be" in capsys.readouterr().err


PLAYER = ("play", "review", "lessons", "drills", "stats", "serve", "analyse")


@pytest.mark.parametrize("lang, heading", [("en", "expert commands:"), ("es", "comandos para expertos:")])
def test_the_help_lists_the_player_s_commands_then_the_expert_ones_under_their_heading(lang, heading, capsys):
    assert main(["--lang", lang, "--help"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert heading in lines, lines
    at = lines.index(heading)
    listed = {line.split()[0]: i for i, line in enumerate(lines) if line.startswith("  ") and not
              line.startswith("   ") and line.split()[0] in (*PLAYER, *EXPERT)}
    assert set(listed) == {*PLAYER, *EXPERT}, listed
    assert all(listed[name] < at for name in PLAYER) and all(listed[name] > at for name in EXPERT), lines
    options = next(i for i, line in enumerate(lines) if line.endswith(":") and i > at)
    assert all(listed[name] < options for name in EXPERT)  # the expert commands before the options


@pytest.mark.parametrize("lang, words", [("en", {"lessons": "Open the lessons in the app",
                                                 "drills": "Open the drills in the app"}),
                                         ("es", {"lessons": "Abre las lecciones en la app",
                                                 "drills": "Abre los ejercicios en la app"})])
def test_lessons_and_drills_say_what_they_do(lang, words, capsys):
    for name, said in words.items():
        assert main(["--lang", lang, name, "--help"]) == 0
        out = " ".join(capsys.readouterr().out.split())
        assert said in out, out


def every_parser(parser, path):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from every_parser(sub, [*path, name])


INTERNAL = re.compile(r"\b[a-z_]+\.[A-Z_]{3,}\b|\b[a-z_]+(\.[a-z_0-9]+)+\.[A-Z][A-Za-z]+\b")
"""A name from the code: a module's constant (analysis.STANDARD), a class by its module (training.a2c.Config)."""


@pytest.mark.parametrize("lang", ["en", "es"])
def test_every_command_says_what_it_does_and_no_help_names_the_code(lang):
    from cuarenta_tutor import i18n

    i18n.set_language(lang)
    found = []
    for path, parser in every_parser(build_parser(), ["cuarenta-tutor"]):
        text = parser.format_help()
        found += [(" ".join(path), m.group()) for m in INTERNAL.finditer(text)]
        if len(path) > 1:
            assert parser.description, path
    assert not found, found


def test_dealer_0_is_you_dealing_first(capsys):
    from cuarenta_tutor.app.session import HUMAN, GameSession

    assert main(["play", "--help"]) == 0
    assert "0: you deal first, 1: the agent" in " ".join(capsys.readouterr().out.split())
    you = GameSession.new(seed=4, dealer=0)
    assert you.record.first_dealer == HUMAN == you.table.state.dealer
    assert not you.human_turn  # the seat after the dealer plays first: the agent
    agent = GameSession.new(seed=4, dealer=1)
    assert agent.table.state.dealer == 1 and agent.human_turn
