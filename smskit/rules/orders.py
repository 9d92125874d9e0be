"""The analyst's orders, read exactly or refused: instants, amounts, numbers and the window.

An order (or any event: a sign-up, a booking) is a row of the analyst's own table with a
phone number (or a customer id), an instant and, for revenue, an amount. The table is a
pandas, pyarrow or polars DataFrame, or a CSV or Parquet file's path (a ``str`` or
``pathlib.Path``, read by :mod:`smskit.rules.files`: a CSV's every cell as the text it holds,
by the recipients' CSV reader, so its amounts and numbers are read from their texts by the
rules below, never guessed floats first). Each column is read here, once, for conversions
(:mod:`smskit.campaigns.analysis.conversions`) and attribution:

- an instant needs a time zone (a timezone-aware column, or ISO 8601 texts with an offset or
  ``Z`` after the time of day): a naive one would be read in some zone smskit would have to
  guess, and so would a date alone (``2026-11-29``: midnight where?);
- an amount is a number, never missing and never negative (a refund is its own row to
  subtract, not an order); a decimal (``decimal.Decimal``, an Arrow or polars decimal
  column) is read as float64, as its text would be;
- a number written in E.164 (``+`` then 7 to 15 digits) is read as written; any other form
  is read by the rule book (:func:`smskit.rules.recipients.number_codes`, in the row's
  ``country`` when the table has one), and one it cannot read is refused;
- a ``window`` is a positive duration (``"5D"``, ``"12h"``, a ``timedelta``); a text is
  refused without its unit (pandas reads a bare ``"5"`` as 5 nanoseconds).

Each refusal names the column (``orders.amount``), the row (its position, from 0: a CSV's
first row under its header is 0) and the rule. Pandas, numpy and pyarrow arrays in, arrays
out; the only I/O is reading a file given as the table. May import ``smskit.errors`` and the
rule book.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Final

from smskit.errors import ValidationError
from smskit.rules.arrowinput import (
    KEEP_ONE_ARROW,
    KEEP_ONE_PANDAS,
    arrow_data,
    arrow_library,
    check_names,
)
from smskit.rules.files import read_table_file, table_path
from smskit.rules.recipients import REGION_COLUMN, RULE_FLOAT, first_float, number_codes

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    import pyarrow as pa

__all__ = [
    "RULE_AMOUNT",
    "RULE_AMOUNT_LIMIT",
    "RULE_INSTANT",
    "RULE_NAIVE",
    "RULE_NUMBER",
    "RULE_UNIT",
    "RULE_WINDOW",
    "e164_written",
    "order_amounts",
    "order_frame",
    "order_instants",
    "order_numbers",
    "orders_in_reach",
    "read_orders",
    "window_of",
]

RULE_WINDOW: Final = "must be a positive duration, e.g. '5D', '12h' or datetime.timedelta(days=5)"
RULE_UNIT: Final = (
    "a duration needs its unit ('5D' is five days, '5h' five hours; pandas would read a "
    "bare '5' as 5 nanoseconds): write the unit"
)
RULE_NAIVE: Final = (
    "an instant needs a time zone (smskit will not guess one): localize the column, e.g. "
    "orders['ordered_at'].dt.tz_localize('Europe/Paris'), or write ISO 8601 with an offset"
)
RULE_INSTANT: Final = "must be an instant (a timezone-aware datetime or ISO 8601 text with offset)"
RULE_AMOUNT: Final = "must be a number, not missing and not negative (a refund is not an order)"
AMOUNT_LIMIT: Final = 2.0**53
RULE_AMOUNT_LIMIT: Final = (
    "must be below 2**53 (9007199254740992): a larger amount cannot be counted exactly "
    "(revenue is summed as 64-bit floats)"
)
RULE_NUMBER: Final = (
    "cannot be read as a phone number ({reason}): fix it, give its country in a 'country' "
    "column (or every national number's with default_region='FR'), or drop the row"
)
# An offset after a time of day: a date alone ("2026-11-29", "2026-11") ends in what would
# read as one ("-29"), and pandas would put it at midnight UTC, a zone it was never given.
_OFFSET: Final = (
    r"[Tt ][0-9]{2}(?::?[0-9]{2}(?::?[0-9]{2}(?:[.,][0-9]+)?)?)?\s*"
    r"(?:Z|z|[+-][0-9]{2}(?::?[0-9]{2})?)$"
)
_BARE_NUMBER: Final = re.compile(r"\s*[+-]?[0-9]+\s*")


def window_of(window: Any, field: str = "window") -> pd.Timedelta:
    """``window`` as a positive :class:`pandas.Timedelta`, or refused naming ``field``."""
    import numpy as np
    import pandas as pd

    durations = str | timedelta | pd.Timedelta | np.timedelta64
    if isinstance(window, bool) or not isinstance(window, durations):
        raise ValidationError(field, RULE_WINDOW, value=window)
    if isinstance(window, str) and _BARE_NUMBER.fullmatch(window):
        raise ValidationError(field, RULE_UNIT, value=window)
    try:
        duration = pd.Timedelta(window)
    except (ValueError, OverflowError) as exc:
        raise ValidationError(field, RULE_WINDOW, value=window) from exc
    if duration is pd.NaT or duration <= pd.Timedelta(0):
        raise ValidationError(field, RULE_WINDOW, value=window)
    return duration


def order_frame(orders: Any, columns: Sequence[str], field: str = "orders") -> pd.DataFrame:
    """The ``columns`` ``orders`` has, as a pandas DataFrame (a pandas, pyarrow or polars
    table, or a CSV or Parquet file's path: :func:`smskit.rules.files.table_path`; strings
    stay Arrow strings); anything else is refused, and so is one of ``columns`` the table
    repeats (which one holds the values?)."""
    import pandas as pd

    path = table_path(orders, field)
    if path is not None:
        orders = read_table_file(path, columns, field)
    library = arrow_library(orders)
    if library is not None:
        import pyarrow as pa

        table = arrow_data(orders, library, field)
        if not isinstance(table, pa.Table):
            raise ValidationError(field, "must be a table of orders", value=type(orders).__name__)
        check_names(table.column_names, field, columns, KEEP_ONE_ARROW)
        wanted = [name for name in columns if name in table.column_names]
        text = pd.StringDtype("pyarrow")
        strings = {pa.string(): text, pa.large_string(): text}
        return table.select(wanted).to_pandas(types_mapper=strings.get)
    if not isinstance(orders, pd.DataFrame):
        raise ValidationError(field, _not_a_table(orders), value=type(orders).__name__)
    check_names(orders.columns, field, columns, KEEP_ONE_PANDAS)
    return orders[[name for name in dict.fromkeys(columns) if name in orders.columns]]


def _not_a_table(orders: Any) -> str:
    """Why ``orders`` is refused, and what to pass instead."""
    rule = (
        "must be a table of orders: a pandas, pyarrow or polars DataFrame, or a CSV or "
        "Parquet file's path"
    )
    if hasattr(type(orders), "__dask_graph__"):
        return (
            f"{rule}; a Dask DataFrame is read partition by partition only by a Dask "
            "campaign's result (smskit.dask.Campaign(...).send().conversions or .lift): "
            "here, .compute() it first"
        )
    return rule


def _column(frame: pd.DataFrame, name: str, field: str, hint: str) -> pd.Series:
    if name not in frame.columns:
        raise ValidationError(f"{field}.{name}", f"no such column ({hint})")
    return frame[name]


def _first(mask: np.ndarray) -> int:
    import numpy as np

    return int(np.flatnonzero(mask)[0])


def order_instants(frame: pd.DataFrame, at: str, field: str = "orders") -> np.ndarray:
    """Column ``at`` as UTC nanoseconds (int64); naive, missing or unreadable instants are
    refused naming the row."""
    import pandas as pd

    where = f"{field}.{at}"
    values = _column(frame, at, field, "name the instant column with at=")
    if isinstance(values.dtype, pd.ArrowDtype) and values.dtype.kind == "M":
        values = pd.Series(values.array.to_numpy(), index=values.index)  # numpy's datetimes
    missing = values.isna().to_numpy()
    if missing.any():
        row = _first(missing)
        raise ValidationError(where, f"is missing: {RULE_INSTANT}", position=row)
    if pd.api.types.is_datetime64_any_dtype(values):
        if getattr(values.dt, "tz", None) is None:
            raise ValidationError(where, RULE_NAIVE, position=0, value=values.iloc[0])
        return _nanoseconds(values)
    if pd.api.types.is_string_dtype(values) and all(isinstance(v, str) for v in values.array):
        texts = values.astype("string[pyarrow]").str.strip()
        naive = ~texts.str.contains(_OFFSET, regex=True).to_numpy(dtype=bool)
        if naive.any():
            row = _first(naive)
            try:  # a date or a time without its zone, or no date and time ('yesterday Z')
                pd.to_datetime(texts.iloc[row], format="ISO8601")
                rule = RULE_NAIVE
            except (ValueError, TypeError, OverflowError):
                rule = RULE_INSTANT
            raise ValidationError(where, rule, position=row, value=values.iloc[row])
        try:
            parsed = pd.to_datetime(texts, format="ISO8601", utc=True)
        except (ValueError, TypeError, OverflowError) as exc:
            row = _first_unparsed(texts)
            raise ValidationError(
                where, RULE_INSTANT, position=row, value=values.iloc[row]
            ) from exc
        return _nanoseconds(parsed)
    return _object_instants(values, where)


def _first_unparsed(texts: pd.Series) -> int:
    """The position of the first text ``pd.to_datetime`` cannot read as an ISO 8601 instant."""
    import pandas as pd

    for row, text in enumerate(texts.tolist()):
        try:
            pd.to_datetime(text, format="ISO8601", utc=True)
        except (ValueError, TypeError, OverflowError):
            return row
    return 0


def _nanoseconds(values: pd.Series) -> np.ndarray:
    import numpy as np

    utc = values.dt.tz_convert("UTC").dt.tz_localize(None)  # the same instants, as numpy's
    return np.asarray(utc.dt.as_unit("ns").to_numpy().view("int64"))


def _object_instants(values: pd.Series, where: str) -> np.ndarray:
    """Python datetimes (or pandas Timestamps), each with its time zone."""
    import numpy as np
    import pandas as pd

    out = np.empty(len(values), dtype="int64")
    for row, value in enumerate(values.tolist()):
        if isinstance(value, str):
            try:
                out[row] = order_instants(pd.DataFrame({"at": [value]}), "at")[0]
            except ValidationError as exc:
                raise ValidationError(where, exc.rule, position=row, value=value) from exc
            continue
        if not hasattr(value, "tzinfo"):
            raise ValidationError(where, RULE_INSTANT, position=row, value=value)
        if value.tzinfo is None:
            raise ValidationError(where, RULE_NAIVE, position=row, value=value)
        out[row] = pd.Timestamp(value).tz_convert("UTC").as_unit("ns").value
    return out


def read_orders(
    orders: Any, keys: Sequence[str], at: str, value: str | None
) -> tuple[pd.DataFrame, np.ndarray, np.ndarray | None]:
    """The columns ``keys``, ``at`` and ``value`` of ``orders`` (:func:`order_frame`), with
    their instants (:func:`order_instants`) and amounts (:func:`order_amounts`; None when
    ``value`` is None: orders are counted only)."""
    frame = order_frame(orders, [*keys, at, *([value] if value else [])])
    return frame, order_instants(frame, at), order_amounts(frame, value) if value else None


def orders_in_reach(instants: np.ndarray, starts: np.ndarray, span: int) -> np.ndarray:
    """The positions of the orders (``instants``, ns) that some window may hold: from the
    earliest of ``starts`` (ns) to ``span`` ns after the latest; none without a start."""
    import numpy as np

    if not len(starts):
        return np.zeros(0, dtype="int64")
    return np.flatnonzero((instants >= starts.min()) & (instants < starts.max() + span))


def order_amounts(frame: pd.DataFrame, value: str, field: str = "orders") -> np.ndarray:
    """Column ``value`` as float64; missing, negative or non-numeric amounts are refused
    naming the row."""
    import numpy as np
    import pandas as pd

    where = f"{field}.{value}"
    given = _column(frame, value, field, "name the amount column with value=, or value=None")
    missing = given.isna().to_numpy(dtype=bool)
    if missing.any():
        raise ValidationError(where, f"is missing: {RULE_AMOUNT}", position=_first(missing))
    values = given  # a refusal shows the amount as given (a CSV's text), not its float
    if _arrow_decimals(given):  # a decimal column (Parquet, SQL, Arrow): numbers
        values = given.astype("float64")
    elif given.dtype.kind not in "iuf":  # bools, complex, durations are not amounts
        if given.dtype.kind != "O" and not pd.api.types.is_string_dtype(given):
            raise ValidationError(where, RULE_AMOUNT, position=0, value=given.iloc[0])
        values = _object_amounts(given, where)
    amounts = np.asarray(values.to_numpy(dtype="float64"))
    unreal = (amounts < 0) | ~np.isfinite(amounts)
    if unreal.any():
        row = _first(unreal)
        raise ValidationError(where, RULE_AMOUNT, position=row, value=given.iloc[row])
    huge = amounts >= AMOUNT_LIMIT  # beyond it a float64 skips integers: 2**53 + 1 is 2**53
    if huge.any():
        row = _first(huge)
        raise ValidationError(where, RULE_AMOUNT_LIMIT, position=row, value=given.iloc[row])
    return amounts


def _arrow_decimals(values: pd.Series) -> bool:
    """Whether ``values`` is a pandas column of Arrow decimals (read as float64, as their
    texts are)."""
    import pandas as pd
    import pyarrow as pa

    dtype = values.dtype
    return isinstance(dtype, pd.ArrowDtype) and pa.types.is_decimal(dtype.pyarrow_dtype)


def _object_amounts(values: pd.Series, where: str) -> pd.Series:
    """Texts and Python numbers, each a real number (a bool is not one; a
    :class:`decimal.Decimal` is, as a pyarrow or polars decimal column gives them), as
    float64."""
    import numbers
    from decimal import Decimal

    import numpy as np
    import pandas as pd

    kinds = np.array(
        [
            isinstance(v, str | Decimal)
            or (isinstance(v, numbers.Real) and not isinstance(v, bool))
            for v in values.tolist()
        ],
        dtype=bool,
    )
    read = pd.to_numeric(values.where(kinds), errors="coerce")
    bad = read.isna().to_numpy(dtype=bool)
    if bad.any():
        row = _first(bad)
        raise ValidationError(where, RULE_AMOUNT, position=row, value=values.iloc[row])
    return read.astype("float64")


def e164_written(texts: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Which of ``texts`` (Arrow strings) are E.164 as written (``+`` then 7 to 15 ASCII
    digits, the first not 0: :func:`smskit.rules.phonecheck.is_e164`; a null is not), and
    each text after its first character (the digits, where written). Arrow kernels, no
    regular expression: a length, a prefix and one digit test per text."""
    import numpy as np
    import pyarrow.compute as pc

    after = pc.utf8_slice_codeunits(texts, 1)
    size = pc.binary_length(texts)
    written = pc.and_(
        pc.and_(pc.starts_with(texts, "+"), pc.ascii_is_decimal(after)),
        pc.and_(
            pc.and_(pc.greater_equal(size, 8), pc.less_equal(size, 16)),
            pc.invert(pc.starts_with(after, "0")),
        ),
    )
    return np.asarray(pc.fill_null(written, False), dtype=bool), after


def order_numbers(
    frame: pd.DataFrame,
    number: str,
    rows: np.ndarray,
    default_region: str | None,
    field: str = "orders",
) -> np.ndarray:
    """The E.164 digits (int64) of column ``number`` at positions ``rows``: E.164 texts as
    written, other forms read by the rule book in the row's ``country``; one it cannot read
    is refused naming its row."""
    import numpy as np
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc

    where = f"{field}.{number}"
    column = _column(frame, number, field, "name the number column with number=, or on=")
    whole = len(rows) == len(column) and np.array_equal(rows, np.arange(len(column)))
    values = column if whole else column.iloc[rows]  # every row: no copy
    floated = first_float(values)  # a float (or its text) may have lost its leading 0 or +
    if floated is not None:
        raise ValidationError(
            where, RULE_FLOAT, position=int(rows[floated]), value=values.iloc[floated]
        )
    digits = np.zeros(len(values), dtype="int64")
    written = np.zeros(len(values), dtype=bool)
    try:
        texts = pa.array(values, type=pa.large_string(), from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        texts = None
    if texts is not None:
        written, after = e164_written(texts)
        zero = pa.scalar("0", after.type)
        kept = after if written.all() else pc.if_else(pa.array(written), after, zero)
        digits = np.array(pc.cast(kept, pa.int64()))
    rest = np.flatnonzero(~written)
    if len(rest):
        regions = (
            frame[REGION_COLUMN].iloc[rows].iloc[rest].to_numpy(dtype=object)
            if REGION_COLUMN in frame.columns
            else np.full(len(rest), None, dtype=object)
        )
        given = values.iloc[rest].to_numpy(dtype=object)
        region_at = (f"{field}.{REGION_COLUMN}", rows[rest])  # a bad country: its row
        codes = number_codes(given, regions, default_region, region_at)
        unread = codes.e164 == 0
        if unread.any():
            at = _first(unread)
            from smskit.rules.phonecheck import REASONS

            reason = REASONS[int(codes.reason[at])]
            raise ValidationError(
                where,
                RULE_NUMBER.format(reason=reason),
                position=int(rows[rest[at]]),
                value=given[at] if not pd.isna(given[at]) else None,
            )
        digits[rest] = codes.e164
    return digits
