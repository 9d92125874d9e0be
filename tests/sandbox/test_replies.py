"""Inbound replies: callback registration, the spec's callback body, retries, STOP replies."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from smskit._server import BackgroundServer
from smskit.errors import ValidationError
from smskit.sandbox import Sandbox

FR = "+33612345678"


class Receiver:
    """A loopback HTTP receiver that records posted JSON and answers scripted statuses."""

    def __init__(self, statuses: list[int] | None = None) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.statuses = list(statuses or [])

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        self.bodies.append(json.loads(b"".join(chunks)))
        status = self.statuses.pop(0) if self.statuses else 200
        await send({"type": "http.response.start", "status": status, "headers": []})
        await send({"type": "http.response.body", "body": b""})


@pytest.fixture
def receiver() -> Iterator[tuple[Receiver, str]]:
    """A running receiver and its URL."""
    app = Receiver()
    with BackgroundServer(app, name="receiver") as server:
        yield app, server.url + "/inbound"


def test_reply_is_posted_with_the_spec_fields(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client, receiver: tuple[Receiver, str]
) -> None:
    """The callback body holds message_id, number, text, sim_card_number, reception_date."""
    app, url = receiver
    assert fresh_api.post("/_sandbox/callback", json={"url": url}).json() == {"url": url}
    send = {"text": "Reply YES", "recipients": [FR], "sender": "Shop", "purpose": "alert",
            "with_replies": True}  # fmt: skip
    fresh_api.post("/v1/public/sms-campaign/send", json=send)
    result = fresh_api.post("/_sandbox/replies", json={"number": FR, "text": "YES"})
    assert result.status_code == 201
    assert result.json()["delivered"] is True
    assert len(app.bodies) == 1
    body = app.bodies[0]
    assert set(body) == {"message_id", "number", "text", "sim_card_number", "reception_date"}
    assert (body["number"], body["text"], body["sim_card_number"]) == (FR, "YES", "38100")
    assert body["reception_date"].endswith("+00:00")
    assert fresh_sandbox.replies()["message_id"].tolist() == [body["message_id"]]


def test_failed_delivery_is_retried(fresh_sandbox: Sandbox) -> None:
    """A receiver answering 500 then 200 gets the reply on the second attempt."""
    app = Receiver(statuses=[500])
    with BackgroundServer(app, name="receiver") as server:
        fresh_sandbox.set_callback_url(server.url + "/in")
        outcome = fresh_sandbox.simulate_reply(FR, "hello")
    assert (outcome["delivered"], outcome["attempts"]) == (True, 2)
    assert len(app.bodies) == 2
    assert app.bodies[0] == app.bodies[1]


def test_reply_without_callback_is_kept(fresh_sandbox: Sandbox) -> None:
    """With no callback URL the reply is stored, marked undelivered."""
    outcome = fresh_sandbox.simulate_reply(FR, "hello")
    assert outcome["delivered"] is False
    assert fresh_sandbox.replies()["text"].tolist() == ["hello"]


def test_stop_reply_blacklists_the_number(fresh_sandbox: Sandbox) -> None:
    """A reply starting with the word STOP (any case) puts the number on the blacklist."""
    fresh_sandbox.simulate_reply(FR, "ok thanks")
    assert fresh_sandbox.blacklist() == []
    fresh_sandbox.simulate_reply(FR, " Stop please")
    assert fresh_sandbox.blacklist() == [FR]


def test_callback_must_be_loopback(sandbox: Sandbox, api: httpx.Client) -> None:
    """A callback URL off this machine is refused: the sandbox never sends data out."""
    with pytest.raises(ValidationError, match="url"):
        sandbox.set_callback_url("http://example.com/inbound")
    refused = api.post("/_sandbox/callback", json={"url": "ftp://127.0.0.1/x"})
    assert refused.status_code == 400
    assert "url" in refused.json()["errors"]


def test_simulated_reply_needs_a_number_and_text(sandbox: Sandbox) -> None:
    """A reply from a malformed number, or with blank text, is refused naming the field."""
    with pytest.raises(ValidationError, match="number"):
        sandbox.simulate_reply("0612", "hi")
    with pytest.raises(ValidationError, match="text"):
        sandbox.simulate_reply(FR, "  ")
