"""Orders given as a file's path (a ``str`` or ``pathlib.Path``) are read, not refused: a CSV
by the recipients' CSV reader (every cell its text, so an amount is parsed from its text by
the amounts' rule and a national number keeps its leading 0), a Parquet file as Arrow stores
it; a path naming no such file (missing, a directory, a spreadsheet, a NUL byte, a file that
is not what its name says) is refused naming the file and the rule."""

from __future__ import annotations

import csv
import os
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smskit.campaigns.analysis.conversions import conversions
from smskit.errors import ValidationError
from smskit.rules.files import RULE_FILE_PATH, RULE_TABLE_FILE
from smskit.rules.orders import RULE_AMOUNT, RULE_AMOUNT_LIMIT

NUMBERS = ["+33612345678", "+33612345679", "+33612345680"]
RECIPIENTS = pd.DataFrame({"phone_number": NUMBERS, "group": ["treated", "treated", "holdout"]})
SENT = pd.Timestamp("2026-03-02T09:00:00Z")
HEADER = ("phone_number", "ordered_at", "amount")
# How an analyst's file may write a recipient's number: as E.164, or nationally (FR, the
# default region) with its leading 0, spaced or not.
FORMS = {
    "e164": lambda n: n,
    "national": lambda n: "0" + n[3:],
    "spaced": lambda n: " ".join(["0" + n[3]] + [n[i : i + 2] for i in range(4, 12, 2)]),
}
AMOUNTS = st.one_of(
    st.decimals(min_value=0, max_value=10**6, places=2).map(str),
    st.integers(0, 2**53 - 1).map(str),  # every integer a float64 holds exactly
    st.floats(0, 1e9).map(repr),  # '1e-05', '0.30000000000000004'
)
ORDERS = st.lists(
    st.tuples(
        st.integers(0, len(NUMBERS) - 1),
        st.sampled_from(sorted(FORMS)),
        st.integers(-48, 200),  # hours after the send: before it and after the 5 days too
        st.sampled_from(["UTC", "Europe/Paris", "America/New_York"]),
        AMOUNTS,
    ),
    max_size=12,
)


def write_csv(path: Path, rows: list[tuple[str, ...]], header: tuple[str, ...] = HEADER) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


@settings(deadline=None, max_examples=60)
@given(ORDERS)
def test_a_csv_or_parquet_path_of_orders_is_read_as_its_texts_say(
    tmp_path_factory: pytest.TempPathFactory, drawn: list[tuple[int, str, int, str, str]]
) -> None:
    """Orders written to a CSV file (numbers in E.164 or national with their leading 0,
    instants with their offsets, amounts as decimal texts) and given as a Path or a str:
    each recipient's conversions and revenue are those a plain loop over the texts counts
    (an amount's text read as the nearest float64, as Python's float reads it); the same
    texts as a pandas DataFrame of strings, or as a Parquet file of strings, give the same
    frame."""
    rows = [
        (FORMS[form](NUMBERS[who]), (SENT + pd.Timedelta(hours=h)).tz_convert(zone).isoformat(),
         amount)
        for who, form, h, zone, amount in drawn
    ]  # fmt: skip
    directory = tmp_path_factory.mktemp("orders")
    path = write_csv(directory / "orders.csv", rows)
    read = conversions(RECIPIENTS, path, sent_at=SENT, window="5D")
    counts, revenue = [0] * len(NUMBERS), [0.0] * len(NUMBERS)
    for who, _, hours, _, amount in drawn:
        if 0 <= hours < 120:
            counts[who] += 1
            revenue[who] += float(Decimal(amount))
    assert read["conversions"].tolist() == counts
    assert read["revenue"].tolist() == revenue
    texts = pd.DataFrame(rows, columns=list(HEADER), dtype="string")
    parquet = directory / "orders.parquet"
    pq.write_table(pa.table({name: pa.array(texts[name].tolist(), pa.string())
                             for name in HEADER}), parquet)  # fmt: skip
    for same in (str(path), texts, parquet, str(parquet)):
        pd.testing.assert_frame_equal(conversions(RECIPIENTS, same, sent_at=SENT), read)


def test_typed_parquet_orders_are_read_as_the_same_arrow_table(tmp_path: Path) -> None:
    """A Parquet file of typed columns (instants with their zone, decimal amounts) is read
    as the pyarrow table written to it is."""
    table = pa.table({
        "phone_number": ["0612345678", "+33612345680"],
        "ordered_at": pa.array([SENT + pd.Timedelta("1h"), SENT + pd.Timedelta("2D")],
                               pa.timestamp("us", tz="Europe/Paris")),
        "amount": pa.array([Decimal("19.99"), Decimal("5.00")], pa.decimal128(9, 2)),
    })  # fmt: skip
    path = tmp_path / "orders.parquet"
    pq.write_table(table, path)
    read = conversions(RECIPIENTS, path, sent_at=SENT)
    assert read["revenue"].tolist() == [19.99, 0.0, 5.0]
    pd.testing.assert_frame_equal(read, conversions(RECIPIENTS, table, sent_at=SENT))


@pytest.mark.parametrize(
    ("amount", "rule"),
    [("9007199254740993", RULE_AMOUNT_LIMIT), ("12,50", RULE_AMOUNT), ("-0.01", RULE_AMOUNT),
     ("1e400", RULE_AMOUNT), ("Infinity", RULE_AMOUNT)],
)  # fmt: skip
def test_an_amount_of_a_csv_is_refused_at_its_row_as_written(
    tmp_path: Path, amount: str, rule: str
) -> None:
    """An amount a float64 cannot hold (2**53 + 1 would be summed as 2**53) or that is no
    non-negative number is refused naming orders.amount, its row and the rule, showing the
    text the file holds, never the float it would have become."""
    path = write_csv(tmp_path / "orders.csv", [
        ("+33612345678", "2026-03-02T10:00:00Z", "19.99"),
        ("+33612345679", "2026-03-02T11:00:00+01:00", amount),
    ])  # fmt: skip
    with pytest.raises(ValidationError) as caught:
        conversions(RECIPIENTS, path, sent_at=SENT)
    refusal = caught.value
    assert (refusal.field, refusal.position, refusal.rule) == ("orders.amount", 1, rule)
    assert refusal.value == amount


def _xlsx(path: Path) -> None:
    path.write_bytes(b"PK\x03\x04\x14\x00\x06\x00" + bytes(range(256)))


FILES = {
    "spreadsheet": ("orders.xlsx", _xlsx, "is neither CSV nor Parquet (its name ends in '.xlsx')"),
    "no suffix": ("orders", lambda p: write_csv(p, []), "its name has no suffix"),
    "text file": ("orders.txt", lambda p: write_csv(p, []), "its name ends in '.txt'"),
    "directory": ("orders.csv", lambda p: p.mkdir(), "is a directory, not a file"),
    "named pipe": ("orders.csv", os.mkfifo, "is a named pipe (FIFO), not a file stored on disk"),
    "missing": ("orders.csv", lambda p: None, "no such file"),
    "parquet that is not": ("orders.parquet", lambda p: write_csv(p, []), "the Parquet file"),
}


@pytest.mark.parametrize("kind", sorted(FILES))
def test_a_path_naming_no_csv_or_parquet_file_is_refused_naming_it(
    tmp_path: Path, kind: str
) -> None:
    """A spreadsheet, a file of another or no suffix, a directory, a missing file, a file
    named .parquet that is not one: refused naming orders, the file's path and the rule
    (a CSV or a Parquet file), given as a Path or a str."""
    name, make, says = FILES[kind]
    path = tmp_path / name
    make(path)
    for given_as in (path, str(path)):
        with pytest.raises(ValidationError) as caught:
            conversions(RECIPIENTS, given_as, sent_at=SENT)
        refusal = caught.value
        assert refusal.field == "orders" and says in refusal.rule, kind
        assert RULE_TABLE_FILE in refusal.rule and str(path) in str(refusal), kind
    if kind == "spreadsheet":
        assert "save a spreadsheet as 'CSV UTF-8'" in refusal.rule


@pytest.mark.parametrize("given_as", ["", ".", "orders\x00.csv", "\ud800.csv"])
def test_a_text_that_names_no_file_is_refused_as_no_path(given_as: str) -> None:
    """An empty text, '.', a NUL byte, a lone surrogate: no file's path, refused naming
    orders and the rule of a path, before any file is looked for."""
    with pytest.raises(ValidationError) as caught:
        conversions(RECIPIENTS, given_as, sent_at=SENT)
    assert (caught.value.field, caught.value.rule) == ("orders", RULE_FILE_PATH)


CSVS = {
    "a NUL byte": (b"phone_number,ordered_at,amount\n+33612345678,\x00,1\n", "holds a NUL byte", 2),
    "latin-1": (("phone_number,ordered_at,amount\n+33612345678,2026-03-02T10:00:00Z,1\n"
                 "+33612345679,2026-03-02T10:00:00Z,1 \xe9\n").encode("latin-1"),
                "bytes that are not UTF-8", 3),
    "an unclosed quote": (b'phone_number,ordered_at,amount\n+33612345678,"2026-03-02,1\n',
                          "opens a quoted value that is never closed", 2),
}  # fmt: skip


@pytest.mark.parametrize("kind", sorted(CSVS))
def test_a_csv_that_cannot_be_read_whole_is_refused_at_its_line(tmp_path: Path, kind: str) -> None:
    """A .csv holding a NUL byte, bytes that are not UTF-8 or a quote never closed is
    refused as the recipients' reader refuses it: naming orders, the line and the rule."""
    content, says, line = CSVS[kind]
    path = tmp_path / "orders.csv"
    path.write_bytes(content)
    with pytest.raises(ValidationError) as caught:
        conversions(RECIPIENTS, path, sent_at=SENT)
    refusal = caught.value
    assert refusal.field == "orders" and says in refusal.rule, kind
    assert refusal.line == line, kind


def test_a_column_the_file_repeats_is_refused_naming_it(tmp_path: Path) -> None:
    """A CSV header or a Parquet file naming the amount twice: which one holds the values?
    Refused naming orders.amount, never the first one read."""
    path = write_csv(tmp_path / "orders.csv", [("+33612345678", "2026-03-02T10:00:00Z", "1", "2")],
                     header=(*HEADER, "amount"))  # fmt: skip
    table = pa.Table.from_arrays([pa.array(["+33612345678"]), pa.array(["2026-03-02T10:00Z"]),
                                  pa.array([1.0]), pa.array([2.0])],
                                 names=[*HEADER, "amount"])  # fmt: skip
    parquet = tmp_path / "orders.parquet"
    pq.write_table(table, parquet)
    for given_as in (path, parquet):
        with pytest.raises(ValidationError) as caught:
            conversions(RECIPIENTS, given_as, sent_at=SENT)
        assert caught.value.field == "orders.amount"
        assert "more than once" in caught.value.rule
