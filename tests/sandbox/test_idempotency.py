"""A send's request_id over real HTTP: the first answer replayed, another payload refused.

The payment-API idempotency contract (docs/sandbox.md): the sandbox keeps the first answer
of each request_id for 24 h; the same payload again gets it back with the header
``Idempotent-Replayed: true`` (nothing sent or charged); another payload is the spec's
validation error on ``request_id`` (code 421).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from smskit.sandbox import Sandbox

SEND = "/v1/public/sms-campaign/send"
FR, FR2, BE = "+33612345678", "+33612345679", "+32470123456"
BODY: dict[str, Any] = {
    "text": "Hi {first_name}, -20% today. STOP au 36173",
    "recipients": [{"phone_number": FR, "first_name": "Ann"}, {"phone_number": BE}],
    "sender": "MyShop",
    "request_id": "batch-7",
}


def balance(client: httpx.Client) -> float:
    """The balance as the gateway reports it."""
    return float(client.get("/v1/public/wallet/check-balance").json()["amount"])


def test_same_payload_gets_the_first_answer_back_flagged_and_nothing_more(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """A repeat is 201 with the first body unchanged (ticket, counts, cost, residual credit)
    and Idempotent-Replayed: true; the sandbox sent and charged once."""
    first = fresh_api.post(SEND, json=BODY)
    assert first.status_code == 201
    assert "idempotent-replayed" not in first.headers
    after_first = balance(fresh_api)
    fresh_sandbox.set_balance(after_first - 1.0)  # a later answer would show another balance
    again = fresh_api.post(SEND, json=BODY)
    assert again.status_code == 201
    assert again.headers["idempotent-replayed"] == "true"
    assert again.content == first.content
    sent = fresh_sandbox.sent()
    assert len(sent) == 2 and set(sent["sms_ticket"]) == {first.json()["sms_ticket"]}
    assert balance(fresh_api) == pytest.approx(after_first - 1.0)


def test_the_same_payload_spelled_differently_is_still_the_same_request(
    fresh_api: httpx.Client,
) -> None:
    """Key order and white space of the JSON body do not make another payload."""
    first = fresh_api.post(SEND, json=BODY)
    spelled = json.dumps(dict(reversed(list(BODY.items()))), indent=3)
    again = fresh_api.post(SEND, content=spelled, headers={"content-type": "application/json"})
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json() == first.json()


@pytest.mark.parametrize(
    "change",
    [
        {"text": "Hi {first_name}, -30% today. STOP au 36173"},
        {"recipients": [{"phone_number": FR, "first_name": "Bob"}, {"phone_number": BE}]},
        {"recipients": [{"phone_number": FR, "first_name": "Ann"}]},
        {"sender": "OtherShop"},
        {"type": "sms_low_cost"},
        {"send_at": "2030-01-01T10:00:00+01:00"},
    ],
    ids=["text", "field", "recipients", "sender", "type", "send_at"],
)
def test_another_payload_under_a_used_request_id_is_refused(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client, change: dict[str, Any]
) -> None:
    """Any other text, recipient, field or option under a used id: 400, errors.request_id code
    421; nothing sent or charged; the first answer is still what the first payload replays."""
    first = fresh_api.post(SEND, json=BODY)
    spent = balance(fresh_api)
    refused = fresh_api.post(SEND, json={**BODY, **change})
    assert refused.status_code == 400
    assert refused.json()["code"] == 400
    assert refused.json()["errors"]["request_id"]["code"] == 421
    assert "different request" in refused.json()["errors"]["request_id"]["message"]
    assert len(fresh_sandbox.sent()) == 2
    assert balance(fresh_api) == pytest.approx(spent)
    assert fresh_api.post(SEND, json=BODY).content == first.content


def test_a_simulation_of_a_used_request_id_answers_what_the_send_would(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """simulation_mode with the same payload gets the replay (what a real repeat would get);
    nothing is charged or recorded."""
    first = fresh_api.post(SEND, json=BODY)
    simulated = fresh_api.post(SEND, json={**BODY, "simulation_mode": True})
    assert simulated.headers["idempotent-replayed"] == "true"
    assert simulated.json() == first.json()
    assert len(fresh_sandbox.sent()) == 2


def test_concurrent_repeats_send_once_and_all_get_the_same_answer(
    fresh_sandbox: Sandbox, make_client: Callable[..., httpx.Client]
) -> None:
    """16 identical requests at once over 16 connections: one send, one charge; every
    answer is the same body, exactly one of them not flagged as a replay."""
    clients = [make_client(fresh_sandbox) for _ in range(16)]
    with ThreadPoolExecutor(max_workers=16) as pool:
        answers = list(pool.map(lambda c: c.post(SEND, json=BODY), clients))
    assert {a.status_code for a in answers} == {201}
    assert len({a.content for a in answers}) == 1
    assert sum(a.headers.get("idempotent-replayed") != "true" for a in answers) == 1
    sent = fresh_sandbox.sent()
    assert len(sent) == 2
    assert fresh_sandbox.balance() == pytest.approx(1000.0 - sent["cost"].sum())


def test_a_sandbox_file_from_before_kept_answers_still_refuses_its_ids(
    tmp_path: Path, make_client: Callable[..., httpx.Client]
) -> None:
    """A sandbox file whose request ids were stored without their answers gains the columns;
    a repeat of such an id gets the duplicate error (420) with the first ticket."""
    path = tmp_path / "old.sqlite"
    with Sandbox(str(path)) as sandbox:
        ticket = make_client(sandbox).post(SEND, json=BODY).json()["sms_ticket"]
    with sqlite3.connect(path) as db:  # the old table: no fingerprint, no answer
        db.execute("ALTER TABLE request_ids DROP COLUMN fingerprint")
        db.execute("ALTER TABLE request_ids DROP COLUMN response")
    with Sandbox(str(path)) as sandbox:
        api = make_client(sandbox)
        again = api.post(SEND, json=BODY)
        assert again.json()["errors"]["request_id"]["code"] == 420
        assert again.json()["sms_ticket"] == ticket
        assert api.post(SEND, json={**BODY, "request_id": "new"}).status_code == 201
        assert (
            api.post(SEND, json={**BODY, "request_id": "new"}).headers["idempotent-replayed"]
            == "true"
        )
