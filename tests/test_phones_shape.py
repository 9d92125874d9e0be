"""The lane's plain-shape check read from the bytes answers as the RE2 match it replaced."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

from smskit.rules import _phonematrix

# The characters that decide a shape, with a few that never belong to one.
ALPHABET = "0123456789+() ./-\n\tx\u00e9\u0663"
TEXTS = st.lists(st.text(alphabet=ALPHABET, max_size=12), max_size=40)


def _answers(values: pa.Array) -> tuple[list[bool], list[bool], list[bool], list[bool]]:
    """The byte check and the RE2 reference over the same array: (shaped, plus) of each."""
    offsets, data = _phonematrix._buffers(values)
    shaped, plus = _phonematrix.plain_shape(offsets, data)
    expected = pc.match_substring_regex(values, _phonematrix._SHAPE).fill_null(False)
    starts = pc.starts_with(values, "+").fill_null(False)
    return (
        shaped.tolist(),
        expected.to_pylist(),
        plus.tolist(),
        starts.to_pylist(),
    )


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.sampled_from([pa.string(), pa.large_string()]))
def test_plain_shape_equals_the_regex(texts: list[str], kind: pa.DataType) -> None:
    """Every text (empty, one byte, non-ASCII, "+" or ")" anywhere) gets RE2's answer."""
    shaped, expected, plus, starts = _answers(pa.array(texts, type=kind))
    assert shaped == expected
    assert plus == starts


@settings(max_examples=100, deadline=None)
@given(TEXTS, st.integers(0, 40), st.integers(0, 40))
def test_plain_shape_of_a_slice_with_nulls(texts: list[str], start: int, size: int) -> None:
    """A sliced array with missing values: each text still answered as RE2 does, a missing
    one as no shape."""
    values = pa.array([None if i % 7 == 3 else t for i, t in enumerate(texts)], pa.string())
    part = values.slice(min(start, len(values)), size)
    shaped, expected, _, _ = _answers(part)
    nulls = part.is_null().to_numpy(zero_copy_only=False)
    assert shaped == [e and not n for e, n in zip(expected, nulls, strict=True)]
    assert not np.any(np.array(shaped, dtype=bool) & nulls)


def test_plain_shapes_named() -> None:
    """The usual spellings are plain shapes; blanks at the ends, letters and a "+" inside
    are not."""
    values = pa.array(
        ["06 12 34 56 78", "+33 (0)6 12", "(201) 555-0123", "5)", "(5", "+", "", " 0612",
         "06+12", "++33", "0612x", "()"]
    )  # fmt: skip
    shaped, expected, _, _ = _answers(values)
    assert shaped == [True, True, True, True, True, False, False, False, False, False, False,
                      False]  # fmt: skip
    assert shaped == expected
