"""What runs on the workers, in the two passes of a Dask campaign's preflight.

1. :func:`check_partition`: the pandas preflight of one input partition, its rows numbered
   within the partition, written to the spill with the text of each dynamic field; back
   come its size, its missing fields, a sample number per country and the duplicate
   candidates, keyed by ``(partition << 32) + row`` so input order needs no row count yet.
2. :func:`first_seen` (after a shuffle on the number) pairs each repeat with the first row
   of its number; the pairs go back to their own partition (:func:`write_repeats`).
3. :func:`settle_partition`: a spilled partition numbered in the whole input, its repeats
   marked, priced, written as the report, and its share of the summary.

Each function takes and returns pandas objects; the frames' columns and dtypes are
:func:`report_meta`'s, declared here once.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.feather as feather
from dask.dataframe.utils import clear_known_categories

from smskit.campaigns.planning.audience import Audience
from smskit.campaigns.planning.orchestration import preflight
from smskit.campaigns.planning.preflight import PreflightSettings, priced, samples
from smskit.campaigns.sending.journal import FIELD_PREFIX
from smskit.dask.report import breakdown
from smskit.dask.spill import Spill
from smskit.rules import spec
from smskit.rules.caps import SentHistory
from smskit.rules.destinations import Destinations
from smskit.rules.findings import ISSUES
from smskit.rules.optouts import INCLUDED_COUNT, Suppression
from smskit.rules.recipients import Recipients

__all__ = [
    "CANDIDATES_META",
    "REPEATS_META",
    "SHIFT",
    "check_partition",
    "first_seen",
    "kept_meta",
    "load_kept",
    "load_report",
    "read",
    "report_meta",
    "settle_partition",
    "write",
    "write_repeats",
]

# Categories that depend on the data (regions, texts, warnings) are left unknown in the meta.
_DATA_CATEGORIES: Final = ("region", "text", "detail", "warning")
_FIXED_CATEGORIES: Final = {
    "line_type": pd.CategoricalDtype(list(spec.PHONE_NUMBER_TYPE)),
    "encoding": pd.CategoricalDtype(["GSM-7", "UCS-2"]),
    "issue": pd.CategoricalDtype(list(ISSUES)),
}
_TEXT: Final = "str"
# A row's key is its partition shifted left by SHIFT plus its row within the partition: keys
# sort in input order, and a key names its partition.
SHIFT: Final = 32
_ROWS: Final = (1 << SHIFT) - 1
CANDIDATES_META: Final = pd.DataFrame(
    {"row": pd.Series(dtype="int64"), "phone_number": pd.Series(dtype=_TEXT)}
)
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
            "line_type": pd.Categorical([], dtype=_FIXED_CATEGORIES["line_type"]),
            "text": empty,
            "encoding": pd.Categorical([], dtype=_FIXED_CATEGORIES["encoding"]),
            "characters": pd.Series(dtype="int32"),
            "segments": pd.Series(dtype="int16"),
            "cost": pd.Series(dtype="float64"),
            "issue": pd.Categorical([], dtype=_FIXED_CATEGORIES["issue"]),
            "detail": empty,
            "warning": empty,
            "send": pd.Series(dtype=bool),
        },
        index=index[:0],
    )
    return clear_known_categories(meta, cols=list(_DATA_CATEGORIES), index=False)


REPORT_COLUMNS: Final = tuple(report_meta(pd.RangeIndex(0)).columns)


def check_partition(
    part: pd.DataFrame,
    number: int,
    settings: PreflightSettings,
    now: datetime,
    positions_as_index: bool,
    used: tuple[str, ...],
    path: str,
    suppressed: frozenset[str] = frozenset(),
    reached: np.ndarray | None = None,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The pandas preflight of partition ``number``, written to ``path`` with a ``field:``
    text column per field of ``used`` (for the rows it lets through). Returns the duplicate
    candidates (key, number) and ``rows``, ``missing`` (recipients missing a field the text
    uses), ``sent_anyway`` (recipients on the opt-out list, ``suppressed``, let through by
    ``include_opted_out``) and ``samples`` (one sendable number per country). ``reached``:
    the numbers at the campaign's frequency cap (sorted keys), excluded as
    ``frequency_capped``. Duplicates within the
    partition are marked here; :func:`settle_partition` names the first of the whole base."""
    if positions_as_index:
        part = part.set_axis(pd.RangeIndex(len(part)))
    recipients = Recipients(part)
    # The preflight's own reading of the fields gives the texts the gateway will receive.
    audience = Audience(recipients, settings.default_region, fields=used)
    report = preflight(
        recipients, settings, now=now, audience=audience, suppression=Suppression(suppressed),
        history=SentHistory(known=reached),
    )  # fmt: skip
    frame = _conform(report.frame)
    missing = sum(int(f.detail or 0) for f in report.findings if f.code == "fields_missing")
    sent_anyway = sum(int(f.detail or 0) for f in report.findings if f.code == INCLUDED_COUNT)
    sending = frame["send"].to_numpy()
    for name in sorted(used):
        values = audience.field(name)
        texts = np.full(len(frame), None, dtype=object)
        texts[sending] = np.asarray(values.texts, dtype=object)[values.codes[sending]]
        frame[FIELD_PREFIX + name] = pd.array(texts, dtype=_TEXT)
    write(frame, path)
    issue = frame["issue"]
    candidate = ((issue.isna() | (issue == "duplicate")) & frame["phone_number"].notna()).to_numpy()
    candidates = pd.DataFrame(
        {
            "row": (number << SHIFT) + frame["row"].to_numpy(dtype="int64")[candidate],
            "phone_number": frame["phone_number"].to_numpy()[candidate],
        }
    ).astype({"phone_number": _TEXT})
    info = {
        "rows": len(frame),
        "missing": missing,
        "sent_anyway": sent_anyway,
        "samples": samples(frame),
    }
    return candidates, info


def first_seen(part: pd.DataFrame) -> pd.DataFrame:
    """In a partition holding every candidate of its numbers (after a shuffle on the number):
    each key whose number an earlier key has, and that earlier key, the first in input order."""
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


def write_repeats(repeats: pd.DataFrame, path: str) -> int:
    """One partition's own repeats (their key's partition is this one), written to ``path``."""
    repeats = repeats.reset_index(drop=True)[list(REPEATS_META.columns)]
    write(repeats, path)
    return len(repeats)


def settle_partition(
    checked: str,
    repeats: str,
    offsets: list[int],
    number: int,
    positions_as_index: bool,
    destinations: Destinations | None,
    product: str,
    path: str,
) -> dict[str, Any]:
    """Partition ``number`` as spilled at ``checked``, its rows numbered in the whole input
    (``offsets``: each partition's first row), every duplicate of the whole base marked
    (``repeats``: its own pairs of keys) and, with ``destinations``, the countries not served
    and the prices; written to ``path``. Returns its share of the summary."""
    frame = _restore(read(checked))
    offset = offsets[number]
    frame["row"] += offset
    if positions_as_index:
        frame.index = pd.RangeIndex(offset, offset + len(frame))
    pairs = read(repeats)
    if len(pairs):
        at = pairs["row"].to_numpy() & _ROWS
        first = pairs["first"].to_numpy()
        rows = np.asarray(offsets, dtype="int64")[first >> SHIFT] + (first & _ROWS)
        issue = frame["issue"].copy()
        detail = frame["detail"].astype(object)
        issue.iloc[at] = "duplicate"
        detail.iloc[at] = [f"same number as row {r}" for r in rows.tolist()]
        frame["issue"] = issue
        frame["detail"] = detail.astype("category")
        frame["send"] = issue.isna().to_numpy()
    if destinations is not None:
        priced(frame, destinations, product)
    frame = _conform(frame)
    write(frame, path)
    return _share(frame)


def _share(frame: pd.DataFrame) -> dict[str, Any]:
    """A settled partition's share of the summary, issue counts, regions and breakdown."""
    sending = frame["send"].to_numpy()
    # Sendable before prices: what the pandas preflight counts for the hours refusals.
    before_prices = sending | (frame["issue"] == "not_served").to_numpy()
    region = frame["region"]
    return {
        "totals": {
            "recipients": len(frame),
            "to_send": int(sending.sum()),
            "with_warning": int((frame["warning"].notna().to_numpy() & sending).sum()),
            "segments": int(frame["segments"].to_numpy(dtype="int64")[sending].sum()),
            "ucs2": int(((frame["encoding"] == "UCS-2").to_numpy() & sending).sum()),
        },
        "issues": _text_index(frame["issue"].value_counts()),
        "regions": region[before_prices & region.notna().to_numpy()].astype(str).value_counts(),
        "breakdown": breakdown(frame),
    }


def _text_index(counts: pd.Series) -> pd.Series:
    counts.index = counts.index.astype(str)
    return counts


def load_report(spill: Spill, number: int) -> pd.DataFrame:
    """A settled partition's report, as :func:`report_meta` declares it."""
    path = spill.file("report", number)
    return _restore(read(path, list(REPORT_COLUMNS)))


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


def load_kept(spill: Spill, number: int, used: tuple[str, ...]) -> pd.DataFrame:
    """The recipients of a settled partition that its report lets through, with the text of
    each dynamic field as the gateway receives it."""
    fields = [FIELD_PREFIX + name for name in sorted(used)]
    wanted = ["row", "phone_number", "region", "segments", "cost", *fields, "send"]
    frame = read(spill.file("report", number), wanted)
    kept = frame.loc[frame["send"].to_numpy(), wanted[:-1]]
    kept = kept.astype({"region": object})
    return kept.astype({name: _TEXT for name in ["phone_number", "region", *fields]})


def write(frame: pd.DataFrame, path: str) -> None:
    """A frame to a spill file: Arrow IPC (Feather), which writes several times faster than
    Parquet and keeps the index and the categoricals; the spill is read back by smskit only."""
    feather.write_feather(pa.Table.from_pandas(frame, preserve_index=True), path)


def read(path: str, columns: list[str] | None = None) -> pd.DataFrame:
    """A spill file back as pandas, ``columns`` only (and the index, whatever it is)."""
    if columns is not None:
        schema = feather.read_table(path, columns=[]).schema
        index = [
            c for c in (schema.pandas_metadata or {}).get("index_columns", []) if isinstance(c, str)
        ]
        columns = [*columns, *index]
    return feather.read_table(path, columns=columns).to_pandas()


def _restore(frame: pd.DataFrame) -> pd.DataFrame:
    """A spilled frame with the report's dtypes (a file keeps the categories it saw)."""
    for name, dtype in _FIXED_CATEGORIES.items():
        if frame[name].dtype != dtype:
            frame[name] = frame[name].astype(dtype)
    return _conform(frame)


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
