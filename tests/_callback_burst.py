"""Run in a child process by tests/test_inbox_burst.py: a burst of callbacks and stalled
connections against one URL, from a process of its own (as a gateway is), so the burst is
not slowed down by the server it tests. Prints one JSON line.

``python _callback_burst.py URL VALID STALLED LIMIT``: opens ``STALLED`` connections that stop
(before their headers, inside them, inside the body: in turn) and ``VALID`` connections that
each post one valid reply callback, all at once (non-blocking sockets, one selector), then
reads until every connection is closed or ``LIMIT`` seconds have passed. Output:
``{"answers": [status or how it ended, ...], "closed_after": [seconds or null, ...]}``.
"""

from __future__ import annotations

import errno
import json
import selectors
import socket
import sys
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit


def reply_body(message_id: str) -> bytes:
    """A spec callback body."""
    return json.dumps(
        {"message_id": message_id, "number": "+33612345678", "text": "OUI",
         "sim_card_number": "38100", "reception_date": "2025-03-01T10:00:00Z"}
    ).encode()  # fmt: skip


def head(path: str, length: int) -> bytes:
    """Request line and headers of a callback POST with a body of ``length`` bytes."""
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {length}\r\nConnection: close\r\n\r\n"
    ).encode()


@dataclass
class Conn:
    """One connection of the burst: what it sends once connected, and what came back."""

    sock: socket.socket
    send: bytes
    valid: bool
    opened: float
    received: bytearray = field(default_factory=bytearray)
    ended: str | None = None
    closed_after: float | None = None


def main(url: str, valid: int, stalled: int, limit: float) -> dict[str, list[object]]:
    """The burst (see the module docstring)."""
    parts = urlsplit(url)
    address = (parts.hostname or "127.0.0.1", parts.port or 80)
    selector = selectors.DefaultSelector()
    conns: list[Conn] = []
    partial = head(parts.path, 1000)
    plan = [
        (False, [b"", partial[:30], partial + b'{"message_id":'][n % 3]) for n in range(stalled)
    ]
    for n in range(valid):
        body = reply_body(f"m{n}")
        plan.append((True, head(parts.path, len(body)) + body))
    for is_valid, payload in plan:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        code = sock.connect_ex(address)
        if code not in (0, errno.EINPROGRESS, errno.EWOULDBLOCK):
            raise OSError(code, "connect failed")
        conn = Conn(sock, payload, is_valid, time.monotonic())
        conns.append(conn)
        selector.register(sock, selectors.EVENT_WRITE, conn)
    open_ = len(conns)
    deadline = time.monotonic() + limit
    while open_ and time.monotonic() < deadline:
        for key, events in selector.select(timeout=0.5):
            conn = key.data
            if events & selectors.EVENT_WRITE:
                failed = conn.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if failed:
                    conn.ended = f"connect error {errno.errorcode.get(failed, failed)}"
                    selector.unregister(conn.sock)
                    conn.sock.close()
                    open_ -= 1
                    continue
                if conn.send:
                    conn.sock.send(conn.send)  # small: fits the socket buffer at once
                selector.modify(conn.sock, selectors.EVENT_READ, conn)
                continue
            try:
                chunk = conn.sock.recv(65536)
            except (ConnectionResetError, BrokenPipeError):
                chunk, conn.ended = b"", "reset"
            if chunk:
                conn.received += chunk
                continue
            conn.closed_after = time.monotonic() - conn.opened
            if conn.ended is None:
                status = bytes(conn.received).split(b" ", 2)
                conn.ended = status[1].decode() if len(status) > 1 else "closed without an answer"
            selector.unregister(conn.sock)
            conn.sock.close()
            open_ -= 1
    for conn in conns:
        if conn.closed_after is None:
            conn.sock.close()
    return {
        "answers": [c.ended or "still open" for c in conns if c.valid],
        "closed_after": [c.closed_after for c in conns if not c.valid],
    }


if __name__ == "__main__":
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 8192 if hard == resource.RLIM_INFINITY else min(hard, 8192)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    url, valid, stalled, limit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    print(json.dumps(main(url, valid, stalled, float(limit))))
