"""Models and frames: parsing of every spec response, raw kept, dtypes, reprs and HTML."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pandas as pd
import pytest

from smskit import frames
from smskit.client.models import (
    ContactItems,
    Credits,
    HLRResult,
    HLRResults,
    ListEmptied,
    SendResult,
    SmsDraft,
    TransferToken,
    VoiceDraft,
)
from smskit.client.wallet import Balance
from smskit.errors import ResponseShapeError
from smskit.rules.spec import CONTACT_ITEM_STATUS, HLR_STATUS, LINE_STATUS, PHONE_NUMBER_TYPE

# Bodies shaped as the spec's resource tables describe them.
PORTED = {
    "network_name": "Bouygues Telecom",
    "mcc": 208,
    "mnc": 20,
    "status": "valid",
    "country_name": "France",
    "country_code_iso3": "FRA",
    "country_code": "FR",
    "area": "France",
    "country_prefix": "+33",
    "phone_number": "+33612345678",
    "phone_number_type": "mobile",
    "line_status": "live",
    "is_ported": True,
    "ported_date": "2021-03-04 10:11:12",
    "original_network_details": {
        "network_name": "Orange",
        "mcc": 208,
        "mnc": 1,
        "country_name": "France",
        "country_code_iso3": "FRA",
        "country_code": "FR",
        "area": "France",
        "country_prefix": "+33",
    },
}
NOT_PORTED = {
    **PORTED,
    "phone_number": "+33698765432",
    "status": "invalid",
    "line_status": "inconcusive",  # the spelling of the spec's example
    "mcc": None,
    "mnc": None,
    "is_ported": False,
    "ported_date": None,
    "original_network_details": None,
}


def test_hlr_result_parses_every_spec_field() -> None:
    """Each field of the HLR table lands in its attribute, typed; the nested network too."""
    result = HLRResult.from_json(PORTED)
    assert (result.mcc, result.mnc, result.is_ported) == (208, 20, True)
    assert result.ported_date == datetime(2021, 3, 4, 10, 11, 12)
    assert result.original_network_details is not None
    assert result.original_network_details.network_name == "Orange"
    assert result.original_network_details.mnc == 1
    assert result.raw == PORTED


def test_inconcusive_is_read_as_inconclusive() -> None:
    """The spec example's misspelling becomes the dictionary value, the raw keeps the original."""
    result = HLRResult.from_json(NOT_PORTED)
    assert result.line_status == "inconclusive"
    assert result.raw["line_status"] == "inconcusive"
    assert result.original_network_details is None and result.ported_date is None


def test_fields_the_spec_does_not_list_are_kept_in_raw() -> None:
    """An extra field is not lost: every model keeps the body it was parsed from."""
    body = {"sms_ticket": "T", "number_of_contacts": 2, "total_cost": 0.13, "campaign_id": 77}
    assert SendResult.from_json(body).raw["campaign_id"] == 77
    assert Balance.from_json({"amount": 5, "unit": "EUR", "packs": [1]}).raw["packs"] == [1]


def test_numbers_sent_as_strings_are_cast_like_the_gateway_does() -> None:
    """Lenient parsing: "12" is 12 and "0.5" is 0.5; the value must still be a number."""
    result = SendResult.from_json(
        {"sms_ticket": 9, "number_of_contacts": "12", "total_cost": "0.5"}
    )
    assert (result.sms_ticket, result.number_of_contacts, result.total_cost) == ("9", 12, 0.5)
    with pytest.raises(ResponseShapeError, match="number_of_contacts"):
        SendResult.from_json({"number_of_contacts": "twelve"})
    with pytest.raises(ResponseShapeError, match="mcc"):
        HLRResult.from_json({**PORTED, "mcc": 20.5})


@pytest.mark.parametrize(
    ("parse", "body"),
    [
        (HLRResults.from_json, {"phone_number": "+33612345678"}),
        (ContactItems.from_json, {"items": "none"}),
        (Credits.from_json, {"FR": 12}),
        (Balance.from_json, "1000 EUR"),
        (TransferToken.from_json, {"token": ""}),
        (HLRResult.from_json, {**PORTED, "ported_date": "yesterday"}),
    ],
)
def test_bodies_of_the_wrong_shape_raise_response_shape_error(parse: Any, body: Any) -> None:
    """A body that is not the spec's shape is reported, not half-parsed."""
    with pytest.raises(ResponseShapeError):
        parse(body)


def test_drafts_parse_the_spec_draft_tables() -> None:
    """SMS and voice drafts expose every field of their tables."""
    sms = SmsDraft.from_json(
        {
            "ticket_number": "D1",
            "number_of_contacts": 250,
            "number_of_sms_needed": 500,
            "residual_credit": 900.5,
            "total_cost": 32.5,
            "status": "validated",
            "message": "",
            "code": 0,
        }
    )
    voice = VoiceDraft.from_json(
        {
            "ticket_number": "V1",
            "status": "validated",
            "code": 0,
            "message": "",
            "number_of_contacts": 40,
            "residual_credit": 900.5,
            "total_cost": 4.8,
            "estimated_duration": 45,
        }
    )
    assert (sms.number_of_sms_needed, sms.code, sms.status) == (500, 0, "validated")
    assert (voice.estimated_duration, voice.total_cost) == (45, 4.8)
    frame = frames.drafts_frame(sms, voice)
    assert list(frame["kind"]) == ["sms", "voice"]
    assert frame["estimated_duration"].isna().tolist() == [True, False]
    assert frame["number_of_sms_needed"].dtype == "Int64"


def test_list_emptied_tolerates_an_empty_body() -> None:
    """The spec does not show the answer of contact-list/empty: an empty body still parses."""
    assert ListEmptied.from_json(None, list_name="vip") == ListEmptied("vip", None)
    parsed = ListEmptied.from_json({"list_name": "vip", "number_of_contacts_removed": 3})
    assert parsed.number_of_contacts_removed == 3


def test_hlr_frame_has_every_spec_field_and_declared_dtypes() -> None:
    """Columns: spec fields plus original_* flattened; categoricals hold every spec value."""
    frame = HLRResults.from_json([PORTED, NOT_PORTED]).to_frame()
    spec_fields = set(PORTED) - {"original_network_details"}
    originals = {f"original_{name}" for name in PORTED["original_network_details"]}
    assert set(frame.columns) == spec_fields | originals
    assert list(frame["status"].cat.categories) == list(HLR_STATUS)
    assert list(frame["line_status"].cat.categories) == list(LINE_STATUS)
    assert list(frame["phone_number_type"].cat.categories) == list(PHONE_NUMBER_TYPE)
    assert frame["line_status"].tolist() == ["live", "inconclusive"]
    assert frame["mcc"].dtype == "Int64" and frame["mcc"].isna().tolist() == [False, True]
    assert frame["ported_date"].dtype == "datetime64[ns]"
    assert frame["ported_date"].iloc[0] == pd.Timestamp("2021-03-04 10:11:12")
    assert frame["is_ported"].dtype == "boolean"
    assert frame["original_network_name"].tolist()[0] == "Orange"
    assert pd.isna(frame["original_network_name"].iloc[1])


def test_breakdowns_list_zero_rows_for_unseen_spec_values() -> None:
    """value_counts over a categorical shows every spec status, zeros included."""
    counts = HLRResults.from_json([PORTED, PORTED, NOT_PORTED]).to_frame()["status"].value_counts()
    assert dict(counts) == {"valid": 2, "invalid": 1, "operator_is_not_available": 0, "unknown": 0}


def test_values_outside_the_spec_are_kept_as_extra_categories() -> None:
    """A status the spec does not list is not turned into NaN: it becomes a last category."""
    frame = HLRResults.from_json([{**PORTED, "status": "blocked"}]).to_frame()
    assert frame["status"].tolist() == ["blocked"]
    assert list(frame["status"].cat.categories) == [*HLR_STATUS, "blocked"]


def test_contact_items_parse_and_frame() -> None:
    """contact/create items: sequence of ContactItem, frame with categorical status."""
    body = {
        "items": [
            {"phone_number": "+33612345678", "email": "", "status": "added"},
            {"phone_number": "+33698765432", "email": "a@b.fr", "status": "skipped"},
        ]
    }
    items = ContactItems.from_json(body)
    assert [item.status for item in items] == ["added", "skipped"]
    assert repr(items) == "<ContactItems 2 contacts: 1 added, 1 skipped>"
    frame = items.to_frame()
    assert list(frame.columns) == ["phone_number", "email", "status"]
    assert list(frame["status"].cat.categories) == list(CONTACT_ITEM_STATUS)


def test_credits_mapping_and_tidy_frame() -> None:
    """Credits is a mapping by country; to_frame has one row per country and product."""
    body = {
        "FR": {"premium_sms": 15384, "vocal_sms": 8333, "low_cost_sms": 22222, "hlr": 125000},
        "GB": {"premium_sms": 23809, "vocal_sms": 10000, "low_cost_sms": 30303, "hlr": 125000},
    }
    credits = Credits.from_json(body)
    assert list(credits) == ["FR", "GB"] and credits["GB"].low_cost_sms == 30303
    frame = credits.to_frame()
    assert list(frame.columns) == ["country_code", "country", "iso3", "product", "credits"]
    assert len(frame) == 2 * 4
    fr_hlr = frame[(frame["country_code"] == "FR") & (frame["product"] == "hlr")]
    assert fr_hlr["credits"].tolist() == [125000]
    assert frame["credits"].dtype == "Int64"
    assert repr(credits) == "<Credits 2 countries: FR, GB>"


def test_one_row_frames_of_balance_and_send_result() -> None:
    """Balance and SendResult become one-row frames with nullable dtypes."""
    balance = Balance.from_json({"amount": 999.5, "unit": "EUR"}).to_frame()
    assert balance.to_dict("records") == [{"amount": 999.5, "unit": "EUR"}]
    sent = SendResult.already_accepted({"sms_ticket": "T"}, request_id="r").to_frame()
    assert sent["duplicate"].tolist() == [True]
    assert sent["total_cost"].isna().tolist() == [True]


def test_reprs_are_short_summaries() -> None:
    """Collections summarise by status; records show their fields, not the raw body."""
    results = HLRResults.from_json([PORTED, PORTED, NOT_PORTED])
    assert repr(results) == "<HLRResults 3 numbers: 2 valid, 1 invalid>"
    assert repr(HLRResults.from_json([])) == "<HLRResults 0 numbers>"
    assert "raw" not in repr(results[0]) and "'+33612345678'" in repr(results[0])
    assert repr(Balance(1000.0, "EUR")) == "Balance(amount=1000.0, unit='EUR')"


def test_transfer_token_shows_only_a_prefix() -> None:
    """The token is a credential for the sub-account: repr and HTML show 4 characters."""
    token = TransferToken.from_json({"token": "tok_0123456789abcdef"}, email_to="shop@example.com")
    assert token.token == "tok_0123456789abcdef"
    for shown in (repr(token), str(token), token._repr_html_()):
        assert "0123456789" not in shown
        assert "tok_" in shown


def test_html_is_rendered_from_templates_with_escaping() -> None:
    """_repr_html_ comes from the jinja2 templates; gateway text is escaped, not markup."""
    hostile = {**PORTED, "network_name": "<script>alert(1)</script>"}
    results = HLRResults.from_json([hostile] * 25)
    html = results._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert html.count("<tr>") == 1 + 20  # header row + first 20 results
    assert "5 more" in html
    record = Balance.from_json({"amount": 1, "unit": "<b>EUR</b>"})._repr_html_()
    assert "&lt;b&gt;EUR&lt;/b&gt;" in record
    assert results.to_html() == html


def test_hlr_placeholders_read_as_unknown() -> None:
    """The spec-typed stand-ins of values that cannot be known ("" text, mcc/mnc 0), at the
    top and in original_network_details, read as None / <NA> / "(missing)", never as a
    network called "" or an MCC 0; known values beside them are kept."""
    unknown = {
        **PORTED,
        "network_name": "",
        "mcc": 0,
        "mnc": 0,
        "area": " ",
        "country_name": "",
        "country_code_iso3": "",
        "country_code": "",
        "country_prefix": "",
        "phone_number": "06 12 34 56 78",
        "phone_number_type": "bad_format",
        "is_ported": False,
        "ported_date": None,
        "original_network_details": None,
    }
    origin = {**PORTED["original_network_details"], "network_name": "", "mnc": 0}
    partial = {**PORTED, "mnc": 0, "original_network_details": origin}
    first, second = HLRResults.from_json([unknown, partial])
    names = ("network_name", "mcc", "mnc", "area", "country_name", "country_code", "country_prefix")
    for name in names:
        assert getattr(first, name) is None, name
    assert (second.mcc, second.mnc, second.network_name) == (208, None, "Bouygues Telecom")
    details = second.original_network_details
    assert details is not None and (details.network_name, details.mnc, details.mcc) == (
        None,
        None,
        208,
    )
    both = [unknown, partial]
    for frame in (HLRResults.from_json(both).to_frame(), frames.hlr_frame(both)):
        assert frame["network_name"].isna().tolist() == [True, False]
        assert frame["mcc"].tolist() == [pd.NA, 208] and frame["mnc"].isna().all()
        assert frame["original_network_name"].isna().all()
        assert frame["original_mcc"].tolist() == [pd.NA, 208]
    by_network = frames.breakdown(both, by="network").drop(index=("total", ""))
    assert list(by_network.index) == [("FR", "Bouygues Telecom"), ("(missing)", "(missing)")]
