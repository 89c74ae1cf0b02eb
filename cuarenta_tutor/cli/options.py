"""Provides what the subcommands share: the parser whose errors are one line, the argument types that check a
value's kind and range before any work starts (each a bound: nothing runs without end), the options of where Ray
runs their work and their one check."""

from __future__ import annotations

import argparse
import errno
import math
import os
from pathlib import Path

from ..i18n import N_, _

RAY_EXTRA = N_("the ray backend needs the distributed extra: pip install -e '.[distributed]'")

MAX_GAMES = 1_000_000
"""The most games a command plays (about a day of the expert against itself on one core)."""
MAX_JOBS = 256
"""The most processes, Ray actors or threads a command starts."""
MAX_POSITIONS = 100_000
"""The most positions or moves a benchmark times."""
MAX_CONFIG_BYTES = 1 << 20
"""The largest settings file read (a training config is a few hundred bytes)."""


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose refusals are one line: the command, the argument and what is wrong, where the help
    is; exit status 2."""

    def error(self, message):
        self.exit(2, _("{prog}: {message} (see {prog} --help)").format(prog=self.prog, message=message) + "\n")


def sentence(text: str) -> str:
    """A command's one-line help as its --help's description: a sentence (its first letter a capital, a full stop at
    the end: the same in English and Spanish)."""
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def whole(low: int, high: int, even: bool = False):
    """An argument type: a whole number from `low` to `high` (an even one with `even`). The bounds are written as
    they are typed, without separators, in every language."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high or (even and value % 2):
            message = (_("must be an even whole number from {low} to {high}, not {text}") if even else
                       _("must be a whole number from {low} to {high}, not {text}"))
            raise argparse.ArgumentTypeError(message.format(low=low, high=high, text=repr(text)))
        return value
    return parse


SEED = whole(0, 2**63 - 1)
"""A seed: what torch, numpy and Python's random all take."""
JOBS = whole(1, MAX_JOBS)
PORT = whole(1, 65535)
"""A TCP port to listen on."""


def bind_problem(host: str, port: int, err: OSError) -> str:
    """What a failed bind means, in one line."""
    if err.errno == errno.EADDRINUSE:
        return _("port {port} is in use on {host}; stop what uses it or choose another with --port").format(
            port=port, host=host)
    if err.errno == errno.EACCES:
        return _("no permission to listen on port {port}; choose one above 1023 with --port").format(port=port)
    return _("cannot listen on {host} port {port}: {error}").format(host=host, port=port,
                                                                    error=err.strerror or err)


def seat():
    """An argument type: a seat of the largest table (a game's own seats are checked once it is read)."""
    from ..engine import PLAYER_COUNTS

    return whole(0, max(PLAYER_COUNTS) - 1)


def worlds(low: int = 2):
    """An argument type: sampled worlds, `low` to the search's MAX_WORLDS."""
    from ..agents.search import MAX_WORLDS

    return whole(low, MAX_WORLDS)


def number(low: float, high: float, above_low: bool = False):
    """An argument type: a finite number from `low` to `high` (above `low` with `above_low`)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (low < value if above_low else low <= value) or not value <= high:  # NaN fails both
            message = (_("must be a number above {low}, up to {high}, not {text}") if above_low else
                       _("must be a number from {low} to {high}, not {text}"))  # bounds as typed: 0.5, not 0,5
            raise argparse.ArgumentTypeError(message.format(low=f"{low:g}", high=f"{high:g}", text=repr(text)))
        return value
    return parse


def _in_the_way(path: Path) -> str | None:
    """Why a folder or file cannot be made at `path`: a file above it, or a folder above it that cannot be
    written; None when it can."""
    above = path.absolute().parent
    while not above.exists():
        above = above.parent
    if not above.is_dir():
        return _("{path} is under {above}, which is a file, not a folder; choose another path").format(
            path=path, above=above)
    if not os.access(above, os.W_OK | os.X_OK):
        return _("the folder {above} cannot be written; choose another path or fix its permissions").format(
            above=above)
    return None


def folder_to_write(text: str) -> str:
    """An argument type: a folder that is there or can be made (no file in its place or above it)."""
    path = Path(text)
    problem = None
    if path.exists() and not path.is_dir():
        problem = _("{path} is a file, not a folder; give a folder (it is made if missing)").format(path=path)
    elif not path.exists():
        problem = _in_the_way(path)
    elif not os.access(path, os.W_OK | os.X_OK):
        problem = _("the folder {path} cannot be written; choose another or fix its permissions").format(path=path)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def file_to_write(text: str) -> str:
    """An argument type: a file that can be written (not a folder; no file above it)."""
    path = Path(text)
    problem = None
    if path.is_dir():
        problem = _("{path} is a folder; give the file to write").format(path=path)
    elif path.exists() and not path.is_file():
        problem = _("{path} is not a regular file; give the file to write").format(path=path)
    else:
        problem = _in_the_way(path)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def settings_file(text: str) -> str:
    """An argument type: a settings file to read: a regular file (never a FIFO, which would wait for ever), up to
    MAX_CONFIG_BYTES."""
    path = Path(text)
    if not path.exists():
        raise argparse.ArgumentTypeError(_("no file at {path}").format(path=path))
    if not path.is_file():
        raise argparse.ArgumentTypeError(_("{path} is not a regular file; give a JSON file of settings").format(
            path=path))
    if path.stat().st_size > MAX_CONFIG_BYTES:
        raise argparse.ArgumentTypeError(_("{path} is {size} bytes, more than a settings file's {most}; give the "
                                           "JSON file of settings").format(path=path, size=path.stat().st_size,
                                                                           most=MAX_CONFIG_BYTES))
    return text


def add_backend_options(parser: argparse.ArgumentParser, where: str) -> None:
    """--backend and --address, for a command whose work Ray can spread over a cluster; `where` is --backend's
    help, a whole sentence in the language in use ("where the games are played: local processes ...")."""
    from ..interop import BACKENDS, CONNECT_SECONDS

    parser.add_argument("--backend", choices=BACKENDS, default="local", help=where)
    parser.add_argument("--address", help=_("with --backend ray: join the Ray cluster at this address (HOST:PORT, or "
                                            "auto; refused when nothing answers there within {seconds} s); default: "
                                            "start a local Ray instance").format(seconds=CONNECT_SECONDS))


def backend_problem(args) -> str | None:
    """Why the backend options cannot be followed (--address without Ray, Ray not installed, nothing answering at
    --address), or None."""
    import importlib.util

    address = getattr(args, "address", None)
    if address and args.backend != "ray":
        return _("--address needs --backend ray")
    if getattr(args, "backend", "local") != "ray":
        return None
    if importlib.util.find_spec("ray") is None:
        return _(RAY_EXTRA)
    from ..interop import address_problem

    return address and address_problem(address)
