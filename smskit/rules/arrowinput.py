"""Recipients given as Arrow data: a pyarrow ``Table``, ``RecordBatch``, ``Array`` or
``ChunkedArray``, or a polars ``DataFrame`` or ``Series`` (read through ``.to_arrow()``).

Each becomes the pandas DataFrame the recipients reader (:mod:`smskit.rules.recipients`)
already reads, through Arrow: text columns become pandas' Arrow-backed ``str`` columns
sharing Arrow's buffers (no Python string a cell), so the phone rules read the numbers from
their bytes. Every column means what the same values mean in a pandas DataFrame; what could
not be read exactly is refused naming the column, the row and the rule:

- a table is a DataFrame: its ``phone_number``, ``country`` and field columns are read, the
  others ignored; a name it repeats (Arrow allows that) is refused, as in pandas;
- an array is a list of numbers (a pandas Series): text or integers, no nulls (a missing
  recipient in a list is refused at its row, as in a Series); an array of structs is a list of
  dicts (its fields are the keys, an unknown one refused, a null row refused);
- ``string``, ``large_string`` and ``string_view`` are text (bytes checked as UTF-8);
  dictionary-encoded columns (a polars ``Categorical`` or ``Enum``) are decoded to their values;
  integers, floats and booleans are numpy columns when they hold no null, pandas' Arrow
  columns otherwise (an integer is never turned into a float); dates, times, decimals keep
  their values (``pd.ArrowDtype``), read as pandas reads the same Python values;
- refused: binary columns (bytes are not text: decode them), nested types (lists, structs,
  maps, unions) in a column, extension types.

polars is never imported here: a polars object is recognised by its type's module, and
polars is then already loaded. pyarrow and pandas are imported only when an Arrow or polars
object is given.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING, Any, Final

from smskit.errors import ValidationError
from smskit.rules.fields import CONTACT_FIELDS
from smskit.rules.once import loaded

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

__all__ = [
    "KEEP_ONE_ARROW",
    "KEEP_ONE_FILE",
    "KEEP_ONE_PANDAS",
    "LIBRARIES",
    "RULE_NOT_RECIPIENT",
    "RULE_UNKNOWN_FIELD",
    "arrow_data",
    "arrow_frame",
    "arrow_library",
    "check_names",
]

LIBRARIES: Final = ("pyarrow", "polars")
RULE_NOT_RECIPIENT: Final = "each recipient must be a phone number or a dict with 'phone_number'"
RULE_UNKNOWN_FIELD: Final = (
    f"unknown field; a contact has {', '.join(CONTACT_FIELDS)} (and 'country')"
)
# More chunks than one per this many rows on average are joined into one first (a copy of the
# bytes, in Arrow): slicing a column into blocks costs a step per chunk.
_ROWS_PER_CHUNK: Final = 10_000
# How to keep one of a repeated column's copies, in each library's words (check_names).
KEEP_ONE_ARROW: Final = "table.select([...]) with one of them"
KEEP_ONE_PANDAS: Final = "frame.loc[:, ~frame.columns.duplicated()]"
KEEP_ONE_FILE: Final = "rename or remove the others in the file"


def arrow_library(value: Any) -> str | None:
    """``"pyarrow"`` or ``"polars"`` when ``value`` is an object of that library (told by its
    type's module: nothing is imported), else None."""
    library = type(value).__module__.partition(".")[0]
    return library if library in LIBRARIES else None


def arrow_frame(
    value: Any, field: str, columns: Collection[str], *, need_number: bool = True
) -> pd.DataFrame | None:
    """``value`` (a pyarrow or polars object) as a pandas DataFrame of the ``columns`` it has
    (the keys a struct array's fields may be), or None when it is not one. ``need_number``:
    a struct array's rows need a ``phone_number``."""
    library = arrow_library(value)
    if library is None:
        return None
    data = arrow_data(value, library, field)
    import pyarrow as pa

    if isinstance(data, pa.Table):
        check_names(data.column_names, field, columns, KEEP_ONE_ARROW)
        return _frame(data, field, [n for n in data.column_names if n in columns])
    if pa.types.is_dictionary(data.type):
        data = _decoded(data)
    if pa.types.is_struct(data.type):
        table = _struct_table(data, field, columns, need_number)
        return _frame(table, field, list(columns))
    return _frame(pa.table({"phone_number": _numbers(data, field)}), field, ["phone_number"])


def arrow_data(value: Any, library: str, field: str) -> pa.Table | pa.ChunkedArray:
    """The object as an Arrow Table (tables) or ChunkedArray (arrays); refuse the others."""
    import pyarrow as pa

    kind = type(value).__name__
    if library == "polars":
        polars = loaded("polars")
        if polars is not None and isinstance(value, polars.DataFrame | polars.Series):
            try:
                value = value.to_arrow()
            except Exception as exc:  # a column polars cannot export (an Object column)
                raise ValidationError(
                    field,
                    f"this polars {kind} cannot be exported to Arrow ({type(exc).__name__}): "
                    "cast its columns to text or numbers",
                    value=kind,
                ) from exc
        else:
            lazy = " (.collect() it first)" if kind == "LazyFrame" else ""
            raise ValidationError(
                field, f"a polars {kind} is not read: pass a polars DataFrame or Series{lazy}"
            )
    if isinstance(value, pa.Table):
        return value
    if isinstance(value, pa.RecordBatch):
        return pa.Table.from_batches([value])
    if isinstance(value, pa.ChunkedArray):
        return value
    if isinstance(value, pa.Array):
        return pa.chunked_array([value], type=value.type)
    reader = " (.read_all() it first)" if isinstance(value, pa.RecordBatchReader) else ""
    raise ValidationError(
        field,
        f"a pyarrow {kind} is not read: pass a Table, RecordBatch, Array or ChunkedArray{reader}",
    )


def check_names(
    names: Iterable[Any],
    field: str,
    columns: Collection[Any],
    keep_one: str,
    *,
    source: str | None = None,
) -> None:
    """Refuse a name of ``columns`` that ``names`` holds twice (a table, a DataFrame or a
    file's header may repeat a column's name): the reader could not tell which one holds the
    values. ``keep_one`` says how to keep one, in the words of the caller's library;
    ``source`` names the file whose header ``names`` is (the refusal then says both columns'
    places in it, counted from 1)."""
    seen: dict[Any, int] = {}
    for position, name in enumerate(names):
        if name in columns and name in seen:
            where = ""
            if source is not None:
                where = f" (columns {seen[name] + 1} and {position + 1} of the header of {source})"
            raise ValidationError(
                f"{field}.{name}",
                f"this column appears more than once{where}: which one holds the values? "
                f"Keep one (e.g. {keep_one})",
            )
        seen.setdefault(name, position)


def _frame(table: pa.Table, field: str, names: list[str]) -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame(
        {
            name: _column(table.column(name), f"{field}.{name}")
            for name in names
            if name in table.column_names
        },
        index=pd.RangeIndex(table.num_rows),
    )


def _first_value(values: pa.ChunkedArray) -> int:
    """The row of the first non-null value (0 when every value is null)."""
    import pyarrow.compute as pc

    valid = pc.indices_nonzero(pc.is_valid(values).combine_chunks())
    return int(valid[0].as_py()) if len(valid) else 0


def _decoded(values: pa.ChunkedArray) -> pa.ChunkedArray:
    """A dictionary-encoded column as its values (the codes only save memory)."""
    return values.cast(values.type.value_type)


def _column(values: pa.ChunkedArray, where: str) -> Any:
    """One Arrow column as the pandas array holding the same values exactly (or refused)."""
    import numpy as np
    import pandas as pd
    import pyarrow as pa

    types = pa.types
    if types.is_dictionary(values.type):
        values = _decoded(values)
    kind = values.type
    if values.num_chunks > max(1, len(values) // _ROWS_PER_CHUNK):
        values = pa.chunked_array([values.combine_chunks()], type=kind)
    if types.is_string_view(kind):
        values = values.cast(pa.large_string())
        kind = values.type
    if types.is_string(kind) or types.is_large_string(kind):
        _check_utf8(values, where)
        text = pd.StringDtype("pyarrow", na_value=np.nan)  # pandas' own `str`, Arrow-backed
        return values.to_pandas(types_mapper={kind: text}.get).array
    if types.is_null(kind):
        return np.full(len(values), None, dtype=object)
    refusal = _refusal(kind)
    if refusal is not None:
        raise ValidationError(where, refusal, position=_first_value(values), value=str(kind))
    plain = types.is_integer(kind) or types.is_floating(kind) or types.is_boolean(kind)
    if plain and values.null_count == 0:
        if types.is_float16(kind):
            values = values.cast(pa.float64())
        return values.to_numpy()
    if types.is_floating(kind):  # a null is NaN, as pandas holds a missing float
        return values.cast(pa.float64()).to_numpy()
    return pd.arrays.ArrowExtensionArray(values)


def _refusal(kind: pa.DataType) -> str | None:
    """Why a column of this Arrow type cannot be read as recipients' values, if it cannot."""
    import pyarrow as pa

    types = pa.types
    if isinstance(kind, pa.BaseExtensionType):
        return "an Arrow extension type is not read: cast the column to text or numbers"
    if types.is_binary(kind) or types.is_large_binary(kind) or types.is_fixed_size_binary(kind):
        return "holds bytes, not text: decode them (.cast(pyarrow.string()) checks UTF-8)"
    if types.is_binary_view(kind):
        return "holds bytes, not text: decode them (.cast(pyarrow.string()) checks UTF-8)"
    if types.is_nested(kind) or types.is_union(kind) or types.is_run_end_encoded(kind):
        return "holds lists, structs or maps, not one value a cell: give text or numbers"
    return None


def _check_utf8(values: pa.ChunkedArray, where: str) -> None:
    """Refuse a text column whose bytes are not UTF-8 (Arrow does not check what a producer
    built from raw buffers), naming the row."""
    for start, chunk in _chunks(values):
        try:
            chunk.validate(full=True)
        except Exception:  # pyarrow.ArrowInvalid
            for i in range(len(chunk)):
                try:
                    chunk.slice(i, 1).validate(full=True)
                except Exception:
                    raise ValidationError(
                        where, "holds bytes that are not UTF-8 text", position=start + i
                    ) from None
            raise ValidationError(where, "is not a valid Arrow text column") from None


def _chunks(values: pa.ChunkedArray) -> list[tuple[int, pa.Array]]:
    start, found = 0, []
    for chunk in values.chunks:
        found.append((start, chunk))
        start += len(chunk)
    return found


def _numbers(values: pa.ChunkedArray, field: str) -> pa.ChunkedArray:
    """An array given as a list of numbers: text or integers, no null (as in a Series)."""
    import pyarrow as pa

    kind = values.type
    if not (
        pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or pa.types.is_string_view(kind)
        or pa.types.is_integer(kind)
    ):
        position = _first_value(values) if len(values) else None
        raise ValidationError(
            field,
            f"{RULE_NOT_RECIPIENT}; an array of {kind} holds neither: cast it to text",
            position=position,
            value=str(kind),
        )
    _refuse_nulls(values, field)
    return values


def _refuse_nulls(values: pa.ChunkedArray, field: str) -> None:
    """A null where a recipient is expected is refused at its row (as in a list or Series)."""
    import pyarrow.compute as pc

    if values.null_count:
        first = pc.indices_nonzero(pc.is_null(values).combine_chunks())[0].as_py()
        raise ValidationError(field, RULE_NOT_RECIPIENT, position=int(first), value=None)


def _struct_table(
    values: pa.ChunkedArray, field: str, known: Collection[str], need_number: bool
) -> pa.Table:
    """An array of structs as a table of its fields, read as a list of dicts."""
    import pyarrow as pa

    names = [values.type.field(i).name for i in range(values.type.num_fields)]
    unknown = sorted(n for n in names if n not in known)
    if unknown and len(values):
        raise ValidationError(f"{field}.{unknown[0]}", RULE_UNKNOWN_FIELD, position=0)
    _refuse_nulls(values, field)
    if need_number and "phone_number" not in names and len(values):
        raise ValidationError(f"{field}.phone_number", "is required", position=0)
    check_names(names, field, known, KEEP_ONE_ARROW)
    combined = values.combine_chunks()
    return pa.table({n: combined.field(i) for i, n in enumerate(names)})
