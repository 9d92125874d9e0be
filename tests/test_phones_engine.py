"""The phone engine's own readers of phonenumbers' data, pinned to phonenumbers and ``re``.

The engine reads phonenumbers' per-region patterns with its own digit-pattern parser (not
``re``'s private parser) and its length rule from the public metadata (not phonenumbers'
private ``_test_number_length``). These tests say loudly when either reading drifts.
"""

from __future__ import annotations

import itertools
import re

import numpy as np
import phonenumbers
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phonenumbers import PhoneMetadata, PhoneNumber, PhoneNumberType

from smskit.rules import _phoneplan
from smskit.rules._digitdfa import PAD, DigitAutomaton, Unsupported, digit_matrix, parse

# Every digit string of 0 to 4 digits: a small pattern is decided on all of them.
SHORT_NUMBERS = [""] + [
    "".join(p) for n in range(1, 5) for p in itertools.product("0123456789", repeat=n)
]


def _digit_patterns() -> st.SearchStrategy[str]:
    """Patterns of the subset phonenumbers uses: digits, classes, groups, |, repeats."""
    atom = st.one_of(
        st.sampled_from("0123456789"),
        st.just(r"\d"),
        st.builds(
            lambda neg, a, b: f"[{'^' if neg else ''}{min(a, b)}-{max(a, b)}]",
            st.booleans(),
            st.integers(0, 9),
            st.integers(0, 9),
        ),
    )

    def grow(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        group = st.builds(lambda a, b: f"(?:{a}|{b})", inner, inner)
        capture = st.builds(lambda a: f"({a})", inner)
        seq = st.builds(lambda a, b: a + b, inner, inner)
        repeat = st.builds(
            lambda a, q: f"(?:{a}){q}", inner, st.sampled_from(["?", "{2}", "{0,2}", "{1,}", "??"])
        )
        return st.one_of(group, capture, seq, repeat)

    return st.recursive(atom, grow, max_leaves=6)


@settings(max_examples=150, deadline=None)
@given(pattern=_digit_patterns())
def test_automaton_full_matches_exactly_what_re_fullmatch_does(pattern: str) -> None:
    """Own parser + automaton == re.fullmatch on every digit string of up to 4 digits."""
    automaton = DigitAutomaton([pattern])
    nonempty = SHORT_NUMBERS[1:]
    digits, _lengths = digit_matrix(nonempty)
    matched = (automaton.masks(digits) & 1).astype(bool)
    expected = np.array([re.fullmatch(pattern, n) is not None for n in nonempty])
    assert (matched == expected).all(), pattern


@pytest.mark.parametrize(
    "pattern",
    [r"^1", r"1$", r"(?=1)1", r"(?!2)1", r"(1)\1", r"a", r".", r"\w", r"(?i)1", r"1*+", r"[\w]"],
)
def test_constructs_outside_the_subset_are_refused(pattern: str) -> None:
    """Anchors, look-arounds, back-references, letters, flags, possessive repeats: refused."""
    with pytest.raises(Unsupported):
        parse(pattern)


def test_every_pattern_of_phonenumbers_is_read() -> None:
    """Every region's patterns parse: a new construct in phonenumbers' data fails here by name."""
    refused = {}
    for region in sorted(phonenumbers.SUPPORTED_REGIONS):
        meta = PhoneMetadata.metadata_for_region(region)
        assert meta is not None
        for name in _phoneplan.DESCS:
            desc = getattr(meta, name)
            pattern = desc.national_number_pattern if desc is not None else None
            if pattern:
                try:
                    parse(pattern)
                except Unsupported as exc:
                    refused[(region, name)] = f"{pattern[:40]}: {exc}"
    assert refused == {}


def test_length_rule_equals_phonenumbers_public_possibility_check() -> None:
    """The length verdict read from metadata == is_possible_number_for_type_with_reason."""
    compared = 0
    for code, regions in phonenumbers.COUNTRY_CODE_TO_REGION_CODE.items():
        region = regions[0]
        if PhoneMetadata.metadata_for_region(region) is None:
            continue  # non-geographic ("001"): the engine has no plan there
        for length in range(1, 19):
            number = PhoneNumber(country_code=code, national_number=int("1" * length))
            public = phonenumbers.is_possible_number_for_type_with_reason(
                number, PhoneNumberType.UNKNOWN
            )
            assert _phoneplan.length_result(region, length) == int(public), (region, length)
            compared += 1
    assert compared > 3000


def test_every_trunk_transform_rule_writes_only_digits() -> None:
    """Transform rules are digits and group references: the lane's row-by-row strip keeps
    digit strings (a rule writing anything else would fail here, naming its region)."""
    odd = {}
    for region in sorted(phonenumbers.SUPPORTED_REGIONS):
        meta = PhoneMetadata.metadata_for_region(region)
        assert meta is not None
        rule = meta.national_prefix_transform_rule
        if rule and re.fullmatch(r"(?:[0-9]|\\[1-9])+", rule) is None:
            odd[region] = rule
    assert odd == {}


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["FR", "GB", "US", "DE", "IT", "BR", "IN", "CN"]),
    st.lists(st.text("0123456789", min_size=1, max_size=20), min_size=1, max_size=60),
)
def test_type_table_answers_as_types_of_each_mask(region: str, numbers: list[str]) -> None:
    """The types read from a plan's table (one row a final state, one column a length) are
    the types phonenumbers' helper chain gives each number's mask and length."""
    plan = _phoneplan.plan_for(region)
    assert plan is not None
    digits, lengths = digit_matrix(numbers)
    states = plan.automaton.states(digits)
    table = plan.type_table()
    from_table = table[states, np.minimum(lengths, table.shape[1] - 1)]
    assert from_table.tolist() == plan.types(plan.automaton.masks(digits), lengths).tolist()
    found, types = _phoneplan.region_types([plan], digits, lengths)
    assert types.tolist() == from_table.tolist() and (found == 0).all()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text("0123456789", max_size=6), min_size=1, max_size=40))
def test_country_code_split_is_the_shortest_known_code(numbers: list[str]) -> None:
    """The lane's country code of each digit string (its digits padded as the lane pads
    them) is the shortest of its first 1-3 digits that phonenumbers knows as a calling code,
    none when the string starts with 0 or no prefix is one."""
    from smskit.rules import _phonematrix

    digits, lengths = digit_matrix(numbers)
    if digits.shape[1] < 3:
        digits = np.pad(digits, ((0, 0), (0, 3 - digits.shape[1])), constant_values=PAD)
    codes, sizes = _phonematrix._split_code(digits, lengths)
    for number, code, size in zip(numbers, codes.tolist(), sizes.tolist(), strict=True):
        known = [
            k
            for k in (1, 2, 3)
            if len(number) >= k
            and not number.startswith("0")
            and int(number[:k]) in phonenumbers.COUNTRY_CODE_TO_REGION_CODE
        ]
        expected = (int(number[: known[0]]), known[0]) if known else (0, 0)
        assert (code, size) == expected, number
