"""A fast start (issue 66, item 1): the home screen is drawn before anything heavy is imported; the model, the
compiled core and the game's screens load in a worker while the person reads it (figures: `cuarenta-tutor bench tui`,
first_paint_s and first_hint_s)."""

import os
import subprocess
import sys

import pytest
from helpers import HANG, settle

from cuarenta_tutor import records

HEAVY = ("numba", "llvmlite", "onnxruntime", "torch", "numpy", "cuarenta_tutor.analysis", "cuarenta_tutor.core",
         "cuarenta_tutor.coach", "cuarenta_tutor.agents")
"""What the first screen does without (the analysis, its tables and the compiled core; the agent's network)."""


def loaded_by(code: str) -> set[str]:
    """The modules a fresh interpreter holds after `code`, with their packages."""
    shown = "import sys; print(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", f"{code}\n{shown}"], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def heavy_in(modules: set[str], heavy=HEAVY) -> set[str]:
    return {name for name in heavy if name in modules}


def test_the_home_screen_and_the_app_import_nothing_heavy(tmp_path):
    modules = loaded_by("import cuarenta_tutor.tui.app, cuarenta_tutor.tui.home\n"
                        "from cuarenta_tutor.tui import make_app\n"
                        "app = make_app()  # the settings read, the words installed: as the command makes it")
    assert not heavy_in(modules), heavy_in(modules)
    assert "cuarenta_tutor.tui.play" not in modules and "cuarenta_tutor.tui.review" not in modules
    assert "cuarenta_tutor.app.session" not in modules and "rich.markdown" not in modules


def test_the_home_command_checks_nothing_heavy_before_the_app_opens():
    # cli.main keeps the core's package (its problem() and notice() read the environment), never the compiled core
    modules = loaded_by("from cuarenta_tutor.cli import main, home\n"
                        "from cuarenta_tutor.cli.app import games_folder_writable, preflight\n"
                        "assert preflight(games_folder_writable) is None\n"
                        "from cuarenta_tutor.tui import make_app\n"
                        "make_app(start='home')")
    assert not heavy_in(modules, set(HEAVY) - {"cuarenta_tutor.core"}), heavy_in(modules)
    assert "cuarenta_tutor.core.moves" not in modules


async def test_the_model_the_core_and_the_screens_load_after_the_first_screen():
    import cuarenta_tutor.core as core
    from cuarenta_tutor.tui import make_app
    from cuarenta_tutor.tui.home import HomeScreen

    app = make_app(agent_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        assert "Model: cuarenta-a2c-lstm (" in str(app.screen.query_one("#model").render())
        assert core._WARMED.wait(HANG) and core._WARM["done"] or not core.available()  # warmed by the worker
        assert not [m for m in app.messages if "model" in m.lower()]


async def test_a_settings_model_that_does_not_load_is_told_on_the_home_screen_and_dropped(tmp_path):
    from cuarenta_tutor.tui import make_app

    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"not a model")
    records.save_settings(records.Settings(tutor=False, model=garbage, level="strong"))
    app = make_app(agent_delay=0)
    assert app.model_path == garbage  # read at once; checked by the worker, after the first screen
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.model_path is None and app.settings.model is None
        told = [m for m in app.messages if str(garbage) in m]
        assert len(told) == 1 and "shipped one" in told[0]
        assert "Model: cuarenta-a2c-lstm (" in str(app.screen.query_one("#model").render())
    assert records.load_settings()[0] == records.Settings(tutor=False, model=None, level="strong")


@pytest.mark.parametrize("start", ["home", "play"])
async def test_an_agent_model_that_does_not_load_is_told_where_the_app_opens(tmp_path, start):
    # the home command no longer loads the model before the app opens (`play` still does): the home screen says it
    from cuarenta_tutor.tui import make_app
    from cuarenta_tutor.tui.home import HomeScreen

    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"not a model")
    app = make_app(agent_delay=0, model_path=garbage, start=start, seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        told = [m for m in app.messages if "is not a usable ONNX model" in m]
        assert len(told) == 1, app.messages  # once: the play screen that did not open says it, not the worker too


FIRST_PAINT = """
import asyncio, sys, threading
from cuarenta_tutor.tui import make_app
from cuarenta_tutor.tui.home import HomeScreen

app = make_app()
seen = []
display = app._display  # Textual writes each screen's update here: the first of the home screen is its first paint


def watched(screen, update):
    if isinstance(screen, HomeScreen) and not seen:
        seen.append(sorted(sys.modules))
        seen.append(sorted(t.name for t in threading.enumerate()))
    return display(screen, update)


app._display = watched


async def main():
    async with app.run_test(size=(80, 24)) as pilot:
        while not seen:
            await pilot.pause(0.01)


asyncio.run(main())
print(" ".join(seen[0]))
print(" ".join(seen[1]))
"""


def test_the_first_screen_is_drawn_before_any_worker_loads_the_rest(tmp_path):
    # what a key opens needs the rest: it loads in the workers started once the home screen is on the terminal
    out = subprocess.run([sys.executable, "-c", FIRST_PAINT], capture_output=True, text=True, check=True,
                         timeout=HANG, env={**os.environ, records.DATA_ENV: str(tmp_path)})
    modules, threads = (set(line.split()) for line in out.stdout.splitlines()[-2:])
    assert not heavy_in(modules), heavy_in(modules)
    assert threads == {"MainThread"}, threads  # no worker yet (the games, the model, the core)
