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

import os
import warnings as _warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, time
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from smskit.client import core as _core
from smskit.errors import ValidationError
from smskit.rules import spec as _spec

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "DOUBTFUL_LINE_TYPES",
    "ISSUES",
    "MARKETING_HOURS",
    "NO_SMS_LINE_TYPES",
    "MarketingHours",
    "PreflightReport",
    "Recipients",
    "preflight",
    "register_marketing_hours",
]

# Why a recipient is excluded, most fundamental first (a row shows its first issue).
ISSUES: Final = (
    "invalid_number",
    "cannot_receive_sms",
    "field_too_long",
    "empty_text",
    "duplicate",
)
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
# Rows per block: below phones.normalize's threshold for helper processes (100,000 distinct
# values), so preflight's memory is one process's and bounded by the block, not the input.
BLOCK_ROWS: Final = 50_000
_CONTACT_COLUMNS: Final = frozenset(_core.CONTACT_FIELDS)
_MISSING_WARNING: Final = "missing {field}"
_HOURS_WARNING: Final = "outside marketing hours ({country})"
_LONG_WARNING: Final = (
    f"renders to {{characters}} characters, over the {_spec.TEXT_MAX} of a text ({{segments}} SMS)"
)


# -- permitted hours for marketing ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MarketingHours:
    """When marketing (``wholesale``) SMS may reach a country: days, local hours, holidays.

    ``days`` are weekday numbers (Monday 0 .. Sunday 6); sending is permitted from ``start``
    (inclusive) to ``end`` (exclusive) local time; with ``public_holidays`` (the default) not
    on the country's public holidays, taken from the ``holidays`` package.
    """

    timezone: str
    days: frozenset[int] = frozenset(range(6))
    start: time = time(8, 0)
    end: time = time(20, 0)
    public_holidays: bool = True
    holiday_subdivision: str | None = None

    def refusal(self, country: str, when: datetime) -> str | None:
        """Why ``when`` is outside the permitted hours in ``country``; None when it is inside."""
        from zoneinfo import ZoneInfo

        local = when.astimezone(ZoneInfo(self.timezone))
        stamp = f"{local:%a %Y-%m-%d %H:%M} {self.timezone}"
        if self.public_holidays:
            name = _holiday(country, self.holiday_subdivision, local.year).get(local.date())
            if name:
                return f"{stamp} is a public holiday in {country} ({name})"
        if local.weekday() not in self.days:
            return f"{stamp}: no marketing SMS on that day in {country} ({self.describe()})"
        if not self.start <= local.time() < self.end:
            return f"{stamp} is outside permitted hours in {country} ({self.describe()})"
        return None

    def describe(self) -> str:
        """The rule in words, e.g. ``Mon-Sat 08:00-20:00, not on public holidays``."""
        names = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
        days = sorted(self.days)
        if days and days == list(range(days[0], days[-1] + 1)) and len(days) > 1:
            shown = f"{names[days[0]]}-{names[days[-1]]}"
        else:
            shown = ",".join(names[d] for d in days)
        rule = f"{shown} {self.start:%H:%M}-{self.end:%H:%M}"
        return rule + (", not on public holidays" if self.public_holidays else "")


# France: Monday to Saturday, 08:00 to 20:00, never on public holidays (the operators' and
# the CNIL's rule for marketing SMS). Extend with register_marketing_hours().
MARKETING_HOURS: dict[str, MarketingHours] = {"FR": MarketingHours("Europe/Paris")}


def register_marketing_hours(country: str, hours: MarketingHours | None) -> None:
    """Add or replace the marketing-hours rule of ``country`` (ISO 3166 alpha-2); None removes."""
    _core.check_country("country", country)
    if hours is None:
        MARKETING_HOURS.pop(country, None)
        return
    if not isinstance(hours, MarketingHours):
        raise ValidationError("hours", "must be a MarketingHours (or None)", value=hours)
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(hours.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValidationError(
            "hours.timezone", "must be an IANA time zone, e.g. 'Europe/Paris'", value=hours.timezone
        ) from None
    if not hours.days or not set(hours.days) <= set(range(7)):
        raise ValidationError("hours.days", "weekday numbers 0 (Monday) to 6 (Sunday)")
    if hours.start >= hours.end:
        raise ValidationError("hours.start", "must be before hours.end")
    MARKETING_HOURS[country] = hours


@lru_cache(maxsize=64)
def _holiday(country: str, subdivision: str | None, year: int) -> Mapping[Any, str]:
    import holidays

    try:
        return holidays.country_holidays(country, subdiv=subdivision, years=year)
    except NotImplementedError:  # the package does not know that country: no holidays
        return {}


# -- recipients, read in blocks -------------------------------------------------------------


class Recipients:
    """Where the recipients come from: a DataFrame, a CSV path or a list; read in blocks.

    Columns are the spec's Contact fields (``phone_number``, ``first_name`` ...); others
    are ignored. A DataFrame or list is taken as it is now (later edits do not change the
    campaign); a CSV is read as text (a leading ``+`` or ``0`` survives) and streamed.
    """

    def __init__(self, recipients: Any) -> None:
        import pandas as pd

        self.path: Path | None = None
        self.frame: pd.DataFrame | None = None
        if isinstance(recipients, str | os.PathLike):
            self.path = Path(recipients)
            if not self.path.is_file():
                raise ValidationError(
                    "recipients", "a path must name an existing CSV file", value=str(recipients)
                )
        elif isinstance(recipients, pd.DataFrame):
            if "phone_number" not in recipients.columns:
                raise ValidationError(
                    "recipients", "a DataFrame of recipients needs a 'phone_number' column"
                )
            # A snapshot of the contact columns (copy-on-write: free until the caller edits
            # the frame): the campaign keeps the recipients it was created with.
            self.frame = recipients[[c for c in recipients.columns if c in _CONTACT_COLUMNS]]
        elif isinstance(recipients, Sequence | pd.Series) and not isinstance(recipients, bytes):
            self.frame = _frame_of_list(list(recipients))
        else:
            raise ValidationError(
                "recipients",
                "must be a DataFrame, the path of a CSV file, or a list of numbers or dicts",
                value=type(recipients).__name__,
            )

    def describe(self) -> str:
        """A short description for the journal and reprs."""
        if self.path is not None:
            return f"CSV file {self.path.name}"
        assert self.frame is not None
        return f"{len(self.frame)} rows in memory"

    def fingerprint(self) -> str:
        """Changes when the recipients can have changed: a file's size and modification time;
        a snapshot in memory never changes. Lets send() reuse the preflight of the same data."""
        if self.path is None:
            return "snapshot"
        stat = self.path.stat()
        return f"file:{stat.st_size}:{stat.st_mtime_ns}"

    def blocks(self, columns: Sequence[str], size: int = BLOCK_ROWS) -> Iterator[pd.DataFrame]:
        """Blocks of the needed columns (absent ones as nulls) with a ``row`` position column.

        The block's index is the input's own (DataFrame labels; positions for CSV and lists).
        """
        import pandas as pd

        wanted = ["phone_number", *[c for c in columns if c != "phone_number"]]
        if self.frame is not None:
            for start in range(0, max(len(self.frame), 1), size):
                part = self.frame.iloc[start : start + size]
                yield _with_columns(part, wanted, start)
            return
        assert self.path is not None
        start = 0
        header = pd.DataFrame({name: pd.Series(dtype=object) for name in wanted})
        try:
            reader = pd.read_csv(
                self.path,
                dtype=str,
                keep_default_na=False,
                na_values=[""],
                usecols=lambda name: name in wanted,
                chunksize=size,
            )
            with reader:
                for part in reader:
                    if "phone_number" not in part.columns:
                        raise ValidationError(
                            "recipients", "the CSV file needs a 'phone_number' column"
                        )
                    yield _with_columns(part, wanted, start)
                    start += len(part)
            if start == 0:  # a header and no rows
                yield _with_columns(header, wanted, 0)
        except pd.errors.EmptyDataError:
            raise ValidationError("recipients", "the CSV file is empty") from None


def _frame_of_list(items: list[Any]) -> pd.DataFrame:
    import pandas as pd

    rows = []
    for position, item in enumerate(items):
        if isinstance(item, Mapping):
            if "phone_number" not in item:
                raise ValidationError("recipients.phone_number", "is required", position=position)
            rows.append(dict(item))
        elif isinstance(item, str | int):
            rows.append({"phone_number": item})
        else:
            raise ValidationError(
                "recipients",
                "each recipient must be a phone number or a dict with 'phone_number'",
                position=position,
                value=item,
            )
    return pd.DataFrame(rows, columns=None if rows else ["phone_number"])


def _with_columns(part: pd.DataFrame, wanted: Sequence[str], start: int) -> pd.DataFrame:
    import numpy as np
    import pandas as pd

    data = {
        name: part[name].to_numpy(dtype=object)
        if name in part.columns
        else np.full(len(part), None, dtype=object)
        for name in wanted
    }
    block = pd.DataFrame(data, index=part.index)
    block.insert(0, "row", np.arange(start, start + len(part), dtype="int64"))
    return block


# -- the report -----------------------------------------------------------------------------


@dataclass(frozen=True)
class PreflightReport:
    """What preflight found: one row per recipient (``to_frame()``) and campaign-level findings.

    ``errors`` stop the whole send (``ValidationError`` objects naming field and rule);
    ``warnings`` are said, not enforced. Recipients with an ``issue`` are excluded.
    """

    frame: pd.DataFrame = field(repr=False)
    errors: tuple[ValidationError, ...] = ()
    warnings: tuple[str, ...] = ()
    text: str = ""
    purpose: str = "wholesale"
    evaluated_at: datetime | None = None

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
            **{issue: int(count) for issue, count in self.issues().items()},
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
        rows = [[_shown(v) for v in record] for record in excluded[columns].itertuples(False)]
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


def _shown(value: Any) -> Any:
    import pandas as pd

    return "" if value is None or (not isinstance(value, str) and pd.isna(value)) else value


# -- the checks -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """What preflight needs to know about the send."""

    text: str
    sender: str
    default_region: str | None = "FR"
    purpose: str | None = None
    with_replies: bool | None = None
    send_at: str | None = None
    auto_optimize_text: bool | None = None


def campaign_findings(
    settings: Settings,
) -> tuple[list[ValidationError], list[str], tuple[str, ...]]:
    """Campaign-level errors and warnings, and the dynamic fields the text uses."""
    from smskit.rules import text as engine

    errors: list[ValidationError] = []
    found: list[str] = []
    used: tuple[str, ...] = ()
    # The fields are needed even when the text breaks a rule (too long, say): the report
    # still renders every recipient, and says what is wrong once, here.
    try:
        used = engine.fields(settings.text)
        engine.validate_text(settings.text)
    except ValidationError as exc:
        errors.append(exc)
    marketing = settings.purpose in (None, "wholesale")
    if isinstance(settings.text, str) and marketing and not engine.has_stop_mention(settings.text):
        errors.append(
            ValidationError(
                "text",
                "a marketing (purpose='wholesale', the default) text needs a STOP mention, "
                "e.g. 'STOP au 36173'; purpose='alert' is for transactional messages only",
            )
        )
    try:
        _core.check_sender(
            settings.sender, spaces=settings.purpose == "alert" or settings.with_replies is True
        )
    except ValidationError as exc:
        errors.append(exc)
    if settings.with_replies:
        found.append("with_replies=True: the sender is replaced by the gateway's short number")
    return errors, found, used


def send_instant(settings: Settings, now: datetime) -> datetime:
    """When the messages go out: ``send_at`` if given and later than ``now``, else ``now``."""
    if settings.send_at is None:
        return now
    when = datetime.fromisoformat(settings.send_at)
    return max(when, now)


def hours_refusals(regions: Sequence[str], settings: Settings, when: datetime) -> dict[str, str]:
    """Regions (with a rule) where a marketing send at ``when`` is not permitted, and why."""
    if settings.purpose == "alert":
        return {}  # transactional messages may go out at any hour (spec, send rule 2)
    refusals = {}
    for region in regions:
        rule = MARKETING_HOURS.get(region)
        reason = rule.refusal(region, when) if rule is not None else None
        if reason is not None:
            refusals[region] = reason
    return refusals


def check_block(
    block: pd.DataFrame,
    settings: Settings,
    used: tuple[str, ...],
    when: datetime,
    numbers_cache: dict[Any, Any] | None = None,
) -> tuple[pd.Index, dict[str, Any]]:
    """The per-recipient report of one block, as its index and columns (duplicates are found
    later, across blocks)."""
    import numpy as np
    import pandas as pd

    from smskit.rules import phones

    n = len(block)
    index = block.index
    # Numbers do not depend on the text: a caller re-checking as the text changes keeps them.
    key = (int(block["row"].iloc[0]) if n else 0, n, settings.default_region)
    checks = None if numbers_cache is None else numbers_cache.get(key)
    if checks is None:
        checks = phones.normalize(pd.Series(block["phone_number"].to_numpy(), index=index),
                                  settings.default_region)  # fmt: skip
        if numbers_cache is not None:
            numbers_cache[key] = checks
    raw = block["phone_number"].to_numpy(dtype=object)
    e164 = checks["e164"].to_numpy(dtype=object, na_value=None)
    # The number as given is often already E.164: share the string instead of a copy.
    e164 = np.where(e164 == raw, raw, e164)
    line_type = checks["type"].astype(str).to_numpy(dtype=object)
    valid = checks["valid"].to_numpy(dtype=bool)

    issue = np.full(n, None, dtype=object)
    detail = np.full(n, None, dtype=object)
    notes: list[list[str]] = [[] for _ in range(n)]

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
        notes[row].append(f"{line_type[row]} line may not receive SMS")

    columns: dict[str, list[str]] = {}
    for name in used:
        texts, missing, too_long = _field_texts(block[name].tolist())
        for row in np.flatnonzero(missing):
            notes[row].append(_MISSING_WARNING.format(field=f"{{{name}}}"))
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
        notes[row].append(
            _LONG_WARNING.format(
                characters=stats["characters"][row], segments=stats["segments"][row]
            )
        )

    region = checks["region"].to_numpy(dtype=object, na_value=None)
    if settings.purpose != "alert":
        present = sorted({r for r, ok in zip(region, valid, strict=True) if ok and r})
        for country in hours_refusals(present, settings, when):
            for row in np.flatnonzero((region == country) & valid):
                notes[row].append(_HOURS_WARNING.format(country=country))

    warning = np.array(["; ".join(said) if said else None for said in notes], dtype=object)
    columns = {
        "row": block["row"].to_numpy(),
        "input": raw,
        "phone_number": e164,
        "region": region,
        "line_type": pd.Categorical(line_type, categories=_spec.PHONE_NUMBER_TYPE),
        "text": rendered,
        "encoding": stats["encoding"],
        "characters": stats["characters"],
        "segments": stats["segments"],
        "issue": issue,
        "detail": detail,
        "warning": warning,
    }
    return index, columns


def _field_texts(values: list[Any]) -> tuple[list[str], Any, Any]:
    """A dynamic field's text for every recipient, which are missing, which are too long."""
    import numpy as np

    from smskit.rules.text import field_texts

    texts = field_texts(values)
    missing = np.fromiter((not t.strip() for t in texts), dtype=bool, count=len(texts))
    too_long = np.fromiter((len(t) > _spec.FIELD_MAX for t in texts), dtype=bool, count=len(texts))
    return texts, missing, too_long


def _render(
    settings: Settings, columns: dict[str, list[str]], n: int
) -> tuple[Any, dict[str, Any]]:
    """Rendered (and optimised) texts, and their encoding, characters and segments."""
    import numpy as np
    import pandas as pd

    from smskit.rules import batch
    from smskit.rules import text as engine

    if not isinstance(settings.text, str) or not n:
        empty = np.full(n, "", dtype=object)
        return empty, {
            "encoding": pd.Categorical([None] * n, categories=["GSM-7", "UCS-2"]),
            "characters": np.zeros(n, dtype="int32"),
            "segments": np.zeros(n, dtype="int16"),
        }
    try:
        fields = engine.fields(settings.text)
    except ValidationError:
        fields = ()
    if fields:
        with _warnings.catch_warnings():
            _warnings.simplefilter("ignore", engine.MissingFieldWarning)
            texts = engine.render_all(settings.text, pd.DataFrame(columns)).tolist()
    else:
        texts = [settings.text] * n
    # Many recipients share a text: analyse each distinct text once, and share the strings.
    codes, uniques = pd.factorize(pd.Series(texts, dtype=object))
    distinct = [str(t) for t in uniques]
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
    settings: Settings,
    *,
    now: datetime | None = None,
    clock: Callable[[], datetime] | None = None,
    block_rows: int = BLOCK_ROWS,
    numbers_cache: dict[Any, Any] | None = None,
) -> PreflightReport:
    """Check every recipient and the campaign; nothing is sent.

    ``numbers_cache`` (a dict the caller keeps, for recipients that do not change) saves
    normalising every number again when only the text or the options changed.
    """
    import numpy as np
    import pandas as pd

    instant = now or (clock or _utcnow)()
    if instant.utcoffset() is None:
        raise ValidationError("now", "needs a timezone (an aware datetime)", value=instant)
    errors, notes, used = campaign_findings(settings)
    when = send_instant(settings, instant)
    parts = [
        check_block(block, settings, used, when, numbers_cache)
        for block in recipients.blocks(used, block_rows)
    ]
    index, columns = _assemble(parts)
    del parts
    mark_duplicates(columns)
    issue = columns["issue"]
    codes = np.full(len(issue), -1, dtype="int8")
    for code, name in enumerate(ISSUES):
        codes[issue == name] = code
    columns["issue"] = pd.Categorical.from_codes(codes, categories=list(ISSUES))
    for name in ("region", "warning"):
        columns[name] = pd.Categorical(columns[name])
    columns["send"] = pd.isna(columns["issue"])
    frame = pd.DataFrame(columns, index=index, copy=False)
    del columns
    sending = frame["send"].to_numpy()
    regions = sorted(set(frame.loc[sending, "region"].dropna().astype(str)))
    for country, reason in hours_refusals(regions, settings, when).items():
        count = int(((frame["region"] == country) & frame["send"]).sum())
        notes.append(f"{reason}: {count} recipient(s) would receive a marketing SMS")
    said = frame["warning"].cat.categories
    missing = frame["warning"].isin(said[said.str.contains("missing {", regex=False)])
    if missing.any():
        notes.append(f"{int(missing.sum())} recipient(s) miss a dynamic field: it renders empty")
    return PreflightReport(
        frame,
        errors=tuple(errors),
        warnings=tuple(notes),
        text=settings.text,
        purpose=settings.purpose or "wholesale",
        evaluated_at=when,
    )


def _utcnow() -> datetime:
    return datetime.now(UTC)
