"""Injected faults over HTTP: 500 before any work, responses lost after commit, 429, latency."""

from __future__ import annotations

import time

import httpx
import pytest

from smskit.errors import ValidationError
from smskit.sandbox import Sandbox

SEND = "/v1/public/sms-campaign/send"
BALANCE = "/v1/public/wallet/check-balance"
BODY = {"text": "Sale STOP au 36173", "recipients": ["+33612345678"], "sender": "MyShop"}


def outcome(client: httpx.Client, path: str = BALANCE) -> int | str:
    """Status code, or the transport error's class name when the response was lost."""
    try:
        return client.get(path).status_code
    except httpx.TransportError as exc:
        return type(exc).__name__


def test_error_fault_answers_500_and_does_nothing(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """error_rate=1: every gateway request gets 500 JSON and no send is recorded or charged."""
    fresh_sandbox.inject_faults(error_rate=1.0)
    response = fresh_api.post(SEND, json=BODY)
    assert response.status_code == 500
    assert response.json() == {"code": 500, "message": "Internal server error (injected)."}
    fresh_sandbox.clear_faults()
    assert fresh_sandbox.sent().empty
    assert fresh_sandbox.balance() == 1000.0


def test_drop_fault_commits_then_loses_the_response(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """drop_rate=1: the client gets a protocol error, yet the send was recorded and charged;
    the retry with its request_id is refused as a duplicate and charges nothing more."""
    fresh_sandbox.inject_faults(drop_rate=1.0)
    with pytest.raises(httpx.RemoteProtocolError):
        fresh_api.post(SEND, json={**BODY, "request_id": "lost-1"})
    fresh_sandbox.clear_faults()
    assert list(fresh_sandbox.sent()["request_id"]) == ["lost-1"]
    assert fresh_sandbox.balance() == pytest.approx(1000 - 0.065)
    retry = fresh_api.post(SEND, json={**BODY, "request_id": "lost-1"})
    assert retry.status_code == 400 and "request_id" in retry.json()["errors"]
    assert len(fresh_sandbox.sent()) == 1
    assert fresh_sandbox.balance() == pytest.approx(1000 - 0.065)


def test_rate_limit_fault_answers_429_with_retry_after(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """rate_limit_rate=1: 429 with a Retry-After header and a JSON body."""
    fresh_sandbox.inject_faults(rate_limit_rate=1.0)
    response = fresh_api.get(BALANCE)
    assert response.status_code == 429
    assert float(response.headers["retry-after"]) > 0
    assert response.json()["code"] == 429


def test_faults_spare_control_routes(fresh_sandbox: Sandbox, fresh_api: httpx.Client) -> None:
    """/_sandbox/ and /openapi.json always answer, whatever the fault rates."""
    fresh_sandbox.inject_faults(error_rate=1.0)
    assert fresh_api.get("/_sandbox/state").status_code == 200
    assert fresh_api.get("/openapi.json").status_code == 200
    assert fresh_api.delete("/_sandbox/faults").json()["error_rate"] == 0.0
    assert fresh_api.get(BALANCE).status_code == 200


def test_fault_sequence_is_seeded(fresh_sandbox: Sandbox, fresh_api: httpx.Client) -> None:
    """The same settings and seed give the same sequence of outcomes; counts match them."""
    settings = {"error_rate": 0.3, "drop_rate": 0.2, "rate_limit_rate": 0.1, "seed": 7}
    runs = []
    for _ in range(2):
        fresh_api.post("/_sandbox/faults", json=settings)
        runs.append([outcome(fresh_api) for _ in range(40)])
    assert runs[0] == runs[1]
    seen = set(runs[0])
    assert {200, 500, 429, "RemoteProtocolError"} <= seen
    counts = fresh_sandbox.faults()["counts"]
    assert counts["errors"] == runs[1].count(500)
    assert counts["rate_limited"] == runs[1].count(429)
    assert counts["drops"] == runs[1].count("RemoteProtocolError")
    other = fresh_api.post("/_sandbox/faults", json={**settings, "seed": 8})
    assert other.status_code == 200
    assert [outcome(fresh_api) for _ in range(40)] != runs[0]


def test_latency_is_added(fresh_sandbox: Sandbox, fresh_api: httpx.Client) -> None:
    """latency=(0.2, 0.2) delays every gateway answer by at least 0.2 s."""
    fresh_sandbox.inject_faults(latency=(0.2, 0.2))
    started = time.perf_counter()
    assert fresh_api.get(BALANCE).status_code == 200
    assert time.perf_counter() - started >= 0.2


def test_fault_settings_are_validated(sandbox: Sandbox, api: httpx.Client) -> None:
    """Rates outside 0..1, a sum over 1 or a reversed latency range are refused by name."""
    with pytest.raises(ValidationError, match="error_rate"):
        sandbox.inject_faults(error_rate=1.5)
    with pytest.raises(ValidationError, match="error_rate"):
        sandbox.inject_faults(error_rate=0.6, drop_rate=0.6)
    with pytest.raises(ValidationError, match="latency"):
        sandbox.inject_faults(latency=(0.5, 0.1))
    response = api.post("/_sandbox/faults", json={"drop_rate": -1})
    assert response.status_code == 400
    assert "drop_rate" in response.json()["errors"]


def test_drop_of_a_bodiless_answer_is_still_lost(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """A dropped contact/delete (a 204, no body) also ends in a protocol error, after the work."""
    fresh_api.post("/v1/public/contact/create", json={"contacts": ["+33612345678"]})
    fresh_sandbox.inject_faults(drop_rate=1.0)
    with pytest.raises(httpx.RemoteProtocolError):
        fresh_api.request(
            "DELETE", "/v1/public/contact/delete", json={"phone_numbers": ["+33612345678"]}
        )
    assert fresh_sandbox.contacts().empty
