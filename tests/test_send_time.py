"""Send-time rates across the ledger: every hour (or weekday) listed, each campaign counted
in the slot it started, rates pooled over the recipients accepted, conversions from orders."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import smskit
from smskit.campaigns import history, send_times
from smskit.campaigns.campaign import Campaign
from smskit.errors import ValidationError
from smskit.sandbox import Sandbox


def test_rates_by_hour_and_weekday(fresh_sandbox: Sandbox, tmp_path: Path) -> None:
    """A campaign of 10 sent with one order after it: its start hour has sent 10 and a
    conversion rate of 0.1; the other hours none; weekdays are seven rows."""
    with smskit.Client(sandbox=fresh_sandbox) as client:
        numbers = [f"+3361{i:07d}" for i in range(10)]
        result = Campaign(
            client, numbers, text="Promo STOP au 36173", sender="Shop", name="a"
        ).send(journal=tmp_path / "a.journal.sqlite", progress=False)
    orders = pd.DataFrame({"phone_number": [numbers[1]], "amount": [5.0],
                           "ordered_at": [result.sent_at + pd.Timedelta("1h")]})  # fmt: skip
    table = send_times(tmp_path, orders=orders, time_zone="UTC")
    started = history(tmp_path, time_zone="UTC")["started"].iloc[0]
    assert list(table.index) == list(range(24))
    assert table.loc[started.hour, "sent"] == 10 and table["campaigns"].sum() == 1
    assert table.loc[started.hour, "conversion_rate"] == pytest.approx(0.1)
    assert table.drop(index=started.hour)["sent"].eq(0).all()
    weekdays = send_times(tmp_path, by="weekday", time_zone="UTC")
    assert len(weekdays) == 7 and weekdays.loc[started.day_name(), "campaigns"] == 1


def test_unknown_slot_is_refused() -> None:
    """by= must be hour or weekday."""
    with pytest.raises(ValidationError, match="hour"):
        send_times(by="minute")
