"""Conversions and lift of a partitioned audience: the pandas join on each partition.

A streamed campaign's recipients stay partitioned (tens of millions: never one pandas frame).
The orders (a pandas, pyarrow or polars table, a CSV or Parquet file's path, or a Dask
DataFrame read partition by partition) are read by the rule book's order readers, as the
pandas path reads them (every instant and amount checked, a refusal naming the row in the
whole table), kept to the
campaign's window ``[sent, sent + window)`` (every recipient of a streamed campaign shares
one send instant) and only then their numbers read; what is left is three arrays (E.164
digits, instant, amount), summed once per number
(:class:`Buyers`: each number's count of orders, revenue and first instant), built once on
the cluster and shared by every recipient partition. Each partition looks its recipients'
E.164 digits up in a hash table of the buyers' (built once, with them). :func:`group_totals`
merges each partition's :class:`~smskit.campaigns.analysis.lift.GroupTotals` (sizes,
conversions, counts of each revenue amount) for the pandas lift's statistics.

May import campaigns, rules and errors (the ``[dask]`` part).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Unpack

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from dask.delayed import Delayed, delayed

from smskit.campaigns.analysis.conversions import (
    GROUPS,
    OrderColumns,
    OrderReading,
    customer_ids,
    order_ids,
    refuse_repeats,
    refuse_unmatchable,
    send_instants,
)
from smskit.campaigns.analysis.lift import GroupTotals, frame_totals
from smskit.dask.stream import frame_of
from smskit.errors import ValidationError
from smskit.rules.files import table_path
from smskit.rules.orders import order_frame, order_numbers, read_orders, window_of
from smskit.rules.recipients import REGION_COLUMN

__all__ = ["Buyers", "OrderRuns", "conversions", "group_totals"]


@dataclass(frozen=True)
class OrderRuns:
    """The orders inside the window, in the table's order: ``keys`` (E.164 digits), ``at``
    (UTC nanoseconds), ``amounts`` (None: counted without amounts); ``ids``: their customer
    ids when matched by id (then ``keys`` are unused)."""

    keys: np.ndarray
    at: np.ndarray
    amounts: np.ndarray | None
    ids: pd.Index | None = None

    @staticmethod
    def joined(parts: list[OrderRuns]) -> OrderRuns:
        """Several partitions' orders as one set, in the partitions' order."""
        keys = np.concatenate([p.keys for p in parts]) if parts else np.zeros(0, "int64")
        at = np.concatenate([p.at for p in parts]) if parts else np.zeros(0, "int64")
        amounts = None
        if parts and all(p.amounts is not None for p in parts):
            amounts = np.concatenate([p.amounts for p in parts if p.amounts is not None])
        ids = [p.ids for p in parts if p.ids is not None]
        return OrderRuns(keys, at, amounts, ids[0].append(ids[1:]) if ids else None)


@dataclass(frozen=True)
class Buyers:
    """The numbers among the orders inside the window, each once, ascending: ``keys`` (E.164
    digits; matched by customer id, the ids, in order of first appearance), ``counts``
    (orders), ``first`` (the first order's UTC nanoseconds), ``revenue`` (the orders'
    amounts summed; None: counted without amounts)."""

    keys: np.ndarray | pd.Index
    counts: np.ndarray
    first: np.ndarray
    revenue: np.ndarray | None

    @cached_property
    def _index(self) -> pd.Index:
        index = pd.Index(self.keys)
        index.get_indexer(self.keys[:1])  # its hash table built once, here
        return index

    def find(self, keys: Any) -> np.ndarray:
        """The position of each of ``keys`` (distinct E.164 digits, or customer ids) among the
        buyers', -1 where it bought nothing: one look-up each in a hash table of theirs."""
        return np.asarray(self._index.get_indexer(pd.Index(keys, copy=False)), dtype="int64")

    @staticmethod
    def of(parts: list[OrderRuns]) -> Buyers:
        """Each number's orders among ``parts`` counted and summed once: one stable sort by
        number (a number's orders stay in the table's order, their amounts summed in it),
        then each run of equal numbers reduced. Matched by customer id, the ids are coded
        first (an id's code is its place among them), and the codes summed."""
        runs = OrderRuns.joined(parts)
        names = None
        if runs.ids is not None:
            codes, names = pd.factorize(runs.ids)
            runs = OrderRuns(np.asarray(codes, dtype="int64"), runs.at, runs.amounts)
        if not len(runs.keys):
            none = np.zeros(0, dtype="int64")
            return Buyers(none, none, none, None if runs.amounts is None else np.zeros(0))
        order = np.argsort(runs.keys, kind="stable")
        keys = runs.keys[order]
        starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        counts = np.diff(starts, append=len(keys)).astype("int64")
        first = np.minimum.reduceat(runs.at[order], starts)
        amounts = runs.amounts
        revenue = None if amounts is None else np.add.reduceat(amounts[order], starts)
        buyers = Buyers(keys[starts] if names is None else pd.Index(names), counts, first, revenue)
        buyers.find(buyers.keys[:1])  # the table built on the task that sums, not per partition
        return buyers


@contextmanager
def _rows_of_table(offset: int) -> Iterator[None]:
    """A refusal inside names the row in the whole table (``offset``: the partition's
    first row)."""
    try:
        yield
    except ValidationError as exc:
        if not isinstance(exc.position, int) or not offset:
            raise
        raise exc.at(exc.position + offset) from None


def _read_orders(
    orders: Any,
    offset: int,
    bounds: tuple[int, int],
    read: OrderColumns,
    on: str | None,
) -> OrderRuns:
    """One table (or partition) of orders read by the rule book: those inside ``bounds``
    (UTC nanoseconds, ``[start, stop)``) with their numbers' digits, or their customer ids
    (column ``on``; refused when missing), in the table's order (:meth:`Buyers.of` sorts).
    A refusal names the row in the whole table (``offset``: this partition's first row)."""
    with _rows_of_table(offset):
        wanted = [on] if on is not None else [read.number, REGION_COLUMN]
        frame, instants, amounts = read_orders(orders, wanted, read.at, read.value)
        rows = np.flatnonzero((instants >= bounds[0]) & (instants < bounds[1]))
        if on is None:
            keys, ids = order_numbers(frame, read.number, rows, read.default_region), None
        else:
            ids = pd.Index(order_ids(frame, on, rows).array)
            keys = np.zeros(len(rows), dtype="int64")
    return OrderRuns(keys, instants[rows], None if amounts is None else amounts[rows], ids)


def _buyers(orders: Any, bounds: tuple[int, int], read: OrderColumns, on: str | None) -> Delayed:
    """The buyers among the orders inside ``bounds`` as one delayed :class:`Buyers` (by
    customer id, column ``on``, when given): a Dask DataFrame's partitions each read where
    it lives (its first row in the whole table counted in the same graph; only the columns
    read are asked of its files), another table read once."""
    if not isinstance(orders, dd.DataFrame):
        return delayed(Buyers.of)([delayed(_read_orders)(orders, 0, bounds, read, on)])
    keys = [on] if on is not None else [read.number, REGION_COLUMN]
    wanted = [*keys, read.at, *([read.value] if read.value else [])]
    kept = [name for name in dict.fromkeys(wanted) if name in orders.columns]
    parts = (orders[kept] if kept else orders).to_delayed()
    sizes = [delayed(len)(part) for part in parts]
    reads = [
        delayed(_read_orders)(part, delayed(sum)(sizes[:index]) if index else 0, bounds, read, on)
        for index, part in enumerate(parts)
    ]
    return delayed(Buyers.of)(reads)


def _partition(
    part: pd.DataFrame,
    buyers: Buyers,
    default_region: str | None,
    money: bool,
    dtypes: dict[str, Any] | None = None,
    keys: Any = None,
) -> pd.DataFrame:
    """One recipient partition's conversions (``CampaignResult.conversions()``' columns);
    ``keys`` given: its recipients' customer ids (their repeats refused across partitions),
    not read from their numbers."""
    if keys is None:
        keys = _number_keys(part, default_region)
    found = buyers.find(keys)
    mine = np.flatnonzero(found >= 0)
    theirs = found[mine]
    counts = np.zeros(len(part), dtype="int64")
    counts[mine] = buyers.counts[theirs]
    # int64's smallest value is NaT: the nanoseconds viewed as instants, no parsing.
    first = np.full(len(part), np.iinfo("int64").min, dtype="int64")
    first[mine] = buyers.first[theirs]
    columns: dict[str, Any] = {
        "row": part["row"].to_numpy(dtype="int64"),
        "phone_number": part["phone_number"].array,  # as they are: cast below, if at all
        "group": _coded(part["group"], dtypes["group"]) if dtypes else part["group"].array,
        "converted": counts > 0,
        "conversions": counts,
    }
    if money:
        assert buyers.revenue is not None
        revenue = np.zeros(len(part), dtype="float64")
        revenue[mine] = buyers.revenue[theirs]
        columns["revenue"] = revenue
    columns["first_conversion_at"] = pd.DatetimeIndex(first.view("datetime64[ns]")).tz_localize(
        "UTC"
    )
    frame = pd.DataFrame(columns, index=part.index)
    # The dtypes the client's pandas gives (a worker's may infer strings otherwise).
    return frame if dtypes is None else frame.astype(dtypes)


def _number_keys(part: pd.DataFrame, default_region: str | None) -> np.ndarray:
    """A recipient partition's E.164 digits, a number two of its recipients share refused."""
    keys = order_numbers(part, "phone_number", np.arange(len(part)), default_region, "recipients")
    ordered = np.sort(keys)
    if (ordered[1:] == ordered[:-1]).any():
        at = int(np.flatnonzero(pd.Series(keys).duplicated().to_numpy())[0])
        raise ValidationError(
            "recipients.phone_number",
            "appears twice among the recipients: an order could not say whose it is",
            position=int(part["row"].iloc[at]),
            value=part["phone_number"].iloc[at],
        )
    return keys


def _coded(groups: pd.Series, dtype: Any) -> Any:
    """``groups`` as the categorical ``dtype`` (a group not among its categories missing, as
    ``astype`` makes it): texts coded by Arrow's ``index_in``, far quicker than pandas' cast."""
    if not isinstance(groups.dtype, pd.StringDtype):
        return groups.astype(dtype).array
    texts = pa.array(groups.array, from_pandas=True)
    categories = pa.array([str(c) for c in dtype.categories], type=texts.type)
    codes = pc.fill_null(pc.index_in(texts, value_set=categories), -1)
    return pd.Categorical.from_codes(np.asarray(codes, dtype="int64"), dtype=dtype)


def _meta(money: bool) -> pd.DataFrame:
    """The columns and dtypes of a partition's conversions: an empty partition's, which are
    those the pandas function gives."""
    empty = pd.DataFrame(
        {
            "row": pd.Series(dtype="int64"),
            "phone_number": pd.Series(dtype="string"),
            "group": pd.Categorical([], categories=list(GROUPS)),
        }
    )
    none = np.zeros(0, dtype="int64")
    return _partition(empty, Buyers(none, none, none, np.zeros(0) if money else None), None, money)


def conversions(
    recipients: dd.DataFrame,
    orders: Any,
    *,
    sent_at: Any,
    customer_id: str | None = None,
    table: Any = None,
    **reading: Unpack[OrderReading],
) -> dd.DataFrame:
    """Per recipient of ``recipients`` (``row``, ``phone_number`` in E.164 or read in
    ``default_region``, ``group``), lazily, partition by partition: the pandas
    :func:`smskit.campaigns.analysis.conversions.conversions` with every recipient sent at
    ``sent_at`` (an aware instant). ``orders``: a pandas, pyarrow, polars or Dask table, or
    a CSV or Parquet file's path (checked here, read by the task that reads the orders: a
    worker of a cluster on another machine needs the file at that path).
    ``customer_id``: match the orders' column of that name with the same column of
    ``table`` (the recipients' input table, pandas, pyarrow, polars or Dask; each
    recipient's id at its ``row``) instead of numbers. ``reading`` as the pandas function
    reads the orders (:class:`~smskit.campaigns.analysis.conversions.OrderColumns`)."""
    read = OrderColumns(**reading)
    span = window_of(read.window).value
    if not isinstance(orders, dd.DataFrame):  # a file that cannot be read: refused now
        orders = table_path(orders, "orders") or orders
    start = int(send_instants(pd.DataFrame(index=range(1)), sent_at)[0])
    bounds = (start, start + span)
    if customer_id is not None:
        return _by_customer_id(recipients, orders, bounds, read, customer_id, table)
    buyers = _buyers(orders, bounds, read, None)
    # One task of the graph: each compute reads the orders once, for every partition.
    money = read.value is not None
    meta = _meta(money)
    dtypes = meta.dtypes.to_dict()
    parts = [
        delayed(_partition)(part, buyers, read.default_region, money, dtypes)
        for part in recipients.to_delayed()
    ]
    return frame_of(parts, meta)


def _id_table(table: Any, column: str) -> tuple[Any, np.dtype[Any]]:
    """The recipients' input ``table`` reduced to ``column`` (a delayed pandas frame for a
    Dask one, its partitions in order), and the ids' dtype; refused as the pandas result
    refuses it (no table, no such column)."""
    if isinstance(table, dd.DataFrame):
        empty = customer_ids(table._meta, column, pd.Series([], dtype="int64"))
        parts = table[[column]].to_delayed()
        return delayed(pd.concat)(parts, ignore_index=True), empty.dtype
    frame = order_frame(table, [column], "recipients") if table is not None else None
    empty = customer_ids(frame, column, pd.Series([], dtype="int64"))
    assert frame is not None
    return delayed(frame), empty.dtype


def _ids_of(part: pd.DataFrame, table: pd.DataFrame, column: str) -> pd.Series:
    """A recipient partition's customer ids, indexed by row (refused as pandas refuses)."""
    rows = part["row"].astype("int64")
    return pd.Series(customer_ids(table, column, rows), index=rows.to_numpy())


def _distinct(ids: list[pd.Series], where: str) -> None:
    """Refuse an id two recipients share, in any partitions (naming the later row)."""
    every = pd.concat(ids) if ids else pd.Series([], dtype=object)
    refuse_repeats(every.sort_index(kind="stable"), where)


def _id_partition(
    part: pd.DataFrame,
    ids: pd.Series,
    _checked: None,
    found: Buyers,
    column: str,
    money: bool,
    dtypes: dict[str, Any],
) -> pd.DataFrame:
    """One recipient partition's conversions by customer id, the id after ``group``."""
    refuse_unmatchable(ids, found.keys, column)
    theirs = {name: dtype for name, dtype in dtypes.items() if name != column}
    frame = _partition(part, found, None, money, theirs, keys=ids.array)
    frame.insert(3, column, ids.to_numpy())
    return frame.astype({column: dtypes[column]})


def _by_customer_id(
    recipients: dd.DataFrame,
    orders: Any,
    bounds: tuple[int, int],
    read: OrderColumns,
    column: str,
    table: Any,
) -> dd.DataFrame:
    """:func:`conversions` matched by ``column`` of the orders and of ``table``: the ids of
    every recipient gathered by one task to refuse a repeat (only the ids)."""
    money = read.value is not None
    frame, dtype = _id_table(table, column)
    meta = _meta(money)
    meta.insert(3, column, pd.Series(np.zeros(0, dtype=dtype)))
    dtypes = meta.dtypes.to_dict()
    found = _buyers(orders, bounds, read, column)
    parts = recipients.to_delayed()
    ids = [delayed(_ids_of)(part, frame, column) for part in parts]
    checked = delayed(_distinct)(ids, f"recipients.{column}")
    done = [
        delayed(_id_partition)(part, mine, checked, found, column, money, dtypes)
        for part, mine in zip(parts, ids, strict=True)
    ]
    return frame_of(done, meta)


def _totals(part: pd.DataFrame) -> tuple[GroupTotals, ...]:
    return tuple(t.counted() for t in frame_totals(part, None, "holdout"))


def group_totals(frame: dd.DataFrame) -> tuple[GroupTotals, GroupTotals]:
    """The pandas :func:`~smskit.campaigns.analysis.lift.frame_totals` of a partitioned
    conversions frame (the groups sent against ``holdout``, as ``lift()`` by default): each
    partition's group totals, merged on the client (a few numbers and the counts of each
    revenue amount per partition), for the pandas lift's statistics
    (:func:`~smskit.campaigns.analysis.lift.lift_of`)."""
    parts = [delayed(_totals)(part) for part in frame.to_delayed()]
    (found,) = dask.compute(parts)
    return GroupTotals.merged([t for t, _ in found]), GroupTotals.merged([h for _, h in found])
