"""The pandas side of client results: one-row and per-item tables, and the breakdowns.

Closed value sets take the categorical dtypes of :mod:`smskit.client.dtypes` (every spec
value in spec order, so counts and breakdowns list zero rows too; a value the spec does not
list is kept, as an extra category). Numbers that may be missing use pandas' nullable dtypes.

Everything here takes parsed results (read by attribute: the models' ``to_frame()`` call in
here), the gateway's HLR dicts when typed as the spec types them (read directly, a million
in about two seconds), or a frame. Parsing JSON is the models' job: :mod:`smskit.client.frames`
parses raw answers with them and then comes here, so models and frames never import each
other.

Breakdown tables (:func:`breakdown`, :func:`crosstab`, :func:`porting`,
:func:`reachability`) end with a ``"total"`` row. Their index is therefore made of plain
strings (object dtype), not categoricals: ``"total"`` is not a spec value. Rows keep spec
order (closed sets) or go by decreasing count (countries, networks); a missing value is
counted under ``"(missing)"``, so the total is always the number of rows given.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import compress, product, repeat
from typing import Any

import numpy as np
import pandas as pd

from smskit.client.dtypes import (
    BREAKDOWN_KEYS,
    CONTACT_ITEM_STATUS_DTYPE,
    CREDIT_PRODUCT_DTYPE,
    DRAFT_KIND_DTYPE,
    HLR_STATUS_DTYPE,
    LINE_STATUS_DTYPE,
    MOBILE_TYPES,
    PHONE_NUMBER_TYPE_DTYPE,
    TOTAL,
    categorical,
)
from smskit.errors import ValidationError
from smskit.rules import spec as _spec
from smskit.rules.answers import hlr_known
from smskit.rules.countries import country_info
from smskit.rules.missing import MISSING

__all__ = [
    "HLR_COLUMNS",
    "balance_table",
    "breakdown",
    "contact_items_table",
    "credits_table",
    "credits_wide",
    "crosstab",
    "drafts_table",
    "expiring_packs_table",
    "hlr_table",
    "porting",
    "reachability",
    "send_results_table",
    "wallet_packs_table",
]

_VENDOR_TZ = "Europe/Paris"  # the vendor's time for date-times without an offset
_STRING = "string"
_DATETIME = "datetime64[ns]"
_PORTED_DATE_FORMAT = "%Y-%m-%d %H:%M:%S"
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
_HLR_TOP = {
    "phone_number": _STRING,
    "status": HLR_STATUS_DTYPE,
    "line_status": LINE_STATUS_DTYPE,
    "phone_number_type": PHONE_NUMBER_TYPE_DTYPE,
    **_NETWORK,
    "is_ported": "boolean",
    "ported_date": _DATETIME,
}
HLR_COLUMNS: Mapping[str, Any] = {
    **_HLR_TOP,
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
    "submitted": "Int64",
    "dropped": "Int64",
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
_ALIASES: Mapping[str, Mapping[str, str]] = {"line_status": _spec.LINE_STATUS_ALIASES}


# -- typed columns ---------------------------------------------------------------------------


def _column(name: str, values: Any, dtype: Any) -> Any:
    if isinstance(dtype, pd.CategoricalDtype):
        return categorical(values, dtype, _ALIASES.get(name))
    if dtype == _DATETIME:
        return pd.to_datetime(values, format=_PORTED_DATE_FORMAT).as_unit("ns")
    return pd.array(values, dtype=dtype)


def _frame(rows: Sequence[Mapping[str, Any]], columns: Mapping[str, Any]) -> pd.DataFrame:
    data = {
        name: _column(name, [row.get(name) for row in rows], dt) for name, dt in columns.items()
    }
    return pd.DataFrame(data, columns=list(columns))


def _fields(record: Any, names: Iterable[str]) -> dict[str, Any]:
    return {name: getattr(record, name, None) for name in names}


def _conform(frame: pd.DataFrame, columns: Mapping[str, Any]) -> pd.DataFrame:
    """A copy of ``frame`` whose known columns have their declared dtype (others untouched)."""
    frame = frame.copy()
    for name, dtype in columns.items():
        if name not in frame.columns or _has_dtype(frame[name], dtype):
            continue
        values = frame[name].astype(object).where(frame[name].notna(), None).tolist()
        frame[name] = _column(name, values, dtype)
    return frame


def _has_dtype(series: pd.Series, dtype: Any) -> bool:
    if isinstance(dtype, pd.CategoricalDtype):
        return isinstance(series.dtype, pd.CategoricalDtype) and list(
            series.cat.categories[: len(dtype.categories)]
        ) == list(dtype.categories)
    return str(series.dtype) == str(pd.api.types.pandas_dtype(dtype))  # "str" is not "string"


# -- HLR ---------------------------------------------------------------------------------------


def hlr_table(results: Any) -> pd.DataFrame:
    """One row per number with every spec field; the original network flattened as original_*.

    ``results``: parsed HLR results, the gateway's dicts typed as the spec types them, or a
    frame (returned with the declared dtypes). Dicts with other types (a number sent as a
    string...) raise ``TypeError``: :func:`smskit.client.frames.hlr_frame` parses those first.
    """
    if isinstance(results, pd.DataFrame):
        return _conform(results, HLR_COLUMNS)
    rows = results if isinstance(results, Sequence) else list(results)
    if rows and isinstance(rows[0], Mapping):
        return _typed(_raw_columns(rows))
    return _typed(_columns(rows, operator.attrgetter))


# Fields with few distinct values: a million answers hold a few thousand combinations of
# them, so each combination is converted once and spread to the rows by code.
_REPEATED = ("status", "line_status", "phone_number_type", *_NETWORK, "is_ported")
_NO_NETWORK = (None,) * len(_NETWORK)
# What the raw dicts' non-string fields may hold for the direct read; anything else (a number
# sent as a string...) is refused: the lenient model parser has to read it.
_RAW_TYPES: Mapping[str, frozenset[type]] = {
    "mcc": frozenset({int, type(None)}),
    "mnc": frozenset({int, type(None)}),
    "original_mcc": frozenset({int, type(None)}),
    "original_mnc": frozenset({int, type(None)}),
    "is_ported": frozenset({bool, type(None)}),
    "ported_date": frozenset({str, type(None)}),
}

# A column as (values, codes): the row values when codes is None, else the distinct values
# that codes index, one code per row.
_Coded = tuple[Sequence[Any], "np.ndarray | None"]


def _raw_columns(rows: Sequence[Mapping[str, Any]]) -> dict[str, _Coded]:
    columns = _columns(rows, operator.itemgetter)
    for name, allowed in _RAW_TYPES.items():
        if not set(map(type, columns[name][0])) <= allowed:
            raise TypeError(f"{name}: not the spec's type")
    return columns


def _distinct(items: list[Any]) -> tuple[list[Any], np.ndarray]:
    lookup = {item: code for code, item in enumerate(dict.fromkeys(items))}
    codes = np.fromiter(map(lookup.__getitem__, items), dtype=np.intp, count=len(items))
    return list(lookup), codes


def _columns(rows: Sequence[Any], getter: Callable[..., Callable[[Any], Any]]) -> dict[str, _Coded]:
    """Every HLR column of ``rows``, read with ``getter`` (item- or attrgetter)."""
    columns: dict[str, _Coded] = {
        name: (list(map(getter(name), rows)), None) for name in ("phone_number", "ported_date")
    }
    combos, codes = _distinct(list(map(getter(*_REPEATED), rows)))
    columns.update({name: (_known(name, combos, i), codes) for i, name in enumerate(_REPEATED)})
    originals = list(map(getter("original_network_details"), rows))
    ported = np.fromiter(
        map(operator.is_not, originals, repeat(None)), dtype=bool, count=len(originals)
    )
    combos, codes = _distinct(list(map(getter(*_NETWORK), compress(originals, ported))))
    spread = np.full(len(rows), len(combos), dtype=np.intp)
    spread[ported] = codes
    combos.append(_NO_NETWORK)
    columns.update(
        {f"original_{name}": (_known(name, combos, i), spread) for i, name in enumerate(_NETWORK)}
    )
    return columns


def _known(name: str, combos: Sequence[tuple[Any, ...]], i: int) -> list[Any]:
    """Field ``name`` (at ``i``) of each distinct combination, "unknown" placeholders as None."""
    return [hlr_known(name, combo[i]) for combo in combos]


def _typed(columns: Mapping[str, _Coded]) -> pd.DataFrame:
    data = {}
    for name, dtype in HLR_COLUMNS.items():
        values, codes = columns[name]
        array = _column(name, values, dtype)
        data[name] = array if codes is None else array.take(codes)
    return pd.DataFrame(data, columns=list(HLR_COLUMNS), copy=False)  # fresh arrays: ours


def _hlr(data: Any, needed: Iterable[str]) -> pd.DataFrame:
    """The HLR frame behind ``data``; only ``needed`` columns are conformed for a frame."""
    if isinstance(data, pd.DataFrame):
        needed = list(dict.fromkeys(needed))
        missing = [name for name in needed if name not in data.columns]
        if missing:
            raise ValidationError(missing[0], "column required for this table (see hlr_frame)")
        return _conform(data[needed], HLR_COLUMNS)
    return hlr_table(data)


# -- breakdowns --------------------------------------------------------------------------------


class _Level:
    """One key of a breakdown: a code per row and the labels (tuples) of the codes, in order."""

    def __init__(self, frame: pd.DataFrame, key: str) -> None:
        self.names = BREAKDOWN_KEYS[key]
        series = [frame[name] for name in self.names]
        if len(series) == 1 and isinstance(series[0].dtype, pd.CategoricalDtype):
            self._closed(series[0])
        else:
            self._open(series)

    def _closed(self, column: pd.Series) -> None:
        """Spec values in spec order, every one listed; missing values last, if any."""
        codes = column.cat.codes.to_numpy().astype(np.int64)
        labels: list[tuple[str, ...]] = [(str(c),) for c in column.cat.categories]
        if (codes < 0).any():
            codes[codes < 0] = len(labels)
            labels.append((MISSING,))
        self.codes, self.labels = codes, labels

    def _open(self, columns: list[pd.Series]) -> None:
        """Values seen, by decreasing count then label (countries, networks); missing ones last."""
        parts, sizes, uniques = [], [], []
        for column in columns:
            codes, values = pd.factorize(column, use_na_sentinel=True)
            parts.append(np.where(codes < 0, len(values), codes))
            uniques.append([*map(str, values), MISSING])
            sizes.append(len(values) + 1)
        flat = np.ravel_multi_index(parts, sizes) if parts[0].size else np.zeros(0, np.int64)
        seen, inverse, counts = np.unique(flat, return_inverse=True, return_counts=True)
        labels = [
            tuple(uniques[i][j] for i, j in enumerate(np.unravel_index(int(code), sizes)))
            for code in seen
        ]
        order = sorted(
            range(len(seen)), key=lambda i: (MISSING in labels[i], -counts[i], labels[i])
        )
        rank = np.empty(len(seen), dtype=np.int64)
        rank[order] = np.arange(len(seen))
        self.codes = rank[inverse].reshape(-1)
        self.labels = [labels[i] for i in order]


def _keys(by: str | Sequence[str]) -> tuple[str, ...]:
    if not isinstance(by, str | Sequence):
        raise ValidationError("by", f"one of {', '.join(BREAKDOWN_KEYS)}", value=by)
    keys = (by,) if isinstance(by, str) else tuple(by)
    for key in keys:
        if not isinstance(key, str) or key not in BREAKDOWN_KEYS:
            raise ValidationError("by", f"one of {', '.join(BREAKDOWN_KEYS)}", value=key)
    if not keys or len(set(keys)) != len(keys):
        raise ValidationError("by", "one key or several different keys", value=by)
    return keys


def _levels(data: Any, keys: Sequence[str]) -> tuple[list[_Level], int]:
    frame = _hlr(data, [name for key in keys for name in BREAKDOWN_KEYS[key]])
    return [_Level(frame, key) for key in keys], len(frame)


def _counts(levels: Sequence[_Level]) -> np.ndarray:
    """Rows per combination of labels, shaped one axis per level (zero where none)."""
    sizes = [len(level.labels) for level in levels]
    flat = np.ravel_multi_index([level.codes for level in levels], sizes)
    return np.bincount(flat, minlength=int(np.prod(sizes))).reshape(sizes)


def _index(labels: Sequence[tuple[str, ...]], names: Sequence[str], total: bool) -> pd.Index:
    rows = [*labels, (TOTAL, *[""] * (len(names) - 1))] if total else list(labels)
    if len(names) == 1:
        return pd.Index([row[0] for row in rows], dtype=object, name=names[0])
    return pd.MultiIndex.from_tuples(rows, names=list(names))


def _share(part: np.ndarray, whole: np.ndarray | int) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.asarray(whole) > 0, part / np.maximum(whole, 1), np.nan)


def breakdown(data: Any, by: str | Sequence[str] = "line_status") -> pd.DataFrame:
    """:func:`smskit.client.frames.breakdown` of an HLR frame or parsed results."""
    keys = _keys(by)
    levels, n = _levels(data, keys)
    counts = _counts(levels).reshape(-1)
    labels = [sum(combo, ()) for combo in product(*(level.labels for level in levels))]
    names = [name for level in levels for name in level.names]
    return pd.DataFrame(
        {"count": np.append(counts, n).astype(np.int64), "share": _share(np.append(counts, n), n)},
        index=_index(labels, names, total=True),
    )


def crosstab(
    data: Any, rows: str = "line_status", columns: str = "phone_number_type"
) -> pd.DataFrame:
    """:func:`smskit.client.frames.crosstab` of an HLR frame or parsed results."""
    levels, _ = _levels(data, _keys((rows, columns)))
    counts = _counts(levels)
    table = np.zeros((counts.shape[0] + 1, counts.shape[1] + 1), dtype=np.int64)
    table[:-1, :-1] = counts
    table[-1, :-1] = counts.sum(axis=0)
    table[:, -1] = table[:, :-1].sum(axis=1)
    return pd.DataFrame(
        table,
        index=_index(levels[0].labels, levels[0].names, total=True),
        columns=_index(levels[1].labels, levels[1].names, total=True),
    )


def porting(data: Any) -> pd.DataFrame:
    """:func:`smskit.client.frames.porting` of an HLR frame or parsed results."""
    names = ["is_ported", "country_code", "network_name"]
    frame = _hlr(data, [*names, *(f"original_{name}" for name in names[1:])])
    ported = frame["is_ported"].fillna(False).to_numpy(dtype=bool)
    origin = pd.DataFrame(
        {
            name: np.where(
                ported, frame[f"original_{name}"].to_numpy(object), frame[name].to_numpy(object)
            )
            for name in names[1:]
        }
    )
    known = origin["network_name"].notna().to_numpy()
    origin = pd.DataFrame({name: origin[name].fillna(MISSING) for name in names[1:]})[known]
    table = (
        pd.DataFrame({"numbers": 1, "ported": ported[known].astype(np.int64)}, index=origin.index)
        .groupby([origin["country_code"], origin["network_name"]], sort=False)
        .sum()
    )
    started: dict[Any, int] = table["numbers"].to_dict()
    labels = sorted(table.index, key=lambda label: (MISSING in label, -started[label], label))
    numbers = table["numbers"].reindex(labels).to_numpy(np.int64)
    moved = table["ported"].reindex(labels).to_numpy(np.int64)
    numbers, moved = np.append(numbers, numbers.sum()), np.append(moved, moved.sum())
    return pd.DataFrame(
        {"numbers": numbers, "ported": moved, "share": _share(moved, numbers)},
        index=_index(labels, ["country_code", "original_network"], total=True),
    )


def reachability(data: Any) -> pd.DataFrame:
    """:func:`smskit.client.frames.reachability` of an HLR frame or parsed results."""
    frame = _hlr(data, ["country_code", "phone_number_type", "line_status"])
    country = _Level(frame, "country")
    mobile = frame["phone_number_type"].isin(MOBILE_TYPES).to_numpy(dtype=bool)
    live = mobile & (frame["line_status"] == "live").to_numpy(dtype=bool, na_value=False)
    absent = mobile & (frame["line_status"] == "absent_subscriber").to_numpy(
        dtype=bool, na_value=False
    )
    size = len(country.labels)
    columns = {
        "numbers": np.bincount(country.codes, minlength=size),
        "mobiles": np.bincount(country.codes, weights=mobile, minlength=size),
        "live": np.bincount(country.codes, weights=live, minlength=size),
        "absent_subscriber": np.bincount(country.codes, weights=absent, minlength=size),
    }
    table = {name: np.append(v, v.sum()).astype(np.int64) for name, v in columns.items()}
    table["reachable"] = table["live"] + table["absent_subscriber"]
    table["reachable_share"] = _share(table["reachable"], table["mobiles"])
    return pd.DataFrame(table, index=_index(country.labels, ["country_code"], total=True))


# -- other responses ---------------------------------------------------------------------------


def contact_items_table(items: Iterable[Any]) -> pd.DataFrame:
    """One row per parsed contact item of a ``contact/create`` answer."""
    return _frame([_fields(item, CONTACT_ITEM_COLUMNS) for item in items], CONTACT_ITEM_COLUMNS)


def credits_table(entries: Iterable[Any]) -> pd.DataFrame:
    """Tidy credits: one row per country and product (``country_code``, ``country``, ``iso3``,
    ``product``, ``credits``) of parsed per-country entries."""
    rows = [
        {
            "country_code": entry.country_code,
            "country": country_info(entry.country_code)[0],
            "iso3": country_info(entry.country_code)[1],
            "product": product_name,
            "credits": getattr(entry, product_name),
        }
        for entry in entries
        for product_name in CREDIT_PRODUCT_DTYPE.categories
    ]
    columns = {
        "country_code": _STRING,
        "country": _STRING,
        "iso3": _STRING,
        "product": CREDIT_PRODUCT_DTYPE,
        "credits": "Int64",
    }
    return _frame(rows, columns)


def credits_wide(tidy: pd.DataFrame) -> pd.DataFrame:
    """One row per country (index ``country_code``): ``country``, ``iso3``, a column per product,
    from the tidy table of :func:`credits_table`."""
    wide = tidy.pivot(index="country_code", columns="product", values="credits")
    wide = wide.reindex(list(dict.fromkeys(tidy["country_code"])))
    names = tidy.drop_duplicates("country_code").set_index("country_code")[["country", "iso3"]]
    wide = pd.concat([names, wide[list(CREDIT_PRODUCT_DTYPE.categories)]], axis=1)
    wide.columns = pd.Index([str(c) for c in wide.columns], dtype=object)
    wide.index.name = "country_code"
    return wide


def balance_table(balance: Any) -> pd.DataFrame:
    """One row: ``amount`` and ``unit`` of a parsed balance."""
    return _frame([_fields(balance, ("amount", "unit"))], {"amount": "Float64", "unit": _STRING})


def wallet_packs_table(balance: Any) -> pd.DataFrame:
    """One row per pack of a parsed balance; ``expiration_date`` in Europe/Paris."""
    packs = balance.wallet_packs
    expirations = pd.DatetimeIndex(
        [pd.NaT if p.expiration_date is None else pd.Timestamp(p.expiration_date) for p in packs],
        dtype=f"datetime64[ns, {_VENDOR_TZ}]",
    )
    rows = [{"id": p.id, "credit": p.credit, "unit": balance.unit} for p in packs]
    frame = _frame(rows, {"id": _STRING, "credit": "Float64", "unit": _STRING})
    frame["expiration_date"] = expirations
    return frame


def expiring_packs_table(balance: Any, within_days: float, *, now: Any = None) -> pd.DataFrame:
    """:func:`smskit.client.frames.expiring_packs` of a parsed balance."""
    frame = wallet_packs_table(balance)
    moment = pd.Timestamp.now(tz=_VENDOR_TZ) if now is None else pd.Timestamp(now)
    if moment.tzinfo is None:
        moment = moment.tz_localize(_VENDOR_TZ)
    left = frame["expiration_date"] - moment
    soon = frame[(left >= pd.Timedelta(0)) & (left <= pd.Timedelta(days=within_days))].copy()
    soon["days_left"] = pd.array((left[soon.index] // pd.Timedelta(days=1)).tolist(), "Int64")
    return soon.sort_values("expiration_date", ignore_index=True)


def drafts_table(*drafts: Any) -> pd.DataFrame:
    """:func:`smskit.client.frames.drafts_frame` of parsed drafts."""
    rows = [{**_fields(draft, DRAFT_COLUMNS), "kind": _draft_kind(draft)} for draft in drafts]
    frame = _frame(rows, DRAFT_COLUMNS)
    contacts = frame["number_of_contacts"].astype("Float64")
    frame["cost_per_contact"] = frame["total_cost"] / contacts.where(contacts > 0)
    return frame


def _draft_kind(draft: Any) -> str:
    return "voice" if hasattr(draft, "estimated_duration") else "sms"  # only voice has one


def send_results_table(results: Iterable[Any]) -> pd.DataFrame:
    """One row per parsed send result (ticket, counts, cost, request_id, duplicate)."""
    return _frame([_fields(r, SEND_RESULT_COLUMNS) for r in results], SEND_RESULT_COLUMNS)
