"""THE recipients reader: one meaning for each value, in every entry point.

``send``, ``contact.create``, ``Campaign``, the Composer, ``text.render_all`` and the bulk
helpers all read recipients here:

- a ``str`` or an integer is ONE phone number (never a path);
- a dict is one recipient (``phone_number`` and the dynamic fields);
- a list, tuple or Series of numbers and/or dicts;
- a DataFrame with a ``phone_number`` column (other columns are ignored);
- Arrow data: a pyarrow ``Table``/``RecordBatch`` or polars ``DataFrame`` as a DataFrame, a
  pyarrow ``Array``/``ChunkedArray`` or polars ``Series`` as a Series, read through Arrow
  (:mod:`smskit.rules.arrowinput`: text stays in Arrow's buffers, no Python string a cell);
- a file, named explicitly: a :class:`~pathlib.Path` (or any ``os.PathLike``) naming a CSV
  (``.csv``) or Parquet (``.parquet``) file, or :meth:`Recipients.from_csv` (CSV only).
  Which kind of file it is and how it is read is :mod:`smskit.rules.files`' rule: a CSV's
  every cell as the text it holds (so a leading ``+`` or ``0`` survives), a Parquet file by
  Arrow, then read as a pyarrow Table given here is (:mod:`smskit.rules.arrowinput`); a
  spreadsheet, a directory, a missing file or another suffix is refused naming the file.

A float is never a phone number (:data:`RULE_FLOAT`): ``33612345678.0`` alone, in a list,
a dict or a float column (what ``pd.read_csv`` makes of digits with blank cells) is refused,
naming the field, the row and the rule; a missing value (NaN) stays a missing number. So is
a float's text, the string ``"33612345678.0"`` (a column once read as floats, written back;
in a CSV file too): it may have lost a leading 0 or '+'. Every entry point that reads
numbers asks :func:`refuse_floats` (bulk HLR, the opt-out list and its CSV file too).

A ``country`` column (or key), when present, is the region of national numbers on that row;
rows without one use the default region. A dict's key that is neither a Contact field nor
``country`` is refused (it is most likely a typo of a field the text uses).

What would be read silently wrong is refused, with what to pass instead: a string that no
phone number could be and that names a file (or ends in ``.csv``/``.parquet``); a Dask
collection (``smskit.dask`` sends those); another library's Arrow data or DataFrame
(iterating one does not give rows); a DataFrame naming a column it reads twice; a text
holding a lone surrogate; an Arrow column that cannot be read exactly (bytes, nested types).
"""

from __future__ import annotations

import contextlib
import numbers
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeAlias, TypeVar

from smskit.errors import ValidationError, advised
from smskit.rules.arrowinput import (
    KEEP_ONE_PANDAS,
    RULE_NOT_RECIPIENT,
    RULE_UNKNOWN_FIELD,
    arrow_frame,
    arrow_library,
    check_names,
)
from smskit.rules.csvtext import row_line
from smskit.rules.fields import (
    CONTACT_FIELDS,
    DYNAMIC_FIELDS,
    RULE_UNENCODABLE,
    field_text,
    unencodable_at,
)
from smskit.rules.files import (
    CSV_SUFFIXES,
    PARQUET_SUFFIXES,
    file_columns,
    read_table_file,
    table_path,
)
from smskit.rules.once import loaded
from smskit.rules.spec import FIELD_MAX

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from pandas.api.extensions import ExtensionArray

    from smskit.rules.phones import Codes

__all__ = [
    "BLOCK_ROWS",
    "FLOAT_FACT",
    "REGION_COLUMN",
    "RULE_FLOAT",
    "RULE_NUMBER_COLUMN",
    "Recipients",
    "arrow_recipients",
    "check_collection",
    "check_columns",
    "check_file_name",
    "contact",
    "contact_rows",
    "first_float",
    "is_float_number",
    "names_file",
    "no_number_column",
    "number_checks",
    "number_codes",
    "records_of",
    "refuse_floats",
]

REGION_COLUMN: Final = "country"
# A file of recipients without its numbers: "the CSV file needs ...".
RULE_NUMBER_COLUMN: Final = "needs a 'phone_number' column"


def no_number_column(kind: str, columns: Sequence[Any]) -> str:
    """The rule a ``kind`` ("CSV", "Parquet") file without a phone_number column breaks,
    naming the columns its header has: a 'Phone_Number', 'phone_number ' or 'phone' header
    is seen only so (the refusal said only that the column was needed)."""
    names = ", ".join(repr(str(name)) for name in columns) or "none"
    return f"the {kind} file {RULE_NUMBER_COLUMN} (its columns: {names})"


_KNOWN_KEYS: Final = frozenset((*CONTACT_FIELDS, REGION_COLUMN))
# Rows per block: below phones.normalize's threshold for helper processes (100,000 distinct
# values), so a campaign's memory is one process's and bounded by the block, not the input.
BLOCK_ROWS: Final = 50_000
_SHAPES: Final = (
    "a phone number (str), a dict, a list of numbers or dicts, a DataFrame (pandas, pyarrow "
    "or polars) with a 'phone_number' column, or a CSV or Parquet file given as a "
    "pathlib.Path"
)


# RULE_FLOAT's fact, apart from its advice (an edge that is not Python words the advice).
FLOAT_FACT: Final = (
    "a float cannot hold a phone number exactly (a leading 0 or '+' is lost, a long number "
    "is rounded), nor can its text ('33612345678.0')"
)
RULE_FLOAT: Final = (
    f"{FLOAT_FACT}: give numbers as text or integers, as written (read a CSV with dtype=str, "
    "e.g. pandas.read_csv(path, dtype=str), or pass the file as a pathlib.Path)"
)


def is_float_number(value: Any) -> bool:
    """Whether ``value`` is a float (Python's, numpy's) that is not a missing marker (NaN)."""
    return (
        isinstance(value, numbers.Real)
        and not isinstance(value, numbers.Integral)
        and value == value  # NaN is a missing number, not a float one
    )


def first_float(values: Any) -> int | None:
    """The position of the first float of ``values`` (a Series, an array or a list) that is
    not missing, or of the first float's text (``33612345678.0``, which may have lost a
    leading 0 or '+'), or None. Columns of integers are answered from their dtype, columns
    of text by Arrow."""
    import numpy as np
    import pandas as pd

    from smskit.rules._phonetexts import FLOAT_TEXT, arrow_strings, is_float_text

    series = values if isinstance(values, pd.Series) else pd.Series(values, dtype=object)
    if pd.api.types.is_float_dtype(series.dtype):
        present = np.flatnonzero(series.notna().to_numpy(dtype=bool))
        return int(present[0]) if len(present) else None
    strings = arrow_strings(series, whole=False)
    if strings is None and series.dtype == object:
        kind = pd.api.types.infer_dtype(series, skipna=True)
        if kind in ("integer", "empty"):
            return None  # one pass in C over the common shapes
        import pyarrow as pa

        if kind == "string":
            # A lone surrogate has no UTF-8 for Arrow: read item by item below (its own rule
            # names it after this one).
            with contextlib.suppress(UnicodeEncodeError):
                strings = pa.array(series.to_numpy(), type=pa.large_string(), from_pandas=True)
        if strings is None:
            items = series.tolist()
            found = (i for i, v in enumerate(items) if is_float_number(v) or is_float_text(v))
            return next(found, None)
    if strings is None:
        return None
    import pyarrow.compute as pc

    if not pc.any(pc.match_substring(strings, ".")).as_py():
        return None  # most columns: no "." anywhere
    trimmed = pc.utf8_trim_whitespace(strings)
    floated = pc.match_substring_regex(trimmed, f"^{FLOAT_TEXT}$").fill_null(False)
    at = np.flatnonzero(floated.to_numpy(zero_copy_only=False))
    return int(at[0]) if len(at) else None


def refuse_floats(values: Any, field: str, path: Path | None = None) -> None:
    """Refuse the first float of ``values`` that is not missing, or float's text
    (:data:`RULE_FLOAT`), naming ``field`` and its row. ``values`` read from the CSV file at
    ``path``: the refusal also carries the file's line (``.line``, the header is line 1) and
    its fact apart from the advice (:data:`FLOAT_FACT`; the advice names ``dtype``)."""
    at = first_float(values)
    if at is None:
        return
    value = values.iloc[at] if hasattr(values, "iloc") else values[at]
    if path is None:
        raise ValidationError(field, RULE_FLOAT, position=at, value=value)
    line = row_line(path, at)
    error = ValidationError(field, RULE_FLOAT, position=at, value=value, line=line)
    raise advised(error, FLOAT_FACT, "dtype")


# What a phone number may hold, written any way: digits, spaces and the usual punctuation.
_NUMBER_LIKE: Final = re.compile(r"[0-9\s+\-.()]*")
_FILE_SUFFIXES: Final = (".csv", ".parquet")
FROM_CSV_ONLY: Final = (
    "from_csv reads CSV files only (its name says so); a Parquet file is read given as a "
    "pathlib.Path as the recipients themselves"
)


def check_collection(value: Any, field: str) -> None:
    """Refuse a collection that iterating would read wrongly: a Dask collection (its column
    names, not its rows), Arrow data or a DataFrame of a library other than pandas, pyarrow
    and polars (those are read by :func:`arrow_recipients`)."""
    kind = type(value)
    if hasattr(kind, "__dask_graph__"):
        raise ValidationError(
            field,
            "a Dask collection is sent partition by partition by smskit.dask (smskit.dask."
            "Campaign, smskit.dask.bulk_hlr ...); here, pass a pandas DataFrame or a list "
            "(.compute() one that fits in memory)",
            value=kind.__name__,
        )
    pandas = loaded("pandas")  # whole, even while another thread still imports it
    if pandas is not None and isinstance(value, pandas.DataFrame | pandas.Series):
        return
    if arrow_library(value) is not None:
        return
    if any(hasattr(kind, name) for name in ("__arrow_c_stream__", "__arrow_c_array__",
                                            "__dataframe__")):  # fmt: skip
        raise ValidationError(
            field,
            f"a {kind.__module__.partition('.')[0]} object is not read here: pass a pandas "
            "DataFrame (.to_pandas()), a pyarrow Table (pyarrow.table(...)) or a list",
            value=kind.__name__,
        )


def names_file(value: str) -> bool:
    """Whether the string ``value``, which no phone number could be, names a file: an
    existing file, or a name ending in .csv/.parquet."""
    if _NUMBER_LIKE.fullmatch(value):
        return False
    return value.strip().lower().endswith(_FILE_SUFFIXES) or os.path.isfile(value)


def check_file_name(value: str, field: str) -> None:
    """Refuse a string no phone number could be that names a file, or ends in .csv/.parquet:
    a string is always one number, so the file would be read as one wrong number. The
    refusal says to pass the file as a ``pathlib.Path`` (read by :mod:`smskit.rules.files`);
    a CSV file of a campaign's ``recipients`` may also be read by ``Campaign.from_csv``, the
    other calls (``bulk_hlr``'s ``numbers``, contacts) take the ``Path`` only."""
    if names_file(value):
        fact = "a string is one phone number, and this one names a file"
        if value.strip().lower().endswith(CSV_SUFFIXES):
            instead = f"pass pathlib.Path({value!r})"
            if field == "recipients":  # a campaign's: Campaign.from_csv reads the same file
                instead += f" (or Campaign.from_csv(client, {value!r}, ...))"
            refusal = ValidationError(field, f"{fact}: to read the file, {instead}", value=value)
            raise advised(refusal, fact, "path")
        # A Parquet file is read given as a Path; another kind is saved as one first (a
        # Path naming it is refused: rules/files). The command line reads CSV only.
        if value.strip().lower().endswith(PARQUET_SUFFIXES):
            instead = f"pass pathlib.Path({value!r}) (a Parquet file)"
        else:
            instead = (
                "save it as a CSV (.csv, UTF-8) or Parquet (.parquet) file and pass that "
                "file's pathlib.Path"
            )
        refusal = ValidationError(field, f"{fact}: to read the file, {instead}", value=value)
        raise advised(refusal, fact, "path_not_csv")


def check_columns(names: Iterable[Any], field: str) -> None:
    """Refuse a column the reader would read twice (a DataFrame may repeat a name)."""
    check_names(names, field, _KNOWN_KEYS, KEEP_ONE_PANDAS)


def _check_encodable(frame: pd.DataFrame, field: str) -> None:
    """Refuse a text cell holding a lone surrogate, naming its column and row. Arrow-backed
    columns cannot hold one: only Python objects are looked at."""
    for name in frame.columns:
        column = frame[name]
        if column.dtype != object and getattr(column.dtype, "storage", None) != "python":
            continue
        values = column.tolist()
        texts = [v for v in values if isinstance(v, str)]
        if unencodable_at("".join(texts)) is None:
            continue
        row = next(i for i, v in enumerate(values)
                   if isinstance(v, str) and unencodable_at(v) is not None)  # fmt: skip
        raise ValidationError(f"{field}.{name}", RULE_UNENCODABLE, position=row, value=values[row])


def _is_number_value(item: Any) -> bool:
    return isinstance(item, str) or (
        isinstance(item, numbers.Integral) and not isinstance(item, bool)
    )


class Recipients:
    """Where the recipients come from, read one way; a DataFrame or list is a snapshot.

    ``field`` names the parameter in errors (``recipients``, ``contacts``).
    """

    def __init__(
        self, recipients: Any, *, field: str = "recipients", need_number: bool = True
    ) -> None:
        self.field = field
        self.need_number = need_number
        self.path: Path | None = None
        self.frame: pd.DataFrame | None = None
        if isinstance(recipients, Recipients):
            self.path, self.frame = recipients.path, recipients.frame
            self.need_number = recipients.need_number
            return
        if isinstance(recipients, os.PathLike):
            # An existing .csv or .parquet file, else refused naming it (rules/files).
            self.path = table_path(recipients, field)
            return
        check_collection(recipients, field)
        recipients = arrow_recipients(recipients, field, need_number=need_number)
        if isinstance(recipients, str):
            check_file_name(recipients, field)
        import pandas as pd

        if isinstance(recipients, pd.DataFrame):
            if need_number and "phone_number" not in recipients.columns:
                raise ValidationError(
                    field, "a DataFrame of recipients needs a 'phone_number' column"
                )
            check_columns(recipients.columns, field)
            # A snapshot of the known columns (copy-on-write: free until the caller edits it).
            self.frame = recipients[[c for c in recipients.columns if c in _KNOWN_KEYS]]
            if "phone_number" in self.frame.columns:
                refuse_floats(self.frame["phone_number"], f"{field}.phone_number")
            _check_encodable(self.frame, field)
            return
        if (
            _is_number_value(recipients)
            or is_float_number(recipients)
            or isinstance(recipients, Mapping)
        ):
            recipients = [recipients]
        # A set has no order, so no row a finding could name; bytes are not text.
        if isinstance(recipients, bytes | bytearray | AbstractSet) or not isinstance(
            recipients, Iterable
        ):
            raise ValidationError(field, f"must be {_SHAPES}", value=type(recipients).__name__)
        self.frame = _frame_of_items(list(recipients), field, need_number)
        _check_encodable(self.frame, field)

    @classmethod
    def from_csv(cls, path: str | os.PathLike[str], *, field: str = "recipients") -> Recipients:
        """Recipients read from the CSV file at ``path`` (a header row with ``phone_number``);
        a Parquet file is refused, saying to give its ``pathlib.Path`` as the recipients."""
        return cls(table_path(path, field, csv_only=FROM_CSV_ONLY), field=field)

    @property
    def is_csv(self) -> bool:
        """Whether the recipients are a CSV file (False: a Parquet file, or in memory)."""
        return self.path is not None and self.path.suffix.lower() in CSV_SUFFIXES

    def describe(self) -> str:
        """A short description for the journal and reprs."""
        if self.path is not None:
            return f"{'CSV' if self.is_csv else 'Parquet'} file {self.path.name}"
        assert self.frame is not None
        return f"{len(self.frame)} rows in memory"

    def fingerprint(self) -> str:
        """Changes when the recipients can have changed: a file's size and modification time;
        a snapshot in memory never changes."""
        if self.path is None:
            return "snapshot"
        stat = self.path.stat()
        return f"file:{stat.st_size}:{stat.st_mtime_ns}"

    def table(self, columns: Sequence[str]) -> pd.DataFrame:
        """Every row at once: ``row``, ``phone_number``, ``country`` and ``columns``."""
        import pandas as pd

        parts = list(self.blocks(columns))
        return parts[0] if len(parts) == 1 else pd.concat(parts)

    def blocks(self, columns: Sequence[str], size: int = BLOCK_ROWS) -> Iterator[pd.DataFrame]:
        """Blocks of ``phone_number``, ``country`` and ``columns`` (absent ones as nulls), with
        a ``row`` position column; the index is the input's own (positions for CSV, lists)."""
        wanted = list(dict.fromkeys(["phone_number", REGION_COLUMN, *columns]))
        # A CSV is read whole, as compact text columns; only a block becomes Python objects.
        frame = self.frame if self.frame is not None else self._read_file(wanted)
        for start in range(0, max(len(frame), 1), size):
            yield _with_columns(frame.iloc[start : start + size], wanted, start)

    def columns(self, columns: Sequence[str]) -> pd.DataFrame:
        """Every row at once, as read: ``phone_number``, ``country`` and ``columns`` (absent
        ones as nulls). A CSV's columns stay pandas' compact strings (never a Python object a
        cell); a snapshot's are its own values. The index is the input's own."""
        import pandas as pd

        wanted = list(dict.fromkeys(["phone_number", REGION_COLUMN, *columns]))
        frame = self.frame if self.frame is not None else self._read_file(wanted)
        # None for an absent column: pandas makes its column once (an array given is copied).
        return pd.DataFrame(
            {name: frame[name].array if name in frame.columns else None for name in wanted},
            index=frame.index,
        )

    def _read_file(self, wanted: Sequence[str]) -> pd.DataFrame:
        """The file's ``wanted`` columns (rules/files: a CSV's as text, a Parquet file's by
        Arrow, then as a pyarrow Table given as recipients is read)."""
        assert self.path is not None
        if not self.is_csv:  # the columns a pyarrow Table given here is read for
            wanted = [name for name in wanted if name in _KNOWN_KEYS]
        read = read_table_file(self.path, wanted, self.field)
        frame = read if self.is_csv else arrow_frame(read, self.field, wanted)
        assert frame is not None
        kind = "CSV" if self.is_csv else "Parquet"
        if self.need_number and "phone_number" not in frame.columns:
            rule = no_number_column(kind, file_columns(self.path, self.field))
            raise ValidationError(self.field, rule)
        if "phone_number" in frame.columns:
            at = self.path if self.is_csv else None  # a CSV's line is named
            refuse_floats(frame["phone_number"], f"{self.field}.phone_number", at)
        return frame


def arrow_recipients(value: Any, field: str, *, need_number: bool = True) -> Any:
    """A pyarrow or polars object as the pandas DataFrame of its recipients' columns, read
    through Arrow (:func:`smskit.rules.arrowinput.arrow_frame`); any other value as it is."""
    frame = arrow_frame(value, field, _KNOWN_KEYS, need_number=need_number)
    return value if frame is None else frame


def _frame_of_items(items: list[Any], field: str, need_number: bool) -> pd.DataFrame:
    import pandas as pd

    rows = []
    for position, item in enumerate(items):
        if isinstance(item, Mapping):
            unknown = sorted(str(k) for k in item if k not in _KNOWN_KEYS)
            if unknown:
                raise ValidationError(
                    f"{field}.{unknown[0]}", RULE_UNKNOWN_FIELD, position=position
                )
            if need_number and "phone_number" not in item:
                raise ValidationError(f"{field}.phone_number", "is required", position=position)
            rows.append(dict(item))
        elif _is_number_value(item):
            rows.append({"phone_number": item})
        elif is_float_number(item):
            raise ValidationError(
                f"{field}.phone_number", RULE_FLOAT, position=position, value=item
            )
        else:
            raise ValidationError(field, RULE_NOT_RECIPIENT, position=position, value=item)
    frame = pd.DataFrame(rows, columns=None if rows else ["phone_number"], dtype=object)
    if "phone_number" in frame.columns:  # a dict's number
        refuse_floats(frame["phone_number"], f"{field}.phone_number")
    return frame


def _with_columns(part: pd.DataFrame, wanted: Sequence[str], start: int) -> pd.DataFrame:
    import numpy as np
    import pandas as pd

    data = {
        name: part[name].to_numpy(dtype=object)
        if name in part.columns
        else np.full(len(part), None, dtype=object)
        for name in wanted
    }
    block = pd.DataFrame(data, index=part.index)
    block.insert(0, "row", np.arange(start, start + len(part), dtype="int64"))
    return block


_Checked = TypeVar("_Checked")


# Where a bad region cell is: the column's field, and each value's row in the input (None:
# the values are the input's rows, in order).
RegionAt: TypeAlias = tuple[str, "Sequence[int] | np.ndarray | None"]


def number_checks(
    values: Sequence[Any] | np.ndarray | ExtensionArray,
    regions: Sequence[Any] | np.ndarray | ExtensionArray,
    default_region: str | None,
    at: RegionAt = (REGION_COLUMN, None),
) -> pd.DataFrame:
    """:func:`smskit.rules.phones.normalize` of ``values``, each read in its row's region
    (``regions``, the ``country`` column; a missing one means ``default_region``). Arrays
    (numpy, or pandas' Arrow strings of a CSV) go as they are: no Python list a row. ``at``:
    the field a bad region is refused as, and each value's row when the values are a part
    of the input (a block, the distinct numbers), so the refusal names the input's row."""
    from smskit.rules import phones

    return _region_named(phones.normalize, values, regions, default_region, at)


def number_codes(
    values: Sequence[Any] | np.ndarray | ExtensionArray,
    regions: Sequence[Any] | np.ndarray | ExtensionArray,
    default_region: str | None,
    at: RegionAt = (REGION_COLUMN, None),
) -> Codes:
    """:func:`number_checks` as code arrays (:func:`smskit.rules.phones.normalize_codes`)."""
    from smskit.rules import phones

    return _region_named(phones.normalize_codes, values, regions, default_region, at)


def _region_named(
    check: Callable[..., _Checked],
    values: Sequence[Any] | np.ndarray | ExtensionArray,
    regions: Sequence[Any] | np.ndarray | ExtensionArray,
    default_region: str | None,
    at: RegionAt,
) -> _Checked:
    """``check`` of the numbers in their rows' regions; a bad region names the column (the
    field of ``at``) and the row in the input (by ``at``'s rows, when given)."""
    try:
        return check(_series(values), default_region, region=_series(regions))
    except ValidationError as exc:
        if exc.field != "region":
            raise
        field, rows = at
        position = exc.position
        if rows is not None and isinstance(position, int):
            position = int(rows[position])
        raise ValidationError(field, exc.rule, position=position, value=exc.value) from exc


def _series(values: Sequence[Any] | np.ndarray | ExtensionArray) -> pd.Series:
    import numpy as np
    import pandas as pd

    if isinstance(values, pd.api.extensions.ExtensionArray):
        return pd.Series(values)
    # An object array stays one: no inference over the values.
    return pd.Series(values if isinstance(values, np.ndarray) else list(values), dtype=object)


def records_of(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """A frame's rows as dicts keyed by column name."""
    return [{str(k): v for k, v in record.items()} for record in frame.to_dict("records")]


def contact(
    record: Mapping[str, Any], row: int, field: str, number: Any, *, strict: bool
) -> dict[str, Any]:
    """One Contact object: ``number`` and the record's dynamic fields as text (missing ones
    left out). With ``strict``, a field over 50 characters is refused; a field that is not a
    scalar always is."""
    result: dict[str, Any] = {
        "phone_number": number if isinstance(number, str) else field_text(number)
    }
    for name in DYNAMIC_FIELDS:
        text = field_text(record.get(name), f"{field}.{name}", row)
        if text is None:
            continue
        if strict and len(text) > FIELD_MAX:
            raise ValidationError(
                f"{field}.{name}",
                f"at most {FIELD_MAX} characters, got {len(text)}",
                position=row,
                value=text,
            )
        result[name] = text
    return result


def contact_rows(
    recipients: Recipients, *, default_region: str | None, strict: bool
) -> list[dict[str, Any]]:
    """The Contact objects a send posts (numbers in E.164, fields as text, missing left out).

    With ``strict``, an invalid number, a field that is not a scalar or longer than 50
    characters is refused, naming field and row; without it, values are only made sendable.
    """
    rows: list[dict[str, Any]] = []
    for block in recipients.blocks(DYNAMIC_FIELDS):
        given = block["phone_number"].tolist()
        numbers = given
        if strict:
            checks = number_checks(given, block[REGION_COLUMN].tolist(), default_region)
            positions = block["row"].tolist()
            for i in range(len(given)):
                if not checks["valid"].iat[i]:
                    raise ValidationError(
                        f"{recipients.field}.phone_number",
                        f"is not a valid phone number ({checks['reason'].iat[i]}); give it in "
                        "international format, e.g. '+33612345678', or its country in a "
                        "'country' column",
                        position=int(positions[i]),
                        value=given[i],
                    )
            numbers = [str(e) for e in checks["e164"]]
        records = records_of(block[list(DYNAMIC_FIELDS)])
        rows += [
            contact(record, int(row), recipients.field, number, strict=strict)
            for record, row, number in zip(records, block["row"], numbers, strict=True)
        ]
    return rows
