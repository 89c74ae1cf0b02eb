"""Provides what the subcommands that open the Textual app share: their checks before it opens, each problem one
line (never a traceback), and the app itself behind a last line of defence."""

from __future__ import annotations

import os
import sys

from ..i18n import _


def one_thread() -> None:
    """One thread per numerical library: set before numpy or onnxruntime is first imported."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")


def refuse(command: str, problem: str) -> int:
    print(f"cuarenta-tutor {command}: {problem}", file=sys.stderr)
    return 2


def preflight(*checks) -> str | None:
    """Run `checks` (each returns a problem or None, or raises) in order: the first problem in one line, or None.
    A data folder, model or game file that cannot be used becomes its message."""
    from .. import records

    try:
        for check in checks:
            problem = check()
            if problem:
                return problem
    except OSError as err:
        return _("{where}: {error}; set {variable} to a folder you can write, or fix this one").format(
            where=err.filename or _("the user data folder"), error=err.strerror or err, variable=records.DATA_ENV)
    except ValueError as err:  # a ModelError, a RecordError (agents.onnx_contract, imported by the checks that need it)
        return str(err)
    return None


def model_loads(path=None):
    """A check: the model (default: the shipped one) loads and fits the code."""
    from ..agents.onnx_policy import default_model_path, load_session

    def check() -> None:
        load_session(path or default_model_path())
    return check


def games_folder_writable() -> str | None:
    """A check: games are saved after every move, so the games folder must take them (and the temp files of saves
    a kill cut short are cleared)."""
    from .. import records

    folder = records.games_dir()
    if not os.access(folder, os.W_OK):
        return _("the games folder {folder} is not writable; fix its permissions or set {variable}").format(
            folder=folder, variable=records.DATA_ENV)
    records.clean_leftovers(folder)
    return None


def open_app(start: str, options=dict) -> int:
    """Open the app at `start`, made with `options()` (computed inside the net: reading a game can fail); any
    problem is one line and exit 1."""
    try:
        from ..tui import make_app

        make_app(start=start, **options()).run()
    except Exception as err:  # the last line of defence: a message, never a traceback
        print(f"cuarenta-tutor: {err}", file=sys.stderr)
        return 1
    return 0
