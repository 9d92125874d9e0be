"""The phone lane of :func:`smskit.rules.phones.normalize`: texts as a character matrix.

Most values of a recipient list are plain spellings of numbers (``06 12 34 56 78``,
``+33 6 12 34 56 78``, ``+33 (0)6…``, ``0033 6…``, ``(201) 555-0123``). This module reads them
over an Arrow string array's bytes: the shape by one RE2 match, the digits gathered from the
flat byte buffer into matrices (once without every ``(0)``: the per-number path's literal
reading; once with every digit: what ``parse()`` reads), then with numpy the ``00`` rule, the
country code, the trunk prefix, the digit automata of each region's plan
(:mod:`smskit.rules._phoneplan`) and the E.164 number (an integer), with no per-text Python work
except for the few codes whose trunk rule needs ``re`` (a transform). Answers are codes
(:class:`Coded`). It follows the per-number path (``phonecheck``: phonenumbers' ``parse`` and
``number_type``) step by step: the literal reading when it gives a valid number, else
``parse()``'s reading, then national digits as international (spreadsheets drop the "+").
Every other text (a refusal, letters, one or two digits, a code without a plan, ...) is left
undecided for the per-number path, the reference, so the answers stay the same (pinned by
the differential and property tests of tests/test_phones_fastpath.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import numpy as np
import phonenumbers
from phonenumbers import ValidationResult

from smskit.rules._digitdfa import PAD
from smskit.rules._phoneplan import (
    GENERAL,
    IDD,
    MAX_NSN,
    NO_STRIP_LENGTH,
    UNKNOWN,
    Plan,
    Vocabulary,
    length_result,
    plan_for,
    possible_reason,
    region_types,
)
from smskit.rules._phonetexts import FLOAT_TEXT
from smskit.rules.phonecheck import DIGIT_ALTERNATIVES, main_region
from smskit.rules.spec import PHONE_NUMBER_TYPE as TYPES

if TYPE_CHECKING:  # pyarrow is imported where texts are read (the sandbox reads none)
    import pyarrow as pa

__all__ = ["REGIONS", "REGION_CODE", "Coded", "express", "express_texts", "plain_rows"]

WIDTH: Final = 24  # longer texts take the other paths (a plain number is never this long)
BAD: Final = TYPES.index("bad_format")
_STAGE: Final = TYPES.index("stage_and_screen")
# Every region code phonenumbers answers with ("001": non-geographic), in one order.
REGIONS: Final = tuple(
    sorted({r for rs in phonenumbers.COUNTRY_CODE_TO_REGION_CODE.values() for r in rs} | {"ZZ"})
)
REGION_CODE: Final = {region: i for i, region in enumerate(REGIONS)}
_OPEN, _CLOSE, _SPACE, _DOT = ord("("), ord(")"), ord(" "), ord(".")
# Which 1-, 2- and 3-digit prefixes are country calling codes (phonenumbers' table).
_IS_CODE: Final = [np.zeros(10**k, dtype=bool) for k in (1, 2, 3)]
for _code in phonenumbers.COUNTRY_CODE_TO_REGION_CODE:
    _IS_CODE[len(str(_code)) - 1][_code] = True
# The same, read by prefixes that may hold PAD (10) after their digits: such an entry is False
# (a prefix holding PAD is longer than its number's digits, which the callers check).
_IS_CODE_PADDED: Final = [np.zeros(int("1" * (k + 1)), dtype=bool) for k in (1, 2, 3)]
for _table, _padded in zip(_IS_CODE, _IS_CODE_PADDED, strict=True):
    _padded[: len(_table)] = _table


@dataclass
class Coded:
    """Answers for an array of texts as codes; ``done`` is False where the other paths must
    decide. ``e164`` is the E.164 number's digits as an integer (0: none; the longest valid
    numbers of the metadata, 19 digits, stay below int64's limit: pinned by a test), ``reason`` a
    place in the vocabulary's reasons (-1: none yet), ``region`` a place in :data:`REGIONS`
    (-1: none), ``kind`` a place in the spec's phone_number_type values."""

    done: np.ndarray
    e164: np.ndarray
    reason: np.ndarray
    region: np.ndarray
    kind: np.ndarray

    @classmethod
    def empty(cls, n: int) -> Coded:
        return cls(
            np.zeros(n, dtype=bool),
            np.zeros(n, dtype=np.int64),
            np.full(n, -1, dtype=np.int8),
            np.full(n, -1, dtype=np.int16),
            np.full(n, BAD, dtype=np.int8),
        )

    @property
    def valid(self) -> np.ndarray:
        return self.kind != BAD

    def put(self, rows: np.ndarray, other: Coded, picked: np.ndarray | None = None) -> None:
        """Copy ``other``'s answers (all, or those at ``picked``) into ``rows``."""
        for name in ("done", "e164", "reason", "region", "kind"):
            source = getattr(other, name)
            getattr(self, name)[rows] = source if picked is None else source[picked]

    @classmethod
    def of(
        cls,
        done: Sequence[bool],
        e164: Sequence[str | None],
        reason: Sequence[str | None],
        region: Sequence[str | None],
        kind: Sequence[str],
        words: Vocabulary,
    ) -> Coded:
        """Answers said in words (the list path's or the per-number path's Python strings,
        a few values) as codes."""
        out = cls.empty(len(done))
        out.done[:] = done
        out.e164[:] = [int(e[1:]) if e else 0 for e in e164]
        out.reason[:] = [-1 if r is None else words.reasons.index(r) for r in reason]
        out.region[:] = [-1 if r is None else REGION_CODE[r] for r in region]
        out.kind[:] = [TYPES.index(k) for k in kind]
        return out


def express(texts: list[str], region: str | None, words: Vocabulary) -> Coded:
    """Answers for canonical texts (stripped, not empty) read in ``region``; ``done`` is False
    where the other paths must decide."""
    import pyarrow as pa

    return express_texts(pa.array(texts, type=pa.large_string()), region, words)


def express_texts(texts: pa.Array, region: str | None, words: Vocabulary) -> Coded:
    """:func:`express` of canonical texts given as an Arrow string array (no nulls)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    out = Coded.empty(len(texts))
    lengths = pc.binary_length(texts).to_numpy(zero_copy_only=False)
    rows = np.flatnonzero((lengths >= 3) & (lengths <= WIDTH))
    if not len(rows):
        return out
    if len(rows) < len(texts):
        texts = texts.take(pa.array(rows))
    shaped, plus, digits, count, every, total = _compact_digits(texts)
    if not shaped.all():
        rows, plus, digits, count, every, total = (
            a[shaped] for a in (rows, plus, digits, count, every, total)
        )
    two_zeros = ~plus & (digits[:, 0] == 0) & (digits[:, 1] == 0) & (count >= 2)
    intl = np.flatnonzero(plus | two_zeros)
    offset = np.where(two_zeros[intl], 2, 0)
    moved = digits[intl]  # left-aligned, PAD after each row's digits (_compact_digits)
    if offset.any():  # "00...": the digits after the two zeros
        moved = _gather(moved, offset, count[intl] - offset)
    # parse() reads every digit after a "+" (a "(0)" too); "00..." is re-read as "+...",
    # whose text has no "(0)" left: the compact digits.
    zeros = two_zeros[intl]
    if zeros.any():
        parsed = np.where(zeros[:, None], moved, every[intl])
    else:  # the same matrix when no text holds a "(0)"
        parsed = moved if every is digits else every[intl]
    parsed_total = np.where(zeros, count[intl] - offset, total[intl])
    out.put(
        rows[intl], _international(moved, count[intl] - offset, parsed, parsed_total, region, words)
    )
    home = np.flatnonzero(~(plus | two_zeros))
    if region is None:
        read = _nowhere(digits[home], count[home], words)
    else:
        read = _national(digits[home], count[home], every[home], total[home], region, words)
    out.put(rows[home], read)
    return out


def _nowhere(digits: np.ndarray, count: np.ndarray, words: Vocabulary) -> Coded:
    """National digits read in no region: no country code (invalid_country_code), unless the
    digits, read as international (spreadsheets drop the "+"), are a valid number."""
    out = Coded.empty(len(digits))
    _refuse_code(out, np.flatnonzero(digits[:, 0] == 0), words)
    retry = np.flatnonzero(digits[:, 0] != 0)
    again, again_count = digits[retry], count[retry]
    second = _international(again, again_count, again, again_count, None, words)
    take_second = second.done & second.valid
    out.put(retry[take_second], second, np.flatnonzero(take_second))
    _refuse_code(out, retry[second.done & ~second.valid], words)
    return out


def plain_rows(values: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Rows of raw Arrow strings the lane may read, and their texts with the spaces around
    them trimmed: every value but a missing one or a float's text (``33612345678.0``, whose
    canonical text is its digits). Where a trimmed text is of a plain shape (no blank at its
    ends) it is the canonical text (``str.strip``); any other is left undecided by the lane.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    offsets, data = _buffers(values)
    filled = offsets[1:] > offsets[:-1]
    firsts, lasts = offsets[:-1][filled], offsets[1:][filled] - 1
    blank_end = (data[firsts] == _SPACE) | (data[lasts] == _SPACE)
    # Each pass only where some text needs it: a list without a blank at a text's end or a
    # "." anywhere (most of them) is kept as it is.
    trimmed = pc.utf8_trim(values, " ") if blank_end.any() else values
    if (data == _DOT).any():
        float_text = pc.match_substring_regex(trimmed, f"^{FLOAT_TEXT}$")
        read = ~float_text.fill_null(True).to_numpy(zero_copy_only=False)
    else:
        read = ~values.is_null().to_numpy(zero_copy_only=False)
    if read.all():
        return np.arange(len(values)), trimmed
    rows = np.flatnonzero(read)
    return rows, trimmed.take(pa.array(rows))


# The plain shapes: digits with ". - / ( )" and spaces between them, a leading "+" or "(" and
# a trailing ")". Anything else is for the other paths.
_SHAPE: Final = r"^[+(]?[0-9](?:[0-9 ./()\-]*[0-9])?\)?$"


# The bytes a plain shape may hold after its first: digits and the separators.
_INSIDE: Final = np.zeros(256, dtype=bool)
_INSIDE[[*range(48, 58), *b" ./()-"]] = True


def plain_shape(offsets: np.ndarray, data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per text of an Arrow string array's ``offsets`` and UTF-8 ``data``: whether it has a
    plain shape (it matches :data:`_SHAPE`: any byte outside ASCII does not), and whether it
    starts with ``+``. Read from the bytes with numpy: the bytes inside, then the first and
    last ones (the same answers as RE2's match, pinned by a property test)."""
    starts, ends = offsets[:-1], offsets[1:]
    filled = ends > starts
    padded = np.append(data, np.uint8(0))  # an empty text's first byte reads as a NUL
    first = np.where(filled, padded[np.minimum(starts, len(data))], 0)
    plus = first == ord("+")
    lead = plus | (first == _OPEN)  # the body starts after it
    # The bytes outside, counted per text where they fall (most bytes are inside: no
    # running count over every byte).
    outside = np.searchsorted(np.flatnonzero(~_INSIDE.take(data)), offsets)
    # Every byte of the text is inside, but a leading "+".
    clean = (np.diff(outside) - plus) == 0
    body = starts + lead
    has_body = body < ends
    head = padded[np.minimum(body, len(data))]
    last = padded[np.maximum(ends - 1, 0)]
    before = padded[np.maximum(ends - 2, 0)]
    digit_head = (head >= 48) & (head <= 57)
    tail = ((last >= 48) & (last <= 57)) | ((last == _CLOSE) & (before >= 48) & (before <= 57))
    return filled & clean & has_body & digit_head & tail, plus


def _compact_digits(
    texts: pa.Array,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Texts of the plain shapes with at least 3 digits, whether each starts with ``+``,
    its digits once the separators and every ``(0)`` are dropped (the per-number path's
    literal reading drops them: a trunk prefix written after the country code), as a matrix
    left-aligned and padded with PAD, and their count; then every digit of the text (what
    parse() reads, a ``(0)``'s included) as a matrix, and its count."""

    offsets, data = _buffers(texts)
    shaped, plus = plain_shape(offsets, data)
    kept = (data >= 48) & (data <= 57)
    every_rank = _ranks(kept)[offsets]
    total = np.diff(every_rank)
    every = _matrix(data[kept] - 48, every_rank[:-1], total, PAD)
    # The "0" of each "(0)" inside one text (never across two), looked for at the "("s only.
    opens = np.flatnonzero(data[:-2] == _OPEN)
    if len(opens):
        first = np.zeros(len(data) + 1, dtype=bool)  # where a text starts
        first[offsets[:-1]] = True
        opens = opens[(data[opens + 1] == 48) & (data[opens + 2] == _CLOSE)]
        opens = opens[~first[opens + 1] & ~first[opens + 2]]
    if not len(opens):  # no "(0)": the compact digits are every digit
        return shaped & (total >= 3), plus, every, total, every, total
    kept = kept.copy()
    kept[opens + 1] = False
    ranks = _ranks(kept)
    starts = ranks[offsets]
    count = np.diff(starts)
    digits = _matrix(data[kept] - 48, starts[:-1], count, PAD)
    # Both matrices as wide (the compact one is never the wider).
    digits = np.pad(digits, ((0, 0), (0, every.shape[1] - digits.shape[1])), constant_values=PAD)
    return shaped & (count >= 3), plus, digits, count, every, total


def _ranks(kept: np.ndarray) -> np.ndarray:
    """How many of ``kept`` come before each place (one more place at the end). Counted in
    int32 when it fits: several times faster than numpy's default int64 for a bool array."""
    kind = np.int32 if len(kept) < 2**31 - 1 else np.int64
    out = np.zeros(len(kept) + 1, dtype=kind)
    np.cumsum(kept.view(np.uint8), dtype=kind, out=out[1:])
    return out


def _buffers(texts: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """An Arrow string array's offsets (from 0) and bytes; nulls read as empty."""
    import pyarrow as pa

    if texts.type != pa.string():
        texts = texts.cast(pa.large_string())
    validity, offsets_buffer, data_buffer = texts.buffers()
    wide = texts.type == pa.large_string()
    offsets = np.frombuffer(offsets_buffer, dtype=np.int64 if wide else np.int32)
    offsets = offsets[texts.offset : texts.offset + len(texts) + 1]
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer else np.zeros(0, np.uint8)
    data = data[offsets[0] : offsets[-1]]
    offsets = offsets.astype(np.int64) - offsets[0]
    if validity is not None:
        # A null's bytes (if any) are skipped.
        nulls = texts.is_null().to_numpy(zero_copy_only=False)
        lengths = np.where(nulls, 0, np.diff(offsets))
        keep = np.repeat(~nulls, np.diff(offsets))
        data = data[keep]
        offsets = np.concatenate([[0], np.cumsum(lengths)])
    return offsets, data


def _matrix(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray, fill: int) -> np.ndarray:
    """Rows of ``data`` (each from its start, ``lengths`` long) as a matrix as wide as the
    longest row (at least 3, at most WIDTH), ``fill`` after each row's end."""
    width = int(min(max(lengths.max(initial=0), 3), WIDTH))
    padded = np.concatenate([data, np.full(width, fill, dtype=np.uint8)])
    # Each row is one window of the bytes: a single gather of whole rows.
    out = np.lib.stride_tricks.sliding_window_view(padded, width)[starts]
    out[np.arange(width) >= lengths[:, None]] = fill
    return out


def _gather(digits: np.ndarray, start: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Per row, ``size`` digits from ``start`` on, left-aligned and padded with PAD."""
    width = digits.shape[1]
    shifts = np.unique(start).tolist()
    if len(shifts) == 1 and shifts[0] < width:  # one start for all: one slice
        out = np.full_like(digits, PAD)
        out[:, : width - shifts[0]] = digits[:, shifts[0] :]
        if shifts[0] + int(size.min()) >= width:
            return out  # every row keeps all it has left: nothing to blank
        return np.where(np.arange(width) < size[:, None], out, np.uint8(PAD))
    out = np.full_like(digits, PAD)
    # A few distinct starts (the length of a code or prefix): one slice copy each.
    for shift in shifts:
        if shift >= width:
            continue  # nothing of these rows is left
        rows = start == shift
        out[rows, : width - shift] = digits[rows, shift:]
    return np.where(np.arange(width) < size[:, None], out, np.uint8(PAD))


def _taken(matrix: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``matrix[rows]`` for ascending distinct ``rows`` (``np.flatnonzero``'s): the matrix
    itself when they are all of its rows (nothing copied; callers never write into it)."""
    return matrix if len(rows) == len(matrix) else matrix[rows]


def _starts_with(digits: np.ndarray, count: np.ndarray, prefix: str) -> np.ndarray:
    wanted = np.array([int(c) for c in prefix], dtype=np.uint8)
    if len(wanted) > digits.shape[1]:  # no row has that many digits
        return np.zeros(len(digits), dtype=bool)
    return (count >= len(wanted)) & np.all(digits[:, : len(wanted)] == wanted, axis=1)


def _split_code(digits: np.ndarray, total: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The shortest country code starting the digits (0 when none, or
    when they start with 0), and its length."""
    d = digits[:, :3].astype(np.int16)  # PAD (10) at most: 1110 for three places
    one = d[:, 0]
    two = one * 10 + d[:, 1]
    three = two * 10 + d[:, 2]
    is_one = _IS_CODE_PADDED[0][one] & (total >= 1)
    is_two = _IS_CODE_PADDED[1][two] & (total >= 2)
    is_three = _IS_CODE_PADDED[2][three] & (total >= 3)
    size = np.where(is_one, 1, np.where(is_two, 2, np.where(is_three, 3, 0)))
    size[one == 0] = 0
    code = np.where(size == 1, one, np.where(size == 2, two, np.where(size == 3, three, 0)))
    return code.astype(np.int64), size


def _international(
    digits: np.ndarray,
    total: np.ndarray,
    parsed: np.ndarray,
    parsed_total: np.ndarray,
    region: str | None,
    words: Vocabulary,
) -> Coded:
    """``+`` then ``digits``: the per-number path's literal reading when it gives a valid
    number, else parse() of ``parsed`` (every digit after the ``+``, a ``(0)``'s included)
    with the main region's rules."""
    out = Coded.empty(len(digits))
    code, size = _split_code(digits, total)
    rest = total - size
    head = np.take_along_axis(digits, np.minimum(size, digits.shape[1] - 1)[:, None], axis=1)
    literal = np.flatnonzero(
        (code != 0) & (total >= 3) & (total <= MAX_NSN) & (rest > 0) & (head[:, 0] != 0)
    )
    nsn = _gather(_taken(digits, literal), size[literal], rest[literal])
    first = _verdict(code[literal], nsn, rest[literal], words)
    good = first.done & first.valid
    out.put(literal[good], first, np.flatnonzero(good))
    code, size = _split_code(parsed, parsed_total)
    rest = parsed_total - size
    unknown = ~out.done & (code == 0) & (parsed_total > 2) & (parsed[:, 0] != 0)
    if region is None:
        _refuse_code(out, np.flatnonzero(unknown), words)
    elif (reader := plan_for(region)) is not None:
        at = np.flatnonzero(unknown)
        _refuse_code(out, at[(reader.automaton.masks(parsed[at]) >> IDD) & 1 == 0], words)
    parse = np.flatnonzero(~out.done & (code != 0) & (rest >= 2) & (parsed_total > 2))
    for one, where in _groups(code[parse]):
        main = phonenumbers.region_code_for_country_code(one)
        plan = plan_for(main) if len(main) == 2 else None
        at = parse[where]
        numbers = _gather(parsed[at], size[at], rest[at])
        stripped = _strip(plan, numbers, rest[at], check_length=True)
        if stripped is None:
            continue
        national, length = stripped
        fits = (length >= 2) & (length <= MAX_NSN)
        verdict = _verdict(np.full(int(fits.sum()), one), national[fits], length[fits], words)
        out.put(at[fits], verdict)
    return out


def _refuse_code(out: Coded, rows: np.ndarray, words: Vocabulary) -> None:
    out.done[rows] = True
    out.reason[rows] = words.reasons.index("invalid_country_code")


def _national(
    digits: np.ndarray,
    count: np.ndarray,
    every: np.ndarray,
    total: np.ndarray,
    region: str,
    words: Vocabulary,
) -> Coded:
    """National digits: the literal reading in ``region`` when valid, else parse() of
    ``every`` digit in it, then the digits as international (spreadsheets drop the "+"), as
    the per-number path does; rules this lane does not follow are left undecided."""
    out = Coded.empty(len(digits))
    plan = plan_for(region)
    if plan is None:
        return out
    first = Coded.empty(len(digits))
    if plan.plain_trunk:
        prefix = plan.national_prefix
        trunk = _starts_with(digits, count, prefix) if prefix else np.zeros(len(digits), bool)
        other = np.zeros(len(digits), dtype=bool)
        for alternative in plan.trunk:
            other |= _starts_with(digits, count, alternative)
        skip = np.where(trunk, len(prefix or ""), 0)
        size = count - skip
        head = np.take_along_axis(digits, np.minimum(skip, digits.shape[1] - 1)[:, None], axis=1)
        head = head[:, 0]
        literal = np.flatnonzero((trunk | ~other) & (size >= 1) & (size <= MAX_NSN) & (head != 0))
        nsn = _gather(_taken(digits, literal), skip[literal], size[literal])
        read = _verdict(np.full(len(literal), plan.code), nsn, size[literal], words)
        good = read.done & read.valid
        first.put(literal[good], read, np.flatnonzero(good))
    rest = np.flatnonzero(~first.done & (total >= 3) & (total <= MAX_NSN))
    rest = rest[(plan.automaton.masks(every[rest]) >> IDD) & 1 == 0]
    own_code = _starts_with(every[rest], total[rest], str(plan.code))
    for at, meta, numbers, size in (
        (rest[~own_code], plan, every[rest[~own_code]], total[rest[~own_code]]),
        *_after_own_code(plan, rest[own_code], every, total),
    ):
        stripped = _strip(meta, numbers, size, check_length=True)
        if stripped is None:
            continue
        national, length = stripped
        fits = (length >= 2) & (length <= MAX_NSN)
        verdict = _verdict(np.full(int(fits.sum()), plan.code), national[fits], length[fits], words)
        first.put(at[fits], verdict)
    settled = first.done & (first.valid | (digits[:, 0] == 0))
    out.put(np.flatnonzero(settled), first, np.flatnonzero(settled))
    retry = np.flatnonzero(first.done & ~settled)
    if len(retry):
        again, again_count = digits[retry], count[retry]
        second = _international(again, again_count, again, again_count, None, words)
        take_second = second.done & second.valid
        out.put(retry[take_second], second, np.flatnonzero(take_second))
        keep_first = second.done & ~second.valid
        out.put(retry[keep_first], first, retry[keep_first])
    return out


def _after_own_code(
    plan: Plan, rows: np.ndarray, digits: np.ndarray, count: np.ndarray
) -> list[tuple[np.ndarray, Plan, np.ndarray, np.ndarray]]:
    """parse() of national digits that start with the region's country code: the digits
    after it, trunk prefix stripped, when only those fit the general pattern or the whole is
    too long (then read with the code's main region), else the whole; as (rows, plan,
    numbers, lengths) groups. Rows whose rule this lane does not follow are left out."""
    whole, size = digits[rows], count[rows]
    skip = len(str(plan.code))
    tail = _gather(whole, np.full(len(rows), skip), size - skip)
    after = _strip(plan, tail, size - skip, check_length=False)
    main = phonenumbers.region_code_for_country_code(plan.code)
    main_plan = plan_for(main) if len(main) == 2 else None
    if after is None or main_plan is None:
        return []
    potential, potential_size = after
    lengths = np.array([length_result(plan.region, k) for k in range(whole.shape[1] + 1)])
    switch = (~_general(plan, whole) & _general(plan, potential)) | (
        lengths[size] == ValidationResult.TOO_LONG
    )
    return [
        (rows[~switch], plan, whole[~switch], size[~switch]),
        (rows[switch], main_plan, potential[switch], potential_size[switch]),
    ]


def _general(plan: Plan, numbers: np.ndarray) -> np.ndarray:
    """phonenumbers' _match_national_number on the general description (no lengths)."""
    return (plan.automaton.masks(numbers) >> GENERAL) & 1 == 1


def _strip(
    plan: Plan | None, numbers: np.ndarray, size: np.ndarray, *, check_length: bool
) -> tuple[np.ndarray, np.ndarray] | None:
    """Plan.strip, or with ``check_length`` parse()'s "strip unless too short or local
    only", on whole matrices for a plain trunk rule (digit alternatives, no transform), row by
    row for any other; None where there is no plan (the per-number path reads those)."""
    if plan is None:
        return None
    if not plan.parsing:
        return numbers, size
    if plan.transform or DIGIT_ALTERNATIVES.fullmatch(plan.parsing) is None:
        return _strip_rows(plan, numbers, size, check_length=check_length)
    # re.match tries the alternatives in order: the first that starts the number wins.
    cut = np.zeros(len(numbers), dtype=np.int64)
    matched = np.zeros(len(numbers), dtype=bool)
    for alternative in plan.parsing.split("|"):
        hit = ~matched & _starts_with(numbers, size, alternative)
        cut[hit] = len(alternative)
        matched |= hit
    candidates = _gather(numbers, cut, size - cut)
    use = matched & ~(_general(plan, numbers) & ~_general(plan, candidates))
    if check_length:
        lengths = np.array([length_result(plan.region, k) for k in range(numbers.shape[1] + 1)])
        use &= ~np.isin(lengths, list(NO_STRIP_LENGTH))[size - cut]
    return np.where(use[:, None], candidates, numbers), np.where(use, size - cut, size)


def _strip_rows(
    plan: Plan, numbers: np.ndarray, size: np.ndarray, *, check_length: bool
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_strip` where the trunk rule needs ``re`` (a transform, or a pattern beyond
    digit alternatives): row by row with the plan's own reader. Only the few codes with such
    a rule get here."""
    texts = [
        "".join(map(str, row[:n])) for row, n in zip(numbers.tolist(), size.tolist(), strict=True)
    ]
    stripped = plan.strip(texts)
    if check_length:
        stripped = [
            cut if length_result(plan.region, len(cut)) not in NO_STRIP_LENGTH else text
            for text, cut in zip(texts, stripped, strict=True)
        ]
    lengths = np.array([len(text) for text in stripped], dtype=np.int64)
    out = np.full((len(texts), max(numbers.shape[1], int(lengths.max(initial=0)))), PAD, np.uint8)
    for row, text in enumerate(stripped):
        out[row, : len(text)] = np.frombuffer(text.encode("ascii"), dtype=np.uint8) - 48
    return out, lengths


def _verdict(codes: np.ndarray, nsn: np.ndarray, size: np.ndarray, words: Vocabulary) -> Coded:
    """phonenumbers' verdict on (code, national number) matrices: spec type (stage_and_screen
    first), region, is_possible reason when invalid; not done for a code without a plan."""
    out = Coded.empty(len(codes))
    kinds_of = _kinds(words)
    ok = words.reasons.index("ok")
    for code, group in _groups(codes):
        plans = [plan_for(r) for r in phonenumbers.COUNTRY_CODE_TO_REGION_CODE.get(code, ())]
        if not plans or any(p is None for p in plans):
            continue
        # One code for every row (the group is all of them, in order): no copy of the matrix.
        whole = len(group) == len(codes)
        numbers, sizes = (nsn, size) if whole else (nsn[group], size[group])
        found, types = region_types(plans, numbers, sizes)  # type: ignore[arg-type]
        e164 = _e164(code, numbers, sizes)
        kinds = kinds_of[types]
        if code in (1, 44):  # the only codes with regulator drama ranges
            texts = [f"+{number}" for number in e164.tolist()]
            kinds[np.fromiter(map(words.is_stage, texts), dtype=bool, count=len(group))] = _STAGE
        valid = kinds != BAD
        out.done[group] = True
        out.kind[group] = kinds
        out.e164[group[valid]] = e164[valid]
        main = main_region(code)
        out.region[group] = -1 if main is None else REGION_CODE[main]
        own = valid & (found >= 0)
        plan_regions = np.array([REGION_CODE[p.region] for p in plans], dtype=np.int16)  # type: ignore[union-attr]
        out.region[group[own]] = plan_regions[found[own]]
        out.reason[group[valid]] = ok
        bad = group[~valid]
        for length, at in _groups(size[bad]):
            reason = words.possible_reasons[possible_reason(code, length)]
            out.reason[bad[at]] = words.reasons.index(reason)
    return out


def _groups(keys: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """Each distinct key with the positions holding it (one sort, not one scan per key)."""
    if not len(keys):
        return []
    order = np.argsort(keys, kind="stable")
    distinct, starts = np.unique(keys[order], return_index=True)
    return list(zip(distinct.tolist(), np.split(order, starts[1:]), strict=True))


def _kinds(words: Vocabulary) -> np.ndarray:
    """Spec type codes indexed by phonenumbers' line type (``bad_format`` for UNKNOWN)."""
    kinds = np.full(max(max(words.type_names), UNKNOWN) + 1, BAD, dtype=np.int8)
    for kind, name in words.type_names.items():
        kinds[int(kind)] = TYPES.index(name)
    kinds[UNKNOWN] = BAD
    return kinds


def _e164(code: int, nsn: np.ndarray, size: np.ndarray) -> np.ndarray:
    """The code and each national number's digits as one integer (E.164 without its ``+``)."""
    number = np.full(len(nsn), code, dtype=np.int64)
    for column in range(int(size.max(initial=0))):
        more = column < size
        number = np.where(more, number * 10 + nsn[:, column], number)
    return number
