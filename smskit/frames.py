"""Gateway results as pandas DataFrames with declared dtypes.

Closed value sets are categoricals whose categories are every spec value in spec order, so
counts and breakdowns list zero rows too; a value the spec does not list is kept, as an
extra category after the spec's. Numbers that may be missing use pandas' nullable dtypes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from smskit import _spec
from smskit.models import VoiceDraft

if TYPE_CHECKING:
    from smskit.models import (
        Balance,
        ContactItem,
        CountryCredits,
        Draft,
        HLRResult,
        SendResult,
    )

__all__ = [
    "CONTACT_ITEM_STATUS_DTYPE",
    "CREDIT_PRODUCT_DTYPE",
    "HLR_STATUS_DTYPE",
    "LINE_STATUS_DTYPE",
    "PHONE_NUMBER_TYPE_DTYPE",
    "balance_frame",
    "categorical",
    "contact_items_frame",
    "credits_frame",
    "drafts_frame",
    "hlr_frame",
    "send_results_frame",
]

HLR_STATUS_DTYPE = pd.CategoricalDtype(_spec.HLR_STATUS)
LINE_STATUS_DTYPE = pd.CategoricalDtype(_spec.LINE_STATUS)
PHONE_NUMBER_TYPE_DTYPE = pd.CategoricalDtype(_spec.PHONE_NUMBER_TYPE)
CONTACT_ITEM_STATUS_DTYPE = pd.CategoricalDtype(_spec.CONTACT_ITEM_STATUS)
# The products of the credits answer, in the order of the spec's "Credits per country".
CREDIT_PRODUCT_DTYPE = pd.CategoricalDtype(("premium_sms", "vocal_sms", "low_cost_sms", "hlr"))
DRAFT_KIND_DTYPE = pd.CategoricalDtype(("sms", "voice"))

_STRING = "string"
_NETWORK = {
    "network_name": _STRING,
    "mcc": "Int64",
    "mnc": "Int64",
    "country_name": _STRING,
    "country_code_iso3": _STRING,
    "country_code": _STRING,
    "area": _STRING,
    "country_prefix": _STRING,
}
HLR_COLUMNS: Mapping[str, Any] = {
    "phone_number": _STRING,
    "status": HLR_STATUS_DTYPE,
    "line_status": LINE_STATUS_DTYPE,
    "phone_number_type": PHONE_NUMBER_TYPE_DTYPE,
    **_NETWORK,
    "is_ported": "boolean",
    "ported_date": "datetime64[ns]",
    **{f"original_{name}": dtype for name, dtype in _NETWORK.items()},
}
CONTACT_ITEM_COLUMNS: Mapping[str, Any] = {
    "phone_number": _STRING,
    "email": _STRING,
    "status": CONTACT_ITEM_STATUS_DTYPE,
}
SEND_RESULT_COLUMNS: Mapping[str, Any] = {
    "sms_ticket": _STRING,
    "number_of_contacts": "Int64",
    "number_of_sms_needed": "Int64",
    "total_cost": "Float64",
    "residual_credit": "Float64",
    "request_id": _STRING,
    "duplicate": "boolean",
}
DRAFT_COLUMNS: Mapping[str, Any] = {
    "kind": DRAFT_KIND_DTYPE,
    "ticket_number": _STRING,
    "status": _STRING,
    "code": "Int64",
    "message": _STRING,
    "number_of_contacts": "Int64",
    "number_of_sms_needed": "Int64",
    "total_cost": "Float64",
    "residual_credit": "Float64",
    "estimated_duration": "Int64",
}


def categorical(values: Iterable[Any], dtype: pd.CategoricalDtype) -> pd.Categorical:
    """``values`` with ``dtype``'s categories, plus any value outside them as an extra one."""
    values = list(values)
    known = set(dtype.categories)
    extra = sorted({str(v) for v in values if v is not None and v not in known})
    categories = [*dtype.categories, *extra]
    return pd.Categorical(values, categories=categories, ordered=bool(dtype.ordered))


def _frame(rows: Sequence[Mapping[str, Any]], columns: Mapping[str, Any]) -> pd.DataFrame:
    data: dict[str, pd.Series] = {}
    for name, dtype in columns.items():
        values = [row.get(name) for row in rows]
        if isinstance(dtype, pd.CategoricalDtype):
            data[name] = pd.Series(categorical(values, dtype))
        elif dtype == "datetime64[ns]":
            data[name] = pd.Series(pd.to_datetime(values), dtype=dtype)
        else:
            data[name] = pd.Series(values, dtype=dtype)
    return pd.DataFrame(data, columns=list(columns))


def _fields(record: Any, names: Iterable[str]) -> dict[str, Any]:
    return {name: getattr(record, name, None) for name in names}


def hlr_frame(results: Iterable[HLRResult]) -> pd.DataFrame:
    """One row per number with every spec field; the original network flattened as original_*."""
    rows = []
    for result in results:
        row = _fields(result, HLR_COLUMNS)
        original = result.original_network_details
        row.update({f"original_{name}": getattr(original, name, None) for name in _NETWORK})
        rows.append(row)
    return _frame(rows, HLR_COLUMNS)


def contact_items_frame(items: Iterable[ContactItem]) -> pd.DataFrame:
    """One row per contact of a ``contact/create`` answer."""
    return _frame([_fields(item, CONTACT_ITEM_COLUMNS) for item in items], CONTACT_ITEM_COLUMNS)


def credits_frame(credits: Mapping[str, CountryCredits]) -> pd.DataFrame:
    """Tidy credits: one row per (country_code, product), with the number of ``credits``."""
    rows = [
        {"country_code": code, "product": product, "credits": getattr(entry, product)}
        for code, entry in credits.items()
        for product in CREDIT_PRODUCT_DTYPE.categories
    ]
    columns = {"country_code": _STRING, "product": CREDIT_PRODUCT_DTYPE, "credits": "Int64"}
    return _frame(rows, columns)


def balance_frame(balance: Balance) -> pd.DataFrame:
    """One row: ``amount`` and ``unit``."""
    return _frame([_fields(balance, ("amount", "unit"))], {"amount": "Float64", "unit": _STRING})


def drafts_frame(*drafts: Draft) -> pd.DataFrame:
    """One row per draft, ``kind`` saying sms or voice; fields a kind lacks are missing."""
    rows = [{**_fields(draft, DRAFT_COLUMNS), "kind": _draft_kind(draft)} for draft in drafts]
    return _frame(rows, DRAFT_COLUMNS)


def _draft_kind(draft: Draft) -> str:
    return "voice" if isinstance(draft, VoiceDraft) else "sms"


def send_results_frame(results: Iterable[SendResult]) -> pd.DataFrame:
    """One row per send result (ticket, counts, cost, request_id, duplicate)."""
    return _frame([_fields(r, SEND_RESULT_COLUMNS) for r in results], SEND_RESULT_COLUMNS)
