"""The recipients' CSV reader (Arrow) against the reference reading (pandas, as text).

Every cell is the text it holds: an empty cell is missing and nothing else is ("NA", "null",
"00123", blanks). Arrow reads a well-formed file; what it would read otherwise goes to
pandas, so both readings are one table whatever the file holds.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from unittest import mock

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from smskit.errors import ValidationError
from smskit.rules import csvtext
from smskit.rules.csvtext import read_csv_text
from smskit.rules.recipients import Recipients

WANTED = ["phone_number", "country", "first_name"]
CELLS = st.one_of(
    st.sampled_from(
        ["", " ", "  ", "NA", "null", "NaN", "None", "n/a", "00123", "+33612345678", "0"]
    ),
    st.sampled_from(['"', '""', ",", "a,b", "x\ny", "\r\n", "Zoë", "東京", "😀", "\t"]),
    st.text(alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\x00")),
)
HEADERS = st.lists(
    st.sampled_from([*WANTED, "email", "NA", "", " first_name"]), min_size=1, max_size=5
)


def reference(path: Path, wanted: list[str]) -> pd.DataFrame:
    """pandas reading every cell as text, an empty cell as missing (the house rule)."""
    return pd.read_csv(
        path, dtype=str, keep_default_na=False, na_values=[""], usecols=lambda n: n in wanted
    )


@st.composite
def csv_files(draw: st.DrawFn) -> bytes:
    """A CSV file as a spreadsheet or a hand may write it: quoted or not, BOM or not, CRLF or
    LF, sometimes a short row or a blank line."""
    header = draw(HEADERS)
    rows = draw(st.lists(st.lists(CELLS, min_size=len(header), max_size=len(header)), max_size=8))
    quoting = draw(st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL]))
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    ragged = draw(st.integers(0, 3)) == 0
    buffer = io.StringIO()
    writer = csv.writer(buffer, quoting=quoting, lineterminator=ending)
    writer.writerow(header)
    for row in rows:
        if ragged and draw(st.booleans()) and len(row) > 1:
            row = row[: draw(st.integers(1, len(row) - 1))]  # a ragged row
        writer.writerow(row)
        if ragged and draw(st.booleans()):
            buffer.write(draw(st.sampled_from(["\n", " \n", "\r\n"])))
    bom = draw(st.sampled_from(["", "\ufeff"]))
    return (bom + buffer.getvalue()).encode("utf-8")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=csv_files())
def test_reader_equals_pandas_reading(
    tmp_path_factory: pytest.TempPathFactory, data: bytes
) -> None:
    """Any CSV file whose header names no wanted column twice reads as the same table as
    pandas reading it as text (values, missing cells, row count, column names). A header
    naming a wanted column twice (pandas reads the first copy: a guess) is refused naming
    the column and both places (test_a_repeated_wanted_column_is_refused_naming_both)."""
    path = tmp_path_factory.mktemp("csv") / "recipients.csv"
    path.write_bytes(data)
    header = next(csv.reader(io.StringIO(data.decode("utf-8-sig"))))  # the first line
    repeated = [n for n in dict.fromkeys(header) if n in WANTED and header.count(n) > 1]
    if repeated:
        with pytest.raises(ValidationError) as caught:
            read_csv_text(path, WANTED)
        first = min(repeated, key=lambda n: header.index(n, header.index(n) + 1))
        assert caught.value.field == f"recipients.{first}"
        return
    try:
        expected = reference(path, WANTED)
    except pd.errors.EmptyDataError:
        with pytest.raises(ValidationError, match="empty"):
            read_csv_text(path, WANTED)
        return
    except (pd.errors.ParserError, ValueError):  # a file pandas refuses is refused
        with pytest.raises(ValidationError):
            read_csv_text(path, WANTED)
        return
    got = read_csv_text(path, WANTED)
    pd.testing.assert_frame_equal(
        got.reset_index(drop=True).astype(object),
        expected.reset_index(drop=True).astype(object),
        check_index_type=False,
        check_column_type=False,
    )


def test_text_stays_as_written(tmp_path: Path) -> None:
    """Leading zeros, "NA", "null" and blanks stay as written; an empty cell (quoted or not)
    is missing."""
    path = tmp_path / "people.csv"
    path.write_text('phone_number,first_name\n00123,NA\n"",null\n  +33 6, \n0612,""\n')
    frame = read_csv_text(path, ["phone_number", "first_name"])
    assert frame["phone_number"].tolist()[0] == "00123"
    assert frame["phone_number"].isna().tolist() == [False, True, False, False]
    assert frame["first_name"].tolist()[:3] == ["NA", "null", " "]
    assert frame["first_name"].isna().tolist() == [False, False, False, True]
    assert frame["phone_number"].tolist()[2] == "  +33 6"


def test_well_formed_file_is_read_without_pandas_parser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rectangular UTF-8 file is read by Arrow: pandas' parser (one Python string per cell)
    is not called."""
    path = tmp_path / "people.csv"
    path.write_text("phone_number,first_name\n+33612345678,Anne\n0612345679,\n")

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("pandas.read_csv was called")

    monkeypatch.setattr(pd, "read_csv", refuse)
    frame = read_csv_text(path, ["phone_number", "first_name"])
    assert frame["phone_number"].tolist() == ["+33612345678", "0612345679"]
    assert frame["first_name"].isna().tolist() == [False, True]


def test_blocks_and_columns_agree(tmp_path: Path) -> None:
    """The blocks of a CSV (Python values, for sends) hold what its whole columns hold."""
    path = tmp_path / "people.csv"
    rows = [f"+3361234{i:04d},{'' if i % 3 else 'Ann'}" for i in range(25)]
    path.write_text("phone_number,first_name\n" + "\n".join(rows) + "\n")
    recipients = Recipients(path)
    whole = recipients.columns(["first_name"])
    parts = pd.concat(list(recipients.blocks(["first_name"], size=10)))
    assert len(parts) == len(whole) == 25
    assert parts["row"].tolist() == list(range(25))
    for name in ("phone_number", "first_name", "country"):
        assert whole[name].isna().tolist() == parts[name].isna().tolist()
        assert whole[name].dropna().tolist() == parts[name].dropna().tolist()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    header=HEADERS,
    cells=st.lists(st.lists(CELLS, min_size=5, max_size=5), min_size=1, max_size=8),
    extra=st.lists(CELLS, min_size=1, max_size=3),
    data=st.data(),
)
def test_row_longer_than_header_is_refused_with_its_position(
    tmp_path_factory: pytest.TempPathFactory,
    header: list[str],
    cells: list[list[str]],
    extra: list[str],
    data: st.DataObject,
) -> None:
    """A row with more values than the header names is refused, naming that row: pandas
    would drop its extra values, or (on the first row) read its first value as an index and
    move every other value one column left. (A header naming a wanted column twice is
    refused before any row is read: one copy kept here.)"""
    header = [n for i, n in enumerate(header) if n not in WANTED or header.index(n) == i]
    rows = [row[: len(header)] for row in cells]
    long = data.draw(st.integers(0, len(rows) - 1))
    rows[long] = rows[long] + extra
    buffer = io.StringIO()
    writer = csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    path = tmp_path_factory.mktemp("csv") / "recipients.csv"
    path.write_text(buffer.getvalue(), encoding="utf-8")
    with pytest.raises(ValidationError) as caught:
        read_csv_text(path, WANTED)
    assert caught.value.position == long
    assert caught.value.field == "recipients"
    assert f"has {len(header) + len(extra)} values" in caught.value.rule


def test_extra_value_on_the_first_row_is_refused_not_shifted(tmp_path: Path) -> None:
    """The case pandas reads silently wrong: one value too many on the first row made the
    number an index and the first name the phone number."""
    path = tmp_path / "people.csv"
    path.write_text("phone_number,first_name\n+33612345678,Ann,x\n+33612345679,Bob,y\n")
    with pytest.raises(ValidationError, match=r"recipients\[0\].*3 values.*names 2 columns"):
        Recipients(path).columns(["first_name"])


def test_short_row_reads_its_absent_values_as_missing(tmp_path: Path) -> None:
    """A row with fewer values than the header is read: the values it does not have are
    missing (nothing the file says is changed)."""
    path = tmp_path / "people.csv"
    path.write_text("phone_number,first_name\n+33612345678\n+33612345679,Bob\n")
    frame = read_csv_text(path, ["phone_number", "first_name"])
    assert frame["phone_number"].tolist() == ["+33612345678", "+33612345679"]
    assert frame["first_name"].isna().tolist() == [True, False]


PLAIN_CELLS = st.text(
    alphabet=st.characters(exclude_categories=["Cs"], exclude_characters='",\n\r\x00'),
    max_size=6,
)


@st.composite
def broken_csv_files(draw: st.DrawFn) -> tuple[bytes, int, str]:
    """A quote-free CSV (one line per row) with one defect on a known line: a NUL byte, a
    byte that is not UTF-8, a quote opened and never closed, a character cut by the end of
    the file. Returns the bytes, the defect's line (from 1) and its kind."""
    rows = draw(st.lists(st.tuples(PLAIN_CELLS, PLAIN_CELLS), min_size=1, max_size=8))
    lines = [b"phone_number,first_name"] + [f"{a},{b}".encode() for a, b in rows]
    defect = draw(st.sampled_from(["nul", "not utf-8", "open quote", "cut character"]))
    at = len(lines) - 1 if defect == "cut character" else draw(st.integers(1, len(lines) - 1))
    head, _, tail = lines[at].partition(b",")
    lines[at] = {
        "nul": head + b"\x00," + tail,
        "not utf-8": head + b"\xff," + tail,
        "open quote": head + b',"' + tail,
        "cut character": lines[at] + b"\xc3",
    }[defect]
    ending = draw(st.sampled_from([b"\n", b"\r\n"]))
    last = b"" if defect == "cut character" else ending
    return ending.join(lines) + last, at + 1, defect


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=broken_csv_files())
def test_file_that_cannot_be_read_whole_is_refused_at_its_line(
    tmp_path_factory: pytest.TempPathFactory, case: tuple[bytes, int, str]
) -> None:
    """A NUL byte, bytes that are not UTF-8, an unclosed quote or a cut character are
    refused naming the line they are on (pandas refuses the last three too, or reads an
    unclosed quote's value to the end of the file; it reads a NUL into a value)."""
    data, line, defect = case
    path = tmp_path_factory.mktemp("csv") / "recipients.csv"
    path.write_bytes(data)
    if defect != "nul":
        with pytest.raises((pd.errors.ParserError, UnicodeDecodeError)):
            pd.read_csv(path, dtype=str)
    with pytest.raises(ValidationError) as caught:
        read_csv_text(path, WANTED)
    assert (caught.value.field, caught.value.line) == ("recipients", line)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(alphabet='ab",\n\r', max_size=40))
def test_quick_quote_check_never_passes_a_file_with_a_quote_left_open(
    tmp_path_factory: pytest.TempPathFactory, text: str
) -> None:
    """The vectorised check that every quote pairs up as a quoted value says "closed" only
    when the exact reading (Python's csv module, pandas' quoting rules) finds no quote open
    at the end of the file, whatever the quotes, commas and line ends."""
    path = tmp_path_factory.mktemp("csv") / "recipients.csv"
    path.write_bytes(text.encode())
    if csvtext._quotes_closed(path):
        assert csvtext._open_quote_line(path) is None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(WANTED),
    others=st.lists(st.sampled_from(["email", "city", "NA", ""]), max_size=4),
    places=st.tuples(st.integers(0, 4), st.integers(0, 5)),
    blank_lines=st.booleans(),
)
def test_a_repeated_wanted_column_is_refused_naming_both(
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    others: list[str],
    places: tuple[int, int],
    blank_lines: bool,
) -> None:
    """A header naming a wanted column twice was read by its first copy (pandas' reading, a
    guess on the user's data); refused, in the words a DataFrame or an Arrow table repeating
    it gets, naming the file, the column and both places (counted from 1). Through every
    reader of a CSV: recipients (the reader, a Path, Recipients.from_csv), an opt-out list's
    CSV and orders. A column no one reads may repeat: the file is read as pandas reads it."""
    header = list(others)
    first = min(places[0], len(header))
    header.insert(first, name)
    second = min(max(places[1], first + 1), len(header))
    header.insert(second, name)
    path = tmp_path_factory.mktemp("csv") / "people.csv"
    rows = [",".join(f"v{i}{j}" for j in range(len(header))) for i in range(3)]
    path.write_text(("\n\n" if blank_lines else "") + "\n".join([",".join(header), *rows]) + "\n")
    with pytest.raises(ValidationError) as caught:
        read_csv_text(path, WANTED)
    refusal = caught.value
    assert refusal.field == f"recipients.{name}"
    assert f"(columns {first + 1} and {second + 1} of the header of the CSV file " in refusal.rule
    assert repr(str(path)) in refusal.rule
    numbered = header if name == "phone_number" else ["phone_number", *header]
    frame = pd.DataFrame([["+33612345678"] * len(numbered)], columns=numbered)
    with pytest.raises(ValidationError) as in_a_frame:
        Recipients(frame)
    assert in_a_frame.value.field == refusal.field
    shared = "this column appears more than once"
    assert in_a_frame.value.rule.startswith(shared) and refusal.rule.startswith(shared)
    assert refusal.rule.endswith("which one holds the values? Keep one (e.g. rename or "
                                 "remove the others in the file)")  # fmt: skip
    with pytest.raises(ValidationError) as as_recipients:
        Recipients.from_csv(path).columns(["first_name"])
    assert as_recipients.value.rule == refusal.rule
    if name == "phone_number":
        from smskit.replies.optoutcsv import read_optouts_csv

        with pytest.raises(ValidationError) as as_optouts:
            read_optouts_csv(path, "FR")
        assert as_optouts.value.field == "optouts.phone_number"
        assert as_optouts.value.rule == refusal.rule
        from smskit.rules.orders import order_frame

        with pytest.raises(ValidationError) as as_orders:
            order_frame(path, ["phone_number", "amount"])
        assert as_orders.value.field == "orders.phone_number"
        assert as_orders.value.rule == refusal.rule
    unread = tmp_path_factory.mktemp("csv") / "people.csv"
    unread.write_text("email,phone_number,email\nx,+33612345678,y\n")
    assert read_csv_text(unread, WANTED)["phone_number"].tolist() == ["+33612345678"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pieces=st.lists(
        st.one_of(
            st.text(max_size=4).map(lambda t: t.encode("utf-8", "surrogatepass")),
            st.binary(max_size=3),
        ),
        max_size=12,
    ),
    block=st.integers(1, 9),
)
def test_quick_text_check_agrees_with_the_strict_decoder(
    tmp_path_factory: pytest.TempPathFactory, pieces: list[bytes], block: int
) -> None:
    """The whole-file check (Arrow's UTF-8 check, block by block) passes exactly the files
    without a NUL byte that Python's strict UTF-8 decoder reads, whatever characters the
    blocks cut (blocks of 1 to 9 bytes here), and says whether a quote occurs."""
    data = b"".join(pieces)
    path = tmp_path_factory.mktemp("csv") / "recipients.csv"
    path.write_bytes(data)
    try:
        data.decode("utf-8")
        text = b"\x00" not in data
    except UnicodeDecodeError:
        text = False
    with mock.patch.object(csvtext, "_BLOCK", block):
        assert csvtext._clean_text(path) == ((b'"' in data) if text else None)


def _parquet(path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"phone_number": ["+33612345678"]}), path)


def _sqlite(path: Path) -> None:
    import sqlite3
    from contextlib import closing

    with closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE journal (a)")
        db.commit()


def _zip(path: Path) -> None:
    import zipfile

    with zipfile.ZipFile(path, "w") as book:
        book.writestr("xl/workbook.xml", "<workbook/>")


CONTACTS = "phone_number,first_name\n+33612345678,Zoé\n"
# A file of another format given as CSV (a .parquet, a journal, an .xlsx renamed .csv, a
# compressed export, a spreadsheet's 'Unicode text'), written by that format's own writer.
OTHER_FORMATS = {
    "Parquet": (_parquet, "is a Parquet file, not CSV text: save it as CSV UTF-8"),
    "SQLite": (_sqlite, "is an SQLite database"),
    "ZIP": (_zip, "is a ZIP archive (a spreadsheet: .xlsx and .ods files are ZIP archives)"),
    "gzip": (lambda p: p.write_bytes(__import__("gzip").compress(CONTACTS.encode())),
             "is compressed with gzip, not CSV text: decompress it first"),
    "UTF-16": (lambda p: p.write_text(CONTACTS, encoding="utf-16"),
               "is UTF-16 text (a spreadsheet's 'Unicode text'), not UTF-8: save it as CSV UTF-8"),
    "UTF-16 BE": (lambda p: p.write_bytes(b"\xfe\xff" + CONTACTS.encode("utf-16-be")),
                  "is UTF-16 text"),
}  # fmt: skip


@pytest.mark.parametrize("kind", sorted(OTHER_FORMATS))
def test_a_file_of_another_format_given_as_csv_is_named_as_that_format(
    kind: str, tmp_path: Path
) -> None:
    """A Parquet file renamed .csv was refused as "line 1 ... holds bytes that are not UTF-8
    text: save the file as CSV UTF-8 ..., or it is not a text file": now the refusal says
    what the file is, and what to do, still on line 1; the file left as it was."""
    write, says = OTHER_FORMATS[kind]
    path = tmp_path / "customers.csv"
    write(path)
    before = path.read_bytes()
    with pytest.raises(ValidationError) as caught:
        read_csv_text(path, WANTED)
    refusal = caught.value
    assert (refusal.field, refusal.line, refusal.value) == ("recipients", 1, "customers.csv")
    assert refusal.rule.startswith("the CSV file ") and says in refusal.rule, refusal.rule
    assert path.read_bytes() == before


@pytest.mark.parametrize("start", ["PAR1", "PK\x03\x04", "\x1f"])
def test_a_text_file_starting_like_another_format_is_read_as_text(
    start: str, tmp_path: Path
) -> None:
    """Only a file refused on its first line is named by its first bytes: a UTF-8 CSV whose
    header starts with the same characters is read as the text it is; one whose later line
    holds a Latin-1 byte is refused at that line, in the words for bytes that are not UTF-8."""
    path = tmp_path / "customers.csv"
    path.write_text(f"{start}x,phone_number\na,+33612345678\n")
    assert read_csv_text(path, WANTED)["phone_number"].tolist() == ["+33612345678"]
    path.write_bytes(
        f"{start}x,phone_number\na,+33612345678\nb,+3361234567\xe9\n".encode("latin-1")
    )
    with pytest.raises(ValidationError) as caught:
        read_csv_text(path, WANTED)
    assert caught.value.line == 3 and "holds bytes that are not UTF-8" in caught.value.rule


@pytest.mark.parametrize("content", [b"", b"\n\n\n", b"  \r\n\r\n"])
def test_an_empty_csv_file_is_refused_as_empty(content: bytes, tmp_path: Path) -> None:
    """A file of no bytes, or of blank lines only, has no header: refused naming the field
    as an empty CSV file (not read as a frame of no rows), the file left as it was."""
    path = tmp_path / "customers.csv"
    path.write_bytes(content)
    with pytest.raises(ValidationError) as refused:
        read_csv_text(path, WANTED, field="contacts")
    assert str(refused.value) == "contacts: the CSV file is empty"
    assert path.read_bytes() == content
