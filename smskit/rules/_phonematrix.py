"""The whole-array lane of :func:`smskit.rules.phones.normalize`: texts as a character matrix.

Most values of a recipient list are plain spellings of valid numbers (``06 12 34 56 78``,
``+33 6 12 34 56 78``, ``0033 6…``, ``(201) 555-0123``). For those, the array path of
:mod:`smskit.rules._fastphones` reads the digits literally and phonenumbers' own patterns
(compiled automata) say the number is valid. This module does exactly that reading with numpy
over a fixed-width matrix of the texts' code points: shape, digit extraction, the ``(0)`` and
``00`` rules, the country code, the trunk prefix, the automata and the E.164 text, with no
per-text Python work. It follows ``_fastphones`` step by step for the plain cases (literal
reading; then parse()'s reading when the trunk rule is plain digits and the digits do not
start with the country code) and leaves every other text (a refusal, a ``(0)`` in an invalid
number, a transform rule, ...) to :func:`smskit.rules._fastphones.decide` and then to the
per-number path, so the answers stay the same (pinned by the differential tests of the array
path).
"""

from __future__ import annotations

from typing import Final

import numpy as np
import phonenumbers
from phonenumbers import ValidationResult

from smskit.rules._digitdfa import PAD
from smskit.rules._fastphones import (
    _DIGIT_ALTERNATIVES,
    _GENERAL,
    _IDD,
    _MAX_NSN,
    _NO_STRIP_LENGTH,
    _UNKNOWN,
    Decided,
    Vocabulary,
    _length_result,
    _main_region,
    _Plan,
    _plan,
    _possible_reason,
    region_types,
)

__all__ = ["express"]

WIDTH: Final = 24  # longer texts take the other paths (a plain number is never this long)
_PLUS, _OPEN, _CLOSE = ord("+"), ord("("), ord(")")
# Per byte: a digit or one of the separators a plain spelling may hold.
_ALLOWED: Final = np.zeros(256, dtype=bool)
_ALLOWED[[ord(c) for c in "0123456789 .-/()"]] = True
# Which 1-, 2- and 3-digit prefixes are country calling codes (phonenumbers' table).
_IS_CODE: Final = [np.zeros(10**k, dtype=bool) for k in (1, 2, 3)]
for _code in phonenumbers.COUNTRY_CODE_TO_REGION_CODE:
    _IS_CODE[len(str(_code)) - 1][_code] = True


def express(texts: list[str], region: str | None, words: Vocabulary) -> Decided:
    """Answers for canonical texts (stripped, not empty) read in ``region``; ``done`` is False
    where the other paths must decide."""
    n = len(texts)
    out = Decided.empty(n)
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=n)
    rows = np.flatnonzero((lengths >= 3) & (lengths <= WIDTH))
    if not len(rows):
        return out
    chars = (
        np.asarray(texts, dtype=object)[rows]
        .astype(f"U{WIDTH}")
        .view(np.uint32)
        .reshape(len(rows), WIDTH)
    )
    shaped, plus, plain, digits, count = _compact_digits(chars, lengths[rows])
    rows, plus, plain, digits, count = (a[shaped] for a in (rows, plus, plain, digits, count))
    two_zeros = ~plus & (digits[:, 0] == 0) & (digits[:, 1] == 0) & (count >= 2)
    intl = np.flatnonzero(plus | two_zeros)
    offset = np.where(two_zeros[intl], 2, 0)
    moved = _gather(digits[intl], offset, count[intl] - offset)
    out.put(
        rows[intl],
        _international(moved, count[intl] - offset, plain[intl], region, words),
    )
    if region is not None:
        home = np.flatnonzero(~(plus | two_zeros))
        out.put(rows[home], _national(digits[home], count[home], plain[home], region, words))
    return out


def _compact_digits(
    chars: np.ndarray, lengths: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Texts of the plain shapes, whether each starts with ``+``, whether it has no ``(0)``,
    its digits once the separators and a ``(0)`` are dropped (left-aligned, padded with
    PAD), and their count.

    Plain shapes: digits with ``. - / ( )`` and spaces between them, a leading ``+`` or ``(``
    and a trailing ``)``; at least 3 digits. Anything else is for the other paths.
    """
    inside = np.arange(WIDTH) < lengths[:, None]
    # One byte per character: any code point past 255 is "other" (never a digit or separator).
    chars = np.minimum(chars, 255).astype(np.uint8)
    is_digit = (chars >= 48) & (chars <= 57)
    plus = chars[:, 0] == _PLUS
    allowed = _ALLOWED[chars]
    allowed[:, 0] |= plus
    first = np.argmax(is_digit, axis=1)
    last = lengths - 1
    at_last = np.take_along_axis(chars, last[:, None], axis=1)[:, 0]
    before_last = np.take_along_axis(chars, np.maximum(last - 1, 0)[:, None], axis=1)[:, 0]
    ends_in_digit = (at_last >= 48) & (at_last <= 57)
    closed = (at_last == _CLOSE) & (before_last >= 48) & (before_last <= 57)
    shaped = (
        np.all(allowed | ~inside, axis=1)
        & ((first == 0) | ((first == 1) & (plus | (chars[:, 0] == _OPEN))))
        & (ends_in_digit | closed)
        & (is_digit.sum(axis=1) >= 3)
    )
    # The per-number path drops every "(0)" (a trunk prefix written after the country code).
    trunk_zero = (chars[:, :-2] == _OPEN) & (chars[:, 1:-1] == 48) & (chars[:, 2:] == _CLOSE)
    kept = is_digit.copy()
    kept[:, 1:-1] &= ~trunk_zero
    # Each kept digit moves to its rank among its row's kept digits; the others to a spare
    # last column, dropped after.
    rank = np.where(kept, np.cumsum(kept, axis=1, dtype=np.int8) - 1, WIDTH)
    count = kept.sum(axis=1)
    digits = np.full((len(chars), WIDTH + 1), PAD, dtype=np.uint8)
    np.put_along_axis(digits, rank.astype(np.intp), chars - 48, axis=1)
    digits = np.ascontiguousarray(digits[:, :WIDTH])
    return shaped, plus, ~trunk_zero.any(axis=1), digits, count


def _gather(digits: np.ndarray, start: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Per row, ``size`` digits from ``start`` on, left-aligned and padded with PAD."""
    width = digits.shape[1]
    out = np.full_like(digits, PAD)
    # A few distinct starts (the length of a code or prefix): one slice copy each.
    for shift in np.unique(start).tolist():
        rows = start == shift
        out[rows, : width - shift] = digits[rows, shift:]
    return np.where(np.arange(width) < size[:, None], out, np.uint8(PAD))


def _starts_with(digits: np.ndarray, count: np.ndarray, prefix: str) -> np.ndarray:
    wanted = np.array([int(c) for c in prefix], dtype=np.uint8)
    return (count >= len(wanted)) & np.all(digits[:, : len(wanted)] == wanted, axis=1)


def _split_code(digits: np.ndarray, total: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """_fastphones._split_code: the shortest country code starting the digits (0 when none, or
    when they start with 0), and its length."""
    d = digits[:, :3].astype(np.int64)
    one = d[:, 0]
    two = one * 10 + d[:, 1]
    three = two * 10 + d[:, 2]
    is_one = _IS_CODE[0][one % 10] & (total >= 1)
    is_two = _IS_CODE[1][two % 100] & (total >= 2)
    is_three = _IS_CODE[2][three % 1000] & (total >= 3)
    size = np.where(is_one, 1, np.where(is_two, 2, np.where(is_three, 3, 0)))
    size[one == 0] = 0
    code = np.select([size == 1, size == 2, size == 3], [one, two, three], 0)
    return code, size


def _international(
    digits: np.ndarray,
    total: np.ndarray,
    plain: np.ndarray,
    region: str | None,
    words: Vocabulary,
) -> Decided:
    """``+`` then ``digits``: _fastphones._international where the text has no ``(0)`` (with
    one, only a valid literal reading)."""
    out = Decided.empty(len(digits))
    code, size = _split_code(digits, total)
    rest = total - size
    head = np.take_along_axis(digits, np.minimum(size, digits.shape[1] - 1)[:, None], axis=1)
    literal = np.flatnonzero(
        (code != 0) & (total >= 3) & (total <= _MAX_NSN) & (rest > 0) & (head[:, 0] != 0)
    )
    nsn = _gather(digits[literal], size[literal], rest[literal])
    first = _verdict(code[literal], nsn, rest[literal], words)
    good = first.done & first.valid
    out.put(literal[good], first, np.flatnonzero(good))
    unknown = ~out.done & plain & (code == 0) & (total > 2) & (digits[:, 0] != 0)
    if region is None:
        _refuse_code(out, np.flatnonzero(unknown))
    elif (reader := _plan(region)) is not None:
        at = np.flatnonzero(unknown)
        _refuse_code(out, at[(reader.automaton.masks(digits[at]) >> _IDD) & 1 == 0])
    parse = np.flatnonzero(~out.done & plain & (code != 0) & (rest >= 2) & (total > 2))
    for one, where in _groups(code[parse]):
        main = phonenumbers.region_code_for_country_code(one)
        plan = _plan(main) if len(main) == 2 else None
        at = parse[where]
        numbers = _gather(digits[at], size[at], rest[at])
        stripped = _strip(plan, numbers, rest[at], check_length=True)
        if stripped is None:
            continue
        national, length = stripped
        fits = (length >= 2) & (length <= _MAX_NSN)
        verdict = _verdict(np.full(int(fits.sum()), one), national[fits], length[fits], words)
        out.put(at[fits], verdict)
    return out


def _refuse_code(out: Decided, rows: np.ndarray) -> None:
    out.done[rows] = True
    out.reason[rows] = "invalid_country_code"


def _national(
    digits: np.ndarray,
    count: np.ndarray,
    plain: np.ndarray,
    region: str,
    words: Vocabulary,
) -> Decided:
    """National digits: _fastphones._national where the trunk rule is plain digits and the
    digits do not start with the country code (those are left undecided)."""
    out = Decided.empty(len(digits))
    plan = _plan(region)
    if plan is None:
        return out
    first = Decided.empty(len(digits))
    if plan.plain_trunk:
        prefix = plan.national_prefix
        trunk = _starts_with(digits, count, prefix) if prefix else np.zeros(len(digits), bool)
        other = np.zeros(len(digits), dtype=bool)
        for alternative in plan.trunk:
            other |= _starts_with(digits, count, alternative)
        skip = np.where(trunk, len(prefix or ""), 0)
        size = count - skip
        head = np.take_along_axis(digits, np.minimum(skip, WIDTH - 1)[:, None], axis=1)[:, 0]
        literal = np.flatnonzero((trunk | ~other) & (size >= 1) & (size <= _MAX_NSN) & (head != 0))
        nsn = _gather(digits[literal], skip[literal], size[literal])
        read = _verdict(np.full(len(literal), plan.code), nsn, size[literal], words)
        good = read.done & read.valid
        first.put(literal[good], read, np.flatnonzero(good))
    rest = np.flatnonzero(~first.done & plain & (count >= 3) & (count <= _MAX_NSN))
    rest = rest[(plan.automaton.masks(digits[rest]) >> _IDD) & 1 == 0]
    own_code = _starts_with(digits[rest], count[rest], str(plan.code))
    for at, meta, numbers, size in (
        (rest[~own_code], plan, digits[rest[~own_code]], count[rest[~own_code]]),
        *_after_own_code(plan, rest[own_code], digits, count),
    ):
        stripped = _strip(meta, numbers, size, check_length=True)
        if stripped is None:
            continue
        national, length = stripped
        fits = (length >= 2) & (length <= _MAX_NSN)
        verdict = _verdict(np.full(int(fits.sum()), plan.code), national[fits], length[fits], words)
        first.put(at[fits], verdict)
    settled = first.done & (first.valid | (digits[:, 0] == 0))
    out.put(np.flatnonzero(settled), first, np.flatnonzero(settled))
    retry = np.flatnonzero(first.done & ~settled)
    if len(retry):
        second = _international(digits[retry], count[retry], plain[retry], None, words)
        take_second = second.done & second.valid
        out.put(retry[take_second], second, np.flatnonzero(take_second))
        keep_first = second.done & ~second.valid
        out.put(retry[keep_first], first, retry[keep_first])
    return out


def _after_own_code(
    plan: _Plan, rows: np.ndarray, digits: np.ndarray, count: np.ndarray
) -> list[tuple[np.ndarray, _Plan, np.ndarray, np.ndarray]]:
    """parse() of national digits that start with the region's country code: the digits
    after it, trunk prefix stripped, when only those fit the general pattern or the whole is
    too long (then read with the code's main region), else the whole; as (rows, plan,
    numbers, lengths) groups. Rows whose rule this lane does not follow are left out."""
    whole, size = digits[rows], count[rows]
    skip = len(str(plan.code))
    tail = _gather(whole, np.full(len(rows), skip), size - skip)
    after = _strip(plan, tail, size - skip, check_length=False)
    main = phonenumbers.region_code_for_country_code(plan.code)
    main_plan = _plan(main) if len(main) == 2 else None
    if after is None or main_plan is None:
        return []
    potential, potential_size = after
    lengths = np.array([_length_result(plan.region, k) for k in range(WIDTH + 1)])
    switch = (~_general(plan, whole) & _general(plan, potential)) | (
        lengths[size] == ValidationResult.TOO_LONG
    )
    return [
        (rows[~switch], plan, whole[~switch], size[~switch]),
        (rows[switch], main_plan, potential[switch], potential_size[switch]),
    ]


def _general(plan: _Plan, numbers: np.ndarray) -> np.ndarray:
    """phonenumbers' _match_national_number on the general description (no lengths)."""
    return (plan.automaton.masks(numbers) >> _GENERAL) & 1 == 1


def _strip(
    plan: _Plan | None, numbers: np.ndarray, size: np.ndarray, *, check_length: bool
) -> tuple[np.ndarray, np.ndarray] | None:
    """_Plan.strip, or with ``check_length`` _fastphones._strip_if_possible, for a plain
    trunk rule (digit alternatives, no transform); None for any other rule (the other paths
    read those)."""
    if plan is None or plan.transform:
        return None
    if not plan.parsing:
        return numbers, size
    if _DIGIT_ALTERNATIVES.fullmatch(plan.parsing) is None:
        return None
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
        lengths = np.array([_length_result(plan.region, k) for k in range(numbers.shape[1] + 1)])
        use &= ~np.isin(lengths, list(_NO_STRIP_LENGTH))[size - cut]
    return np.where(use[:, None], candidates, numbers), np.where(use, size - cut, size)


def _verdict(codes: np.ndarray, nsn: np.ndarray, size: np.ndarray, words: Vocabulary) -> Decided:
    """_fastphones._judge for whole matrices: spec type (stage_and_screen first), region,
    is_possible reason when invalid; not done for a code whose metadata needs parse()."""
    out = Decided.empty(len(codes))
    names = _names(words)
    for code, group in _groups(codes):
        plans = [_plan(r) for r in phonenumbers.COUNTRY_CODE_TO_REGION_CODE.get(code, ())]
        if not plans or any(p is None for p in plans):
            continue
        found, types = region_types(plans, nsn[group], size[group])  # type: ignore[arg-type]
        e164 = _e164(code, nsn[group])
        kinds = names[types]
        if code in (1, 44):  # the only codes with regulator drama ranges
            stage = np.fromiter(map(words.is_stage, e164.tolist()), dtype=bool, count=len(group))
            kinds[stage] = "stage_and_screen"
        valid = kinds != "bad_format"
        out.done[group] = True
        out.kind[group] = kinds
        out.e164[group[valid]] = e164[valid]
        out.region[group] = _main_region(code)
        own = valid & (found != None)  # noqa: E711  (elementwise)
        out.region[group[own]] = found[own]
        out.reason[group[valid]] = "ok"
        bad = group[~valid]
        for length, at in _groups(size[bad]):
            out.reason[bad[at]] = words.possible_reasons[_possible_reason(code, length)]
    return out


def _groups(keys: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """Each distinct key with the positions holding it (one sort, not one scan per key)."""
    if not len(keys):
        return []
    order = np.argsort(keys, kind="stable")
    distinct, starts = np.unique(keys[order], return_index=True)
    return list(zip(distinct.tolist(), np.split(order, starts[1:]), strict=True))


def _names(words: Vocabulary) -> np.ndarray:
    """Spec type names indexed by phonenumbers' line type (``bad_format`` for UNKNOWN)."""
    names = np.full(max(max(words.type_names), _UNKNOWN) + 1, "bad_format", dtype=object)
    for kind, name in words.type_names.items():
        names[int(kind)] = name
    names[_UNKNOWN] = "bad_format"
    return names


def _e164(code: int, nsn: np.ndarray) -> np.ndarray:
    """``+``, the code and each national number, as Python strings."""
    head = np.frombuffer(f"+{code}".encode(), dtype=np.uint8)
    width = len(head) + nsn.shape[1]
    text = np.zeros((len(nsn), width), dtype=np.uint8)
    text[:, : len(head)] = head
    text[:, len(head) :] = np.where(nsn == PAD, 0, nsn + 48)
    return text.view(f"S{width}").ravel().astype(f"U{width}").astype(object)
