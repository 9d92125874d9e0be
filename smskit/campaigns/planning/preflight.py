"""Campaign preflight: every check that needs no request, per recipient and for the campaign.

Two halves, one code path. The recipients' half
(:class:`~smskit.campaigns.planning.audience.Audience`: numbers normalised, line types, duplicates,
each field's distinct values) is computed once per recipient set; the text's half runs per text and
options, over the distinct combinations of the fields the text uses only: each is rendered (and
optimised like the gateway does) and analysed once, then mapped back to the recipients with integer
codes. The Composer keeps its audience as the text changes; :meth:`smskit.Campaign.preflight` keeps
one per recipient set. Between them, each recipient's :class:`Standing` (its issue before the
text's own: the number, the opt-out list, the frequency cap, the repeats) and its counts are kept
per audience while the list and the cap do not change: a text that excludes no one more counts
nothing over the recipients again.

Per recipient: the number, duplicates, lines that cannot receive SMS, dynamic fields missing
or too long, the rendered text with its encoding and segments. For the campaign: text limits
and unknown fields, the STOP rule for marketing, the sender rules, and the permitted hours
for marketing per destination country. A recipient with an *issue* is excluded from sending,
and listed; a *warning* does not exclude. Campaign-level *errors* stop the send as a whole.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, Final

from smskit.campaigns.planning.audience import DOUBTFUL_ORDER, NUMBER_BLOCK_ROWS, Audience
from smskit.campaigns.planning.holdout import Holdout
from smskit.errors import ValidationError
from smskit.rules import spec as _spec
from smskit.rules.caps import FREQUENCY_CAPPED, FrequencyCap
from smskit.rules.content import RULE_STOP_MISSING, has_stop_mention, sender_allows_spaces
from smskit.rules.destinations import Destinations
from smskit.rules.fields import used_fields
from smskit.rules.findings import ISSUES, Finding
from smskit.rules.hours import hours_refusals
from smskit.rules.missing import is_missing
from smskit.rules.optouts import INCLUDED, OPTED_OUT, check_include_opted_out
from smskit.rules.recipients import Recipients
from smskit.rules.region import DEFAULT_REGION
from smskit.rules.sender import check_sender

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = [
    "PreflightSettings",
    "Verdicts",
    "audience_for",
    "evaluation_instant",
    "head_rows",
    "priced",
    "samples",
    "verdicts",
]

ENCODINGS: Final = ("GSM-7", "UCS-2")

_ISSUE: Final = {name: code for code, name in enumerate(ISSUES)}


@dataclass(frozen=True)
class PreflightSettings:
    """What preflight needs to know about the send."""

    text: str
    sender: str
    default_region: str | None = DEFAULT_REGION
    purpose: str | None = None
    with_replies: bool | None = None
    send_at: str | None = None
    auto_optimize_text: bool | None = None
    type: str | None = None
    include_opted_out: bool = False  # send to numbers on the opt-out list (transactional)
    holdout: Holdout | None = None  # recipients kept out of the send, for the comparison
    frequency_cap: FrequencyCap | None = None  # marketing messages a recipient may receive

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
    if marketing and not has_stop_mention(settings.text):
        errors.append(ValidationError("text", RULE_STOP_MISSING))
    try:
        check_include_opted_out(settings.include_opted_out, settings.purpose)
    except ValidationError as exc:
        errors.append(exc)
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


# -- the text's half: per distinct field combination ----------------------------------------


@dataclass(frozen=True)
class Messages:
    """The text's half over the distinct field combinations of an :class:`Audience`: per
    combination its issue code (-1 for none), detail code, missing-field bits (bit i: the
    text's i-th field) and rendered text code; per distinct text its encoding code,
    characters and segments."""

    issue: np.ndarray
    detail: np.ndarray
    details: list[str]
    missing: np.ndarray
    text: np.ndarray
    texts: list[str]
    encoding: np.ndarray
    characters: np.ndarray
    segments: np.ndarray


def messages(settings: PreflightSettings, fields: list[Any], table: np.ndarray) -> Messages:
    """Check and render each combination of ``table`` (a row per combination, a column per
    field of ``fields``, the :class:`~smskit.campaigns.planning.audience.FieldValues` the text
    uses)."""
    import numpy as np
    import pandas as pd

    count = len(table)
    issue = np.full(count, -1, dtype="int8")
    detail = np.full(count, -1, dtype="int32")
    details: list[str] = []
    missing = np.zeros(count, dtype="int16")
    columns: dict[str, Any] = {}

    def flag(mask: np.ndarray, name: str, said: list[str]) -> None:
        if not mask.any():
            return  # nothing to flag (the usual case at a keystroke)
        fresh = mask & (issue == -1)
        issue[fresh] = _ISSUE[name]
        codes, uniques = pd.factorize(np.array(said, dtype=object)[fresh[mask]])
        detail[fresh] = codes + len(details)
        details.extend(str(u) for u in uniques)

    for i, values in enumerate(fields):
        codes = table[:, i]
        texts = values.text_array[codes]
        refused = values.refused_mask[codes]
        kinds = values.refused_array[codes][refused]
        said = [f"{values.name} is a {k}, not a text, number or date" for k in kinds]
        flag(refused, "field_not_scalar", said)
        missing[values.missing[codes] & ~refused] |= 1 << i
        too_long = values.too_long[codes]
        rule = f" characters (max {_spec.FIELD_MAX})"
        flag(
            too_long,
            "field_too_long",
            [f"{values.name} has {len(t)}{rule}" for t in texts[too_long]],
        )
        texts[too_long] = ""
        columns[values.name] = texts
    text_codes, texts, encoding, characters, segments = _render(settings, columns, count)
    empty = characters[text_codes] == 0
    flag(empty, "empty_text", ["the text renders empty"] * int(empty.sum()))
    return Messages(
        issue, detail, details, missing, text_codes, texts, encoding, characters, segments
    )


def _render(
    settings: PreflightSettings, columns: dict[str, Any], count: int
) -> tuple[np.ndarray, list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Per combination a code into the distinct rendered (and optimised) texts; per distinct
    text its encoding code, characters and segments."""
    import numpy as np
    import pandas as pd

    from smskit.rules import batch
    from smskit.rules import text as engine
    from smskit.rules.personalize import render_texts

    # Values are texts here, within 50 characters (longer ones were blanked and flagged).
    # No columns: the text uses no field, or one unknown (refused by the campaign's checks).
    rendered = render_texts(settings.text, columns, count) if columns else [settings.text] * count
    # Combinations may render alike, and two texts may optimise to one ("C’est", "C'est").
    codes, uniques = pd.factorize(np.array(rendered, dtype=object))
    distinct = [str(t) for t in uniques]
    if settings.auto_optimize_text is not False:
        optimised, uniques = pd.factorize(
            np.array([engine.optimize_text(t) for t in distinct], dtype=object)
        )
        codes = optimised[codes]
        distinct = [str(t) for t in uniques]
    encoding, characters, segments = batch.text_figures(distinct)  # codes into ENCODINGS
    return codes.astype("int32"), distinct, encoding, characters, segments


def coded(codes: Any, categories: Any) -> Any:
    """A categorical from integer ``codes`` (-1: missing) into distinct ``categories``."""
    import pandas as pd

    dtype = _dtype(categories) if isinstance(categories, tuple) else pd.CategoricalDtype(categories)
    return pd.Categorical.from_codes(codes, dtype=dtype, validate=False)


@lru_cache(maxsize=8)
def _dtype(categories: tuple[str, ...]) -> Any:
    """The dtype of a closed set of categories, made once (it checks them each time)."""
    import pandas as pd

    return pd.CategoricalDtype(list(categories))


# -- back to the recipients --------------------------------------------------------------------


class Tally:
    """What per-recipient issues (``issue``, -1: sent) count up to, each count made on first
    use: the rows sent, how many, the excluded ones per issue, the rows sent per field
    combination and per region (``regions``: a region code per row, -1 for none). A
    keystroke that excludes no one more shares its :class:`Standing`'s tally: nothing over
    the recipients is counted again."""

    def __init__(self, issue: np.ndarray, regions: np.ndarray) -> None:
        self.issue = issue
        self.regions = regions
        self._by_codes: tuple[np.ndarray, int, np.ndarray] | None = None

    @cached_property
    def send(self) -> np.ndarray:
        """Per row, whether it is sent (read-only)."""
        send = self.issue == -1
        send.setflags(write=False)
        return send

    @cached_property
    def to_send(self) -> int:
        """How many rows are sent."""
        import numpy as np

        return int(np.count_nonzero(self.send))

    @cached_property
    def by_issue(self) -> tuple[int, ...]:
        """The rows excluded, per issue code (:data:`~smskit.rules.findings.ISSUES`)."""
        import numpy as np

        return tuple(np.bincount(self.issue[~self.send], minlength=len(ISSUES)).tolist())

    def by_codes(self, codes: np.ndarray, size: int) -> np.ndarray:
        """The rows sent per code of ``codes`` (one a row, 0 to ``size`` - 1; read-only).
        The counts of the last ``codes`` asked are kept: an audience's field combinations,
        the same array while the text uses the same fields (never edited)."""
        import numpy as np

        known = self._by_codes
        if known is not None and known[0] is codes and known[1] == size:
            return known[2]
        counts = np.bincount(codes[self.send], minlength=size)
        counts.setflags(write=False)
        self._by_codes = (codes, size, counts)
        return counts

    def by_region(self) -> dict[int, int]:
        """The rows sent per region code, the codes with some only (a copy: the caller's)."""
        return dict(self._by_region)

    @cached_property
    def _by_region(self) -> dict[int, int]:
        import numpy as np

        size = int(self.regions.max(initial=-1)) + 1
        counts = np.bincount(self.regions[self.send] + 1, minlength=size + 1)[1:]
        return {int(i): int(counts[i]) for i in np.flatnonzero(counts)}


@dataclass(frozen=True, eq=False)
class Standing:
    """Each recipient's issue before the text's own: the numbers' issues, the opt-out list
    (``listed``; ``included``: sent anyway, None unless ``include_opted_out``) and the
    frequency cap (``at_cap``), and what follows while the text excludes no one: the
    repeats (``repeats``) and the issues then (``tally``). It depends on the audience, the
    list, the cap reached and two options, not on the text: made once for them
    (:func:`standing`) and shared by the keystrokes that follow."""

    key: tuple[Any, ...]
    before: np.ndarray  # read-only: the issues before the text's and the repeats
    listed: np.ndarray
    included: np.ndarray | None
    at_cap: np.ndarray
    repeats: tuple[np.ndarray, np.ndarray]
    tally: Tally

    def fits(self, key: tuple[Any, ...]) -> bool:
        """Made for ``key`` (:func:`_standing_key`)."""
        import numpy as np

        mine = self.key
        if mine[1:3] != key[1:3] or not (mine[0] is key[0] or mine[0] == key[0]):
            return False
        return mine[3] is key[3] or (
            mine[3] is not None and key[3] is not None and np.array_equal(mine[3], key[3])
        )


_standings: weakref.WeakKeyDictionary[Audience, Standing] = weakref.WeakKeyDictionary()


def _standing_key(
    settings: PreflightSettings, suppressed: frozenset[str], reached: np.ndarray | None
) -> tuple[Any, ...]:
    capping = reached is not None and len(reached) > 0 and settings.frequency_cap is not None
    return (suppressed, settings.include_opted_out, capping, reached if capping else None)


def standing(
    audience: Audience,
    settings: PreflightSettings,
    suppressed: frozenset[str],
    reached: np.ndarray | None,
) -> Standing:
    """The recipients' :class:`Standing` with the opt-out list ``suppressed`` and the
    numbers ``reached`` (at the frequency cap), kept per audience while they, the
    ``include_opted_out`` option and the cap being set do not change."""
    import numpy as np

    key = _standing_key(settings, suppressed, reached)
    known = _standings.get(audience)
    if known is not None and known.fits(key):
        return known
    issue = audience.issue.copy()
    listed = audience.listed(suppressed) & (issue == -1)
    included = listed if settings.include_opted_out else None
    if included is None:
        issue[listed] = _ISSUE[OPTED_OUT]
    at_cap = np.zeros(len(issue), dtype=bool)
    if key[2]:
        assert reached is not None
        at_cap = audience.at_cap(reached) & (issue == -1)
        issue[at_cap] = _ISSUE[FREQUENCY_CAPPED]
    issue.setflags(write=False)
    repeats, after = _repeated(audience, issue, None, None, listed, included, at_cap)
    after.setflags(write=False)
    tally = Tally(after, audience.region.codes)
    made = Standing(key, issue, listed, included, at_cap, repeats, tally)
    _standings[audience] = made
    return made


def _repeated(
    audience: Audience,
    before: np.ndarray,
    fresh: np.ndarray | None,
    by_text: np.ndarray | None,
    listed: np.ndarray,
    included: np.ndarray | None,
    at_cap: np.ndarray,
) -> tuple[tuple[np.ndarray, np.ndarray], np.ndarray]:
    """The issues ``before`` (a copy) with the text's own (``by_text`` at the rows it
    excludes, ``fresh``; None: none) and then the repeats among the rows still sent; the
    repeats and those issues."""
    issue = before.copy()
    if fresh is not None and by_text is not None:
        issue[fresh] = by_text[fresh]
    # Unless the text or the opt-out list excluded a recipient that has a number, the
    # repeats are the audience's (the cap excludes every row of a number: its repeats go).
    narrowed = (fresh is not None and bool(fresh.any())) or (
        included is None and bool(listed.any())
    )
    repeats = audience.duplicates((issue == -1) if narrowed else None)
    if at_cap.any() and not narrowed:
        kept = ~at_cap[repeats[0]]
        repeats = (repeats[0][kept], repeats[1][kept])
    issue[repeats[0]] = _ISSUE["duplicate"]
    return repeats, issue


@dataclass(frozen=True)
class Verdicts:
    """Every recipient's verdict for one text and its options, before any frame is made:
    ``codes`` (each recipient's field combination), ``found`` (the text's half per
    combination), ``issue`` (per recipient, -1: sent), ``fresh`` (the rows the text itself
    excluded), ``repeats`` (the duplicate rows and their first rows), ``included`` (rows
    on the opt-out list sent anyway; None unless ``include_opted_out``), ``at_cap`` (rows at
    the frequency cap), ``missing`` (how many recipients miss a field) and ``tally``
    (``issue``'s counts)."""

    codes: np.ndarray
    found: Messages
    issue: np.ndarray
    fresh: np.ndarray
    repeats: tuple[np.ndarray, np.ndarray]
    included: np.ndarray | None
    at_cap: np.ndarray
    missing: int
    tally: Tally

    @property
    def sent_anyway(self) -> int:
        """Recipients on the opt-out list sent to anyway."""
        return 0 if self.included is None else int(self.included.sum())


def verdicts(
    audience: Audience,
    settings: PreflightSettings,
    used: tuple[str, ...],
    suppressed: Collection[str] = frozenset(),
    reached: np.ndarray | None = None,
) -> Verdicts:
    """Each recipient's issue for ``settings`` (the text's half run per field combination).
    ``suppressed``: the account's opted-out numbers (E.164): excluded (issue ``opted_out``)
    unless ``settings.include_opted_out``, then warned (``opted_out_included``).
    ``reached``: the numbers (sorted keys, :func:`smskit.rules.caps.reached`) already at the
    campaign's frequency cap: excluded (issue ``frequency_capped``). What does not depend on
    the text is the :class:`Standing` kept from the previous call."""
    import numpy as np

    codes, table = audience.combinations(used)
    found = messages(settings, [audience.field(name) for name in used], table)
    held = standing(audience, settings, frozenset(suppressed), reached)
    if (found.issue >= 0).any():
        by_text = found.issue[codes]
        fresh = (held.before == -1) & (by_text >= 0)
        repeats, issue = _repeated(
            audience, held.before, fresh, by_text, held.listed, held.included, held.at_cap
        )
        issue.setflags(write=False)
        tally = Tally(issue, audience.region.codes)
    else:  # the text excludes no combination (the usual keystroke): the standing's verdicts
        fresh = np.zeros(len(codes), dtype=bool)
        repeats, tally = held.repeats, held.tally
    issue = tally.issue.copy()  # the verdicts' own (a report's frame may take it): the tally's kept
    missing = 0
    if (found.missing != 0).any():  # some combination misses a field: count its recipients
        sizes = np.bincount(codes, minlength=len(table))
        missing = int(sizes[found.missing != 0].sum())
    return Verdicts(codes, found, issue, fresh, repeats, held.included, held.at_cap, missing, tally)


def head_rows(audience: Audience, judged: Verdicts, rows: int) -> tuple[dict[str, Any], ...]:
    """The first ``rows`` recipients as their report's frame shows them
    (:data:`~smskit.campaigns.planning.report.HEAD_COLUMNS`; None where it holds nothing),
    read from the verdicts: no frame is made."""
    found = judged.found
    shown = []
    for i in range(min(rows, len(audience))):
        text = int(found.text[judged.codes[i]])
        encoding, issue = int(found.encoding[text]), int(judged.issue[i])
        number = audience.phone_number[i]
        shown.append(
            {
                "row": int(audience.row[i]),
                "phone_number": None if is_missing(number) else str(number),
                "text": found.texts[text],
                "encoding": ENCODINGS[encoding] if encoding >= 0 else None,
                "segments": int(found.segments[text]),
                "issue": ISSUES[issue] if issue >= 0 else None,
            }
        )
    return tuple(shown)


def report_columns(
    audience: Audience,
    settings: PreflightSettings,
    used: tuple[str, ...],
    when: datetime,
    judged: Verdicts,
) -> dict[str, Any]:
    """The report's columns for every recipient, from their ``judged`` verdicts."""
    import numpy as np

    codes, found, issue = judged.codes, judged.found, judged.issue
    text = found.text[codes]
    n = len(audience)
    return {
        "row": audience.row,
        "input": audience.input,
        "phone_number": audience.phone_number,
        "region": audience.region,
        "line_type": audience.line_type,
        "text": coded(text, found.texts),
        "encoding": coded(found.encoding[text], ENCODINGS),
        "characters": found.characters[text],
        "segments": found.segments[text],
        "cost": np.full(n, np.nan),  # known once the gateway's prices are: see priced()
        "issue": coded(issue, ISSUES),
        "detail": _details(
            audience, found, codes, judged.fresh, judged.repeats, judged.at_cap, settings
        ),
        "warning": _warnings_of(audience, settings, used, when, found, codes, judged.included),
        "send": issue == -1,
    }


def _details(
    audience: Audience,
    found: Messages,
    codes: np.ndarray,
    by_text: np.ndarray,
    repeats: tuple[np.ndarray, np.ndarray],
    at_cap: np.ndarray,
    settings: PreflightSettings,
) -> pd.Categorical:
    """Each excluded recipient's detail, a code into the distinct details (a capped one's:
    the cap, ``2/7D``)."""
    import numpy as np
    import pandas as pd

    detail = audience.detail_codes.copy()
    offset = len(audience.detail_categories)
    detail[by_text] = found.detail[codes[by_text]] + offset
    rows, firsts = repeats
    first_codes, first_rows = pd.factorize(firsts)
    detail[rows] = first_codes + offset + len(found.details)
    said = [
        *audience.detail_categories,
        *found.details,
        *(f"same number as row {r}" for r in first_rows),
    ]
    if at_cap.any():
        detail[at_cap] = len(said)
        said.append(str(settings.frequency_cap))
    remap, categories = pd.factorize(np.array(said, dtype=object))
    detail = np.where(detail >= 0, np.append(remap, -1)[detail], -1)
    return coded(detail, categories)


def _warnings_of(
    audience: Audience,
    settings: PreflightSettings,
    used: tuple[str, ...],
    when: datetime,
    found: Messages,
    codes: np.ndarray,
    included: np.ndarray | None = None,
) -> pd.Categorical:
    """Each recipient's warnings in words, a code into the distinct combinations of them.

    A recipient's warnings are a key of five small numbers (the doubtful line kind, the
    missing fields' bits, the too-long text, the region outside its hours, opted out but
    included): one message is written per distinct key, never per recipient."""
    import numpy as np
    import pandas as pd

    texts = len(found.texts)
    over = found.characters > _spec.TEXT_MAX
    over_code = np.where(over, np.arange(texts) + 1, 0)[found.text]
    per_combination = found.missing.astype("int64") * (texts + 1) + over_code
    kinds = len(DOUBTFUL_ORDER) + 1
    regions = audience.regions
    refused = hours_refusals(audience.valid_regions, settings.purpose, when)
    flagged = included is not None and bool(included.any())
    if not (per_combination.any() or audience.doubtful.any() or refused or flagged):
        return coded(np.full(len(audience), -1, dtype="int8"), ())
    # Dense keys: the combinations' warnings are few, so the recipients' keys index a small
    # table (no hash of a million keys).
    combined, per_values = pd.factorize(per_combination)
    space = len(per_values) * kinds * (len(regions) + 1) * 2
    key = combined.astype("int64")[codes] * kinds + audience.doubtful
    key *= len(regions) + 1
    if refused:
        table = np.zeros(len(regions) + 1, dtype="int64")
        for country in refused:
            table[regions.index(country) + 1] = regions.index(country) + 1
        key += np.where(audience.valid, table[audience.region.codes + 1], 0)
    key *= 2
    if flagged:
        assert included is not None
        key += included
    if space <= 4 * len(key) + 4096:
        distinct = np.flatnonzero(np.bincount(key, minlength=space))
        lookup = np.full(space, -1, dtype="int32")
        lookup[distinct] = np.arange(len(distinct), dtype="int32")
        keys = lookup[key]
    else:
        keys, distinct = pd.factorize(key)
    said = []
    for value in distinct.tolist():
        value, listed = divmod(int(value), 2)
        value, region = divmod(value, len(regions) + 1)
        value, kind = divmod(value, kinds)
        bits, text = divmod(int(per_values[value]), texts + 1)
        notes = []
        if kind:
            notes.append(Finding("doubtful_line", "phone_number", None, DOUBTFUL_ORDER[kind - 1]))
        notes += [Finding("field_missing", name) for i, name in enumerate(used) if bits >> i & 1]
        if text:
            over_by = (
                f"{found.characters[text - 1]} characters, over the {_spec.TEXT_MAX} of a "
                f"text ({found.segments[text - 1]} SMS)"
            )
            notes.append(Finding("rendered_too_long", "text", None, over_by))
        if region:
            notes.append(Finding("outside_hours", None, None, regions[region - 1]))
        if listed:
            notes.append(Finding(INCLUDED, "phone_number"))
        said.append("; ".join(note.message() for note in notes) if notes else None)
    remap, categories = pd.factorize(np.array(said, dtype=object))
    return coded(remap[keys], categories)


# -- the whole ---------------------------------------------------------------------------------


def audience_for(
    recipients: Recipients,
    settings: PreflightSettings,
    known: Audience | None = None,
    *,
    fields: Sequence[str] | None = None,
    block_rows: int = NUMBER_BLOCK_ROWS,
) -> Audience:
    """``known`` if it is the audience of ``recipients`` in ``settings.default_region``, else
    a new one, reading ``fields`` (default: those the text uses) in the same pass as the
    numbers."""
    if known is not None and known.fits(recipients, settings.default_region):
        return known
    if fields is None:
        try:
            fields = used_fields(settings.text)
        except ValidationError:
            fields = ()
    return Audience(recipients, settings.default_region, fields=fields, block_rows=block_rows)


def samples(frame: pd.DataFrame) -> dict[str, str]:
    """One sendable number per destination country of a report's frame (to ask the gateway)."""
    sending = frame.loc[frame["send"] & frame["region"].notna(), ["region", "phone_number"]]
    firsts = sending.drop_duplicates("region")
    return {str(r): str(n) for r, n in firsts.itertuples(index=False)}


def priced(frame: pd.DataFrame, destinations: Destinations, product: str) -> None:
    """In place: exclude the recipients whose country the gateway does not serve for
    ``product`` (issue ``not_served`` with the gateway's reason); price the others."""
    import numpy as np

    region = frame["region"].astype("category")
    regions, codes = region.cat.categories, region.cat.codes.to_numpy()
    sending = frame["send"].to_numpy().copy()
    cost = frame["cost"].to_numpy(dtype=float).copy()
    segments = frame["segments"].to_numpy()
    issue = frame["issue"].cat.codes.to_numpy().copy()
    detail = frame["detail"].astype("category")
    details = list(detail.cat.categories)
    detail_codes = detail.cat.codes.to_numpy().copy()
    for code in np.unique(codes[sending & (codes >= 0)]):
        verdict = destinations.verdict(str(regions[code]), product)
        where = sending & (codes == code)
        if verdict is None:
            continue
        if not verdict.served:
            if verdict.reason is not None and verdict.reason not in details:
                details.append(verdict.reason)
            issue[where] = _ISSUE["not_served"]
            detail_codes[where] = -1 if verdict.reason is None else details.index(verdict.reason)
            sending[where] = False
        elif verdict.unit_price is not None:
            cost[where] = np.round(segments[where] * verdict.unit_price, 6)
    frame["issue"] = coded(issue, ISSUES)
    frame["detail"] = coded(detail_codes, details)
    frame["send"] = sending
    frame["cost"] = cost


def evaluation_instant(now: datetime | None, clock: Callable[[], datetime] | None) -> datetime:
    """``now``, else ``clock()``, else the current time: an aware datetime (anything else,
    a naive one or a missing value, is refused, naming ``now`` or ``clock``)."""
    if clock is not None and not callable(clock):
        raise ValidationError(
            "clock", "must be a function returning an aware datetime", value=clock
        )
    field = "now" if now is not None else "clock"
    instant = now if now is not None else (clock if clock is not None else _utcnow)()
    if not isinstance(instant, datetime) or is_missing(instant) or instant.utcoffset() is None:
        raise ValidationError(field, "needs a timezone (an aware datetime)", value=instant)
    return instant


def _utcnow() -> datetime:
    return datetime.now(UTC)
