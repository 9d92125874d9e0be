"""What one region's phone metadata says, in array-ready form: the plans of the phone lane.

:mod:`smskit.rules._phonematrix` (the whole-array lane of
:func:`smskit.rules.phones.normalize`) reads numbers with these plans: per region, its
descriptions' patterns compiled into one digit automaton (:mod:`smskit.rules._digitdfa`),
their possible lengths, its trunk-prefix rule and how phonenumbers' ``number_type`` walks
them; the length verdict ``parse()`` applies, read from the public metadata; and the words
(:class:`Vocabulary`) the per-number path answers in. Only public phonenumbers API is used.
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
from smskit.rules.phonecheck import national_rule

__all__ = [
    "DESCS",
    "GENERAL",
    "IDD",
    "LEADING",
    "MAX_NSN",
    "NO_STRIP_LENGTH",
    "UNKNOWN",
    "Plan",
    "Vocabulary",
    "length_result",
    "plan_for",
    "possible_reason",
    "region_types",
]

# Bits of a region's automaton: its descriptions in phonenumbers' number_type() order, then
# the prefix patterns that decide the region of a shared code and an international prefix.
DESCS: Final = (
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
GENERAL, FIXED, MOBILE, LEADING, IDD = 0, 9, 10, 11, 12
# Line types of bits 1..8, as phonenumbers numbers them.
SPECIAL_TYPES: Final = (
    PhoneNumberType.PREMIUM_RATE,
    PhoneNumberType.TOLL_FREE,
    PhoneNumberType.SHARED_COST,
    PhoneNumberType.VOIP,
    PhoneNumberType.PERSONAL_NUMBER,
    PhoneNumberType.PAGER,
    PhoneNumberType.UAN,
    PhoneNumberType.VOICEMAIL,
)
UNKNOWN: Final = int(PhoneNumberType.UNKNOWN)
MAX_NSN: Final = 17  # phonenumbers' longest national number
NO_STRIP_LENGTH: Final = frozenset(
    {
        ValidationResult.TOO_SHORT,
        ValidationResult.IS_POSSIBLE_LOCAL_ONLY,
        ValidationResult.INVALID_LENGTH,
    }
)


# Plan.type_table's tables, by region (a Plan is frozen; plan_for makes one per region).
_TYPE_TABLES: dict[str, np.ndarray] = {}


@dataclass(frozen=True)
class Plan:
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
    plain_trunk: bool  # the trunk rule read_valid reads (phonecheck.national_rule)
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
        general = self.matches(masks, lengths, GENERAL)
        fixed = self.matches(masks, lengths, FIXED)
        mobile = self.matches(masks, lengths, MOBILE)
        result = np.full(len(masks), UNKNOWN, dtype=np.int64)
        if self.same_mobile_and_fixed:
            tail = np.where(fixed, int(PhoneNumberType.FIXED_LINE_OR_MOBILE), UNKNOWN)
        else:
            both = int(PhoneNumberType.FIXED_LINE_OR_MOBILE)
            tail = np.where(
                fixed,
                np.where(mobile, both, int(PhoneNumberType.FIXED_LINE)),
                np.where(mobile, int(PhoneNumberType.MOBILE), UNKNOWN),
            )
        # Walk the chain backwards so that the first matching description wins.
        result = tail
        for bit in range(len(SPECIAL_TYPES), 0, -1):
            result = np.where(
                self.matches(masks, lengths, bit), int(SPECIAL_TYPES[bit - 1]), result
            )
        return np.where(general, result, UNKNOWN)

    def type_table(self) -> np.ndarray:
        """:meth:`types` of every automaton state's mask at every length it tells apart
        (rows: states; columns: lengths, the last one for any longer), made once per plan:
        the types of numbers are then one gather, ``table[state, length]``."""
        table = _TYPE_TABLES.get(self.region)
        if table is None:
            states, width = self.automaton.size, self.length_ok.shape[1]
            masks = np.repeat(self.automaton.accept[:states], width)
            lengths = np.tile(np.arange(width), states)
            table = self.types(masks, lengths).reshape(states, width)
            table.setflags(write=False)
            _TYPE_TABLES[self.region] = table
        return table

    def general(self, numbers: list[str]) -> np.ndarray:
        """phonenumbers' _match_national_number on the general description (no lengths)."""
        masks, _ = self.masks(numbers)
        return (masks >> GENERAL) & 1 == 1

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
def plan_for(region: str) -> Plan | None:
    """The plan of a region, or None when its rules need the per-number path."""
    meta = PhoneMetadata.metadata_for_region(region)
    if meta is None or meta.country_code is None:
        return None
    parsing = meta.national_prefix_for_parsing
    trunk = tuple(parsing.split("|")) if parsing else ()
    descs = [getattr(meta, name) for name in DESCS]
    patterns: list[str | None] = [d.national_number_pattern if d else None for d in descs]
    patterns.append(f"(?:{meta.leading_digits})[0-9]*" if meta.leading_digits else None)
    idd = meta.international_prefix
    patterns.append(f"(?:{idd})[0-9]*" if idd else None)
    try:
        automaton = DigitAutomaton(patterns)
    except Unsupported:
        return None
    length_ok = np.zeros((len(descs), 2 * MAX_NSN + 2), dtype=bool)
    for bit, desc in enumerate(descs):
        if desc is not None and desc.national_number_pattern:
            allowed = [n for n in desc.possible_length if 0 <= n < length_ok.shape[1] - 1]
            if desc.possible_length:
                length_ok[bit, allowed] = True
            else:
                length_ok[bit, :] = True
    return Plan(
        region=region,
        code=meta.country_code,
        automaton=automaton,
        length_ok=length_ok,
        same_mobile_and_fixed=bool(meta.same_mobile_and_fixed_line_pattern),
        has_leading_digits=meta.leading_digits is not None,
        national_prefix=meta.national_prefix,
        trunk=trunk,
        plain_trunk=national_rule(region) is not None,
        parsing=parsing or None,
        transform=meta.national_prefix_transform_rule or None,
    )


@lru_cache(maxsize=4096)
def length_result(region: str, length: int) -> int:
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
def possible_reason(code: int, length: int) -> int:
    """phonenumbers' is_possible_number_with_reason for ``length`` national digits."""
    number = PhoneNumber(country_code=code, national_number=int("1" * length))
    return int(phonenumbers.is_possible_number_with_reason(number))


class Vocabulary(NamedTuple):
    """The per-number path's words, given by :mod:`smskit.rules.phones` (which imports us)."""

    type_names: Mapping[int, str]  # PhoneNumberType -> spec phone_number_type
    possible_reasons: Mapping[int, str]  # ValidationResult -> reason
    is_stage: Callable[[str], bool]
    reasons: tuple[str, ...]  # every reason, in the order of their codes


def region_types(
    plans: list[Plan], digits: np.ndarray, lengths: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Region (the place of its plan in ``plans``; -1 when no region's pattern claims it) and
    PhoneNumberType of national numbers of one country code (digit matrix and lengths), as
    phonenumbers decides them: the first of the code's regions whose leading digits (or,
    without those, any pattern) match."""
    found = np.full(len(digits), -1, dtype=np.int64)
    types = np.full(len(digits), UNKNOWN, dtype=np.int64)
    waiting = np.arange(len(digits))
    for place, plan in enumerate(plans):
        if not len(waiting):
            break
        everyone = len(waiting) == len(digits)  # no row claimed yet: no copy of the matrix
        states = plan.automaton.states(digits if everyone else digits[waiting])
        masks = plan.automaton.accept[states]
        table = plan.type_table()
        widths = lengths if everyone else lengths[waiting]
        plan_types = table[states, np.minimum(widths, table.shape[1] - 1)]
        if len(plans) == 1:
            hit = np.ones(len(waiting), dtype=bool)
        elif plan.has_leading_digits:
            hit = (masks >> LEADING) & 1 == 1
        else:
            hit = plan_types != UNKNOWN
        found[waiting[hit]] = place
        types[waiting[hit]] = plan_types[hit]
        waiting = waiting[~hit]
    return found, types
