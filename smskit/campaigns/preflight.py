"""Campaign preflight: every check that needs no request, per recipient and for the campaign.

Recipients are read in blocks (a CSV file is streamed), so a million rows fit in a few
hundred MB. Per recipient: the number normalised (:mod:`smskit.rules.phones`), duplicates, lines
that cannot receive SMS, dynamic fields missing or too long, the rendered text as delivered
(optimised like the gateway does) with its encoding and segments. For the campaign: text
limits and unknown fields, the STOP rule for marketing, the sender rules, and the permitted
hours for marketing per destination country.

A recipient with an *issue* is excluded from sending, and listed; a *warning* does not
exclude. Campaign-level *errors* stop the send as a whole.
"""

from __future__ import annotations

import warnings as _warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from smskit.campaigns.results import shown_value
from smskit.errors import ValidationError
from smskit.rules import spec as _spec
from smskit.rules.content import RULE_STOP_MISSING, has_stop_mention, sender_allows_spaces
from smskit.rules.destinations import Destinations
from smskit.rules.fields import field_texts, used_fields
from smskit.rules.findings import ISSUES, Finding
from smskit.rules.hours import (
    MARKETING_HOURS,
    MarketingHours,
    hours_refusals,
    register_marketing_hours,
)
from smskit.rules.recipients import BLOCK_ROWS, REGION_COLUMN, Recipients, number_checks
from smskit.rules.sender import check_sender

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "DOUBTFUL_LINE_TYPES",
    "ISSUES",
    "MARKETING_HOURS",
    "NO_SMS_LINE_TYPES",
    "MarketingHours",
    "PreflightReport",
    "PreflightSettings",
    "Recipients",
    "preflight",
    "register_marketing_hours",
]

# Line types that cannot receive an SMS: fixed lines, special-rate and service numbers,
# pagers, voicemail, and the ranges reserved for fiction (they belong to nobody).
NO_SMS_LINE_TYPES: Final = frozenset(
    {
        "landline",
        "toll_free",
        "premium",
        "shared_cost",
        "pager",
        "universal_access_number",
        "voicemail_only",
        "stage_and_screen",
    }
)
# Some receive SMS and some do not: sent, with a warning.
DOUBTFUL_LINE_TYPES: Final = frozenset({"voip", "personal_number"})


# -- the report -----------------------------------------------------------------------------


@dataclass(frozen=True)
class PreflightReport:
    """What preflight found: one row per recipient (``to_frame()``) and campaign-level findings.

    ``errors`` stop the whole send (``ValidationError`` objects naming field and rule);
    ``warnings`` are said, not enforced. Recipients with an ``issue`` are excluded.
    """

    frame: pd.DataFrame = field(repr=False)
    errors: tuple[ValidationError, ...] = ()
    findings: tuple[Finding, ...] = ()
    text: str = ""
    purpose: str = "wholesale"
    evaluated_at: datetime | None = None

    @property
    def warnings(self) -> tuple[str, ...]:
        """The campaign-level warnings in words (``findings`` holds them as data)."""
        return tuple(finding.message() for finding in self.findings)

    @property
    def ok(self) -> bool:
        """No campaign-level error: the recipients without an issue can be sent."""
        return not self.errors

    @property
    def recipients(self) -> int:
        """Rows read."""
        return len(self.frame)

    @property
    def to_send(self) -> int:
        """Recipients that pass every check."""
        return int(self.frame["send"].sum())

    @property
    def segments(self) -> int:
        """SMS segments of the recipients to send."""
        return int(self.frame.loc[self.frame["send"], "segments"].sum())

    def to_frame(self) -> pd.DataFrame:
        """One row per recipient (a copy): number, line type, text, segments, issue, warning."""
        return self.frame.copy()

    @property
    def excluded(self) -> pd.DataFrame:
        """The recipients excluded from sending, with their issue and its detail."""
        return self.frame.loc[~self.frame["send"]].copy()

    def issues(self) -> pd.Series:
        """Excluded recipients per issue (every issue listed, zeros included)."""
        counts = self.frame["issue"].value_counts().reindex(list(ISSUES), fill_value=0)
        counts.name = "recipients"
        counts.index.name = "issue"
        return counts

    def summary(self) -> pd.DataFrame:
        """One row: recipients, to send, excluded per issue, warnings, segments, UCS-2 texts."""
        import pandas as pd

        frame = self.frame
        sending = frame["send"]
        row: dict[str, Any] = {
            "recipients": len(frame),
            "to_send": int(sending.sum()),
            "excluded": int((~sending).sum()),
            **{str(issue): int(count) for issue, count in self.issues().items()},
            "with_warning": int(frame["warning"].notna().sum()),
            "segments": self.segments,
            "ucs2": int(((frame["encoding"] == "UCS-2") & sending).sum()),
            "errors": len(self.errors),
            "ok": self.ok,
        }
        return pd.DataFrame([row])

    def raise_for_errors(self) -> None:
        """Raise the first campaign-level error (a ``ValidationError``), if any."""
        if self.errors:
            raise self.errors[0]

    def __repr__(self) -> str:
        return (
            f"PreflightReport(recipients={self.recipients}, to_send={self.to_send}, "
            f"excluded={self.recipients - self.to_send}, errors={len(self.errors)}, "
            f"warnings={len(self.warnings)})"
        )

    def to_html(self) -> str:
        """Summary, issues, campaign findings and the first excluded rows, as HTML."""
        from smskit._html import render

        excluded = self.frame.loc[~self.frame["send"]].head(10)
        columns = ["row", "input", "phone_number", "line_type", "issue", "detail"]
        rows = [[shown_value(v) for v in record] for record in excluded[columns].itertuples(False)]
        return render(
            "campaign_preflight.html",
            summary=self.summary().iloc[0].to_dict(),
            issues=list(self.issues().items()),
            errors=[str(error) for error in self.errors],
            warnings=list(self.warnings),
            columns=columns,
            rows=rows,
            more=max(int((~self.frame["send"]).sum()) - len(rows), 0),
        )

    def _repr_html_(self) -> str:
        return self.to_html()


@dataclass(frozen=True)
class PreflightSettings:
    """What preflight needs to know about the send."""

    text: str
    sender: str
    default_region: str | None = "FR"
    purpose: str | None = None
    with_replies: bool | None = None
    send_at: str | None = None
    auto_optimize_text: bool | None = None
    type: str | None = None

    @property
    def product(self) -> str:
        """The product billed: ``type``, premium SMS when not given (spec, ``type``)."""
        return self.type if self.type in _spec.SMS_TYPES else "sms_premium"


def campaign_findings(
    settings: PreflightSettings,
) -> tuple[list[ValidationError], list[Finding], tuple[str, ...]]:
    """Campaign-level errors and warnings, and the dynamic fields the text uses."""
    from smskit.rules import text as engine

    errors: list[ValidationError] = []
    found: list[Finding] = []
    used: tuple[str, ...] = ()
    # The fields are needed even when the text breaks a rule (too long, say): the report
    # still renders every recipient, and says what is wrong once, here.
    try:
        used = used_fields(settings.text)
        engine.validate_text(settings.text)
    except ValidationError as exc:
        errors.append(exc)
    marketing = settings.purpose in (None, "wholesale")
    if isinstance(settings.text, str) and marketing and not has_stop_mention(settings.text):
        errors.append(ValidationError("text", RULE_STOP_MISSING))
    try:
        check_sender(
            settings.sender, spaces=sender_allows_spaces(settings.purpose, settings.with_replies)
        )
    except ValidationError as exc:
        errors.append(exc)
    if settings.with_replies:
        found.append(Finding("sender_replaced", "sender"))
    return errors, found, used


def send_instant(settings: PreflightSettings, now: datetime) -> datetime:
    """When the messages go out: ``send_at`` if given and later than ``now``, else ``now``."""
    if settings.send_at is None:
        return now
    when = datetime.fromisoformat(settings.send_at)
    return max(when, now)


class _Notes:
    """Per-recipient warnings of one block, as findings, rendered once at the end."""

    def __init__(self, n: int) -> None:
        self.rows: list[list[Finding]] = [[] for _ in range(n)]

    def add(self, row: Any, finding: Finding) -> None:
        self.rows[int(row)].append(finding)

    def rendered(self) -> Any:
        import numpy as np

        return np.array(
            ["; ".join(f.message() for f in said) if said else None for said in self.rows],
            dtype=object,
        )


def check_block(
    block: pd.DataFrame,
    settings: PreflightSettings,
    used: tuple[str, ...],
    when: datetime,
    numbers_cache: dict[Any, Any] | None = None,
    counts: Counter[str] | None = None,
) -> tuple[pd.Index, dict[str, Any]]:
    """The per-recipient report of one block, as its index and columns (duplicates are found
    later, across blocks). ``counts`` gathers the warnings by code."""
    import numpy as np
    import pandas as pd

    n = len(block)
    index = block.index
    # Numbers do not depend on the text: a caller re-checking as the text changes keeps them.
    key = (int(block["row"].iloc[0]) if n else 0, n, settings.default_region)
    checks = None if numbers_cache is None else numbers_cache.get(key)
    if checks is None:
        checks = number_checks(
            block["phone_number"].tolist(), block[REGION_COLUMN].tolist(), settings.default_region
        )
        checks.index = index
        if numbers_cache is not None:
            numbers_cache[key] = checks
    raw = block["phone_number"].to_numpy(dtype=object)
    e164 = _objects(checks["e164"])
    # The number as given is often already E.164: share the string instead of a copy.
    e164 = np.where(e164 == raw, raw, e164)
    line_type = checks["type"].astype(str).to_numpy(dtype=object)
    valid = checks["valid"].to_numpy(dtype=bool)
    region = _objects(checks["region"])

    issue = np.full(n, None, dtype=object)
    detail = np.full(n, None, dtype=object)
    notes = _Notes(n)

    def flag(mask: np.ndarray, name: str, details: Any) -> None:
        fresh = mask & pd.isna(issue)
        issue[fresh] = name
        detail[fresh] = details[fresh] if isinstance(details, np.ndarray) else details

    flag(~valid, "invalid_number", checks["reason"].astype(str).to_numpy(dtype=object))
    no_sms = np.isin(line_type, list(NO_SMS_LINE_TYPES))
    flag(
        no_sms, "cannot_receive_sms", np.array([f"line type {t}" for t in line_type], dtype=object)
    )
    for row in np.flatnonzero(np.isin(line_type, list(DOUBTFUL_LINE_TYPES))):
        notes.add(row, Finding("doubtful_line", "phone_number", None, line_type[row]))
    columns: dict[str, list[str]] = {}
    for name in used:
        texts, not_scalar = _field_texts(block[name].tolist(), name)
        flag(not_scalar != "", "field_not_scalar", not_scalar)
        missing = np.fromiter((not t.strip() for t in texts), dtype=bool, count=n)
        for row in np.flatnonzero(missing & (not_scalar == "")):
            notes.add(row, Finding("field_missing", name))
        too_long = np.fromiter((len(t) > _spec.FIELD_MAX for t in texts), dtype=bool, count=n)
        if too_long.any():
            rule = f" characters (max {_spec.FIELD_MAX})"
            details = np.array([f"{name} has {len(t)}{rule}" for t in texts], dtype=object)
            flag(too_long, "field_too_long", details)
            texts = [("" if long else t) for t, long in zip(texts, too_long, strict=True)]
        columns[name] = texts

    rendered, stats = _render(settings, columns, n)
    flag(stats["characters"] == 0, "empty_text", "the text renders empty")
    # The spec's limit is on the text sent; fields can push a rendered one past it.
    for row in np.flatnonzero(stats["characters"] > _spec.TEXT_MAX):
        over = (
            f"{stats['characters'][row]} characters, over the {_spec.TEXT_MAX} of a text "
            f"({stats['segments'][row]} SMS)"
        )
        notes.add(row, Finding("rendered_too_long", "text", None, over))

    if settings.purpose != "alert":
        present = sorted({r for r, ok in zip(region, valid, strict=True) if ok and r})
        for country in hours_refusals(present, settings.purpose, when):
            for row in np.flatnonzero((region == country) & valid):
                notes.add(row, Finding("outside_hours", None, None, country))

    if counts is not None:  # recipients per warning code, not warnings
        counts.update(code for said in notes.rows for code in {f.code for f in said})
    report: dict[str, Any] = {
        "row": block["row"].to_numpy(),
        "input": raw,
        "phone_number": e164,
        "region": region,
        "line_type": pd.Categorical(line_type, categories=_spec.PHONE_NUMBER_TYPE),
        "text": rendered,
        "encoding": stats["encoding"],
        "characters": stats["characters"],
        "segments": stats["segments"],
        "cost": np.full(n, np.nan),  # known once the gateway's prices are: see priced()
        "issue": issue,
        "detail": detail,
        "warning": notes.rendered(),
    }
    return index, report


def _field_texts(values: list[Any], name: str) -> tuple[list[str], Any]:
    """A dynamic field's text for every recipient ("" when missing or refused), and for each
    value that is not a scalar, its type's name ("" for the others)."""
    import numpy as np

    texts: list[str] = []
    refused = np.full(len(values), "", dtype=object)
    for row, value in enumerate(values):
        try:
            texts += field_texts([value], name)
        except ValidationError:
            refused[row] = f"{name} is a {type(value).__name__}, not a text, number or date"
            texts.append("")
    return texts, refused


def _render(
    settings: PreflightSettings, columns: dict[str, list[str]], n: int
) -> tuple[Any, dict[str, Any]]:
    """Rendered (and optimised) texts, and their encoding, characters and segments."""
    import numpy as np
    import pandas as pd

    from smskit.rules import batch
    from smskit.rules import text as engine
    from smskit.rules.personalize import MissingFieldWarning, render_all

    if not isinstance(settings.text, str) or not n:
        empty = np.full(n, "", dtype=object)
        return empty, {
            "encoding": pd.Categorical([None] * n, categories=["GSM-7", "UCS-2"]),
            "characters": np.zeros(n, dtype="int32"),
            "segments": np.zeros(n, dtype="int16"),
        }
    try:
        used = used_fields(settings.text)
    except ValidationError:
        used = ()
    if used:
        with _warnings.catch_warnings():
            _warnings.simplefilter("ignore", MissingFieldWarning)
            texts = render_all(settings.text, pd.DataFrame(columns)).tolist()
    else:
        texts = [settings.text] * n
    # Many recipients share a text: analyse each distinct text once, and share the strings.
    codes, uniques = pd.factorize(pd.Series(texts, dtype=object))
    distinct: Any = [str(t) for t in uniques]
    if settings.auto_optimize_text is not False:
        # Two rendered texts may optimise to one ("C’est", "C'est"): count it once.
        optimised, distinct = pd.factorize(pd.Series([engine.optimize_text(t) for t in distinct]))
        codes = optimised[codes]
        distinct = [str(t) for t in distinct]
    stats = batch.analyze_many(pd.Series(distinct, dtype=object))
    characters = stats["characters"].fillna(0).to_numpy(dtype="int32")
    segments = stats["segments"].fillna(0).to_numpy(dtype="int16")
    encoding = pd.Categorical(stats["encoding"], categories=["GSM-7", "UCS-2"])
    # A categorical: recipients share a few texts, and 8-byte pointers would be most of it.
    return pd.Categorical.from_codes(codes, categories=distinct), {
        "encoding": pd.Categorical.from_codes(encoding.codes[codes], dtype=encoding.dtype),
        "characters": characters[codes],
        "segments": segments[codes],
    }


def mark_duplicates(columns: dict[str, Any]) -> None:
    """Flag, in place, every recipient whose number an earlier sendable row already has."""
    import numpy as np
    import pandas as pd

    issue, numbers = columns["issue"], columns["phone_number"]
    candidates = np.flatnonzero(pd.isna(issue) & ~pd.isna(numbers))
    # Grouping 64-bit hashes, not the strings, keeps a million numbers in a few dozen MB.
    hashes = np.fromiter(map(hash, numbers[candidates]), dtype="int64", count=len(candidates))
    codes, _ = pd.factorize(hashes)
    _, first = np.unique(codes, return_index=True)
    firsts = candidates[first[codes]]
    repeated = firsts != candidates
    # Exact: a "repeat" whose number differs from its first is a hash collision, not a repeat.
    repeated &= numbers[candidates] == numbers[firsts]
    if not repeated.any():
        return
    first_rows = columns["row"][firsts[repeated]]
    where = candidates[repeated]
    issue[where] = "duplicate"
    columns["detail"][where] = [f"same number as row {r}" for r in first_rows]


def _assemble(parts: list[tuple[Any, dict[str, Any]]]) -> tuple[Any, dict[str, Any]]:
    """One index and one array per column from the blocks', each block's piece freed as soon
    as its column is joined: the peak is the report plus one column, not twice the report."""
    import numpy as np
    import pandas as pd

    index = parts[0][0].append([p[0] for p in parts[1:]]) if len(parts) > 1 else parts[0][0]
    joined: dict[str, Any] = {}
    for name in list(parts[0][1]):
        pieces = [columns.pop(name) for _, columns in parts]
        if isinstance(pieces[0], pd.Categorical):
            joined[name] = pd.api.types.union_categoricals(pieces)
        else:
            joined[name] = np.concatenate(pieces) if len(pieces) > 1 else pieces[0]
        del pieces
    return index, joined


def preflight(
    recipients: Recipients,
    settings: PreflightSettings,
    *,
    now: datetime | None = None,
    clock: Callable[[], datetime] | None = None,
    block_rows: int = BLOCK_ROWS,
    numbers_cache: dict[Any, Any] | None = None,
    destinations: Destinations | None = None,
) -> PreflightReport:
    """Check every recipient and the campaign; nothing is sent.

    ``destinations`` (what the gateway said it serves, see :mod:`smskit.campaigns.served`)
    excludes the recipients whose country is not served for the product and prices the
    others (:func:`priced`); without it those two are not checked. ``numbers_cache`` (a
    dict the caller keeps, for recipients that do not change) saves normalising every
    number again when only the text or the options changed.
    """
    import numpy as np
    import pandas as pd

    instant = now or (clock or _utcnow)()
    if instant.utcoffset() is None:
        raise ValidationError("now", "needs a timezone (an aware datetime)", value=instant)
    errors, found, used = campaign_findings(settings)
    when = send_instant(settings, instant)
    counts: Counter[str] = Counter()
    parts = [
        check_block(block, settings, used, when, numbers_cache, counts)
        for block in recipients.blocks(used, block_rows)
    ]
    index, columns = _assemble(parts)
    del parts
    mark_duplicates(columns)
    issue = columns["issue"]
    codes = np.full(len(issue), -1, dtype="int8")
    for code, name in enumerate(ISSUES):
        codes[issue == name] = code
    columns["issue"] = pd.Categorical.from_codes(codes, dtype=pd.CategoricalDtype(list(ISSUES)))
    for name in ("region", "warning"):
        columns[name] = pd.Categorical(columns[name])
    columns["send"] = pd.isna(columns["issue"])
    frame = pd.DataFrame(columns, index=index, copy=False)
    del columns
    sending = frame["send"].to_numpy()
    regions = sorted(set(frame.loc[sending, "region"].dropna().astype(str)))
    for country, reason in hours_refusals(regions, settings.purpose, when).items():
        count = int(((frame["region"] == country) & frame["send"]).sum())
        said = f"{reason}: {count} recipient(s) would receive a marketing SMS"
        found.append(Finding("hours_refused", None, None, said))
    if counts["field_missing"]:
        found.append(Finding("fields_missing", None, None, str(counts["field_missing"])))
    if destinations is not None:
        priced(frame, destinations, settings.product)
    return PreflightReport(
        frame,
        errors=tuple(errors),
        findings=tuple(found),
        text=settings.text,
        purpose=settings.purpose or "wholesale",
        evaluated_at=when,
    )


def _objects(column: pd.Series) -> Any:
    """A column as an object array, missing values as None."""
    return column.astype(object).where(column.notna(), None).to_numpy(dtype=object)


def samples(frame: pd.DataFrame) -> dict[str, str]:
    """One sendable number per destination country of a report's frame (to ask the gateway)."""
    sending = frame.loc[frame["send"] & frame["region"].notna(), ["region", "phone_number"]]
    firsts = sending.drop_duplicates("region")
    return {str(r): str(n) for r, n in firsts.itertuples(index=False)}


def priced(frame: pd.DataFrame, destinations: Destinations, product: str) -> None:
    """In place: exclude the recipients whose country the gateway does not serve for
    ``product`` (issue ``not_served`` with the gateway's reason); price the others."""
    import numpy as np

    region = frame["region"].astype(object).to_numpy()
    sending = frame["send"].to_numpy().copy()
    cost = frame["cost"].to_numpy(dtype=float).copy()
    segments = frame["segments"].to_numpy()
    issue = frame["issue"].copy()
    detail = frame["detail"].to_numpy(dtype=object).copy()
    for country in sorted({r for r in region[sending] if isinstance(r, str)}):
        verdict = destinations.verdict(country, product)
        where = sending & (region == country)
        if verdict is None:
            continue
        if not verdict.served:
            issue[where] = "not_served"
            detail[where] = verdict.reason
            sending[where] = False
        elif verdict.unit_price is not None:
            cost[where] = np.round(segments[where] * verdict.unit_price, 6)
    frame["issue"] = issue
    frame["detail"] = detail
    frame["send"] = sending
    frame["cost"] = cost


def _utcnow() -> datetime:
    return datetime.now(UTC)
