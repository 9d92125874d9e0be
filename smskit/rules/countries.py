"""Country names and ISO 3166 alpha-3 codes by 2-letter code, as HLR answers name them."""

from __future__ import annotations

from functools import lru_cache

__all__ = ["country_info"]


@lru_cache(maxsize=512)
def country_info(country_code: str) -> tuple[str | None, str | None]:
    """(English common name, ISO 3166 alpha-3) of a 2-letter code (pycountry); None if unknown.

    The names are the ones the sandbox's HLR answers use (``common_name`` when there is one).
    """
    import pycountry

    found = pycountry.countries.get(alpha_2=country_code) if len(country_code) == 2 else None
    if found is None:
        return None, None
    return getattr(found, "common_name", found.name), found.alpha_3
