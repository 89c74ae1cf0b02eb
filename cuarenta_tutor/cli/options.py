"""Provides what the subcommands share: the parser whose errors are one line, the argument types that check a
value's kind and range before any work starts (each a bound: nothing runs without end), the options of where Ray
runs their work and their one check."""

from __future__ import annotations

import argparse
import errno
import math
import os
from pathlib import Path

RAY_EXTRA = "the ray backend needs the distributed extra: pip install -e '.[distributed]'"

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
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def whole(low: int, high: int, even: bool = False):
    """An argument type: a whole number from `low` to `high` (an even one with `even`)."""
    kind = "an even whole number" if even else "a whole number"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high or (even and value % 2):
            raise argparse.ArgumentTypeError(f"must be {kind} from {low} to {high}, not {text!r}")
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
        return f"port {port} is in use on {host}; stop what uses it or choose another with --port"
    if err.errno == errno.EACCES:
        return f"no permission to listen on port {port}; choose one above 1023 with --port"
    return f"cannot listen on {host} port {port}: {err.strerror or err}"


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
            span = f"above {low:g}, up to {high:g}" if above_low else f"from {low:g} to {high:g}"
            raise argparse.ArgumentTypeError(f"must be a number {span}, not {text!r}")
        return value
    return parse


def _in_the_way(path: Path) -> str | None:
    """Why a folder or file cannot be made at `path`: a file above it, or a folder above it that cannot be
    written; None when it can."""
    above = path.absolute().parent
    while not above.exists():
        above = above.parent
    if not above.is_dir():
        return f"{path} is under {above}, which is a file, not a folder; choose another path"
    if not os.access(above, os.W_OK | os.X_OK):
        return f"the folder {above} cannot be written; choose another path or fix its permissions"
    return None


def folder_to_write(text: str) -> str:
    """An argument type: a folder that is there or can be made (no file in its place or above it)."""
    path = Path(text)
    problem = None
    if path.exists() and not path.is_dir():
        problem = f"{path} is a file, not a folder; give a folder (it is made if missing)"
    elif not path.exists():
        problem = _in_the_way(path)
    elif not os.access(path, os.W_OK | os.X_OK):
        problem = f"the folder {path} cannot be written; choose another or fix its permissions"
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def file_to_write(text: str) -> str:
    """An argument type: a file that can be written (not a folder; no file above it)."""
    path = Path(text)
    problem = None
    if path.is_dir():
        problem = f"{path} is a folder; give the file to write"
    elif path.exists() and not path.is_file():
        problem = f"{path} is not a regular file; give the file to write"
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
        raise argparse.ArgumentTypeError(f"no file at {path}")
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"{path} is not a regular file; give a JSON file of settings")
    if path.stat().st_size > MAX_CONFIG_BYTES:
        raise argparse.ArgumentTypeError(f"{path} is {path.stat().st_size} bytes, more than a settings file's "
                                         f"{MAX_CONFIG_BYTES}; give the JSON file of settings")
    return text


def add_backend_options(parser: argparse.ArgumentParser, work: str) -> None:
    """--backend and --address, for a command whose `work` Ray can spread over a cluster."""
    from ..interop import BACKENDS, CONNECT_SECONDS

    parser.add_argument("--backend", choices=BACKENDS, default="local",
                        help=f"where {work}: local processes (default), or Ray tasks and actors (distributed extra)")
    parser.add_argument("--address", help=f"with --backend ray: join the Ray cluster at this address (HOST:PORT, or "
                                          f"auto; refused when nothing answers there within {CONNECT_SECONDS} s); "
                                          f"default: start a local Ray instance")


def backend_problem(args) -> str | None:
    """Why the backend options cannot be followed (--address without Ray, Ray not installed, nothing answering at
    --address), or None."""
    import importlib.util

    address = getattr(args, "address", None)
    if address and args.backend != "ray":
        return "--address needs --backend ray"
    if getattr(args, "backend", "local") != "ray":
        return None
    if importlib.util.find_spec("ray") is None:
        return RAY_EXTRA
    from ..interop import address_problem

    return address and address_problem(address)
