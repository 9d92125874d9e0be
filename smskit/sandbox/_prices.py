"""Default price list of the sandbox account, and money as integer micro-euros.

Every region phonenumbers' metadata gives an international dialling code is served, priced
by zone: the ITU world zone of its calling code (the code's first digit), except France,
its overseas departments and collectivities, and a handful of main destinations that have a
price of their own. A few destinations are deliberately unserved per product, so that code
written against the sandbox meets the gateway's refusal of a destination. Prices are per SMS
segment (``sms_premium``, ``sms_low_cost``), per voice message (``vocal_sms``) and per line
check (``hlr``), in EUR; premium is dearer than low cost everywhere. Money is kept as integer
micro-euros so that thousands of sends never drift by a rounding error. The tables are
written out in docs/sandbox.md ("Destinations and prices").
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

CURRENCY: Final = "EUR"
MICROS: Final = 1_000_000
DEFAULT_BALANCE_EUR: Final = 1000.0

# check-credits reports products under these keys (spec "Credits per country").
CREDIT_KEYS: Final = {
    "sms_premium": "premium_sms",
    "vocal_sms": "vocal_sms",
    "sms_low_cost": "low_cost_sms",
    "hlr": "hlr",
}
PRODUCT_ORDER: Final = ("sms_premium", "sms_low_cost", "vocal_sms", "hlr")

# zone: (sms_premium, sms_low_cost, vocal_sms, hlr) in EUR. Zones 1-9 are the ITU world
# zones (first digit of the calling code); "FR-OM" is France outside Europe.
ZONES: Final = {
    "FR-OM": (0.0990, 0.0790, 0.1800, 0.0080),
    "1": (0.0160, 0.0120, 0.0600, 0.0060),
    "2": (0.0950, 0.0750, 0.2200, 0.0100),
    "3": (0.0790, 0.0600, 0.1400, 0.0080),
    "4": (0.0790, 0.0600, 0.1400, 0.0080),
    "5": (0.0890, 0.0690, 0.2000, 0.0100),
    "6": (0.0850, 0.0650, 0.2000, 0.0100),
    "7": (0.0690, 0.0520, 0.1600, 0.0100),
    "8": (0.0750, 0.0560, 0.1800, 0.0100),
    "9": (0.0890, 0.0690, 0.2200, 0.0100),
}
# France's overseas departments and collectivities (own calling codes in zones 2, 5, 6).
FRANCE_OVERSEAS: Final = ("BL", "GF", "GP", "MF", "MQ", "NC", "PF", "PM", "RE", "WF", "YT")

# Main destinations with a price of their own (instead of their zone's).
COUNTRY_PRICES: Final = {
    "AT": (0.0890, 0.0690, 0.1400, 0.0080),
    "BE": (0.0790, 0.0590, 0.1500, 0.0080),
    "CA": (0.0160, 0.0120, 0.0600, 0.0060),
    "CH": (0.0690, 0.0520, 0.1600, 0.0080),
    "DE": (0.0890, 0.0690, 0.1400, 0.0080),
    "ES": (0.0720, 0.0540, 0.1300, 0.0080),
    "FR": (0.0650, 0.0450, 0.1200, 0.0080),
    "GB": (0.0420, 0.0330, 0.1000, 0.0080),
    "IE": (0.0790, 0.0600, 0.1300, 0.0080),
    "IT": (0.0750, 0.0560, 0.1300, 0.0080),
    "LU": (0.0680, 0.0500, 0.1500, 0.0080),
    "MA": (0.0890, 0.0700, 0.2000, 0.0100),
    "NL": (0.0850, 0.0640, 0.1500, 0.0080),
    "PL": (0.0350, 0.0260, 0.0900, 0.0080),
    "PT": (0.0450, 0.0340, 0.1100, 0.0080),
    "US": (0.0150, 0.0110, 0.0600, 0.0060),
}

# Deliberately unserved (no price: sends refused, credits not reported for that product).
UNSERVED: Final = {
    "sms_premium": ("KP", "SY"),
    "sms_low_cost": ("ER", "KP", "SS", "SY"),
    "vocal_sms": ("KP", "NU", "TK"),
    "hlr": ("KP", "NR"),
}


def to_micros(amount_eur: float) -> int:
    """EUR -> integer micro-euros, rounded to the nearest micro-euro."""
    return round(amount_eur * MICROS)


def to_eur(micros: int) -> float:
    """Integer micro-euros -> EUR as a float with no binary noise beyond 6 decimals."""
    return round(micros / MICROS, 6)


@lru_cache(maxsize=1)
def calling_codes() -> dict[str, int]:
    """``{region: international dialling code}`` for every region phonenumbers knows."""
    import phonenumbers

    return {
        region: phonenumbers.country_code_for_region(region)
        for region in sorted(phonenumbers.SUPPORTED_REGIONS)
    }


def zone_of(region: str) -> str:
    """The price zone of a served region (see :data:`ZONES`)."""
    if region in FRANCE_OVERSEAS:
        return "FR-OM"
    return str(calling_codes()[region])[0]


@lru_cache(maxsize=1)
def default_price_rows() -> tuple[tuple[str, str, int], ...]:
    """``(country_code, product_name, micro-euros)`` of every served country and product,
    worked out once per process (every new or reset account writes them)."""
    rows = []
    for region in calling_codes():
        row = COUNTRY_PRICES.get(region) or ZONES[zone_of(region)]
        for product, price in zip(PRODUCT_ORDER, row, strict=True):
            if region not in UNSERVED[product]:
                rows.append((region, product, to_micros(price)))
    return tuple(rows)
