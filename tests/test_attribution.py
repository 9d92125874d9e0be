"""Attribution credits each order to the campaigns whose send it follows within the window,
by last touch, first touch, linear shares or any touch, side by side; orders outside every
window or from strangers credit nobody; the ledger's journals are read as sent campaigns, their
windows starting at the send, the delivery or the first human click."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from _clicks import simulate_clicks_at_once
from _gateway import reporting_gateway
from hypothesis import given, settings
from hypothesis import strategies as st

import smskit
from smskit.campaigns import attribution
from smskit.campaigns.analysis.attribution import MODELS, attribute
from smskit.campaigns.campaign import Campaign
from smskit.errors import ValidationError
from smskit.sandbox import DeliveryModel, Sandbox

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


@settings(deadline=None, max_examples=40)
@given(st.lists(ORDER, max_size=25), st.lists(st.sampled_from(["daily", "x"]), min_size=3,
                                              max_size=3))  # fmt: skip
def test_campaigns_sharing_a_name_are_credited_apart(
    rows: list[tuple[str, int]], names: list[str]
) -> None:
    """Campaigns told apart by their journals are credited as campaigns of distinct names
    are, row for row, whatever names they share (a campaign sent again under its name, a
    daily --name): an order is never credited to a name twice, nor a campaign's totals
    merged with another's."""
    orders = pd.DataFrame({
        "phone_number": [r[0] for r in rows],
        "ordered_at": pd.to_datetime([T0 + pd.Timedelta(seconds=r[1]) for r in rows], utc=True),
        "amount": [1.0 + i for i in range(len(rows))],
    })  # fmt: skip
    apart = attribute(touches(), CAMPAIGNS, orders, window="3D", models=MODELS)
    journal = {"a": "a.journal.sqlite", "b": "b.journal.sqlite", "c": "c.journal.sqlite"}
    renamed = dict(zip("abc", names, strict=True))
    shared = touches().assign(journal=lambda t: t["campaign"].map(journal))
    campaigns = CAMPAIGNS.assign(journal=CAMPAIGNS["campaign"].map(journal))
    same = attribute(
        shared.assign(campaign=shared["campaign"].map(renamed)),
        campaigns.assign(campaign=campaigns["campaign"].map(renamed)),
        orders, window="3D", models=MODELS,
    )  # fmt: skip
    assert list(same["campaign"]) == [renamed[c] for c in apart["campaign"]]
    assert list(same["journal"]) == [journal[c] for c in apart["campaign"]]
    assert apart["journal"].isna().all()  # campaigns known by name only: no journal to show
    pd.testing.assert_frame_equal(
        same.drop(columns=["campaign", "journal"]), apart.drop(columns=["campaign", "journal"])
    )


def test_rows_of_two_campaigns_of_one_name_name_their_journals(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Two campaigns named "daily" (a daily --name, a name sent again) were two rows alike
    but for their numbers; each row now names its journal, the path the ledger shows and
    CampaignResult.load opens, so the row credited the order is the campaign that sent to
    its number."""
    paths = [tmp_path / "daily.journal.sqlite", tmp_path / "daily-2.journal.sqlite"]
    with smskit.Client(sandbox=fresh_sandbox) as client:
        for path, number in zip(paths, ["+33610000001", "+33610000002"], strict=True):
            Campaign(client, [number], text="Promo STOP au 36173", sender="Shop",
                     name="daily").send(journal=path, progress=False)  # fmt: skip
    after = pd.Timestamp.now(tz="UTC") + pd.Timedelta("1h")
    orders = pd.DataFrame({"phone_number": ["+33610000002"], "ordered_at": [after],
                           "amount": [20.0]})  # fmt: skip
    table = attribution(orders, journals=tmp_path)
    assert list(table.columns[:3]) == ["model", "campaign", "journal"]
    assert list(table["campaign"]) == ["daily", "daily"]
    assert sorted(table["journal"]) == sorted(str(p) for p in paths)
    assert set(table["journal"]) == set(smskit.campaigns.history(tmp_path)["journal"])
    credited = table.loc[table["revenue"] > 0, "journal"].item()
    assert smskit.CampaignResult.load(credited).to_frame()["phone_number"].tolist() == [
        "+33610000002"
    ]


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


def naive(
    touched: list[tuple[str, str, int]],
    orders: list[tuple[str, int, float]],
    span: int,
    campaigns: list[str],
) -> dict[tuple[str, str], tuple[float, float]]:
    """Each order, one at a time, credited by each model: (model, campaign) -> (orders,
    revenue)."""
    credit = {(m, c): (0.0, 0.0) for m in MODELS for c in campaigns}

    def add(model: str, campaign: str, weight: float, amount: float) -> None:
        count, revenue = credit[model, campaign]
        credit[model, campaign] = (count + weight, revenue + weight * amount)

    for number, at, amount in orders:
        mine = sorted(
            (
                (t, campaigns.index(c), c)
                for c, n, t in touched
                if n == number and t <= at < t + span
            )
        )
        if not mine:
            continue
        add("last_touch", mine[-1][2], 1.0, amount)
        add("first_touch", mine[0][2], 1.0, amount)
        for _t, _r, campaign in mine:
            add("linear", campaign, 1.0 / len(mine), amount)
            add("any_touch", campaign, 1.0, amount)
    return credit


def assert_same(table: pd.DataFrame, expected: dict[tuple[str, str], tuple[float, float]]) -> None:
    """The table's conversions and revenue per (model, campaign) are the naive loop's."""
    got = table.astype({"model": str}).set_index(["model", "campaign"])
    assert len(got) == len(expected)
    for key, (count, revenue) in expected.items():
        assert got.loc[key, "conversions"] == pytest.approx(count), key
        assert got.loc[key, "revenue"] == pytest.approx(revenue), key


TOUCH = st.tuples(st.sampled_from(["a", "b", "c"]), st.sampled_from(NUMBERS),
                  st.integers(0, 5 * 86_400))  # fmt: skip
PLACED = st.tuples(st.sampled_from([*NUMBERS, "+33699999999"]), st.integers(-86_400, 9 * 86_400),
                   st.sampled_from([0.0, 1.5, 20.0, 99.99]))  # fmt: skip


def frames(
    touched: list[tuple[str, str, int]], placed: list[tuple[str, int, float]]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The touches and orders of the property tests as frames (seconds after T0)."""
    touches_frame = pd.DataFrame(
        {
            "campaign": [t[0] for t in touched],
            "phone_number": [t[1] for t in touched],
            "touched_at": np.array([T0.value + t[2] * 10**9 for t in touched], dtype="int64"),
        }
    )
    orders = pd.DataFrame({
        "phone_number": [p[0] for p in placed],
        "ordered_at": pd.to_datetime([T0 + pd.Timedelta(seconds=p[1]) for p in placed], utc=True),
        "amount": [p[2] for p in placed],
    })  # fmt: skip
    return touches_frame, orders


@settings(deadline=None, max_examples=60)
@given(st.lists(TOUCH, max_size=15), st.lists(PLACED, max_size=20),
       st.sampled_from(["1h", "1D", "3D"]))  # fmt: skip
def test_every_model_equals_a_naive_per_order_loop(
    touched: list[tuple[str, str, int]], placed: list[tuple[str, int, float]], window: str
) -> None:
    """Differential: each model's conversions and revenue per campaign are those of a plain
    loop over the orders, ties going to the campaign listed first."""
    touches_frame, orders = frames(touched, placed)
    table = attribute(touches_frame, CAMPAIGNS, orders, window=window, models=MODELS)
    span = pd.Timedelta(window).value
    as_ns = [(c, n, T0.value + t * 10**9) for c, n, t in touched]
    in_ns = [(n, T0.value + t * 10**9, a) for n, t, a in placed]
    assert_same(table, naive(as_ns, in_ns, span, ["a", "b", "c"]))


@settings(deadline=None, max_examples=40)
@given(st.lists(TOUCH, max_size=15), st.lists(PLACED, max_size=20))
def test_any_touch_bounds_every_model_and_outside_orders_credit_nobody(
    touched: list[tuple[str, str, int]], placed: list[tuple[str, int, float]]
) -> None:
    """Per campaign, any_touch credits at least what the other models do; linear credits sum
    to the orders followed; orders outside every window (before all, long after, strangers)
    change no credit."""
    touches_frame, orders = frames(touched, placed)
    table = attribute(touches_frame, CAMPAIGNS, orders, window="1D", models=MODELS)
    by = table.astype({"model": str}).set_index(["model", "campaign"])["conversions"]
    for campaign in CAMPAIGNS["campaign"]:
        for model in ("last_touch", "first_touch", "linear"):
            assert by["any_touch", campaign] >= by[model, campaign] - 1e-9
    assert by["linear"].sum() == pytest.approx(by["last_touch"].sum())
    _, outside = frames([], [(NUMBERS[0], -2 * 86_400, 5.0), (NUMBERS[1], 30 * 86_400, 5.0),
                             ("+33699999999", 86_400, 5.0)])  # fmt: skip
    more = attribute(touches_frame, CAMPAIGNS, pd.concat([orders, outside], ignore_index=True),
                     window="1D", models=MODELS)  # fmt: skip
    pd.testing.assert_frame_equal(more, table)


def test_window_from_is_refused_unless_send_delivery_or_click() -> None:
    """window_from names one of send, delivery, click; anything else is refused naming it."""
    with pytest.raises(ValidationError, match="window_from"):
        attribution(pd.DataFrame(), window_from="open")


TRACKED = "Soldes: https://shop.example/soldes STOP au 36173"


def test_windows_from_send_delivery_and_first_click(tmp_path: Path) -> None:
    """Over real HTTP, two tracked campaigns with delivery reports and clicks: each
    window_from credits the orders as a naive loop over the outcomes' send instants,
    delivery dates (reported not delivered: no touch) and first human clicks does."""
    gateway = reporting_gateway(
        DeliveryModel.fast(seed=3), tmp_path.parent / f"{tmp_path.name}-inbox.sqlite"
    )
    with gateway as (sandbox, inbox, client):
        numbers = [f"+3361{i:07d}" for i in range(60)]
        results = {
            name: Campaign(
                client, chosen, text=TRACKED, sender="Shop", name=name, track_links=inbox,
                purpose="alert",
            ).send(journal=tmp_path / f"{name}.journal.sqlite", progress=False)
            for name, chosen in (("a", numbers[:40]), ("b", numbers[20:]))
        }  # fmt: skip
        for result in results.values():  # both sends' reports come in meanwhile
            assert result.wait_for_outcomes(inbox, timeout=60) == 0
        simulate_clicks_at_once(sandbox, [
            (ticket, {"rate": 0.4, "bot_share": 0.2, "seed": seed})
            for seed, result in enumerate(results.values())
            for ticket in result.to_frame()["ticket"].unique()
        ])  # fmt: skip
        seen = {name: r.outcomes(inbox, time_zone="UTC") for name, r in results.items()}
        starts: dict[str, list[tuple[str, str, int]]] = {"send": [], "delivery": [], "click": []}
        for name, frame in seen.items():
            sent = results[name].sent_at.value
            rows: Any = frame.itertuples()
            for row in rows:
                starts["send"].append((name, row.phone_number, sent))
                if row.status == "DELIVERED":
                    starts["delivery"].append((name, row.phone_number, row.delivery_date.value))
                elif not row.final:
                    starts["delivery"].append((name, row.phone_number, sent))
                if not pd.isna(row.first_click_date):
                    starts["click"].append((name, row.phone_number, row.first_click_date.value))
        assert 0 < len(starts["click"]) < len(starts["send"])
        assert len(starts["delivery"]) < len(starts["send"])  # some reported not delivered
        # Orders a millisecond either side of every start, so each choice credits differently.
        milli = 10**6
        placed = [
            (n, t + d, 10.0) for s in starts.values() for _c, n, t in s for d in (-milli, milli)
        ]
        orders = pd.DataFrame({
            "phone_number": [p[0] for p in placed],
            "ordered_at": pd.to_datetime([p[1] for p in placed], utc=True),
            "amount": [p[2] for p in placed],
        })  # fmt: skip
        for window_from, touched in starts.items():
            table = attribution(orders, models=MODELS, window="1h", journals=tmp_path,
                                window_from=window_from, inbox=inbox)  # fmt: skip
            assert_same(table, naive(touched, placed, pd.Timedelta("1h").value, ["a", "b"]))
            assert set(table["recipients"]) == {40}


def test_model_and_models_together_are_refused() -> None:
    """model= and models= both given: refused naming models (which one wins is a guess)."""
    with pytest.raises(ValidationError) as refused:
        attribution(pd.DataFrame(), model="last_touch", models=["any_touch"])
    assert str(refused.value) == "models: give model= or models=, not both"


def test_windows_from_click_need_an_inbox(tmp_path: Path) -> None:
    """window_from='click' with no inbox (and no store of `smskit replies serve`): refused
    naming inbox, never read as "nobody clicked"."""
    with pytest.raises(ValidationError) as refused:
        attribution(pd.DataFrame(), window_from="click", journals=tmp_path)
    assert str(refused.value) == (
        "inbox: window_from='click' needs the inbox that served the tracked links"
    )


def test_another_accounts_inbox_gives_no_delivery_instants(tmp_path: Path) -> None:
    """Over real HTTP: the inbox holding this campaign's delivery reports, then claimed by
    another account, is not read as this campaign's: window_from='delivery' starts every
    window at the send (as with no report), where this account's inbox starts them at each
    delivery (orders a millisecond after the send are then not credited)."""
    path = tmp_path.parent / f"{tmp_path.name}-inbox.sqlite"
    with reporting_gateway(DeliveryModel.fast(seed=3), path) as (_sandbox, inbox, client):
        numbers = [f"+3361{i:07d}" for i in range(20)]
        campaign = Campaign(client, numbers, text="Promo STOP au 36173", sender="Shop")
        result = campaign.send(journal=tmp_path / "own.journal.sqlite", progress=False)
        assert result.wait_for_outcomes(inbox, timeout=60) == 0
    sent = result.sent_at
    orders = pd.DataFrame({"phone_number": numbers,
                           "ordered_at": [sent + pd.Timedelta("1ms")] * len(numbers),
                           "amount": [10.0] * len(numbers)})  # fmt: skip
    options: dict[str, Any] = {"window": "1h", "journals": tmp_path}
    from_send = attribution(orders, **options)
    assert from_send["conversions"].tolist() == [20.0]
    from_delivery = attribution(orders, window_from="delivery", inbox=path, **options)
    assert from_delivery["conversions"].tolist() == [0.0]
    with smskit.Inbox(path, account=("http://127.0.0.1:9", "another")) as other:
        assert other.account == ("http://127.0.0.1:9", "another")
        pd.testing.assert_frame_equal(
            attribution(orders, window_from="delivery", inbox=other, **options), from_send
        )
