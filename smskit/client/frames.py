"""Gateway results as pandas DataFrames with declared dtypes, and the breakdown tables.

Each converter takes the typed models (``HLRResults``, ``Credits``...) or the gateway's raw
JSON, which it parses with the models (leniently, like the client does), then builds the
table in :mod:`smskit.client.frame_builders`; the HLR tables also take a frame (from
:func:`hlr_frame`, bulk HLR or a CSV), so widgets and bulk tools reuse them. A model's own
``to_frame()`` goes straight to the builders: the models never import this module.

Breakdown tables (:func:`breakdown`, :func:`crosstab`, :func:`porting`,
:func:`reachability`) end with a ``"total"`` row; see :mod:`smskit.client.frame_builders` for how
rows are ordered and missing values counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from smskit.client import frame_builders
from smskit.client.models import (
    ContactItem,
    ContactItems,
    CountryCredits,
    Draft,
    HLRResult,
    SendResult,
)
from smskit.client.wallet import Balance
from smskit.errors import guard_input

__all__ = [
    "balance_frame",
    "breakdown",
    "contact_items_frame",
    "credits_frame",
    "credits_wide",
    "crosstab",
    "drafts_frame",
    "expiring_packs",
    "hlr_frame",
    "porting",
    "reachability",
    "send_results_frame",
    "wallet_packs_frame",
]


_HLR_RULE = "must be HLR results: HLRResults, HLRResult objects, the gateway's dicts or a frame"


@guard_input("results", _HLR_RULE)
def hlr_frame(results: Any) -> pd.DataFrame:
    """One row per number with every spec field; the original network flattened as original_*.

    ``results``: ``HLRResults``, ``HLRResult`` objects, the gateway's raw dicts, or a frame
    (returned with the declared dtypes). Raw dicts holding the spec's fields and types are read
    directly (a million in about two seconds); otherwise each goes through
    :meth:`smskit.HLRResult.from_json`, so both give one frame.
    """
    rows = results if isinstance(results, Sequence | pd.DataFrame) else list(results)
    try:
        return frame_builders.hlr_table(rows)
    except (KeyError, TypeError, ValueError, AttributeError):
        if isinstance(rows, pd.DataFrame) or not rows or not isinstance(rows[0], Mapping):
            raise
    return frame_builders.hlr_table([HLRResult.from_json(row) for row in rows])


def _hlr_data(data: Any) -> Any:
    """A frame as given (its needed columns are checked by the table); anything else parsed."""
    return data if isinstance(data, pd.DataFrame) else hlr_frame(data)


@guard_input("data", _HLR_RULE)
def breakdown(data: Any, by: str | Sequence[str] = "line_status") -> pd.DataFrame:
    """How many numbers, and what share of them, fall in each value of ``by``.

    ``data``: anything :func:`hlr_frame` takes. ``by``: ``"status"``, ``"line_status"``,
    ``"phone_number_type"``, ``"country"`` (country code), ``"network"`` (country code and
    network name), or a tuple of them for every combination (e.g.
    ``("line_status", "phone_number_type")``). Columns ``count`` and ``share`` (of all rows);
    the last row is ``"total"`` (all rows, share 1).
    """
    return frame_builders.breakdown(_hlr_data(data), by)


@guard_input("data", _HLR_RULE)
def crosstab(
    data: Any, rows: str = "line_status", columns: str = "phone_number_type"
) -> pd.DataFrame:
    """Counts of ``rows`` x ``columns`` (breakdown keys), with a ``"total"`` row and column."""
    return frame_builders.crosstab(_hlr_data(data), rows, columns)


@guard_input("data", _HLR_RULE)
def porting(data: Any) -> pd.DataFrame:
    """Per original network: ``numbers`` that started on it, how many were ``ported`` away, share.

    The original network of an unported number is its network; numbers whose original
    network is unknown (no network name: landlines, bad formats) are left out.
    """
    return frame_builders.porting(_hlr_data(data))


@guard_input("data", _HLR_RULE)
def reachability(data: Any) -> pd.DataFrame:
    """Per country: how many valid mobiles an SMS would reach (line live or absent subscriber).

    ``mobiles``: numbers whose ``phone_number_type`` is mobile or mobile_or_landline (a bad
    format is never one); ``reachable``: those whose ``line_status`` is live or
    absent_subscriber; ``reachable_share`` = reachable / mobiles.
    """
    return frame_builders.reachability(_hlr_data(data))


@guard_input("items", "must be a contact/create answer: ContactItems, its items or the raw body")
def contact_items_frame(items: Any) -> pd.DataFrame:
    """One row per contact of a ``contact/create`` answer (models, raw items or the raw body)."""
    if isinstance(items, Mapping):
        items = ContactItems.from_json(items)
    return frame_builders.contact_items_table(
        i if isinstance(i, ContactItem) else ContactItem.from_json(i) for i in items
    )


@guard_input("credits", "must be Credits or the check-credits answer (country code -> credits)")
def credits_frame(credits: Mapping[str, Any]) -> pd.DataFrame:
    """Tidy credits: one row per country and product (``country_code``, ``country``, ``iso3``,
    ``product``, ``credits``); ``credits`` is a ``Credits`` answer or its raw JSON."""
    return frame_builders.credits_table(
        entry if isinstance(entry, CountryCredits) else CountryCredits.from_json(code, entry)
        for code, entry in credits.items()
    )


@guard_input("credits", "must be Credits or the check-credits answer (country code -> credits)")
def credits_wide(credits: Mapping[str, Any]) -> pd.DataFrame:
    """One row per country (index ``country_code``): ``country``, ``iso3``, a column per product."""
    return frame_builders.credits_wide(credits_frame(credits))


def _balance(balance: Balance | Mapping[str, Any]) -> Balance:
    return balance if isinstance(balance, Balance) else Balance.from_json(balance)


def balance_frame(balance: Balance | Mapping[str, Any]) -> pd.DataFrame:
    """One row: ``amount`` and ``unit`` (a currency, or the product whose credits it counts)."""
    return frame_builders.balance_table(_balance(balance))


def wallet_packs_frame(balance: Balance | Mapping[str, Any]) -> pd.DataFrame:
    """One row per wallet pack: ``id``, ``credit``, ``unit``, ``expiration_date``.

    ``expiration_date`` is a datetime in Europe/Paris (the vendor's time for dates without
    an offset); the packs are in the gateway's order. Empty without ``with_details=True``.
    """
    return frame_builders.wallet_packs_table(_balance(balance))


@guard_input("within_days", "must be a number of days (balance a Balance or its answer)")
def expiring_packs(
    balance: Balance | Mapping[str, Any], within_days: float = 60, *, now: Any = None
) -> pd.DataFrame:
    """The packs expiring within ``within_days`` of ``now`` (default: current time), soonest
    first, with ``days_left`` (whole days, rounded down)."""
    return frame_builders.expiring_packs_table(_balance(balance), within_days, now=now)


def drafts_frame(*drafts: Draft) -> pd.DataFrame:
    """One row per draft, to compare them: ``kind`` (sms or voice), counts, cost, and
    ``cost_per_contact``; fields a kind lacks are missing."""
    return frame_builders.drafts_table(*drafts)


@guard_input("results", "must be SendResult objects or the gateway's send answers")
def send_results_frame(results: Iterable[SendResult | Mapping[str, Any]]) -> pd.DataFrame:
    """One row per send result (ticket, counts, cost, request_id, duplicate)."""
    return frame_builders.send_results_table(
        r if isinstance(r, SendResult) else SendResult.from_json(r) for r in results
    )
