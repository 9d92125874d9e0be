"""Send-time rates across the ledger: every hour (or weekday) listed, each campaign counted
in the slot it started, rates pooled over the recipients accepted (delivery and clicks from the
inbox, conversions from orders), and the figure drawn from the frame."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from _gateway import reporting_gateway
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import smskit
from smskit.campaigns import history, send_times
from smskit.campaigns.campaign import Campaign
from smskit.errors import ValidationError
from smskit.replies import Inbox
from smskit.sandbox import DeliveryModel, Sandbox


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


def test_two_campaigns_of_one_name_each_count_their_own_conversions(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Two journals of campaigns named alike (a name sent again, a daily --name): each order
    is counted once per campaign that touched its number, as attribution's any_touch credits
    it, never merged by name (two orders to one campaign's recipients made 4 each)."""
    with smskit.Client(sandbox=fresh_sandbox) as client:
        first, again = (
            Campaign(
                client, numbers, text="Alerte", sender="Ops", purpose="alert", name="daily"
            ).send(journal=tmp_path / f"{stem}.journal.sqlite", progress=False)
            for stem, numbers in (("daily", ["+33610000001"]), ("daily-2", ["+33610000002"]))
        )
    later = max(first.sent_at, again.sent_at) + pd.Timedelta("1h")
    orders = pd.DataFrame({"phone_number": ["+33610000001", "+33610000001"],
                           "amount": [5.0, 7.0], "ordered_at": [later, later]})  # fmt: skip
    table = send_times(tmp_path, orders=orders, time_zone="UTC")
    assert table["campaigns"].sum() == 2 and table["conversions"].sum() == 2
    credit = smskit.campaigns.attribution(orders, journals=tmp_path, models=["any_touch"])
    by_journal = dict(zip(credit["revenue"], credit["conversions"], strict=True))
    assert list(credit["campaign"]) == ["daily", "daily"] and by_journal == {12.0: 2, 0.0: 0}


@pytest.fixture(scope="module")
def sent_ten(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str], pd.Timestamp]:
    """A campaign of 10 sent over real HTTP: its journals' directory, numbers, send instant."""
    directory = tmp_path_factory.mktemp("journals")
    numbers = [f"+3361{i:07d}" for i in range(10)]
    with Sandbox(seed=3) as sandbox, smskit.Client(sandbox=sandbox) as client:
        result = Campaign(client, numbers, text="Alerte", sender="Ops", purpose="alert",
                          name="ten").send(journal=directory / "ten.journal.sqlite",
                                           progress=False)  # fmt: skip
    return directory, numbers, result.sent_at


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    placed=st.lists(st.tuples(st.integers(0, 11), st.integers(-30, 150)), min_size=1, max_size=40)
)
def test_the_conversion_rate_is_the_share_of_recipients_who_bought(
    sent_ten: tuple[Path, list[str], pd.Timestamp], placed: list[tuple[int, int]]
) -> None:
    """Orders of any count per buyer (repeat buyers, strangers, before and after the
    window): `converted` is the recipients with an order in [sent, sent + 5D), as a loop
    over the recipients counts them, `conversion_rate` that share of the 10 sent (never
    above 1: a buyer's three orders are one buyer), `conversions` the orders in the window."""
    directory, numbers, sent_at = sent_ten
    others = ["+33699999998", "+33699999999"]  # not recipients
    orders = pd.DataFrame({
        "phone_number": [(numbers + others)[who] for who, _ in placed],
        "ordered_at": [sent_at + pd.Timedelta(hours=h) for _, h in placed],
        "amount": 1.0,
    })  # fmt: skip
    inside = [0 <= h < 120 for _, h in placed]
    buyers = {n for n, ok in zip(orders["phone_number"], inside, strict=True) if ok}
    expected = sum(number in buyers for number in numbers)
    bought = sum(ok and n in numbers for n, ok in zip(orders["phone_number"], inside, strict=True))
    table = send_times(directory, orders=orders, time_zone="UTC")
    row = table[table["campaigns"] > 0].iloc[0]
    assert (row["converted"], row["conversions"]) == (expected, bought)
    assert row["conversion_rate"] == pytest.approx(expected / 10) and row["conversion_rate"] <= 1


def test_before_any_report_the_delivery_rate_is_missing_not_zero(tmp_path: Path) -> None:
    """Sent with the inbox given but no report arrived yet (no callback URL registered):
    the slot has sent 5, reported 0, and its delivery rate is missing, not 0 % delivered;
    the reply and click rates, which need no report, stay 0."""
    with (
        Sandbox(seed=4) as sandbox,
        Inbox(tmp_path.parent / f"{tmp_path.name}-inbox.sqlite") as inbox,
        smskit.Client(sandbox=sandbox) as client,
    ):
        numbers = [f"+3361{i:07d}" for i in range(5)]
        campaign = Campaign(client, numbers, text="Alerte", sender="Ops", purpose="alert")
        campaign.send(journal=tmp_path / "a.journal.sqlite", progress=False)
        table = send_times(tmp_path, inbox=inbox, time_zone="UTC")
    row = table[table["campaigns"] > 0].iloc[0]
    assert (row["sent"], row["reported"], row["delivered"]) == (5, 0, 0)
    assert pd.isna(row["delivery_rate"]) and row["reply_rate"] == 0 and row["click_rate"] == 0


def test_unknown_slot_is_refused() -> None:
    """by= must be hour or weekday."""
    with pytest.raises(ValidationError, match="hour"):
        send_times(by="minute")


def test_delivery_click_and_conversion_rates_and_their_figure(tmp_path: Path) -> None:
    """Over real HTTP with delivery reports and simulated clicks: the start hour's delivery,
    click and conversion rates are the outcomes' shares of the recipients sent, and the
    figure draws each rate line and the sent bars from the frame."""
    from smskit.plots import send_time_rates

    gateway = reporting_gateway(
        DeliveryModel.fast(seed=5), tmp_path.parent / f"{tmp_path.name}-inbox.sqlite"
    )
    with gateway as (sandbox, inbox, client):
        numbers = [f"+3361{i:07d}" for i in range(50)]
        result = Campaign(
            client, numbers, text="Soldes: https://shop.example/s STOP au 36173",
            sender="Shop", name="tracked", track_links=inbox, purpose="alert",
        ).send(journal=tmp_path / "tracked.journal.sqlite", progress=False)  # fmt: skip
        assert result.wait_for_outcomes(inbox, timeout=60) == 0
        for ticket in result.to_frame()["ticket"].unique():
            sandbox.simulate_clicks(ticket, rate=0.3, bot_share=0.2, seed=2)
        seen = result.outcomes(inbox)
        orders = pd.DataFrame({"phone_number": numbers[:7], "amount": 1.0,
                               "ordered_at": result.sent_at + pd.Timedelta("2h")})  # fmt: skip
        table = send_times(tmp_path, inbox=inbox, orders=orders, time_zone="UTC")
        hour = history(tmp_path, time_zone="UTC")["started"].iloc[0].hour
    row = table.loc[hour]
    assert row["sent"] == len(seen) == 50 and row["reported"] == seen["final"].sum()
    assert row["delivery_rate"] == pytest.approx((seen["status"] == "DELIVERED").mean())
    assert 0 < row["click_rate"] == pytest.approx(seen["clicked"].mean())
    assert row["conversion_rate"] == pytest.approx(7 / 50)
    figure = send_time_rates(table)
    lines = {trace.name: trace for trace in figure.data if trace.type == "scatter"}
    assert set(lines) == {"Delivered", "Replied", "Clicked", "Converted"}
    assert lines["Clicked"].y[hour] == pytest.approx(row["click_rate"])
    bars = next(trace for trace in figure.data if trace.type == "bar")
    assert list(bars.y) == table["sent"].astype(float).tolist()


def test_figure_leaves_out_rates_never_known() -> None:
    """Without an inbox or orders, rates never known draw no line (not a line of zeros), both
    axes start at zero (a rate is never negative), and a frame that is not send_times' is
    refused."""
    from smskit.plots import send_time_rates

    table = pd.DataFrame(
        {"campaigns": [1, 0], "sent": [10, 0], "delivered": [9, None], "replies": [None, None],
         "clicked": [None, None], "conversions": [None, None], "delivery_rate": [0.9, None],
         "reply_rate": [None, None], "click_rate": [None, None], "conversion_rate": [None, None]},
        index=pd.Index(["Monday", "Tuesday"], name="weekday"),
    )  # fmt: skip
    figure = send_time_rates(table)
    names = [trace.name for trace in figure.data]
    assert names == ["sent", "Delivered"]
    # One hour sent (notebook 08): its lone rate was centred on an axis from -90 % to 100 %.
    assert figure.layout.yaxis.rangemode == figure.layout.yaxis2.rangemode == "tozero"
    with pytest.raises(ValidationError, match="send_times"):
        send_time_rates(table.drop(columns="sent"))
