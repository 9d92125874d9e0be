"""Attribution credits each order to the campaigns whose send it follows within the window,
by last touch, first touch, linear shares or any touch, side by side; orders outside every
window or from strangers credit nobody; the ledger's journals are read as sent campaigns."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import smskit
from smskit.campaigns import attribution
from smskit.campaigns.analysis.attribution import MODELS, attribute
from smskit.campaigns.campaign import Campaign
from smskit.errors import ValidationError
from smskit.sandbox import Sandbox

T0 = pd.Timestamp("2026-03-02 09:00", tz="UTC")
NUMBERS = [f"+336123456{n:02d}" for n in range(6)]
CAMPAIGNS = pd.DataFrame({"campaign": ["a", "b", "c"], "recipients": [4, 4, 2],
                          "cost": [1.0, 2.0, 0.0]})  # fmt: skip


def touches() -> pd.DataFrame:
    """a at T0 to numbers 0-3, b a day later to 2-5, c two days later to 3-4."""
    rows = [("a", n, T0) for n in NUMBERS[:4]] + [
        ("b", n, T0 + pd.Timedelta("1D")) for n in NUMBERS[2:]
    ]
    rows += [("c", n, T0 + pd.Timedelta("2D")) for n in NUMBERS[3:5]]
    return pd.DataFrame(
        {
            "campaign": [r[0] for r in rows],
            "phone_number": [r[1] for r in rows],
            "touched_at": [r[2].value for r in rows],
        }
    )


ORDER = st.tuples(st.sampled_from([*NUMBERS, "+33699999999"]), st.integers(-86_400, 9 * 86_400))


@settings(deadline=None, max_examples=40)
@given(st.lists(ORDER, max_size=25))
def test_models_share_each_order_as_they_say(rows: list[tuple[str, int]]) -> None:
    """Last, first and linear credit each followed order once in all; any touch once per
    campaign followed; totals equal a plain count of (order, touch) pairs."""
    orders = pd.DataFrame({
        "phone_number": [r[0] for r in rows],
        "ordered_at": pd.to_datetime([T0 + pd.Timedelta(seconds=r[1]) for r in rows], utc=True),
        "amount": 1.0,
    })  # fmt: skip
    table = attribute(touches(), CAMPAIGNS, orders, window="3D", models=MODELS)
    sent = touches()
    followed, pairs = 0, 0
    for number, offset in rows:
        at = (T0 + pd.Timedelta(seconds=offset)).value
        mine = sent[(sent["phone_number"] == number) & (sent["touched_at"] <= at)
                    & (at < sent["touched_at"] + pd.Timedelta("3D").value)]  # fmt: skip
        followed += bool(len(mine))
        pairs += len(mine)
    totals = table.groupby("model", observed=True)["conversions"].sum()
    for model in ("last_touch", "first_touch", "linear"):
        assert totals[model] == pytest.approx(followed)
    assert totals["any_touch"] == pytest.approx(pairs)


def test_last_first_and_linear_on_one_order() -> None:
    """An order following a and b goes to b (last), a (first), half each (linear)."""
    orders = pd.DataFrame({"phone_number": [NUMBERS[2]], "amount": [30.0],
                           "ordered_at": [T0 + pd.Timedelta("30h")]})  # fmt: skip
    table = attribute(touches(), CAMPAIGNS, orders, window="3D", models=MODELS)
    credit = table.astype({"model": str}).set_index(["model", "campaign"])["revenue"]
    assert (credit["last_touch", "a"], credit["last_touch", "b"]) == (0.0, 30.0)
    assert (credit["first_touch", "a"], credit["first_touch", "b"]) == (30.0, 0.0)
    assert (credit["linear", "a"], credit["linear", "b"]) == (15.0, 15.0)
    assert (credit["any_touch", "a"], credit["any_touch", "b"]) == (30.0, 30.0)
    row = table[(table["model"] == "last_touch") & (table["campaign"] == "b")].iloc[0]
    assert row["roi"] == pytest.approx((30.0 - 2.0) / 2.0)
    assert row["cost_per_conversion"] == pytest.approx(2.0)
    assert np.isnan(table.loc[table["campaign"] == "c", "roi"]).all()  # nothing billed


def test_unknown_model_is_refused() -> None:
    """A model that is not one of the four is refused naming it."""
    with pytest.raises(ValidationError, match="last_touch"):
        attribution(pd.DataFrame(), model="time_decay")


def test_ledger_campaigns_are_attributed(fresh_sandbox: Sandbox, tmp_path: Path) -> None:
    """Two sent campaigns of the ledger, overlapping recipients: an order of a shared
    recipient after both goes to the later one by last touch."""
    with smskit.Client(sandbox=fresh_sandbox) as client:
        numbers = [f"+3361{i:07d}" for i in range(15)]
        for name, chosen in (("first", numbers[:10]), ("second", numbers[5:])):
            Campaign(client, chosen, text="Promo STOP au 36173", sender="Shop", name=name).send(
                journal=tmp_path / f"{name}.journal.sqlite", progress=False
            )
    after = pd.Timestamp.now(tz="UTC") + pd.Timedelta("1h")
    orders = pd.DataFrame({"phone_number": ["+33610000007", "+33610000001"],
                           "ordered_at": [after, after], "amount": [20.0, 10.0]})  # fmt: skip
    table = attribution(orders, models=["last_touch", "any_touch"], journals=tmp_path)
    credit = table.astype({"model": str}).set_index(["model", "campaign"])["revenue"]
    assert (credit["last_touch", "first"], credit["last_touch", "second"]) == (10.0, 20.0)
    assert (credit["any_touch", "first"], credit["any_touch", "second"]) == (30.0, 20.0)
    assert set(table["recipients"]) == {10}
