"""The client reads every balance shape the vendor documents, over real HTTP to the sandbox."""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pandas as pd
import pytest

import smskit
from smskit import frames
from smskit.client.wallet import Balance
from smskit.errors import ResponseShapeError
from smskit.sandbox import Sandbox

PARIS = ZoneInfo("Europe/Paris")


@pytest.fixture
def client(fresh_sandbox: Sandbox) -> smskit.Client:
    """A client on a fresh sandbox (default packs: 100 EUR in 30 days, 900 EUR in 365)."""
    return smskit.Client(sandbox=fresh_sandbox)


def test_plain_balance_is_currency_without_packs(client: smskit.Client) -> None:
    """No parameters: amount in EUR, no product, no packs."""
    balance = client.wallet.check_balance()
    assert (balance.amount, balance.unit, balance.product) == (1000.0, "EUR", None)
    assert balance.wallet_packs == ()
    assert balance.packs_frame().empty
    assert list(balance.packs_frame().columns) == ["id", "credit", "unit", "expiration_date"]


def test_product_balance_counts_credits(client: smskit.Client) -> None:
    """Product + country: amount in that product's credits, unit and product name it."""
    balance = client.wallet.check_balance(country_code="FR", product_name="sms_low_cost")
    assert balance.amount == math.floor(1000 / 0.045)
    assert balance.unit == balance.product == "sms_low_cost"


def test_packs_become_a_frame_with_paris_datetimes(client: smskit.Client) -> None:
    """with_details: one row per pack, expiration_date a tz-aware Paris datetime column."""
    balance = client.wallet.check_balance(with_details=True)
    packs = balance.packs_frame()
    assert list(packs["credit"]) == [100.0, 900.0]
    assert list(packs["unit"]) == ["EUR", "EUR"]
    assert str(packs["expiration_date"].dtype) == "datetime64[ns, Europe/Paris]"
    raw = [p["expiration_date"] for p in balance.raw["wallet_packs"]]
    assert [t.strftime("%Y-%m-%d %H:%M:%S") for t in packs["expiration_date"]] == raw
    pd.testing.assert_frame_equal(frames.wallet_packs_frame(balance.raw), packs)


def test_expiring_lists_only_packs_within_the_window(client: smskit.Client) -> None:
    """expiring(days) keeps packs expiring within that many days, with whole days left."""
    balance = client.wallet.check_balance(with_details=True)
    soon = balance.expiring()
    assert list(soon["credit"]) == [100.0]
    assert list(soon["days_left"]) == [29]
    assert list(balance.expiring(400)["credit"]) == [100.0, 900.0]
    later = datetime.now(PARIS) + timedelta(days=31)
    assert list(balance.expiring(60, now=later)["credit"]) == []
    assert list(balance.expiring(340, now=later)["credit"]) == [900.0]


def test_balance_reads_offsets_and_refuses_bad_shapes() -> None:
    """An expiration with an offset keeps it; a naive one is Paris time; bad shapes are refused."""
    balance = Balance.from_json(
        {
            "amount": "12",
            "unit": "EUR",
            "wallet_packs": [
                {"id": 7, "credit": 2, "expiration_date": "2030-01-01T00:00:00+00:00"},
                {"id": "b", "credit": 10, "expiration_date": "2030-07-01 12:00:00"},
            ],
        }
    )
    first, second = balance.wallet_packs
    assert first.id == "7" and first.expiration_date == datetime(2030, 1, 1, 1, tzinfo=PARIS)
    assert second.expiration_date is not None and second.expiration_date.utcoffset() == timedelta(
        hours=2
    )
    with pytest.raises(ResponseShapeError, match="wallet_packs"):
        Balance.from_json({"amount": 1, "unit": "EUR", "wallet_packs": {"id": 1}})
    with pytest.raises(ResponseShapeError, match="expiration_date"):
        Balance.from_json({"amount": 1, "unit": "EUR", "wallet_packs": [{"expiration_date": "?"}]})


def test_send_result_says_how_many_were_dropped(client: smskit.Client) -> None:
    """The gateway ignores an unusable recipient: SendResult.dropped counts it, frames show it."""
    result = client.sms_campaign.send(
        text="Promo STOP au 36173",
        recipients=["+33612345678", "+999123456"],
        sender="MyShop",
        validate=False,
    )
    assert (result.submitted, result.number_of_contacts, result.dropped) == (2, 1, 1)
    row = frames.send_results_frame([result]).iloc[0]
    assert (row["submitted"], row["dropped"]) == (2, 1)


def test_dropped_recipients_show_in_the_send_result_html(client: smskit.Client) -> None:
    """The notebook view of a send says how many recipients the gateway ignored, of how many."""
    result = client.sms_campaign.send(
        text="Promo STOP au 36173",
        recipients=["+33612345678", "0612345678", "+999123456"],
        sender="MyShop",
        validate=False,
    )
    assert "dropped by the gateway" in result.to_html()
    assert "2 of 3" in result.to_html()
    kept = client.sms_campaign.send(
        text="Promo STOP au 36173", recipients=["+33612345678"], sender="MyShop"
    )
    assert "dropped" not in kept.to_html()
