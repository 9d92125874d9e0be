"""Notebook HTML of balance, credits, HLR results, drafts and send results, against golden files.

The expected HTML lives in ``tests/golden/*.html``, checked by hand once (escaping, numbers)
and frozen: any change of output fails with a unified diff. After an intended change,
regenerate them and review the diff before committing::

    SMSKIT_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q tests/test_reprs.py
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path
from typing import Any

import pytest

from smskit import _html
from smskit.client import reprs
from smskit.client.models import Credits, HLRResults, SendResult, SmsDraft, VoiceDraft
from smskit.client.wallet import Balance

GOLDEN = Path(__file__).with_name("golden")
UPDATE = os.environ.get("SMSKIT_UPDATE_GOLDEN") == "1"
HOSTILE = '<script>alert("x")</script>'

ORANGE = {
    "network_name": "Orange",
    "mcc": 208,
    "mnc": 1,
    "country_name": "France",
    "country_code_iso3": "FRA",
    "country_code": "FR",
    "area": "France",
    "country_prefix": "+33",
}
PORTED = {
    **ORANGE,
    "network_name": "Bouygues Telecom",
    "mnc": 20,
    "status": "valid",
    "phone_number": "+33612345678",
    "phone_number_type": "mobile",
    "line_status": "live",
    "is_ported": True,
    "ported_date": "2021-03-04 10:11:12",
    "original_network_details": ORANGE,
}
UNPORTED = {"is_ported": False, "ported_date": None, "original_network_details": None}
HLR_BODY = [
    PORTED,
    {**PORTED, **UNPORTED, "phone_number": "+33698765432", "status": "invalid",
     "line_status": "dead"},
    {**PORTED, **UNPORTED, "phone_number": "+33611111111", "network_name": HOSTILE,
     "line_status": "inconcusive", "status": "unknown"},
    dict.fromkeys(PORTED) | {**UNPORTED, "phone_number": "12", "status": "invalid",
                             "phone_number_type": "bad_format", "line_status": "not_applicable"},
    {**PORTED, "phone_number": "+33622222222", "line_status": "absent_subscriber"},
]  # fmt: skip
SMS_DRAFT = {
    "ticket_number": "065e11c47c32",
    "number_of_contacts": 250,
    "number_of_sms_needed": 500,
    "residual_credit": 1000.0,
    "total_cost": 32.5,
    "status": "validated",
    "message": "",
    "code": 0,
}
VOICE_DRAFT = {
    "ticket_number": "0b8b77bee782",
    "status": "validated",
    "code": 0,
    "message": "",
    "number_of_contacts": 40,
    "residual_credit": 1000.0,
    "total_cost": 4.8,
    "estimated_duration": 45,
}
SEND = {
    "sms_ticket": "582a1d29ec6c",
    "number_of_contacts": 1200,
    "number_of_sms_needed": 2400,
    "total_cost": 156.0,
    "residual_credit": 843.935,
}
CREDITS = {
    "FR": {"premium_sms": 15384, "vocal_sms": 8333, "low_cost_sms": 22222, "hlr": 125000},
    "GB": {"premium_sms": 23809, "vocal_sms": 10000, "low_cost_sms": 30303, "hlr": 125000},
    "ZZ": {"premium_sms": 7, "vocal_sms": 0, "low_cost_sms": 1234567},
}


def check_golden(name: str, html: str, *, update: bool = UPDATE) -> None:
    """``html`` must equal ``tests/golden/<name>``; with ``update`` the file is rewritten."""
    path = GOLDEN / name
    rendered = html + "\n"
    if update:
        path.write_text(rendered, encoding="utf-8")
        return
    expected = path.read_text(encoding="utf-8")
    if rendered != expected:
        diff = difflib.unified_diff(
            expected.splitlines(keepends=True),
            rendered.splitlines(keepends=True),
            fromfile=f"tests/golden/{name}",
            tofile="rendered now",
        )
        pytest.fail(
            f"HTML of {name} changed (SMSKIT_UPDATE_GOLDEN=1 rewrites it):\n{''.join(diff)}",
            pytrace=False,
        )


CASES: dict[str, Any] = {
    "balance.html": lambda: Balance.from_json({"amount": 1000.0, "unit": "EUR"}),
    "balance_details.html": lambda: Balance.from_json(
        {
            "amount": 12345.5,
            "unit": "EUR",
            "wallet_packs": [
                {"id": "p1", "credit": 345.5, "expiration_date": "2098-01-31 23:59:59"},
                {"id": "p2", "credit": 12000, "expiration_date": "2099-12-31 23:59:59"},
            ],
        }
    ),
    "credits.html": lambda: Credits.from_json(CREDITS),
    "hlr_results.html": lambda: HLRResults.from_json(HLR_BODY),
    "sms_draft.html": lambda: SmsDraft.from_json(SMS_DRAFT),
    "voice_draft.html": lambda: VoiceDraft.from_json(VOICE_DRAFT),
    "send_result.html": lambda: SendResult.from_json(SEND, request_id="order-2026-0042"),
    "send_result_duplicate.html": lambda: SendResult.already_accepted(
        {"code": 400, "sms_ticket": "582a1d29ec6c"}, request_id="order-2026-0042"
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_html_matches_the_golden_file(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each repr renders exactly the reviewed HTML (3 rows shown, to cover '… more')."""
    monkeypatch.setattr(reprs, "ROWS_SHOWN", 3)
    shown = CASES[name]()
    html = shown._repr_html_()
    assert html == shown.to_html()
    check_golden(name, html)


def test_a_changed_output_fails_with_a_readable_diff() -> None:
    """The golden check fails on any change and shows the changed line, old and new."""
    html = (GOLDEN / "balance.html").read_text(encoding="utf-8").rstrip("\n")
    check_golden("balance.html", html, update=False)
    with pytest.raises(pytest.fail.Exception) as info:
        check_golden("balance.html", html.replace("1,000.00", "1,000.01"), update=False)
    message = str(info.value)
    assert "--- tests/golden/balance.html" in message
    assert "-  <strong>Balance</strong> <span>1,000.00 EUR</span>" in message
    assert "+  <strong>Balance</strong> <span>1,000.01 EUR</span>" in message


def test_gateway_text_is_escaped_everywhere() -> None:
    """A <script> in any field the gateway sends is shown as text, never run as markup."""
    shown = [
        HLRResults.from_json(HLR_BODY),
        Balance.from_json({"amount": 1, "unit": HOSTILE}),
        SmsDraft.from_json({**SMS_DRAFT, "message": HOSTILE, "ticket_number": HOSTILE}),
        SendResult.from_json({**SEND, "sms_ticket": HOSTILE}),
        Credits.from_json({HOSTILE: CREDITS["FR"]}),
    ]
    for item in shown:
        html = item._repr_html_()
        assert "<script>" not in html
        assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1000.0, "1,000.00"),
        (0.065, "0.065"),
        (843.935, "843.935"),
        (16.25, "16.25"),
        (1 / 3, "0.333333"),
        (0, "0.00"),
        (None, ""),
    ],
)
def test_money_keeps_prices_exact(value: float | None, expected: str) -> None:
    """Amounts get thousands separators and 2 to 6 decimals: a 0.065 price is not 0.07."""
    assert _html.money(value) == expected


def test_counts_are_formatted_for_reading() -> None:
    """Counts get thousands separators; None shows as empty; other values as text."""
    assert (_html.number(125000), _html.number(None), _html.number("x")) == ("125,000", "", "x")
