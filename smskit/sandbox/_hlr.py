"""Deterministic HLR simulation: one spec HLR result per number, the same on every run.

Facts of the numbering plan come from real metadata: validity, line type, country, prefix,
area (``phonenumbers`` geocoder, English) and original operator (``phonenumbers`` carrier
data), names from ``pycountry``, MCC/MNC from ``data/mcc_mnc.csv`` (main operators of FR, BE,
CH, DE, ES, IT, GB, NL, PT, US) and ``data/mcc_country.csv`` (one MCC per country, ITU E.212).
What a real HLR would learn from the network (line status, porting) is drawn from
``blake2b(seed, E.164)`` with a configurable :class:`HLRDistribution`; never the wall clock.

Field derivation (``phone_number`` is always E.164 when the input parses, else the input):

=====================  ==============  =========================  ============  ==========
number                 phone_number    line_status                status        porting
                       _type
=====================  ==============  =========================  ============  ==========
unparseable / invalid  bad_format      not_applicable             invalid       never
drama range            stage_and_      dead                       invalid       never
                       screen
mobile,                from            drawn: live 80 %, dead     see below     ported_
mobile_or_landline     phonenumbers    9 %, absent 6 %, other 5 %               share
any other valid type   from            not_available_network_     unknown       never
                       phonenumbers    only
=====================  ==============  =========================  ============  ==========

``status`` from ``line_status``: live / absent_subscriber / no_teleservice_provisioned ->
valid; dead / not_applicable -> invalid; no_coverage -> operator_is_not_available;
not_available_network_only / inconclusive -> unknown.

Network: the carrier name matched to a table row gives ``network_name``, ``mcc``, ``mnc``; a
carrier missing from the table keeps its name with the country's MCC and ``mnc`` null; a
mobile without carrier data in a country of the table (e.g. the US, where numbers carry no
operator) gets a table operator drawn from the number alone (seed-independent); otherwise
``network_name`` and ``mnc`` are unknown. Whatever cannot be known is unknown: for bad_format,
every network field, and the country fields unless the country code is known. Unknown is
answered in the spec's type (``""`` for strings, 0 for ``mcc``/``mnc``, see
:mod:`smskit.rules.answers`): only ``ported_date`` and ``original_network_details`` are null.

Porting applies to mobiles of countries with table operators: the new network (top-level
``network_name``/``mcc``/``mnc``) is drawn among the country's other operators,
``original_network_details`` holds the 8 spec keys of the original network, and
``ported_date`` (``YYYY-MM-DD HH:MM:SS``) falls within ``ported_window_days`` before
``reference_date``. Unported: ``is_ported`` false, both fields null.
"""

from __future__ import annotations

import csv
import hashlib
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache
from itertools import accumulate
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final, NamedTuple

import phonenumbers
from phonenumbers import NumberParseException

from smskit.errors import ValidationError
from smskit.rules.answers import hlr_placeholder
from smskit.rules.countries import country_info
from smskit.rules.phonecheck import main_region, read_valid, refusal, region_of, spec_type
from smskit.rules.ranges import checked_integer, checked_number, checked_share
from smskit.rules.spec import LINE_STATUS
from smskit.sandbox._prefixdata import CARRIER, GEOCODE

__all__ = ["DEFAULT", "HLRDistribution", "lookup", "lookup_many"]

_DATA: Final = Path(__file__).with_name("data")

STATUS_OF_LINE: Final = MappingProxyType(
    {
        "live": "valid",
        "dead": "invalid",
        "absent_subscriber": "valid",
        "no_teleservice_provisioned": "valid",
        "not_available_network_only": "unknown",
        "no_coverage": "operator_is_not_available",
        "not_applicable": "invalid",
        "inconclusive": "unknown",
    }
)
# The types an HLR actually reaches; every other valid line only gets porting-style data.
_HLR_TYPES: Final = frozenset({"mobile", "mobile_or_landline"})

DEFAULT_LINE_STATUS: Final = MappingProxyType(
    {
        "live": 0.80,
        "dead": 0.09,
        "absent_subscriber": 0.06,
        "no_teleservice_provisioned": 0.02,
        "not_available_network_only": 0.01,
        "no_coverage": 0.01,
        "inconclusive": 0.01,
    }
)


@dataclass(frozen=True)
class HLRDistribution:
    """How simulated HLR answers are spread: line-status weights, porting share and dates."""

    line_status: Mapping[str, float] = field(
        default_factory=lambda: dict(DEFAULT_LINE_STATUS), hash=False
    )
    ported_share: float = 1 / 3
    reference_date: datetime = datetime(2025, 1, 1)
    ported_window_days: int = 3650
    _statuses: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _cumulative: tuple[float, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        refused = [k for k in self.line_status if k not in LINE_STATUS or k == "not_applicable"]
        if refused:
            raise ValueError(
                f"line_status: {refused} not allowed; keys are the spec's line_status values"
                " except not_applicable (kept for unparseable numbers)"
            )
        weights = [checked_number(f"line_status.{k}", w) for k, w in self.line_status.items()]
        if sum(weights) <= 0:
            raise ValidationError("line_status", "the weights must have a positive sum")
        share = checked_share("ported_share", self.ported_share)
        window = checked_integer("ported_window_days", self.ported_window_days, low=1)
        total = sum(weights)
        line_status = dict(zip(self.line_status, weights, strict=True))
        object.__setattr__(self, "line_status", MappingProxyType(line_status))
        object.__setattr__(self, "ported_share", share)
        object.__setattr__(self, "ported_window_days", window)
        object.__setattr__(self, "_statuses", tuple(self.line_status))
        object.__setattr__(self, "_cumulative", tuple(c / total for c in accumulate(weights)))

    def pick_line_status(self, u: float) -> str:
        """The line status at quantile ``u`` in [0, 1)."""
        index = bisect_right(self._cumulative, u)
        return self._statuses[min(index, len(self._statuses) - 1)]


DEFAULT: Final = HLRDistribution()


class Operator(NamedTuple):
    network_name: str | None
    mcc: int | None
    mnc: int | None


class Country(NamedTuple):
    name: str
    iso3: str
    iso2: str


class _Line(NamedTuple):
    """What the numbering plan says about a number: independent of seed and distribution."""

    phone_number: str
    kind: str
    country: Country | None
    prefix: str | None
    area: str | None
    original: Operator
    port_to: tuple[Operator, ...]


_NO_OPERATOR: Final = Operator(None, None, None)


class _Tables(NamedTuple):
    operators: dict[str, tuple[Operator, ...]]
    aliases: dict[tuple[str, str], Operator]
    country_mcc: dict[str, int]


@lru_cache(maxsize=1)
def _tables() -> _Tables:
    operators: dict[str, list[Operator]] = {}
    aliases: dict[tuple[str, str], Operator] = {}
    with (_DATA / "mcc_mnc.csv").open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            op = Operator(row["network_name"], int(row["mcc"]), int(row["mnc"]))
            operators.setdefault(row["country_code"], []).append(op)
            for alias in row["carrier_aliases"].split("|"):
                aliases[(row["country_code"], alias.casefold())] = op
    with (_DATA / "mcc_country.csv").open(encoding="utf-8", newline="") as fh:
        country_mcc = {row["country_code"]: int(row["mcc"]) for row in csv.DictReader(fh)}
    return _Tables({k: tuple(v) for k, v in operators.items()}, aliases, country_mcc)


@lru_cache(maxsize=512)
def _country(region: str | None) -> Country | None:
    if region is None:
        return None
    name, iso3 = country_info(region)
    return None if name is None or iso3 is None else Country(name, iso3, region)


def _unit(digest: bytes, slot: int) -> float:
    """The slot-th independent uniform draw in [0, 1) from a digest (4 bytes each)."""
    return int.from_bytes(digest[4 * slot : 4 * slot + 4], "big") / 4294967296.0


def _original_network(e164: str, kind: str, region: str | None) -> Operator:
    tables = _tables()
    country_mcc = tables.country_mcc.get(region) if region else None
    # A drama number is allocated to no network, whatever the carrier data says of its block.
    name = "" if kind == "stage_and_screen" else CARRIER.english(e164)
    if name:
        return tables.aliases.get(
            (region or "", name.casefold()), Operator(name, country_mcc, None)
        )
    rows = tables.operators.get(region or "", ())
    if kind in _HLR_TYPES and rows:
        digest = hashlib.blake2b(e164.encode(), digest_size=4).digest()
        return rows[int(_unit(digest, 0) * len(rows))]
    return Operator(None, country_mcc, None)


def _parse(raw: str) -> tuple[phonenumbers.PhoneNumber, str, str]:
    """Parsed number, its E.164 text and spec type; raises NumberParseException."""
    fast = read_valid(raw, None)
    if fast is not None:
        return fast
    if refusal(raw.strip()) is not None:  # letters are never keypad digits
        raise NumberParseException(NumberParseException.NOT_A_NUMBER, "not a phone number")
    number = phonenumbers.parse(raw, None)
    e164 = f"+{number.country_code}{phonenumbers.national_significant_number(number)}"
    return number, e164, spec_type(number, e164)


@lru_cache(maxsize=65_536)
def _line(raw: str) -> _Line:
    try:
        number, e164, kind = _parse(raw)
    except NumberParseException:
        return _Line(raw.strip(), "bad_format", None, None, None, _NO_OPERATOR, ())
    prefix = f"+{number.country_code}"
    if kind == "bad_format":
        country = _country(main_region(number.country_code))
        area = country.name if country else None
        return _Line(e164, kind, country, prefix, area, _NO_OPERATOR, ())
    country = _country(region_of(e164))
    area = GEOCODE.english(e164)
    area = area or (country.name if country else None)
    iso2 = country.iso2 if country else None
    original = _original_network(e164, kind, iso2)
    port_to: tuple[Operator, ...] = ()
    if kind in _HLR_TYPES:
        port_to = tuple(op for op in _tables().operators.get(iso2 or "", ()) if op != original)
    return _Line(e164, kind, country, prefix, area, original, port_to)


def lookup(
    number: str, *, seed: int = 0, distribution: HLRDistribution = DEFAULT
) -> dict[str, Any]:
    """The spec HLR result for one number (a JSON-ready dict with exactly the spec's fields)."""
    line = _line(number if isinstance(number, str) else str(number))
    kind = line.kind
    network = line.original
    ported_date = None
    details = None
    if kind == "bad_format":
        line_status = "not_applicable"
    elif kind == "stage_and_screen":
        line_status = "dead"
    elif kind in _HLR_TYPES:
        digest = hashlib.blake2b(f"{seed}\x1f{line.phone_number}".encode(), digest_size=16).digest()
        line_status = distribution.pick_line_status(_unit(digest, 0))
        if line.port_to and _unit(digest, 1) < distribution.ported_share:
            network = line.port_to[int(_unit(digest, 2) * len(line.port_to))]
            window = distribution.ported_window_days * 86_400
            back = 1 + int(_unit(digest, 3) * (window - 1))
            when = distribution.reference_date - timedelta(seconds=back)
            ported_date = when.strftime("%Y-%m-%d %H:%M:%S")
            details = _network_fields(line, line.original)
    else:
        line_status = "not_available_network_only"
    fields = _network_fields(line, network)
    return {  # the spec table's order
        **{name: fields[name] for name in ("network_name", "mcc", "mnc")},
        "status": STATUS_OF_LINE[line_status],
        **{name: fields[name] for name in list(fields)[3:]},
        "phone_number": line.phone_number,
        "phone_number_type": kind,
        "line_status": line_status,
        "is_ported": details is not None,
        "ported_date": ported_date,
        "original_network_details": details,
    }


def lookup_many(
    numbers: Iterable[str], *, seed: int = 0, distribution: HLRDistribution = DEFAULT
) -> list[dict[str, Any]]:
    """One :func:`lookup` result per number, in order."""
    return [lookup(n, seed=seed, distribution=distribution) for n in numbers]


def _network_fields(line: _Line, network: Operator) -> dict[str, Any]:
    """The spec's 8 network keys of ``network`` on ``line``; unknown values as placeholders."""
    country = line.country
    known = {
        "network_name": network.network_name,
        "mcc": network.mcc,
        "mnc": network.mnc,
        "country_name": country.name if country else None,
        "country_code_iso3": country.iso3 if country else None,
        "country_code": country.iso2 if country else None,
        "area": line.area,
        "country_prefix": line.prefix,
    }
    return {name: hlr_placeholder(name, value) for name, value in known.items()}
