"""POST /v1/public/sms-campaign/send over real HTTP: limits, pricing, STOP, request_id, modes.

Prices are the documented defaults (docs/sandbox.md): FR premium 0.065, FR low cost 0.045,
BE premium 0.079, DE premium 0.089 EUR per segment. Segment sizes are the GSM 03.38 /
TS 23.040 ones: 160 septets alone, 153 when concatenated; UCS-2 70, then 67.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from smskit.sandbox import Sandbox

SEND = "/v1/public/sms-campaign/send"
FR = "+33612345678"
FR2 = "+33612345679"
BE = "+32470123456"
DE = "+4915123456789"
KP = "+8501921234567"  # North Korea: deliberately unserved for SMS
FR_PREMIUM, FR_LOW, BE_PREMIUM, DE_PREMIUM = 0.065, 0.045, 0.079, 0.089
STOP = " STOP au 36173"


def body(**overrides: Any) -> dict[str, Any]:
    """A valid marketing send to one French number."""
    payload: dict[str, Any] = {
        "text": "Sale -20% today." + STOP,
        "recipients": [{"phone_number": FR}],
        "sender": "MyShop",
    }
    payload.update(overrides)
    return payload


def errors_of(response: httpx.Response) -> dict[str, Any]:
    """The ``errors`` of a 400 validation answer."""
    assert response.status_code == 400, response.text
    data = response.json()
    assert data["code"] == 400
    assert data["message"] == "Payload validation error."
    return data["errors"]


def balance(client: httpx.Client) -> float:
    """The balance as the gateway reports it."""
    return client.get("/v1/public/wallet/check-balance").json()["amount"]


def test_cost_is_segments_times_country_price(fresh_api: httpx.Client) -> None:
    """Two French and one Belgian recipient, one segment each: 2 x 0.065 + 0.079 EUR."""
    response = fresh_api.post(SEND, json=body(recipients=[FR, FR2, BE]))
    assert response.status_code == 201
    result = response.json()
    expected = 2 * FR_PREMIUM + BE_PREMIUM
    assert result["total_cost"] == pytest.approx(expected)
    assert result["number_of_contacts"] == 3
    assert result["number_of_sms_needed"] == 3
    assert result["residual_credit"] == pytest.approx(1000 - expected)
    assert balance(fresh_api) == pytest.approx(1000 - expected)
    assert isinstance(result["sms_ticket"], str) and result["sms_ticket"]


def test_long_gsm_text_is_billed_per_concatenated_segment(fresh_api: httpx.Client) -> None:
    """A 161-character GSM-7 text needs 2 segments of 153; 160 characters need 1."""
    for length, segments in ((160, 1), (161, 2), (306, 2), (307, 3)):
        text = "a" * (length - len(STOP)) + STOP
        result = fresh_api.post(SEND, json=body(text=text, recipients=[DE])).json()
        assert result["number_of_sms_needed"] == segments, length
        assert result["total_cost"] == pytest.approx(segments * DE_PREMIUM)


def test_ucs2_text_segments(fresh_api: httpx.Client) -> None:
    """A Cyrillic text is UCS-2: 70 units fit one segment, 71 need two (67 each)."""
    for length, segments in ((70, 1), (71, 2), (134, 2), (135, 3)):
        text = "Ж" * (length - len(STOP)) + STOP
        result = fresh_api.post(SEND, json=body(text=text)).json()
        assert result["number_of_sms_needed"] == segments, length


def test_personalisation_is_billed_per_recipient(fresh_api: httpx.Client) -> None:
    """Dynamic fields are filled before counting: a long first name can add a segment."""
    text = "Hi {first_name}! " + "x" * 125 + STOP  # 4 + 1 + 125 + 14 chars without the name
    short = {"phone_number": FR, "first_name": "Al"}  # 146 chars: 1 segment
    long = {"phone_number": FR2, "first_name": "A" * 30}  # 174 chars: 2 segments
    result = fresh_api.post(SEND, json=body(text=text, recipients=[short, long])).json()
    assert result["number_of_sms_needed"] == 3
    assert result["total_cost"] == pytest.approx(3 * FR_PREMIUM)


def test_sent_records_rendered_text_per_recipient(fresh_sandbox: Sandbox) -> None:
    """sent() holds one row per recipient with the personalised text and its cost."""
    with httpx.Client(base_url=fresh_sandbox.url, headers=fresh_sandbox.auth_headers()) as c:
        recipients = [{"phone_number": FR, "first_name": "Ada"}, {"phone_number": BE}]
        ticket = c.post(SEND, json=body(text="Hi {first_name}." + STOP, recipients=recipients))
    sent = fresh_sandbox.sent()
    assert list(sent["phone_number"]) == [FR, BE]
    assert list(sent["text"]) == ["Hi Ada." + STOP, "Hi ." + STOP]
    assert list(sent["sms_ticket"]) == [ticket.json()["sms_ticket"]] * 2
    assert list(sent["cost"]) == pytest.approx([FR_PREMIUM, BE_PREMIUM])
    assert set(sent["status"]) == {"sent"}


def test_auto_optimize_text_is_on_by_default(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """A curly apostrophe forces UCS-2 unless optimised: 100 chars are 1 GSM or 2 UCS-2 segments."""
    text = "It\u2019s " + "a" * (100 - 5 - len(STOP)) + STOP
    assert len(text) == 100
    optimised = fresh_api.post(SEND, json=body(text=text)).json()
    raw = fresh_api.post(SEND, json=body(text=text, auto_optimize_text=False)).json()
    assert optimised["number_of_sms_needed"] == 1
    assert raw["number_of_sms_needed"] == 2
    assert list(fresh_sandbox.sent()["text"]) == [text.replace("\u2019", "'"), text]


def test_low_cost_type_uses_low_cost_price(fresh_api: httpx.Client) -> None:
    """type=sms_low_cost is billed at the low-cost price; an unknown type becomes premium."""
    low = fresh_api.post(SEND, json=body(type="sms_low_cost")).json()
    unknown = fresh_api.post(SEND, json=body(type="sms_gold")).json()
    upper = fresh_api.post(SEND, json=body(type=" SMS_LOW_COST ")).json()
    assert low["total_cost"] == pytest.approx(FR_LOW)
    assert unknown["total_cost"] == pytest.approx(FR_PREMIUM)
    assert upper["total_cost"] == pytest.approx(FR_LOW)


def test_wholesale_without_stop_is_refused_and_not_charged(fresh_api: httpx.Client) -> None:
    """Marketing (the default purpose) without the word STOP: 400 code 121, nothing charged."""
    for text in ("Sale -20% today", "Sale -20%, reply stop to opt out", "STOPPED sale"):
        response = fresh_api.post(SEND, json=body(text=text))
        assert response.status_code == 400
        assert response.json() == {"code": 121, "message": "Mention STOP is missing."}
        refused = fresh_api.post(SEND, json=body(text=text, purpose="wholesale"))
        assert refused.json()["code"] == 121
    assert balance(fresh_api) == 1000.0


def test_alert_needs_no_stop(fresh_api: httpx.Client) -> None:
    """A transactional (alert) text is accepted without a STOP mention."""
    response = fresh_api.post(SEND, json=body(text="Your code is 1234", purpose="alert"))
    assert response.status_code == 201


def test_text_length_limits(fresh_api: httpx.Client) -> None:
    """1224 characters are accepted (8 segments); 1225 is 411; blank or missing is 410."""
    longest = "a" * (1224 - len(STOP)) + STOP
    accepted = fresh_api.post(SEND, json=body(text=longest))
    assert accepted.status_code == 201
    assert accepted.json()["number_of_sms_needed"] == 8
    assert errors_of(fresh_api.post(SEND, json=body(text=longest + "a")))["text"]["code"] == 411
    assert errors_of(fresh_api.post(SEND, json=body(text="   ")))["text"]["code"] == 410
    payload = body()
    del payload["text"]
    assert errors_of(fresh_api.post(SEND, json=payload))["text"]["code"] == 410


def test_recipient_count_limits(fresh_api: httpx.Client) -> None:
    """500 recipients are accepted; 501 is 411; none is 410."""
    numbers = [f"+336{n:08d}" for n in range(501)]
    accepted = fresh_api.post(SEND, json=body(recipients=numbers[:500]))
    assert accepted.status_code == 201
    assert accepted.json()["number_of_contacts"] == 500
    assert (
        errors_of(fresh_api.post(SEND, json=body(recipients=numbers)))["recipients"]["code"] == 411
    )
    assert errors_of(fresh_api.post(SEND, json=body(recipients=[])))["recipients"]["code"] == 410


def test_phone_numbers_are_reformatted_or_dropped(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """Separators are removed and 00 becomes +; a national number is dropped, the rest sent."""
    ok = fresh_api.post(SEND, json=body(recipients=["+33 6 12-34.56.78", "0032470123456"]))
    assert ok.status_code == 201
    assert list(fresh_sandbox.sent()["phone_number"]) == [FR, BE]
    result = fresh_api.post(SEND, json=body(recipients=[FR2, "0612345678", "+12"]))
    assert result.status_code == 201
    assert result.json()["number_of_contacts"] == 1
    dropped = fresh_sandbox.dropped()
    assert list(dropped["position"]) == [1, 2]
    assert list(dropped["phone_number"]) == ["0612345678", "+12"]


def test_sender_rules(fresh_sandbox: Sandbox, fresh_api: httpx.Client) -> None:
    """Sender: 3-11 letters/digits; other characters removed; inner spaces kept (and counted)
    only for alerts."""
    assert fresh_api.post(SEND, json=body(sender="My-Shop!")).status_code == 201
    assert fresh_api.post(SEND, json=body(sender="My Shop", purpose="alert")).status_code == 201
    assert fresh_api.post(SEND, json=body(sender="ABCDEFGHIJK")).status_code == 201
    assert fresh_api.post(SEND, json=body(sender=" Le  Shop ", purpose="alert")).status_code == 201
    assert list(fresh_sandbox.sent()["sender"]) == ["MyShop", "My Shop", "ABCDEFGHIJK", "Le  Shop"]
    assert errors_of(fresh_api.post(SEND, json=body(sender="ab")))["sender"]["code"] == 411
    assert (
        errors_of(fresh_api.post(SEND, json=body(sender="ABCDEFGHIJKL")))["sender"]["code"] == 411
    )
    assert errors_of(fresh_api.post(SEND, json=body(sender="a-b")))["sender"]["code"] == 411
    assert errors_of(fresh_api.post(SEND, json=body(sender="")))["sender"]["code"] == 410


def test_dynamic_field_longer_than_50_is_refused(fresh_api: httpx.Client) -> None:
    """A dynamic field value over 50 characters is 411 on that recipient's field."""
    recipients = [{"phone_number": FR, "param3": "x" * 51}]
    errors = errors_of(fresh_api.post(SEND, json=body(recipients=recipients)))
    assert errors["recipients[0].param3"]["code"] == 411


def test_unknown_dynamic_field_is_refused(fresh_api: httpx.Client) -> None:
    """A placeholder that is not a dynamic field ({firstname}) is 413 on text."""
    errors = errors_of(fresh_api.post(SEND, json=body(text="Hi {firstname}" + STOP)))
    assert errors["text"]["code"] == 413


def test_text_rendering_empty_is_refused(fresh_api: httpx.Client) -> None:
    """An alert whose text renders empty for a recipient is 410 on that recipient."""
    recipients = [{"phone_number": FR, "first_name": "Ada"}, {"phone_number": BE}]
    payload = body(text="{first_name}", purpose="alert", recipients=recipients)
    errors = errors_of(fresh_api.post(SEND, json=payload))
    assert set(errors) == {"recipients[1]"}
    assert errors["recipients[1]"]["code"] == 410


def test_all_field_errors_are_reported_at_once(fresh_api: httpx.Client) -> None:
    """One 400 names every faulty field."""
    payload = {"text": "", "recipients": [{"param1": "x" * 51}], "sender": "x", "send_at": "?"}
    errors = errors_of(fresh_api.post(SEND, json=payload))
    assert set(errors) == {"text", "recipients[0].param1", "sender", "send_at"}


def test_request_id_expires_after_24_hours(fresh_sandbox: Sandbox, fresh_api: httpx.Client) -> None:
    """After 23 h a repeat is still refused as a duplicate; after 24 h it is a new send."""
    first = fresh_api.post(SEND, json=body(request_id="r"))
    assert first.status_code == 201
    fresh_sandbox.advance(23 * 3600)
    repeat = fresh_api.post(SEND, json=body(request_id="r"))
    assert repeat.status_code == 400 and "request_id" in errors_of(repeat)
    fresh_sandbox.advance(3600)
    later = fresh_api.post(SEND, json=body(request_id="r"))
    assert later.status_code == 201
    assert later.json()["sms_ticket"] != first.json()["sms_ticket"]
    assert len(fresh_sandbox.sent()) == 2


def test_insufficient_balance_refused_and_nothing_recorded(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """A send dearer than the balance: 400 code 122, balance and records unchanged."""
    fresh_sandbox.set_balance(0.1)
    response = fresh_api.post(SEND, json=body(recipients=[FR, FR2]))  # 0.13 EUR
    assert response.status_code == 400
    assert response.json()["code"] == 122
    assert "Insufficient credit" in response.json()["message"]
    assert balance(fresh_api) == pytest.approx(0.1)
    assert fresh_sandbox.sent().empty
    exact = fresh_api.post(SEND, json=body(recipients=[FR]))
    assert exact.status_code == 201
    assert exact.json()["residual_credit"] == pytest.approx(0.1 - FR_PREMIUM)


def test_simulation_returns_real_figures_and_changes_nothing(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """simulation_mode: the real send's figures; no charge, no record, no request_id kept."""
    payload = body(recipients=[FR, BE], request_id="sim-1")
    simulated = fresh_api.post(SEND, json={**payload, "simulation_mode": True}).json()
    assert balance(fresh_api) == 1000.0
    assert fresh_sandbox.sent().empty
    real = fresh_api.post(SEND, json=payload)
    assert real.status_code == 201, "simulation must not register the request_id"
    for key in ("number_of_contacts", "number_of_sms_needed", "residual_credit", "total_cost"):
        assert simulated[key] == real.json()[key]


def test_simulation_validates_fully(fresh_sandbox: Sandbox, fresh_api: httpx.Client) -> None:
    """A simulation is refused exactly like the send would be (STOP, credit, used id)."""
    no_stop = fresh_api.post(SEND, json=body(text="Sale", simulation_mode=True))
    assert no_stop.json()["code"] == 121
    fresh_api.post(SEND, json=body(request_id="x"))
    reused = fresh_api.post(SEND, json=body(request_id="x", recipients=[BE], simulation_mode=True))
    assert reused.status_code == 400 and "request_id" in errors_of(reused)
    fresh_sandbox.set_balance(0.01)
    poor = fresh_api.post(SEND, json=body(simulation_mode=True))
    assert poor.json()["code"] == 122


def test_blacklisted_numbers_removed_for_a_fee(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """auto_remove_blacklisted_numbers drops blacklisted recipients and adds 0.01 EUR."""
    fresh_sandbox.add_to_blacklist([BE])
    payload = body(recipients=[FR, BE], auto_remove_blacklisted_numbers=True)
    result = fresh_api.post(SEND, json=payload).json()
    assert result["number_of_contacts"] == 1
    assert result["total_cost"] == pytest.approx(FR_PREMIUM + 0.01)
    assert list(fresh_sandbox.sent()["phone_number"]) == [FR]


def test_blacklist_fee_applies_even_when_nothing_is_removed(fresh_api: httpx.Client) -> None:
    """The 0.01 EUR is per request, whether or not a number was blacklisted."""
    result = fresh_api.post(SEND, json=body(auto_remove_blacklisted_numbers=True)).json()
    assert result["total_cost"] == pytest.approx(FR_PREMIUM + 0.01)


def test_blacklisted_numbers_are_sent_without_the_option(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """Without auto_remove_blacklisted_numbers a blacklisted number is sent and billed."""
    fresh_sandbox.add_to_blacklist(BE)
    result = fresh_api.post(SEND, json=body(recipients=[FR, BE])).json()
    assert result["number_of_contacts"] == 2
    assert result["total_cost"] == pytest.approx(FR_PREMIUM + BE_PREMIUM)


def test_unserved_destination_is_refused(fresh_api: httpx.Client) -> None:
    """A recipient in a country without a price: 413 on that recipient, nothing charged."""
    errors = errors_of(fresh_api.post(SEND, json=body(recipients=[FR, KP])))
    assert errors["recipients[1].phone_number"]["code"] == 413
    assert balance(fresh_api) == 1000.0


def test_number_listed_twice_is_sent_once(fresh_sandbox: Sandbox, fresh_api: httpx.Client) -> None:
    """A number repeated in one request is sent (and billed) once."""
    result = fresh_api.post(SEND, json=body(recipients=[FR, "+33 6 12 34 56 78", BE])).json()
    assert result["number_of_contacts"] == 2
    assert list(fresh_sandbox.sent()["phone_number"]) == [FR, BE]


def test_future_send_at_is_scheduled_then_dispatched(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """send_at in the future: charged now, recorded as scheduled, sent once the time passes."""
    response = fresh_api.post(SEND, json=body(send_at="2999-01-01T09:00:00+01:00"))
    assert response.status_code == 201
    assert balance(fresh_api) == pytest.approx(1000 - FR_PREMIUM)
    row = fresh_sandbox.sent().iloc[0]
    assert row["status"] == "scheduled"
    assert row["send_at"].isoformat() == "2999-01-01T08:00:00+00:00"
    fresh_sandbox.advance(1000 * 366 * 86400)
    row = fresh_sandbox.sent().iloc[0]
    assert row["status"] == "sent"
    assert row["sent_at"] == row["send_at"]


def test_past_send_at_is_sent_now(fresh_sandbox: Sandbox, fresh_api: httpx.Client) -> None:
    """send_at in the past (Z offset accepted) means: send immediately."""
    assert fresh_api.post(SEND, json=body(send_at="2001-01-01T00:00:00Z")).status_code == 201
    assert fresh_sandbox.sent().iloc[0]["status"] == "sent"


def test_unparseable_send_at_is_refused(fresh_api: httpx.Client) -> None:
    """A send_at that is not a date-time is 412 on send_at, not sent now."""
    for value in ("next monday", "2999-13-01 09:00:00"):
        assert errors_of(fresh_api.post(SEND, json=body(send_at=value)))["send_at"]["code"] == 412
    assert balance(fresh_api) == 1000.0


def test_with_replies_replaces_sender_by_short_number(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """with_replies=true: the documented short number 38100 replaces the sender."""
    assert fresh_api.post(SEND, json=body(with_replies=True)).status_code == 201
    row = fresh_sandbox.sent().iloc[0]
    assert row["sender"] == "38100"
    assert bool(row["with_replies"]) is True


def test_lenient_casts_and_unknown_parameters(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """Booleans as strings/numbers are cast, bare numbers become recipients, extras are ignored."""
    payload = {
        "text": "Sale" + STOP,
        "recipients": FR,  # one number instead of an array of contacts
        "sender": 12345,  # a number is cast to "12345"
        "simulation_mode": "false",
        "auto_optimize_text": 0,
        "with_replies": "no",
        "request_id": 42,
        "colour": "blue",
    }
    response = fresh_api.post(SEND, json=payload)
    assert response.status_code == 201
    row = fresh_sandbox.sent().iloc[0]
    assert (row["phone_number"], row["sender"], row["request_id"]) == (FR, "12345", "42")
    simulated = fresh_api.post(
        SEND, json={**payload, "request_id": None, "simulation_mode": "TRUE"}
    )
    assert simulated.status_code == 201
    assert len(fresh_sandbox.sent()) == 1
    ignored = fresh_api.post(SEND, json={**payload, "request_id": None, "simulation_mode": "maybe"})
    assert ignored.status_code == 201
    assert len(fresh_sandbox.sent()) == 2, "an unreadable boolean keeps its default (false)"


def test_body_must_be_a_json_object(api: httpx.Client) -> None:
    """Invalid JSON, a JSON array or a lone surrogate: 400 naming the body."""
    assert errors_of(api.post(SEND, content=b"{nope"))["body"]["code"] == 412
    assert errors_of(api.post(SEND, json=[1, 2]))["body"]["code"] == 412
    surrogate = b'{"text": "\\ud800 STOP", "recipients": ["+33612345678"], "sender": "Shop"}'
    assert errors_of(api.post(SEND, content=surrogate))["body"]["code"] == 412
    assert set(errors_of(api.post(SEND))) == {"text", "recipients", "sender"}


def test_unknown_purpose_becomes_wholesale(fresh_api: httpx.Client) -> None:
    """An unrecognised purpose takes the default (wholesale), so STOP is then required."""
    response = fresh_api.post(SEND, json=body(text="Sale", purpose="marketing"))
    assert response.json()["code"] == 121
    assert fresh_api.post(SEND, json=body(purpose=" ALERT ", text="Code 1")).status_code == 201


def test_send_at_as_unix_timestamp(fresh_sandbox: Sandbox, fresh_api: httpx.Client) -> None:
    """A number for send_at is cast as a Unix timestamp (UTC): 32503680000 is 3000-01-01."""
    assert fresh_api.post(SEND, json=body(send_at=32503680000)).status_code == 201
    row = fresh_sandbox.sent().iloc[0]
    assert row["status"] == "scheduled"
    assert row["send_at"].isoformat() == "3000-01-01T00:00:00+00:00"


def test_request_id_length_is_limited(fresh_api: httpx.Client) -> None:
    """A request_id over 255 characters is 411; an empty one counts as absent."""
    assert (
        errors_of(fresh_api.post(SEND, json=body(request_id="r" * 256)))["request_id"]["code"]
        == 411
    )
    assert fresh_api.post(SEND, json=body(request_id="")).status_code == 201
    assert fresh_api.post(SEND, json=body(request_id="")).status_code == 201


def test_oversized_body_is_refused(api: httpx.Client) -> None:
    """A body over 4 MiB is answered 413 with a JSON {code, message}, not read to the end."""
    response = api.post(SEND, content=b'{"text": "' + b"a" * (4 * 1024 * 1024) + b'"}')
    assert response.status_code == 413
    assert response.json()["code"] == 413
