"""A result's conversions matched by a customer id instead of numbers: the same rows as the
number match when both say the same, and a missing id (recipients' or an order's), a table
without the column, or no recipients table are refused naming the field and the row."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

import smskit
from smskit.campaigns.analysis.results import CampaignResult
from smskit.client.clients import Backoff
from smskit.errors import ValidationError
from smskit.sandbox import Sandbox
from smskit.sandbox.shop import SeededShop

TEXT = "Promo -20% ce week-end. STOP au 36173"
COUNT = 400


@pytest.fixture
def sent(fresh_sandbox: Sandbox, tmp_path: Path) -> Iterator[tuple[CampaignResult, pd.DataFrame]]:
    """A campaign of 400 customers (a quarter held out), sent, with its recipients table."""
    customers = pd.DataFrame(
        {
            "phone_number": [f"+3361{i:07d}" for i in range(COUNT)],
            "customer_id": [f"C{i * 37 % 1000:04d}" for i in range(COUNT)],
        }
    )
    with smskit.Client(sandbox=fresh_sandbox, backoff=Backoff(base=0.0, cap=0.0)) as client:
        campaign = smskit.Campaign(
            client, customers, text=TEXT, sender="Shop", holdout=0.25, seed=8
        )
        yield campaign.send(progress=False, journal=tmp_path / "j.sqlite"), customers


def orders_of(result: CampaignResult, customers: pd.DataFrame) -> pd.DataFrame:
    """The seeded shop's orders for the campaign's recipients, with their customer id."""
    shop = SeededShop(baseline=0.1, lift=0.1, seed=3)
    orders = shop.orders(result.groups(), sent_at=result.sent_at)
    ids = dict(zip(customers["phone_number"], customers["customer_id"], strict=True))
    known = orders["phone_number"].map(ids)  # a stranger's order: an id of its own
    return orders.assign(customer_id=known.fillna("X" + orders["phone_number"].astype(str)))


def test_customer_id_match_equals_the_number_match(
    sent: tuple[CampaignResult, pd.DataFrame],
) -> None:
    """Orders carrying both keys convert the same recipients the same way by either key."""
    result, customers = sent
    orders = orders_of(result, customers)
    by_number = result.conversions(orders)
    by_id = result.conversions(
        orders.drop(columns=["phone_number"]), customer_id="customer_id", recipients=customers
    )
    shared = ["row", "phone_number", "group", "converted", "conversions", "revenue"]
    pd.testing.assert_frame_equal(by_id[shared], by_number[shared])
    assert by_id["converted"].sum() > 0 and (by_id["group"] == "holdout").sum() == 100
    assert by_id["customer_id"].tolist() == customers["customer_id"].iloc[by_id["row"]].tolist()
    lift = result.lift(orders, customer_id="customer_id", recipients=customers)
    assert lift.treated == 300 and lift.holdout == 100


def test_missing_or_absent_customer_ids_are_refused(
    sent: tuple[CampaignResult, pd.DataFrame],
) -> None:
    """A missing id (recipient or order), no such column, or no recipients table: refused."""
    result, customers = sent
    orders = orders_of(result, customers)
    gap = customers.copy()
    gap.loc[7, "customer_id"] = None
    cases = [
        ({"customer_id": "customer_id", "recipients": gap}, "recipients.customer_id", 7),
        ({"customer_id": "customer_id"}, "recipients", None),
        ({"customer_id": "client", "recipients": customers}, "recipients.client", None),
        ({"recipients": customers}, "recipients", None),
        ({"customer_id": "customer_id", "recipients": customers.iloc[:3]}, "recipients", None),
    ]
    for options, field, row in cases:
        with pytest.raises(ValidationError) as caught:
            result.conversions(orders, **options)  # type: ignore[arg-type]
        assert caught.value.field == field
        if row is not None:
            assert caught.value.position == row
    with pytest.raises(ValidationError) as caught:  # not the table the campaign was made from
        result.lift(orders, customer_id="customer_id", recipients=customers.iloc[:3])
    assert caught.value.rule == (
        f"has 3 rows but the campaign planned row {COUNT - 1}: not its recipients"
    )
    unknown = orders.copy()
    start = result.sent_at
    inside = (unknown["ordered_at"] >= start) & (unknown["ordered_at"] < start + pd.Timedelta("5D"))
    at = unknown.index[inside.to_numpy()][0]  # an order in the window: it is read
    unknown.loc[at, "customer_id"] = None
    with pytest.raises(ValidationError) as caught:
        result.conversions(unknown, customer_id="customer_id", recipients=customers)
    assert caught.value.field == "orders.customer_id" and caught.value.position == at
    assert "missing" in str(caught.value)


def test_ids_no_order_could_match_are_refused_not_matched_to_nobody(
    sent: tuple[CampaignResult, pd.DataFrame],
) -> None:
    """Recipients' ids as numbers and orders' as their texts (or the reverse): refused
    naming orders.customer_id and the first order's row, by conversions and lift (every
    order matched no one: a silent zero); the same numbers on both sides match."""
    result, customers = sent
    orders = orders_of(result, customers)
    code = {cid: n for n, cid in enumerate(customers["customer_id"])}
    as_numbers = customers.assign(customer_id=customers["customer_id"].map(code))
    numbered = orders.assign(customer_id=orders["customer_id"].map(code).fillna(-1))
    texts = numbered.assign(customer_id=numbered["customer_id"].astype(int).astype(str))
    both = {"customer_id": "customer_id"}
    for theirs, recipients in ((texts, as_numbers), (numbered, customers)):
        for call in (result.conversions, result.lift):
            with pytest.raises(ValidationError) as caught:
                call(theirs, recipients=recipients, **both)  # type: ignore[operator]
            assert caught.value.field == "orders.customer_id", call
            assert "no order could match" in caught.value.rule
    by_number = result.conversions(numbered, recipients=as_numbers, **both)
    by_text = result.conversions(orders, recipients=customers, **both)
    assert by_number["revenue"].tolist() == by_text["revenue"].tolist()
    assert by_number["converted"].sum() > 0


def test_an_experiments_customer_id_match_equals_its_number_match(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Per arm, an experiment's conversions and lift by customer id equal those by number;
    a missing id, or one two arms' recipients share, is refused naming the experiment's
    input row, a short table refused."""
    customers = pd.DataFrame(
        {
            "phone_number": [f"+3362{i:07d}" for i in range(COUNT)],
            "customer_id": [f"K{i * 53 % 1000:04d}" for i in range(COUNT)],
        }
    )
    with smskit.Client(sandbox=fresh_sandbox, backoff=Backoff(base=0.0, cap=0.0)) as client:
        experiment = smskit.Experiment(
            client, customers, variants={"A": TEXT, "B": TEXT + " !"}, sender="Shop",
            name="ids", seed=4, directory=tmp_path, holdout=0.2,
        )  # fmt: skip
        result = experiment.send(progress=False)
    frames = []
    for seed, arm in enumerate(result.arms.values()):
        shop = SeededShop(baseline=0.1, lift=0.1, seed=20 + seed)
        frames.append(shop.orders(arm.groups(), sent_at=arm.sent_at))
    ids = dict(zip(customers["phone_number"], customers["customer_id"], strict=True))
    orders = pd.concat(frames, ignore_index=True)
    known = orders["phone_number"].map(ids)
    orders["customer_id"] = known.fillna("X" + orders["phone_number"].astype(str))
    by_number = result.conversions(orders)
    by_id = result.conversions(
        orders.drop(columns=["phone_number"]), customer_id="customer_id", recipients=customers
    )
    shared = ["row", "phone_number", "group", "arm", "converted", "conversions", "revenue"]
    pd.testing.assert_frame_equal(by_id[shared], by_number[shared])
    assert by_id["converted"].sum() > 0 and (by_id["group"] == "holdout").sum() == 80
    assert by_id["customer_id"].tolist() == customers["customer_id"].iloc[by_id["row"]].tolist()
    for arm in (None, "B"):
        want = result.lift(orders, arm=arm).table
        got = result.lift(orders, arm=arm, customer_id="customer_id", recipients=customers).table
        pd.testing.assert_frame_equal(got, want)
    gap = customers.copy()
    gap.loc[333, "customer_id"] = None
    with pytest.raises(ValidationError) as caught:
        result.conversions(orders, customer_id="customer_id", recipients=gap)
    assert caught.value.field == "recipients.customer_id" and caught.value.position == 333
    with pytest.raises(ValidationError) as caught:
        result.lift(orders, customer_id="customer_id", recipients=customers.iloc[:100])
    assert caught.value.field == "recipients"
    with pytest.raises(ValidationError) as caught:  # the column customer_id= names is absent
        result.lift(orders, customer_id="customer_id", recipients=customers[["phone_number"]])
    assert str(caught.value) == "recipients.customer_id: no such column (customer_id= names it)"
    dealt = experiment.assignment()["arm"].astype(str)
    other = int((dealt != dealt.iloc[0]).idxmax())  # dealt to another arm than row 0
    twice = customers.copy()
    twice.loc[other, "customer_id"] = twice.loc[0, "customer_id"]
    with pytest.raises(ValidationError) as caught:  # across arms: an order could be either's
        result.conversions(orders, customer_id="customer_id", recipients=twice)
    assert caught.value.field == "recipients.customer_id" and caught.value.position == other
    assert "twice" in caught.value.rule


def test_recipients_may_be_the_table_s_csv_or_parquet_file(
    sent: tuple[CampaignResult, pd.DataFrame], tmp_path: Path
) -> None:
    """recipients= given as the file the table was saved to (a CSV or Parquet file's Path,
    or its str, read by the rule book's reader of files, as orders are) matches the same
    ids as the table: its rows are the campaign's rows. A spreadsheet's path is refused
    naming the file, and a CSV repeating customer_id, naming both columns."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    result, customers = sent
    orders = orders_of(result, customers).drop(columns=["phone_number"])
    expected = result.conversions(orders, customer_id="customer_id", recipients=customers)
    as_csv, as_parquet = tmp_path / "customers.csv", tmp_path / "customers.parquet"
    customers.to_csv(as_csv, index=False)
    pq.write_table(pa.Table.from_pandas(customers, preserve_index=False), as_parquet)
    for given_as in (as_csv, str(as_csv), as_parquet, str(as_parquet)):
        got = result.conversions(orders, customer_id="customer_id", recipients=given_as)
        pd.testing.assert_frame_equal(got, expected, check_dtype=False, obj=str(given_as))
    lift = result.lift(orders, customer_id="customer_id", recipients=as_parquet)
    assert lift.treated == 300 and lift.holdout == 100
    with pytest.raises(ValidationError) as caught:
        result.conversions(orders, customer_id="customer_id", recipients=tmp_path / "c.xlsx")
    assert caught.value.field == "recipients" and "c.xlsx" in caught.value.rule
    twice = tmp_path / "twice.csv"
    twice.write_text("customer_id,phone_number,customer_id\nC1,+33612345678,C2\n")
    with pytest.raises(ValidationError) as caught:
        result.conversions(orders, customer_id="customer_id", recipients=twice)
    assert caught.value.field == "recipients.customer_id"
    assert "columns 1 and 3 of the header" in caught.value.rule


def test_conversions_on_a_column_the_recipients_lack_is_refused() -> None:
    """conversions(recipients, orders, on="customer_id") when only the orders carry the
    column: refused naming recipients.customer_id (matching nothing would be a silent zero)."""
    from smskit.campaigns.analysis.conversions import conversions

    recipients = pd.DataFrame({"phone_number": ["+33612345678"], "group": ["treated"]})
    orders = pd.DataFrame(
        {
            "customer_id": ["C1"],
            "ordered_at": [pd.Timestamp("2026-03-02T10:00Z")],
            "amount": [12.5],
        }
    )
    sent_at = pd.Timestamp("2026-03-01T10:00Z")
    with pytest.raises(ValidationError) as caught:
        conversions(recipients, orders, sent_at=sent_at, on="customer_id")
    assert str(caught.value) == (
        "recipients.customer_id: no such column (on= names a column both have)"
    )
    with_ids = recipients.assign(customer_id=["C1"])
    found = conversions(with_ids, orders, sent_at=sent_at, on="customer_id")
    assert found["conversions"].tolist() == [1] and found["revenue"].tolist() == [12.5]
