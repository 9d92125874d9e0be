"""A client's own ``transport=`` is the one its async twin sends through (bulk operations and
the blocking twins work through an AsyncClient made by ``to_async``): carried over when it
serves async requests, refused when it serves only blocking ones, never sent around."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

import smskit
from smskit.campaigns.bulk import bulk_hlr, create_contacts
from smskit.errors import ConfigurationError
from smskit.sandbox import Sandbox

NUMBERS = ["+33610000001", "+33610000002", "+33610000003"]
HLR_FR = 0.008  # EUR per French number checked (docs/sandbox.md)


class Forwarding(httpx.MockTransport):
    """Records each request, forwards it to the real sandbox over HTTP, and records a close."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.closed = False
        self.real = httpx.Client(trust_env=False)
        super().__init__(self.forward)

    def forward(self, request: httpx.Request) -> httpx.Response:
        self.paths.append(request.url.path)
        sent = httpx.Request(
            request.method, request.url, headers=request.headers, content=request.read()
        )
        answer = self.real.send(sent)
        return httpx.Response(answer.status_code, headers=answer.headers, content=answer.content)

    async def aclose(self) -> None:
        self.closed = True


def balance(sandbox: Sandbox) -> float:
    with smskit.Client(sandbox=sandbox) as plain:
        return plain.wallet.check_balance().amount


def test_a_sync_clients_mock_transport_carries_every_bulk_request(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """bulk_hlr and create_contacts given a Client made with transport=MockTransport: every
    request goes through that transport (which forwards to the sandbox, billed there), and
    the twin's close leaves it open for the client."""
    transport = Forwarding()
    before = balance(fresh_sandbox)
    with smskit.Client(sandbox=fresh_sandbox, transport=transport) as client:
        frame = bulk_hlr(client, NUMBERS, journal=tmp_path / "hlr.sqlite", progress=False)
        assert frame.to_frame()["status"].notna().all()
        assert transport.paths.count("/v1/public/contact/hlr-request") >= 1
        assert balance(fresh_sandbox) == pytest.approx(before - 3 * HLR_FR)
        transport.paths.clear()
        create_contacts(client, NUMBERS, progress=False)
        assert transport.paths and all(p.startswith("/v1/public/contact") for p in transport.paths)
        assert not transport.closed
        transport.paths.clear()
        client.wallet.check_balance()  # the client's own requests still go through it
        assert transport.paths == ["/v1/public/wallet/check-balance"]
    transport.real.close()


def test_an_async_clients_transport_carries_the_blocking_twins_requests(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """The blocking bulk_hlr given an AsyncClient made with transport=: its twin (in a loop of
    its own) sends through that transport too."""
    transport = Forwarding()
    client = smskit.AsyncClient(sandbox=fresh_sandbox, transport=transport)
    try:
        frame = bulk_hlr(client, NUMBERS, journal=tmp_path / "hlr.sqlite", progress=False)
        assert len(frame.to_frame()) == 3
        assert "/v1/public/contact/hlr-request" in transport.paths
        assert not transport.closed
    finally:
        asyncio.run(client.aclose())
        transport.real.close()


def test_a_blocking_only_transport_is_refused_not_sent_around(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A Client made with an httpx.HTTPTransport (its own certificates, proxy, address) cannot
    lend it to an async twin: bulk_hlr is refused before any request, naming transport and
    what to give instead; the sandbox bills nothing. to_async(transport=...) with an async
    transport is the way, and it works."""
    before = balance(fresh_sandbox)
    transport = httpx.HTTPTransport()
    with smskit.Client(sandbox=fresh_sandbox, transport=transport) as client:
        assert client.wallet.check_balance().amount == pytest.approx(before)  # it works sync
        with pytest.raises(ConfigurationError) as refused:
            bulk_hlr(client, NUMBERS, journal=tmp_path / "hlr.sqlite", progress=False)
        message = str(refused.value)
        assert "transport" in message and "HTTPTransport" in message
        assert "AsyncClient" in message and "AsyncHTTPTransport" in message
        assert balance(fresh_sandbox) == pytest.approx(before)
        with pytest.raises(ConfigurationError, match="transport"):
            client.to_async()

        async def explicit() -> float:
            async with client.to_async(transport=httpx.AsyncHTTPTransport()) as twin:
                return (await twin.wallet.check_balance()).amount

        assert asyncio.run(explicit()) == pytest.approx(before)
