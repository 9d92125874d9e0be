"""Serve an ASGI app with uvicorn on loopback from a background thread.

Shared by the sandbox gateway and the inbound-replies receiver: both must start in well
under a second inside a notebook, report their real port, and stop cleanly. uvicorn is
imported only when a server starts, so importing this module stays cheap.

:class:`Guards` protect a server that faces untrusted clients. uvicorn closes a connection
idle after a response (``timeout_keep_alive``) and caps the size of request headers (h11,
16 KiB), but a client that connects and then sends nothing, or headers or a body slowly,
holds its connection forever; and ``limit_concurrency`` answers 503 to *every* new request
once stalled connections fill it, so legitimate callers would be shut out with them. The
guarded protocol adds the two missing pieces: each request (headers and body) must arrive
within ``request_timeout`` of the connection opening or of the previous answer, and past
``max_connections`` the oldest connection still waiting for its client is closed to make
room, so stalled clients can delay a legitimate one by at most one connection setup.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import socket
import threading
import time
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self

__all__ = ["BackgroundServer", "Guards", "Served"]


@dataclass(frozen=True, slots=True)
class Guards:
    """Limits for a server exposed to untrusted clients (see the module docstring)."""

    request_timeout: float = 10.0
    keep_alive_timeout: int = 5
    max_connections: int = 256

    def __post_init__(self) -> None:
        for name in ("request_timeout", "keep_alive_timeout", "max_connections"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
                raise ValueError(f"{name}: must be a positive number, got {value!r}")
        if not isinstance(self.keep_alive_timeout, int) or not isinstance(
            self.max_connections, int
        ):
            raise ValueError("keep_alive_timeout and max_connections: must be whole numbers")


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
    ) -> None:
        self.app = app
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
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

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

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        where = self.url if self._port is not None else f"{self.host}:{self.requested_port}"
        state = "running" if self.running else "stopped"
        return f"<BackgroundServer {self.name} {where} {state}>"


class Served:
    """Start/stop/``with`` for an object that serves one ASGI app (the sandbox, the inbox).

    Subclasses call ``_init_served(host, port)`` and build their app in ``_app()``.
    """

    _server_name = "smskit"

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
            raise RuntimeError(f"{name} is not started: call start() or use `with {name}() as ...`")
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

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
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


_opened = itertools.count()  # connection order, for evicting the oldest stalled one


def _guarded_protocol(guards: Guards) -> type[Any]:
    """uvicorn's h11 protocol with a per-request deadline and a connection cap."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None
        _order = 0

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._order = next(_opened)
            self._arm()
            self._make_room()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            super().connection_lost(exc)

        def waiting_for_client(self) -> bool:
            """No request yet, or one whose headers or body are still arriving."""
            cycle = self.cycle
            return cycle is None or cycle.response_complete or cycle.more_body

        def _arm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            self._deadline = self.loop.call_later(guards.request_timeout, self._expire)

        def _expire(self) -> None:
            # A request whose body has fully arrived is the app's to finish, however slow.
            if self.waiting_for_client() and not self.transport.is_closing():
                self.transport.close()

        def _make_room(self) -> None:
            # A closed transport leaves `connections` only at connection_lost, a loop turn later.
            open_ = [c for c in self.connections if not c.transport.is_closing()]
            if len(open_) <= guards.max_connections:
                return
            stalled = [
                c
                for c in open_
                if isinstance(c, GuardedH11) and c.waiting_for_client() and c is not self
            ]
            victim = min(stalled, key=lambda c: c._order, default=self)
            victim.transport.close()

    return GuardedH11
