"""An opt-out list read from CSV, every row exactly or the whole file refused.

The file :meth:`smskit.replies.optouts.OptOuts.to_csv` writes (and any file with a
``phone_number`` column): ``phone_number`` a valid number (a national one in its row's
``country`` when the file has that column and the cell is filled, else in the default
region; on a row whose ``source`` is a callback's, a number that is not valid is kept as
given, as the list kept it: :func:`smskit.rules.optouts.listed_form`), ``opted_out_at``
empty or an ISO 8601 date-time with its offset, ``source`` empty or one of
:data:`~smskit.replies.optouts.SOURCES`, ``reference`` and ``note`` any text. The
cells are read as the text they hold (:func:`smskit.rules.csvtext.read_csv_text`); a row
that breaks a rule refuses the file with a :class:`~smskit.ValidationError` naming the row
(``optouts[3].phone_number``, counted from 0 after the header) and the rule.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from smskit.errors import ValidationError
from smskit.replies.reports import micros
from smskit.rules.missing import is_missing
from smskit.rules.optouts import listed_form

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CSV_SOURCES", "read_optouts_csv"]

CSV_SOURCES: Final = ("stop_callback", "stop_reply", "manual")  # optouts.SOURCES
CALLBACK_SOURCES: Final = CSV_SOURCES[:2]
_COLUMNS: Final = ("phone_number", "opted_out_at", "source", "reference", "note")

Row = tuple[str, int | None, str, str | None, str | None]


def read_optouts_csv(path: Path, default_region: str | None) -> list[Row]:
    """Each row of the file at ``path`` as (E.164 number, when in UTC microseconds or None,
    source, reference, note), in file order, a number once (its first row)."""
    from smskit.rules.csvtext import csv_columns, read_csv_text
    from smskit.rules.recipients import no_number_column

    frame = read_csv_text(path, (*_COLUMNS, "country"), field="optouts")
    if "phone_number" not in frame.columns:
        rule = no_number_column("CSV", csv_columns(path, "optouts"))
        raise ValidationError("optouts", rule, value=path.name)
    numbers = _numbers(frame, default_region, path)
    rows: dict[str, Row] = {}
    for position, record in enumerate(frame.to_dict("records")):
        number = numbers[position]
        if number not in rows:
            rows[number] = (
                number,
                _when(record.get("opted_out_at"), position),
                _source(record.get("source"), position),
                _text(record.get("reference")),
                _text(record.get("note")),
            )
    return list(rows.values())


def _numbers(frame: pd.DataFrame, default_region: str | None, path: Path) -> list[str]:
    """Each row's number in E.164, read as recipients are (:func:`number_checks`): in its
    ``country`` cell's region when the file has that column and the cell is filled (a
    national number of a Belgian row is Belgian, not French), else ``default_region``. A
    number that is not valid, a float's text (``33612345678.0``) or a country the numbering
    plan does not know, refuses the file naming the row."""
    from smskit.rules.recipients import number_checks, refuse_floats

    refuse_floats(frame["phone_number"], "optouts.phone_number", path)  # names its line
    values = frame["phone_number"].array
    regions = frame["country"].array if "country" in frame.columns else [None] * len(frame)
    try:
        checked = number_checks(values, regions, default_region)
    except ValidationError as exc:  # a region code the numbering plan does not know
        raise ValidationError(
            "optouts.country", exc.rule, position=exc.position, value=exc.value
        ) from exc
    sources = frame["source"].array if "source" in frame.columns else [None] * len(frame)
    numbers = []
    for position, (e164, reason) in enumerate(zip(checked["e164"], checked["reason"], strict=True)):
        given = values[position]
        if not isinstance(e164, str) and sources[position] in CALLBACK_SOURCES:
            e164 = listed_form(given)  # a callback's number the list kept as given
        if not isinstance(e164, str):
            raise ValidationError(
                "optouts.phone_number",
                f"not a valid phone number ({reason})",
                position=position,
                value=values[position],
            )
        numbers.append(e164)
    return numbers


def _when(value: Any, position: int) -> int | None:
    if is_missing(value):
        return None
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        moment = None
    if moment is None or moment.utcoffset() is None:
        raise ValidationError(
            "optouts.opted_out_at",
            "must be an ISO 8601 date-time with its offset (2026-11-24T17:05:00+00:00)",
            position=position,
            value=value,
        )
    return micros(moment)


def _source(value: Any, position: int) -> str:
    if is_missing(value):
        return "manual"
    if value not in CSV_SOURCES:
        raise ValidationError(
            "optouts.source",
            f"must be one of {', '.join(CSV_SOURCES)} (or empty: manual)",
            position=position,
            value=value,
        )
    return str(value)


def _text(value: Any) -> str | None:
    return None if is_missing(value) else str(value)
