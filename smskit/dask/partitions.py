"""What runs on the workers: the pandas preflight of one partition, the duplicates of one
shuffled partition, and a partition's report once the duplicates and prices are known.

Each function takes and returns pandas objects; the frames' columns and dtypes are
:data:`REPORT_META`'s, declared here once.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

import numpy as np
import pandas as pd
from dask.dataframe.utils import clear_known_categories

from smskit.campaigns.journal import FIELD_PREFIX
from smskit.campaigns.preflight import ISSUES, PreflightSettings, preflight, priced
from smskit.rules import spec
from smskit.rules.destinations import Destinations
from smskit.rules.fields import field_texts
from smskit.rules.recipients import Recipients

__all__ = [
    "REPEATS_META",
    "check_partition",
    "first_seen",
    "kept_meta",
    "kept_partition",
    "report_meta",
    "settle_partition",
]

# Categories that depend on the data (regions, texts, warnings) are left unknown in the meta.
_DATA_CATEGORIES: Final = ("region", "text", "detail", "warning")
_TEXT: Final = "str"
REPEATS_META: Final = pd.DataFrame(
    {"row": pd.Series(dtype="int64"), "first": pd.Series(dtype="int64")}
)


def report_meta(index: pd.Index) -> pd.DataFrame:
    """The columns and dtypes of a preflight report's frame, as the pandas path has them."""
    empty = pd.Categorical([], categories=pd.Index([], dtype=_TEXT))
    meta = pd.DataFrame(
        {
            "row": pd.Series(dtype="int64"),
            "input": pd.Series(dtype=_TEXT),
            "phone_number": pd.Series(dtype=_TEXT),
            "region": empty,
            "line_type": pd.Categorical([], categories=list(spec.PHONE_NUMBER_TYPE)),
            "text": empty,
            "encoding": pd.Categorical([], categories=["GSM-7", "UCS-2"]),
            "characters": pd.Series(dtype="int32"),
            "segments": pd.Series(dtype="int16"),
            "cost": pd.Series(dtype="float64"),
            "issue": pd.Categorical([], categories=list(ISSUES)),
            "detail": empty,
            "warning": empty,
            "send": pd.Series(dtype=bool),
        },
        index=index[:0],
    )
    return clear_known_categories(meta, cols=list(_DATA_CATEGORIES), index=False)


def check_partition(
    part: pd.DataFrame,
    offset: int,
    settings: PreflightSettings,
    now: datetime,
    positions_as_index: bool,
) -> tuple[pd.DataFrame, int]:
    """The pandas preflight of one partition, its rows numbered from ``offset``, and how many
    of its recipients miss a field the text uses. Duplicates within the partition are
    marked, but named by their first here only: :func:`settle_partition` names the first of
    the whole base."""
    if positions_as_index:
        part = part.set_axis(pd.RangeIndex(offset, offset + len(part)))
    report = preflight(Recipients(part), settings, now=now)
    frame = report.frame
    frame["row"] += offset
    missing = sum(int(f.detail or 0) for f in report.findings if f.code == "fields_missing")
    return _conform(frame), missing


def _conform(frame: pd.DataFrame) -> pd.DataFrame:
    """Text columns as text, and the data's categoricals with text categories, even where a
    partition has no value (pandas infers object there)."""
    for name in ("input", "phone_number"):
        if frame[name].dtype != _TEXT:
            frame[name] = frame[name].astype(_TEXT)
    for name in _DATA_CATEGORIES:
        column = frame[name]
        if not isinstance(column.dtype, pd.CategoricalDtype):
            column = column.astype("category")
        # A partition without any value has object categories: partitions must agree to join.
        if column.cat.categories.dtype != _TEXT:
            text = pd.CategoricalDtype(column.cat.categories.astype(_TEXT))
            column = pd.Series(
                pd.Categorical.from_codes(column.cat.codes, dtype=text), index=column.index
            )
        frame[name] = column
    return frame


def first_seen(part: pd.DataFrame) -> pd.DataFrame:
    """In a partition holding every row of its numbers (after a shuffle on the number): each
    row whose number an earlier row has, and that earlier row, the first in input order."""
    part = part.sort_values("row", kind="stable")
    numbers = part["phone_number"]
    repeated = numbers.duplicated().to_numpy()
    firsts = part.groupby(numbers, sort=False)["row"].transform("first")
    return pd.DataFrame(
        {
            "row": part["row"].to_numpy()[repeated],
            "first": firsts.to_numpy(dtype="int64")[repeated],
        }
    )


def settle_partition(
    frame: pd.DataFrame,
    repeats: pd.DataFrame,
    destinations: Destinations | None,
    product: str,
) -> pd.DataFrame:
    """A partition's report with every duplicate of the whole base marked (``repeats``,
    sorted by row) and, with ``destinations``, the countries not served and the prices."""
    rows = frame["row"].to_numpy()
    if len(rows) and len(repeats):
        # A partition's rows are consecutive: its repeats are one slice of the sorted ones.
        lo, hi = np.searchsorted(repeats["row"].to_numpy(), [rows[0], rows[-1] + 1])
        hits = repeats.iloc[lo:hi]
        if len(hits):
            at = hits["row"].to_numpy() - rows[0]
            issue = frame["issue"].copy()
            detail = frame["detail"].astype(object)
            issue.iloc[at] = "duplicate"
            detail.iloc[at] = [f"same number as row {r}" for r in hits["first"].tolist()]
            frame = frame.assign(
                issue=issue, detail=detail.astype("category"), send=issue.isna().to_numpy()
            )
    if destinations is not None:
        frame = frame.copy()
        priced(frame, destinations, product)
    return _conform(frame)


def kept_meta(index: pd.Index, used: tuple[str, ...]) -> pd.DataFrame:
    """The columns of the recipients to send: what a chunk of the send needs, in order."""
    columns = {
        "row": pd.Series(dtype="int64"),
        "phone_number": pd.Series(dtype=_TEXT),
        "region": pd.Series(dtype=_TEXT),
        "segments": pd.Series(dtype="int16"),
        "cost": pd.Series(dtype="float64"),
    }
    columns.update({FIELD_PREFIX + name: pd.Series(dtype=_TEXT) for name in sorted(used)})
    return pd.DataFrame(columns, index=index[:0])


def kept_partition(
    part: pd.DataFrame,
    frame: pd.DataFrame,
    used: tuple[str, ...],
    offset: int,
    positions_as_index: bool,
) -> pd.DataFrame:
    """The recipients of one partition that its settled report lets through, with the text
    of each dynamic field as the gateway receives it."""
    if positions_as_index:
        part = part.set_axis(pd.RangeIndex(offset, offset + len(part)))
    sending = frame["send"].to_numpy()
    table = Recipients(part).table(used)
    kept: dict[str, Any] = {
        "row": frame["row"].to_numpy()[sending],
        "phone_number": frame["phone_number"].to_numpy(dtype=object)[sending],
        "region": frame["region"].astype(object).to_numpy()[sending],
        "segments": frame["segments"].to_numpy()[sending],
        "cost": frame["cost"].to_numpy()[sending],
    }
    for name in sorted(used):
        values = table[name].to_numpy(dtype=object)[sending].tolist()
        kept[FIELD_PREFIX + name] = field_texts(values, name)
    result = pd.DataFrame(kept, index=frame.index[sending])
    for name in result.columns:
        if result[name].dtype == object:
            result[name] = result[name].astype(_TEXT)
    return result
