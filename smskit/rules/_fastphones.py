"""The array path of :func:`smskit.rules.phones.normalize`: whole arrays of numbers at once.

It follows the per-number path (``_phonecheck._classify_uncached``, itself phonenumbers' ``parse``
and ``number_type``) step by step for the common shapes: ``+`` or ``00`` then digits, and
national digits read in a region whose trunk prefix is plain digits. Validity, line type and
region come from phonenumbers' own per-region patterns, compiled once per region into digit
automata (:mod:`smskit.rules._digitdfa`) and applied to arrays; the length rules come from
phonenumbers' public metadata (possible lengths), read once per (region, length). A value
this path cannot follow exactly (a carrier-code or transform rule, an international call
prefix, a non-geographic code, a ``(0)`` that phonenumbers would read, ...) is left undecided
for the per-number path.
A property test pins both paths to the same answers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Final, NamedTuple

import numpy as np
import phonenumbers
from phonenumbers import PhoneMetadata, PhoneNumber, PhoneNumberType, ValidationResult

from smskit.rules._digitdfa import DigitAutomaton, Unsupported, digit_matrix

__all__ = ["Decided", "Vocabulary", "decide", "region_types"]

# Bits of a region's automaton: its descriptions in phonenumbers' number_type() order, then
# the prefix patterns that decide the region of a shared code and an international prefix.
_DESCS: Final = (
    "general_desc",
    "premium_rate",
    "toll_free",
    "shared_cost",
    "voip",
    "personal_number",
    "pager",
    "uan",
    "voicemail",
    "fixed_line",
    "mobile",
)
_GENERAL, _FIXED, _MOBILE, _LEADING, _IDD = 0, 9, 10, 11, 12
# Line types of bits 1..8, as phonenumbers numbers them.
_SPECIAL_TYPES: Final = (
    PhoneNumberType.PREMIUM_RATE,
    PhoneNumberType.TOLL_FREE,
    PhoneNumberType.SHARED_COST,
    PhoneNumberType.VOIP,
    PhoneNumberType.PERSONAL_NUMBER,
    PhoneNumberType.PAGER,
    PhoneNumberType.UAN,
    PhoneNumberType.VOICEMAIL,
)
_UNKNOWN: Final = int(PhoneNumberType.UNKNOWN)
_MAX_NSN: Final = 17  # phonenumbers' longest national number
_NO_STRIP_LENGTH: Final = frozenset(
    {
        ValidationResult.TOO_SHORT,
        ValidationResult.IS_POSSIBLE_LOCAL_ONLY,
        ValidationResult.INVALID_LENGTH,
    }
)
_CODES: Final = {str(code): code for code in phonenumbers.COUNTRY_CODE_TO_REGION_CODE}
_DIGIT_ALTERNATIVES: Final = re.compile(r"[0-9]+(?:\|[0-9]+)*")
# Shapes the array path reads: an optional "(" and "+", digits with separators inside, an
# optional ")". No sign or character refusal can apply to them.
_SHAPE: Final = re.compile(r"\(?\+?\(?[0-9](?:[0-9 .\-/()]*[0-9])?\)?")
_DROP: Final = str.maketrans("", "", " .-/()")


@dataclass(frozen=True)
class _Plan:
    """What one region's metadata says, in array-ready form."""

    region: str
    code: int
    automaton: DigitAutomaton
    # Per description and length (the last entry: any longer): its possible lengths allow it
    # (all False for an absent description).
    length_ok: np.ndarray
    same_mobile_and_fixed: bool
    has_leading_digits: bool
    national_prefix: str | None
    trunk: tuple[str, ...]  # national prefixes phonenumbers may strip, in its order
    plain_trunk: bool  # the trunk rule is plain digit alternatives (read_valid reads them)
    parsing: str | None  # phonenumbers' national_prefix_for_parsing
    transform: str | None  # and its national_prefix_transform_rule

    def masks(self, numbers: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Pattern bit masks and lengths of digit strings (of any lengths)."""
        digits, lengths = digit_matrix(numbers)
        return self.automaton.masks(digits), lengths

    def matches(self, masks: np.ndarray, lengths: np.ndarray, bit: int) -> np.ndarray:
        """phonenumbers' _is_number_matching_desc for description ``bit``."""
        allowed = self.length_ok[bit]
        return ((masks >> bit) & 1 == 1) & allowed[np.minimum(lengths, len(allowed) - 1)]

    def types(self, masks: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """phonenumbers' _number_type_helper, as PhoneNumberType values."""
        general = self.matches(masks, lengths, _GENERAL)
        fixed = self.matches(masks, lengths, _FIXED)
        mobile = self.matches(masks, lengths, _MOBILE)
        result = np.full(len(masks), _UNKNOWN, dtype=np.int64)
        if self.same_mobile_and_fixed:
            tail = np.where(fixed, int(PhoneNumberType.FIXED_LINE_OR_MOBILE), _UNKNOWN)
        else:
            both = int(PhoneNumberType.FIXED_LINE_OR_MOBILE)
            tail = np.where(
                fixed,
                np.where(mobile, both, int(PhoneNumberType.FIXED_LINE)),
                np.where(mobile, int(PhoneNumberType.MOBILE), _UNKNOWN),
            )
        # Walk the chain backwards so that the first matching description wins.
        result = tail
        for bit in range(len(_SPECIAL_TYPES), 0, -1):
            result = np.where(
                self.matches(masks, lengths, bit), int(_SPECIAL_TYPES[bit - 1]), result
            )
        return np.where(general, result, _UNKNOWN)

    def general(self, numbers: list[str]) -> np.ndarray:
        """phonenumbers' _match_national_number on the general description (no lengths)."""
        masks, _ = self.masks(numbers)
        return (masks >> _GENERAL) & 1 == 1

    def strip(self, numbers: list[str]) -> list[str]:
        """phonenumbers' _maybe_strip_national_prefix_carrier_code (the carrier code aside)."""
        if not self.parsing:
            return numbers
        pattern = re.compile(self.parsing)
        candidates: list[str] = []
        matched: list[bool] = []
        for number in numbers:
            found = pattern.match(number)
            matched.append(found is not None)
            if found is None:
                candidates.append(number)
            elif not self.transform or not found.groups() or found.groups()[-1] is None:
                candidates.append(number[found.end() :])
            else:
                candidates.append(pattern.sub(self.transform, number, count=1))
        viable = self.general(numbers)
        kept = self.general(candidates)
        return [
            s if (m and not (v and not k)) else n
            for n, s, m, v, k in zip(numbers, candidates, matched, viable, kept, strict=True)
        ]


@cache
def _plan(region: str) -> _Plan | None:
    """The plan of a region, or None when its rules need the per-number path."""
    meta = PhoneMetadata.metadata_for_region(region)
    if meta is None or meta.country_code is None:
        return None
    parsing = meta.national_prefix_for_parsing
    trunk = tuple(parsing.split("|")) if parsing else ()
    # Carrier codes and transform rules are for the per-number path to read.
    plain = not meta.national_prefix_transform_rule and (
        not parsing or _DIGIT_ALTERNATIVES.fullmatch(parsing) is not None
    )
    if trunk and meta.national_prefix not in trunk:
        plain = False
    descs = [getattr(meta, name) for name in _DESCS]
    patterns: list[str | None] = [d.national_number_pattern if d else None for d in descs]
    patterns.append(f"(?:{meta.leading_digits})[0-9]*" if meta.leading_digits else None)
    idd = meta.international_prefix
    patterns.append(f"(?:{idd})[0-9]*" if idd else None)
    try:
        automaton = DigitAutomaton(patterns)
    except Unsupported:
        return None
    length_ok = np.zeros((len(descs), 2 * _MAX_NSN + 2), dtype=bool)
    for bit, desc in enumerate(descs):
        if desc is not None and desc.national_number_pattern:
            allowed = [n for n in desc.possible_length if 0 <= n < length_ok.shape[1] - 1]
            if desc.possible_length:
                length_ok[bit, allowed] = True
            else:
                length_ok[bit, :] = True
    return _Plan(
        region=region,
        code=meta.country_code,
        automaton=automaton,
        length_ok=length_ok,
        same_mobile_and_fixed=bool(meta.same_mobile_and_fixed_line_pattern),
        has_leading_digits=meta.leading_digits is not None,
        national_prefix=meta.national_prefix,
        trunk=trunk,
        plain_trunk=plain,
        parsing=parsing or None,
        transform=meta.national_prefix_transform_rule or None,
    )


@lru_cache(maxsize=4096)
def _length_result(region: str, length: int) -> int:
    """The length verdict parse() applies to ``length`` national digits read in ``region``.

    phonenumbers' rule (its private ``_test_number_length`` for an unknown line type), read
    from the region's public metadata: local-only lengths, then the sorted possible lengths.
    Pinned to the public ``is_possible_number_for_type_with_reason`` by a test.
    """
    meta = PhoneMetadata.metadata_for_region(region)
    assert meta is not None  # a region with a plan has metadata
    general = meta.general_desc
    assert general is not None  # every region's metadata has a general description
    lengths = general.possible_length
    if length in general.possible_length_local_only:
        return int(ValidationResult.IS_POSSIBLE_LOCAL_ONLY)
    if length == lengths[0]:
        return int(ValidationResult.IS_POSSIBLE)
    if length < lengths[0]:
        return int(ValidationResult.TOO_SHORT)
    if length > lengths[-1]:
        return int(ValidationResult.TOO_LONG)
    return int(
        ValidationResult.IS_POSSIBLE if length in lengths else ValidationResult.INVALID_LENGTH
    )


@lru_cache(maxsize=4096)
def _possible_reason(code: int, length: int) -> int:
    """phonenumbers' is_possible_number_with_reason for ``length`` national digits."""
    number = PhoneNumber(country_code=code, national_number=int("1" * length))
    return int(phonenumbers.is_possible_number_with_reason(number))


def _main_region(code: int) -> str | None:
    region = phonenumbers.region_code_for_country_code(code)
    return region if len(region) == 2 and region != "ZZ" else None


class Vocabulary(NamedTuple):
    """The per-number path's words, given by :mod:`smskit.rules.phones` (which imports us)."""

    type_names: Mapping[int, str]  # PhoneNumberType -> spec phone_number_type
    possible_reasons: Mapping[int, str]  # ValidationResult -> reason
    is_stage: Callable[[str], bool]
    reasons: tuple[str, ...]  # every reason, in the order of their codes


@dataclass
class Decided:
    """Answers for an array of texts; ``done`` is False where the per-number path must decide."""

    done: np.ndarray
    e164: np.ndarray
    reason: np.ndarray
    region: np.ndarray
    kind: np.ndarray  # spec phone_number_type, "bad_format" when invalid

    @classmethod
    def empty(cls, n: int) -> Decided:
        return cls(
            np.zeros(n, dtype=bool),
            np.full(n, None, dtype=object),
            np.full(n, None, dtype=object),
            np.full(n, None, dtype=object),
            np.full(n, "bad_format", dtype=object),
        )

    @property
    def valid(self) -> np.ndarray:
        return self.kind != "bad_format"

    def put(self, rows: np.ndarray, other: Decided, picked: np.ndarray | None = None) -> None:
        """Copy ``other``'s answers (all, or those at ``picked``) into ``rows``."""
        source = np.arange(len(other.done)) if picked is None else picked
        for name in ("done", "e164", "reason", "region", "kind"):
            getattr(self, name)[rows] = getattr(other, name)[source]


def decide(texts: list[str], region: str | None, words: Vocabulary) -> Decided:
    """Answers for canonical texts (stripped, not empty) read in ``region``."""
    out = Decided.empty(len(texts))
    intl_rows: list[int] = []
    intl: list[str] = []
    intl_parsed: list[str] = []
    national_rows: list[int] = []
    national: list[str] = []
    national_parsed: list[str] = []
    for i, text in enumerate(texts):
        if not _SHAPE.fullmatch(text):
            continue
        # read_valid drops a "(0)"; phonenumbers' parse() reads every digit of the text.
        parsed = text.translate(_DROP)
        if len(parsed.lstrip("+")) < 3:
            # parse()'s viability test treats one or two digits apart: leave them to the
            # per-number path, which is exact by definition (they are rare and cheap).
            continue
        compact = text.replace("(0)", "").translate(_DROP) if "(0)" in text else parsed
        if compact.startswith("+"):
            intl_rows.append(i)
            intl.append(compact[1:])
            intl_parsed.append(parsed[1:])
        elif compact.startswith("00"):
            # The per-number path re-reads "00..." as the text "+...": no "(0)" left.
            intl_rows.append(i)
            intl.append(compact[2:])
            intl_parsed.append(compact[2:])
        elif compact:
            national_rows.append(i)
            national.append(compact)
            national_parsed.append(parsed)
    if intl:
        out.put(np.array(intl_rows), _international(intl, intl_parsed, region, words))
    if national:
        out.put(np.array(national_rows), _national(national, national_parsed, region, words))
    return out


def _split_code(digits: str) -> int:
    for length in (1, 2, 3):
        code = _CODES.get(digits[:length])
        if code is not None:
            return code
    return 0


def _international(
    digits: list[str], parsed: list[str], region: str | None, words: Vocabulary
) -> Decided:
    """``+`` then ``digits``: read_valid's literal reading, else parse() of ``parsed`` (the
    text's every digit) with the main region's rules."""
    n = len(digits)
    codes = np.array([_split_code(d) if d[:1] != "0" else 0 for d in digits], dtype=np.int64)
    nationals = [d[len(str(c)) :] if c else "" for d, c in zip(digits, codes.tolist(), strict=True)]
    literal = np.array(
        [
            c != 0 and 3 <= len(d) <= _MAX_NSN and len(s) > 0 and s[0] != "0"
            for d, c, s in zip(digits, codes.tolist(), nationals, strict=True)
        ],
        dtype=bool,
    )
    out = Decided.empty(n)
    rows = np.flatnonzero(literal)
    first = _judge(codes[rows], [nationals[i] for i in rows.tolist()], words)
    good = first.done & first.valid
    out.put(rows[good], first, np.flatnonzero(good))
    # parse(): the code, then the main region's trunk prefix when what is left allows it.
    if parsed is not digits:
        codes = np.array([_split_code(d) if d[:1] != "0" else 0 for d in parsed], dtype=np.int64)
        nationals = [
            d[len(str(c)) :] if c else "" for d, c in zip(parsed, codes.tolist(), strict=True)
        ]
    _unknown_code(out, codes, parsed, region)
    rest = np.flatnonzero(~out.done & (codes != 0))
    rest = rest[[len(nationals[i]) >= 2 and len(parsed[i]) > 2 for i in rest.tolist()]]
    if not len(rest):
        return out
    by_row: dict[int, str] = {}
    for code in np.unique(codes[rest]).tolist():
        at = rest[codes[rest] == code].tolist()
        main = phonenumbers.region_code_for_country_code(code)
        plan = _plan(main) if len(main) == 2 else None
        if plan is None:
            continue
        for i, number in zip(at, _strip_if_possible(plan, [nationals[i] for i in at]), strict=True):
            if 2 <= len(number) <= _MAX_NSN:
                by_row[i] = number
    usable = np.array([i in by_row for i in rest.tolist()], dtype=bool)
    rows = rest[usable]
    verdict = _judge(codes[rows], [by_row[i] for i in rows.tolist()], words)
    out.put(rows, verdict)
    return out


def _unknown_code(out: Decided, codes: np.ndarray, parsed: list[str], region: str | None) -> None:
    """parse(): no country code after the "+" is INVALID_COUNTRY_CODE, unless the reading
    region's international prefix starts the digits (then parse() reads on)."""
    rows = np.flatnonzero(~out.done & (codes == 0))
    rows = rows[[len(parsed[i]) > 2 and parsed[i][0] != "0" for i in rows.tolist()]]
    if region is not None and len(rows):
        plan = _plan(region)
        if plan is None:
            return
        masks, _ = plan.masks([parsed[i] for i in rows.tolist()])
        rows = rows[(masks >> _IDD) & 1 == 0]
    out.done[rows] = True
    out.reason[rows] = "invalid_country_code"


def _strip_if_possible(plan: _Plan, numbers: list[str]) -> list[str]:
    """parse(): strip the trunk prefix unless the length left is too short or local only."""
    stripped = plan.strip(numbers)
    return [
        s if _length_result(plan.region, len(s)) not in _NO_STRIP_LENGTH else n
        for n, s in zip(numbers, stripped, strict=True)
    ]


def _national(
    digits: list[str], parsed: list[str], region: str | None, words: Vocabulary
) -> Decided:
    """National digits: read_valid in ``region``, parse() in it, then the digits as
    international (spreadsheets drop the "+"), as the per-number path does."""
    n = len(digits)
    out = Decided.empty(n)
    plan = _plan(region) if region is not None else None
    first = Decided.empty(n)
    if region is None:
        first.done[:] = True
        first.reason[:] = "invalid_country_code"
    elif plan is not None:
        first = _national_in(digits, parsed, plan, words)
    settled = first.done & (first.valid | np.array([d[:1] == "0" for d in digits], dtype=bool))
    out.put(np.flatnonzero(settled), first, np.flatnonzero(settled))
    retry = np.flatnonzero(first.done & ~settled)
    if len(retry):
        again = [digits[i] for i in retry.tolist()]
        second = _international(again, again, None, words)
        take_second = second.done & second.valid
        out.put(retry[take_second], second, np.flatnonzero(take_second))
        keep_first = second.done & ~second.valid
        out.put(retry[keep_first], first, retry[keep_first])
    return out


def _national_in(digits: list[str], parsed: list[str], plan: _Plan, words: Vocabulary) -> Decided:
    """read_valid(digits, region), else parse(parsed, region)."""
    n = len(digits)
    out = Decided.empty(n)
    prefix = plan.national_prefix
    literal: list[str | None] = []
    for d in digits:
        if not plan.plain_trunk:  # read_valid leaves these to parse()
            s: str | None = None
        elif prefix and d.startswith(prefix):
            s = d[len(prefix) :]
        elif plan.trunk and d.startswith(plan.trunk):
            s = None
        else:
            s = d
        literal.append(s if s and s[0] != "0" and len(s) <= _MAX_NSN else None)
    rows = np.array([i for i, s in enumerate(literal) if s is not None], dtype=np.int64)
    if len(rows):
        read = _judge(
            np.full(len(rows), plan.code), [literal[i] or "" for i in rows.tolist()], words
        )
        good = read.done & read.valid
        out.put(rows[good], read, np.flatnonzero(good))
    rest = [i for i in np.flatnonzero(~out.done).tolist() if 3 <= len(parsed[i]) <= _MAX_NSN]
    if not rest:
        return out
    group = [parsed[i] for i in rest]
    masks, _ = plan.masks(group)
    no_idd = (masks >> _IDD) & 1 == 0
    code_text = str(plan.code)
    starts = [i for i, d in enumerate(group) if d.startswith(code_text)]
    normalized = list(group)
    metadata_of = [plan] * len(group)
    if starts:
        whole = [group[i] for i in starts]
        potential = plan.strip([d[len(code_text) :] for d in whole])
        whole_general = plan.general(whole)
        potential_general = plan.general(potential)
        main = phonenumbers.region_code_for_country_code(plan.code)
        main_plan = _plan(main) if len(main) == 2 else None
        for k, i in enumerate(starts):
            too_long = _length_result(plan.region, len(whole[k])) == ValidationResult.TOO_LONG
            if (not whole_general[k] and potential_general[k]) or too_long:
                normalized[i] = potential[k]
                if main_plan is None:
                    no_idd[i] = False  # needs the per-number path
                else:
                    metadata_of[i] = main_plan
    final: list[str] = [""] * len(group)
    for meta in {id(p): p for p in metadata_of}.values():
        at = [i for i, p in enumerate(metadata_of) if p is meta]
        for i, s in zip(at, _strip_if_possible(meta, [normalized[i] for i in at]), strict=True):
            final[i] = s
    usable = no_idd & np.array([2 <= len(s) <= _MAX_NSN for s in final], dtype=bool)
    rows = np.array(rest, dtype=np.int64)[usable]
    kept = [f for f, u in zip(final, usable.tolist(), strict=True) if u]
    out.put(rows, _judge(np.full(len(rows), plan.code), kept, words))
    return out


def region_types(
    plans: list[_Plan], digits: np.ndarray, lengths: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Region (the place of its plan in ``plans``; -1 when no region's pattern claims it) and
    PhoneNumberType of national numbers of one country code (digit matrix and lengths), as
    phonenumbers decides them: the first of the code's regions whose leading digits (or,
    without those, any pattern) match."""
    found = np.full(len(digits), -1, dtype=np.int64)
    types = np.full(len(digits), _UNKNOWN, dtype=np.int64)
    waiting = np.arange(len(digits))
    for place, plan in enumerate(plans):
        if not len(waiting):
            break
        masks = plan.automaton.masks(digits[waiting])
        plan_types = plan.types(masks, lengths[waiting])
        if len(plans) == 1:
            hit = np.ones(len(waiting), dtype=bool)
        elif plan.has_leading_digits:
            hit = (masks >> _LEADING) & 1 == 1
        else:
            hit = plan_types != _UNKNOWN
        found[waiting[hit]] = place
        types[waiting[hit]] = plan_types[hit]
        waiting = waiting[~hit]
    return found, types


def _judge(codes: np.ndarray, nsns: list[str], words: Vocabulary) -> Decided:
    """phonenumbers' verdict on numbers (country code, national significant number): spec type
    (stage_and_screen first), region_code_for_number, is_possible reason when invalid."""
    n = len(nsns)
    out = Decided.empty(n)
    for code in np.unique(codes).tolist():
        rows = np.flatnonzero(codes == code)
        regions = phonenumbers.COUNTRY_CODE_TO_REGION_CODE.get(code, ())
        plans = [_plan(r) for r in regions]
        if not plans or any(p is None for p in plans):
            continue
        group = [nsns[i] for i in rows.tolist()]
        places, types = region_types(plans, *digit_matrix(group))  # type: ignore[arg-type]
        e164 = np.array([f"+{code}{nsn}" for nsn in group], dtype=object)
        stage = (
            np.array([words.is_stage(e) for e in e164.tolist()], dtype=bool)
            if code in (1, 44)
            else np.zeros(len(rows), dtype=bool)
        )
        kinds = np.array([words.type_names[t] for t in types.tolist()], dtype=object)
        kinds[types == _UNKNOWN] = "bad_format"
        kinds[stage] = "stage_and_screen"
        valid = kinds != "bad_format"
        main = _main_region(code)
        has_region = places >= 0
        found = np.array(
            [plans[p].region if p >= 0 else None for p in places.tolist()],
            dtype=object,
        )
        out.done[rows] = True
        out.kind[rows] = kinds
        out.e164[rows[valid]] = e164[valid]
        own = valid & has_region
        out.region[rows] = main
        out.region[rows[own]] = found[own]
        lengths_ = [len(nsn) for nsn in group]
        out.reason[rows] = [
            "ok" if ok else words.possible_reasons[_possible_reason(code, length)]
            for ok, length in zip(valid.tolist(), lengths_, strict=True)
        ]
    return out
