"""THE CSV reader of recipients (and of the CLI's number lists, opt-out lists and orders):
every cell as the text it holds, the file read whole or refused.

A file is read only if it can be read whole and one way: UTF-8 text without NUL bytes, every
quote closed, no row longer than the header, no column the reader wants named twice in the
header. Anything else is refused with the line (or row, or the two columns) where reading
stops being exact, never read up to that point and guessed after it: pandas and Arrow would
read an unclosed quote's value to the end of the file, a binary file as a few odd rows, and
a repeated column by its first copy (which one holds the values is the file's author's to
say: the refusal is the one a DataFrame or an Arrow table repeating it gets,
:func:`smskit.rules.arrowinput.check_names`).
"""

from __future__ import annotations

import codecs
import csv
import itertools
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from smskit.errors import ValidationError
from smskit.rules.arrowinput import KEEP_ONE_FILE, check_names
from smskit.rules.filekind import check_regular_file

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["csv_columns", "read_csv_text", "row_line"]

_BLOCK: Final = 1 << 20
# A line appended after the file when looking for an unclosed quote: a quote still open at
# the end of the file swallows it into its value; otherwise it comes back as a row of its own.
_SENTINEL: Final = "smskit:end-of-file\x1f"
_QUOTE, _LF = ord('"'), ord("\n")
_BOUNDS: Final = (ord(","), _LF, ord("\r"))  # what a value starts after and ends before
RULE_NUL: Final = "holds a NUL byte: this is not a text (CSV) file"
RULE_NOT_UTF8: Final = (
    "holds bytes that are not UTF-8 text: save the file as CSV UTF-8 (a spreadsheet's "
    "'CSV UTF-8' format), or it is not a text file"
)
RULE_OPEN_QUOTE: Final = (
    "opens a quoted value that is never closed: every value after it would be read as one; "
    'close the quote (a quote inside a quoted value is written twice: "")'
)


# Files that are not CSV text and are given as CSV (renamed, or exported in another format),
# told by their first bytes once the file is refused on its first line anyway: what the file
# is, and what to do. A text file starting with these bytes is read as the text it is.
_SAVE_AS_CSV: Final = "save it as CSV UTF-8"
_UTF16: Final = "is UTF-16 text (a spreadsheet's 'Unicode text'), not UTF-8"
_NOT_TEXT: Final = (
    (b"PAR1", "is a Parquet file, not CSV text",
     f"{_SAVE_AS_CSV} (in Python, a path ending in .parquet is read as Parquet)"),
    (b"SQLite format 3\x00", "is an SQLite database (a journal, an inbox or a list smskit "
     "keeps, say), not CSV text", "give the CSV file"),
    (b"PK\x03\x04", "is a ZIP archive (a spreadsheet: .xlsx and .ods files are ZIP archives),"
     " not CSV text", _SAVE_AS_CSV),
    (b"\x1f\x8b", "is compressed with gzip, not CSV text", "decompress it first (gunzip)"),
    (b"\xff\xfe", _UTF16, _SAVE_AS_CSV),
    (b"\xfe\xff", _UTF16, _SAVE_AS_CSV),
)  # fmt: skip


def _unreadable(field: str, line: int, rule: str, path: Path) -> ValidationError:
    """The refusal of ``path`` at ``line``; on line 1, a file of a kind told by its first
    bytes (:data:`_NOT_TEXT`) is named as that kind instead, with what to do."""
    if line == 1:
        with path.open("rb") as handle:
            start = handle.read(16)
        for signature, kind, advice in _NOT_TEXT:
            if start.startswith(signature):
                said = f"the CSV file {kind}: {advice}"
                return ValidationError(field, said, value=path.name, line=line)
    return ValidationError(field, f"line {line} of the CSV file {rule}", value=path.name, line=line)


def check_whole(path: Path, field: str = "recipients") -> None:
    """Refuse a file that cannot be read whole as CSV text: a named pipe or a device (read
    more than once below: a pipe would block, then be gone), a NUL byte, bytes that are not
    UTF-8, a quote never closed; the error names the line (counted from 1)."""
    check_regular_file(path, field)
    if _scan_bytes(path, field) and not _quotes_closed(path):
        line = _open_quote_line(path)
        if line is not None:
            raise _unreadable(field, line, RULE_OPEN_QUOTE, path)


def _scan_bytes(path: Path, field: str) -> bool:
    """Refuse NUL bytes and bytes that are not UTF-8, naming their line; whether a quote
    character occurs (only then can a quote be left open)."""
    quoted = _clean_text(path)
    return quoted if quoted is not None else _scan_lines(path, field)


def _clean_text(path: Path) -> bool | None:
    """Whether a quote character occurs in a file without NUL bytes that is UTF-8 text
    throughout; None for any other file (:func:`_scan_lines` names where). Arrow's UTF-8
    check over each block (the strict decoder's verdict, at a fraction of its time: no text
    is made), lines never counted."""
    import pyarrow as pa

    quoted = False
    carry = b""  # the start of a character the previous block cut off
    with path.open("rb") as handle:
        while block := handle.read(_BLOCK):
            if b"\x00" in block:
                return None
            quoted = quoted or b'"' in block
            part = carry + block
            cut = _last_whole(part)
            part, carry = part[:cut], part[cut:]
            offsets = pa.py_buffer(struct.pack("<qq", 0, len(part)))
            try:
                pa.LargeStringArray.from_buffers(1, offsets, pa.py_buffer(part)).validate(full=True)
            except pa.ArrowInvalid:
                return None
    return None if carry else quoted


def _last_whole(part: bytes) -> int:
    """Where the character ``part`` ends in starts, when ``part`` ends before its last byte
    (the rest is the next block's); else ``len(part)``."""
    for back in range(1, min(4, len(part)) + 1):
        byte = part[-back]
        if byte & 0xC0 == 0x80:
            continue  # a continuation byte: its character starts further back
        size = 1 if byte < 0x80 else 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
        return len(part) - back if size > back else len(part)
    return len(part)


def _scan_lines(path: Path, field: str) -> bool:
    """:func:`_scan_bytes` with Python's incremental UTF-8 decoder, counting lines: the
    refusal names the line of the first NUL or bad byte."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    line = 1
    quoted = False
    with path.open("rb") as handle:
        while block := handle.read(_BLOCK):
            pending = len(decoder.getstate()[0])
            try:
                decoder.decode(block)
                bad = len(block)
            except UnicodeDecodeError as exc:
                bad = max(exc.start - pending, 0)
            nul = block.find(b"\x00", 0, bad)
            if nul >= 0 or bad < len(block):  # the first of the two, where both occur
                at, rule = (nul, RULE_NUL) if nul >= 0 else (bad, RULE_NOT_UTF8)
                raise _unreadable(field, line + block.count(b"\n", 0, at), rule, path)
            quoted = quoted or b'"' in block
            line += block.count(b"\n")
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:  # a character cut off by the end of the file
        raise _unreadable(field, line, RULE_NOT_UTF8, path) from None
    return quoted


def _quotes_closed(path: Path) -> bool:
    """True when the quotes pair up as quoted values with nothing else in them: each pair's
    first opens a value (at the file's or a line's start, or after a comma), its second
    closes it (before a comma, a line end or the end of the file). Then no quote is open at
    the end. False says only "look closer" (doubled or literal quotes:
    :func:`_open_quote_line` decides). Over blocks of whole lines with numpy: no Python
    object a value."""
    carry = b""
    with path.open("rb") as handle:
        block = handle.read(_BLOCK).removeprefix(codecs.BOM_UTF8)
        while block:
            block = carry + block
            cut = block.rfind(b"\n") + 1
            if not _pairs_close(block[:cut]):
                return False
            carry = block[cut:]
            block = handle.read(_BLOCK)
    return _pairs_close(carry)


def _pairs_close(part: bytes) -> bool:
    import numpy as np

    data = np.frombuffer(part, dtype=np.uint8)
    at = np.flatnonzero(data == _QUOTE)
    if at.size % 2:
        return False
    opens, closes = at[0::2], at[1::2]
    before = data[np.maximum(opens - 1, 0)]
    before[opens == 0] = _LF  # the part starts a line
    after = np.append(data, _LF)[closes + 1]  # the part ends a line, or the file
    return bool(np.isin(before, _BOUNDS).all() and np.isin(after, _BOUNDS).all())


def _open_quote_line(path: Path) -> int | None:
    """The line where a quoted value that is still open at the end of the file starts, or
    None. Read the way pandas and Arrow read quotes: a quote opens a value only at its start,
    and two quotes inside one stand for one."""
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(itertools.chain(handle, ["\n", _SENTINEL + "\n"]))
        start, last, last_start = 1, None, 1
        try:
            for record in reader:
                last, last_start = record, start
                start = reader.line_num + 1
        except csv.Error:  # a value over csv's size limit: an open quote, or a huge value
            return None if _pandas_reads(path) else start
    return None if last == [_SENTINEL] else last_start


def _pandas_reads(path: Path) -> bool:
    """Whether pandas' parser reads the file (it has no limit on a value's size)."""
    import pandas as pd

    try:
        pd.read_csv(path, dtype=str, keep_default_na=False, usecols=[0])
    except pd.errors.ParserError:
        return False
    return True


def read_csv_text(path: Path, wanted: Sequence[str], field: str = "recipients") -> pd.DataFrame:
    """The columns of ``wanted`` that the CSV file at ``path`` has, every cell as the text it
    holds: an empty cell is missing, nothing else is ("NA", "null", "00123" and blanks stay
    as written). Read by Arrow into pandas' compact strings; what Arrow reads differently
    from pandas (short rows, repeated or missing header names, lines of blanks) is read by
    pandas, which defines the meaning. A row with more values than the header is refused,
    naming its position: pandas would drop or shift its values; a column of ``wanted`` the
    header names twice is refused naming the file, the column and both places (pandas would
    read the first copy, a guess); a file that cannot be read whole (:func:`check_whole`) is
    refused naming the line."""
    check_whole(path, field)
    names = _header(path)
    if names is None:
        raise ValidationError(field, "the CSV file is empty")
    check_names(
        names if names is not _UNSURE else _pandas_header(path, field),
        field,
        wanted,
        KEEP_ONE_FILE,
        source=f"the CSV file {str(path)!r}",
    )
    if names is not _UNSURE:  # each wanted name at most once (check_names): Arrow reads it
        present = [name for name in names if name in wanted]  # the file's order
        frame = _arrow_csv(path, present)
        if frame is not None:
            return frame
    long_row = _first_long_row(path)
    if long_row is not None:
        position, count, columns = long_row
        raise ValidationError(
            field,
            f"this row of the CSV file has {count} values where the header names {columns}"
            " columns; a value would be dropped or moved into another column",
            position=position,
        )
    return _pandas_csv(
        path,
        field,
        dtype=str,
        keep_default_na=False,
        na_values=[""],
        usecols=lambda name: name in wanted,
    )


def _pandas_csv(path: Path, field: str, **options: Any) -> pd.DataFrame:
    """``pandas.read_csv(path, **options)``; an empty or unparsable file refused naming
    ``field`` (what check_whole lets through, pandas may still refuse)."""
    import pandas as pd

    try:
        return pd.read_csv(path, **options)
    except pd.errors.EmptyDataError:
        raise ValidationError(field, "the CSV file is empty") from None
    except pd.errors.ParserError as exc:
        raise ValidationError(field, "the CSV file cannot be parsed", value=path.name) from exc


_UNSURE: Final[list[str]] = []


def _pandas_header(path: Path, field: str) -> list[str]:
    """The header row's names as pandas finds it (after leading blank lines), as written:
    pandas' own column names rename a repeated one (``phone_number.1``)."""
    first = _pandas_csv(path, field, header=None, nrows=1, dtype=str, keep_default_na=False)
    return [str(name) for name in first.iloc[0].tolist()] if len(first) else []


def csv_columns(path: Path, field: str = "recipients") -> list[str]:
    """The column names of the CSV file at ``path``, as :func:`read_csv_text` reads them:
    a file that cannot be read whole, or an empty one, is refused alike (naming the line)."""
    check_whole(path, field)
    names = _header(path)
    if names is None:
        raise ValidationError(field, "the CSV file is empty")
    if names is not _UNSURE:
        return names
    # Leading blank lines: pandas' reading defines the header.
    return [str(name) for name in _pandas_csv(path, field, dtype=str, nrows=0).columns]


def row_line(path: Path, position: int) -> int | None:
    """The line of the CSV file at ``path`` (counted from 1: the header is line 1 when
    nothing precedes it) where data row ``position`` starts, rows counted from 0 as
    :func:`read_csv_text` reads them (lines of blanks skipped, a quoted value's line breaks
    inside its row); None when there is no such row. For errors: a person finds a row of a
    file by its line."""
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle)
        start, row = 1, -1  # the header is row -1
        try:
            for record in reader:
                if record and (len(record) > 1 or record[0].strip()):
                    if row == position:
                        return start
                    row += 1
                start = reader.line_num + 1
        except csv.Error:  # a value over csv's size limit: no line to name
            return None
    return None


def _header(path: Path) -> list[str] | None:
    """The header row's names; None for a file without one, ``_UNSURE`` when pandas might
    read it otherwise (leading blank lines). The file is UTF-8 (:func:`check_whole`)."""
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            first = next(csv.reader(handle), None)
    except csv.Error:
        return _UNSURE
    if first is None:
        return None
    return first if any(name.strip() for name in first) else _UNSURE


def _first_long_row(path: Path) -> tuple[int, int, int] | None:
    """The first row holding more values than the header names (its position among the
    rows, its count, the header's), or None. pandas would read such a row by dropping the
    extra values (or, on the first row, by taking the first value as an index and moving the
    others one column left): never what the file says."""
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = (row for row in csv.reader(handle) if row)  # pandas skips blank lines
        try:
            header = next(rows, None)
            if header is None:
                return None
            for position, row in enumerate(rows):
                if len(row) > len(header):
                    return position, len(row), len(header)
        except csv.Error:  # a value over csv's size limit: pandas decides
            return None
    return None


def _arrow_csv(path: Path, present: Sequence[str]) -> pd.DataFrame | None:
    """``present`` columns read by Arrow as text, or None where pandas must decide."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv

    if not present:
        return None
    try:
        table = pcsv.read_csv(
            path,
            # One thread and the system's allocator: the peak stays the columns' own size.
            read_options=pcsv.ReadOptions(use_threads=False),
            parse_options=pcsv.ParseOptions(newlines_in_values=True),
            convert_options=pcsv.ConvertOptions(
                include_columns=list(present),
                column_types=dict.fromkeys(present, pa.large_string()),
                strings_can_be_null=True,
                null_values=[""],
            ),
            memory_pool=pa.system_memory_pool(),
        )
    except (pa.ArrowInvalid, KeyError):
        return None
    if table.num_columns == 1 and table.num_rows:
        # pandas skips a line of blanks; in a one-column file Arrow reads it as a value.
        blank = pc.match_substring_regex(table.column(0), r"^\s+$")
        if pc.any(blank).as_py():
            return None
    return table.to_pandas()
