"""The plan of a campaign: from a preflight report to the exact payload of every chunk.

What is sent to whom is fixed here, before anything is sent, and the campaign id is derived
from it (and from the name, which for a campaign not named includes when it was created): a
resume of the same campaign finds the same id, hence the same journal and the same request
ids, while the same content created again later is a new campaign.
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from smskit.campaigns.sending.journal import FIELD_PREFIX, plan_contacts
from smskit.campaigns.sending.record import CampaignRecord
from smskit.client.checks import check_choice, check_flags, iso_datetime
from smskit.errors import ValidationError
from smskit.rules import fields as _fields
from smskit.rules import spec as _spec
from smskit.rules.canonical import canonical_json
from smskit.rules.filenames import checked_file_name

if TYPE_CHECKING:
    import numpy as np

    from smskit.campaigns.planning.audience import Audience
    from smskit.campaigns.planning.report import PreflightReport
    from smskit.rules.contacts import ContactChunk

__all__ = [
    "CAMPAIGN_NAME_MAX",
    "MANAGED_OPTIONS",
    "SEND_OPTIONS",
    "Plan",
    "build_plan",
    "check_name",
    "check_options",
    "check_text_and_sender",
    "default_name",
]

# Options passed through to every chunk's send; simulation_mode and request_id are the
# campaign's to set (estimate() simulates; request ids come from the journal).
SEND_OPTIONS: Final = (
    "type",
    "send_at",
    "purpose",
    "with_replies",
    "auto_optimize_text",
    "auto_remove_blacklisted_numbers",
)
MANAGED_OPTIONS: Final = {
    "simulation_mode": "use Campaign.estimate() for a simulation",
    "request_id": "each chunk's request_id is derived from the campaign and the chunk",
}
# A campaign's name names its journal file.
CAMPAIGN_NAME_MAX: Final = 100


@dataclass(frozen=True)
class Plan:
    """Every recipient to send, column by column in sending order, and the chunks' ranges."""

    campaign_id: str
    record: CampaignRecord  # the campaign as its journal will record it (no gateway yet)
    columns: dict[str, list[Any]]  # phone_number, row, segments, field:<name>
    bounds: list[tuple[int, int]]
    regions: list[str | None]
    excluded: list[tuple[int, Any, Any, str, Any]]

    def segments_and_regions(self) -> Iterator[tuple[list[int], list[str | None]]]:
        """Each chunk's recipients' segments and regions (what an offline estimate counts)."""
        for start, stop in self.bounds:
            yield self.columns["segments"][start:stop], self.regions[start:stop]

    @property
    def to_send(self) -> int:
        """Recipients sent."""
        return len(self.columns["row"])

    def chunks(self) -> Iterator[tuple[int, list[int], ContactChunk]]:
        """Each chunk's index, rows and payload, made as they are taken."""
        for index, (start, stop) in enumerate(self.bounds):
            yield index, self.columns["row"][start:stop], self.contacts(start, stop)

    def contacts(self, start: int, stop: int) -> ContactChunk:
        """The Contact objects of planned recipients ``start:stop``."""
        return plan_contacts(self.columns, range(start, stop))


def build_plan(
    report: PreflightReport,
    audience: Audience,
    header: Mapping[str, Any],
    default_region: str | None,
    chunk_size: int,
    content: Mapping[str, Any] | None = None,
    content_columns: Callable[[Sequence[int]], Mapping[str, list[Any]]] | None = None,
) -> Plan:
    """The exact payload of every chunk of the recipients ``report`` lets through.

    ``audience`` is the recipients' half of that preflight: each field's texts come from its
    codes (as preflight rendered them), so the recipients are not read again. ``content``
    (the spec's :attr:`~smskit.campaigns.planning.spec.CampaignSpec.content`) gives the
    content id the repeat guard compares, derived like the campaign id; ``content_columns``
    (of the sending rows) gives the fields whose values it counts instead of the ones sent
    (tracked links: :meth:`~smskit.campaigns.planning.links.LinkTracking.content_columns`).
    """
    import numpy as np

    report.raise_for_errors()
    used = _fields.used_fields(header["text"])
    frame = report.frame
    sending = frame["send"].to_numpy(dtype=bool)
    numbers: list[str] = frame["phone_number"].to_numpy(dtype=object)[sending].tolist()
    values: dict[str, list[str]] = {}
    for name in used:
        field = audience.field(name)
        values[name] = np.array(field.texts, dtype=object)[field.codes[sending]].tolist()
    rows: list[int] = frame["row"].to_numpy()[sending].tolist()
    segments: list[int] = frame["segments"].to_numpy()[sending].tolist()
    regions: list[str | None] = frame["region"].astype(object).to_numpy()[sending].tolist()
    # What preflight priced each message at (None when it could not: offline, not served),
    # kept for outcomes' predicted vs billed cost; not part of the campaign id.
    predicted = _prices(frame["cost"].to_numpy(dtype="float64")[sending])
    columns: dict[str, list[Any]] = {
        "phone_number": numbers, "row": rows, "segments": segments, "predicted_cost": predicted,
    }  # fmt: skip
    columns.update({FIELD_PREFIX + name: values[name] for name in sorted(used)})
    # The campaign id covers what is sent to whom, not how it is chunked.
    digest = hashlib.blake2b(digest_size=16)
    digest.update(canonical_json(dict(header)).encode())
    same = hashlib.blake2b(canonical_json(dict(content or {})).encode(), digest_size=16)
    stand_ins = {} if content_columns is None else content_columns(rows)
    for name in ("phone_number", *sorted(used)):
        key = name if name == "phone_number" else FIELD_PREFIX + name
        encoded = canonical_json(columns[key]).encode()
        counted = encoded if name not in stand_ins else canonical_json(stand_ins[name]).encode()
        for hashed, text in ((digest, encoded), (same, counted)):
            hashed.update(b"\n")
            hashed.update(text)
        del encoded, counted  # a column's text at a time
    campaign_id = digest.hexdigest()
    bounds = [
        (start, min(start + chunk_size, len(numbers)))
        for start in range(0, len(numbers), chunk_size)
    ]
    excluded_frame = frame.loc[~frame["send"], ["row", "input", "phone_number", "issue", "detail"]]
    excluded = [
        (int(row), raw, number, str(issue), detail)
        for row, raw, number, issue, detail in excluded_frame.itertuples(index=False)
    ]
    record = CampaignRecord(
        campaign_id=campaign_id,
        content_id=None if content is None else same.hexdigest(),
        name=header["name"],
        text=header["text"],
        sender=header["sender"],
        options=header["options"],
        holdout=header.get("holdout"),
        default_region=default_region,
        chunk_size=chunk_size,
        recipients=len(frame),
        to_send=len(numbers),
        source=audience.recipients.describe(),
    )
    return Plan(campaign_id, record, columns, bounds, regions, excluded)


def _prices(costs: np.ndarray) -> list[float | None]:
    """Each recipient's predicted price (None where NaN: not priced), one float object per
    distinct price shared by every recipient at it (a few prices over 100,000 recipients:
    24 bytes each, not 24 bytes a recipient); told apart by their bits, so ``-0.0`` stays."""
    import numpy as np

    kinds, at = np.unique(costs.view(np.int64), return_inverse=True)
    shared = np.array([None if c != c else c for c in kinds.view(np.float64).tolist()], object)
    prices: list[float | None] = shared[at.reshape(-1)].tolist()
    return prices


def check_options(
    options: Mapping[str, Any], campaign_options: Sequence[str] = ()
) -> dict[str, Any]:
    """The send options, checked like the client checks them, ``send_at`` as ISO text; a
    name that is unknown is refused naming the send options and ``campaign_options`` (and
    the closest of them, for a typo)."""
    for name in options:
        if name in MANAGED_OPTIONS:
            raise ValidationError(name, f"is set by the campaign: {MANAGED_OPTIONS[name]}")
        if name not in SEND_OPTIONS:
            known = [*SEND_OPTIONS, *campaign_options]
            close = difflib.get_close_matches(name, known, n=1)
            rule = f"unknown send option; use {', '.join(SEND_OPTIONS)}"
            if campaign_options:
                rule += f", or a campaign option: {', '.join(campaign_options)}"
            if close:
                rule += f" (did you mean {close[0]}?)"
            raise ValidationError(name, rule)
    checked = {name: value for name, value in options.items() if value is not None}
    check_choice("type", checked.get("type"), _spec.SMS_TYPES)
    check_choice("purpose", checked.get("purpose"), _spec.PURPOSES)
    check_flags({k: v for k, v in checked.items() if k not in ("type", "purpose", "send_at")})
    if "send_at" in checked:
        checked["send_at"] = iso_datetime(checked["send_at"], "send_at", strict=True)
    return checked


def check_name(name: Any) -> str:
    """A campaign name fit for a file name."""
    return checked_file_name(
        "name", name, longest=CAMPAIGN_NAME_MAX, dots=True, names="the journal file"
    )


def default_name(text: str, sender: str, options: Mapping[str, Any], created: datetime) -> str:
    """``campaign-<created>-<hash>``: when the campaign was created (an aware datetime, shown
    in UTC to the microsecond) and a hash of the text, sender and options.

    The creation time is part of a campaign's identity unless the user names it: the same
    daily alert created tomorrow is a new campaign (new journal, new request ids), not a
    re-run of today's that the journal and the gateway would answer "already sent".
    """
    body = canonical_json({"text": text, "sender": sender, "options": dict(options)})
    digest = hashlib.blake2b(body.encode(), digest_size=5).hexdigest()
    return f"campaign-{created.astimezone(UTC):%Y%m%dT%H%M%S.%f}Z-{digest}"


def check_text_and_sender(text: Any, sender: Any) -> None:
    """What every campaign needs: a text and a sender, strings that can be encoded."""
    for field, value in (("text", text), ("sender", sender)):
        if not isinstance(value, str):
            raise ValidationError(field, "must be a string", value=value)
        # Before anything hashes or stores it (the campaign's name, its journal).
        at = _fields.unencodable_at(value)
        if at is not None:
            raise ValidationError(field, _fields.RULE_UNENCODABLE, position=at, value=value[at])
