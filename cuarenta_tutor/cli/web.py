"""Provides the web server of `cuarenta-tutor serve`: textual-serve's (the web extra), quiet but for the caller's
line once it listens. A browser tab's websocket starts one app process; a stop (SIGINT, SIGTERM) closes the
listening socket, asks every app to quit, kills any still running after QUIT_SECONDS, and only then returns."""

from __future__ import annotations

import asyncio
import html
import ipaddress
import signal
from typing import Callable
from urllib.parse import urlsplit

from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from .. import i18n
from ..i18n import _
from .options import bind_problem

QUIT_SECONDS = 5.0
"""How long the apps get to quit on a stop (each saved its game after every move) before they are killed."""


class TutorServer(Server):
    """textual-serve's server, which knows its apps, so a stop ends every one of them, whose page connects back to
    the address the browser used (a server on 0.0.0.0 is reached at any of the machine's addresses), and whose apps
    only its own page drives: any web page may open a websocket to this machine, so one from another site's page
    (its Origin) or, on a server for this machine only, through another name (a DNS rebinding) is refused."""

    def __init__(self, command: str, local_only: bool):
        super().__init__(command, title=_("Cuarenta Tutor"))  # the page's title, in the language of the command
        self.local_only = local_only
        self.apps: dict[web.WebSocketResponse, AppService] = {}
        """The running apps, by the websocket of their tab."""

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
        self.public_url = f"{request.scheme}://{request.host}"  # read at once by the page's template (no await)
        response = await super().handle_index(request)
        response.text = in_language(response.text)
        return response

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One tab: its app process, fed the tab's keys and resizes, until either side closes."""
        if problem := self.refusal(request):
            raise web.HTTPForbidden(text=problem)
        websocket = web.WebSocketResponse(heartbeat=15)
        await websocket.prepare(request)
        app = AppService(self.command, write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                         close=websocket.close, download_manager=self.download_manager)
        self.apps[websocket] = app
        try:
            await app.start(to_int(request.query.get("width", "80"), 80), to_int(request.query.get("height", "24"), 24))
            await self._process_messages(websocket, app)
        finally:
            await app.stop()
            await websocket.close()
            self.apps.pop(websocket, None)
        return websocket

    async def on_shutdown(self, app: web.Application) -> None:
        """Ask every app to quit; after QUIT_SECONDS kill those still running; close their tabs' sockets."""
        apps = dict(self.apps)
        processes = [service._process for service in apps.values() if service._process is not None]
        for service in apps.values():
            await service.send_meta({"type": "quit"})
        if processes:
            await asyncio.wait([asyncio.ensure_future(p.wait()) for p in processes], timeout=QUIT_SECONDS)
        for process in processes:
            if process.returncode is None:
                process.kill()
                await process.wait()
        for websocket in apps:
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


def loopback_name(name: str | None) -> bool:
    """Whether a Host header's name is this machine's own (localhost, a loopback address)."""
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name or "").is_loopback
    except ValueError:
        return False


def serve(command: str, host: str, port: int, local_only: bool, listening: Callable[[], None]) -> str | None:
    """Serve `command`, one process a tab, on `host`:`port` (`local_only`: a loopback address) until SIGINT or
    SIGTERM; `listening()` once it listens. None after a stop, or why it could not listen (the port taken since it
    was checked)."""
    return asyncio.run(_serve(TutorServer(command, local_only), host, port, listening))


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
