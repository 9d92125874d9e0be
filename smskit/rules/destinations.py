"""Destinations the gateway serves, per product, and their unit prices, as the gateway says.

Nothing here is a table of the sandbox's: a :class:`Destinations` is built from the
gateway's own answers (the credits-per-country answer lists the countries it serves; a
one-recipient simulation says whether a country is served for a product and, from its
cost, the price of one SMS there). The same preflight therefore predicts the real service.
Fetching those answers is I/O, done once per client by
:mod:`smskit.campaigns.planning.destinations`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

__all__ = ["Destinations", "Verdict"]


@dataclass(frozen=True, slots=True)
class Verdict:
    """One (country, product): served or not, the gateway's reason, the price of one SMS."""

    served: bool
    reason: str | None = None
    unit_price: float | None = None


@dataclass(frozen=True)
class Destinations:
    """What the gateway said about destinations: countries it lists, and per-product verdicts.

    ``listed`` is None until a credits-per-country answer is known; a country it does not
    list is not served for any product.
    """

    listed: frozenset[str] | None = None
    verdicts: Mapping[tuple[str, str], Verdict] = field(default_factory=dict)

    @classmethod
    def from_credits(cls, credits: Mapping[str, object]) -> Destinations:
        """From a check-credits answer: the countries it is keyed by."""
        return cls(listed=frozenset(str(country) for country in credits))

    def verdict(self, country: str | None, product: str) -> Verdict | None:
        """What is known of ``country`` for ``product``; None when it must be asked."""
        if country is None:
            return Verdict(False, "unknown country")
        known = self.verdicts.get((country, product))
        if known is not None:
            return known
        if self.listed is not None and country not in self.listed:
            return Verdict(False, f"destination not served ({country}, {product})")
        return None

    def learned(self, answers: Mapping[tuple[str, str], Verdict]) -> Destinations:
        """A copy that knows ``answers`` too."""
        return replace(self, verdicts={**self.verdicts, **answers})
