"""Serve an ASGI app with uvicorn on loopback from a background thread.

Shared by the sandbox gateway and the inbound-replies receiver: both must start in well
under a second inside a notebook, report their real port, and stop cleanly. uvicorn is
imported only when a server starts, so importing this module stays cheap.

:class:`Guards` protect a server that faces untrusted clients. uvicorn closes a connection
idle after a response (``timeout_keep_alive``) and caps the size of request headers (h11,
16 KiB), but a client that connects and then sends nothing, or headers or a body slowly,
holds its connection forever; and ``limit_concurrency`` answers 503 to *every* new request
once stalled connections fill it, so legitimate callers would be shut out with them. The
guarded protocol adds what is missing, and sheds only stalled connections:

- each request (headers and body) must arrive within ``request_timeout`` of the connection
  opening or of the previous answer, or the connection is closed;
- a connection that has not delivered a whole request within ``header_timeout`` (the
  header deadline, same starting points) is *stalled*; while more than ``max_connections``
  are open, stalled connections are closed, the longest stalled first;
- a connection within its header deadline (in a burst, the legitimate callers that have
  just connected and are sending) and one whose request has arrived (the app's to answer)
  are never closed to make room. A burst may so hold more than ``max_connections``
  connections for up to ``header_timeout``; past the process's file limit, asyncio stops
  accepting for a moment and new connections wait in the listen queue, none is dropped.

A request's bytes that reached the socket before its header deadline count as arrived
however busy the server is: asyncio hands a connection its data before it runs the
deadline's timer of the same loop turn.

Why our own and not a setting: uvicorn 0.54's public settings were checked
(``uvicorn.Config``): ``timeout_keep_alive`` runs only *between* requests;
``h11_max_incomplete_event_size`` caps the size of headers, not how long they take;
``limit_concurrency`` refuses with 503 every new request, legitimate ones too, once stalled
connections fill it; ``timeout_graceful_shutdown`` and ``timeout_worker_healthcheck`` concern
stopping and worker processes. None bounds how long a request may take to *arrive*, so the
guard subclasses uvicorn's h11 protocol (given through the public ``http=`` setting) and
extends only ``connection_made``, ``on_response_complete`` and ``connection_lost`` (reading
its ``cycle``, ``connections``, ``loop`` and ``transport``); ``tests/test_inbox_burst.py``
and the stall tests fail if an upgrade breaks them. The quick-stopping server (a
notebook's ``stop()`` in milliseconds, not uvicorn's 0.1 s ticks) overrides
``Server.main_loop`` and ``shutdown`` for the same reason: no setting does it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import selectors
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any, ClassVar, Self

import httpx

from smskit.errors import NotStartedError

__all__ = ["BackgroundServer", "Guards", "Served", "host_header", "http_url", "read_body"]


def http_url(host: str, port: int) -> str:
    """``http://host:port`` of a server bound to ``host`` (an IPv6 address in brackets:
    ``http://[::1]:8765``), rendered by httpx, never by hand."""
    return str(httpx.URL(scheme="http", host=host, port=port))


def host_header(host: str) -> str:
    """``host`` as a Host header names it, lower case (what Starlette's trusted-host check
    compares): an IPv6 address in brackets (``[::1]``), a name in IDNA; rendered by httpx.
    A name httpx cannot read is kept as given (it then matches no request)."""
    try:
        return httpx.URL(scheme="http", host=host).netloc.decode("ascii").lower()
    except httpx.InvalidURL:
        return host.lower()


@dataclass(frozen=True, slots=True)
class Guards:
    """Limits for a server exposed to untrusted clients (see the module docstring), each > 0:
    the caller checks them (smskit.rules.ranges), as the Inbox does its settings."""

    request_timeout: float = 10.0
    keep_alive_timeout: int = 5
    max_connections: int = 256
    header_timeout: float = 5.0


class BackgroundServer:
    """One uvicorn server in a daemon thread; ``start()`` returns once it accepts connections."""

    def __init__(
        self,
        app: Any,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        name: str = "smskit",
        guards: Guards | None = None,
        date_header: bool = True,
    ) -> None:
        self.app = app
        self.date_header = date_header  # False: the app dates its own answers
        self.host = host
        self.requested_port = port
        self.name = name
        self.guards = guards
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None
        self._port: int | None = None

    @property
    def running(self) -> bool:
        """Whether the server thread is serving."""
        return self._thread is not None and self._thread.is_alive()

    @property
    def port(self) -> int:
        """The bound TCP port (the real one when 0 was asked)."""
        if self._port is None:
            raise RuntimeError(f"{self.name} server is not started: call start() first")
        return self._port

    @property
    def url(self) -> str:
        """Base URL, without a trailing slash."""
        return http_url(self.host, self.port)

    def start(self, timeout: float = 10.0) -> None:
        """Bind the socket here (so errors surface in the caller) and serve it in a thread."""
        if self.running:
            return
        import uvicorn

        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        # proto=IPPROTO_TCP matters: asyncio sets TCP_NODELAY on accepted connections only
        # then, and without it every response waits ~40 ms for a delayed ACK.
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.host, self.requested_port))
        except OSError:
            sock.close()
            raise
        sock.listen(128)
        sock.set_inheritable(True)
        self._socket = sock
        self._port = sock.getsockname()[1]
        options: dict[str, Any] = {}
        if self.guards is not None:
            options["http"] = _guarded_protocol(self.guards)
            options["timeout_keep_alive"] = self.guards.keep_alive_timeout
        # log_config=None and log_level=None: a notebook's logging setup is not ours to rewrite.
        config = uvicorn.Config(
            self.app,
            lifespan="off",
            log_config=None,
            log_level=None,
            access_log=False,
            timeout_graceful_shutdown=2,
            date_header=self.date_header,
            **options,
        )
        server = _quick_server_class()(config)
        self._server = server
        thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name=f"{self.name}-server", daemon=True
        )
        self._thread = thread
        thread.start()
        deadline = time.monotonic() + timeout
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{self.name} server did not start on {self.host}")
            time.sleep(0.002)

    def stop(self, timeout: float = 5.0) -> None:
        """Ask uvicorn to exit, wait for the thread, release the socket."""
        if self._server is not None:
            self._server.should_exit = True
            self._server.wake()
        if self._thread is not None:
            self._thread.join(timeout)
        if self._socket is not None:
            self._socket.close()
        self._server = None
        self._thread = None
        self._socket = None

    def __enter__(self) -> BackgroundServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        where = self.url if self._port is not None else http_url(self.host, self.requested_port)
        state = "running" if self.running else "stopped"
        return f"<BackgroundServer {self.name} {where} {state}>"


class Served:
    """Start/stop/``with`` for an object that serves one ASGI app (the sandbox, the inbox).

    Subclasses call ``_init_served(host, port)`` and build their app in ``_app()``.
    """

    _server_name = "smskit"
    _date_header = True  # uvicorn's Date header (wall clock); False: the app sets its own

    def _init_served(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self._server: BackgroundServer | None = None
        self._lock = threading.Lock()

    def _app(self) -> Any:
        raise NotImplementedError

    def _guards(self) -> Guards | None:
        return None  # a subclass facing untrusted clients returns its limits

    @property
    def running(self) -> bool:
        """Whether the HTTP server is up."""
        return self._server is not None and self._server.running

    def _served_url(self) -> str:
        if self._server is None:
            name = type(self).__name__
            raise NotStartedError(
                f"{name} is not started: call start() or use `with {name}() as ...`"
            )
        return self._server.url

    def start(self) -> Self:
        """Serve on ``host:port`` (an ephemeral port by default) from a thread; returns self."""
        with self._lock:
            if not self.running:
                server = BackgroundServer(
                    self._app(),
                    host=self.host,
                    port=self.port,
                    name=self._server_name,
                    guards=self._guards(),
                    date_header=self._date_header,
                )
                server.start()
                self._server = server
            return self

    def stop(self) -> None:
        """Stop serving; the state stays (``start()`` serves it again)."""
        with self._lock:
            if self._server is not None:
                self._server.stop()
                self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


@functools.cache
def _quick_server_class() -> Any:
    """uvicorn.Server whose main loop wakes at once on stop() instead of at its next 0.1 s tick,
    and whose shutdown ends as soon as its connections are closed (not after fixed 0.1 s
    sleeps)."""
    import uvicorn

    class QuickServer(uvicorn.Server):
        _loop: asyncio.AbstractEventLoop | None = None
        _wake: asyncio.Event | None = None

        async def main_loop(self) -> None:
            self._wake = asyncio.Event()
            self._loop = asyncio.get_running_loop()
            counter = 0
            # on_tick refreshes the Date header when counter % 10 == 0: each wait here lasts
            # up to a second, so step by 10 to keep uvicorn's once-a-second refresh.
            while not await self.on_tick(counter):
                counter = (counter + 10) % 864000
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), 1.0)

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            # uvicorn's own shutdown sleeps 0.1 s after asking connections to close, then polls
            # every 0.1 s: most of a short command's exit. The same steps, polled every 5 ms.
            for server in self.servers:
                server.close()
            for sock in sockets or []:
                sock.close()
            state = self.server_state
            for connection in list(state.connections):
                connection.shutdown()
            loop = asyncio.get_running_loop()
            deadline = loop.time() + (self.config.timeout_graceful_shutdown or 0)
            while (state.connections or state.tasks) and not self.force_exit:
                if loop.time() >= deadline:
                    for task in state.tasks:
                        task.cancel()
                    break
                await asyncio.sleep(0.005)
            if not self.force_exit:
                await self.lifespan.shutdown()

        def wake(self) -> None:
            if self._loop is not None and self._wake is not None:
                with contextlib.suppress(RuntimeError):  # loop already closed
                    self._loop.call_soon_threadsafe(self._wake.set)

    return QuickServer


def _guarded_protocol(guards: Guards) -> type[Any]:
    """uvicorn's h11 protocol with a per-request deadline, a header deadline and a connection
    cap that sheds only stalled connections (see the module docstring)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    header_timeout = min(guards.header_timeout, guards.request_timeout)

    class GuardedH11(H11Protocol):
        # One class per server: these are that server's books, kept by its event loop thread.
        stalled: ClassVar[dict[GuardedH11, None]] = {}  # in order: the longest stalled first
        shed: ClassVar[set[GuardedH11]] = set()  # closed for room, not yet out of connections
        _deadline: asyncio.TimerHandle | None = None
        _header_deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()
            self._make_room()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            for timer in (self._deadline, self._header_deadline):
                if timer is not None:
                    timer.cancel()
            self.stalled.pop(self, None)
            self.shed.discard(self)
            super().connection_lost(exc)

        def waiting_for_client(self) -> bool:
            """No request yet, or one whose headers or body are still arriving."""
            cycle = self.cycle
            return cycle is None or cycle.response_complete or cycle.more_body

        def _arm(self) -> None:
            """Start both deadlines: at connection open, and after each answer."""
            for timer in (self._deadline, self._header_deadline):
                if timer is not None:
                    timer.cancel()
            self.stalled.pop(self, None)
            self._deadline = self.loop.call_later(guards.request_timeout, self._expire)
            self._header_deadline = self.loop.call_later(header_timeout, self._stall)

        def _expire(self) -> None:
            # A request whose body has fully arrived is the app's to finish, however slow.
            if self.waiting_for_client() and not self.transport.is_closing():
                self.transport.close()

        def _stall(self) -> None:
            if not self.waiting_for_client() or self.transport.is_closing():
                return
            if _bytes_waiting(self.transport):
                # It is sending; the server has not read it yet (a busy loop): look again.
                self._header_deadline = self.loop.call_later(header_timeout / 4, self._stall)
                return
            self.stalled[self] = None
            self._make_room()

        def _make_room(self) -> None:
            """Close stalled connections, the longest stalled first, while too many are open."""
            while self.stalled and len(self.connections) - len(self.shed) > guards.max_connections:
                victim = next(iter(self.stalled))
                del self.stalled[victim]
                if victim.waiting_for_client() and not victim.transport.is_closing():
                    self.shed.add(victim)  # leaves `connections` at connection_lost
                    victim.transport.close()

    return GuardedH11


def _bytes_waiting(transport: asyncio.BaseTransport) -> bool:
    """Whether the connection's socket holds bytes (or its end) the server has not read."""
    sock = transport.get_extra_info("socket")
    if sock is None:
        return False
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(sock.fileno(), selectors.EVENT_READ)
            return bool(selector.select(0))
    except (OSError, ValueError):  # no file left for the selector, or a closed socket
        return False


async def read_body(request: Any, limit: int) -> tuple[bytes | None, int]:
    """A request's body and its size, or None once it passes ``limit`` bytes (declared
    or streamed): a server refuses a body too large before reading it whole."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return None, int(declared)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None, size
        chunks.append(chunk)
    return b"".join(chunks), size
