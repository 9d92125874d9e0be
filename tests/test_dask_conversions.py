"""The Dask result's conversions and lift, partition by partition: the same rows, columns and
statistics as the pandas path on the same data (differential tests), with pandas or Dask
orders; a bad order in a later partition refused naming its row in the whole table; a
streamed campaign with a holdout, sent over real HTTP, joined to the seeded shop's orders."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from distributed import Client as DaskClient
from hypothesis import given, settings
from hypothesis import strategies as st

import smskit
from smskit.campaigns.analysis.conversions import INBOX_COLUMNS, conversions, with_outcomes
from smskit.campaigns.analysis.lift import lift, lift_of
from smskit.dask import Campaign as DaskCampaign
from smskit.dask import conversions as partitioned
from smskit.errors import ValidationError
from smskit.replies.inbox import Inbox
from smskit.sandbox import DeliveryModel, Sandbox
from smskit.sandbox.shop import SeededShop

TEXT = "Promo -20% ce week-end. STOP au 36173"
SENT = pd.Timestamp("2026-03-02 09:00", tz="UTC")


def audience(size: int, seed: int) -> pd.DataFrame:
    """``size`` recipients (row, E.164 phone_number, group) with about a fifth held out."""
    rng = np.random.default_rng(seed)
    people = 33_612_000_000 + rng.choice(1_000_000, size, replace=False)
    return pd.DataFrame(
        {
            "row": np.arange(size, dtype="int64"),
            "phone_number": pd.array([f"+{n}" for n in people], dtype="string"),
            "group": pd.Categorical(
                np.where(rng.random(size) < 0.2, "holdout", "treated"),
                categories=["treated", "holdout"],
            ),
        }
    )


def orders_of(recipients: pd.DataFrame, count: int, seed: int) -> pd.DataFrame:
    """Orders from recipients and strangers, some national with a country, around the send:
    before it, at its first instant, inside the window, at its end (not counted), after."""
    rng = np.random.default_rng(seed)
    numbers = recipients["phone_number"].astype(str).to_numpy()
    picked = rng.integers(0, len(numbers) + 50, count)
    strangers = np.array([f"+3361300{n:04d}" for n in range(50)])
    who = np.where(picked < len(numbers), numbers[np.minimum(picked, len(numbers) - 1)],
                   strangers[np.maximum(picked - len(numbers), 0) % 50])  # fmt: skip
    national = rng.random(count) < 0.3
    written = np.where(national, np.char.add("0", np.char.lstrip(who.astype(str), "+33")), who)
    day = 86_400 * 10**9
    offsets = rng.choice([-day, 0, day, 2 * day, 5 * day - 1, 5 * day, 9 * day], count)
    return pd.DataFrame(
        {
            "phone_number": written,
            "country": np.where(national, "FR", None),
            "ordered_at": pd.to_datetime(SENT.value + offsets, utc=True),
            "amount": rng.gamma(2.0, 20.0, count).round(2),
        }
    )


def same(got: pd.DataFrame, want: pd.DataFrame) -> None:
    """Equal frames, revenues to a cent's billionth (sums in another order); text columns
    equal as text (a string dtype pickled between processes may come back NA-flavoured)."""
    got = got.sort_values("row", ignore_index=True)
    want = want.sort_values("row", ignore_index=True)
    assert list(got.columns) == list(want.columns)
    for name in ("phone_number", "group"):
        assert got[name].astype(object).tolist() == want[name].astype(object).tolist()
    texts = ["phone_number", "group", "revenue"]
    pd.testing.assert_frame_equal(got.drop(columns=texts), want.drop(columns=texts))
    np.testing.assert_allclose(got["revenue"], want["revenue"], rtol=1e-12, atol=1e-9)


@settings(max_examples=8, deadline=None)
@given(
    size=st.integers(1, 300),
    count=st.integers(0, 1500),
    partitions=st.integers(1, 5),
    seed=st.integers(0, 2**32 - 1),
    dask_orders=st.booleans(),
)
def test_partitionwise_conversions_and_lift_equal_the_pandas_ones(
    size: int, count: int, partitions: int, seed: int, dask_orders: bool
) -> None:
    """However the recipients (and the orders) are partitioned, every recipient's
    conversions and the lift table equal the pandas function's on the same frames."""
    recipients = audience(size, seed)
    orders = orders_of(recipients, count, seed)
    want = conversions(recipients.drop(columns="row"), orders, sent_at=SENT, window="5D")
    want.insert(0, "row", recipients["row"].to_numpy())
    given_orders = dd.from_pandas(orders, npartitions=partitions) if dask_orders else orders
    lazy = partitioned.conversions(
        dd.from_pandas(recipients, npartitions=partitions), given_orders, sent_at=SENT
    )
    with dask.config.set(scheduler="synchronous"):  # partition by partition, in this process
        same(lazy.compute(), want)
        ours = lift_of(*partitioned.group_totals(lazy), cost=12.5)
        theirs = lift(want, cost=12.5)
    assert (ours.treated, ours.holdout) == (theirs.treated, theirs.holdout)
    got, expected = ours.table, theirs.table
    pd.testing.assert_series_equal(got["note"], expected["note"])
    numbers = ["treated", "holdout", "difference", "ci_low", "ci_high", "p_value"]
    np.testing.assert_allclose(got[numbers], expected[numbers], rtol=1e-7, atol=1e-10)


def test_parquet_files_with_text_groups_and_extra_columns_give_the_pandas_rows(
    tmp_path: Path,
) -> None:
    """Recipients read from Parquet (their groups as text, coded to the categories) and
    orders read from Parquet with a column the join never reads give the pandas rows."""
    recipients = audience(400, 7)
    orders = orders_of(recipients, 2000, 7).assign(note="gift wrap")
    want = conversions(recipients.drop(columns="row"), orders, sent_at=SENT, window="5D")
    want.insert(0, "row", recipients["row"].to_numpy())
    (tmp_path / "r").mkdir()
    (tmp_path / "o").mkdir()
    for index, rows in enumerate(np.array_split(np.arange(400), 3)):
        part = recipients.iloc[rows].assign(group=lambda f: f["group"].astype(str))
        part.to_parquet(tmp_path / "r" / f"{index}.parquet", index=False)
    for index, rows in enumerate(np.array_split(np.arange(2000), 2)):
        orders.iloc[rows].to_parquet(tmp_path / "o" / f"{index}.parquet", index=False)
    text = dd.read_parquet(str(tmp_path / "r"))
    assert not isinstance(text["group"].dtype, pd.CategoricalDtype)
    lazy = partitioned.conversions(text, dd.read_parquet(str(tmp_path / "o")), sent_at=SENT)
    with dask.config.set(scheduler="synchronous"):
        got = lazy.compute()
    assert isinstance(got["group"].dtype, pd.CategoricalDtype)
    same(got, want)


def test_a_bad_order_in_a_later_partition_is_refused_naming_its_row() -> None:
    """A negative amount, and a naive instant, in the third partition of Dask orders are
    refused naming the row of the whole table, as the pandas path names it."""
    recipients = audience(30, 1)
    orders = orders_of(recipients, 90, 1)
    orders.loc[71, "amount"] = -5.0
    for table in (orders, dd.from_pandas(orders, npartitions=3)):
        with pytest.raises(ValidationError) as caught:
            partitioned.conversions(
                dd.from_pandas(recipients, npartitions=2), table, sent_at=SENT
            ).compute()
        assert caught.value.field == "orders.amount" and caught.value.position == 71
    naive = orders.assign(ordered_at=orders["ordered_at"].dt.tz_localize(None))
    naive.loc[71, "amount"] = 1.0
    with pytest.raises(ValidationError) as caught:
        partitioned.conversions(
            dd.from_pandas(recipients, npartitions=2), dd.from_pandas(naive, npartitions=3),
            sent_at=SENT,
        ).compute()  # fmt: skip
    assert caught.value.field == "orders.ordered_at"
    with pytest.raises(ValidationError) as caught:
        partitioned.conversions(dd.from_pandas(recipients, npartitions=2), orders, sent_at=SENT,
                                window="-1D")  # fmt: skip
    assert caught.value.field == "window"


@pytest.fixture
def client(fresh_sandbox: Sandbox) -> Iterator[smskit.Client]:
    with smskit.Client(sandbox=fresh_sandbox) as c:
        yield c


def test_a_streamed_campaigns_conversions_and_lift_equal_the_pandas_ones(
    dask_cluster: DaskClient, client: smskit.Client, tmp_path: Path
) -> None:
    """Over real HTTP: a Dask campaign with a holdout sent; its groups are the recipients the
    pandas campaign would plan and hold out, its partition-wise conversions and lift on the
    seeded shop's orders (pandas, or Dask) equal the pandas function's on those groups, and
    the lift's interval holds the shop's true lift."""
    base = pd.DataFrame({"phone_number": [f"+3361{i * 7919 % 10**7:07d}" for i in range(1500)]})
    base.loc[[3, 700], "phone_number"] = ["hello", base.loc[5, "phone_number"]]
    options = {"text": TEXT, "sender": "Shop", "holdout": 0.3, "seed": 5}
    campaign = DaskCampaign(client, dd.from_pandas(base, npartitions=3), **options)
    result = campaign.send(journal=tmp_path / "j.sqlite", progress=False, chunk_size=250)
    groups = result.groups().compute()
    report = smskit.Campaign(None, base, **options).preflight(offline=True).frame
    assert groups["row"].tolist() == sorted(
        report.index[report["send"] | (report["issue"] == "held_out")].tolist()
    )
    assert (groups["group"] == "holdout").sum() == 449 and len(groups) == 1498
    shop = SeededShop(baseline=0.05, lift=0.1, seed=4)
    orders = shop.orders(groups, sent_at=result.sent_at)
    want = conversions(groups.drop(columns="row"), orders, sent_at=result.sent_at)
    want.insert(0, "row", groups["row"].to_numpy())
    for table in (orders, dd.from_pandas(orders, npartitions=4)):
        same(result.conversions(table).compute(), want)
    got = result.lift(orders)
    assert got.cost == pytest.approx(result.summary()["cost"].iloc[0])
    np.testing.assert_allclose(
        got.table["ci_low"], lift(want, cost=got.cost).table["ci_low"], rtol=1e-7
    )
    assert (
        got.value("conversion_rate", "ci_low")
        <= shop.lift
        <= got.value("conversion_rate", "ci_high")
    )


def test_a_streamed_campaigns_inbox_and_customer_id_conversions_equal_the_pandas_ones(
    dask_cluster: DaskClient, tmp_path: Path
) -> None:
    """Over real HTTP, the same audience sent by a Dask and a pandas campaign (same seed):
    the Dask result's conversions by customer id (Dask or pandas recipients, Dask orders)
    are the pandas result's rows, its inbox= columns those of its outcomes joined whole (and
    the pandas result's inbox= columns alike: missing for the holdout only);
    lift by id equals lift by number; a missing or shared id is refused naming its row, and
    orders' ids no recipient's could match (texts against numbers)."""
    size = 900
    customers = pd.DataFrame(
        {
            "phone_number": [f"+3361{i * 7919 % 10**7:07d}" for i in range(size)],
            "customer_id": [f"C{i * 37 % 1000:04d}" for i in range(size)],
        }
    )
    options = {"text": TEXT, "sender": "Shop", "holdout": 0.3, "seed": 5}
    with (
        Inbox() as inbox,
        Sandbox(seed=3, delivery_model=DeliveryModel.fast(seed=7)) as sb,
        smskit.Client(sandbox=sb) as client,
    ):
        sb.set_callback_url(inbox.url)
        lazy = DaskCampaign(client, dd.from_pandas(customers, npartitions=3), name="dk", **options)
        streamed = lazy.send(journal=tmp_path / "d.sqlite", progress=False, chunk_size=200)
        plain = smskit.Campaign(client, customers, name="pd", **options)
        result = plain.send(journal=tmp_path / "p.sqlite", progress=False, chunk_size=200)
        sb.wait_for_deliveries(timeout=60)

        def orders_for(groups: pd.DataFrame, sent_at: pd.Timestamp) -> pd.DataFrame:
            orders = SeededShop(baseline=0.1, lift=0.1, seed=6).orders(groups, sent_at=sent_at)
            ids = dict(zip(customers["phone_number"], customers["customer_id"], strict=True))
            known = orders["phone_number"].map(ids)  # a stranger: an id of its own
            return orders.assign(customer_id=known.fillna("X" + orders["phone_number"]))

        groups = streamed.groups().compute().reset_index(drop=True)
        assert groups[["row", "group"]].equals(result.groups()[["row", "group"]])
        mine = orders_for(groups, streamed.sent_at)
        theirs = orders_for(result.groups(), result.sent_at)
        want = result.conversions(theirs, customer_id="customer_id", recipients=customers)
        shift = streamed.sent_at - result.sent_at  # the same orders, each from its own send
        want["first_conversion_at"] += shift
        by_id = {"customer_id": "customer_id", "window": "5D"}
        for table in (customers, dd.from_pandas(customers, npartitions=2)):
            got = streamed.conversions(
                dd.from_pandas(mine.drop(columns="phone_number"), npartitions=3),
                recipients=table, **by_id,  # type: ignore[arg-type]
            ).compute()  # fmt: skip
            assert got["customer_id"].astype(object).tolist() == want["customer_id"].tolist()
            same(got.drop(columns="customer_id"), want.drop(columns="customer_id"))
        seen = streamed.conversions(mine, inbox=inbox).compute()
        whole = with_outcomes(
            streamed.conversions(mine).compute(), streamed.outcomes(inbox).compute()
        )
        pd.testing.assert_frame_equal(seen.reset_index(drop=True), whole)
        assert seen["status"].notna().sum() == (groups["group"] == "treated").sum()
        assert seen.loc[seen["group"] == "holdout", "replied"].isna().all()
        plain_seen = result.conversions(theirs, inbox=inbox)  # the pandas one: same columns
        assert list(plain_seen.columns) == list(seen.columns)
        for name in INBOX_COLUMNS:
            assert plain_seen[name].dtype == seen[name].dtype, name
            held = plain_seen["group"] == "holdout"
            assert plain_seen.loc[held, name].isna().all()
            assert plain_seen.loc[~held, name].notna().all()  # the sandbox accepted every one
        ids = streamed.lift(mine, customer_id="customer_id", recipients=customers).table
        pd.testing.assert_frame_equal(ids, streamed.lift(mine).table)

    gap = customers.copy()
    gap.loc[417, "customer_id"] = None
    twice = customers.copy()
    twice.loc[800, "customer_id"] = twice.loc[5, "customer_id"]
    for table, row in ((gap, 417), (dd.from_pandas(twice, npartitions=2), 800)):
        with pytest.raises(ValidationError) as caught:
            streamed.conversions(mine, recipients=table, **by_id).compute()  # type: ignore[arg-type]
        assert caught.value.field == "recipients.customer_id" and caught.value.position == row
    with pytest.raises(ValidationError) as caught:
        streamed.conversions(mine, recipients=customers)
    assert caught.value.field == "recipients"
    code = {cid: n for n, cid in enumerate(customers["customer_id"])}  # ids as numbers
    numbered = customers.assign(customer_id=customers["customer_id"].map(code))
    with pytest.raises(ValidationError) as caught:  # orders' texts: none could match
        streamed.conversions(mine, recipients=numbered, **by_id).compute()  # type: ignore[arg-type]
    assert caught.value.field == "orders.customer_id"
    assert "no order could match" in caught.value.rule
