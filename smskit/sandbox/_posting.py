"""POST one callback body to a loopback URL over a kept-alive connection; name the outcome.

Owns how the sandbox's callback worker talks HTTP (the queue, retries and log are
:mod:`smskit.sandbox._callbacks`'). Imports only the standard library.

Why not httpx: a callback is one small POST to this machine, and httpx's request and
response models, URL parser and connection pool cost more CPU than the receiver's whole
answer here (docs/benchmarks.md, "Sandbox callbacks: the sender's share"), paid ~12,000
times by a 5,000-recipient campaign with its delivery reports. So each URL is split once
(:func:`target`, which also gives the request's first lines); a request is written in one
``sendall`` (headers and body in one segment: ``http.client`` sends them in two, and the
receiver then wakes twice); the answer is read by the standard library's
``http.client.HTTPResponse`` (status line, headers, a body by length, chunked or up to the
close). Each worker keeps one connection per origin and reuses it until the receiver closes
it, which is checked before each reuse. Nothing here logs, so the token in a callback URL is
never written anywhere.

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
import ssl
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

__all__ = ["Poster", "Target", "target"]

# Characters a request target may hold as they are (RFC 3986 reserved and unreserved, and
# "%" for escapes already made); anything else (a space, a control character, non-ASCII)
# is percent-encoded, as httpx did.
_PATH_SAFE = "!#$%&'()*+,/:;=?@[]~-._"


@dataclass(frozen=True, slots=True)
class Target:
    """A callback URL split once: where to connect, and the request's head up to its
    per-attempt headers."""

    scheme: str
    host: str
    port: int
    head: bytes  # "POST <path> HTTP/1.1\r\nHost: ...\r\n"


@functools.lru_cache(maxsize=256)
def target(url: str) -> Target:
    """``url`` split for posting (cached: a campaign's callbacks share a handful of URLs)."""
    parts = urlsplit(url)
    path = parts.path or "/"
    if parts.query:
        path = f"{path}?{parts.query}"
    host = parts.hostname or ""
    default = 443 if parts.scheme == "https" else 80
    try:
        port = parts.port or default
    except ValueError:  # a port out of range: every attempt fails to connect
        port = -1
    named = f"[{host}]" if ":" in host else host
    if port != default:
        named = f"{named}:{port}"
    head = f"POST {quote(path, safe=_PATH_SAFE)} HTTP/1.1\r\nHost: {named}\r\n"
    return Target(parts.scheme, host, port, head.encode("ascii", "replace"))


class Poster:
    """One worker's connections, one per origin, kept alive between callbacks."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout  # seconds per operation: connect, each send, each read
        self._connections: dict[tuple[str, str, int], socket.socket] = {}

    def post(self, where: Target, body: bytes, headers: dict[str, str]) -> str:
        """POST ``body`` with ``headers`` (names and values of our own, never a user's);
        the answer's status (``"200"``) or the failure's name."""
        origin = (where.scheme, where.host, where.port)
        kept = self._connections.pop(origin, None)
        if kept is not None and _closed_by_peer(kept):
            kept.close()  # closed by the receiver while idle: open a new one
            kept = None
        sock = kept if kept is not None else self._connect(where)
        if isinstance(sock, str):
            return sock
        lines = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        request = b"%s%sContent-Length: %d\r\n\r\n%s" % (
            where.head, lines.encode("latin-1"), len(body), body
        )  # fmt: skip
        try:
            sock.sendall(request)
        except Exception as exc:  # any failure is an outcome to log and retry
            return _failed(sock, "Write", exc)
        try:
            response = http.client.HTTPResponse(sock, method="POST")
            response.begin()
            response.read()
            response.close()  # its reader only: the socket stays open
        except Exception as exc:
            return _failed(sock, "Read", exc)
        if response.will_close:
            sock.close()
        else:
            self._connections[origin] = sock
        return str(response.status)

    def close(self) -> None:
        """Close every connection (the worker is ending)."""
        for sock in self._connections.values():
            sock.close()
        self._connections.clear()

    def _connect(self, where: Target) -> socket.socket | str:
        try:
            if where.port < 0:
                raise OSError("port out of range")
            sock = socket.create_connection((where.host, where.port), self.timeout)
        except TimeoutError:
            return "ConnectTimeout"
        except Exception:  # refused, unreachable: a connect error
            return "ConnectError"
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if where.scheme != "https":
            return sock
        try:
            context = ssl.create_default_context()
            return context.wrap_socket(sock, server_hostname=where.host)
        except TimeoutError:
            sock.close()
            return "ConnectTimeout"
        except Exception:  # the TLS handshake failed (a certificate not trusted...)
            sock.close()
            return "ConnectError"


def _failed(sock: socket.socket, phase: str, exc: Exception) -> str:
    """Close the connection (its state is unknown) and name the failure as httpx would."""
    sock.close()
    if isinstance(exc, TimeoutError):
        return f"{phase}Timeout"
    if isinstance(exc, http.client.HTTPException):  # RemoteDisconnected too
        return "RemoteProtocolError"
    return f"{phase}Error"


def _closed_by_peer(sock: socket.socket) -> bool:
    """Whether a kept-alive connection became readable while idle: the receiver closed it
    (or sent bytes nobody asked for); either way it cannot carry the next request."""
    poller = select.poll()  # not select.select: it refuses descriptors past 1023
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(0))
