"""Provides `cuarenta-tutor serve`: the app in a browser (the web extra, textual-serve). Each browser tab runs its own
app process, the home screen of the plain command, with the same Python and the same user data folder: a game
started in the terminal continues in the browser and the other way round; up to --max-apps at once (by default as many
as the machine's memory holds, 2 to 16), a tab past them refused with a page that says so. It listens on this machine
only unless --host says otherwise."""

from __future__ import annotations

import ipaddress
import os
import shlex
import socket
import subprocess
import sys
from pathlib import Path

from ..i18n import N_, _
from .app import games_folder_writable, model_loads, one_thread, preflight, refuse
from .options import MAX_JOBS, PORT, bind_problem, whole

NAME = "serve"
HELP = N_("play in a browser (needs the web extra)")
DESCRIPTION = N_("Serve the tutor to a browser: open the URL it prints; each tab is its own app, with your games, "
                 "drills and lessons from the same data folder as in the terminal. Ctrl-C stops it and its apps.")

WEB_EXTRA = N_('serving in a browser needs the web extra: pip install "cuarenta-tutor[web]"')
DEFAULT_PORT = 8000
WILDCARDS = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}
"""The hosts that mean every address of this machine, and the one of them a browser here opens."""
APP_MB = 300
"""The memory one tab's app is given room for (about 150 MB resident once it shows its home screen: twice that leaves
room for the system, the server and an app's analysis)."""
APPS = (2, 16)
"""The fewest and the most apps the default --max-apps allows at once, whatever the machine's memory."""
UNKNOWN_MEMORY_APPS = 8
"""The default --max-apps where the machine's memory cannot be read (not Linux nor another POSIX system)."""


def add_arguments(parser) -> None:
    parser.add_argument("--host", default="127.0.0.1",
                        help=_("the address to listen on (default 127.0.0.1: this machine only; 0.0.0.0: every "
                               "network this machine is on, where anyone who reaches it can play and read your "
                               "games)"))
    parser.add_argument("--port", type=PORT, default=DEFAULT_PORT,
                        help=_("the port (default {port})").format(port=DEFAULT_PORT))
    most = default_max_apps()
    parser.add_argument("--max-apps", type=whole(1, MAX_JOBS), default=most, metavar="N",
                        help=_("the most apps running at once, one per browser tab; a tab past them gets a page that "
                               "says so (default: one per {mb} MB of this machine's memory, from {fewest} to {most}: "
                               "{default} here)").format(mb=APP_MB, fewest=APPS[0], most=APPS[1], default=most))


def run(args) -> int:
    import importlib.util

    if importlib.util.find_spec("textual_serve") is None:
        return refuse(NAME, _(WEB_EXTRA))
    one_thread()
    problem = preflight(model_loads(), games_folder_writable, lambda: port_problem(args.host, args.port))
    if problem:
        return refuse(NAME, problem)
    local = loopback(args.host)
    if not local:
        print(f"cuarenta-tutor {NAME}: " + _("warning: listening on {host}: anyone who can reach this address can "
                                             "play and read your saved games").format(host=args.host),
              file=sys.stderr, flush=True)
    from .. import records
    from .web import serve

    def listening() -> None:
        print(f"cuarenta-tutor {NAME}: " + _("open {url} in a browser (each tab is its own app; games are saved in "
                                             "{folder}; Ctrl-C stops)").format(url=url(args.host, args.port),
                                                                              folder=records.games_dir()),
              flush=True)

    problem = serve(app_command(getattr(args, "lang", None)), args.host, args.port, local, listening, args.max_apps)
    if problem:
        return refuse(NAME, problem)
    raise KeyboardInterrupt  # stopped by Ctrl-C (or SIGTERM), its apps with it: main says so, as for any command


def app_command(lang: str | None = None) -> str:
    """The shell command of one tab's app: the home screen, in this Python (exec'd, so the app is the process the
    server starts and stops, not a shell above it); in `lang` when `serve --lang` chose one (else each app reads the
    person's setting, then the environment, as the terminal's does)."""
    words = [sys.executable, "-m", "cuarenta_tutor.cli", *(["--lang", lang] if lang else [])]
    return f"exec {shlex.join(words)}" if os.name == "posix" else subprocess.list2cmdline(words)


def memory_bytes() -> int | None:
    """This machine's memory, or the limit of the container it runs in where that is lower; None where unknown."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # not POSIX
        total = None
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):  # cgroup v2, v1
        try:
            limit = int(Path(path).read_text().strip())
        except (OSError, ValueError):  # none, or "max": no limit
            continue
        total = limit if total is None else min(total, limit)
    return total if total and total > 0 else None


def default_max_apps() -> int:
    """The default --max-apps: an app per APP_MB of memory, from APPS[0] to APPS[1]."""
    memory = memory_bytes()
    if memory is None:
        return UNKNOWN_MEMORY_APPS
    return max(APPS[0], min(APPS[1], memory // (APP_MB << 20)))


def url(host: str, port: int) -> str:
    """The address a browser on this machine opens."""
    host = WILDCARDS.get(host, host)
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _addresses(host: str, port: int | None) -> list:
    return socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)


def loopback(host: str) -> bool:
    """Whether every address `host` names is this machine's loopback (only this machine can connect)."""
    try:
        return all(ipaddress.ip_address(str(info[4][0]).split("%")[0]).is_loopback for info in _addresses(host, None))
    except (OSError, ValueError):
        return False


def port_problem(host: str, port: int) -> str | None:
    """Why the server cannot listen on `host`:`port` (the port in use, no such host, no permission), found by
    binding it as the server will; None when it can."""
    try:
        addresses = _addresses(host, port)
    except OSError as err:
        return _("cannot listen on {host}: {error}; give an address of this machine").format(
            host=repr(host), error=getattr(err, "strerror", None) or err)
    for family, kind, proto, _name, address in addresses:
        with socket.socket(family, kind, proto) as sock:
            if os.name == "posix":  # as the server does: a port its last run left in TIME_WAIT can be taken again
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                sock.bind(address)
            except OSError as err:
                return bind_problem(host, port, err)
    return None
