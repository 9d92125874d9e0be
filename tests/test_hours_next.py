"""The hours rule's next permitted moment (``smskit.rules.hours.next_permitted``): the first
instant at or after a given one when marketing may reach every destination."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smskit.errors import ValidationError
from smskit.rules.hours import MARKETING_HOURS, MarketingHours, next_permitted

instants = st.datetimes(
    min_value=datetime(2025, 1, 1), max_value=datetime(2028, 12, 31), timezones=st.just(UTC)
)


def permitted(region: str, when: datetime) -> bool:
    return MARKETING_HOURS[region].refusal(region, when) is None


@settings(max_examples=200, deadline=None)
@given(instants)
def test_next_permitted_is_permitted_and_nothing_earlier_is(when: datetime) -> None:
    """For France: the answer is inside the hours, not before ``when``, ``when`` itself when
    that is permitted, and the minute before it is refused (it is the first)."""
    found = next_permitted(["FR"], when)
    assert found >= when and permitted("FR", found)
    if permitted("FR", when):
        assert found == when
    else:
        assert not permitted("FR", found - timedelta(minutes=1))
        assert found.astimezone(found.tzinfo).time() == time(8, 0)


def test_sunday_and_holidays_are_skipped() -> None:
    """Saturday 21:00 Paris: Monday 08:00; 24 December 21:00: the 26th (Christmas skipped)."""
    saturday = datetime.fromisoformat("2026-03-07T21:00:00+01:00")
    assert next_permitted(["FR"], saturday) == datetime.fromisoformat("2026-03-09T08:00:00+01:00")
    eve = datetime.fromisoformat("2026-12-24T21:00:00+01:00")
    assert next_permitted(["FR"], eve) == datetime.fromisoformat("2026-12-26T08:00:00+01:00")


def test_regions_without_a_rule_do_not_move_it() -> None:
    """A destination with no registered hours leaves the moment where it is."""
    night = datetime.fromisoformat("2026-03-03T23:00:00+01:00")
    assert next_permitted(["BE"], night) == night


def test_two_rules_meet_at_their_first_common_moment() -> None:
    """France (08:00-20:00 Paris) and a country open 16:00-18:00 in Tokyo: the first
    instant inside both, found by moving each in turn."""
    MARKETING_HOURS["JP"] = MarketingHours("Asia/Tokyo", days=frozenset(range(7)),
                                           start=time(16), end=time(18),
                                           public_holidays=False)  # fmt: skip
    try:
        night = datetime.fromisoformat("2026-03-03T23:00:00+01:00")
        found = next_permitted(["FR", "JP"], night)
        assert permitted("FR", found) and permitted("JP", found)
        assert found.astimezone(UTC) == datetime(2026, 3, 4, 7, 0, tzinfo=UTC)
    finally:
        del MARKETING_HOURS["JP"]


def test_rules_that_never_meet_are_refused() -> None:
    """Two rules with no common hour: a ValidationError naming send_at, not a loop."""
    MARKETING_HOURS["JP"] = MarketingHours("Asia/Tokyo", days=frozenset(range(7)),
                                           start=time(5), end=time(6),
                                           public_holidays=False)  # fmt: skip
    try:
        with pytest.raises(ValidationError) as refused:
            next_permitted(["FR", "JP"], datetime(2026, 3, 3, tzinfo=UTC))
        assert refused.value.field == "send_at"
    finally:
        del MARKETING_HOURS["JP"]


@settings(max_examples=12, deadline=None)
@given(
    country=st.sampled_from(["FR", "BE", "DE", "GB", "ES", "IT", "CH", "US", "CA", "RE", "MA"]),
    year=st.integers(2024, 2030),
)
def test_holidays_loaded_country_by_country_are_the_packages(country: str, year: int) -> None:
    """The dates and names smskit's hours rule takes for a country and year are those of
    `holidays.country_holidays` (it loads only that country's module)."""
    import holidays

    from smskit.rules.hours import _holiday

    assert dict(_holiday(country, None, year)) == dict(
        holidays.country_holidays(country, years=year)
    )


def test_french_holidays_do_not_import_every_country() -> None:
    """Checking a French send's holidays loads France's module, not the ~280 countries the
    package's `holidays.countries` imports (a quarter of a 100,000-row preflight)."""
    import os
    import subprocess
    import sys

    script = (
        "import sys; from smskit.rules.hours import MARKETING_HOURS\n"
        "from datetime import datetime, UTC\n"
        "refusal = MARKETING_HOURS['FR'].refusal('FR', datetime(2026, 12, 25, 12, tzinfo=UTC))\n"
        "print(refusal is not None, 'holidays.countries' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=os.environ.copy(), check=True)  # fmt: skip
    assert done.stdout.split() == ["True", "False"]  # Christmas refused, one country loaded
