"""Where the spec is silent, the sandbox behaves as the vendor documents (over real HTTP)."""

from __future__ import annotations

from typing import Any

import httpx
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from smskit.sandbox import Sandbox

SEND = "/v1/public/sms-campaign/send"
FR, BE = "+33612345678", "+32470123456"


def send(client: httpx.Client, **overrides: Any) -> httpx.Response:
    """POST a valid marketing send to FR, with ``overrides``."""
    payload = {"text": "Promo STOP au 36173", "recipients": [FR], "sender": "MyShop"}
    return client.post(SEND, json={**payload, **overrides})


@pytest.mark.parametrize(
    ("given", "utc"),
    [
        ("2999-01-01 00:01:00", "2998-12-31T23:01:00+00:00"),  # winter: CET, UTC+1
        ("2999-07-01 12:00:00", "2999-07-01T10:00:00+00:00"),  # summer: CEST, UTC+2
        ("2999-03-31T02:30:00", "2999-03-31T01:30:00+00:00"),  # skipped hour: winter offset
        ("2999-10-27 02:30:00", "2999-10-27T00:30:00+00:00"),  # repeated hour: first (summer)
    ],
)
def test_send_at_without_offset_is_paris_time(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client, given: str, utc: str
) -> None:
    """A send_at without an offset is Europe/Paris time, daylight saving included."""
    assert send(fresh_api, send_at=given).status_code == 201
    assert fresh_sandbox.sent().iloc[0]["send_at"].isoformat() == utc


def test_unfixable_recipient_is_dropped_and_the_rest_sent(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """Convention 3: an unusable number is ignored, the others sent and counted and charged."""
    recipients = [FR, "06 12 34 56 78", {"first_name": "Ada"}, "+999123456", [1], BE]
    result = send(fresh_api, recipients=recipients).json()
    assert result["number_of_contacts"] == 2
    assert result["total_cost"] == pytest.approx(0.065 + 0.079)
    assert list(fresh_sandbox.sent()["phone_number"]) == [FR, BE]
    dropped = fresh_sandbox.dropped()
    assert list(dropped["sms_ticket"].unique()) == [result["sms_ticket"]]
    assert list(dropped["position"]) == [1, 2, 3, 4]
    assert list(dropped["phone_number"]) == ["06 12 34 56 78", "", "+999123456", ""]
    reasons = list(dropped["reason"])
    assert "international format" in reasons[0]
    assert reasons[1] == "phone_number is blank"
    assert "dialling code" in reasons[2]
    assert "not a contact" in reasons[3]


def test_duplicates_and_blacklist_removals_are_recorded_as_dropped(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """Every gap between submitted and number_of_contacts has a row in dropped()."""
    fresh_sandbox.add_to_blacklist(BE)
    result = send(
        fresh_api, recipients=[FR, BE, "+33 6 12 34 56 78"], auto_remove_blacklisted_numbers=True
    ).json()
    assert result["number_of_contacts"] == 1
    dropped = fresh_sandbox.dropped()
    assert list(zip(dropped["position"], dropped["reason"], strict=True)) == [
        (1, "blacklisted, removed on request"),
        (2, "listed twice, sent once"),
    ]


@pytest.mark.parametrize(
    "recipients",
    [["06 12 34 56 78"], ["0612345678", "nope", ""], ["+999123456"]],
    ids=["national-without-country", "several-unusable", "no-such-dialling-code"],
)
@pytest.mark.parametrize("simulation_mode", [False, True], ids=["send", "simulation"])
def test_no_recipient_left_is_a_blank_recipients_error(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client, recipients: list[str], simulation_mode: bool
) -> None:
    """Every recipient ignored (convention 3): the required recipients is blank, 400 with
    errors.recipients code 410; nothing sent, charged or recorded, and the id stays unused."""
    payload = {"recipients": recipients, "request_id": "nobody", "simulation_mode": simulation_mode}
    result = send(fresh_api, **payload)
    assert result.status_code == 400
    assert result.json()["code"] == 400
    assert result.json()["errors"]["recipients"]["code"] == 410
    assert "must not be blank" in result.json()["errors"]["recipients"]["message"]
    assert fresh_sandbox.balance() == 1000.0
    assert fresh_sandbox.sent().empty and fresh_sandbox.dropped().empty
    assert send(fresh_api, recipients=[FR], request_id="nobody").status_code == 201


# Recipients of every kind a send may carry: usable numbers, national ones, garbage, blanks,
# unknown dialling codes, numbers in separators or with 00, objects without a number.
RECIPIENTS = st.one_of(
    st.sampled_from([FR, BE, "0033 6 12 34 56 78", "+33 (6) 12-34-56-79", "+1 201 555 0123"]),
    st.sampled_from(["06 12 34 56 78", "", "  ", "+999123456", "+800 1234 5678", "nope", "+"]),
    st.from_regex(r"\+?[0-9 ]{0,16}", fullmatch=True),
    st.text(max_size=12),
    st.builds(lambda n: {"phone_number": n}, st.sampled_from([FR, "06 12 34 56 78", ""])),
    st.just({"first_name": "Ann"}),
)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(recipients=st.lists(RECIPIENTS, min_size=1, max_size=6))
def test_a_send_is_never_accepted_for_nobody(api: httpx.Client, recipients: list[Any]) -> None:
    """Whatever the recipients, a send is either accepted for at least one of them or refused:
    never a 201 with number_of_contacts 0 (when it is refused for nobody left, the error
    names recipients with the blank code 410)."""
    answer = send(api, recipients=recipients, simulation_mode=True)
    if answer.status_code == 201:
        assert answer.json()["number_of_contacts"] >= 1
    else:
        assert answer.status_code == 400
        errors = answer.json().get("errors", {})
        if "recipients" in errors:
            assert errors["recipients"]["code"] == 410


def test_every_recipient_removed_as_blacklisted_is_a_blank_recipients_error(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """auto_remove_blacklisted_numbers removing every recipient leaves recipients blank too:
    400 on recipients, and the 0.01 EUR fee is not charged for a refused request."""
    fresh_sandbox.add_to_blacklist([FR])
    result = send(fresh_api, recipients=[FR], auto_remove_blacklisted_numbers=True)
    assert result.status_code == 400
    assert result.json()["errors"]["recipients"]["code"] == 410
    assert fresh_sandbox.balance() == 1000.0 and fresh_sandbox.sent().empty


def test_simulation_records_no_dropped_recipient(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """A simulation reports the kept count but records nothing."""
    result = send(fresh_api, recipients=[FR, "nope"], simulation_mode=True).json()
    assert result["number_of_contacts"] == 1
    assert fresh_sandbox.dropped().empty


def test_trailing_slash_is_another_path(api: httpx.Client) -> None:
    """A trailing slash answers 404 JSON, not a redirect the real gateway does not document."""
    response = api.get("/v1/public/wallet/check-balance/")
    assert response.status_code == 404
    assert response.json()["code"] == 404


def test_form_encoded_body_is_refused_naming_json(fresh_api: httpx.Client) -> None:
    """A form-encoded send is 400 on body, saying the body must be JSON; nothing is sent."""
    response = fresh_api.post(SEND, data={"text": "Promo STOP", "recipients": FR, "sender": "Shop"})
    assert response.status_code == 400
    error = response.json()["errors"]["body"]
    assert error["code"] == 412
    assert "application/x-www-form-urlencoded" in error["message"]


def test_lower_case_stop_is_not_a_stop_mention(fresh_api: httpx.Client) -> None:
    """Only the upper-case word STOP counts: 'stop au 36173' is refused with code 121."""
    response = send(fresh_api, text="Promo stop au 36173")
    assert response.status_code == 400
    assert response.json()["code"] == 121


def test_twelve_character_sender_is_refused(fresh_api: httpx.Client) -> None:
    """A 12-character sender is 411, never cut: the handset would show a different name."""
    response = send(fresh_api, sender="ABCDEFGHIJKL")
    assert response.json()["errors"]["sender"]["code"] == 411


def test_simulation_tickets_repeat(fresh_api: httpx.Client) -> None:
    """Two simulations in a row get the same fake ticket: code must not key on it."""
    first = send(fresh_api, simulation_mode=True).json()["sms_ticket"]
    second = send(fresh_api, simulation_mode=True).json()["sms_ticket"]
    assert first == second
    assert first.startswith("sim-")


def test_wallet_packs_control_over_http(fresh_api: httpx.Client) -> None:
    """POST /_sandbox/wallet-packs adds a pack; GET lists them, the first to expire first."""
    added = fresh_api.post("/_sandbox/wallet-packs", json={"amount": 5, "expires_in_days": 1})
    assert added.status_code == 200
    assert [p["credit"] for p in added.json()] == [5.0, 100.0, 900.0]
    dropped = fresh_api.get("/_sandbox/dropped")
    assert dropped.json() == []


def test_only_integers_are_read_as_text(fresh_sandbox: Sandbox, fresh_api: httpx.Client) -> None:
    """An integer sender is its digits; a boolean or a fraction cannot be read as text (412)."""
    assert send(fresh_api, sender=12345, request_id=7).status_code == 201
    row = fresh_sandbox.sent().iloc[0]
    assert (row["sender"], row["request_id"]) == ("12345", "7")
    for value in (True, 123.5):
        assert send(fresh_api, sender=value).json()["errors"]["sender"]["code"] == 412
    assert send(fresh_api, request_id=True).status_code == 201, "an optional field is ignored"
    assert pd.isna(fresh_sandbox.sent().iloc[-1]["request_id"])


def test_sender_spaces_count_for_alerts(fresh_sandbox: Sandbox, fresh_api: httpx.Client) -> None:
    """With spaces allowed (alert), inner spaces are kept and counted: 'A B' is 3 characters."""
    assert send(fresh_api, sender="A B", purpose="alert").status_code == 201
    assert fresh_sandbox.sent().iloc[0]["sender"] == "A B"
    assert send(fresh_api, sender="A B").json()["errors"]["sender"]["code"] == 411
    refused = send(fresh_api, sender="ABCDEFGHIJ K", purpose="alert")
    assert refused.json()["errors"]["sender"]["code"] == 411
