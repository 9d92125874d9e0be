"""Phone-number normalisation and validation, on top of Google's numbering metadata.

Pure functions (no I/O): turn messy spreadsheet values into E.164 numbers, say why the
others are rejected, and classify lines with the gateway spec's ``phone_number_type`` values.

Decisions:

- ``is_e164``: the spec's rule (a leading ``+`` then digits) with E.164's bounds: the first
  digit is 1-9 (no country code starts with 0) and there are 7 to 15 digits in all, 7 being
  the shortest real numbers (3-digit country code + 4-digit subscriber number, e.g. Niue).
- Messy input: surrounding blanks, spaces, dots, dashes, parentheses, a ``(0)`` trunk prefix
  after the country code, a ``00`` international prefix, and integers or integral floats (a
  CSV column read as numbers, ``33612345678.0``, and its text) are accepted here; every
  entry point that reads recipients refuses both first
  (:data:`smskit.rules.recipients.RULE_FLOAT`: a float may have lost a leading 0 or ``+``).
  A digit-only value invalid in the default region is retried as international, since
  spreadsheets drop the ``+``.
- ``reason`` is one of :data:`~smskit.rules.phonecheck.REASONS`; ``type`` is ``bad_format``
  for every rejected value.
- Regulator "drama" numbers (Ofcom's UK ranges such as 020 7946 0xxx and 07700 900xxx, and
  NANP 555-0100..0199) are reported valid with type ``stage_and_screen``, even where the
  metadata no longer lists the range, so demos can use them and preflight can flag them.
- Numbers are never altered: letters (never read as keypad digits), a sign other than one
  leading ``+``, and any character but digits, blanks and ``. - / ( )`` are refused with
  their own reason (:func:`~smskit.rules.phonecheck.refusal`).
- Speed, in one process: :func:`normalize` reads whole arrays with phonenumbers' per-region
  patterns compiled into digit automata: Arrow strings and integer columns straight from
  their bytes (:mod:`smskit.rules._phonematrix`, the one lane), other values once per
  distinct value (by the same lane); only what it cannot follow exactly goes
  through the per-number path (:mod:`smskit.rules.phonecheck`; same answers, pinned by
  property tests). Answers stay codes (:func:`normalize_codes`) until a frame asks for text.
- One number is read by :mod:`smskit.rules.phonecheck` (``classify``, ``to_e164``: the
  sandbox's requests, the client's checks), which imports neither pandas nor pyarrow: they
  load where arrays are read.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import numpy as np

from smskit.errors import ValidationError, guard_input
from smskit.rules import _phonematrix, _phoneplan
from smskit.rules._phonetexts import NOT_A_NUMBER_TEXT as _NOT_A_NUMBER_TEXT
from smskit.rules._phonetexts import as_series as _as_series
from smskit.rules._phonetexts import factorize as _factorize
from smskit.rules._phonetexts import lane_texts as _lane_texts
from smskit.rules._phonetexts import to_texts as _to_texts
from smskit.rules.once import once
from smskit.rules.phonecheck import (
    NOT_A_NUMBER,
    POSSIBLE_REASON,
    REASON_CODE,
    REASONS,
    TYPE_MAP,
    PhoneCheck,
    checked_region,
    classify_text,
    is_stage_and_screen,
)
from smskit.rules.region import DEFAULT_REGION
from smskit.rules.spec import PHONE_NUMBER_TYPE

if TYPE_CHECKING:  # pandas is imported where arrays are read: the sandbox reads one number
    import pandas as pd

__all__ = [
    "REASON_DTYPE",  # noqa: F822  (made on first use: __getattr__ below)
    "REGION_NAMES",
    "TYPE_DTYPE",  # noqa: F822
    "Codes",
    "Distinct",
    "e164_texts",
    "normalize",
    "normalize_codes",
    "normalize_distinct",
]

# Every region code an answer may name ("001": non-geographic), in the order of Codes.region.
REGION_NAMES: Final = _phonematrix.REGIONS


@once  # REASON_DTYPE and TYPE_DTYPE are one object each, whichever thread asks first
def _dtypes() -> tuple[pd.CategoricalDtype, pd.CategoricalDtype]:
    import pandas as pd

    return pd.CategoricalDtype(list(REASONS)), pd.CategoricalDtype(list(PHONE_NUMBER_TYPE))


def __getattr__(name: str) -> Any:
    """``REASON_DTYPE`` and ``TYPE_DTYPE`` (the reason and type columns' categorical dtypes),
    made on first use so that reading one number never imports pandas."""
    if name == "REASON_DTYPE":
        return _dtypes()[0]
    if name == "TYPE_DTYPE":
        return _dtypes()[1]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_WORDS: Final = _phoneplan.Vocabulary(TYPE_MAP, POSSIBLE_REASON, is_stage_and_screen, REASONS)


class Distinct(NamedTuple):
    """:func:`normalize`'s answers without a row per value: ``table`` has the ``e164, valid,
    reason, region, type`` columns of :func:`normalize`, ``codes`` (int32, one per value) the
    row of ``table`` answering each value. Values read by the byte lane have a row each, the
    others one per distinct (value, region); a table row no code names may exist.
    """

    codes: np.ndarray
    table: pd.DataFrame


class Codes(NamedTuple):
    """:func:`normalize`'s answers as arrays, one entry per value: ``e164`` the E.164 number's
    digits as an integer (0 when invalid; :func:`e164_texts` makes the texts), ``reason`` a
    place in :data:`REASONS`, ``region`` a place in :data:`REGION_NAMES` (-1: none), ``type``
    a place in the spec's ``phone_number_type`` values."""

    e164: np.ndarray
    reason: np.ndarray
    region: np.ndarray
    type: np.ndarray

    @property
    def valid(self) -> np.ndarray:
        return self.reason == REASON_CODE["ok"]


# What the readers below accept, named in their refusal of anything else.
# Fewer texts than this in one region are read number by number: the whole-array lane's
# fixed cost a call (4-25 ms warm: its plans, the matrices) is more than the per-number path
# takes for them (FR, warm: 32 numbers 1 ms, 128 numbers 4.5 ms, 512 numbers 38 ms; 8,000
# numbers over 246 regions, median 26 a region: lane 6.2 s, per number 2.3 s).
LANE_MIN_ROWS: Final = 128
_NUMBERS_RULE: Final = "must be an iterable of numbers (str, int, float or missing)"


@guard_input("values", _NUMBERS_RULE)
def normalize_codes(
    values: Iterable[Any] | pd.Series,
    default_region: str | None = DEFAULT_REGION,
    *,
    region: Iterable[Any] | pd.Series | np.ndarray | None = None,
) -> Codes:
    """:func:`normalize` as code arrays (:class:`Codes`): no string a row."""
    codes, answers = _distinct(_as_series(values), checked_region(default_region), region)
    coded = answers.coded
    if answers.in_order:  # an answer a row, in the rows' order: no gather
        return Codes(coded.e164, coded.reason, coded.region, coded.kind)
    return Codes(coded.e164[codes], coded.reason[codes], coded.region[codes], coded.kind[codes])


def e164_texts(digits: np.ndarray) -> pd.api.extensions.ExtensionArray:
    """``+`` and the digits of each E.164 number given as an integer (:attr:`Codes.e164`),
    as pandas' Arrow-backed strings; missing where 0."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc

    # The system's allocator: Arrow's own pool would keep the temporaries' pages.
    pool = pa.system_memory_pool()
    texts = pc.cast(pa.array(digits, mask=digits == 0), pa.large_string(), memory_pool=pool)
    # "+" put before each text's first byte (a third of a general join's time).
    signed = pc.binary_replace_slice(texts, 0, 0, "+", memory_pool=pool)
    return pd.array(signed, dtype="string")


@guard_input("values", _NUMBERS_RULE)
def normalize(
    values: Iterable[Any] | pd.Series,
    default_region: str | None = DEFAULT_REGION,
    *,
    region: Iterable[Any] | pd.Series | np.ndarray | None = None,
) -> pd.DataFrame:
    """One row per value: ``input``, ``e164``, ``valid``, ``reason``, ``region``, ``type``.

    ``region``, when given, is the region of each row's national number (ISO 3166 alpha-2
    codes, one per value, matched by position; a missing one means ``default_region``).
    ``values`` may be any iterable, a Series, a numpy array or a pyarrow array. Strings that
    pandas or Arrow hold as Arrow strings and integer columns are read from their bytes by the
    whole-array lane (:mod:`._phonematrix`: no Python string a row); other values once per
    distinct (value, region), whole arrays at a time (the same lane);
    what it cannot follow exactly is read one by one, with the same answers.
    """
    import pandas as pd

    series = _as_series(values)
    codes, answers = _distinct(series, checked_region(default_region), region)
    table = answers.table()
    columns: dict[str, Any] = {"input": series}
    for name in table.columns:
        columns[name] = pd.Series(table[name].array.take(codes), index=series.index)
    return pd.DataFrame(columns, index=series.index)


@guard_input("values", _NUMBERS_RULE)
def normalize_distinct(
    values: Iterable[Any] | pd.Series,
    default_region: str | None = DEFAULT_REGION,
    *,
    region: Iterable[Any] | pd.Series | np.ndarray | None = None,
) -> Distinct:
    """:func:`normalize` without a row per value (:class:`Distinct`: ``normalize`` is
    ``table.take(codes)`` plus ``input``)."""
    codes, answers = _distinct(_as_series(values), checked_region(default_region), region)
    return Distinct(codes, answers.table())


def _distinct(series: pd.Series, default: str | None, region: Any) -> tuple[np.ndarray, _Answers]:
    region_codes, regions = _row_regions(region, series, default)
    answers = _Answers(0)
    rest = np.arange(len(series))
    codes = np.zeros(len(series), dtype=np.int32)
    strings = _lane_texts(series)
    if strings is not None:
        # Texts of the plain shapes (Arrow strings, integers) are read straight from their
        # bytes, an answer a row (recipient lists rarely repeat a number: hashing costs more).
        rows, texts = _phonematrix.plain_rows(strings)
        lane = _phonematrix.Coded.empty(len(rows))
        for code, row_region in enumerate(regions):
            at = np.flatnonzero(region_codes[rows] == code)
            if len(at) < LANE_MIN_ROWS:
                continue  # left undone: read number by number below (_Answers.read)
            if len(at) == len(rows):
                lane = _phonematrix.express_texts(texts, row_region, _WORDS)
            else:
                read = _phonematrix.express_texts(texts.take(at), row_region, _WORDS)
                lane.put(at, read)
        done = np.flatnonzero(lane.done)
        answers = _Answers(0)
        if len(done) == len(series):  # every row, in order: the lane's answers as they are
            answers.coded, answers.in_order = lane, True
        else:
            answers = _Answers(len(done))
            answers.coded.put(np.arange(len(done)), lane, done)
        codes[rows[done]] = np.arange(len(done), dtype=np.int32)
        undone = np.ones(len(series), dtype=bool)
        undone[rows[done]] = False
        rest = np.flatnonzero(undone)
        if len(rest) < len(series):
            series = series.iloc[rest]
    if len(rest):
        rest_codes, rest_answers = _distinct_values(series, region_codes[rest], regions)
        codes[rest] = rest_codes + len(answers.coded.done)
        answers = answers.joined(rest_answers)
    return codes, answers


def _distinct_values(
    series: pd.Series, region_codes: np.ndarray, regions: list[str | None]
) -> tuple[np.ndarray, _Answers]:
    """Each distinct (value, region) read once: each value's code and the answers."""
    import pandas as pd

    raw_codes, raw_uniques = _factorize(series)
    # Distinct raw values often clean to one text ("0612345678", 612345678.0): read twice,
    # that is cheaper than a second pass of hashing every text.
    raw_texts = np.array([*_to_texts(raw_uniques), None], dtype=object)  # last: missing
    raw_codes[raw_codes < 0] = len(raw_uniques)
    if len(regions) == 1:
        codes, pair_texts = raw_codes, raw_texts
        pair_regions = np.zeros(len(raw_texts), dtype=np.int64)
    else:
        codes, pairs = pd.factorize(raw_codes * len(regions) + region_codes)
        pair_texts, pair_regions = raw_texts[pairs // len(regions)], pairs % len(regions)
    answers = _Answers(len(pair_texts))
    not_number = pair_texts == _NOT_A_NUMBER_TEXT
    answers.put(np.flatnonzero(not_number), NOT_A_NUMBER)
    readable = (pair_texts != None) & ~not_number  # noqa: E711
    for code, row_region in enumerate(regions):
        at = np.flatnonzero(readable & (pair_regions == code))
        if len(at):
            answers.read(at, pair_texts[at].tolist(), row_region)
    return codes.astype(np.int32), answers


def _coded(checks: list[PhoneCheck]) -> _phonematrix.Coded:
    """Per-number answers as codes."""
    return _phonematrix.Coded.of(
        [True] * len(checks),
        [c.e164 for c in checks],
        [c.reason for c in checks],
        [c.region for c in checks],
        [c.type for c in checks],
        _WORDS,
    )


class _Answers:
    """One answer per distinct (value, region), as code columns (:class:`_phonematrix.Coded`)."""

    def __init__(self, size: int) -> None:
        self.coded = _phonematrix.Coded.empty(size)
        self.coded.reason[:] = REASON_CODE["empty"]
        # Answer i is row i's (codes are 0, 1, 2, ...): set where _distinct knows it.
        self.in_order = False

    def put(self, at: np.ndarray, check: PhoneCheck) -> None:
        """One answer at every position of ``at``."""
        one = _coded([check])
        self.coded.put(at, one, np.zeros(len(at), dtype=np.int64))

    def read(self, at: np.ndarray, texts: list[str], region: str | None) -> None:
        """Read ``texts`` (canonical, not empty) in ``region`` into positions ``at``: the lane,
        then the per-number path for what it leaves (all of them, below ``LANE_MIN_ROWS``)."""
        if len(texts) < LANE_MIN_ROWS:
            self.coded.put(at, _coded([classify_text(text, region) for text in texts]))
            return
        fast = _phonematrix.express(texts, region, _WORDS)
        left = np.flatnonzero(~fast.done)
        fast.put(left, _coded([classify_text(texts[i], region) for i in left.tolist()]))
        self.coded.put(at, fast)

    def joined(self, other: _Answers) -> _Answers:
        """These answers, then ``other``'s."""
        both = _Answers(0)
        both.coded = _phonematrix.Coded(
            *(
                np.concatenate([getattr(self.coded, name), getattr(other.coded, name)])
                for name in ("done", "e164", "reason", "region", "kind")
            )
        )
        return both

    def table(self) -> pd.DataFrame:
        import pandas as pd
        import pyarrow as pa

        coded = self.coded
        regions = pa.array(REGION_NAMES).take(pa.array(coded.region, mask=coded.region < 0))
        return pd.DataFrame(
            {
                "e164": e164_texts(coded.e164),
                "valid": coded.reason == REASON_CODE["ok"],
                "reason": pd.Categorical.from_codes(coded.reason, dtype=_dtypes()[0]),
                "region": pd.array(regions, dtype="string"),
                "type": pd.Categorical.from_codes(coded.kind, dtype=_dtypes()[1]),
            }
        )


def _row_regions(
    region: Iterable[Any] | pd.Series | np.ndarray | None, series: pd.Series, default: str | None
) -> tuple[np.ndarray, list[str | None]]:
    """Per row, a code into the list of distinct regions (code 0 is the default region)."""
    import pandas as pd

    if region is None:
        return np.zeros(len(series), dtype=np.int64), [default]
    # Two Series with different labels would pair rows silently by position: refuse.
    labelled = not series.index.equals(pd.RangeIndex(len(series)))
    if isinstance(region, pd.Series) and labelled and not region.index.equals(series.index):
        raise ValidationError("region", "must have the same index as the values")
    given = _as_series(region).reset_index(drop=True)
    if len(given) != len(series):
        raise ValidationError(
            "region", f"must have one region per value: {len(series)} values", value=len(given)
        )
    if given.isna().all():  # no row names one (a list without a 'country' column)
        return np.zeros(len(series), dtype=np.int64), [default]
    codes, uniques = _factorize(given)
    regions: list[str | None] = [default]
    for unique in uniques.tolist():
        text = unique.strip() if isinstance(unique, str) else None
        if not text:
            regions.append(default)  # a blank cell is a missing region
            continue
        try:
            regions.append(checked_region(text))
        except ValidationError as exc:
            row = int(np.flatnonzero(given.array == unique)[0])
            raise ValidationError(
                "region",
                "each row's region must be an ISO 3166 alpha-2 code known to the numbering "
                "plan, e.g. 'FR', or missing",
                position=row,
                value=unique,
            ) from exc
    return codes + 1, regions
