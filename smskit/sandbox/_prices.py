"""Default price list of the sandbox account, and money as integer micro-euros.

Prices are per SMS segment (``sms_premium``, ``sms_low_cost``), per voice message
(``vocal_sms``) and per line check (``hlr``), in EUR, in the range of public French
gateway price lists: premium is dearer than low cost everywhere. Money is kept as integer
micro-euros so that thousands of sends never drift by a rounding error.
"""

from __future__ import annotations

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

# country: (sms_premium, sms_low_cost, vocal_sms, hlr) in EUR.
_TABLE: Final = {
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
_PRODUCT_ORDER: Final = ("sms_premium", "sms_low_cost", "vocal_sms", "hlr")


def to_micros(amount_eur: float) -> int:
    """EUR -> integer micro-euros, rounded to the nearest micro-euro."""
    return round(amount_eur * MICROS)


def to_eur(micros: int) -> float:
    """Integer micro-euros -> EUR as a float with no binary noise beyond 6 decimals."""
    return round(micros / MICROS, 6)


def default_prices() -> dict[tuple[str, str], int]:
    """``{(country_code, product_name): micro-euros}`` for every priced country and product."""
    return {
        (country, product): to_micros(price)
        for country, row in _TABLE.items()
        for product, price in zip(_PRODUCT_ORDER, row, strict=True)
    }
