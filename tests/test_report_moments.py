"""A delivery report's date is read the same whichever reader gets it first (differential)."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from smskit.replies.reports import micros, parse_report
from smskit.rules.callbacks import DATE_FORMAT

PIECES = st.sampled_from(
    ["2026", "26", "0999", "-", "01", "1", "12", "31", "30", "02", "29", " ", "  ", "T", ":",
     "00", "59", "60", "23", "24", "+02:00", "Z", ".5", ".123456", "\t", "٣"]
)  # fmt: skip


def strptime_first(text: str) -> int | None:
    """The reading before fromisoformat went first: the vendor's format, then ISO 8601."""
    for read in (lambda v: datetime.strptime(v, DATE_FORMAT), datetime.fromisoformat):
        try:
            moment = read(text.strip())
        except ValueError:
            continue
        return micros(moment if moment.tzinfo else moment.replace(tzinfo=UTC))
    return None


def read_at(text: str) -> int | None:
    body = {"message_id": "m", "number": "+33612345678", "status": "DELIVERED",
            "delivery_date": text}  # fmt: skip
    return parse_report("delivery_report", body, b"{}").at_us


@settings(max_examples=300, deadline=None)
@given(st.datetimes(min_value=datetime(1000, 1, 1)))
def test_vendor_and_iso_dates_read_as_before(moment: datetime) -> None:
    """The vendor's format and ISO 8601 spellings of any moment give the same microseconds."""
    for text in (moment.strftime(DATE_FORMAT), moment.isoformat(" "), moment.isoformat()):
        assert read_at(text) == strptime_first(text)


@settings(max_examples=500, deadline=None)
@given(st.lists(PIECES, max_size=12).map("".join))
def test_odd_date_texts_read_as_before(text: str) -> None:
    """Texts near the formats (doubled spaces, one-digit fields, offsets): read as before."""
    assert read_at(text) == strptime_first(text)


def test_a_text_only_strptime_reads_is_still_read() -> None:
    """Two spaces between date and time: fromisoformat refuses it, strptime still reads it."""
    assert read_at("2026-11-25  10:00:00") == micros(datetime(2026, 11, 25, 10, tzinfo=UTC))
