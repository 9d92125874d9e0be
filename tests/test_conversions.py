"""Conversions join the analyst's orders to every recipient, sent or held out, on one clock:
the same answers as a plain pandas merge (differential), 0 revenue for none, orders before
the send or after the window never count, numbers in any readable form and customer ids
match; the seeded shop's orders carry its truth."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import smskit
from smskit.campaigns import IncompleteSendWarning
from smskit.campaigns.analysis.conversions import CONVERSION_COLUMNS, conversions
from smskit.campaigns.campaign import Campaign
from smskit.errors import ValidationError
from smskit.sandbox import Sandbox
from smskit.sandbox.shop import SeededShop

SENT = pd.Timestamp("2026-03-02 09:00", tz="Europe/Paris")
NUMBERS = [f"+336123456{n:02d}" for n in range(12)]


def recipients(count: int = 12, held: int = 3) -> pd.DataFrame:
    """``count`` recipients, the first ``held`` held out."""
    return pd.DataFrame(
        {
            "phone_number": NUMBERS[:count],
            "group": ["holdout"] * held + ["treated"] * (count - held),
        }
    )


def merged(people: pd.DataFrame, orders: pd.DataFrame, window: pd.Timedelta) -> pd.DataFrame:
    """The same conversions written as a plain pandas merge and groupby."""
    joined = people.reset_index().merge(orders, on="phone_number", how="inner")
    joined = joined[(joined["ordered_at"] >= SENT) & (joined["ordered_at"] < SENT + window)]
    totals = joined.groupby("index").agg(
        conversions=("amount", "size"), revenue=("amount", "sum"), first=("ordered_at", "min")
    )
    return totals.reindex(range(len(people)))


ORDER = st.tuples(
    st.sampled_from([*NUMBERS, "+33699999999"]),
    st.integers(-3 * 86_400, 8 * 86_400),
    st.decimals(0, 500, places=2).map(float),
)


@settings(deadline=None, max_examples=60)
@given(st.lists(ORDER, max_size=40), st.sampled_from(["1D", "5D", "12h"]))
def test_conversions_equal_a_pandas_merge(rows: list[tuple[str, int, float]], window: str) -> None:
    """Counts, revenue and first instants equal the plain pandas merge's (differential)."""
    people = recipients()
    orders = pd.DataFrame(
        {
            "phone_number": [r[0] for r in rows],
            "ordered_at": pd.to_datetime(
                [SENT + pd.Timedelta(seconds=r[1]) for r in rows], utc=True
            ),
            "amount": [r[2] for r in rows],
        }
    )
    result = conversions(people, orders, sent_at=SENT, window=window)
    expected = merged(people, orders, pd.Timedelta(window))
    assert list(result.columns) == list(CONVERSION_COLUMNS)
    assert result["conversions"].tolist() == expected["conversions"].fillna(0).astype(int).tolist()
    assert np.allclose(result["revenue"], expected["revenue"].fillna(0.0))
    assert result["converted"].tolist() == (expected["conversions"].fillna(0) > 0).tolist()
    assert result["first_conversion_at"].tolist() == [
        pd.NaT if pd.isna(x) else pd.Timestamp(x).tz_convert("UTC") for x in expected["first"]
    ]


def test_no_order_is_zero_revenue_not_missing() -> None:
    """A recipient without an order has revenue 0 and converted False, never missing."""
    orders = pd.DataFrame({"phone_number": pd.Series([], dtype=str),
                           "ordered_at": pd.to_datetime([], utc=True), "amount": []})  # fmt: skip
    result = conversions(recipients(), orders, sent_at=SENT)
    assert result["revenue"].tolist() == [0.0] * 12
    assert not result["converted"].any() and result["revenue"].notna().all()


def test_window_edges_and_holdout_share_the_clock() -> None:
    """An order at the send counts for held out and treated alike; one a nanosecond before
    the send or at the window's end does not."""
    people = recipients(4, held=2)
    at = [SENT, SENT, SENT - pd.Timedelta(1, "ns"), SENT + pd.Timedelta("5D")]
    orders = pd.DataFrame({"phone_number": NUMBERS[:4], "ordered_at": at, "amount": [1.0] * 4})
    result = conversions(people, orders, sent_at=SENT, window="5D")
    assert result["group"].tolist() == ["holdout", "holdout", "treated", "treated"]
    assert result["conversions"].tolist() == [1, 1, 0, 0]


def test_numbers_in_any_readable_form_match() -> None:
    """An order's number written nationally (its country given) matches the recipient."""
    orders = pd.DataFrame({"phone_number": ["06 12 34 56 05", "0033612345606"],
                           "country": ["FR", None], "ordered_at": [SENT, SENT],
                           "amount": [5.0, 7.0]})  # fmt: skip
    result = conversions(recipients(), orders, sent_at=SENT)
    assert result.loc[[5, 6], "revenue"].tolist() == [5.0, 7.0]


def test_customer_id_column_matches() -> None:
    """on='customer_id' matches orders to recipients by that column, numbers unread."""
    people = recipients(3, held=1).assign(customer_id=["c1", "c2", "c3"])
    orders = pd.DataFrame({"customer_id": ["c3", "c9", "c3"], "ordered_at": [SENT] * 3,
                           "amount": [1.0, 2.0, 4.0]})  # fmt: skip
    result = conversions(people, orders, sent_at=SENT, on="customer_id")
    assert result["revenue"].tolist() == [0.0, 0.0, 5.0]
    assert result["conversions"].tolist() == [0, 0, 2]


def test_orders_outside_every_window_are_not_read() -> None:
    """An unreadable number is refused inside the window, never outside it."""
    outside = pd.DataFrame({"phone_number": ["junk"], "ordered_at": [SENT - pd.Timedelta("1D")],
                            "amount": [1.0]})  # fmt: skip
    assert conversions(recipients(), outside, sent_at=SENT)["conversions"].sum() == 0
    inside = outside.assign(ordered_at=[SENT + pd.Timedelta("1h")])
    with pytest.raises(ValidationError) as caught:
        conversions(recipients(), inside, sent_at=SENT)
    assert (caught.value.field, caught.value.position) == ("orders.phone_number", 0)


def test_bad_input_is_refused_naming_it() -> None:
    """No instant column, a naive send instant or a repeated recipient is refused."""
    orders = pd.DataFrame({"phone_number": NUMBERS[:1], "amount": [1.0]})
    with pytest.raises(ValidationError, match=r"orders\.ordered_at"):
        conversions(recipients(), orders, sent_at=SENT)
    with pytest.raises(ValidationError, match="sent_at"):
        conversions(recipients(), orders.assign(ordered_at=[SENT]), sent_at=SENT.tz_localize(None))
    twice = pd.concat([recipients(2, held=1), recipients(1, held=1)], ignore_index=True)
    with pytest.raises(ValidationError) as caught:
        conversions(twice, orders.assign(ordered_at=[SENT]), sent_at=SENT)
    assert caught.value.position == 2
    with pytest.raises(ValidationError, match="window"):
        conversions(recipients(), orders.assign(ordered_at=[SENT]), sent_at=SENT, window="-5D")


def test_value_none_counts_without_revenue() -> None:
    """value=None counts conversions from a table without amounts; no revenue column."""
    orders = pd.DataFrame({"phone_number": NUMBERS[:1], "ordered_at": [SENT]})
    result = conversions(recipients(), orders, sent_at=SENT, value=None)
    assert "revenue" not in result and result["conversions"].sum() == 1


def test_seeded_shop_is_deterministic_and_near_its_truth() -> None:
    """One seed, one table; its holdout and treated rates sit near baseline and baseline+lift."""
    rng = np.random.default_rng(7)
    people = pd.DataFrame(
        {
            "phone_number": [f"+336{n:08d}" for n in rng.choice(10**8, 40_000, replace=False)],
            "group": np.where(np.arange(40_000) < 20_000, "holdout", "treated"),
        }
    )
    shop = SeededShop(baseline=0.1, lift=0.05, seed=3)
    first, again = shop.orders(people, sent_at=SENT), shop.orders(people, sent_at=SENT)
    pd.testing.assert_frame_equal(first, again)
    rates = conversions(people, first, sent_at=SENT).groupby("group")["converted"].mean()
    assert abs(rates["holdout"] - 0.1) < 0.01 and abs(rates["treated"] - 0.15) < 0.01
    assert (first["ordered_at"] < SENT).any()  # orders that must not count are there


def test_a_campaign_s_orders_are_read_in_the_region_of_its_recipients(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    """A campaign's conversions() reads an order's national number in the region the
    campaign read its recipients in (a GB campaign's '07400 123456' is its GB recipient, not
    refused as a French number); default_region=None refuses it naming the column, the row
    and how to give its country."""
    with smskit.Client(sandbox=sandbox) as client:
        result = Campaign(
            client, ["07400 123455", "07400 123456"], text="Promo STOP au 36173", sender="Shop",
            purpose="alert", default_region="GB", name="gb-orders",
        ).send(journal=tmp_path / "gb.sqlite", progress=False)  # fmt: skip
    orders = pd.DataFrame(
        {"phone_number": ["07400 123456"], "ordered_at": [result.sent_at], "amount": [9.0]}
    )
    frame = result.conversions(orders)
    revenue = frame.set_index("phone_number")["revenue"].to_dict()
    assert revenue == {"+447400123455": 0.0, "+447400123456": 9.0}
    with pytest.raises(ValidationError) as caught:
        result.conversions(orders, default_region=None)
    assert (caught.value.field, caught.value.position) == ("orders.phone_number", 0)
    assert "default_region=" in str(caught.value)


def test_a_campaign_the_gateway_never_took_has_no_conversions(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Every chunk refused for credit (put back, never sent): the result has no send
    instant, so conversions and lift are refused naming result, not counted from a guessed
    instant (the orders' first, or now)."""
    numbers = [f"+3361{i:07d}" for i in range(5)]
    fresh_sandbox.set_balance(0.0)
    with smskit.Client(sandbox=fresh_sandbox) as client:
        campaign = Campaign(client, numbers, text="Promo STOP au 36173", sender="Shop")
        with pytest.warns(IncompleteSendWarning):
            result = campaign.send(progress=False, journal=tmp_path / "j.sqlite")
    assert len(fresh_sandbox.sent()) == 0 and not result.complete
    orders = pd.DataFrame({"phone_number": numbers[:2],
                           "ordered_at": pd.to_datetime(["2026-03-02T10:00Z"] * 2),
                           "amount": [10.0, 20.0]})  # fmt: skip
    for call in (result.conversions, result.lift):
        with pytest.raises(ValidationError) as refused:
            call(orders)
        assert str(refused.value) == (
            "result: the campaign was never sent: no send instant to count conversions from"
        )
