"""A send's request_id over real HTTP: a repeat within 24 h is the spec's validation error.

The spec: "If the same request id is detected again, a validation error is returned" and "A
duplicated request_id returns a validation error (its code: not shown)"; the vendor's older
API answers code 120, "A SMS with the same request_id has already been sent". Either way the
repeat sends and charges nothing, whatever its payload (docs/sandbox.md).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from smskit.errors import ValidationError
from smskit.sandbox import Sandbox

SEND = "/v1/public/sms-campaign/send"
FR, BE = "+33612345678", "+32470123456"
BODY: dict[str, Any] = {
    "text": "Hi {first_name}, -20% today. STOP au 36173",
    "recipients": [{"phone_number": FR, "first_name": "Ann"}, {"phone_number": BE}],
    "sender": "MyShop",
    "request_id": "batch-7",
}
LEGACY = {"code": 120, "message": "A SMS with the same request_id has already been sent"}


def balance(client: httpx.Client) -> float:
    """The balance as the gateway reports it."""
    return float(client.get("/v1/public/wallet/check-balance").json()["amount"])


def assert_spec_duplicate(response: httpx.Response) -> None:
    """The spec's validation error naming request_id: 400, code 400, errors.request_id with
    an integer code and a message, and nothing else (no ticket, no figures)."""
    assert response.status_code == 400
    body = response.json()
    assert set(body) == {"code", "message", "errors"} and body["code"] == 400
    assert list(body["errors"]) == ["request_id"]
    detail = body["errors"]["request_id"]
    assert isinstance(detail["code"], int) and "already used" in detail["message"]


@pytest.mark.parametrize(
    "change",
    [
        {},
        {"text": "Hi {first_name}, -30% today. STOP au 36173"},
        {"recipients": [{"phone_number": FR, "first_name": "Bob"}, {"phone_number": BE}]},
        {"recipients": [{"phone_number": FR, "first_name": "Ann"}]},
        {"sender": "OtherShop"},
        {"type": "sms_low_cost"},
        {"send_at": "2030-01-01T10:00:00+01:00"},
    ],
    ids=["same", "text", "field", "recipients", "sender", "type", "send_at"],
)
def test_a_repeated_request_id_is_a_validation_error_whatever_the_payload(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client, change: dict[str, Any]
) -> None:
    """The same id again, with the same payload or any other: 400 with errors.request_id;
    nothing sent, charged or recorded beyond the first send."""
    first = fresh_api.post(SEND, json=BODY)
    assert first.status_code == 201
    spent = balance(fresh_api)
    again = fresh_api.post(SEND, json={**BODY, **change})
    assert_spec_duplicate(again)
    sent = fresh_sandbox.sent()
    assert len(sent) == 2 and set(sent["sms_ticket"]) == {first.json()["sms_ticket"]}
    assert balance(fresh_api) == pytest.approx(spent)


def test_a_simulation_under_a_used_request_id_is_refused_the_same_way(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """simulation_mode validates fully: a used id gets the same duplicate error; a simulation
    does not use up an id either (the real send under it goes through)."""
    fresh_api.post(SEND, json=BODY)
    assert_spec_duplicate(fresh_api.post(SEND, json={**BODY, "simulation_mode": True}))
    fresh_api.post(SEND, json={**BODY, "request_id": "sim-first", "simulation_mode": True})
    assert fresh_api.post(SEND, json={**BODY, "request_id": "sim-first"}).status_code == 201
    assert len(fresh_sandbox.sent()) == 4


def test_the_legacy_shape_answers_code_120(make_client: Callable[..., httpx.Client]) -> None:
    """Sandbox(duplicate_answer="legacy"): a repeat gets 400 {code: 120, message: the vendor's
    text}, no errors object; still nothing sent or charged."""
    with Sandbox(duplicate_answer="legacy") as sandbox:
        api = make_client(sandbox)
        assert api.post(SEND, json=BODY).status_code == 201
        spent = sandbox.balance()
        again = api.post(SEND, json=BODY)
        assert again.status_code == 400
        assert again.json() == LEGACY
        assert len(sandbox.sent()) == 2 and sandbox.balance() == pytest.approx(spent)


def test_the_shape_is_switched_by_a_control_call_in_python_and_over_http(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """set_duplicate_answer() and POST /_sandbox/duplicate-answer change the shape at once;
    GET reports it; an unknown shape is refused naming the field."""
    fresh_api.post(SEND, json=BODY)
    fresh_sandbox.set_duplicate_answer("legacy")
    assert fresh_api.post(SEND, json=BODY).json() == LEGACY
    switched = fresh_api.post("/_sandbox/duplicate-answer", json={"shape": "spec"})
    assert switched.json() == {"shape": "spec"} and fresh_sandbox.duplicate_answer() == "spec"
    assert_spec_duplicate(fresh_api.post(SEND, json=BODY))
    refused = fresh_api.post("/_sandbox/duplicate-answer", json={"shape": "v0"})
    assert refused.status_code == 400 and "duplicate_answer" in refused.json()["errors"]
    with pytest.raises(ValidationError, match="duplicate_answer"):
        Sandbox(duplicate_answer="v0")  # type: ignore[arg-type]


def test_concurrent_repeats_send_once(
    fresh_sandbox: Sandbox, make_client: Callable[..., httpx.Client]
) -> None:
    """16 identical requests at once over 16 connections: one 201, fifteen duplicate errors,
    one send, one charge."""
    clients = [make_client(fresh_sandbox) for _ in range(16)]
    with ThreadPoolExecutor(max_workers=16) as pool:
        answers = list(pool.map(lambda c: c.post(SEND, json=BODY), clients))
    assert sorted(a.status_code for a in answers) == [201] + [400] * 15
    for refused in (a for a in answers if a.status_code == 400):
        assert_spec_duplicate(refused)
    sent = fresh_sandbox.sent()
    assert len(sent) == 2
    assert fresh_sandbox.balance() == pytest.approx(1000.0 - sent["cost"].sum())


def test_a_sandbox_file_from_before_still_refuses_its_ids(
    tmp_path: Path, make_client: Callable[..., httpx.Client]
) -> None:
    """A file whose request_ids table has the columns of the replaying sandbox (fingerprint,
    response) still refuses its ids and keeps new ones."""
    path = tmp_path / "old.sqlite"
    with Sandbox(str(path)) as sandbox:
        assert make_client(sandbox).post(SEND, json=BODY).status_code == 201
    with sqlite3.connect(path) as db:  # the table as the replaying sandbox wrote it
        db.execute("ALTER TABLE request_ids ADD COLUMN fingerprint TEXT")
        db.execute("ALTER TABLE request_ids ADD COLUMN response TEXT")
    with Sandbox(str(path)) as sandbox:
        api = make_client(sandbox)
        assert_spec_duplicate(api.post(SEND, json=BODY))
        assert api.post(SEND, json={**BODY, "request_id": "new"}).status_code == 201
        assert_spec_duplicate(api.post(SEND, json={**BODY, "request_id": "new"}))
        assert len(sandbox.sent()) == 4
