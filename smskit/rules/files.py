"""A file the caller names: its path read or refused, and a table read from it.

- :func:`as_file_path`: a ``str`` or ``os.PathLike`` that can name a file (not empty, no NUL
  byte, encodable), else refused naming the field. Every parameter that takes a path (a
  journal, an inbox, an opt-out list, a table's file) reads it here.
- :func:`table_path`: a table given as its file (the analyst's orders, recipients given as
  a ``pathlib.Path``, a campaign's recipients table for customer ids): an existing file,
  not a directory nor a pipe or device (:mod:`smskit.rules.filekind`), whose name ends in
  ``.csv`` or ``.parquet``; anything else is refused naming the field, the file and the
  rule (an Excel workbook is told to be saved as CSV).
- :func:`read_table_file`: the columns a reader wants from that file. A CSV's are read by
  the recipients' CSV reader (:func:`smskit.rules.csvtext.read_csv_text`: the file read
  whole or refused at its line, every cell the text it holds), so a number keeps its
  leading 0 and an amount is parsed from its text by the rule that reads amounts, never
  guessed a float by a CSV reader first. A Parquet file's columns are read as Arrow stores
  them (typed: a decimal stays a decimal). A column the file repeats is refused, as a
  table's is.

May import: the standard library, pandas and pyarrow (when called), and the rule book's
``csvtext``, ``filekind`` and ``arrowinput``. Reads the files it is given; writes none.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from smskit.errors import ValidationError
from smskit.rules.arrowinput import KEEP_ONE_FILE, check_names
from smskit.rules.csvtext import csv_columns, read_csv_text
from smskit.rules.filekind import check_regular_file

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

__all__ = [
    "CSV_SUFFIXES",
    "PARQUET_SUFFIXES",
    "RULE_FILE_PATH",
    "RULE_TABLE_FILE",
    "as_file_path",
    "file_columns",
    "read_table_file",
    "table_path",
]

RULE_FILE_PATH: Final = "must be a file path (a str or pathlib.Path: not empty, no NUL byte)"
CSV_SUFFIXES: Final = (".csv",)
PARQUET_SUFFIXES: Final = (".parquet", ".pq")
RULE_TABLE_FILE: Final = (
    "a table given as a path must name a CSV file (.csv: UTF-8 text, values separated by "
    "commas, a header row) or a Parquet file (.parquet)"
)
_SPREADSHEETS: Final = (".xlsx", ".xlsm", ".xls", ".ods", ".numbers")


def as_file_path(value: Any, field: str) -> Path:
    """A file's path given as ``field``: a ``str`` or ``os.PathLike`` naming a file (not
    empty, no NUL, encodable); else a ValidationError naming ``field``."""
    # TypeError: an os.PathLike of bytes; UnicodeEncodeError: a lone surrogate names no file
    with contextlib.suppress(TypeError, UnicodeEncodeError):
        path = Path(value) if isinstance(value, str | os.PathLike) else None
        if path is not None and str(path) not in ("", ".") and "\x00" not in str(path):
            os.fsencode(path)
            return path
    raise ValidationError(field, RULE_FILE_PATH, value=value)


def table_path(value: Any, field: str, csv_only: str | None = None) -> Path | None:
    """``value`` as the path of a CSV or Parquet file when it is a ``str`` or
    ``os.PathLike`` (None for anything else: a table); refused naming ``field``, the file
    and the rule when it names no such file (missing, a directory, another kind).
    ``csv_only``: a CSV file only is taken (a reader named for CSV), and this says why and
    how a Parquet file is read instead."""
    if not isinstance(value, str | os.PathLike):
        return None
    path = as_file_path(value, field)
    named = repr(str(path))  # in the rule: a value shown is cut at 60 characters
    try:
        is_directory, is_file = path.is_dir(), path.is_file()
    except OSError as exc:  # a name too long, a loop of links ...
        rule = f"{named} cannot be looked at ({exc}): {RULE_TABLE_FILE}"
        raise ValidationError(field, rule) from exc
    if is_directory:
        raise ValidationError(field, f"{named} is a directory, not a file: {RULE_TABLE_FILE}")
    if not is_file:
        check_regular_file(path, field, f"; {RULE_TABLE_FILE}")  # a pipe, a device ...
        raise ValidationError(field, f"{named}: no such file; {RULE_TABLE_FILE}")
    suffix = path.suffix.lower()
    if suffix not in (*CSV_SUFFIXES, *PARQUET_SUFFIXES):
        ends = f"its name ends in {suffix!r}" if suffix else "its name has no suffix"
        save = " (save a spreadsheet as 'CSV UTF-8')" if suffix in _SPREADSHEETS else ""
        raise ValidationError(
            field, f"{named} is neither CSV nor Parquet ({ends}): {RULE_TABLE_FILE}{save}"
        )
    if csv_only is not None and suffix not in CSV_SUFFIXES:
        raise ValidationError(field, f"{named} is a Parquet file, not CSV (.csv): {csv_only}")
    return path


def file_columns(path: Path, field: str) -> list[str]:
    """The column names the header of the file at ``path`` (checked by :func:`table_path`)
    holds, as written: a CSV's first row (:func:`smskit.rules.csvtext.csv_columns`), a
    Parquet file's schema."""
    if path.suffix.lower() in CSV_SUFFIXES:
        return csv_columns(path, field)
    import pyarrow.parquet as pq

    return list(pq.read_schema(path).names)


def read_table_file(path: Path, columns: Sequence[str], field: str) -> pd.DataFrame | pa.Table:
    """The ``columns`` the file at ``path`` (checked by :func:`table_path`) has: a CSV's as
    a pandas DataFrame of texts (:func:`smskit.rules.csvtext.read_csv_text`), a Parquet
    file's as a pyarrow Table; a repeated one, or a file that cannot be read as its kind,
    is refused naming ``field`` and the file."""
    if path.suffix.lower() in CSV_SUFFIXES:  # refuses a repeated column of ``columns`` too
        return read_csv_text(path, columns, field)
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        names = pq.read_schema(path).names
        check_names(names, field, columns, KEEP_ONE_FILE, source=f"the Parquet file {str(path)!r}")
        return pq.read_table(path, columns=[n for n in dict.fromkeys(columns) if n in names])
    except (pa.ArrowException, OSError) as exc:
        raise ValidationError(
            field, f"the Parquet file {str(path)!r} cannot be read ({exc}): {RULE_TABLE_FILE}"
        ) from exc
