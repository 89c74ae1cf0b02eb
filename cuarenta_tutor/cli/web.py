"""Provides the web server of `cuarenta-tutor serve`: textual-serve's (the web extra), quiet but for the caller's
line once it listens. A browser tab's websocket starts one app process, up to the server's most at once (a tab past
them is told so, on its page); a closed tab's app is asked to quit and killed if it still runs after QUIT_SECONDS, its
place free once it has ended. A stop (SIGINT, SIGTERM) closes the listening socket, ends every app the same way, and
only then returns."""

from __future__ import annotations

import asyncio
import html
import ipaddress
import signal
import sys
import textwrap
from typing import Callable
from urllib.parse import urlsplit

from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from .. import i18n
from ..i18n import _, ngettext
from .options import bind_problem

QUIT_SECONDS = 5.0
"""How long an app gets to quit, its tab closed or the server stopped (it saved its game after every move), before it
is killed."""


class TutorServer(Server):
    """textual-serve's server, which knows its apps, so a stop ends every one of them, whose page connects back to
    the address the browser used (a server on 0.0.0.0 is reached at any of the machine's addresses), and whose apps
    only its own page drives: any web page may open a websocket to this machine, so one from another site's page
    (its Origin) or, on a server for this machine only, through another name (a DNS rebinding) is refused. It runs
    `max_apps` apps at once: a tab past them gets a page (or, its page already loaded, a line on its terminal) saying
    so."""

    def __init__(self, command: str, local_only: bool, max_apps: int = 16, quit_seconds: float = QUIT_SECONDS):
        super().__init__(command, title=_("Cuarenta Tutor"))  # the page's title, in the language of the command
        self.local_only = local_only
        self.max_apps = max_apps
        self.quit_seconds = quit_seconds
        self.apps: dict[web.WebSocketResponse, AppService] = {}
        """The apps, by the websocket of their tab: each from before its process starts until it has ended."""
        self.turned_away: set[web.WebSocketResponse] = set()
        """The tabs told the server is full, open until they close (or the server stops)."""
        self.said_full = False
        """Whether the server has said it turned a tab away since an app last ended."""

    def full(self) -> bool:
        return len(self.apps) >= self.max_apps

    def full_message(self) -> str:
        return ngettext("The tutor is already open in {count} tab, the most this server runs at once: close it, then "
                        "reload this page.",
                        "The tutor is already open in {count} tabs, the most this server runs at once: close one of "
                        "them, then reload this page.", self.max_apps).format(count=self.max_apps)

    def say_full(self) -> None:
        """The line the server prints when it turns a tab away, so whoever runs it knows to raise --max-apps (once
        until an app ends: a page reloaded again and again is not a line each time)."""
        if self.said_full:
            return
        self.said_full = True
        print("cuarenta-tutor serve: " + ngettext(
            "a tab was turned away: {count} app already runs, the most at once (--max-apps)",
            "a tab was turned away: {count} apps already run, the most at once (--max-apps)",
            self.max_apps).format(count=self.max_apps), file=sys.stderr, flush=True)

    def refusal(self, request: web.Request) -> str | None:
        """Why this request may not reach an app, or None."""
        if self.local_only and not loopback_name(urlsplit(f"//{request.host}").hostname):
            return _("this server answers to this machine's own addresses only, not {host}").format(host=request.host)
        origin = request.headers.get("Origin")
        if origin is not None and urlsplit(origin).netloc != request.host:
            return _("a page from {origin} may not drive the tutor").format(origin=origin)
        return None

    async def on_startup(self, app: web.Application) -> None:
        """textual-serve prints its logo here; the caller prints one line instead."""

    async def handle_index(self, request: web.Request):
        if problem := self.refusal(request):
            raise web.HTTPForbidden(text=problem)
        if self.full():
            self.say_full()
            return web.Response(status=503, text=full_page(self.full_message()), content_type="text/html")
        self.public_url = f"{request.scheme}://{request.host}"  # read at once by the page's template (no await)
        response = await super().handle_index(request)
        response.text = in_language(response.text)
        return response

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One tab: its app process, fed the tab's keys and resizes, until either side closes; then the app ended
        (`end`). Past the most apps, the tab is told so instead (`turn_away`)."""
        if problem := self.refusal(request):
            raise web.HTTPForbidden(text=problem)
        websocket = web.WebSocketResponse(heartbeat=15)
        width, height = to_int(request.query.get("width", "80"), 80), to_int(request.query.get("height", "24"), 24)
        if self.full():
            await websocket.prepare(request)
            await self.turn_away(websocket, width)
            return websocket
        app = AppService(self.command, write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                         close=websocket.close, download_manager=self.download_manager)
        self.apps[websocket] = app  # its place taken before any wait: two tabs at once never both take the last one
        try:
            await websocket.prepare(request)
            await app.start(width, height)
            await self._process_messages(websocket, app)
        finally:
            try:
                await self.end(app)
            finally:
                self.apps.pop(websocket, None)
                self.said_full = False
            await websocket.close()
        return websocket

    async def turn_away(self, websocket: web.WebSocketResponse, width: int) -> None:
        """Tell a tab the server runs its most apps, on its terminal (closing it would cover the words with the page's
        "Session ended."); it stays so until the tab closes."""
        self.turned_away.add(websocket)
        self.say_full()
        try:
            lines = textwrap.wrap(self.full_message(), max(20, min(width, 200) - 4))
            await websocket.send_bytes(("\r\n" + "".join(f"  {line}\r\n" for line in lines)).encode())
            async for _message in websocket:  # the page's keys and pings: nothing runs them
                pass
        finally:
            self.turned_away.discard(websocket)

    async def end(self, app: AppService) -> None:
        """End a tab's app: asked to quit, killed if it still runs after `quit_seconds`; returns once it has ended
        (its output read to the end, unless a process it started holds it open past another `quit_seconds`)."""
        process = app._process
        if process is not None and process.returncode is None:
            await app.send_meta({"type": "quit"})
            try:
                await asyncio.wait_for(process.wait(), self.quit_seconds)  # its exit and the end of its pipes
            except asyncio.TimeoutError:
                if process.returncode is None:
                    process.kill()
                try:
                    await asyncio.wait_for(process.wait(), self.quit_seconds)
                except asyncio.TimeoutError:  # it has exited, but a process it started holds its pipes
                    pass
        task = app._task  # the reader of its output
        if task is not None:
            try:
                await asyncio.wait_for(task, self.quit_seconds)  # cancelled, if still reading past them
            except asyncio.TimeoutError:
                pass
            app._task = None
        await self.download_manager.cancel_app_downloads(app_service_id=app.app_service_id)

    async def on_shutdown(self, app: web.Application) -> None:
        """End every app at once (each asked to quit, killed after `quit_seconds`); close every tab's socket."""
        apps = dict(self.apps)
        await asyncio.gather(*(self.end(service) for service in apps.values()))
        for websocket in [*apps, *self.turned_away]:
            await websocket.close()


def in_language(page: str) -> str:
    """textual-serve's page in the language in use: its language, a title for the browser's tab (it has none), the
    words of its start and closed dialogs."""
    words = {"Start": _("Start"), "Session ended.": _("Session ended."), "Restart": _("Restart")}
    changes = [("<html>", '<html lang="{lang}">'.format(lang=i18n.language()))]
    changes += [(f">{before}<", f">{html.escape(after)}<") for before, after in words.items()]
    if "<title>" not in page:
        changes.append(("<head>", "<head>\n    <title>{title}</title>".format(title=html.escape(_("Cuarenta Tutor")))))
    for before, after in changes:
        page = page.replace(before, after, 1)
    return page


def full_page(message: str) -> str:
    """The page a browser gets while the server runs its most apps, in the language in use."""
    return ('<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n<title>{title}</title>\n</head>\n'
            '<body style="background: #0c181f; color: #f2f2f2; font: 18px/1.5 menlo, monospace; margin: 3em;">\n'
            '<p>{message}</p>\n</body>\n</html>\n').format(lang=i18n.language(), title=html.escape(_("Cuarenta Tutor")),
                                                       message=html.escape(message))


def loopback_name(name: str | None) -> bool:
    """Whether a Host header's name is this machine's own (localhost, a loopback address)."""
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name or "").is_loopback
    except ValueError:
        return False


def serve(command: str, host: str, port: int, local_only: bool, listening: Callable[[], None],
          max_apps: int = 16) -> str | None:
    """Serve `command`, one process a tab, `max_apps` at most, on `host`:`port` (`local_only`: a loopback address)
    until SIGINT or SIGTERM; `listening()` once it listens. None after a stop, or why it could not listen (the port
    taken since it was checked)."""
    return asyncio.run(_serve(TutorServer(command, local_only, max_apps), host, port, listening))


async def _serve(server: TutorServer, host: str, port: int, listening: Callable[[], None]) -> str | None:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(sig) is not signal.SIG_IGN:  # started with Ctrl-C ignored (nohup, `&`): it stays so
            try:
                loop.add_signal_handler(sig, stop.set)
            except NotImplementedError:  # Windows: Ctrl-C cancels this coroutine, and `finally` still stops the apps
                pass
    runner = web.AppRunner(await server._make_app(), handle_signals=False, access_log=None,
                           shutdown_timeout=QUIT_SECONDS)
    await runner.setup()
    try:
        try:
            await web.TCPSite(runner, host, port).start()
        except OSError as err:
            return bind_problem(host, port, err)
        listening()
        await stop.wait()
    finally:
        await runner.cleanup()
    return None
