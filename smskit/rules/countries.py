"""Country names and ISO 3166 alpha-3 codes by 2-letter code, as HLR answers name them.

The sandbox's HLR answers and the client's tables and reprs all name countries here.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

__all__ = ["country_info"]

# Regions phonenumbers dials that ISO 3166 leaves out; alpha-3 from its exceptional
# reservations (XKX: common usage).
_EXTRA: Final = {
    "AC": ("Ascension Island", "ASC"),
    "TA": ("Tristan da Cunha", "TAA"),
    "XK": ("Kosovo", "XKX"),
}


@lru_cache(maxsize=512)
def country_info(country_code: str) -> tuple[str | None, str | None]:
    """(English common name, ISO 3166 alpha-3) of a 2-letter code; (None, None) if unknown.

    Names are pycountry's (``common_name`` when there is one), plus the few regions above.
    """
    import pycountry

    found = pycountry.countries.get(alpha_2=country_code) if len(country_code) == 2 else None
    if found is None:
        return _EXTRA.get(country_code, (None, None))
    return getattr(found, "common_name", found.name), found.alpha_3
