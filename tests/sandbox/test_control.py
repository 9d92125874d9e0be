"""Control surface, over HTTP (/_sandbox/...) and in Python, plus determinism and persistence."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from smskit.errors import ValidationError
from smskit.sandbox import Sandbox, shared

SEND = "/v1/public/sms-campaign/send"
TOKEN = "/v1/public/subaccount/credit-transfer/token"
BODY = {"text": "Sale STOP au 36173", "recipients": ["+33612345678"], "sender": "MyShop"}


def test_balance_and_prices_over_http(fresh_api: httpx.Client) -> None:
    """POST /_sandbox/balance and /_sandbox/prices change what the wallet and sends see."""
    assert fresh_api.post("/_sandbox/balance", json={"amount": 5}).json()["amount"] == 5
    fresh_api.post(
        "/_sandbox/prices", json={"country_code": "fr", "product_name": "sms_premium", "price": 0.5}
    )
    result = fresh_api.post(SEND, json=BODY).json()
    assert result["total_cost"] == pytest.approx(0.5)
    assert result["residual_credit"] == pytest.approx(4.5)
    bad = fresh_api.post("/_sandbox/balance", json={"amount": -1})
    assert bad.status_code == 400 and "amount" in bad.json()["errors"]


def test_sent_over_http(fresh_api: httpx.Client) -> None:
    """GET /_sandbox/sent lists each recipient with ticket, text, segments, cost, status."""
    ticket = fresh_api.post(SEND, json={**BODY, "request_id": "q1"}).json()["sms_ticket"]
    (row,) = fresh_api.get("/_sandbox/sent").json()
    assert row["sms_ticket"] == ticket
    assert row["request_id"] == "q1"
    assert (row["phone_number"], row["segments"], row["status"]) == ("+33612345678", 1, "sent")
    assert row["cost"] == pytest.approx(0.065)


def test_clock_dispatches_scheduled_sends(fresh_api: httpx.Client) -> None:
    """POST /_sandbox/clock moves time forward and reports the scheduled messages now sent."""
    fresh_api.post(SEND, json={**BODY, "send_at": "2999-01-01T00:00:00+00:00"})
    assert fresh_api.get("/_sandbox/sent").json()[0]["status"] == "scheduled"
    moved = fresh_api.post("/_sandbox/clock", json={"seconds": 1000 * 366 * 86400}).json()
    assert moved["dispatched"] == 1
    assert moved["now"] > "2999"
    assert fresh_api.get("/_sandbox/sent").json()[0]["status"] == "sent"
    back = fresh_api.post("/_sandbox/clock", json={"seconds": -5})
    assert back.status_code == 400


def test_blacklist_over_http(fresh_api: httpx.Client) -> None:
    """POST /_sandbox/blacklist normalises and stores numbers; a bad one is refused."""
    assert fresh_api.post(
        "/_sandbox/blacklist", json={"phone_numbers": ["+33 6 12 34 56 78"]}
    ).json() == ["+33612345678"]
    assert fresh_api.post("/_sandbox/blacklist", json={"phone_numbers": ["12"]}).status_code == 400
    assert (
        fresh_api.post("/_sandbox/blacklist", json={}).json()["errors"]["phone_numbers"]["code"]
        == 410
    )


def test_reset_restores_a_fresh_account(fresh_sandbox: Sandbox, fresh_api: httpx.Client) -> None:
    """POST /_sandbox/reset: default balance and prices, no sends or faults; same tickets."""
    first = fresh_api.post(SEND, json=BODY).json()["sms_ticket"]
    fresh_sandbox.set_price("FR", "sms_premium", 1.0)
    fresh_sandbox.add_to_blacklist(["+33612345678"])
    fresh_sandbox.inject_faults(latency=0.01)
    state = fresh_api.post("/_sandbox/reset").json()
    assert state["balance"] == 1000.0
    assert state["blacklist_size"] == 0
    assert fresh_sandbox.faults()["latency"] == (0.0, 0.0)
    assert fresh_sandbox.sent().empty
    again = fresh_api.post(SEND, json=BODY).json()
    assert again["sms_ticket"] == first
    assert again["total_cost"] == pytest.approx(0.065)


def test_same_seed_same_tickets_and_tokens() -> None:
    """Two fresh sandboxes with one seed give the same tickets and tokens; another seed differs."""
    runs = []
    for seed in (0, 0, 1):
        with (
            Sandbox(seed=seed) as sb,
            httpx.Client(base_url=sb.url, headers=sb.auth_headers()) as c,
        ):
            tickets = [c.post(SEND, json=BODY).json()["sms_ticket"] for _ in range(2)]
            token = c.post(TOKEN, json={"email_to": "a@b.co"}).json()["token"]
            runs.append((tickets, token))
    assert runs[0] == runs[1]
    assert runs[0][0][0] != runs[0][0][1]
    assert runs[2][0] != runs[0][0] and runs[2][1] != runs[0][1]


def test_state_persists_in_a_file(tmp_path: Path) -> None:
    """With path=, balance, sends, request ids and the ticket sequence survive a restart."""
    path = str(tmp_path / "gateway.sqlite")
    with Sandbox(path) as sb, httpx.Client(base_url=sb.url, headers=sb.auth_headers()) as c:
        first = c.post(SEND, json={**BODY, "request_id": "p1"}).json()["sms_ticket"]
    with (
        Sandbox(path, balance=5.0) as sb,
        httpx.Client(base_url=sb.url, headers=sb.auth_headers()) as c,
    ):
        assert sb.balance() == pytest.approx(1000 - 0.065), "balance= only seeds a new file"
        assert "request_id" in c.post(SEND, json={**BODY, "request_id": "p1"}).json()["errors"]
        second = c.post(SEND, json=BODY).json()["sms_ticket"]
        assert second != first
        assert len(sb.sent()) == 2


def test_start_stop_restart_keeps_state() -> None:
    """stop() then start() serves the same account again (possibly on another port)."""
    sb = Sandbox()
    with pytest.raises(RuntimeError, match="start"):
        _ = sb.url
    sb.start()
    sb.set_balance(12)
    sb.stop()
    assert not sb.running
    with sb, httpx.Client(base_url=sb.url, headers=sb.auth_headers()) as c:
        assert c.get("/v1/public/wallet/check-balance").json()["amount"] == 12


def test_shared_sandbox_is_one_per_process() -> None:
    """shared() starts once and then returns the same running sandbox."""
    first = shared()
    assert first.running
    assert shared() is first


def test_control_methods_validate_input(sandbox: Sandbox) -> None:
    """Python control methods refuse bad values with errors naming the field."""
    with pytest.raises(ValidationError, match="product_name"):
        sandbox.set_price("FR", "sms_gold", 0.1)
    with pytest.raises(ValidationError, match="price"):
        sandbox.set_price("FR", "hlr", 0)
    with pytest.raises(ValidationError, match="amount"):
        sandbox.set_balance(float("nan"))
    with pytest.raises(ValidationError, match="phone_numbers"):
        sandbox.add_to_blacklist(["0612345678"])
    with pytest.raises(ValidationError, match="balance"):
        Sandbox(balance=-1)


@pytest.mark.parametrize(
    ("option", "value"),
    [("seed", "x"), ("seed", 1.5), ("seed", True), ("port", -5), ("port", 70000),
     ("port", "8080"), ("login", ""), ("login", "  "), ("login", 7), ("api_key", "")],
)  # fmt: skip
def test_constructor_options_are_refused_by_name(option: str, value: object) -> None:
    """A seed, port, login or key the sandbox cannot use is a ValidationError naming the
    option (a string seed and a negative port were accepted; a blank login was a plain
    ValueError)."""
    with pytest.raises(ValidationError) as caught:
        Sandbox(**{option: value})  # type: ignore[arg-type]
    assert caught.value.field == option


def test_a_client_of_a_sandbox_not_started_is_refused_as_a_smskit_error() -> None:
    """smskit.Client(sandbox=<not started>) raises smskit's NotStartedError (a
    ConfigurationError, still a RuntimeError) naming start(), not a bare RuntimeError."""
    import smskit

    with pytest.raises(smskit.NotStartedError, match=r"start\(\)") as caught:
        smskit.Client(sandbox=Sandbox())
    assert isinstance(caught.value, smskit.ConfigurationError)
    assert isinstance(caught.value, RuntimeError)
