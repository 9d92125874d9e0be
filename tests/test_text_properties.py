"""Property tests for smskit.rules.text: invariants that must hold for any text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smskit.errors import ValidationError
from smskit.rules import gsm as _gsm
from smskit.rules import text as text_module
from smskit.rules import textvec
from smskit.rules.batch import analyze_many
from smskit.rules.personalize import fields, render, render_texts
from smskit.rules.text import (
    OPTIMIZE_TABLE,
    analyze,
    optimize,
    optimize_text,
    ucs2_layout,
)

# Characters that exercise every rule: GSM-7 basic and extension, non-GSM BMP, astral,
# grapheme joiners (ZWJ, variation selector, skin tone, combining accent, regional
# indicators, Hangul jamo), CR/LF and the look-alikes optimize() replaces.
SPECIAL = list(
    "aZ0 @é\n\r€[]^{}|~\\\fç’“…–\u00a0\u200b\t жΑΔ😀👍\U0001f3fd\u200d\ufe0f\u0301"
    "\U0001f1eb\U0001f1f7\u1100\u1161\u11a8한\u0915\u094d"
)
chars = st.one_of(st.sampled_from(SPECIAL), st.characters(blacklist_categories=["Cs"]))
gsm_chars = st.sampled_from(list("abc XYZ019@£$é\n\r") + list("€[]^{}|~\\\f"))
texts = st.text(chars, max_size=400)
gsm_texts = st.text(gsm_chars, max_size=400)
# Long texts built from chunks, so that two-unit items and clusters often meet a boundary.
CHUNKS = [
    "a" * 10,
    "a",
    "ж" * 10,
    "ж",
    "€",
    "]",
    "😀",
    "\r\n",
    "e\u0301",
    "\u2764\ufe0f",
    "👍\U0001f3fd",
    "\U0001f468\u200d\U0001f469\u200d\U0001f467",
    "\U0001f1eb\U0001f1f7",
    "\u1100\u1161\u11a8",
    "\u0915\u094d\u0937",
]
chunked = st.lists(st.sampled_from(CHUNKS), min_size=5, max_size=120).map("".join)
gsm_chunked = st.lists(st.sampled_from(["a" * 10, "a", "€", "]", "\r\n"]), max_size=100).map(
    "".join
)
# A filler run ending just before a segment boundary, then a two-unit item or a cluster.
SPECIALS = [c for c in CHUNKS if c not in ("a" * 10, "a", "ж" * 10, "ж")]


def _near(filler: str, low: int, high: int) -> st.SearchStrategy[str]:
    return st.builds(
        lambda n, special, rest: filler * n + special + "".join(rest),
        st.integers(low, high),
        st.sampled_from(SPECIALS),
        st.lists(st.sampled_from(CHUNKS), max_size=8),
    )


near_boundary = st.one_of(
    _near("a", 149, 154), _near("a", 302, 307), _near("ж", 62, 68), _near("ж", 129, 135)
)

# Modest example counts keep the file fast; no deadline (the first call builds tables).
FAST = settings(max_examples=150, deadline=None)


@FAST
@given(st.one_of(texts, chunked, near_boundary), chars)
def test_appending_never_decreases_segments(text: str, char: str) -> None:
    """One more character never makes a text cheaper."""
    assert analyze(text + char).segments >= analyze(text).segments


@FAST
@given(st.one_of(gsm_texts, gsm_chunked), gsm_chars)
def test_appending_to_gsm7_never_decreases_segments(text: str, char: str) -> None:
    """Same invariant on long GSM-7 texts, where escape pairs meet the boundaries."""
    assert analyze(text + char).segments >= analyze(text).segments


@FAST
@given(gsm_texts)
def test_gsm7_never_costs_more_than_ucs2(text: str) -> None:
    """A GSM-7 text never needs more segments than the same text sent as UCS-2."""
    stats = analyze(text)
    assert stats.encoding == "GSM-7"
    assert stats.segments <= ucs2_layout(text)[1]


@FAST
@given(st.one_of(texts, chunked, near_boundary))
def test_units_and_capacity_are_consistent(text: str) -> None:
    """Units are septets or UTF-16 units; segments hold them; remaining is within a segment."""
    stats = analyze(text)
    if stats.encoding == "GSM-7":
        assert stats.units == len(text) + sum(ch in "€[]^{}|~\\\f" for ch in text)
    else:
        assert stats.units == len(text.encode("utf-16-le")) // 2
    assert stats.units <= stats.segments * stats.per_segment
    assert 0 <= stats.remaining <= stats.per_segment
    assert stats.segments >= -(-stats.units // stats.per_segment)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.one_of(near_boundary, chunked, gsm_chunked, texts, st.none(), st.integers()),
        max_size=30,
    )
)
def test_analyze_many_equals_analyze(items: list[object]) -> None:
    """The vectorised path gives exactly the per-text numbers, and nulls for non-strings."""
    frame = analyze_many(items)
    for i, item in enumerate(items):
        row = frame.iloc[i]
        if not isinstance(item, str):
            assert row.error == "must be a string"
            continue
        stats = analyze(item)
        assert (row.encoding, row.characters, row.units, row.segments, row.remaining) == (
            stats.encoding,
            stats.characters,
            stats.units,
            stats.segments,
            stats.remaining,
        )


@FAST
@given(texts)
def test_optimize_is_idempotent_and_never_costs_more(text: str) -> None:
    """Optimising twice changes nothing more, and never adds segments."""
    once = optimize(text)
    assert optimize(once.text).text == once.text
    assert once.segments_after <= once.segments_before
    assert not set(once.text) & set(OPTIMIZE_TABLE)


@FAST
@given(texts)
def test_optimize_replacements_rebuild_the_text(text: str) -> None:
    """Applying the reported replacements to the original gives the optimised text."""
    result = optimize(text)
    out, last = [], 0
    for position, original, new in result.replacements:
        assert text[position : position + len(original)] == original
        out += [text[last:position], new]
        last = position + len(original)
    assert "".join([*out, text[last:]]) == result.text


@FAST
@given(st.text(max_size=50), st.text(max_size=50), st.text(alphabet="ab {}", max_size=20))
def test_render_inserts_values_verbatim(first: str, last: str, literal: str) -> None:
    """Rendering inserts each value as given, once, between the literal parts."""
    template = literal.replace("{", "(").replace("}", ")") + "{first_name}|{last_name}"
    rendered = render(template, {"first_name": first, "last_name": last})
    assert rendered == template.replace("{first_name}|{last_name}", f"{first}|{last}")


field_values = st.text(max_size=50)
templates = st.lists(
    st.sampled_from(["{first_name}", "{param1}", "{", "}", "{{x}}", "{first_name", " ", "ab", "€"])
    | st.text(alphabet="ab {}€\n", max_size=6),
    max_size=8,
).map("".join)


@FAST
@given(templates, st.lists(st.tuples(field_values, field_values), max_size=6))
def test_render_texts_renders_each_row_as_render_does(
    template: str, rows: list[tuple[str, str]]
) -> None:
    """Rendering whole columns of values gives, row by row, what render gives each row
    (fields used twice, braces that are not fields, no field at all)."""
    try:
        fields(template)
    except ValidationError:  # a brace pair that names an unknown field: refused either way
        with pytest.raises(ValidationError):
            render_texts(template, {"first_name": [], "param1": []}, len(rows))
        return
    expected = [render(template, {"first_name": f, "param1": p}) for f, p in rows]
    columns = {"first_name": [f for f, _ in rows], "param1": [p for _, p in rows]}
    assert render_texts(template, columns, len(rows)) == expected


# Lengths drawn uniformly up to past the 1224 limit, so segment boundaries are hit often.
one_septet_texts = st.integers(0, 1300).flatmap(
    lambda n: st.text(st.sampled_from(sorted(_gsm.DEFAULT_BASIC)), min_size=n, max_size=n)
)


@settings(max_examples=300, deadline=None)
@given(one_septet_texts)
def test_one_septet_fast_path_equals_the_character_walk(text: str) -> None:
    """analyze()'s shortcut for one-septet texts gives exactly what the full walk gives."""
    assert analyze(text) == text_module._analyze_walk(text, None)


optimizable_texts = st.text(
    st.sampled_from(list("ab \n\r\t\u00a0\u200b\u2028\u00e7\u2019\u2026-")), max_size=40
)


@settings(max_examples=500, deadline=None)
@given(optimizable_texts)
def test_optimize_text_shortcut_never_skips_a_change(text: str) -> None:
    """optimize_text() returns a text untouched only when the full rewrite would not change it."""
    assert optimize_text(text) == text_module._rewrite(text)


def test_grapheme_bits_learnt_code_point_by_code_point_equal_one_scan_of_all() -> None:
    """The batch engine looks a code point's grapheme bits up the first time a text holds it;
    learnt in any order and any grouping, the tables equal a regex scan of every code point."""
    import numpy as np
    import regex

    tables = textvec.Tables()
    order = np.random.default_rng(0).permutation(0x110000)
    for part in np.array_split(order, 7):
        tables.learn(part)
    tables.learn(order[:1000])  # learnt already: nothing changes
    everything = np.arange(0x110000, dtype="<u4").tobytes().decode("utf-32-le", "surrogatepass")
    glue = np.zeros(0x110000, dtype=np.uint8)
    for bit, pattern in textvec._GLUE_CLASSES:
        glue[[m.start() for m in regex.finditer(pattern, everything)]] |= bit
    assert np.array_equal(tables.glue, glue)
    assert np.array_equal((tables.classes & textvec.JOINER) != 0, glue != 0)
    rest = np.uint8(0xFF ^ textvec.JOINER)  # the other bits do not depend on learning
    assert np.array_equal(tables.classes & rest, textvec.Tables().classes & rest)
