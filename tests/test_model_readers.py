"""Every field of every model is read from a body that has it, by the model's own readers."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_models import PORTED

from smskit.client.models import (
    ContactItem,
    CountryCredits,
    HLRResult,
    ListEmptied,
    NetworkDetails,
    SendResult,
    SmsDraft,
    TransferToken,
    VoiceDraft,
)

# The HLR body of the model tests (every field of the spec's HLR table) and its network.
ORANGE = PORTED["original_network_details"]

# One case per model: how to parse, a body with every field the gateway can send (the
# spec's resource tables, plus the request_id and duplicate flag a SendResult carries), the values
# expected (written out, never produced by the parser) and the fields only the caller knows.
Case = tuple[Callable[[Any], Any], dict[str, Any], dict[str, Any], frozenset[str]]
CASES: dict[str, Case] = {
    "SendResult": (
        SendResult.from_json,
        {
            "sms_ticket": "T-42",
            "number_of_contacts": "3",
            "number_of_sms_needed": 6,
            "total_cost": "0.27",
            "residual_credit": 99.5,
            "request_id": "order-7",
            "duplicate": True,
        },
        {
            "sms_ticket": "T-42",
            "number_of_contacts": 3,
            "number_of_sms_needed": 6,
            "total_cost": 0.27,
            "residual_credit": 99.5,
            "request_id": "order-7",
            "duplicate": True,
        },
        frozenset({"submitted", "gateway_date"}),  # gateway_date: the answer's Date header
    ),
    "SmsDraft": (
        SmsDraft.from_json,
        {
            "ticket_number": "D-1",
            "status": "validated",
            "code": 0,
            "message": "ok",
            "number_of_contacts": 12,
            "total_cost": 1.08,
            "residual_credit": 40,
            "number_of_sms_needed": 24,
        },
        {
            "ticket_number": "D-1",
            "status": "validated",
            "code": 0,
            "message": "ok",
            "number_of_contacts": 12,
            "total_cost": 1.08,
            "residual_credit": 40.0,
            "number_of_sms_needed": 24,
        },
        frozenset(),
    ),
    "VoiceDraft": (
        VoiceDraft.from_json,
        {
            "ticket_number": "V-1",
            "status": "validated",
            "code": "3",
            "message": "",
            "number_of_contacts": 2,
            "total_cost": "0.5",
            "residual_credit": 10.25,
            "estimated_duration": 35,
        },
        {
            "ticket_number": "V-1",
            "status": "validated",
            "code": 3,
            "message": "",
            "number_of_contacts": 2,
            "total_cost": 0.5,
            "residual_credit": 10.25,
            "estimated_duration": 35,
        },
        frozenset(),
    ),
    "ContactItem": (
        ContactItem.from_json,
        {"phone_number": "+33612345678", "email": "a@example.org", "status": "added"},
        {"phone_number": "+33612345678", "email": "a@example.org", "status": "added"},
        frozenset(),
    ),
    "ListEmptied": (
        ListEmptied.from_json,
        {"list_name": "vip", "number_of_contacts_removed": "17"},
        {"list_name": "vip", "number_of_contacts_removed": 17},
        frozenset(),
    ),
    "TransferToken": (
        TransferToken.from_json,
        {"token": "tok-123456", "email_to": "sub@example.org"},
        {"token": "tok-123456", "email_to": "sub@example.org"},
        frozenset(),
    ),
    "CountryCredits": (
        lambda body: CountryCredits.from_json("FR", body),
        {"premium_sms": 10, "vocal_sms": "4", "low_cost_sms": 20, "hlr": 300},
        {"premium_sms": 10, "vocal_sms": 4, "low_cost_sms": 20, "hlr": 300},
        frozenset({"country_code"}),
    ),
    "NetworkDetails": (NetworkDetails.from_json, ORANGE, ORANGE, frozenset()),
    "HLRResult": (
        HLRResult.from_json,
        PORTED,
        {
            **ORANGE,
            "network_name": "Bouygues Telecom",
            "mnc": 20,
            "status": "valid",
            "phone_number": "+33612345678",
            "phone_number_type": "mobile",
            "line_status": "live",
            "is_ported": True,
            "ported_date": datetime(2021, 3, 4, 10, 11, 12),
            "original_network_details": NetworkDetails(**ORANGE),
        },
        frozenset(),
    ),
}
# The required field of a token: the parser refuses a body without it.
REQUIRED = {"TransferToken": {"token"}}


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_field_is_read_from_a_body_that_has_it(name: str) -> None:
    """Each dataclass field (but those only the caller knows) takes the body's value, cast."""
    parse, body, expected, from_caller = CASES[name]
    record = parse(body)
    names = {f.name for f in dataclasses.fields(record)} - {"raw"}
    assert names == set(expected) | from_caller, "a field without a reader or a test value"
    assert {field: getattr(record, field) for field in expected} == expected
    assert record.raw == body


@pytest.mark.parametrize("name", sorted(CASES))
def test_test_values_differ_from_the_defaults(name: str) -> None:
    """The bodies above would catch an unread field: no expected value equals its default."""
    parse, body, expected, _ = CASES[name]
    defaults = {f.name: f.default for f in dataclasses.fields(parse(body))}
    assert not [field for field, value in expected.items() if defaults[field] == value]


@given(data=st.data())
def test_a_field_absent_from_the_body_keeps_its_default(data: st.DataObject) -> None:
    """Any subset of a body's fields: present ones are read, absent ones keep the default."""
    name = data.draw(st.sampled_from(sorted(CASES)))
    parse, body, expected, _ = CASES[name]
    required = REQUIRED.get(name, set())
    optional = sorted(set(body) - required)
    kept = data.draw(st.sets(st.sampled_from(optional))) | required
    record = parse({key: body[key] for key in kept})
    defaults = {f.name: f.default for f in dataclasses.fields(record)}
    for field, value in expected.items():
        want = value if field in kept else defaults[field]
        assert getattr(record, field) == want, field


def test_send_result_reads_duplicate_from_the_body() -> None:
    """A body saying duplicate: true gives duplicate=True (a bool with a default is read)."""
    assert SendResult.from_json({"sms_ticket": "T", "duplicate": True}).duplicate is True
    assert SendResult.from_json({"sms_ticket": "T"}).duplicate is False
