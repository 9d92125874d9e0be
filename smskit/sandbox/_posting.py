"""POST one callback body to a loopback URL over a kept-alive connection; name the outcome.

Owns how the sandbox's callback worker talks HTTP (the queue, retries and log are
:mod:`smskit.sandbox._callbacks`'). Imports only the standard library.

Why ``http.client`` and not httpx: a callback is one small POST to this machine, and httpx's
request and response models, URL parser and connection pool cost about twice the CPU of the
whole exchange here (docs/benchmarks.md, "Sandbox callbacks"), paid ~12,000 times by a
5,000-recipient campaign with its delivery reports. Each URL is parsed once (:func:`target`);
each worker keeps one connection per origin and reuses it while the receiver keeps it open.
Nothing here logs, so the token in a callback URL is never written anywhere.

An attempt's outcome is the HTTP status as text (``"200"``, ``"503"``) or the name of the
failure, the same names as httpx's exceptions so the delivery log reads as before:
``ConnectError``, ``ConnectTimeout`` (nobody listening, or too slow to accept),
``WriteError``, ``WriteTimeout`` (sending the request), ``ReadError``, ``ReadTimeout``
(waiting for the answer), ``RemoteProtocolError`` (closed without an answer, or an answer
that is not HTTP).
"""

from __future__ import annotations

import functools
import http.client
import select
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = ["Poster", "Target", "target"]


@dataclass(frozen=True, slots=True)
class Target:
    """A callback URL split once: where to connect, and the path (with query) to POST."""

    scheme: str
    host: str
    port: int
    path: str


@functools.lru_cache(maxsize=256)
def target(url: str) -> Target:
    """``url`` split for posting (cached: a campaign's callbacks share a handful of URLs)."""
    parts = urlsplit(url)
    path = parts.path or "/"
    if parts.query:
        path = f"{path}?{parts.query}"
    try:
        port = parts.port
    except ValueError:  # a port out of range: every attempt fails to connect
        port = -1
    default = 443 if parts.scheme == "https" else 80
    return Target(parts.scheme, parts.hostname or "", default if port is None else port, path)


class Poster:
    """One worker's connections, one per origin, kept alive between callbacks."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout  # seconds per operation: connect, each send, each read
        self._connections: dict[tuple[str, str, int], http.client.HTTPConnection] = {}

    def post(self, where: Target, body: bytes, headers: dict[str, str]) -> str:
        """POST ``body``; the answer's status (``"200"``) or the failure's name."""
        origin = (where.scheme, where.host, where.port)
        kept = self._connections.pop(origin, None)
        if kept is not None and (kept.sock is None or _closed_by_peer(kept)):
            kept.close()  # closed by the receiver while idle: open a new one
            kept = None
        connection = kept if kept is not None else self._connect(where)
        if isinstance(connection, str):
            return connection
        try:
            connection.request("POST", where.path, body=body, headers=headers)
        except Exception as exc:  # any failure is an outcome to log and retry
            return _failed(connection, "Write", exc)
        try:
            response = connection.getresponse()
            response.read()
        except Exception as exc:
            return _failed(connection, "Read", exc)
        self._connections[origin] = connection
        return str(response.status)

    def close(self) -> None:
        """Close every connection (the worker is ending)."""
        for connection in self._connections.values():
            connection.close()
        self._connections.clear()

    def _connect(self, where: Target) -> http.client.HTTPConnection | str:
        connection: http.client.HTTPConnection
        try:
            if where.port < 0:
                raise OSError("port out of range")
            secure = where.scheme == "https"
            kind = http.client.HTTPSConnection if secure else http.client.HTTPConnection
            connection = kind(where.host, where.port, timeout=self.timeout)
            connection.connect()
        except TimeoutError:
            return "ConnectTimeout"
        except Exception:  # refused, unreachable, TLS failed: a connect error
            return "ConnectError"
        return connection


def _failed(connection: http.client.HTTPConnection, phase: str, exc: Exception) -> str:
    """Close the connection (its state is unknown) and name the failure as httpx would."""
    connection.close()
    if isinstance(exc, TimeoutError):
        return f"{phase}Timeout"
    if isinstance(exc, http.client.HTTPException):  # RemoteDisconnected too
        return "RemoteProtocolError"
    return f"{phase}Error"


def _closed_by_peer(connection: http.client.HTTPConnection) -> bool:
    """Whether a kept-alive connection became readable while idle: the receiver closed it
    (or sent bytes nobody asked for); either way it cannot carry the next request."""
    sock = connection.sock
    if not isinstance(sock, socket.socket):
        return True
    poller = select.poll()  # not select.select: it refuses descriptors past 1023
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(0))
