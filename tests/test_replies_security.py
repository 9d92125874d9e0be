"""The reply inbox can face the internet: signatures, Host check, bind address, stalled
connections and file modes, all over real HTTP against the sandbox's callback sender."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import socket
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from _stalled import closed_by_server

from smskit.campaigns.sending.journal import Journal
from smskit.errors import ValidationError
from smskit.replies.inbox import Inbox
from smskit.sandbox import Sandbox

SECRET = "whsec-0123456789abcdef"
NUMBERS = [f"+3367100{n:04d}" for n in range(20)]


def signed_headers(body: bytes, secret: str = SECRET, at: float | None = None) -> dict[str, str]:
    """Headers of the documented scheme, computed here (not by smskit) for a raw body."""
    stamp = str(int(time.time() if at is None else at))
    mac = hmac.new(secret.encode(), stamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return {"x-smskit-timestamp": stamp, "x-smskit-signature": f"v1={mac}"}


def reply_body(message_id: str = "m1") -> bytes:
    """A spec callback body."""
    return json.dumps(
        {"message_id": message_id, "number": "+33612345678", "text": "OUI",
         "sim_card_number": "38100", "reception_date": "2025-03-01T10:00:00Z"}
    ).encode()  # fmt: skip


def post(inbox: Inbox, body: bytes, headers: dict[str, str] | None = None) -> httpx.Response:
    """POST raw bytes to the inbox's callback URL."""
    return httpx.post(inbox.url, content=body, headers=headers or {}, trust_env=False, timeout=10)


def nothing_stored(inbox: Inbox) -> bool:
    """Neither a reply nor a reject was kept."""
    return len(inbox) == 0 and inbox.rejects().empty


@pytest.fixture
def signed_inbox() -> Iterator[Inbox]:
    """A running inbox that requires signatures made with SECRET."""
    with Inbox(signing_secret=SECRET) as inbox:
        yield inbox


# --- signatures -------------------------------------------------------------------------------


def test_sandbox_signed_callbacks_are_stored(signed_inbox: Inbox) -> None:
    """End to end: the sandbox signs with the shared secret, the inbox verifies and stores."""
    with Sandbox(seed=0) as sb:
        sb.set_callback_url(signed_inbox.url, signing_secret=SECRET)
        for number in NUMBERS[:5]:
            sb.simulate_reply(number, "OUI")
        assert signed_inbox.wait(5, timeout=10) == 5
        assert set(sb.replies()["last_status"]) == {"200"}
    assert signed_inbox.refused == 0


def test_wrong_secret_is_refused_401_and_stored_nowhere(signed_inbox: Inbox) -> None:
    """A sender with another secret gets 401 on every attempt; nothing is stored, all counted."""
    with Sandbox(seed=0) as sb:
        sb.set_callback_url(signed_inbox.url, signing_secret="another-secret-0123456789")
        outcome = sb.simulate_reply(NUMBERS[0], "OUI")
        log = sb.deliveries()
    assert outcome["delivered"] is False and outcome["last_status"] == "401"
    assert set(log["status"]) == {"401"}
    assert nothing_stored(signed_inbox)
    assert signed_inbox.refused == len(log)


def test_unsigned_callbacks_are_refused_by_a_signed_inbox(signed_inbox: Inbox) -> None:
    """No signature headers (the sandbox without a secret) -> 401, stored nowhere."""
    with Sandbox(seed=0) as sb:
        sb.set_callback_url(signed_inbox.url)
        outcome = sb.simulate_reply(NUMBERS[0], "OUI")
    assert outcome["last_status"] == "401"
    assert nothing_stored(signed_inbox)


@pytest.mark.parametrize(
    ("case", "headers"),
    [
        ("old timestamp", signed_headers(reply_body(), at=time.time() - 400)),
        ("future timestamp", signed_headers(reply_body(), at=time.time() + 3600)),
        ("other body", signed_headers(reply_body("m2"))),
        ("other secret", signed_headers(reply_body(), secret=SECRET + "x")),
        ("no v1", {"x-smskit-timestamp": str(int(time.time())), "x-smskit-signature": "v0=ab"}),
        ("bad stamp", {**signed_headers(reply_body()), "x-smskit-timestamp": "12:00"}),
    ],
)
def test_bad_signatures_are_refused_and_stored_nowhere(
    signed_inbox: Inbox, case: str, headers: dict[str, str]
) -> None:
    """Stale, future, tampered, foreign-key and malformed signatures: 401, nothing kept."""
    answer = post(signed_inbox, reply_body(), headers)
    assert (answer.status_code, answer.content) == (401, b""), case
    assert nothing_stored(signed_inbox)
    assert signed_inbox.refused == 1


def test_a_valid_signature_among_several_is_accepted(signed_inbox: Inbox) -> None:
    """During a secret rotation the sender may send two v1 values; one match is enough."""
    good = signed_headers(reply_body())
    other = signed_headers(reply_body(), secret="old-secret-0123456789")["x-smskit-signature"]
    headers = {**good, "x-smskit-signature": f"{other}, {good['x-smskit-signature']}"}
    assert post(signed_inbox, reply_body(), headers).status_code == 200
    assert len(signed_inbox) == 1


def test_oversized_body_to_a_signed_inbox_is_refused_not_kept(signed_inbox: Inbox) -> None:
    """A body over max_body cannot be verified, so it is not kept even as a reject."""
    body = b"x" * (signed_inbox.max_body + 1)
    assert post(signed_inbox, body, signed_headers(body)).status_code == 401
    assert nothing_stored(signed_inbox)


def test_signing_secrets_must_be_long_enough() -> None:
    """A short secret could be guessed: refused on both sides with the field named."""
    with pytest.raises(ValidationError, match="signing_secret"):
        Inbox(signing_secret="short")
    with Sandbox(seed=0) as sb, pytest.raises(ValidationError, match="signing_secret"):
        sb.set_callback_url("http://127.0.0.1:9/x", signing_secret=b"short")


# --- Host, bind address ----------------------------------------------------------------------


def test_foreign_host_is_refused_and_stored_nowhere() -> None:
    """A Host header that is not an allowed name gets 400; allowed names get 200."""
    with Inbox(allowed_hosts=["replies.example.com"]) as inbox:
        for host in ("evil.example.net", "replies.example.com.evil.net", "10.0.0.1"):
            answer = post(inbox, reply_body(), {"host": host})
            assert answer.status_code == 400, host
        assert nothing_stored(inbox)
        for n, host in enumerate(("replies.example.com", "REPLIES.example.com:443", "localhost")):
            assert post(inbox, reply_body(f"m{n}"), {"host": host}).status_code == 200, host
        assert len(inbox) == 3


def test_default_bind_is_loopback_and_silent(caplog: pytest.LogCaptureFixture) -> None:
    """Without host=, the socket is bound to 127.0.0.1 and nothing is logged about exposure."""
    with caplog.at_level("WARNING", logger="smskit.replies.inbox"), Inbox() as inbox:
        bound = urlsplit(inbox.url).hostname
        with socket.create_connection((bound, urlsplit(inbox.url).port), timeout=5) as conn:
            assert conn.getpeername()[0] == "127.0.0.1"
    assert bound == "127.0.0.1"
    assert not [r for r in caplog.records if "reachable from other machines" in r.getMessage()]


def test_public_address_is_announced() -> None:
    """A non-loopback address is said out loud (the message names host and signature state)."""
    message = Inbox(host="192.0.2.10").exposure_warning()
    assert message is not None and "192.0.2.10" in message and "signatures off" in message
    assert "signatures required" in str(
        Inbox(host="0.0.0.0", allowed_hosts=["a.example"], signing_secret=SECRET).exposure_warning()
    )
    assert Inbox().exposure_warning() is None


def test_loopback_name_in_any_case_is_loopback() -> None:
    """LOCALHOST binds to 127.0.0.1 like localhost: silent, answering the loopback names as a
    Host header names them (``[::1]``, not ``::1``, which matched no request) and its own."""
    for host, own in (("LOCALHOST", ()), ("::1", ()), ("127.0.0.2", ("127.0.0.2",))):
        inbox = Inbox(host=host)
        assert inbox.exposure_warning() is None, host
        assert inbox.allowed_hosts == ("127.0.0.1", "localhost", "[::1]", *own), host
    look_alike = Inbox(host="localhost.example.com")
    assert "localhost.example.com" in str(look_alike.exposure_warning())
    assert look_alike.allowed_hosts == ("localhost.example.com",)


@pytest.mark.parametrize("host", ["::1", "127.0.0.2", "localhost"])
def test_an_inbox_on_any_loopback_address_takes_callbacks_at_its_url(host: str) -> None:
    """Bound to IPv6 loopback or another 127/8 address, the inbox answers at its own URL over
    real HTTP and stores the sandbox's reply (it answered 400 "Invalid host header": the
    Host header ``[::1]:PORT`` or ``127.0.0.2:PORT`` was not among the names it allowed)."""
    with Inbox(host=host) as inbox, Sandbox(seed=0) as sb:
        assert httpx.get(inbox.url, trust_env=False).status_code == 405  # the host answered
        sb.set_callback_url(inbox.url)
        sb.simulate_reply("+33612345678", "STOP")
        assert inbox.wait(1, timeout=10) == 1
        assert inbox.to_frame()["text"].tolist() == ["STOP"] and inbox.refused == 0


def test_wildcard_bind_needs_allowed_hosts() -> None:
    """0.0.0.0 answers every address, so the accepted Host names must be given."""
    with pytest.raises(ValidationError, match="allowed_hosts"):
        Inbox(host="0.0.0.0")
    assert Inbox(host="::", allowed_hosts=["a.example"]).allowed_hosts == ("a.example",)


# --- stalled connections -----------------------------------------------------------------------


def stalled(inbox: Inbox, kind: int) -> socket.socket:
    """A connection that stops: before headers, inside headers, inside the body, or idle."""
    parts = urlsplit(inbox.url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
    head = f"POST {parts.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    if kind == 1:
        sock.sendall(head.encode())
    elif kind == 2:
        sock.sendall(f'{head}Content-Length: 1000\r\n\r\n{{"message_id":'.encode())
    elif kind == 3:  # one complete request, then an idle keep-alive connection
        body = reply_body("keepalive")
        sock.sendall(f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body)
        assert sock.recv(4096).startswith(b"HTTP/1.1 200")
    return sock


def test_each_kind_of_stall_is_closed_by_the_request_timeout() -> None:
    """No headers, half headers, half a body, idle keep-alive: each closed; none stored."""
    with Inbox(request_timeout=1, keep_alive_timeout=60, max_connections=1000) as inbox:
        socks = [stalled(inbox, kind) for kind in range(4)]
        assert [closed_by_server(sock) for sock in socks] == [True] * 4
        for sock in socks:
            sock.close()
        assert inbox.to_frame()["message_id"].tolist() == ["keepalive"]


def test_past_the_cap_the_oldest_stalled_connections_are_closed_first() -> None:
    """With a long request timeout only the cap can close them: the oldest 50 of 100 go, and
    a legitimate callback arriving past the cap is still stored."""
    with Inbox(request_timeout=300, max_connections=50) as inbox:
        socks = [stalled(inbox, n % 3) for n in range(100)]
        try:
            assert [closed_by_server(sock) for sock in socks[:50]] == [True] * 50
            assert post(inbox, reply_body("after-the-flood")).status_code == 200
            assert inbox.to_frame()["message_id"].tolist() == ["after-the-flood"]
        finally:
            for sock in socks:
                sock.close()


def test_thousand_stalled_connections_do_not_stop_callbacks() -> None:
    """1,000 stalled connections: signed sandbox callbacks are all stored meanwhile, and every
    stalled connection is closed (evicted past the cap or by the request timeout)."""
    with Inbox(signing_secret=SECRET, request_timeout=2) as inbox, Sandbox(seed=0) as sb:
        sb.set_callback_url(inbox.url, signing_secret=SECRET)
        socks = [stalled(inbox, n % 3) for n in range(1000)]
        try:
            for number in NUMBERS:
                sb.simulate_reply(number, "Oui merci", wait=False)
            sb.wait_for_deliveries(timeout=60)
            assert inbox.wait(len(NUMBERS), timeout=10) == len(NUMBERS)
            assert sb.replies()["delivered"].all()
            assert sum(closed_by_server(sock) for sock in socks) == 1000
        finally:
            for sock in socks:
                sock.close()


def test_bad_timeouts_are_refused_with_their_name() -> None:
    """Guard settings are checked up front and named."""
    for field, value in (("request_timeout", 0), ("max_connections", -1)):
        with pytest.raises(ValidationError, match=field):
            Inbox(**{field: value})


# --- file modes ---------------------------------------------------------------------------------


def mode(path: Path) -> int:
    """Permission bits of a file."""
    return stat.S_IMODE(os.stat(path).st_mode)


def test_sqlite_files_are_created_owner_only(tmp_path: Path) -> None:
    """Inbox, sandbox and journal files (with their WAL and SHM) are created 0600."""
    old = os.umask(0o022)  # the usual umask, which would give 0644
    try:
        with Inbox(tmp_path / "inbox.db") as inbox:
            assert post(inbox, reply_body()).status_code == 200
            with Sandbox(str(tmp_path / "sandbox.db"), seed=0):
                pass
            Journal(tmp_path / "journal.db", mode="create").close()
            files = sorted(tmp_path.iterdir())
    finally:
        os.umask(old)
    names = {p.name for p in files}
    assert {"inbox.db", "inbox.db-wal", "sandbox.db", "journal.db"} <= names
    assert {p.name: mode(p) for p in files} == dict.fromkeys(names, 0o600)


def test_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    """A file the user already made is opened as it is: smskit never changes its mode."""
    path = tmp_path / "mine.db"
    path.touch(mode=0o640)
    os.chmod(path, 0o640)
    Inbox(path)
    assert mode(path) == 0o640


@pytest.mark.parametrize("given", ["replies.example.com", ["replies.example.com", ""], [None], 7])
def test_allowed_hosts_that_are_not_a_list_of_names_are_refused(given: object) -> None:
    """allowed_hosts is a list of host names: a bare string (it would be read letter by
    letter), a blank name or another value is refused naming allowed_hosts."""
    with pytest.raises(ValidationError) as caught:
        Inbox(allowed_hosts=given)  # type: ignore[arg-type]
    assert caught.value.field == "allowed_hosts" and caught.value.value == given
    assert caught.value.rule == "must be a list of host names"


@pytest.mark.parametrize("given", ["*", "*example.com", "a.*.example.com", "example.*"])
def test_a_wildcard_anywhere_but_a_leading_label_is_refused(given: str) -> None:
    """Only '*.example.com' (any one label in front) is a wildcard: '*' alone, '*example.com'
    or a '*' inside would accept hosts nobody meant; refused, naming allowed_hosts."""
    with pytest.raises(ValidationError) as caught:
        Inbox(allowed_hosts=[given])
    assert str(caught.value) == "allowed_hosts: wildcards must look like '*.example.com'"
    assert "*.example.com" in Inbox(allowed_hosts=["*.example.com"]).allowed_hosts
