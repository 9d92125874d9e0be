"""The orders rule book: instants need a time zone, amounts are non-negative numbers, numbers
are read as written in E.164 or by the recipients' rules, a window is a positive duration;
every refusal names the column, the row and the rule."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smskit.errors import ValidationError
from smskit.rules.orders import (
    RULE_NAIVE,
    RULE_UNIT,
    e164_written,
    order_amounts,
    order_frame,
    order_instants,
    order_numbers,
    window_of,
)
from smskit.rules.phonecheck import is_e164
from smskit.rules.recipients import number_codes


@pytest.mark.parametrize("window", ["0D", "-1h", "soon", 5, None, True, timedelta(0)])
def test_window_not_a_positive_duration_is_refused(window: object) -> None:
    """A window that is not a positive duration is refused naming 'window'."""
    with pytest.raises(ValidationError) as caught:
        window_of(window)
    assert caught.value.field == "window"


@given(
    number=st.integers(-(10**12), 10**12),
    sign=st.sampled_from(["", "+"]),
    pad=st.sampled_from(["", " ", "  "]),
)
def test_a_window_text_without_its_unit_is_refused(number: int, sign: str, pad: str) -> None:
    """A bare number as text ('5', '+10', ' 7 ') is refused naming the field and the unit rule,
    never read as pandas reads it (nanoseconds), whichever option reads durations."""
    text = f"{pad}{sign if number >= 0 else ''}{number}{pad}"
    for field in ("window", "repeat_window"):
        with pytest.raises(ValidationError) as caught:
            window_of(text, field)
        assert (caught.value.field, caught.value.rule) == (field, RULE_UNIT)
    assert window_of(f"{abs(number) + 1}ns") == pd.Timedelta(abs(number) + 1, "ns")


def test_window_reads_text_and_timedelta() -> None:
    """'5D' and timedelta(days=5) are the same window."""
    assert window_of("5D") == window_of(timedelta(days=5)) == pd.Timedelta(days=5)


def test_naive_instants_are_refused_naming_the_column() -> None:
    """A naive datetime column is refused: smskit never guesses the zone."""
    frame = pd.DataFrame({"ordered_at": pd.to_datetime(["2026-01-01 10:00"])})
    with pytest.raises(ValidationError) as caught:
        order_instants(frame, "ordered_at")
    assert caught.value.field == "orders.ordered_at"
    assert caught.value.rule == RULE_NAIVE


@settings(max_examples=60)
@given(
    day=st.dates(min_value=datetime(1971, 1, 1).date(), max_value=datetime(2099, 12, 31).date()),
    month_only=st.booleans(),
    row=st.integers(0, 2),
)
def test_a_date_without_its_time_is_refused_not_put_at_midnight_utc(
    day: object, month_only: bool, row: int
) -> None:
    """A date alone ('2026-11-29', '2026-11') ends in what looks like an offset ('-29'):
    refused at its row as an instant without a zone, never read as midnight UTC."""
    text = f"{day:%Y-%m}" if month_only else f"{day:%Y-%m-%d}"
    texts = ["2026-01-01T10:00:00Z"] * 3
    texts[row] = text
    with pytest.raises(ValidationError) as caught:
        order_instants(pd.DataFrame({"at": texts}), "at")
    assert (caught.value.position, caught.value.rule) == (row, RULE_NAIVE)


@settings(max_examples=60)
@given(
    moment=st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2099, 12, 31)),
    minutes=st.integers(-14 * 60, 14 * 60),
    spec=st.sampled_from(["minutes", "seconds", "microseconds"]),
    sep=st.sampled_from(["T", " "]),
)
def test_an_iso_text_with_its_offset_reads_as_its_instant(
    moment: datetime, minutes: int, spec: str, sep: str
) -> None:
    """Any ISO 8601 date-time with an offset (to the minute, second or microsecond; 'T' or
    a space) is the instant it writes."""
    aware = moment.replace(tzinfo=timezone(timedelta(minutes=minutes)))
    text = aware.isoformat(sep=sep, timespec=spec)
    got = order_instants(pd.DataFrame({"at": [text]}), "at")
    assert got.tolist() == [pd.Timestamp(text).tz_convert("UTC").as_unit("ns").value]


def test_naive_text_instant_is_refused_at_its_row() -> None:
    """Among ISO texts, the one without an offset is refused at its row."""
    frame = pd.DataFrame({"at": ["2026-01-01T10:00:00Z", "2026-01-01T11:00:00+02:00",
                                 "2026-01-01T12:00:00"]})  # fmt: skip
    with pytest.raises(ValidationError) as caught:
        order_instants(frame, "at")
    assert (caught.value.field, caught.value.position) == ("orders.at", 2)


def test_missing_instant_and_missing_column_are_refused() -> None:
    """A missing instant names its row; an absent column names itself."""
    frame = pd.DataFrame({"at": pd.to_datetime(["2026-01-01", None], utc=True)})
    with pytest.raises(ValidationError) as caught:
        order_instants(frame, "at")
    assert caught.value.position == 1
    with pytest.raises(ValidationError, match="no such column"):
        order_instants(frame, "ordered_at")


def test_instants_in_any_zone_are_the_same_utc_instants() -> None:
    """Aware columns, offset texts and Python datetimes give the same UTC nanoseconds."""
    utc = pd.to_datetime(["2026-01-01T09:00:00Z", "2026-06-01T22:30:00Z"], utc=True)
    expected = utc.as_unit("ns").asi8
    paris = pd.DataFrame({"at": utc.tz_convert("Europe/Paris")})
    texts = pd.DataFrame({"at": ["2026-01-01T10:00:00+01:00", "2026-06-02T00:30:00+02:00"]})
    objects = pd.DataFrame({"at": [d.to_pydatetime() for d in utc]}, dtype=object)
    for frame in (paris, texts, objects):
        assert order_instants(frame, "at").tolist() == expected.tolist()


@pytest.mark.parametrize(
    ("values", "row"),
    [([1.0, -0.01], 1), ([2.0, None], 1), (["3", "x"], 1), ([1.0, float("inf")], 1)],
)
def test_bad_amount_is_refused_at_its_row(values: list[object], row: int) -> None:
    """A negative, missing, unreadable or infinite amount is refused at its row."""
    with pytest.raises(ValidationError) as caught:
        order_amounts(pd.DataFrame({"amount": values}), "amount")
    assert (caught.value.field, caught.value.position) == ("orders.amount", row)


@given(
    st.integers(min_value=2**53, max_value=2**80).flatmap(
        lambda n: st.sampled_from([n, str(n), Decimal(n), np.uint64(min(n, 2**64 - 1))])
    ),
    st.integers(min_value=0, max_value=3),
)
def test_an_amount_a_float_cannot_hold_exactly_is_refused_at_its_row(big: object, row: int) -> None:
    """An amount of 2**53 or more (an int, its text, a Decimal, a NumPy integer) is refused
    at its row: a 64-bit float skips integers there (2**53 + 1 would be read as 2**53)."""
    values: list[object] = [1.5] * 4
    values[row] = big
    with pytest.raises(ValidationError, match="must be below 2\\*\\*53") as caught:
        order_amounts(pd.DataFrame({"amount": values}), "amount")
    assert (caught.value.field, caught.value.position) == ("orders.amount", row)
    assert order_amounts(pd.DataFrame({"amount": [2**53 - 1]}), "amount")[0] == 2**53 - 1


@settings(max_examples=50)
@given(
    st.lists(
        st.decimals(min_value=0, max_value=10**9, places=2, allow_nan=False),
        min_size=1,
        max_size=6,
    )
)
def test_decimal_amounts_read_as_their_texts_in_every_table(amounts: list[Decimal]) -> None:
    """Decimal amounts (Python Decimals, an Arrow decimal column as pyarrow, pandas' Arrow
    dtype or polars hold it) are the numbers their texts read as: none refused, none a raw
    error, the same in every table kind (a Dask frame's partitions are pandas ones)."""
    expected = order_amounts(pd.DataFrame({"amount": [str(a) for a in amounts]}), "amount")
    arrow = pa.table({"amount": pa.array(amounts, pa.decimal128(12, 2))})
    tables = {
        "Decimal objects": pd.DataFrame({"amount": amounts}, dtype=object),
        "pyarrow": arrow,
        "polars": pl.from_arrow(arrow),
        "pandas Arrow dtype": arrow.to_pandas(types_mapper=pd.ArrowDtype),
    }
    for kind, table in tables.items():
        frame = order_frame(table, ["amount"])
        assert order_amounts(frame, "amount").tolist() == expected.tolist(), kind


@pytest.mark.parametrize("bad", [Decimal("-0.01"), Decimal("NaN"), Decimal("Infinity")])
def test_a_decimal_that_is_no_amount_is_refused_at_its_row(bad: Decimal) -> None:
    """A negative, NaN or infinite Decimal is refused at its row, as its float would be."""
    frame = pd.DataFrame({"amount": [Decimal("1.5"), bad]}, dtype=object)
    with pytest.raises(ValidationError) as caught:
        order_amounts(frame, "amount")
    assert (caught.value.field, caught.value.position) == ("orders.amount", 1)


@pytest.mark.parametrize("column", ["ordered_at", "amount", "phone_number", "country"])
def test_a_column_the_orders_repeat_is_refused_naming_it(column: str) -> None:
    """A column the reader reads that a pandas or Arrow table repeats is refused naming it
    (which one holds the values?), never a raw error nor either one picked; a repeated
    column the reader does not read is left alone."""
    names = ["phone_number", "ordered_at", "amount", "country", column]
    arrays = [pa.array(["+33612345678"]), pa.array(["2026-01-01T10:00:00Z"]),
              pa.array([1.0]), pa.array(["FR"])]  # fmt: skip
    arrays.append(arrays[names.index(column)])
    arrow = pa.Table.from_arrays(arrays, names=names)
    frame = pd.DataFrame([[a[0].as_py() for a in arrays]], columns=names)
    for table in (arrow, frame):
        with pytest.raises(ValidationError) as caught:
            order_frame(table, ["phone_number", "country", "ordered_at", "amount"])
        assert caught.value.field == f"orders.{column}"
        assert "more than once" in caught.value.rule
        read = order_frame(table, [name for name in names if name != column])
        assert column not in read.columns


def test_orders_not_a_table_are_refused_saying_what_to_pass(tmp_path: Path) -> None:
    """A Dask DataFrame given where a table is read is refused naming .compute() and the
    Dask campaign's result (not 'must be a DataFrame'); anything else that is neither a
    table nor a file's path as not a table, saying a path is read too."""
    import dask.dataframe as dd

    path = tmp_path / "orders.csv"
    path.write_text("phone_number,ordered_at,amount\n+33612345678,2026-01-01T10:00:00Z,1\n")
    wanted = {
        "dask": (dd.from_pandas(pd.read_csv(path), npartitions=1), ".compute() it first"),
        "list": ([{"amount": 1.0}], "or a CSV or Parquet file's path"),
        "bytes": (bytes(path), "or a CSV or Parquet file's path"),
    }
    for kind, (orders, says) in wanted.items():
        with pytest.raises(ValidationError) as caught:
            order_frame(orders, ["amount"])
        assert caught.value.field == "orders" and says in caught.value.rule, kind


def test_amount_texts_read_as_numbers() -> None:
    """Amounts written as numeric text are read as the same numbers."""
    frame = pd.DataFrame({"amount": ["12.50", "0", "3"]})
    assert order_amounts(frame, "amount").tolist() == [12.5, 0.0, 3.0]


def test_unreadable_number_is_refused_at_its_row() -> None:
    """A number the rule book cannot read is refused naming column, row and reason."""
    frame = pd.DataFrame({"phone_number": ["+33612345678", "06 12 34 56 78", "call me"]})
    with pytest.raises(ValidationError) as caught:
        order_numbers(frame, "phone_number", np.arange(3), "FR")
    assert (caught.value.field, caught.value.position) == ("orders.phone_number", 2)


def test_country_column_reads_national_numbers() -> None:
    """A 'country' column is the region of each row's national number."""
    frame = pd.DataFrame({"phone_number": ["06 12 34 56 78", "07700 900123"],
                          "country": ["FR", "GB"]})  # fmt: skip
    digits = order_numbers(frame, "phone_number", np.arange(2), None)
    assert digits.tolist() == [33612345678, 447700900123]


@settings(deadline=None)
@given(st.lists(st.sampled_from(["+33612345678", "0612345678", "+33 6 12 34 56 78",
                                 "33612345678", "+447700900123", "+12025550143"]),
                min_size=1, max_size=20))  # fmt: skip
def test_numbers_as_the_recipients_reader_reads_them(values: list[str]) -> None:
    """Every readable number gives the digits the recipients' rules give (differential)."""
    frame = pd.DataFrame({"phone_number": values})
    digits = order_numbers(frame, "phone_number", np.arange(len(values)), "FR")
    codes = number_codes(values, [None] * len(values), "FR")
    assert digits.tolist() == codes.e164.tolist()


@settings(deadline=None, max_examples=300)
@given(
    st.lists(
        st.one_of(
            st.none(),
            st.text(alphabet="+0123456789 -a\n\u0663\u00e9", max_size=18),
            st.from_regex(r"\+[0-9]{5,17}", fullmatch=True),
        ),
        max_size=30,
    )
)
def test_e164_as_written_is_the_rule_books_e164(values: list[str | None]) -> None:
    """The Arrow kernels' E.164 test says of each text what phonecheck's is_e164 says (a
    null is not E.164), and a written number's digits follow its '+'."""
    written, after = e164_written(pa.array(values, type=pa.large_string()))
    assert written.tolist() == [is_e164(v) for v in values]
    digits = after.to_pylist()
    assert all(digits[i] == values[i][1:] for i in np.flatnonzero(written))  # type: ignore[index]


def test_arrow_and_polars_orders_read_like_pandas() -> None:
    """A pyarrow or polars table gives the same columns as the pandas one."""
    pandas = pd.DataFrame({"phone_number": ["+33612345678"], "amount": [2.5],
                           "at": pd.to_datetime(["2026-01-01T00:00Z"], utc=True)})  # fmt: skip
    for table in (pa.table(pandas), pl.from_pandas(pandas)):
        frame = order_frame(table, ["phone_number", "amount", "at", "country"])
        assert list(frame.columns) == ["phone_number", "amount", "at"]
        assert order_amounts(frame, "amount").tolist() == [2.5]
        assert order_instants(frame, "at").tolist() == order_instants(pandas, "at").tolist()


def test_not_a_table_is_refused() -> None:
    """A list of orders is refused naming 'orders'."""
    with pytest.raises(ValidationError) as caught:
        order_frame([{"amount": 1}], ["amount"])
    assert caught.value.field == "orders"


def test_python_naive_datetime_is_refused() -> None:
    """A naive Python datetime among aware ones is refused at its row."""
    aware = datetime(2026, 1, 1, tzinfo=UTC)
    frame = pd.DataFrame({"at": [aware, datetime(2026, 1, 2)]}, dtype=object)
    with pytest.raises(ValidationError) as caught:
        order_instants(frame, "at")
    assert caught.value.position == 1
