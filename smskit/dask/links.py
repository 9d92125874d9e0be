"""A Dask campaign's tracked links: each partition's short-link columns, their registry.

``smskit.dask.Campaign(..., track_links=inbox)`` gives each partition of the recipients the
columns that carry its short links before preflight reads it (so preflight, the estimate
and the journal count and send each recipient's real link, as the pandas campaign does:
:mod:`smskit.campaigns.planning.links` owns the rules, called here). A partition's rows are
numbered across partitions for their tokens: partition ``n``'s row ``i`` is
``(n << SHIFT) + i`` (:data:`smskit.dask.partition_preflight.SHIFT`), so tokens never collide
and need no row count first. The workers make tokens with the inbox's
:class:`~smskit.rules.links.LinkKey`; planning the same campaign over the same partitions
again gives the same.

Before the first chunk goes, the links of the recipients preflight lets through are
registered with the inbox, a partition at a time, under the row the report and the journal
give them. A resumed chunk sends its journaled payload: the same links. The repeat guard
counts each link as its destination as written (:func:`written_kept`, by the pandas
campaign's rule :func:`~smskit.campaigns.planning.links.link_contents`), not its short link.

Imports: campaigns (planning.links), replies (the Inbox), rules (links), dask.
"""

from __future__ import annotations

from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd
from dask.delayed import delayed

from smskit.campaigns.planning.links import (
    LinkTracking,
    destinations_of,
    link_contents,
    link_values,
)
from smskit.campaigns.sending.journal import FIELD_PREFIX
from smskit.dask.partition_preflight import SHIFT
from smskit.rules.links import LinkKey, TrackedText, destination_fields

__all__ = ["register_kept", "with_links", "written_kept"]


def with_links(
    recipients: dd.DataFrame, tracking: LinkTracking, campaign: str, scope: str | None = None
) -> dd.DataFrame:
    """``recipients`` with a column per link field holding each row's short link (their
    tokens of ``scope``: :func:`~smskit.campaigns.planning.links.token_scope`)."""
    tracked = tracking.tracked
    if not tracked.fields:
        return recipients
    key, base = tracking.inbox.link_key(), tracking.inbox.link_base
    meta = _partition_links(recipients._meta, tracked, base, key, campaign, scope, {"number": 0})
    return recipients.map_partitions(
        _partition_links, tracked, base, key, campaign, scope, meta=meta, align_dataframes=False
    )


def _partition_links(
    part: pd.DataFrame,
    tracked: TrackedText,
    base: str,
    key: LinkKey,
    campaign: str,
    scope: str | None,
    partition_info: dict[str, Any] | None = None,
) -> pd.DataFrame:
    """One partition with its link columns (partition ``partition_info['number']``)."""
    number = 0 if partition_info is None else int(partition_info["number"])
    rows = ((number << SHIFT) + np.arange(len(part), dtype="int64")).tolist()
    columns, _ = link_values(part, rows, tracked, base, key.tokens, campaign, scope)
    return part.assign(**columns)


def register_kept(
    tracking: LinkTracking, kept: dd.DataFrame, recipients: dd.DataFrame, campaign: str
) -> int:
    """Register the links of the recipients ``kept`` (a preflight's: ``row``,
    ``phone_number``, ``field:<name>``) with the inbox, a partition at a time; returns how
    many were new. A destination with fields is filled from ``recipients`` (the campaign's,
    with their links: partitioned like ``kept``), read again for it."""
    tracked = tracking.tracked
    if not tracked.fields:
        return 0
    filled = any(destination_fields(d) for d in tracked.destinations)
    kept_parts = kept.to_delayed()
    input_parts = recipients.to_delayed() if filled else [None] * len(kept_parts)
    base, new = tracking.inbox.link_base, 0
    for kept_part, input_part in zip(kept_parts, input_parts, strict=True):
        entries = delayed(_entries)(kept_part, input_part, tracked, base, campaign).compute()
        if entries:
            new += tracking.inbox.register_links(campaign, entries)
    return new


def _entries(
    kept: pd.DataFrame,
    recipients: pd.DataFrame | None,
    tracked: TrackedText,
    base: str,
    campaign: str,
) -> list[tuple[str, str, int, int, str]]:
    """``(token, phone_number, row, link, destination)`` of each kept recipient's links."""
    prefix = f"{base}/"
    entries: list[tuple[str, str, int, int, str]] = []
    for link, (name, destination) in enumerate(
        zip(tracked.fields, tracked.destinations, strict=True)
    ):
        tokens = [str(value).removeprefix(prefix) for value in kept[FIELD_PREFIX + name]]
        if recipients is None or not destination_fields(destination):
            fixed = destinations_of(destination, pd.DataFrame(index=[0]), campaign)[0]
            places = [fixed] * len(tokens)
        else:
            by_token = dict(
                zip(
                    recipients[name].map(lambda v: str(v).removeprefix(prefix)),
                    destinations_of(destination, recipients, campaign),
                    strict=True,
                )
            )
            places = [by_token[token] for token in tokens]
        numbers = kept["phone_number"].astype(str).tolist()
        rows = kept["row"].astype("int64").tolist()
        entries += zip(tokens, numbers, rows, [link] * len(tokens), places, strict=True)
    return entries


def written_kept(tracking: LinkTracking, kept: dd.DataFrame, recipients: dd.DataFrame) -> list[Any]:
    """The partitions of ``kept`` (delayed) with each link field holding what the repeat
    guard counts (:func:`~smskit.campaigns.planning.links.link_contents`: the destination as
    written), not the short link. A destination with fields is filled from ``recipients``
    (the campaign's, with their links: partitioned like ``kept``), read again for it."""
    tracked = tracking.tracked
    kept_parts = kept.to_delayed()
    if not tracked.fields:
        return list(kept_parts)
    filled = any(destination_fields(d) for d in tracked.destinations)
    input_parts = recipients.to_delayed() if filled else [None] * len(kept_parts)
    return [
        delayed(_written)(kept_part, input_part, tracked)
        for kept_part, input_part in zip(kept_parts, input_parts, strict=True)
    ]


def _written(
    kept: pd.DataFrame, recipients: pd.DataFrame | None, tracked: TrackedText
) -> pd.DataFrame:
    """One partition of kept recipients with their link fields as the repeat guard counts
    them: each kept row's value found by its short link in ``recipients``."""
    out = kept.copy()
    if recipients is None:  # no destination holds a field: the same for every row
        for name, values in link_contents(tracked, pd.DataFrame(index=[0])).items():
            out[FIELD_PREFIX + name] = values[0]
        return out
    for name, values in link_contents(tracked, recipients).items():
        by_link = dict(zip(recipients[name].astype(str), values, strict=True))
        out[FIELD_PREFIX + name] = [by_link[str(link)] for link in kept[FIELD_PREFIX + name]]
    return out
