"""Delivery reports and STOP callbacks: read tolerantly, stored once, one status per message.

The vendor's callbacks beside the spec's replies (see :mod:`smskit.rules.callbacks` and
docs/callbacks.md). Reading never fails on a body that is a JSON object of one of these
kinds: a field missing, of another type, a date that cannot be read or a status smskit
does not know is kept as it came (the whole body is kept too) and named in ``flags``:
``missing:<field>``, ``unreadable:<field>``, ``unknown_status``.

Stored idempotently: a report's identity is its body in the canonical JSON spelling, so a
report delivered twice (or retried) is stored once. Each message's standing status follows
:func:`smskit.rules.callbacks.status_tier`: a final status is never replaced by an earlier
report arriving late. The SQL here runs inside the inbox's transaction
(:mod:`smskit.replies.inbox`); the frames are built from its rows.
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

from smskit.rules.callbacks import DATE_FORMAT, DELIVERY_STATUSES, FINAL_STATUSES, status_tier
from smskit.rules.canonical import canonical_bytes

if TYPE_CHECKING:
    import pandas

__all__ = [
    "REPORT_COLUMNS",
    "SCHEMA",
    "STATUS_COLUMNS",
    "STOP_COLUMNS",
    "Report",
    "micros",
    "parse_report",
    "stored_times",
]

SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS delivery_reports (
    key TEXT PRIMARY KEY, message_id TEXT, number TEXT, status TEXT, delivery_date INTEGER,
    delivery_date_raw TEXT, list_name TEXT, unit_price REAL, flags TEXT NOT NULL,
    body TEXT NOT NULL, received_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS delivery_reports_by_message ON delivery_reports (message_id);
CREATE TABLE IF NOT EXISTS delivery_status (
    message_id TEXT PRIMARY KEY, report_key TEXT NOT NULL, tier INTEGER NOT NULL,
    delivery_date INTEGER);
CREATE TABLE IF NOT EXISTS stops (
    key TEXT PRIMARY KEY, message_id TEXT, number TEXT, text TEXT, stop_date INTEGER,
    stop_date_raw TEXT, flags TEXT NOT NULL, body TEXT NOT NULL, received_at INTEGER NOT NULL);
"""
REPORT_COLUMNS: Final = (
    "message_id", "number", "status", "status_raw", "delivery_date", "delivery_date_raw",
    "list_name", "unit_price", "received_at", "flags", "flagged",
)  # fmt: skip
STATUS_COLUMNS: Final = (
    "message_id", "number", "status", "status_raw", "final", "delivery_date", "reports",
    "received_at", "flags", "flagged",
)  # fmt: skip
STOP_COLUMNS: Final = (
    "message_id", "number", "text", "stop_date", "stop_date_raw", "received_at", "flags",
    "flagged",
)  # fmt: skip
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)


def micros(moment: datetime) -> int:
    """An aware ``moment`` as whole microseconds since the Unix epoch (how callbacks store time)."""
    return (moment - _EPOCH) // timedelta(microseconds=1)


def stored_times(values: pandas.Series, zone: Any) -> pandas.Series:
    """Times as stored (UTC microseconds, None where unknown) as datetimes in ``zone``."""
    import pandas as pd

    return pd.to_datetime(values.astype("Int64"), unit="us", utc=True).dt.tz_convert(zone)


@dataclass(frozen=True)
class Report:
    """A delivery report or a STOP as received; None where the body had nothing usable."""

    kind: str  # "delivery_report" or "stop"
    key: str  # sha256 of the body in canonical JSON: the same report twice, one key
    message_id: str | None
    number: str | None
    status: str | None  # delivery report: as given (may be unknown: see flags)
    text: str | None  # STOP
    at_us: int | None  # delivery_date or stop_date, UTC microseconds
    at_raw: str | None
    list_name: str | None
    unit_price: float | None
    flags: tuple[str, ...]
    body: str  # the body, as received


def parse_report(kind: str, body: Mapping[str, Any], raw: bytes) -> Report:
    """Read a delivery report (``kind="delivery_report"``) or a STOP from its JSON object
    and raw UTF-8 bytes; never raises."""
    flags: list[str] = []
    message_id = _text(body, "message_id", flags)
    number = _text(body, "number", flags)
    date_field = "delivery_date" if kind == "delivery_report" else "stop_date"
    at_us, at_raw = _moment(body, date_field, flags)
    status = text = list_name = None
    unit_price = None
    if kind == "delivery_report":
        status = _text(body, "status", flags)
        if status is not None and status not in DELIVERY_STATUSES:
            flags.append("unknown_status")
        list_name = _text(body, "list_name", flags, required=False)
        unit_price = _price(body, flags)
    else:
        text = _text(body, "text", flags)
    try:
        identity = canonical_bytes(dict(body))
    except ValueError:  # NaN or a lone surrogate: JSON has no canonical spelling for it
        identity = raw
    return Report(
        kind, hashlib.sha256(identity).hexdigest(), message_id, number, status, text, at_us,
        at_raw, list_name, unit_price, tuple(flags), raw.decode("utf-8", errors="replace"),
    )  # fmt: skip


def _text(
    body: Mapping[str, Any], field: str, flags: list[str], *, required: bool = True
) -> str | None:
    value = body.get(field)
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            flags.append(f"missing:{field}")
        return None
    if isinstance(value, str) and _encodable(value):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    flags.append(f"unreadable:{field}")
    return json.dumps(value)  # ASCII: a lone surrogate stays an escape SQLite can hold


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _moment(body: Mapping[str, Any], field: str, flags: list[str]) -> tuple[int | None, str | None]:
    """The vendor's ``YYYY-MM-DD HH:MM:SS`` (UTC), other ISO 8601, or Unix seconds."""
    value = body.get(field)
    if value is None or (isinstance(value, str) and not value.strip()):
        flags.append(f"missing:{field}")
        return None, None
    raw = value if isinstance(value, str) and _encodable(value) else json.dumps(value)
    moment = None
    if isinstance(value, str):
        # fromisoformat first: it reads the vendor's format too, 20-40x faster than strptime
        # (a callback's largest parsing cost), and where both read a text they agree; strptime
        # still reads what only it accepts ("2026-11-25  10:00:00", one-digit fields).
        for read in (datetime.fromisoformat, lambda v: datetime.strptime(v, DATE_FORMAT)):
            try:
                moment = read(value.strip())
                break
            except ValueError:
                continue
        if moment is not None and moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        try:
            moment = datetime.fromtimestamp(value, UTC)
        except (OverflowError, OSError, ValueError):
            moment = None
    if moment is None:
        flags.append(f"unreadable:{field}")
        return None, raw
    return micros(moment), raw


def _price(body: Mapping[str, Any], flags: list[str]) -> float | None:
    value = body.get("unit_price")
    if value is None:
        return None
    number: float | None = None
    try:
        if isinstance(value, int | float) and not isinstance(value, bool):
            number = float(value)
        elif isinstance(value, str):
            number = float(value.strip())
    except (ValueError, OverflowError):  # not a number; an integer past float's range
        number = None
    if number is None or not math.isfinite(number):
        flags.append("unreadable:unit_price")
        return None
    return number


# ------------------------------------------------------------------------------ storage


def write(db: sqlite3.Connection, reports: Iterable[Report], received_at: int) -> set[str]:
    """Store reports (inside the caller's transaction); the keys that were already stored."""
    seen: set[str] = set()
    for report in reports:
        if report.kind == "stop":
            cursor = db.execute(
                "INSERT OR IGNORE INTO stops VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (report.key, report.message_id, report.number, report.text, report.at_us,
                 report.at_raw, ",".join(report.flags), report.body, received_at),
            )  # fmt: skip
        else:
            cursor = db.execute(
                "INSERT OR IGNORE INTO delivery_reports VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (report.key, report.message_id, report.number, report.status, report.at_us,
                 report.at_raw, report.list_name, report.unit_price, ",".join(report.flags),
                 report.body, received_at),
            )  # fmt: skip
            if cursor.rowcount == 1 and report.message_id is not None:
                _stand(db, report)
        if cursor.rowcount != 1:
            seen.add(report.key)
    return seen


def _stand(db: sqlite3.Connection, report: Report) -> None:
    """Make ``report`` its message's standing report if it outranks the one standing."""
    db.execute(
        "INSERT INTO delivery_status VALUES (?, ?, ?, ?) ON CONFLICT (message_id) DO UPDATE "
        "SET report_key = excluded.report_key, tier = excluded.tier, "
        "delivery_date = excluded.delivery_date "
        "WHERE excluded.tier > delivery_status.tier OR (excluded.tier = delivery_status.tier "
        "AND excluded.delivery_date > COALESCE(delivery_status.delivery_date, -1))",
        (report.message_id, report.key, status_tier(report.status), report.at_us),
    )


def counts(db: sqlite3.Connection) -> dict[str, int]:
    """Stored delivery reports and STOPs."""
    return {
        "delivery_report": db.execute("SELECT COUNT(*) FROM delivery_reports").fetchone()[0],
        "stop": db.execute("SELECT COUNT(*) FROM stops").fetchone()[0],
    }


REPORTS_SQL: Final = (
    "SELECT message_id, number, status, delivery_date, delivery_date_raw, list_name, "
    "unit_price, received_at, flags FROM delivery_reports ORDER BY rowid"
)
STATUS_SQL: Final = (
    "SELECT s.message_id, r.number, r.status, r.delivery_date, "
    "(SELECT COUNT(*) FROM delivery_reports a WHERE a.message_id = s.message_id), "
    "r.received_at, r.flags FROM delivery_status s JOIN delivery_reports r ON r.key = "
    "s.report_key ORDER BY s.message_id"
)
STOPS_SQL: Final = (
    "SELECT message_id, number, text, stop_date, stop_date_raw, received_at, flags "
    "FROM stops ORDER BY rowid"
)


# ------------------------------------------------------------------------------- frames


def reports_frame(rows: list[tuple[Any, ...]], zone: Any) -> pandas.DataFrame:
    """One row per report received (duplicates once), in arrival order."""
    import pandas as pd

    names = ["message_id", "number", "status_raw", "delivery_date", "delivery_date_raw",
             "list_name", "unit_price", "received_at", "flags"]  # fmt: skip
    frame = pd.DataFrame.from_records(rows, columns=names)
    frame["unit_price"] = frame["unit_price"].astype("float64")
    return _finish(frame, zone, ("delivery_date", "received_at"), REPORT_COLUMNS)


def status_frame(rows: list[tuple[Any, ...]], zone: Any) -> pandas.DataFrame:
    """One row per message: its standing report (see :func:`status_tier`)."""
    import pandas as pd

    names = ["message_id", "number", "status_raw", "delivery_date", "reports", "received_at",
             "flags"]  # fmt: skip
    frame = pd.DataFrame.from_records(rows, columns=names)
    frame["final"] = frame["status_raw"].isin(FINAL_STATUSES).astype(bool)
    frame["reports"] = frame["reports"].astype("int64")
    return _finish(frame, zone, ("delivery_date", "received_at"), STATUS_COLUMNS)


def stops_frame(rows: list[tuple[Any, ...]], zone: Any) -> pandas.DataFrame:
    """One row per STOP received (duplicates once), in arrival order."""
    import pandas as pd

    frame = pd.DataFrame.from_records(rows, columns=[c for c in STOP_COLUMNS if c != "flagged"])
    return _finish(frame, zone, ("stop_date", "received_at"), STOP_COLUMNS)


def _finish(
    frame: pandas.DataFrame, zone: Any, times: tuple[str, ...], columns: tuple[str, ...]
) -> pandas.DataFrame:
    import pandas as pd

    if "status_raw" in frame.columns:
        kinds = pd.CategoricalDtype(list(DELIVERY_STATUSES))
        known = frame["status_raw"].where(frame["status_raw"].isin(DELIVERY_STATUSES))
        frame["status"] = known.astype(object).astype(kinds)
    for column in times:
        frame[column] = stored_times(frame[column], zone)
    frame["flags"] = frame["flags"].astype(str)
    frame["flagged"] = frame["flags"] != ""
    return frame[list(columns)]
