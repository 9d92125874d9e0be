"""Bad orders through every entry point that reads them (conversions, the result's
conversions and lift, attribution, send times, an experiment's conversions and lift, a Dask
result's conversions and lift with pandas, Arrow or Dask orders): each defect is refused
naming the column, the row and the rule, never dropped; a window that is not a positive
duration (or a text without its unit: "5") is refused, and so is a column the orders repeat."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from distributed import Client as DaskClient
from hypothesis import given, settings
from hypothesis import strategies as st

import smskit
from smskit.campaigns import attribution, send_times
from smskit.campaigns.analysis.attribution import MODELS
from smskit.campaigns.analysis.conversions import conversions
from smskit.campaigns.campaign import Campaign
from smskit.campaigns.experiment import Experiment
from smskit.dask import Campaign as DaskCampaign
from smskit.errors import ValidationError
from smskit.rules.orders import RULE_AMOUNT, RULE_INSTANT, RULE_NAIVE, RULE_UNIT, RULE_WINDOW
from smskit.rules.recipients import RULE_FLOAT
from smskit.sandbox import Sandbox

NUMBERS = [f"+3361{i:07d}" for i in range(4)]
# Each defect: the column it breaks, what it writes at its row (None: the column is dropped),
# and a piece of the rule the refusal must quote.
DEFECTS: dict[str, tuple[str, Any, str]] = {
    "naive_instant": ("ordered_at", "2026-03-02T10:00:00", RULE_NAIVE),
    "date_only_instant": ("ordered_at", "2026-03-02", RULE_NAIVE),  # '-02' is no offset
    "unreadable_instant": ("ordered_at", "2026-02-30T10:00:00Z", RULE_INSTANT),
    "not_an_instant": ("ordered_at", "yesterday Z", RULE_INSTANT),
    "missing_instant": ("ordered_at", np.nan, RULE_INSTANT),
    "negative_amount": ("amount", -0.01, RULE_AMOUNT),
    "missing_amount": ("amount", np.nan, RULE_AMOUNT),
    "unreadable_amount": ("amount", "12,50", RULE_AMOUNT),
    "bool_amount": ("amount", True, RULE_AMOUNT),
    "infinite_amount": ("amount", float("inf"), RULE_AMOUNT),
    "unreadable_number": ("phone_number", "+33 6 call me", "cannot be read as a phone number"),
    "missing_number": ("phone_number", None, "cannot be read as a phone number"),
    "float_number": ("phone_number", 33612345678.0, RULE_FLOAT),
    "float_text_number": ("phone_number", "33612345678.0", RULE_FLOAT),
    "no_instant_column": ("ordered_at", None, "no such column"),
    "no_amount_column": ("amount", None, "no such column"),
    "no_number_column": ("phone_number", None, "no such column"),
}
BAD_WINDOWS = ["0D", "-5D", "soon", 5, 2.5, True, None, pd.NaT, "100000000D", "5"]


def entry_points(
    journal: Path, result: Any, experiment: Any, streamed: Any
) -> dict[str, Callable[..., Any]]:
    """Every public way orders are read, each taking (orders, window): the pandas result's,
    the experiment's, and the Dask result's (given the orders as they are, and as a Dask
    DataFrame of two partitions)."""
    groups = result.groups()
    return {
        "conversions": lambda o, w: conversions(groups, o, sent_at=result.sent_at, window=w),
        "result.conversions": lambda o, w: result.conversions(o, window=w),
        "result.lift": lambda o, w: result.lift(o, window=w),
        "attribution": lambda o, w: attribution(o, window=w, models=MODELS, journals=journal),
        "send_times": lambda o, w: send_times(journal, orders=o, window=w),
        "experiment.conversions": lambda o, w: experiment.conversions(o, window=w),
        "experiment.lift": lambda o, w: experiment.lift(o, window=w),
        "dask.conversions": lambda o, w: streamed.conversions(o, window=w).compute(),
        "dask.lift": lambda o, w: streamed.lift(o, window=w),
        "dask.conversions(dask orders)": lambda o, w: streamed.conversions(
            partitioned(o), window=w
        ).compute(),
        "dask.lift(dask orders)": lambda o, w: streamed.lift(partitioned(o), window=w),
    }


def partitioned(orders: Any) -> Any:
    """``orders`` as a Dask DataFrame of two partitions, its cells as given (no string
    conversion by Dask: a defect stays the value written)."""
    frame = orders.to_pandas() if isinstance(orders, pa.Table) else orders
    with dask.config.set({"dataframe.convert-string": False}):
        return dd.from_pandas(frame, npartitions=2, sort=False)


def sent_entry_points(
    sandbox: Sandbox, tmp_path: Path
) -> tuple[dict[str, Callable[..., Any]], pd.Timestamp]:
    """A campaign, an experiment and a Dask campaign sent to NUMBERS, their
    :func:`entry_points`, and the first send's instant (every order after it follows each
    one's send)."""
    text = "Promo STOP au 36173"
    with smskit.Client(sandbox=sandbox) as client:
        result = Campaign(client, NUMBERS, text=text, sender="Shop",
                          name="bad-orders").send(journal=tmp_path / "b.journal.sqlite",
                                                  progress=False)  # fmt: skip
        arms = {"A": text, "B": text + " !"}
        experiment = Experiment(
            client, NUMBERS, variants=arms, sender="Shop", name="bad-orders-ab", seed=2,
            directory=tmp_path / "ab", holdout=0.25,
        ).send(progress=False)  # fmt: skip
        audience = dd.from_pandas(pd.DataFrame({"phone_number": NUMBERS}), npartitions=2)
        streamed = DaskCampaign(
            client, audience, text=text, sender="Shop", name="bad-orders-dask", holdout=1,
            seed=3,
        ).send(journal=tmp_path / "d.sqlite", progress=False)  # fmt: skip
    journal = tmp_path / "b.journal.sqlite"
    return entry_points(journal, result, experiment, streamed), result.sent_at


def assert_each_refuses(points: dict[str, Any], orders: Any, defect: str, row: int | None) -> None:
    """Every entry point refuses ``orders`` (a table or a file's path) holding ``defect``
    naming the column as ``orders.<column>``, the row (None: a column missing) and the rule."""
    column, _bad, rule = DEFECTS[defect]
    for name, call in points.items():
        if name == "send_times" and column == "amount":
            continue  # send times counts orders: it reads no amount
        with pytest.raises(ValidationError) as caught:
            call(orders, "5D")
        refusal = caught.value
        assert refusal.field == f"orders.{column}", (name, defect)
        assert refusal.position == row, (name, defect)
        assert rule in refusal.rule, (name, defect)


def test_every_entry_point_refuses_bad_orders_naming_field_row_and_rule(
    sandbox: Sandbox, dask_cluster: DaskClient, tmp_path: Path
) -> None:
    """Any one defect at any row, in pandas or Arrow (or a Dask frame of either), through
    every entry point (a campaign's, an experiment's, a Dask campaign's): a ValidationError
    naming orders.<column>, the row of the whole table (none for a missing column) and the
    rule; send times, which reads no amounts, refuses every other defect the same way; a
    column the orders repeat is refused naming it by each entry point, and a Dask frame by
    each that reads a table, saying to compute it."""
    points, start = sent_entry_points(sandbox, tmp_path)

    @settings(deadline=None, max_examples=30)
    @given(
        st.integers(1, 6).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n - 1))),
        st.sampled_from(sorted(DEFECTS)),
        st.booleans(),
    )
    def check(size_row: tuple[int, int], defect: str, arrow: bool) -> None:
        size, row = size_row
        orders = pd.DataFrame(
            {
                "phone_number": [NUMBERS[i % len(NUMBERS)] for i in range(size)],
                "ordered_at": [
                    (start + pd.Timedelta(hours=i + 1)).isoformat() for i in range(size)
                ],
                "amount": [10.0 + i for i in range(size)],
            },
            dtype=object,
        )
        column, bad, _rule = DEFECTS[defect]
        dropped = defect.startswith("no_")
        if dropped:
            orders = orders.drop(columns=column)
        else:
            orders.loc[row, column] = bad
        table: Any = orders
        if arrow:
            try:
                table = pa.Table.from_pandas(orders, preserve_index=False)
            except (pa.ArrowInvalid, pa.ArrowTypeError):
                table = orders  # a mixed column Arrow cannot hold: pandas only
            arrow_bool = isinstance(bad, bool) and isinstance(table, pa.Table)
            if arrow_bool and not isinstance(table.column(column)[row].as_py(), bool):
                table = orders  # Arrow made the bool a number itself: pandas only
        assert_each_refuses(points, table, defect, None if dropped else row)

    with dask.config.set(scheduler="synchronous"):  # the Dask ones in this process: quicker
        check()

    good = pd.DataFrame({"phone_number": NUMBERS[:1], "amount": [1.0],
                         "ordered_at": [start + pd.Timedelta("1h")]})  # fmt: skip
    for window in BAD_WINDOWS:
        rule = RULE_UNIT if window == "5" else RULE_WINDOW  # "5": 5 ns to pandas, not 5 days
        for name, call in points.items():
            with pytest.raises(ValidationError) as caught:
                call(good, window)
            assert (caught.value.field, caught.value.rule) == ("window", rule), name
    twice = pd.concat([good, good[["ordered_at"]]], axis=1)  # a column the table repeats
    for name, call in points.items():
        with pytest.raises(ValidationError) as caught:
            call(twice, "5D")
        assert caught.value.field == "orders.ordered_at", name
        assert "more than once" in caught.value.rule, name
    for name, call in points.items():  # a Dask frame where a table is read: .compute() it
        if not name.startswith("dask"):
            with pytest.raises(ValidationError) as caught:
                call(partitioned(good), "5D")
            assert ".compute() it first" in caught.value.rule, name


def answer(found: Any) -> pd.DataFrame:
    """An entry point's answer as a frame: a conversions frame, or a lift's table."""
    return found if isinstance(found, pd.DataFrame) else found.table


def test_every_entry_point_reads_orders_from_a_csv_or_parquet_path(
    sandbox: Sandbox, dask_cluster: DaskClient, tmp_path: Path
) -> None:
    """Orders given as a CSV file's Path or str, or a Parquet file's, were refused ("read
    the file first"); through every entry point that takes a table (a Dask result's too,
    its workers reading the file) they give the answer the same texts give as a table; one
    defect written in the CSV at any row is refused naming the column, the row and the rule
    as the table's is; a spreadsheet's path is refused naming the file."""
    everywhere, start = sent_entry_points(sandbox, tmp_path)
    points = {name: call for name, call in everywhere.items() if "dask orders" not in name}
    hours = [pd.Timedelta(hours=h) for h in (1, 30, 200)]  # the last one after the window
    texts = pd.DataFrame({
        "phone_number": [NUMBERS[0], "0" + NUMBERS[1][3:], NUMBERS[0]],
        "ordered_at": [(start + h).tz_convert("Europe/Paris").isoformat() for h in hours],
        "amount": ["10.50", "3", "0.1"],
    }, dtype="string")  # fmt: skip
    csv_path, parquet = tmp_path / "orders.csv", tmp_path / "orders.parquet"
    texts.to_csv(csv_path, index=False)
    pq.write_table(pa.Table.from_pandas(texts, preserve_index=False), parquet)
    for name, call in points.items():
        expected = answer(call(texts, "5D"))
        for given_as in (csv_path, str(csv_path), parquet):
            pd.testing.assert_frame_equal(answer(call(given_as, "5D")), expected, obj=name)
        with pytest.raises(ValidationError) as caught:
            call(tmp_path / "orders.xlsx", "5D")
        assert caught.value.field == "orders" and "orders.xlsx" in caught.value.rule, name

    @settings(deadline=None, max_examples=15)
    @given(
        st.integers(1, 6).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n - 1))),
        st.sampled_from(sorted(DEFECTS)),
    )
    def check(size_row: tuple[int, int], defect: str) -> None:
        size, row = size_row
        orders = pd.DataFrame({
            "phone_number": [NUMBERS[i % len(NUMBERS)] for i in range(size)],
            "ordered_at": [(start + pd.Timedelta(hours=i + 1)).isoformat() for i in range(size)],
            "amount": [f"{10 + i}.00" for i in range(size)],
        }, dtype=object)  # fmt: skip
        column, bad, _rule = DEFECTS[defect]
        dropped = defect.startswith("no_")
        if dropped:
            orders = orders.drop(columns=column)
        else:  # as a file holds it: a text, an empty cell where nothing is
            orders.loc[row, column] = "" if bad is None or bad != bad else str(bad)
        path = tmp_path / f"{defect}.csv"
        orders.to_csv(path, index=False)
        assert_each_refuses(points, path, defect, None if dropped else row)

    with dask.config.set(scheduler="synchronous"):  # the Dask ones in this process: quicker
        check()
