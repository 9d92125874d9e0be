"""The API key stays inside the client: no object reachable from an error or a result holds it.

The walk follows every reference the garbage collector knows (attributes, slots, containers,
closures, bound methods, httpx/httpcore internals such as response streams and connection
pools). It stops at classes, modules and plain functions (they lead to the whole program) and
at frames and tracebacks: a traceback's frames are the caller's own stack, which holds the
caller's client by design.
"""

from __future__ import annotations

import asyncio
import base64
import gc
import socket
import traceback
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import smskit
from smskit.client.config import MASK
from smskit.sandbox import Sandbox

KEY = "k3y-that-must-not-leak-0123456789"
LOGIN = "leak-test"

_STOP = (
    type,
    types.ModuleType,
    types.FunctionType,
    types.CodeType,
    types.FrameType,
    types.TracebackType,
)


def reachable(root: object, limit: int = 200_000) -> Iterator[object]:
    """Every object reachable from ``root`` through gc references, minus the stop kinds."""
    seen = {id(root)}
    stack = [root]
    while stack:
        obj = stack.pop()
        yield obj
        if len(seen) > limit:
            raise AssertionError(f"object graph larger than {limit}: the walk leaves the result")
        for ref in gc.get_referents(obj):
            if isinstance(ref, _STOP) or id(ref) in seen:
                continue
            seen.add(id(ref))
            stack.append(ref)
        # Exceptions keep their cause, context and notes outside gc's referents on some builds.
        if isinstance(obj, BaseException):
            for ref in (obj.__cause__, obj.__context__, *obj.args):
                if ref is not None and id(ref) not in seen and not isinstance(ref, _STOP):
                    seen.add(id(ref))
                    stack.append(ref)


def holders_of_key(root: object) -> list[str]:
    """Type names of reachable objects whose text contains the key (or its Basic form)."""
    needles = [KEY, base64.b64encode(f"{LOGIN}:{KEY}".encode()).decode()]
    found = []
    for obj in reachable(root):
        if isinstance(obj, str):
            text = obj
        elif isinstance(obj, bytes | bytearray):
            text = bytes(obj).decode("latin-1")
        elif isinstance(obj, memoryview):
            text = obj.tobytes().decode("latin-1")
        else:
            continue
        if any(needle in text for needle in needles):
            found.append(type(obj).__name__)
    return found


@pytest.fixture(scope="module")
def keyed_sandbox() -> Iterator[Sandbox]:
    """A sandbox whose account has the test's login and key."""
    with Sandbox(seed=0, login=LOGIN, api_key=KEY) as sb:
        yield sb


def client_on(sb: Sandbox, auth: str = "headers", **options: Any) -> smskit.Client:
    """A client with the test key on ``sb``, no retries (errors surface at once)."""
    return smskit.Client(LOGIN, KEY, sb.url, auth=auth, max_retries=0, **options)  # type: ignore[arg-type]


def test_walk_finds_the_key_where_it_is() -> None:
    """The walk itself sees a key stored deep inside an object, so a clean result means clean."""
    holder = {"a": [types.SimpleNamespace(b=(1, bytearray(KEY.encode())))]}
    assert holders_of_key(holder) == ["bytearray"]


@pytest.mark.parametrize("auth", ["headers", "basic"])
def test_api_error_holds_no_key(keyed_sandbox: Sandbox, auth: str) -> None:
    """A gateway error (400 STOP missing) keeps method, URL, masked headers and no key."""
    with (
        client_on(keyed_sandbox, auth, validate=False) as client,
        pytest.raises(smskit.StopMentionMissingError) as caught,
    ):
        client.sms_campaign.send(text="Promo", recipients=["+33612345678"], sender="Shop")
    error = caught.value
    assert error.request is not None and error.request.method == "POST"
    assert str(error.request.url).endswith("/v1/public/sms-campaign/send")
    secret_header = "api-key" if auth == "headers" else "authorization"
    assert error.request.headers[secret_header] == MASK
    assert error.response is not None and error.response.json()["code"] == 121
    assert holders_of_key(error) == []


def test_auth_error_holds_no_key(keyed_sandbox: Sandbox) -> None:
    """A 401 for a wrong key holds neither the wrong key nor the right one."""
    with (
        smskit.Client(LOGIN, KEY + "x", keyed_sandbox.url, max_retries=0) as client,
        pytest.raises(smskit.AuthenticationError) as caught,
    ):
        client.wallet.check_balance()
    assert holders_of_key(caught.value) == []


def test_transport_error_holds_no_key() -> None:
    """A refused connection: the TransportError and its chained httpx error hold no key."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with (
        smskit.Client(LOGIN, KEY, f"http://127.0.0.1:{port}", max_retries=0) as client,
        pytest.raises(smskit.TransportError) as caught,
    ):
        client.wallet.check_balance()
    assert caught.value.request is not None
    assert caught.value.request.headers["api-key"] == MASK
    assert holders_of_key(caught.value) == []


def test_malformed_answer_error_holds_no_key() -> None:
    """A 2xx the client cannot parse (MockTransport: the sandbox never sends one) holds no key."""

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b"not json", request=request)

    with (
        smskit.Client(
            LOGIN, KEY, "http://127.0.0.1:9", max_retries=0, transport=httpx.MockTransport(handler)
        ) as client,
        pytest.raises(smskit.APIError) as caught,
    ):
        client.wallet.check_balance()
    assert holders_of_key(caught.value) == []


def test_results_hold_no_key(keyed_sandbox: Sandbox) -> None:
    """Results of a send, an HLR request and a balance query hold no key."""
    with client_on(keyed_sandbox) as client:
        results = [
            client.sms_campaign.send(
                text="Rappel RDV demain 10h", recipients=["+33612345678"], sender="Clinic",
                purpose="alert",
            ),
            client.contact.hlr_request(["+33612345678"]),
            client.wallet.check_balance(),
        ]  # fmt: skip
    assert [holders_of_key(result) for result in results] == [[], [], []]


def test_async_error_holds_no_key(keyed_sandbox: Sandbox) -> None:
    """The async client's gateway errors hold no key either."""

    async def fail() -> BaseException:
        async with smskit.AsyncClient(
            LOGIN, KEY, keyed_sandbox.url, max_retries=0, validate=False
        ) as client:
            try:
                await client.sms_campaign.send(
                    text="Promo", recipients=["+33612345678"], sender="Shop"
                )
            except smskit.APIError as exc:
                return exc
        raise AssertionError("the send was accepted")

    assert holders_of_key(asyncio.run(fail())) == []


# --- tracebacks shown with their frames' locals ------------------------------------------------

# Every way a call can fail: name -> (sandbox faults, client options, the error raised).
ERROR_PATHS: dict[str, tuple[dict[str, Any], dict[str, Any], type[smskit.SmskitError]]] = {
    "400": ({}, {"validate": False}, smskit.StopMentionMissingError),
    "401": ({}, {"wrong_key": True}, smskit.AuthenticationError),
    "429": ({"rate_limit_rate": 1.0}, {}, smskit.RateLimitError),
    "5xx": ({"error_rate": 1.0}, {}, smskit.ServerError),
    "timeout": ({"latency": 0.5}, {"timeout": 0.1}, smskit.TimeoutError),
    "dropped": ({"drop_rate": 1.0}, {}, smskit.TransportError),
}
# The 400 path posts a promotional text without its STOP mention (validate=False lets it
# through); the others a valid alert.
SENDS = {
    "400": {"text": "Promo -50%", "recipients": ["+33612345678"], "sender": "Shop"},
    "other": {
        "text": "Rappel RDV demain 10h", "recipients": ["+33612345678"], "sender": "Clinic",
        "purpose": "alert",
    },
}  # fmt: skip


def locals_shown(error: BaseException) -> str:
    """The traceback as ``capture_locals=True`` prints it, chained exceptions included."""
    shown = traceback.TracebackException(
        type(error), error, error.__traceback__, capture_locals=True
    )
    return "".join(shown.format())


def secrets_in(text: str) -> list[str]:
    """Which of the key and its Basic token (of the key, or of the wrong key the 401 path
    sends) ``text`` holds."""
    tokens = [base64.b64encode(f"{LOGIN}:{key}".encode()).decode() for key in (KEY, KEY + "x")]
    needles = [("key", KEY), *(("basic", token) for token in tokens)]
    return [name for name, needle in needles if needle in text]


def failing_client(sb: Sandbox, kind: type[Any], auth: str, options: dict[str, Any]) -> Any:
    """A client of ``kind`` that retries once (without waiting) before raising."""
    options = dict(options)
    key = KEY + "x" if options.pop("wrong_key", False) else KEY
    return kind(
        LOGIN, key, sb.url, auth=auth, max_retries=1, backoff=smskit.Backoff(sleep=lambda s: None),
        **options,
    )  # fmt: skip


@pytest.mark.parametrize("auth", ["headers", "basic"])
@pytest.mark.parametrize("path", sorted(ERROR_PATHS))
def test_no_frame_of_a_failed_call_shows_the_key(
    keyed_sandbox: Sandbox, path: str, auth: str
) -> None:
    """Each error path (400, 401, 429, 5xx, timeout, dropped connection), sync and async,
    headers and Basic: the traceback with every frame's locals, causes and contexts
    included, shows neither the key nor the Basic token."""
    faults, options, expected = ERROR_PATHS[path]
    send = SENDS.get(path, SENDS["other"])
    keyed_sandbox.inject_faults(**faults)
    try:
        with (
            failing_client(keyed_sandbox, smskit.Client, auth, options) as client,
            pytest.raises(smskit.SmskitError) as caught,
        ):
            client.sms_campaign.send(**send)

        async def fail() -> BaseException:
            async with failing_client(keyed_sandbox, smskit.AsyncClient, auth, options) as client:
                try:
                    await client.sms_campaign.send(**send)
                except smskit.SmskitError as exc:
                    return exc
            raise AssertionError("the send was accepted")

        errors = [caught.value, asyncio.run(fail())]
    finally:
        keyed_sandbox.clear_faults()
    assert [type(error) for error in errors] == [expected, expected]
    shown = [locals_shown(error) for error in errors]
    # The check can fail: the frames' locals are there, the client among them.
    assert all("client = <" in text or "self = <" in text for text in shown)
    assert [secrets_in(text) for text in shown] == [[], []]


@pytest.mark.parametrize("auth", ["headers", "basic"])
def test_no_frame_of_an_unreadable_answer_shows_the_key(auth: str) -> None:
    """A 2xx the client cannot parse (MockTransport: the sandbox never sends one): its
    traceback with locals shows neither the key nor the Basic token."""

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b"not json", request=request)

    with (
        smskit.Client(
            LOGIN, KEY, "http://127.0.0.1:9", auth=auth, max_retries=0,  # type: ignore[arg-type]
            transport=httpx.MockTransport(handler),
        ) as client,
        pytest.raises(smskit.APIError) as caught,
    ):  # fmt: skip
        client.wallet.check_balance()
    assert secrets_in(locals_shown(caught.value)) == []


def test_configuration_errors_show_no_key_in_locals(monkeypatch: pytest.MonkeyPatch) -> None:
    """A client refused for its settings (key given, login or URL missing; from arguments or
    the environment): the traceback with locals shows no key."""
    monkeypatch.delenv("SMSKIT_API_LOGIN", raising=False)
    monkeypatch.delenv("SMSKIT_BASE_URL", raising=False)
    errors = []
    with pytest.raises(smskit.ConfigurationError) as caught:
        smskit.Client(api_key=KEY)
    errors.append(caught.value)
    monkeypatch.setenv("SMSKIT_API_KEY", KEY)
    monkeypatch.setenv("SMSKIT_API_LOGIN", LOGIN)
    with pytest.raises(smskit.ConfigurationError) as caught:
        smskit.Client()
    errors.append(caught.value)
    assert [secrets_in(locals_shown(error)) for error in errors] == [[], []]


def test_resume_refused_for_its_settings_shows_no_key_in_locals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Campaign.resume reconnecting from the environment (SMSKIT_API_KEY set, another
    login): the refusal's traceback with locals shows no key (nor the environment)."""
    from smskit.campaigns.campaign import Campaign

    journal = tmp_path / "j.sqlite"
    with Sandbox(seed=0, login=LOGIN, api_key=KEY) as sb, client_on(sb) as client:
        Campaign(
            client, ["+33612345678"], text="Rappel RDV", sender="Clinic", purpose="alert"
        ).send(progress=False, journal=journal)
    monkeypatch.setenv("SMSKIT_API_KEY", KEY)
    monkeypatch.setenv("SMSKIT_API_LOGIN", "someone-else")
    with pytest.raises(smskit.ConfigurationError, match="someone-else") as caught:
        Campaign.resume(journal, progress=False)
    assert secrets_in(locals_shown(caught.value)) == []


def test_the_locals_check_sees_a_key_held_in_a_local() -> None:
    """The check itself: a frame holding the key in a local is caught."""

    def leaky(key: str) -> None:
        raise ValueError("boom")

    with pytest.raises(ValueError) as caught:
        leaky(KEY)
    assert secrets_in(locals_shown(caught.value)) == ["key"]


# --- a key inside a URL ---------------------------------------------------------------------


def _urls_carrying_the_key() -> list[str]:
    """Every way a base URL can carry the key: user information (login and key, the key
    alone, an empty login, the key percent-encoded), on https, plain http, a scheme that is
    refused, none at all, hosts with ports and IPv6, with a path, a query or a fragment; and
    the key in a query or a fragment of an otherwise good URL."""
    from urllib.parse import quote

    infos = [f"{LOGIN}:{KEY}@", f"{KEY}@", f":{KEY}@", f"{LOGIN}:{quote(KEY + '/@')}@"]
    hosts = ["gateway.example", "203.0.113.9:8443", "[2001:db8::1]:9", "127.0.0.1:9"]
    urls = [f"{scheme}{info}{host}{tail}"
            for scheme in ("https://", "http://", "ftp://", "")
            for info in infos
            for host in hosts
            for tail in ("", "/v1/", "?x=1")]  # fmt: skip
    return [*urls, f"https://gateway.example/?api_key={KEY}", f"https://gateway.example/#{KEY}",
            f"https://gateway.example?{KEY}", f"https://[{KEY}@gateway.example"]  # fmt: skip


URLS_WITH_KEY = _urls_carrying_the_key()


def _refusals(index: int) -> dict[str, Any]:
    """Each entry point a URL reaches, given URLS_WITH_KEY[index] (read from the module, so
    no frame of the test holds it)."""
    from smskit.replies import Inbox
    from smskit.replies.optouts import OptOuts, listed_numbers

    return {
        "Client": lambda: smskit.Client(LOGIN, KEY, URLS_WITH_KEY[index]),
        "AsyncClient": lambda: smskit.AsyncClient(LOGIN, KEY, URLS_WITH_KEY[index]),
        "Client, allow_insecure": lambda: smskit.Client(
            LOGIN, KEY, URLS_WITH_KEY[index], allow_insecure=True
        ),
        "OptOuts": lambda: OptOuts((URLS_WITH_KEY[index], LOGIN)),
        "listed_numbers": lambda: listed_numbers((URLS_WITH_KEY[index], LOGIN)),
        "Inbox": lambda: Inbox(account=(URLS_WITH_KEY[index], LOGIN)),
    }


@pytest.mark.parametrize("index", range(len(URLS_WITH_KEY)))
def test_a_url_carrying_the_key_is_refused_and_shows_it_nowhere(index: int) -> None:
    """A base URL holding the key (login:KEY@host, a query, a fragment, in every form the
    generator makes) given to a client, an opt-out list or an inbox is refused with a
    ConfigurationError whose message, attributes and traceback with every frame's locals
    hold neither the key nor its Basic token."""
    for name, make in _refusals(index).items():
        with pytest.raises(smskit.ConfigurationError) as caught:
            make()
        shown = locals_shown(caught.value)
        assert "make = <function" in shown  # the locals are there
        assert (name, secrets_in(shown), holders_of_key(caught.value)) == (name, [], [])


def test_a_key_in_the_environments_url_shows_nowhere(monkeypatch: pytest.MonkeyPatch) -> None:
    """SMSKIT_BASE_URL=https://login:KEY@host: the client is refused, and its traceback with
    locals shows neither the key nor its Basic token."""
    monkeypatch.setenv("SMSKIT_API_LOGIN", LOGIN)
    monkeypatch.setenv("SMSKIT_API_KEY", "another-key-0123456789")
    for index in (0, len(URLS_WITH_KEY) - 3):
        monkeypatch.setenv("SMSKIT_BASE_URL", URLS_WITH_KEY[index])
        with pytest.raises(smskit.ConfigurationError, match="must not carry") as caught:
            smskit.Client()
        assert secrets_in(locals_shown(caught.value)) == []


def test_the_cli_refuses_a_url_carrying_the_key_without_printing_it() -> None:
    """`smskit balance` and `smskit optouts list` (real processes) with SMSKIT_BASE_URL
    holding the key exit 3 (configuration), saying why, and print the key on neither stream."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "SMSKIT_BASE_URL": URLS_WITH_KEY[0], "SMSKIT_API_LOGIN": LOGIN,
           "SMSKIT_API_KEY": KEY, "SMSKIT_DEBUG": ""}  # fmt: skip
    for command in (["balance"], ["optouts", "list"]):
        done = subprocess.run([sys.executable, "-m", "smskit", *command], env=env,
                              capture_output=True, text=True, check=False)  # fmt: skip
        assert done.returncode == 3 and "must not carry credentials" in done.stderr
        assert secrets_in(done.stdout + done.stderr) == []
