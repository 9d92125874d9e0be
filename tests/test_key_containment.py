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
import types
from collections.abc import Iterator
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
