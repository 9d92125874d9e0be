"""What runs on the workers, in the two passes of a Dask campaign's preflight.

1. :func:`check_partition`: the pandas preflight of one input partition, its rows numbered
   within the partition, written to the spill with the text of each dynamic field; back
   come its size, its missing fields, a sample number per country and the duplicate
   candidates, keyed by ``(partition << 32) + row`` so input order needs no row count yet.
2. :func:`first_seen` (after a shuffle on the number) pairs each repeat with the first row
   of its number; the pairs go back to their own partition (:func:`write_repeats`).
3. :func:`settle_partition`: a spilled partition numbered in the whole input, its repeats
   marked, priced, written as the report, and its share of the summary.
4. With a holdout, the pandas selection over the whole base, partition-wise: each settled
   partition's sendable recipients per stratum (:func:`holdout_strata`), each partition's
   smallest draws (:func:`holdout_candidates`), and once the cut-off of each stratum is known
   (:func:`holdout_cutoffs`), the held-out recipients marked in the report
   (:func:`hold_out_partition`), which returns the partition's share again. A recipient is
   held out by a Dask campaign exactly when the pandas campaign would hold it out.

Each function takes and returns pandas objects; the frames' columns and dtypes are
:func:`report_meta`'s, declared here once.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any, Final

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.feather as feather
from dask.dataframe.utils import clear_known_categories

from smskit.campaigns.planning.audience import Audience
from smskit.campaigns.planning.holdout import Holdout, draws, mark_held, shares
from smskit.campaigns.planning.orchestration import preflight
from smskit.campaigns.planning.preflight import PreflightSettings, priced, samples
from smskit.campaigns.planning.report import report_totals
from smskit.campaigns.sending.journal import FIELD_PREFIX
from smskit.dask.report import breakdown
from smskit.dask.spill import Spill
from smskit.errors import ValidationError
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
    "hold_out_partition",
    "holdout_candidates",
    "holdout_counts",
    "holdout_cutoffs",
    "holdout_strata",
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
    try:
        recipients = Recipients(part)
        # The preflight's own reading of the fields gives the texts the gateway will receive.
        audience = Audience(recipients, settings.default_region, fields=used)
    except ValidationError as exc:  # its row is counted in the partition: the driver adds
        exc.partition = number  # type: ignore[attr-defined]  # the rows before (campaign.py)
        raise
    # The holdout is of the whole base, chosen once the partitions are settled.
    whole = dataclasses.replace(settings, holdout=None)
    report = preflight(
        recipients, whole, now=now, audience=audience, suppression=Suppression(suppressed),
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
        {"row": part["row"].to_numpy()[repeated], "first": firsts.to_numpy(dtype="int64")[repeated]}
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
        "totals": report_totals(frame),
        "issues": _text_index(frame["issue"].value_counts()),
        "regions": region[before_prices & region.notna().to_numpy()].astype(str).value_counts(),
        "breakdown": breakdown(frame),
    }


# -- the holdout, partition-wise -------------------------------------------------------------

Stratum = str | None  # a destination country (None: unknown); "" when not stratified
Cutoff = tuple[int, int]  # (draw, row) of the last recipient a stratum holds out


def _sendable_draws(path: str, holdout: Holdout) -> pd.DataFrame:
    """The sendable recipients of a settled partition: ``row``, ``draw``, ``stratum``."""
    assert holdout.seed is not None
    frame = read(path, ["row", "phone_number", "region", "send"])
    sending = frame["send"].to_numpy(dtype=bool)
    frame = frame.loc[sending]
    if holdout.stratify is None:
        strata: Any = [""] * len(frame)
    else:
        region = frame["region"].astype(object)
        strata = region.where(region.notna(), None).to_numpy(dtype=object)
    return pd.DataFrame(
        {
            "row": frame["row"].to_numpy(dtype="int64"),
            "draw": draws(frame["phone_number"], holdout.seed),
            "stratum": strata,
        }
    )


def holdout_strata(path: str, holdout: Holdout) -> dict[Stratum, int]:
    """Sendable recipients of a settled partition per stratum, in order of first appearance."""
    frame = _sendable_draws(path, holdout)
    codes, uniques = pd.factorize(frame["stratum"], use_na_sentinel=False)
    counts = np.bincount(codes, minlength=len(uniques))
    return {
        None if pd.isna(value) else value: int(count)
        for value, count in zip(uniques, counts, strict=True)
    }


def holdout_candidates(
    path: str, holdout: Holdout, wanted: dict[Stratum, int]
) -> dict[Stratum, np.ndarray]:
    """Per stratum, at most ``wanted`` of a settled partition's sendable recipients, those of
    the smallest (draw, row): rows [draw, row] as uint64, sorted."""
    frame = _sendable_draws(path, holdout)
    found: dict[Stratum, np.ndarray] = {}
    for stratum, group in frame.groupby("stratum", dropna=False, sort=False):
        key: Stratum = None if pd.isna(stratum) else str(stratum)
        k = wanted.get(key, 0)
        if not k:
            continue
        rows, drawn = group["row"].to_numpy(), group["draw"].to_numpy()
        order = np.lexsort((rows, drawn))[:k]
        found[key] = np.column_stack([drawn[order], rows[order].astype(np.uint64)])
    return found


def holdout_counts(holdout: Holdout, strata: list[dict[Stratum, int]]) -> dict[Stratum, int]:
    """Recipients held out per stratum, from every partition's :func:`holdout_strata` in
    input order: the pandas campaign's shares (strata in order of first appearance)."""
    sizes: dict[Stratum, int] = {}
    for counts in strata:
        for key, count in counts.items():
            sizes[key] = sizes.get(key, 0) + count
    taken = shares(holdout, np.asarray(list(sizes.values()), dtype="int64"))
    return {key: int(k) for key, k in zip(sizes, taken, strict=True)}


def holdout_cutoffs(
    wanted: dict[Stratum, int], candidates: list[dict[Stratum, np.ndarray]]
) -> dict[Stratum, Cutoff]:
    """Per stratum holding out ``k`` recipients, the ``k``-th smallest (draw, row) of all."""
    cutoffs: dict[Stratum, Cutoff] = {}
    for key, k in wanted.items():
        found = [c[key] for c in candidates if key in c]
        if not k or not found:
            continue
        pairs = np.concatenate(found)
        last = np.lexsort((pairs[:, 1], pairs[:, 0]))[k - 1]
        cutoffs[key] = (int(pairs[last, 0]), int(pairs[last, 1]))
    return cutoffs


def hold_out_partition(
    path: str, holdout: Holdout, cutoffs: dict[Stratum, Cutoff]
) -> dict[str, Any]:
    """The held-out recipients of a settled partition marked in its report (each stratum's
    (draw, row) up to its cut-off), written back; returns its share of the summary."""
    frame = _restore(read(path))
    chosen = _sendable_draws(path, holdout)
    positions = np.flatnonzero(frame["send"].to_numpy(dtype=bool))
    held = np.zeros(len(chosen), dtype=bool)
    strata = chosen["stratum"].to_numpy(dtype=object)
    drawn, rows = chosen["draw"].to_numpy(), chosen["row"].to_numpy().astype(np.uint64)
    for key, (draw, row) in cutoffs.items():
        member = pd.isna(strata) if key is None else strata == key
        below = (drawn < np.uint64(draw)) | ((drawn == np.uint64(draw)) & (rows <= np.uint64(row)))
        held |= member & below
    if held.any():
        mark_held(frame, positions[held], holdout, ISSUES)
        frame = _conform(frame)
        write(frame, path)
    return _share(frame)


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
