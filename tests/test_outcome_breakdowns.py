"""Breakdowns and figures of outcomes (pure frames over a hand-written outcomes frame), and
the billed share of a chunk mixing prices."""

from __future__ import annotations

import pandas as pd
import pytest

from smskit import plots
from smskit.campaigns import cost_breakdown, delivery_breakdown, delivery_times
from smskit.campaigns.analysis.outcomes import Callbacks, SendFacts, outcome_dtypes, outcomes_frame
from smskit.errors import ValidationError
from smskit.replies.inbox import Inbox

MIN = pd.Timedelta(minutes=1)
# country, network, line_status, status, minutes to delivery, predicted, billed, reported
ROWS = [
    ("FR", "Orange", "live", "DELIVERED", 1, 0.065, 0.065, 0.065),
    ("FR", "Orange", "live", "DELIVERED", 3, 0.065, 0.065, 0.065),
    ("FR", "SFR", "dead", "NOT_DELIVERED", 2, 0.065, 0.065, 0.065),
    ("FR", None, None, "pending", None, 0.065, 0.065, None),
    ("DE", "Telekom", "absent_subscriber", "DELIVERED", 120, 0.089, 0.089, 0.089),
    ("DE", None, None, None, None, None, 0.089, None),  # only a report of unknown status
    ("ES", None, None, "ACK", None, 0.072, 0.072, 0.072),
]


def outcomes() -> pd.DataFrame:
    """Seven recipients written out by hand, with the outcomes frame's dtypes."""
    frame = pd.DataFrame(
        {
            "row": range(len(ROWS)),
            "country": [r[0] for r in ROWS],
            "network": [r[1] for r in ROWS],
            "line_status": [r[2] for r in ROWS],
            "status": [r[3] for r in ROWS],
            "final": [r[3] in ("DELIVERED", "NOT_DELIVERED") for r in ROWS],
            "time_to_delivery": [None if r[4] is None else r[4] * MIN for r in ROWS],
            "segments": 1,
            "predicted_cost": [r[5] for r in ROWS],
            "billed_cost": [r[6] for r in ROWS],
            "reported_cost": [r[7] for r in ROWS],
        }
    )
    dtypes = outcome_dtypes()
    return frame.astype({name: dtypes[name] for name in frame.columns})


def test_delivery_by_country_counts_every_status_with_a_total_row() -> None:
    """Counts per country (most recipients first), every status a column (zeros too), the
    unknown status as 'unreadable', delivery and final rates, then the total."""
    table = delivery_breakdown(outcomes(), "country")
    assert list(table.index) == ["FR", "DE", "ES", "total"]
    assert table.loc["FR", ["recipients", "DELIVERED", "NOT_DELIVERED", "pending"]].tolist() == [
        4, 2, 1, 1,
    ]  # fmt: skip
    assert table.loc["DE", "unreadable"] == 1 and table.loc["ES", "ACK"] == 1
    assert table.loc["total", "BLACKLISTED_NUMBER"] == 0
    assert table.loc["FR", "delivery_rate"] == 0.5 and table.loc["FR", "final_rate"] == 0.75
    assert table.loc["total", "delivered"] == 3 and table.loc["total", "recipients"] == 7
    assert table.loc["total", "delivery_rate"] == pytest.approx(3 / 7)


def test_a_categorical_group_lists_every_category_and_the_missing() -> None:
    """By line_status: every HLR line status in spec order (zero rows too), then (missing)."""
    table = delivery_breakdown(outcomes(), "line_status")
    assert table.index[0] == "live" and table.index[-2:].tolist() == ["(missing)", "total"]
    assert "no_coverage" in table.index and table.loc["no_coverage", "recipients"] == 0
    assert table.loc["(missing)", "recipients"] == 3
    assert pd.isna(table.loc["no_coverage", "delivery_rate"])


def test_time_to_delivery_median_p90_and_max() -> None:
    """Delivered messages only: 1, 3 and 120 minutes -> median 3, p90 (linear) 96.6, max 120."""
    table = delivery_times(outcomes())
    assert table.loc["total", "messages"] == 3
    assert table.loc["total", "median"] == 3 * MIN and table.loc["total", "max"] == 120 * MIN
    assert abs(table.loc["total", "p90"] - 96.6 * MIN) < pd.Timedelta(seconds=1)
    by_country = delivery_times(outcomes(), "country")
    assert by_country.loc["FR", "max"] == 3 * MIN and by_country.loc["ES", "messages"] == 0


def test_costs_three_ways_say_how_many_messages_each_does_not_know() -> None:
    """Sums where known, and the count of messages each way does not know."""
    table = cost_breakdown(outcomes(), "country")
    assert table.loc["FR", ["predicted", "billed", "reported"]].tolist() == pytest.approx(
        [0.26, 0.26, 0.195]
    )
    assert table.loc["FR", "unknown_reported"] == 1 and table.loc["DE", "unknown_predicted"] == 1
    assert table.loc["DE", "billed_minus_predicted"] == pytest.approx(0.089)
    assert table.loc["total", "messages"] == 7
    assert table.loc["total", "billed"] == pytest.approx(0.26 + 0.178 + 0.072)


def test_a_group_that_is_not_a_column_is_refused_by_name() -> None:
    """by must name a column; outcomes must be a frame."""
    with pytest.raises(ValidationError, match="by"):
        delivery_breakdown(outcomes(), "carrier")
    with pytest.raises(ValidationError, match="outcomes"):
        cost_breakdown([1, 2], "country")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="status"):
        delivery_times(outcomes(), status="pending")


def test_figures_draw_the_tables() -> None:
    """Each bar of the delivery figure is a status's share of its group's recipients; the
    cost figure has three bars per group; the time figure one line per group delivered."""
    figure = plots.delivery_breakdown(outcomes(), "country")
    delivered = next(t for t in figure.data if t.name == "DELIVERED")
    assert list(delivered.y) == ["FR", "DE", "ES"] and list(delivered.x) == [0.5, 0.5, 0.0]
    assert {t.name for t in figure.data} == {"DELIVERED", "NOT_DELIVERED", "pending", "ACK",
                                             "unreadable"}  # fmt: skip
    costs = plots.cost_breakdown(outcomes(), "country")
    assert [t.name for t in costs.data] == ["predicted", "billed", "reported"]
    assert list(costs.data[2].y) == pytest.approx([0.195, 0.089, 0.072])
    times = plots.delivery_times(outcomes(), "country")
    assert [t.name.split(" ")[0] for t in times.data] == ["FR", "DE"]
    assert list(times.data[0].x) == [1.0, 3.0]


def test_figures_draw_no_bar_for_the_total_or_an_empty_group() -> None:
    """Both bar figures leave out the total row and a group with no one in it (an unused
    category of ``by``), which their tables keep."""
    frame = outcomes()
    frame["country"] = pd.Categorical(frame["country"], categories=["FR", "DE", "ES", "IT"])
    assert delivery_breakdown(frame, "country").loc["IT", "recipients"] == 0
    delivery = plots.delivery_breakdown(frame, "country")
    assert {tuple(t.y) for t in delivery.data} == {("FR", "DE", "ES")}
    costs = plots.cost_breakdown(frame, "country")
    assert {tuple(t.x) for t in costs.data} == {("FR", "DE", "ES")}


def test_a_chunk_mixing_prices_bills_each_message_at_its_price() -> None:
    """The gateway bills a chunk as one cost: each message's share follows preflight's
    price when the chunk has one for every message, else its segments."""
    sent = pd.DataFrame(
        {"row": [0, 1, 2, 3], "phone_number": ["+33612345678", "+4915112345678",
         "+33612345679", "+33612345670"], "chunk": [0, 0, 1, 1], "ticket": ["t0", "t0", "t1",
         "t1"], "segments": [1, 1, 1, 1], "cost": [0.077, 0.077, 0.08, 0.08]}
    )  # fmt: skip
    facts = SendFacts({0: 1.0e9, 1: 1.0e9}, predicted={0: 0.065, 1: 0.089, 2: 0.065})
    got = outcomes_frame(
        sent,
        facts,
        Callbacks.read(Inbox()),
        pd.DataFrame(columns=["phone_number", "network_name", "line_status", "phone_number_type"]),
    )
    assert got["billed_cost"].tolist() == pytest.approx([0.065, 0.089, 0.08, 0.08])
    assert got["status"].astype(str).tolist() == ["pending"] * 4
    assert got["country"].tolist() == ["FR", "DE", "FR", "FR"]


def test_a_scheduled_send_counts_from_its_send_at() -> None:
    """A chunk accepted before its send_at was sent at send_at; one accepted after, then."""
    sent = pd.DataFrame(
        {"row": [0, 1], "phone_number": ["+33612345678", "+33612345679"], "chunk": [0, 1],
         "ticket": ["t0", "t1"], "segments": [1, 1], "cost": [0.065, 0.065]}
    )  # fmt: skip
    at = pd.Timestamp("2026-12-01 09:00", tz="UTC")
    accepted = {0: (at - MIN).timestamp(), 1: (at + MIN).timestamp()}
    facts = SendFacts(accepted, send_at="2026-12-01T10:00:00+01:00")
    got = outcomes_frame(
        sent,
        facts,
        Callbacks.read(Inbox()),
        pd.DataFrame(columns=["phone_number", "network_name", "line_status", "phone_number_type"]),
    )
    assert got["sent_at"].tolist() == [at, at + MIN]
