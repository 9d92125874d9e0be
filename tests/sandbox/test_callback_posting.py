"""How the sandbox's callback worker posts: kept-alive connections, and the names of failures
in the delivery log (smskit.sandbox._posting)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from _receiver import Receiver

from smskit._server import BackgroundServer
from smskit.sandbox import Sandbox
from smskit.sandbox._posting import Poster, target

FR = "+33612345678"
BODY = b'{"message_id": "m-1"}'
HEADERS = {"content-type": "application/json"}


class PortRecorder(Receiver):
    """A receiver that also notes the client port of each request (one port: one connection)."""

    def __init__(self) -> None:
        super().__init__()
        self.ports: list[int] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.ports.append(scope["client"][1])
        await super().__call__(scope, receive, send)


@contextmanager
def raw_server(handle: Callable[[socket.socket], None]) -> Iterator[tuple[int, list[int]]]:
    """A loopback TCP server giving each connection to ``handle`` (then closing it); yields
    its port and a list that grows by one per connection accepted."""
    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[int] = []
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.05)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            accepted.append(1)
            with conn:
                handle(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1], accepted
    finally:
        stop.set()
        thread.join(5)
        listener.close()


def read_request(conn: socket.socket) -> None:
    """Read one small request (headers and the test's body) from ``conn``."""
    data = b""
    while not data.endswith(BODY):
        chunk = conn.recv(65536)
        if not chunk:
            return
        data += chunk


def test_callbacks_share_one_kept_alive_connection(fresh_sandbox: Sandbox) -> None:
    """Several callbacks to one receiver travel over one connection, each answered 200."""
    app = PortRecorder()
    with BackgroundServer(app, name="receiver") as server:
        fresh_sandbox.set_callback_url(server.url + "/in")
        outcomes = [fresh_sandbox.simulate_reply(FR, f"reply {i}") for i in range(5)]
    assert [o["last_status"] for o in outcomes] == ["200"] * 5
    assert len(app.ports) == 5 and len(set(app.ports)) == 1


def test_a_connection_closed_while_idle_is_replaced_not_failed() -> None:
    """A receiver that closes each connection after answering: the next post reconnects."""
    closed = threading.Event()

    def answer_then_close(conn: socket.socket) -> None:
        read_request(conn)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        conn.shutdown(socket.SHUT_RDWR)
        closed.set()

    poster = Poster(timeout=2.0)
    with raw_server(answer_then_close) as (port, accepted):
        where = target(f"http://127.0.0.1:{port}/in")
        assert poster.post(where, BODY, HEADERS) == "200"
        assert closed.wait(5)
        assert poster.post(where, BODY, HEADERS) == "200"
        poster.close()
    assert len(accepted) == 2


def test_no_answer_in_time_is_a_read_timeout() -> None:
    """A receiver that reads the request and never answers: ReadTimeout, as httpx names it."""
    release = threading.Event()

    def hold(conn: socket.socket) -> None:
        read_request(conn)
        release.wait(5)

    with raw_server(hold) as (port, _):
        status = Poster(timeout=0.2).post(target(f"http://127.0.0.1:{port}/in"), BODY, HEADERS)
        release.set()
    assert status == "ReadTimeout"


def test_closed_without_an_answer_is_a_remote_protocol_error() -> None:
    """A receiver that hangs up after the request: RemoteProtocolError, as httpx names it."""
    with raw_server(read_request) as (port, _):
        status = Poster(timeout=2.0).post(target(f"http://127.0.0.1:{port}/in"), BODY, HEADERS)
    assert status == "RemoteProtocolError"


def test_nobody_listening_is_a_connect_error() -> None:
    """A port nobody listens on: ConnectError, and nothing kept for the next attempt."""
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    poster = Poster(timeout=2.0)
    assert poster.post(target(f"http://127.0.0.1:{port}/in"), BODY, HEADERS) == "ConnectError"
    assert poster.post(target(f"http://127.0.0.1:{port}/in"), BODY, HEADERS) == "ConnectError"


def test_a_url_gives_the_request_head_once() -> None:
    """Path and query kept, unsafe characters escaped, Host with its port unless default."""
    head = target("http://127.0.0.1:8080/cb/x/inbound?a=1").head
    assert head == b"POST /cb/x/inbound?a=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
    assert target("http://localhost/a b%20c").head.startswith(b"POST /a%20b%20c HTTP/1.1\r\n")
    assert target("http://localhost").head == b"POST / HTTP/1.1\r\nHost: localhost\r\n"
    assert (target("https://localhost/cb").port, target("http://[::1]:9/x").host) == (443, "::1")
    assert b"Host: [::1]:9\r\n" in target("http://[::1]:9/x").head
