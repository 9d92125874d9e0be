"""Draft endpoints and the credit-transfer token over HTTP."""

from __future__ import annotations

import httpx
import pytest

from smskit.errors import ValidationError
from smskit.sandbox import Sandbox

SMS_DRAFT = "/v1/public/sms-campaign/draft"
VOICE_DRAFT = "/v1/public/voice-campaign/draft"
TOKEN = "/v1/public/subaccount/credit-transfer/token"


def test_sms_draft_has_the_spec_shape(api: httpx.Client) -> None:
    """The SMS draft carries the spec's 8 fields with their types; status 'validated'."""
    draft = api.get(SMS_DRAFT).json()
    types = {
        "ticket_number": str, "number_of_contacts": int, "number_of_sms_needed": int,
        "residual_credit": float, "total_cost": float, "status": str, "message": str, "code": int,
    }  # fmt: skip
    assert set(draft) == set(types)
    for name, kind in types.items():
        assert isinstance(draft[name], kind), name
    assert (draft["status"], draft["message"], draft["code"]) == ("validated", "", 0)


def test_voice_draft_has_the_spec_shape(api: httpx.Client) -> None:
    """The voice draft carries the spec's 8 fields, estimated_duration an integer."""
    draft = api.get(VOICE_DRAFT).json()
    assert set(draft) == {
        "ticket_number", "status", "code", "message", "number_of_contacts",
        "residual_credit", "total_cost", "estimated_duration",
    }  # fmt: skip
    assert isinstance(draft["estimated_duration"], int)
    assert draft["status"] == "validated"


def test_drafts_come_from_what_the_sandbox_holds(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """set_drafts (Python) and POST /_sandbox/drafts change what the endpoints return."""
    fresh_sandbox.set_drafts(sms={"number_of_contacts": 12, "status": "pending"})
    sms = fresh_api.get(SMS_DRAFT).json()
    assert (sms["number_of_contacts"], sms["status"]) == (12, "pending")
    response = fresh_api.post("/_sandbox/drafts", json={"voice": {"estimated_duration": 90}})
    assert response.status_code == 200
    assert fresh_api.get(VOICE_DRAFT).json()["estimated_duration"] == 90
    assert fresh_api.get(SMS_DRAFT).json()["number_of_contacts"] == 12


def test_draft_residual_credit_is_the_balance(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """Unless set, a draft's residual_credit is the current balance (a draft is not charged)."""
    fresh_sandbox.set_balance(42.5)
    assert fresh_api.get(SMS_DRAFT).json()["residual_credit"] == 42.5


def test_set_drafts_rejects_unknown_fields(sandbox: Sandbox) -> None:
    """A field the spec's draft does not have, or a wrong type, is refused with its name."""
    with pytest.raises(ValidationError, match=r"sms\.colour"):
        sandbox.set_drafts(sms={"colour": "red"})
    with pytest.raises(ValidationError, match=r"voice\.estimated_duration"):
        sandbox.set_drafts(voice={"estimated_duration": "long"})


def test_token_is_bound_to_email(fresh_sandbox: Sandbox, fresh_api: httpx.Client) -> None:
    """201 {token}; each call gives a new token, recorded with its sub-account e-mail."""
    first = fresh_api.post(TOKEN, json={"email_to": "sub@example.org"})
    second = fresh_api.post(TOKEN, json={"email_to": " other@example.org "})
    assert first.status_code == second.status_code == 201
    assert set(first.json()) == {"token"}
    assert first.json()["token"] != second.json()["token"]
    tokens = fresh_sandbox.tokens()
    assert list(tokens["token"]) == [first.json()["token"], second.json()["token"]]
    assert list(tokens["email_to"]) == ["sub@example.org", "other@example.org"]


def test_token_accepts_basic_auth(fresh_sandbox: Sandbox) -> None:
    """HTTP Basic login:key works (the spec states it for this endpoint)."""
    auth = (fresh_sandbox.login, fresh_sandbox.api_key)
    response = httpx.post(fresh_sandbox.url + TOKEN, json={"email_to": "a@b.co"}, auth=auth)
    assert response.status_code == 201


def test_token_needs_a_valid_email(api: httpx.Client) -> None:
    """Missing email_to is 410; a malformed one is 412; both in the spec's error shape."""
    missing = api.post(TOKEN, json={})
    assert missing.status_code == 400
    assert missing.json()["code"] == 400
    assert missing.json()["errors"]["email_to"]["code"] == 410
    for bad in ("not-an-email", "a@b", "a b@c.de"):
        response = api.post(TOKEN, json={"email_to": bad})
        assert response.json()["errors"]["email_to"]["code"] == 412, bad
