"""The sandbox bills exactly what smskit.rules.text computes (its fast path included)."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from smskit import text
from smskit.sandbox._domain import final_text

PLAIN = [*"abcXYZ019 .,!?'\"%-@$_éÄ"]
# Characters that make optimize() change the text or force UCS-2 / escape pairs.
SPECIAL = ["  ", "\n", "\r\n", "\u2019", "\u00a0", "€", "ç", "Ж", "\t", "\u200b", "[", "😀"]
TEXTS = st.one_of(
    st.lists(st.sampled_from(PLAIN), min_size=1, max_size=480).map("".join),
    st.lists(st.sampled_from(PLAIN + SPECIAL), min_size=1, max_size=200).map("".join),
)


@settings(max_examples=500, deadline=None, derandomize=True)
@given(TEXTS, st.booleans())
@example("a" * 160, True)
@example("a" * 161, True)
@example("a" * 306, True)
@example("a" * 307, False)
@example("a" * 459, True)
@example("a" * 460, False)
@example("a b" * 102, False)
@example(" a", True)
@example("a ", True)
def test_final_text_matches_the_text_engine(sample: str, optimize: bool) -> None:
    """final_text() equals optimize().text (when on) and analyze().segments, for any text."""
    expected = text.optimize(sample).text if optimize else sample
    assert final_text(sample, optimize) == (expected, text.analyze(expected).segments)
