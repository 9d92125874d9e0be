"""The numpy path behind :func:`smskit.rules.batch.analyze_many`: exact, no loop per character.

Texts are grouped by the width CPython stores them in, each group is concatenated and
encoded once into an array of code points (bytes, UTF-16 or UTF-32: a plain copy for that
width), each code point is classified through a lookup table, and only the interesting
positions (extension, non-GSM, astral and grapheme-joining characters) are counted per text.
Segment boundaries of long texts are found for all texts at once in shared coordinates
(septets or UTF-16 units), one segment per step. Only a UCS-2 text whose greedy boundary
lands inside a possible grapheme cluster is re-analysed on its own.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable
from itertools import compress, repeat
from typing import Any

import numpy as np
import pandas as pd

from smskit.errors import ValidationError
from smskit.rules import gsm as _gsm
from smskit.rules.once import once
from smskit.rules.text import (
    GSM_MULTI,
    GSM_SINGLE,
    MAX_TEXT_LENGTH,
    RULE_TEXT_LENGTH,
    RULE_TEXT_SURROGATE,
    RULE_TEXT_TYPE,
    UCS2_MULTI,
    UCS2_SINGLE,
    analyze,
    ucs2_layout,
)

# Bits of the class table.
EXT = 1  # GSM-7 extension table: two septets
NONGSM = 2  # outside the GSM-7 default alphabet and extension table
ASTRAL = 4  # outside the BMP: two UTF-16 units
JOINER = 8  # has a Grapheme_Cluster_Break property that can glue it to a neighbour
LONE = 16  # a surrogate code point (a lone surrogate in a Python str)

# Bits of the glue table (UAX #29 rules that forbid a break between code points a and b).
GLUE_B = 1  # b is Extend, ZWJ or SpacingMark: never a break before it (GB9, GB9a)
GLUE_A = 2  # a is Prepend or ZWJ: no break after it (GB9b; GB11 taken conservatively)
CR = 4  # GB3: CR x LF
LF = 8
HANGUL = 16  # GB6-8, conservatively: any two Hangul jamo or syllables
RI = 32  # GB12-13, conservatively: any two regional indicators
EXTEND = 64  # GB9c: Extend or Linker x InCB Consonant
CONSONANT = 128

CHUNK = 1 << 15  # texts analysed together

ERRORS = (RULE_TEXT_TYPE, RULE_TEXT_SURROGATE, RULE_TEXT_LENGTH)
ENCODINGS = ("GSM-7", "UCS-2")
_ENCODING_DTYPE = pd.CategoricalDtype(list(ENCODINGS))
_ERROR_DTYPE = pd.CategoricalDtype(list(ERRORS))

_GLUE_CLASSES = (
    (GLUE_B, r"[\p{GCB=Extend}\p{GCB=ZWJ}\p{GCB=SpacingMark}]"),
    (GLUE_A, r"[\p{GCB=Prepend}\p{GCB=ZWJ}]"),
    (CR, r"\r"),
    (LF, r"\n"),
    (HANGUL, r"[\p{GCB=L}\p{GCB=V}\p{GCB=T}\p{GCB=LV}\p{GCB=LVT}]"),
    (RI, r"\p{GCB=Regional_Indicator}"),
    (EXTEND, r"[\p{GCB=Extend}\p{InCB=Linker}\p{InCB=Extend}]"),
    (CONSONANT, r"\p{InCB=Consonant}"),
)


class Tables:
    """The class and glue bit tables over every code point.

    A code point's grapheme bits (``glue``, and ``JOINER`` in ``classes``) are looked up
    with ``regex`` the first time a text holds it (:meth:`learn`), not for all 1.1 million
    code points up front: that scan cost every process 0.1 s before its first analysis.
    """

    def __init__(self) -> None:
        self.classes = np.full(0x110000, NONGSM, dtype=np.uint8)
        for ch in _gsm.DEFAULT_BASIC:
            self.classes[ord(ch)] = 0
        for ch in _gsm.DEFAULT_EXT:
            self.classes[ord(ch)] = EXT
        self.classes[0x10000:] |= ASTRAL
        self.classes[0xD800:0xE000] |= LONE
        self.glue = np.zeros(0x110000, dtype=np.uint8)
        self._known = np.zeros(0x110000, dtype=bool)
        self._lock = threading.Lock()
        self.learn(np.arange(256))  # the one-byte path reads classes[:256] whole

    def learn(self, codes: np.ndarray) -> None:
        """Fill in the bits of the code points in ``codes`` not looked up yet."""
        if self._known[codes].all():
            return
        import regex

        with self._lock:  # the bits are final before a code point is marked known
            wanted = np.zeros(0x110000, dtype=bool)
            wanted[codes] = True  # a scatter, not a sort of every code
            fresh = np.flatnonzero(wanted & ~self._known)
            chars = fresh.astype("<u4").tobytes().decode("utf-32-le", "surrogatepass")
            bits = np.zeros(len(fresh), dtype=np.uint8)
            for bit, pattern in _GLUE_CLASSES:  # each pattern matches one code point
                hits = [m.start() for m in regex.finditer(pattern, chars)]
                bits[np.asarray(hits, dtype=np.int64)] |= bit
            self.glue[fresh] = bits
            self.classes[fresh[bits != 0]] |= JOINER
            self._known[fresh] = True


@once  # one instance: what a thread learns into it, every thread reads
def tables() -> Tables:
    """The tables, made once (each code point's grapheme bits looked up on first use)."""
    return Tables()


def _inside_cluster(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Whether a boundary between code points ``a`` and ``b`` may split a grapheme cluster."""
    glue = tables().glue  # a and b are code points of texts _classify learnt
    ga, gb = glue[a], glue[b]
    return (
        ((gb & GLUE_B) != 0)
        | ((ga & GLUE_A) != 0)
        | (((ga & CR) != 0) & ((gb & LF) != 0))
        | ((ga & gb & (HANGUL | RI)) != 0)
        | (((ga & EXTEND) != 0) & ((gb & CONSONANT) != 0))
    )


# CPython stores a str in 1, 2 or 4 bytes per code point; grouping texts by that width
# lets each group be joined and encoded as a plain copy. The width is read off
# sys.getsizeof; where that does not hold (another interpreter), every text takes the
# UTF-32 path, which is always correct.
_ASCII_BASE = sys.getsizeof("")
_COMPACT_BASE = sys.getsizeof("é") - 2
_WIDTH_KNOWN = (
    sys.getsizeof("a") == _ASCII_BASE + 1
    and sys.getsizeof("€") == _COMPACT_BASE + 4
    and sys.getsizeof("😀") == _COMPACT_BASE + 8
    and sys.getsizeof("éé") == _COMPACT_BASE + 3
)


def _widths(strs: list[str], lens: np.ndarray) -> np.ndarray:
    if not _WIDTH_KNOWN:
        return np.where(np.fromiter(map(str.isascii, strs), dtype=bool, count=len(strs)), 1, 4)
    sizes = np.fromiter(map(sys.getsizeof, strs), dtype=np.int64, count=len(strs))
    per, rest = np.divmod(sizes - _COMPACT_BASE, lens + 1)
    width = np.where((rest == 0) & ((per == 1) | (per == 2)), per, 4)
    width[sizes == _ASCII_BASE + lens] = 1
    return width


def _classify(strs: Iterable[str], total: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Code points of the concatenated texts and their class bits."""
    known = tables()
    classes = known.classes
    joined = "".join(strs)
    if width == 1:
        try:
            data = joined.encode("latin-1")
        except UnicodeEncodeError:
            pass
        else:  # bytes.translate is a tighter loop than numpy's fancy indexing
            flags = data.translate(classes[:256].tobytes())
            return np.frombuffer(data, dtype=np.uint8), np.frombuffer(flags, dtype=np.uint8)
    elif width == 2:
        data = joined.encode("utf-16-le", "surrogatepass")
        if len(data) == 2 * total:
            codes = np.frombuffer(data, dtype="<u2")
            known.learn(codes)
            return codes, classes[:0x10000][codes]
    codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    known.learn(codes)
    return codes, classes[codes]


def _walk(
    wide: np.ndarray, base: np.ndarray, total: np.ndarray, cap: int
) -> tuple[np.ndarray, np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """Greedy segmentation of many texts at once.

    Coordinates are shared by all texts: ``wide`` holds the sorted start of every two-unit
    item that may not be split (escape pair, surrogate pair), ``base`` where each text
    starts and ``total`` how many units it has. Returns the segments, the units in the last
    segment, and per step the (text, boundary) pairs cut.
    """
    t = base.copy()
    end = base + total
    segments = np.ones(len(base), dtype=np.int64)
    cuts: list[tuple[np.ndarray, np.ndarray]] = []
    active = np.flatnonzero(total > cap)
    last = len(wide) - 1
    while active.size:
        at = t[active]
        probe = at + (cap - 1)  # a two-unit item starting here would straddle the cut
        if last >= 0:
            straddle = wide[np.minimum(np.searchsorted(wide, probe), last)] == probe
        else:
            straddle = np.zeros(active.size, dtype=bool)
        cut = at + cap - straddle
        t[active] = cut
        segments[active] += 1
        cuts.append((active, cut))
        active = active[end[active] - cut > cap]
    return segments, end - t, cuts


def _group(codes: np.ndarray, flags: np.ndarray, lens: np.ndarray) -> dict[str, np.ndarray]:
    """Per-text results for one concatenated group of texts."""
    m = len(lens)
    pos = np.flatnonzero(flags)
    starts = np.zeros(m, dtype=np.int64)
    np.cumsum(lens[:-1], out=starts[1:])
    owner = np.searchsorted(starts, pos, side="right") - 1
    kinds = flags[pos]

    def count(bit: int) -> tuple[np.ndarray, np.ndarray]:
        hit = (kinds & bit) != 0
        return np.bincount(owner[hit], minlength=m), pos[hit]

    n_ext, ext_pos = count(EXT)
    n_bad, _ = count(NONGSM)
    n_astral, astral_pos = count(ASTRAL)
    n_joiner, _ = count(JOINER)
    n_lone, _ = count(LONE)

    gsm = n_bad == 0
    septets = lens + n_ext
    units16 = lens + n_astral
    segments = np.ones(m, dtype=np.int64)
    remaining = np.zeros(m, dtype=np.int64)
    exact = np.zeros(m, dtype=bool)

    # GSM-7: only escape pairs constrain the boundaries
    single = gsm & (septets <= GSM_SINGLE)
    segments[single] = septets[single] > 0
    remaining[single] = GSM_SINGLE - septets[single]
    multi = gsm & ~single
    plain = multi & (n_ext == 0)
    segments[plain] = -(-septets[plain] // GSM_MULTI)
    remaining[plain] = segments[plain] * GSM_MULTI - septets[plain]
    walk = np.flatnonzero(multi & (n_ext > 0))
    if walk.size:
        wide = ext_pos + np.arange(len(ext_pos))  # septet coordinate of each escape pair
        base = starts[walk] + np.searchsorted(ext_pos, starts[walk])
        segs, fill, _ = _walk(wide, base, septets[walk], GSM_MULTI)
        segments[walk] = segs
        remaining[walk] = GSM_MULTI - fill

    # UCS-2: surrogate pairs and grapheme clusters constrain the boundaries
    ucs2 = ~gsm & (n_lone == 0)
    single = ucs2 & (units16 <= UCS2_SINGLE)
    remaining[single] = UCS2_SINGLE - units16[single]
    multi = ucs2 & ~single
    plain = multi & (n_astral == 0) & (n_joiner == 0)
    segments[plain] = -(-units16[plain] // UCS2_MULTI)
    remaining[plain] = segments[plain] * UCS2_MULTI - units16[plain]
    walk = np.flatnonzero(multi & ~plain)
    if walk.size:
        wide = astral_pos + np.arange(len(astral_pos))  # UTF-16 coordinate of each pair
        base = starts[walk] + np.searchsorted(astral_pos, starts[walk])
        segs, fill, cuts = _walk(wide, base, units16[walk], UCS2_MULTI)
        segments[walk] = segs
        remaining[walk] = UCS2_MULTI - fill
        for which, cut in cuts:
            joined = n_joiner[walk[which]] > 0
            texts, cut = walk[which[joined]], cut[joined]
            char = cut - np.searchsorted(wide, cut)
            exact[texts[_inside_cluster(codes[char - 1], codes[char])]] = True
    return {
        "gsm": gsm,
        "units": np.where(gsm, septets, units16),
        "segments": segments,
        "remaining": remaining,
        "lone": n_lone > 0,
        "exact": exact,
    }


def _values(texts: Any) -> tuple[list[Any], pd.Index]:
    if isinstance(texts, pd.Series):
        return texts.tolist(), texts.index
    if isinstance(texts, str | bytes) or not isinstance(texts, Iterable):
        raise ValidationError(
            "texts", "must be a list or Series of texts, not a single text", value=texts
        )
    values = list(texts)
    return values, pd.RangeIndex(len(values))


class _Columns:
    """The result columns being filled in, positionally."""

    def __init__(self, n: int) -> None:
        self.encoding = np.full(n, -1, dtype=np.int8)
        self.units = np.zeros(n, dtype=np.int64)
        self.segments = np.zeros(n, dtype=np.int64)
        self.remaining = np.zeros(n, dtype=np.int64)
        self.valid = np.zeros(n, dtype=bool)
        self.error = np.full(n, -1, dtype=np.int8)

    def exact(self, values: list[Any], rows: Iterable[int], national: str | None) -> None:
        for i in rows:
            try:
                stats = analyze(values[i], national=national)
            except ValidationError:
                self.error[i] = ERRORS.index(RULE_TEXT_SURROGATE)
                continue
            self.set(i, stats.encoding == "UCS-2", stats.units, stats.segments, stats.remaining)

    def set(self, i: int, ucs2: bool, units: int, segments: int, remaining: int) -> None:
        self.encoding[i] = ucs2
        self.units[i] = units
        self.segments[i] = segments
        self.remaining[i] = remaining
        self.valid[i] = True

    def frame(self, characters: np.ndarray, index: pd.Index) -> pd.DataFrame:
        invalid = ~self.valid
        self.encoding[invalid] = -1
        flagged = self.valid & ((characters == 0) | (characters > MAX_TEXT_LENGTH))
        self.error[flagged] = ERRORS.index(RULE_TEXT_LENGTH)

        def ints(values: np.ndarray) -> pd.arrays.IntegerArray:
            return pd.arrays.IntegerArray(values, invalid.copy())

        return pd.DataFrame(
            {
                "encoding": pd.Categorical.from_codes(self.encoding, dtype=_ENCODING_DTYPE),
                "characters": ints(characters),
                "units": ints(self.units),
                "segments": ints(self.segments),
                "remaining": ints(self.remaining),
                "error": pd.Categorical.from_codes(self.error, dtype=_ERROR_DTYPE),
            },
            index=index,
        )


def analyze_many(texts: Any, *, national: str | None = None) -> pd.DataFrame:
    """See :func:`smskit.rules.batch.analyze_many`."""
    values, index = _values(texts)
    n = len(values)
    is_str = np.fromiter(map(isinstance, values, repeat(str)), dtype=bool, count=n)
    rows = np.flatnonzero(is_str)
    strs: list[str] = values if rows.size == n else list(compress(values, is_str))
    lens = np.fromiter(map(len, strs), dtype=np.int64, count=len(strs))
    out = _Columns(n)
    out.error[~is_str] = ERRORS.index(RULE_TEXT_TYPE)

    if national is not None:
        out.exact(values, rows, national)
    else:
        width = _widths(strs, lens)
        # Chunks keep the working arrays in cache and in memory already mapped.
        for start in range(0, len(strs), CHUNK):
            part = slice(start, start + CHUNK)
            chunk = strs[part]
            for w in (1, 2, 4):
                sel = width[part] == w
                if sel.any():
                    _fill(out, values, chunk, lens[part][sel], rows[part][sel], sel, w)

    characters = np.zeros(n, dtype=np.int64)
    characters[rows] = lens
    return out.frame(characters, index)


def _fill(
    out: _Columns,
    values: list[Any],
    strs: list[str],
    lens: np.ndarray,
    at: np.ndarray,
    sel: np.ndarray,
    width: int,
) -> None:
    """Analyse the texts ``sel`` picks (all stored ``width`` bytes a code point)."""
    codes, flags = _classify(compress(strs, sel), int(lens.sum()), width)
    res = _group(codes, flags, lens)
    out.encoding[at] = ~res["gsm"]
    out.units[at] = res["units"]
    out.segments[at] = res["segments"]
    out.remaining[at] = res["remaining"]
    out.valid[at] = ~res["lone"]
    out.error[at[res["lone"]]] = ERRORS.index(RULE_TEXT_SURROGATE)
    for i in at[res["exact"]]:
        units, segments, _per, remaining = ucs2_layout(values[i])
        out.set(i, True, units, segments, remaining)
