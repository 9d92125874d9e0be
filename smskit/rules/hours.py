"""When marketing SMS may reach a country: days, local hours, public holidays.

Transactional messages (``purpose='alert'``) may go out at any hour (spec, send rule 2);
marketing ones only inside the hours registered for the destination country.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from functools import lru_cache
from typing import Any, Final

from smskit.errors import ValidationError
from smskit.rules.content import is_marketing
from smskit.rules.timezone import checked_time_zone

__all__ = [
    "MARKETING_HOURS",
    "MarketingHours",
    "check_country",
    "hours_refusals",
    "next_permitted",
    "register_marketing_hours",
]

# How far ahead next_permitted looks: a rule whose next opening is further is refused.
SEARCH_DAYS: Final = 31

_COUNTRY: Final = re.compile(r"[A-Z]{2}")


def check_country(field: str, value: Any, *, position: int | None = None) -> str:
    """A 2-letter upper-case country code (ISO 3166-1 alpha-2), as the gateway keys them."""
    if not isinstance(value, str) or not _COUNTRY.fullmatch(value):
        raise ValidationError(
            field,
            "must be a 2-letter upper-case country code, e.g. 'FR'",
            position=position,
            value=value,
        )
    return value


@dataclass(frozen=True, slots=True)
class MarketingHours:
    """When marketing (``wholesale``) SMS may reach a country: days, local hours, holidays.

    ``days`` are weekday numbers (Monday 0 .. Sunday 6); sending is permitted from ``start``
    (inclusive) to ``end`` (exclusive) local time; with ``public_holidays`` (the default) not
    on the country's public holidays, taken from the ``holidays`` package.
    """

    timezone: str
    days: frozenset[int] = frozenset(range(6))
    start: time = time(8, 0)
    end: time = time(20, 0)
    public_holidays: bool = True
    holiday_subdivision: str | None = None

    def refusal(self, country: str, when: datetime) -> str | None:
        """Why ``when`` is outside the permitted hours in ``country``; None when it is inside."""
        from zoneinfo import ZoneInfo

        local = when.astimezone(ZoneInfo(self.timezone))
        stamp = f"{local:%a %Y-%m-%d %H:%M} {self.timezone}"
        if self.public_holidays:
            name = _holiday(country, self.holiday_subdivision, local.year).get(local.date())
            if name:
                return f"{stamp} is a public holiday in {country} ({name})"
        if local.weekday() not in self.days:
            return f"{stamp}: no marketing SMS on that day in {country} ({self.describe()})"
        if not self.start <= local.time() < self.end:
            return f"{stamp} is outside permitted hours in {country} ({self.describe()})"
        return None

    def opening(self, country: str, when: datetime) -> datetime | None:
        """The first instant at or after ``when`` inside the permitted hours in ``country``
        (``when`` itself when it is inside), in the rule's time zone; None if there is none
        within :data:`SEARCH_DAYS` days."""
        from zoneinfo import ZoneInfo

        zone = ZoneInfo(self.timezone)
        local = when.astimezone(zone)
        for _ in range(SEARCH_DAYS + 1):
            if self.refusal(country, local) is None:
                return local
            holiday = self.public_holidays and local.date() in _holiday(
                country, self.holiday_subdivision, local.year
            )
            if local.weekday() in self.days and not holiday and local.time() < self.start:
                day = local.date()
            else:
                day = local.date() + timedelta(days=1)
            local = datetime.combine(day, self.start, tzinfo=zone)
        return None

    def describe(self) -> str:
        """The rule in words, e.g. ``Mon-Sat 08:00-20:00, not on public holidays``."""
        names = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
        days = sorted(self.days)
        if days and days == list(range(days[0], days[-1] + 1)) and len(days) > 1:
            shown = f"{names[days[0]]}-{names[days[-1]]}"
        else:
            shown = ",".join(names[d] for d in days)
        rule = f"{shown} {self.start:%H:%M}-{self.end:%H:%M}"
        return rule + (", not on public holidays" if self.public_holidays else "")


# France: Monday to Saturday, 08:00 to 20:00, never on public holidays (the operators' and
# the CNIL's rule for marketing SMS). Extend with register_marketing_hours().
MARKETING_HOURS: dict[str, MarketingHours] = {"FR": MarketingHours("Europe/Paris")}


def register_marketing_hours(country: str, hours: MarketingHours | None) -> None:
    """Add or replace the marketing-hours rule of ``country`` (ISO 3166 alpha-2); None removes."""
    check_country("country", country)
    if hours is None:
        MARKETING_HOURS.pop(country, None)
        return
    if not isinstance(hours, MarketingHours):
        raise ValidationError("hours", "must be a MarketingHours (or None)", value=hours)
    checked_time_zone("hours.timezone", hours.timezone)
    if not hours.days or not set(hours.days) <= set(range(7)):
        raise ValidationError("hours.days", "weekday numbers 0 (Monday) to 6 (Sunday)")
    if hours.start >= hours.end:
        raise ValidationError("hours.start", "must be before hours.end")
    MARKETING_HOURS[country] = hours


def hours_refusals(regions: Sequence[str], purpose: str | None, when: datetime) -> dict[str, str]:
    """Regions (with a rule) where a send of ``purpose`` at ``when`` is not permitted, and why."""
    if not is_marketing(purpose):
        return {}
    reasons = {r: MARKETING_HOURS[r].refusal(r, when) for r in regions if r in MARKETING_HOURS}
    return {region: reason for region, reason in reasons.items() if reason is not None}


def next_permitted(regions: Sequence[str], when: datetime) -> datetime:
    """The first instant at or after ``when`` when a marketing SMS may reach every region of
    ``regions`` that has a rule (``when`` itself if it already may), in the time zone of the
    last rule that moved it. Refused (``send_at``) when no such instant comes within
    :data:`SEARCH_DAYS` days."""
    rules = [(region, MARKETING_HOURS[region]) for region in regions if region in MARKETING_HOURS]
    candidate = when
    for _ in range(SEARCH_DAYS * max(len(rules), 1) + 1):
        moved = False
        for region, rule in rules:
            opening = rule.opening(region, candidate)
            if opening is None:
                break
            if opening != candidate:
                candidate, moved = opening, True
        else:
            if not moved:
                return candidate
            continue
        break
    raise ValidationError(
        "send_at",
        f"no instant within {SEARCH_DAYS} days is inside the marketing hours of every "
        f"destination ({', '.join(sorted(region for region, _ in rules))})",
    )


@lru_cache(maxsize=64)
def _holiday(country: str, subdivision: str | None, year: int) -> Mapping[Any, str]:
    import holidays

    entity = _country_entity(country)
    if entity is not None:
        return entity(years=year, subdiv=subdivision)
    try:
        return holidays.country_holidays(country, subdiv=subdivision, years=year)
    except NotImplementedError:  # the package does not know that country: no holidays
        return {}


@lru_cache(maxsize=64)
def _country_entity(country: str) -> Any:
    """The ``holidays`` class of ``country`` loaded from its own module file, or None (then
    :func:`holidays.country_holidays` answers, the same dates).

    Why our own loading: importing any one country through the package runs
    ``holidays.countries``' ``__init__``, which imports all its ~280 country modules (0.15 s
    on a quiet machine, 0.45 s loaded: a quarter of a 100,000-row preflight) where a send
    needs one or two. The country's module (named in the package's own registry,
    ``holidays.registry.COUNTRIES``) is executed under a private name; its imports are the
    package's shared modules, never the other countries (a module that imports another
    country, a territory, is left to the package). Anything unexpected falls back.
    """
    import importlib.util
    from pathlib import Path

    try:
        import holidays
        from holidays.registry import COUNTRIES

        name = next(m for m, (_, *codes) in COUNTRIES.items() if country in codes)
        entity_name = COUNTRIES[name][0]
        path = Path(holidays.__file__).parent / "countries" / f"{name}.py"
        source = path.read_text(encoding="utf-8")
        if "holidays.countries" in source:
            return None  # it imports another country: the package loads it whole
        spec = importlib.util.spec_from_file_location(f"smskit._holidays_{name}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return getattr(module, entity_name)
    except Exception:  # another layout of the package, an unknown country: the package's way
        return None
