"""THE recipients reader: one meaning for each value, in every entry point.

``send``, ``contact.create``, ``Campaign``, the Composer, ``text.render_all`` and the bulk
helpers all read recipients here:

- a ``str`` or an integer is ONE phone number (never a path);
- a dict is one recipient (``phone_number`` and the dynamic fields);
- a list, tuple or Series of numbers and/or dicts;
- a DataFrame with a ``phone_number`` column (other columns are ignored);
- a file, named explicitly: a :class:`~pathlib.Path` (or any ``os.PathLike``), or
  :meth:`Recipients.from_csv`; it is read as text, so a leading ``+`` or ``0`` survives.

A ``country`` column (or key), when present, is the region of national numbers on that row;
rows without one use the default region. A dict's key that is neither a Contact field nor
``country`` is refused (it is most likely a typo of a field the text uses).
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeVar

from smskit.errors import ValidationError
from smskit.rules.fields import CONTACT_FIELDS, DYNAMIC_FIELDS, field_text
from smskit.rules.spec import FIELD_MAX

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from pandas.api.extensions import ExtensionArray

    from smskit.rules.phones import Codes

__all__ = [
    "BLOCK_ROWS",
    "DEFAULT_REGION",
    "REGION_COLUMN",
    "Recipients",
    "contact",
    "contact_rows",
    "number_checks",
    "number_codes",
    "read_csv_text",
    "records_of",
]

REGION_COLUMN: Final = "country"
# The region of national numbers when a row names none (the gateway's home market).
DEFAULT_REGION: Final = "FR"
_KNOWN_KEYS: Final = frozenset((*CONTACT_FIELDS, REGION_COLUMN))
# Rows per block: below phones.normalize's threshold for helper processes (100,000 distinct
# values), so a campaign's memory is one process's and bounded by the block, not the input.
BLOCK_ROWS: Final = 50_000
_SHAPES: Final = (
    "a phone number (str), a dict, a list of numbers or dicts, a DataFrame with a "
    "'phone_number' column, or a CSV file given as a pathlib.Path"
)


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
            self.path = Path(recipients)
            if not self.path.is_file():
                raise ValidationError(
                    field, "a path must name an existing CSV file", value=str(recipients)
                )
            return
        import pandas as pd

        if isinstance(recipients, pd.DataFrame):
            if need_number and "phone_number" not in recipients.columns:
                raise ValidationError(
                    field, "a DataFrame of recipients needs a 'phone_number' column"
                )
            # A snapshot of the known columns (copy-on-write: free until the caller edits it).
            self.frame = recipients[[c for c in recipients.columns if c in _KNOWN_KEYS]]
            return
        if _is_number_value(recipients) or isinstance(recipients, Mapping):
            recipients = [recipients]
        # A set has no order, so no row a finding could name; bytes are not text.
        if isinstance(recipients, bytes | bytearray | AbstractSet) or not isinstance(
            recipients, Iterable
        ):
            raise ValidationError(field, f"must be {_SHAPES}", value=type(recipients).__name__)
        self.frame = _frame_of_items(list(recipients), field, need_number)

    @classmethod
    def from_csv(cls, path: str | os.PathLike[str], *, field: str = "recipients") -> Recipients:
        """Recipients read from the CSV file at ``path`` (a header row with ``phone_number``)."""
        return cls(Path(path), field=field)

    def describe(self) -> str:
        """A short description for the journal and reprs."""
        if self.path is not None:
            return f"CSV file {self.path.name}"
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
        frame = self.frame if self.frame is not None else self._read_csv(wanted)
        for start in range(0, max(len(frame), 1), size):
            yield _with_columns(frame.iloc[start : start + size], wanted, start)

    def columns(self, columns: Sequence[str]) -> pd.DataFrame:
        """Every row at once, as read: ``phone_number``, ``country`` and ``columns`` (absent
        ones as nulls). A CSV's columns stay pandas' compact strings (never a Python object a
        cell); a snapshot's are its own values. The index is the input's own."""
        import numpy as np
        import pandas as pd

        wanted = list(dict.fromkeys(["phone_number", REGION_COLUMN, *columns]))
        frame = self.frame if self.frame is not None else self._read_csv(wanted)
        return pd.DataFrame(
            {
                name: frame[name].array
                if name in frame.columns
                else np.full(len(frame), None, dtype=object)
                for name in wanted
            },
            index=frame.index,
        )

    def _read_csv(self, wanted: Sequence[str]) -> pd.DataFrame:
        assert self.path is not None
        frame = read_csv_text(self.path, wanted, self.field)
        if self.need_number and "phone_number" not in frame.columns:
            raise ValidationError(self.field, "the CSV file needs a 'phone_number' column")
        return frame


def read_csv_text(path: Path, wanted: Sequence[str], field: str = "recipients") -> pd.DataFrame:
    """The columns of ``wanted`` that the CSV file at ``path`` has, every cell as the text it
    holds: an empty cell is missing, nothing else is ("NA", "null", "00123" and blanks stay
    as written). Read by Arrow into pandas' compact strings; what Arrow reads differently
    from pandas (short rows, repeated or missing header names, lines of blanks) is read by
    pandas, which defines the meaning. A row with more values than the header is refused,
    naming its position: pandas would drop or shift its values."""
    import pandas as pd

    names = _header(path)
    if names is None:
        raise ValidationError(field, "the CSV file is empty")
    present = [name for name in dict.fromkeys(names) if name in wanted]  # the file's order
    fast = names is not _UNSURE and all(names.count(name) == 1 for name in present)
    if fast:
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
    try:
        return pd.read_csv(
            path,
            dtype=str,
            keep_default_na=False,
            na_values=[""],
            usecols=lambda name: name in wanted,
        )
    except pd.errors.EmptyDataError:
        raise ValidationError(field, "the CSV file is empty") from None


_UNSURE: Final[list[str]] = []


def _header(path: Path) -> list[str] | None:
    """The header row's names; None for a file without one, ``_UNSURE`` when pandas might
    read it otherwise (leading blank lines, bytes that are not UTF-8)."""
    import csv

    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            first = next(csv.reader(handle), None)
    except (UnicodeDecodeError, csv.Error):
        return _UNSURE
    if first is None:
        return None
    return first if any(name.strip() for name in first) else _UNSURE


def _first_long_row(path: Path) -> tuple[int, int, int] | None:
    """The first row holding more values than the header names (its position among the
    rows, its count, the header's), or None. pandas would read such a row by dropping the
    extra values (or, on the first row, by taking the first value as an index and moving the
    others one column left): never what the file says."""
    import csv

    # Only delimiters and quotes matter for counting, and both are ASCII.
    with path.open(encoding="utf-8-sig", errors="surrogateescape", newline="") as handle:
        rows = (row for row in csv.reader(handle) if row)  # pandas skips blank lines
        try:
            header = next(rows, None)
            if header is None:
                return None
            for position, row in enumerate(rows):
                if len(row) > len(header):
                    return position, len(row), len(header)
        except csv.Error:  # e.g. a NUL byte: pandas decides, as for any file it reads
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


def _frame_of_items(items: list[Any], field: str, need_number: bool) -> pd.DataFrame:
    import pandas as pd

    rows = []
    for position, item in enumerate(items):
        if isinstance(item, Mapping):
            unknown = sorted(str(k) for k in item if k not in _KNOWN_KEYS)
            if unknown:
                raise ValidationError(
                    f"{field}.{unknown[0]}",
                    f"unknown field; a contact has {', '.join(CONTACT_FIELDS)} (and 'country')",
                    position=position,
                )
            if need_number and "phone_number" not in item:
                raise ValidationError(f"{field}.phone_number", "is required", position=position)
            rows.append(dict(item))
        elif _is_number_value(item):
            rows.append({"phone_number": item})
        else:
            raise ValidationError(
                field,
                "each recipient must be a phone number or a dict with 'phone_number'",
                position=position,
                value=item,
            )
    frame = pd.DataFrame(rows, columns=None if rows else ["phone_number"], dtype=object)
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


def number_checks(
    values: Sequence[Any] | np.ndarray | ExtensionArray,
    regions: Sequence[Any] | np.ndarray | ExtensionArray,
    default_region: str | None,
) -> pd.DataFrame:
    """:func:`smskit.rules.phones.normalize` of ``values``, each read in its row's region
    (``regions``, the ``country`` column; a missing one means ``default_region``). Arrays
    (numpy, or pandas' Arrow strings of a CSV) go as they are: no Python list a row."""
    from smskit.rules import phones

    return _region_named(phones.normalize, values, regions, default_region)


def number_codes(
    values: Sequence[Any] | np.ndarray | ExtensionArray,
    regions: Sequence[Any] | np.ndarray | ExtensionArray,
    default_region: str | None,
) -> Codes:
    """:func:`number_checks` as code arrays (:func:`smskit.rules.phones.normalize_codes`)."""
    from smskit.rules import phones

    return _region_named(phones.normalize_codes, values, regions, default_region)


def _region_named(
    check: Callable[..., _Checked],
    values: Sequence[Any] | np.ndarray | ExtensionArray,
    regions: Sequence[Any] | np.ndarray | ExtensionArray,
    default_region: str | None,
) -> _Checked:
    """``check`` of the numbers in their rows' regions; a bad region names the column."""
    try:
        return check(_series(values), default_region, region=_series(regions))
    except ValidationError as exc:
        if exc.field != "region":
            raise
        raise ValidationError(
            REGION_COLUMN, exc.rule, position=exc.position, value=exc.value
        ) from exc


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
