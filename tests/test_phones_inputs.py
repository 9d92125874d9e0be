"""phones.normalize reads every kind of input the same way (issue #15 item 2): Arrow-backed
strings, pyarrow and numpy arrays, object arrays mixing strings, numbers and every kind of
missing value; its answers are the per-number path's (phones.classify), value by value."""

from __future__ import annotations

import decimal
import random

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_phones_fastpath import _spelling

from smskit.rules import phonecheck, phones

COLUMNS = ["e164", "valid", "reason", "region", "type"]
MISSING = [None, float("nan"), np.nan, pd.NA, pd.NaT, np.float32("nan"), np.datetime64("NaT")]
# Values that are not text: read exactly (integers, integral floats) or refused with a reason.
NON_TEXT = [
    33612345678,
    np.int64(33612345678),
    np.uint64(447700900123),
    33612345678.0,
    np.float64(612345678.0),
    np.float32(1.5),
    1.5,
    float("inf"),
    -33612345678,
    True,
    np.bool_(False),
    decimal.Decimal("33612345678"),
    b"0612345678",
    ("06", "12"),
]


def _rows(frame: pd.DataFrame) -> list[tuple[object, ...]]:
    part = frame[COLUMNS].astype(object)
    return [tuple(row) for row in part.where(part.notna(), None).itertuples(index=False)]


def _per_value(values: list[object], region: str | None = "FR") -> list[tuple[object, ...]]:
    return [tuple(phonecheck.classify(v, region))[:5] for v in values]


# Spellings at the edge of the byte lane's plain shapes (blanks, floats, "(0)", signs, digits of
# other scripts): each must read as the per-number path reads it.
TRICKY = [
    " +33 (0)6 12 34 56 78 ",
    "33612345678.0",
    " 0612345678.00 ",
    "+33612345678.0",
    "06.12.34.56.78",
    "\t0612345678",
    "06 12 34 56 78\u00a0",
    "+33(0)612345678",
    "(0)612345678",
    "0(0)612345678",
    "((0))612345678",
    "+33 6 12 34 56 78 (0)",
    "\u0660\u0666\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668",
    "+ 33 6 12 34 56 78",
    "++33612345678",
    "(+33) 6 12 34 56 78",
    "06-12-34-56-78-",
    "(06) 12 34 56 78",
    "0612345678)",
    "00 33 6 12 34 56 78",
    "0033 (0) 6 12 34 56 78",
    "+1 (201) 555-0123",
    "1e10",
    "+4420 7946 0123",
    "061234567890123456789012345",
]


def _texts(seed: int, size: int) -> list[str | None]:
    rng = random.Random(seed)
    texts: list[str | None] = []
    for _ in range(size):
        roll = rng.random()
        if roll < 0.1:
            texts.append(None)
        elif roll < 0.2:
            texts.append(rng.choice(["", "  ", " 06 12 34 56 78 ", "n/a", "+33 6 12", "0033612"]))
        elif roll < 0.3:
            texts.append(rng.choice(TRICKY))
        else:
            texts.append(_spelling(rng)[0])
    texts += texts[: size // 3]  # repeats
    return texts


def _arrow_kinds(texts: list[str | None]) -> list[object]:
    return [
        pd.Series(texts, dtype="string"),
        pd.Series(texts, dtype="str"),
        pd.Series(texts, dtype=pd.ArrowDtype(pa.large_string())),
        pa.array(texts, type=pa.string()),
        pa.chunked_array([texts[:5], texts[5:]], type=pa.string()),
    ]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(6, 60))
def test_arrow_strings_read_as_the_per_number_path(seed: int, size: int) -> None:
    """Arrow-backed Series and pyarrow arrays of random spellings: each value's answer is
    phones.classify's, and the dtypes are those of an object input."""
    texts = _texts(seed, size)
    expected = _per_value(texts)
    reference = phones.normalize(pd.Series(texts, dtype=object))
    assert _rows(reference) == expected
    for values in _arrow_kinds(texts):
        frame = phones.normalize(values)
        assert _rows(frame) == expected, type(values)
        assert frame[COLUMNS].dtypes.tolist() == reference[COLUMNS].dtypes.tolist()
        assert frame["input"].tolist() == pd.Series(values).tolist()
    # A slice of an Arrow array starts inside its buffers.
    assert _rows(phones.normalize(pa.array(texts)[2:])) == expected[2:]


def test_numpy_arrays_read_as_their_values() -> None:
    """A numpy array of texts, of integers or of floats reads as the list of its values."""
    for values in (
        np.array(["0612345678", " +44 7700 900123", "06 12"]),
        np.array([33612345678, 447700900123, 12]),
        np.array([33612345678.0, np.nan, 1.5]),
    ):
        assert _rows(phones.normalize(values)) == _per_value(values.tolist())


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.integers(-(10**15), 10**15),
            st.sampled_from([33612345678, 612345678, 447700900123, 12025550123, 0, -1]),
        ),
        min_size=1,
        max_size=40,
    ),
    st.lists(st.sampled_from([np.nan, 1.5, 2.0**60, -33612345678.0, float("inf")]), max_size=5),
)
def test_number_columns_read_as_their_values(ints: list[int], odd: list[float]) -> None:
    """Numbers as a spreadsheet column gives them (int64, nullable Int64, float64 with blanks,
    fractions, huge and negative values), read from their digits whole-array: each answer is
    phones.classify's of the value."""
    floats = [float(i) for i in ints if abs(i) < 2**53] + odd
    nullable = pd.array([*ints, None], dtype="Int64")
    for values, as_values in (
        (pd.Series(ints, dtype="int64"), ints),
        (pd.Series(nullable), [*ints, None]),
        (pd.Series(floats, dtype="float64"), floats),
        (np.array(ints, dtype=np.int64), ints),
    ):
        assert _rows(phones.normalize(values)) == _per_value(as_values)


def test_objects_of_every_kind_read_or_refused_as_one_by_one() -> None:
    """Strings, integers, integral and other floats, booleans, decimals, bytes, tuples and
    every kind of missing value in one object array: each answer is phones.classify's."""
    values: list[object] = ["06 12 34 56 78", *MISSING, *NON_TEXT, "+33612345678"]
    frame = phones.normalize(pd.Series(values, dtype=object))
    assert _rows(frame) == _per_value(values)
    reasons = frame["reason"].tolist()
    assert reasons[1 : 1 + len(MISSING)] == ["empty"] * len(MISSING)
    refused = {repr(v): r for v, r in zip(values, reasons, strict=True) if r != "ok"}
    assert refused["1.5"] == refused["inf"] == refused["True"] == "not_a_number"
    assert refused["-33612345678"] == "misplaced_sign"


def test_missing_values_in_arrow_input_are_empty() -> None:
    """A null in Arrow strings, a blank and a missing region are empty or read in the default."""
    values = pa.array([None, " ", "0612345678"], type=pa.string())
    regions = pd.Series([None, "GB", None], dtype="string")
    frame = phones.normalize(values, region=regions)
    assert frame["reason"].tolist() == ["empty", "empty", "ok"]
    assert frame["e164"].tolist()[2] == "+33612345678"


def test_normalize_distinct_is_normalize_by_codes() -> None:
    """normalize_distinct's table taken by its codes is normalize's frame, for Python and Arrow
    input, with and without per-row regions. Strings (pandas keeps a list of them as Arrow
    strings) of plain shapes get a table row each (read from their bytes, unhashed), the
    others one per distinct (value, region)."""
    texts = _texts(7, 300)
    regions = [random.Random(i).choice([None, "FR", "GB", "US"]) for i in range(len(texts))]
    for values in (texts, pd.Series(texts, dtype="str")):
        for region in (None, regions):
            frame = phones.normalize(values, region=region)
            codes, table = phones.normalize_distinct(values, region=region)
            assert codes.dtype == np.int32 and len(codes) == len(texts)
            taken = table.take(codes).reset_index(drop=True)
            pd.testing.assert_frame_equal(taken, frame[COLUMNS])
            pairs = {(t, r if region else None) for t, r in zip(texts, regions, strict=True)}
            assert len(pairs) <= len(set(codes.tolist())) <= len(texts)


def test_arrow_strings_become_python_strings_once_per_distinct_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Arrow input: values of the plain shapes are read from their bytes (no Python string);
    of the others only distinct values reach the per-value cleaning, never one per row."""
    seen: list[int] = []
    original = phones._to_texts

    def counting(values: np.ndarray) -> list[str | None]:
        seen.append(len(values))
        return original(values)

    monkeypatch.setattr(phones, "_to_texts", counting)
    other = ["\t06 12 34 56 79", "33612345670.0"]  # a tab, a float's text: not plain
    values = pd.Series(["06 12 34 56 78", "+33612345678", None, *other] * 1000, dtype="str")
    frame = phones.normalize(values)
    assert seen == [2]
    assert frame["valid"].sum() == 4000
    assert frame["e164"].iloc[3:5].tolist() == ["+33612345679", "+33612345670"]


@pytest.mark.parametrize("missing", [None, float("nan"), pd.NA])
def test_a_region_column_of_missing_values_reads_in_the_default_region(missing: object) -> None:
    """Rows whose region is missing read in the default region, whole column missing too."""
    values = ["06 12 34 56 78", "+44 7911 123456", "0612", "612345678"] * 40
    alone = phones.normalize_codes(values, "FR")
    given = phones.normalize_codes(values, "FR", region=[missing] * len(values))
    for name in ("e164", "reason", "region", "type"):
        assert getattr(given, name).tolist() == getattr(alone, name).tolist()
    assert alone.e164[0] == 33612345678 and alone.reason[2] != phones.REASON_CODE["ok"]
