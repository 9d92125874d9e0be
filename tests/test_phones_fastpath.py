"""The array path of phones.normalize gives the per-number path's answers (issue #15 item 2)."""

from __future__ import annotations

import random
import re

import numpy as np
import phonenumbers
from hypothesis import given, settings
from hypothesis import strategies as st
from phonenumbers import PhoneNumberFormat, PhoneNumberType

from smskit.rules import _phonematrix, _phoneplan, phonecheck, phones
from smskit.rules._digitdfa import DigitAutomaton
from smskit.rules.spec import PHONE_NUMBER_TYPE

REGIONS = sorted(phonenumbers.SUPPORTED_REGIONS)
KINDS = tuple(PhoneNumberType.values())  # every line type the metadata knows
FORMATS = (PhoneNumberFormat.E164, PhoneNumberFormat.INTERNATIONAL, PhoneNumberFormat.NATIONAL)


def _spelling(rng: random.Random) -> tuple[str, str | None]:
    """A number of a random region and type, changed a little and spelled some usual way,
    with the region it is read in (its own, another, or none)."""
    region = rng.choice(REGIONS)
    example = phonenumbers.example_number_for_type(region, rng.choice(KINDS))
    example = example or phonenumbers.example_number(region)
    reader: str | None = rng.choice([region, region, region, rng.choice(REGIONS), None])
    if example is None:
        return f"+{rng.randrange(1, 999)}{rng.randrange(10**8)}", reader
    digits = list(str(example.national_number))
    for _ in range(rng.choice([0, 0, 1, 2])):  # another subscriber in the same block
        digits[rng.randrange(len(digits))] = rng.choice("0123456789")
    roll = rng.random()
    if roll < 0.1:
        digits = digits[: rng.randrange(1, len(digits) + 1)]  # truncated
    elif roll < 0.2:
        digits += rng.choices("0123456789", k=rng.randrange(1, 4))  # too long
    number = phonenumbers.PhoneNumber(
        country_code=example.country_code,
        national_number=int("".join(digits)),
        italian_leading_zero=example.italian_leading_zero,
        number_of_leading_zeros=example.number_of_leading_zeros,
    )
    text = phonenumbers.format_number(number, rng.choice(FORMATS))
    shape = rng.random()
    if shape < 0.15:
        text = text.replace("+", "00", 1)
    elif shape < 0.3:
        text = text.lstrip("+")  # spreadsheets drop the "+"
    elif shape < 0.4:
        text = text.replace(" ", rng.choice([".", "-", "/", ""]))
    return text, reader


def _decoded(lane: _phonematrix.Coded, i: int) -> tuple[object, ...]:
    """The lane's codes of row ``i`` as the per-number path's words."""
    e164, reason, region = int(lane.e164[i]), int(lane.reason[i]), int(lane.region[i])
    return (
        f"+{e164}" if e164 else None,
        phonecheck.REASONS[reason] if reason >= 0 else None,
        _phonematrix.REGIONS[region] if region >= 0 else None,
        PHONE_NUMBER_TYPE[int(lane.kind[i])],
    )


def _per_number(texts: list[str], regions: list[str | None]) -> list[tuple[object, ...]]:
    read = phonecheck._classify_uncached
    return [tuple(read(t, r)) for t, r in zip(texts, regions, strict=True)]


def _array_path(texts: list[str], regions: list[str | None]) -> list[tuple[object, ...]]:
    frame = phones.normalize(texts, default_region=None, region=regions)
    columns = ["e164", "valid", "reason", "region", "type"]
    rows = frame[columns].astype(object).where(frame[columns].notna(), None)
    return [tuple(row) for row in rows.itertuples(index=False)]


def test_array_path_equals_per_number_path_over_many_countries() -> None:
    """8,000 random numbers of every region, in many spellings: 0 differences, and the lane
    decides most of them (the per-number path is the fallback, not the rule)."""
    rng = random.Random(15)
    drawn = [_spelling(rng) for _ in range(8_000)]
    texts = [t for t, _ in drawn]
    regions = [r for _, r in drawn]
    assert _array_path(texts, regions) == _per_number(texts, regions)
    decided = 0
    for region in set(regions):
        subset = [t for t, r in drawn if r == region]
        decided += int(_phonematrix.express(subset, region, phones._WORDS).done.sum())
    assert decided > 0.9 * len(drawn)


def test_matrix_lane_answers_as_the_per_number_path() -> None:
    """What the whole-array lane decides on its own (6,000 random numbers of every region, no
    fallback behind it) is the per-number path's answer, and it decides most of them."""
    rng = random.Random(2026)
    drawn = [_spelling(rng) for _ in range(6_000)]
    decided = 0
    for region in {r for _, r in drawn}:
        texts = sorted({t for t, r in drawn if r == region})
        lane = _phonematrix.express(texts, region, phones._WORDS)
        at = np.flatnonzero(lane.done).tolist()
        answers = [_decoded(lane, i) for i in at]
        expected = [phonecheck._classify_uncached(texts[i], region) for i in at]
        assert answers == [(c.e164, c.reason, c.region, c.type) for c in expected]
        decided += len(at)
    assert decided > 0.6 * len(drawn)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 50))
def test_array_path_equals_per_number_path_property(seed: int, size: int) -> None:
    """Any seed, any batch size: the array path and the per-number path agree."""
    rng = random.Random(seed)
    drawn = [_spelling(rng) for _ in range(size)]
    texts = [t for t, _ in drawn]
    regions = [r for _, r in drawn]
    assert _array_path(texts, regions) == _per_number(texts, regions)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(REGIONS),
    st.lists(st.text("0123456789", min_size=1, max_size=17), max_size=30),
)
def test_automaton_matches_like_re_fullmatch(region: str, numbers: list[str]) -> None:
    """A region's compiled patterns say what re.fullmatch says, pattern by pattern."""
    meta = phonenumbers.PhoneMetadata.metadata_for_region(region)
    descs = [getattr(meta, name) for name in _phoneplan.DESCS]
    patterns = [d.national_number_pattern if d else None for d in descs]
    automaton = DigitAutomaton(patterns)
    for length in {len(n) for n in numbers}:
        group = [n for n in numbers if len(n) == length]
        digits = np.array([[int(c) for c in n] for n in group], dtype=np.uint8)
        for number, mask in zip(group, automaton.masks(digits).tolist(), strict=True):
            expected = [bool(p) and re.fullmatch(p, number) is not None for p in patterns]
            assert [bool(mask >> i & 1) for i in range(len(patterns))] == expected


def test_single_digits_agree_with_the_per_number_path() -> None:
    """One or two digits read as parse() reads them in any region, the array path included (seed
    2895 of the property once found '0' read as an invalid country code without a region)."""
    texts = ["0", "5", "+1", "(0)", "00", "0 1", "01", "+33"]
    for region in (None, "FR", "GB"):
        regions: list[str | None] = [region] * len(texts)
        assert _array_path(texts, regions) == _per_number(texts, regions)


def test_every_valid_number_fits_the_lanes_integer() -> None:
    """The lane keeps E.164 as an int64 of its digits: the longest valid number of every
    country code in the metadata (code, then its longest possible national number of 9s)
    stays below int64's limit, so no valid number can wrap around."""
    for region in phonenumbers.SUPPORTED_REGIONS:
        meta = phonenumbers.PhoneMetadata.metadata_for_region(region)
        longest = max(
            (
                max(d.possible_length)
                for name in _phoneplan.DESCS
                if (d := getattr(meta, name)) and d.possible_length
            ),
            default=0,
        )
        largest = int(f"{meta.country_code}{'9' * longest}")
        assert largest < 2**63, region
