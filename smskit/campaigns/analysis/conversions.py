"""Conversions: the analyst's orders joined to a campaign's recipients, sent or held out.

One row per recipient: ``group`` (``treated``, ``holdout`` or an experiment's arm),
``converted``, ``conversions`` (orders in the window), ``revenue`` (their amounts; 0, never
missing, for a recipient without one) and ``first_conversion_at``. An order counts for a
recipient when its number (or its ``on`` key) is the recipient's and its instant falls in
``[sent, sent + window)``, ``sent`` being the send instant for treated and held-out
recipients alike (the holdout's would-be send): both groups run on the same clock, and an
order before the send never counts.

The orders' columns are read by the rule book (:mod:`smskit.rules.orders`: instants with a
time zone, amounts, numbers in their ``country``); an order outside every recipient's window
cannot count, so its number is not read. The join is arrays: numbers as E.164 integers, one
hash lookup, one ``bincount`` per column.

May import ``smskit.rules`` and ``smskit.errors``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final, TypedDict, Unpack

from smskit.errors import ValidationError
from smskit.rules.arrowinput import KEEP_ONE_PANDAS, check_names
from smskit.rules.choices import checked_column
from smskit.rules.orders import (
    order_frame,
    order_instants,
    order_numbers,
    orders_in_reach,
    read_orders,
    window_of,
)
from smskit.rules.recipients import REGION_COLUMN
from smskit.rules.region import DEFAULT_REGION
from smskit.rules.tables import checked_frame

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = [
    "CONVERSION_COLUMNS",
    "GROUPS",
    "INBOX_COLUMNS",
    "OrderColumns",
    "OrderReading",
    "conversions",
    "customer_ids",
    "order_ids",
    "recipient_groups",
    "refuse_repeats",
    "refuse_unmatchable",
    "send_instant",
    "send_instants",
    "with_outcomes",
]

GROUPS: Final = ("treated", "holdout")


class OrderReading(TypedDict, total=False):
    """How the orders are read: the keywords of :func:`conversions` (pandas and Dask) and of
    every result's ``conversions()`` and ``lift()``, each defaulting as
    :class:`OrderColumns` says."""

    window: Any
    at: str
    value: str | None
    number: str
    default_region: str | None


@dataclass(frozen=True)
class OrderColumns:
    """:class:`OrderReading` with its defaults: ``window`` from the send (``"5D"``), ``at``
    the instant column (``"ordered_at"``, time zone required), ``value`` the amount column
    (``"amount"``; None: count only), ``number`` the phone number column (``"phone_number"``,
    read in a ``country`` column's region, else ``default_region``: the default region, ``FR``
    unless ``SMSKIT_DEFAULT_REGION`` says otherwise, as the campaign read its recipients)."""

    window: Any = "5D"
    at: str = "ordered_at"
    value: str | None = "amount"
    number: str = "phone_number"
    default_region: str | None = DEFAULT_REGION

    def __post_init__(self) -> None:
        checked_column("at", self.at)
        checked_column("value", self.value, optional=True)
        checked_column("number", self.number)


CONVERSION_COLUMNS: Final = (
    "phone_number",
    "group",
    "converted",
    "conversions",
    "revenue",
    "first_conversion_at",
)


def recipient_groups(
    rows: list[int], numbers: list[str], held: list[tuple[int, str]]
) -> pd.DataFrame:
    """``row``, ``phone_number``, ``group``: the planned recipients (``rows``, ``numbers``)
    treated, the held-out ones (``held``: row and number) the holdout; ordered by row."""
    import numpy as np
    import pandas as pd

    frame = pd.DataFrame(
        {
            "row": np.array([*rows, *(r for r, _ in held)], dtype="int64"),
            "phone_number": pd.array([*numbers, *(n for _, n in held)], dtype="string"),
            "group": pd.Categorical(
                ["treated"] * len(rows) + ["holdout"] * len(held), categories=GROUPS
            ),
        }
    )
    return frame.sort_values("row", ignore_index=True)


def customer_ids(recipients: Any, column: str, rows: pd.Series) -> np.ndarray:
    """The ``column`` of a campaign's recipients table (pandas, pyarrow or polars, or a CSV
    or Parquet file's path, a ``str`` or ``pathlib.Path``, read by
    :func:`smskit.rules.orders.order_frame` as orders' files are) at input ``rows``: refused
    when the table lacks it, or is shorter than the campaign's rows."""
    import numpy as np

    if recipients is None:
        raise ValidationError(
            "recipients",
            f"customer_id={column!r} needs the table the campaign was made from (recipients=), "
            "which has that column",
        )
    table = order_frame(recipients, [column], "recipients")
    if column not in table.columns:
        raise ValidationError(f"recipients.{column}", "no such column (customer_id= names it)")
    last = int(rows.max()) if len(rows) else -1
    if last >= len(table):
        raise ValidationError(
            "recipients",
            f"has {len(table)} rows but the campaign planned row {last}: not its recipients",
        )
    picked = table[column].iloc[rows.to_numpy()]
    missing = np.flatnonzero(picked.isna().to_numpy(dtype=bool))
    if len(missing):
        raise ValidationError(
            f"recipients.{column}",
            "is missing: a recipient without one cannot be matched",
            position=int(rows.iloc[int(missing[0])]),
        )
    return np.asarray(picked.array)


def send_instant(scheduled: str | None, attempts: list[float | None]) -> pd.Timestamp:
    """A campaign's send instant (UTC): ``scheduled`` (its ``send_at``, ISO text) when given,
    else its first request (``attempts``: each chunk's first attempt, Unix seconds); refused
    when it was never sent."""
    import pandas as pd

    if scheduled:
        return pd.Timestamp(scheduled).tz_convert("UTC")
    tried = [a for a in attempts if a is not None]
    if not tried:
        raise ValidationError(
            "result", "the campaign was never sent: no send instant to count conversions from"
        )
    return pd.Timestamp(min(tried), unit="s", tz="UTC")


def send_instants(recipients: pd.DataFrame, sent_at: Any) -> np.ndarray:
    """Each recipient's send instant as UTC nanoseconds: ``sent_at`` for all (a timezone-aware
    instant), or, when it is None, the recipients' own ``sent_at`` column."""
    import numpy as np
    import pandas as pd

    if sent_at is None:
        return order_instants(recipients, "sent_at", "recipients")
    rule = "must be an instant with a time zone"
    if not isinstance(sent_at, str | datetime | np.datetime64):
        raise ValidationError("sent_at", rule, value=sent_at)
    try:
        instant = pd.Timestamp(sent_at)
    except (ValueError, OverflowError, UnicodeError) as exc:
        raise ValidationError("sent_at", rule, value=sent_at) from exc
    if instant is pd.NaT or instant.tzinfo is None:
        raise ValidationError("sent_at", rule, value=sent_at)
    return np.full(len(recipients), instant.tz_convert("UTC").as_unit("ns").value, dtype="int64")


def conversions(
    recipients: pd.DataFrame,
    orders: Any,
    *,
    sent_at: Any = None,
    on: str | None = None,
    **reading: Unpack[OrderReading],
) -> pd.DataFrame:
    """One row per recipient (``recipients``: ``phone_number``, ``group``, and ``sent_at``
    when ``sent_at`` is not given) with its conversions from ``orders``.

    ``reading`` (:class:`OrderColumns`): ``window``, ``at`` the orders' instant column,
    ``value`` their amount (None: no revenue), ``number`` their phone number (read in the
    row's ``country``, else ``default_region``); ``on`` instead matches a customer-id column
    both tables have. See the module docstring.
    """
    import numpy as np
    import pandas as pd

    read = OrderColumns(**reading)
    checked_column("on", on, optional=True)
    checked_frame("recipients", recipients, ("phone_number",))
    read_columns = ("phone_number", "group", "sent_at", REGION_COLUMN, *([on] if on else []))
    check_names(recipients.columns, "recipients", read_columns, KEEP_ONE_PANDAS)
    span = window_of(read.window).value
    sent = send_instants(recipients, sent_at)
    wanted = [on] if on is not None else [read.number, REGION_COLUMN]
    frame, instants, amounts = read_orders(orders, wanted, read.at, read.value)
    rows = orders_in_reach(instants, sent, span)
    keys, found = _keys(
        recipients, frame, rows, number=read.number, on=on, region=read.default_region
    )
    hit = found >= 0
    who, when = found[hit], instants[rows[hit]]
    inside = (when >= sent[who]) & (when < sent[who] + span)
    who, when = who[inside], when[inside]
    size = len(recipients)
    counts = np.bincount(who, minlength=size)
    first = np.full(size, np.iinfo("int64").max, dtype="int64")
    np.minimum.at(first, who, when)
    columns: dict[str, Any] = {
        "phone_number": recipients["phone_number"].to_numpy(),
        "group": recipients["group"].to_numpy() if "group" in recipients else "treated",
    }
    if on is not None:
        columns[on] = keys
    columns["converted"] = counts > 0
    columns["conversions"] = counts.astype("int64")
    if amounts is not None:
        columns["revenue"] = np.bincount(
            who, weights=amounts[rows[hit]][inside], minlength=size
        ).astype("float64")
    firsts = pd.to_datetime(np.where(counts > 0, first, np.iinfo("int64").min), utc=True)
    columns["first_conversion_at"] = firsts.as_unit("ns")
    return pd.DataFrame(columns)


def _keys(
    recipients: pd.DataFrame,
    frame: pd.DataFrame,
    rows: np.ndarray,
    *,
    number: str,
    on: str | None,
    region: str | None,
) -> tuple[Any, np.ndarray]:
    """The recipients' join keys, and for each order at ``rows`` its recipient (-1: none)."""
    import numpy as np
    import pandas as pd

    if on is not None:
        if on not in recipients.columns:
            raise ValidationError(
                f"recipients.{on}", "no such column (on= names a column both have)"
            )
        mine = recipients[on]
        theirs = order_ids(frame, on, rows)
        refuse_unmatchable(mine, theirs, on, int(rows[0]) if len(rows) else None)
        missing = np.flatnonzero(mine.isna().to_numpy(dtype=bool))
        if len(missing):  # it would match nothing, or another missing one
            rule = "is missing: a recipient without one cannot be matched"
            raise ValidationError(f"recipients.{on}", rule, position=mine.index[int(missing[0])])
        refuse_repeats(mine, f"recipients.{on}")
        return mine.to_numpy(), np.asarray(pd.Index(mine).get_indexer(theirs), dtype="int64")
    numbers = recipients[["phone_number"]].assign(
        **{REGION_COLUMN: recipients[REGION_COLUMN]} if REGION_COLUMN in recipients else {}
    )
    mine_digits = order_numbers(
        numbers, "phone_number", np.arange(len(recipients)), region, "recipients"
    )
    refuse_repeats(pd.Series(mine_digits), "recipients.phone_number")
    theirs_digits = order_numbers(frame, number, rows, region)
    return mine_digits, np.asarray(pd.Index(mine_digits).get_indexer(theirs_digits), dtype="int64")


def order_ids(frame: pd.DataFrame, on: str, rows: np.ndarray) -> pd.Series:
    """The customer ids (column ``on``) of the orders at ``rows`` (positions): refused when
    the column is absent, or an id is missing (naming its row: the order could not say
    whose it is)."""
    import numpy as np

    if on not in frame.columns:
        raise ValidationError(f"orders.{on}", "no such column (on= names a column both have)")
    theirs = frame[on].iloc[rows]
    missing = theirs.isna().to_numpy(dtype=bool)
    if missing.any():
        raise ValidationError(
            f"orders.{on}",
            "is missing: an order without one cannot say whose it is",
            position=int(rows[int(np.flatnonzero(missing)[0])]),
        )
    return theirs


INBOX_COLUMNS: Final = ("status", "replied", "clicked")


def with_outcomes(frame: pd.DataFrame, outcomes: pd.DataFrame) -> pd.DataFrame:
    """``frame`` (conversions, one row per recipient) with each recipient's delivery
    ``status``, ``replied`` and ``clicked`` from ``outcomes`` (a result's ``outcomes()``:
    the recipients sent); missing for a recipient not sent (the holdout), never guessed."""
    seen = outcomes[["phone_number", *INBOX_COLUMNS]].astype({"phone_number": "string"})
    joined = frame.merge(seen, on="phone_number", how="left")
    return joined.astype({"replied": "boolean", "clicked": "boolean"})


def _id_kind(ids: Any) -> str | None:
    """``"texts"`` or ``"numbers"`` when every id present is one, else None (mixed: not
    judged here)."""
    import pandas as pd

    kind = pd.api.types.infer_dtype(ids, skipna=True)
    if kind == "string":
        return "texts"
    if kind in ("integer", "floating", "mixed-integer-float", "decimal"):
        return "numbers"
    return None


def refuse_unmatchable(mine: Any, theirs: Any, on: str, position: int | None = None) -> None:
    """Refuse customer ids no order could match: the orders' (``theirs``) all texts where
    the recipients' (``mine``) are all numbers, or the reverse (``1`` is not ``"1"``; every
    order would silently match no recipient). ``position``: the first order's row."""
    ours, their = _id_kind(mine), _id_kind(theirs)
    if len(mine) and len(theirs) and ours and their and ours != their:
        raise ValidationError(
            f"orders.{on}",
            f"holds {their} where recipients.{on} holds {ours}: no order could match a "
            "recipient (1 is not '1'); read both columns alike, e.g. with dtype=str",
            position=position,
            value=theirs.iloc[0] if hasattr(theirs, "iloc") else theirs[0],
        )


def refuse_repeats(keys: pd.Series, where: str) -> None:
    """Refuse a key two recipients share, naming the second one's row (its index label)."""
    repeated = keys.duplicated().to_numpy(dtype=bool)
    if repeated.any():
        import numpy as np

        at = int(np.flatnonzero(repeated)[0])
        raise ValidationError(
            where,
            "appears twice among the recipients: an order could not say whose it is",
            position=int(keys.index[at]),
            value=keys.iloc[at],
        )
