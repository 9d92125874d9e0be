"""The text engine for one text: validity, encoding, segments and optimisation.

Pure functions over ``str``, no I/O. The sandbox bills with these functions and the
client preflights with them, so a notebook sees the number the gateway charges::

    rendered = render(template, recipient)          # smskit.rules.personalize
    if auto_optimize_text:            # the gateway's default
        rendered = optimize(rendered).text
    segments = analyze(rendered).segments

Encoding and segment rules (3GPP TS 23.038 and TS 23.040):

* A text is GSM-7 when every character is in the default alphabet (one septet) or its
  extension table (an escape plus a code: two septets); otherwise it is UCS-2, counted in
  UTF-16 code units (a character outside the Basic Multilingual Plane, such as most emoji,
  is a surrogate pair: two units).
* One segment holds 160 septets or 70 units. A longer text is concatenated: each part
  carries a 6-octet user data header, leaving 153 septets or 67 units.
* An escape pair and a surrogate pair are never split across segments. In UCS-2, whole
  extended grapheme clusters (flags, ZWJ families, skin tones, a letter and its combining
  accents, CR LF) are kept in one segment as handsets do; a cluster longer than a whole
  segment is split between code points. Clusters are the Unicode (UAX #29) extended
  grapheme clusters of the ``regex`` package's ``\\X``, at its Unicode version; a handset
  with older Unicode data may cut a newer emoji sequence differently. GSM-7 has no such
  cluster except CR LF, which is two independent septets and may be split.
* ``characters`` counts Unicode code points (Python's ``len``); the gateway's
  "1 to 1224 characters" limit (8 x 153) is checked on that count by :func:`validate_text`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any, Final, Literal

from smskit.errors import ValidationError
from smskit.rules import gsm as _gsm
from smskit.rules import spec as _spec

__all__ = [
    "MAX_FIELD_LENGTH",
    "MAX_TEXT_LENGTH",
    "NATIONAL_LANGUAGES",
    "OPTIMIZE_TABLE",
    "Optimization",
    "Replacement",
    "TextStats",
    "analyze",
    "optimize",
    "optimize_text",
    "validate_text",
]

MAX_TEXT_LENGTH: Final = _spec.TEXT_MAX
MAX_FIELD_LENGTH: Final = _spec.FIELD_MAX
NATIONAL_LANGUAGES: Final = tuple(_gsm.NATIONAL_TABLES)

GSM7: Final = "GSM-7"
UCS2: Final = "UCS-2"
Encoding = Literal["GSM-7", "UCS-2"]

# TS 23.040: user data is 140 octets; a concatenation header (8-bit reference) is
# UDHL + 5 octets, a national language shift header 3 octets each.
_USER_DATA_OCTETS: Final = 140
_CONCAT_IE_OCTETS: Final = 5
_SHIFT_IE_OCTETS: Final = 3
UCS2_SINGLE: Final = 70
UCS2_MULTI: Final = 67

RULE_TEXT_TYPE: Final = "must be a string"
RULE_TEXT_SURROGATE: Final = "must not contain lone surrogates"
RULE_TEXT_LENGTH: Final = f"must be 1 to {MAX_TEXT_LENGTH} characters"


def gsm_capacity(tables: int, *, concatenated: bool) -> int:
    """Septets one segment holds, given how many national shift tables its header announces.

    A user data header of h octets (UDHL included) takes ceil(8h / 7) septets, because
    the septets after it start on a septet boundary (fill bits).
    """
    elements = _SHIFT_IE_OCTETS * tables + (_CONCAT_IE_OCTETS if concatenated else 0)
    header = 1 + elements if elements else 0
    return _USER_DATA_OCTETS * 8 // 7 - math.ceil(header * 8 / 7)


GSM_SINGLE: Final = gsm_capacity(0, concatenated=False)  # 160
GSM_MULTI: Final = gsm_capacity(0, concatenated=True)  # 153


@dataclass(frozen=True, slots=True)
class TextStats:
    """What one text costs: encoding, size in septets or UTF-16 units, and segments.

    ``per_segment`` is the capacity of one segment for this text's layout (160/153,
    155/149 or 152/146 with national shift tables, 70/67 in UCS-2) and ``remaining`` the
    units still free in the last segment. ``non_gsm`` lists ``(position, character)`` pairs
    that forced UCS-2 (positions count code points).
    """

    encoding: Encoding
    characters: int
    units: int
    segments: int
    per_segment: int
    remaining: int
    non_gsm: tuple[tuple[int, str], ...] = ()
    locking_shift: str | None = None
    single_shift: str | None = None


# --------------------------------------------------------------------------- validation


def check_str(text: Any, field_name: str = "text") -> str:
    if not isinstance(text, str):
        raise ValidationError(field_name, RULE_TEXT_TYPE, value=text)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValidationError(
            field_name, RULE_TEXT_SURROGATE, position=exc.start, value=text[exc.start]
        ) from None
    return text


def validate_text(text: Any) -> str:
    """Return ``text`` if the gateway accepts it: a string of 1 to 1224 code points."""
    check_str(text)
    if not 1 <= len(text) <= MAX_TEXT_LENGTH:
        raise ValidationError("text", RULE_TEXT_LENGTH, value=len(text))
    return text


# --------------------------------------------------------------------------- analysis


@dataclass(frozen=True, slots=True)
class _Alphabet:
    """One locking/single shift combination and the septets each character costs in it."""

    locking: str | None
    single: str | None
    cost: Mapping[str, int]
    tables: int


def _alphabet(locking: str | None, single: str | None) -> _Alphabet:
    nat_locking = _gsm.NATIONAL_TABLES[locking][0] if locking else None
    nat_single = _gsm.NATIONAL_TABLES[single][1] if single else None
    basic = _gsm.basic_set(nat_locking) if nat_locking else _gsm.DEFAULT_BASIC
    ext = frozenset(nat_single.values()) if nat_single else _gsm.DEFAULT_EXT
    cost = {ch: 2 for ch in ext}
    cost.update(dict.fromkeys(basic, 1))  # a character in both costs one septet
    return _Alphabet(locking, single, cost, (locking is not None) + (single is not None))


_DEFAULT: Final = _alphabet(None, None)


def alphabets(national: str | None) -> tuple[_Alphabet, ...]:
    """The combinations worth trying for ``national``, the default alphabet first."""
    # Checked before the cache: an unhashable value would fail there as a raw TypeError.
    if national is not None and (
        not isinstance(national, str) or national not in _gsm.NATIONAL_TABLES
    ):
        raise ValidationError(
            "national",
            f"must be None or one of {', '.join(map(repr, NATIONAL_LANGUAGES))}",
            value=national,
        )
    return _alphabets_of(national)


@cache
def _alphabets_of(national: str | None) -> tuple[_Alphabet, ...]:
    if national is None:
        return (_DEFAULT,)
    locking, _single = _gsm.NATIONAL_TABLES[national]
    lockings = (None, national) if locking is not None else (None,)
    return tuple(_alphabet(lk, sg) for lk in lockings for sg in (None, national))


def _pack(costs: Iterable[int], capacity: int) -> tuple[int, int]:
    """Greedy fill of segments with indivisible items: (segments, units in the last one)."""
    segments, fill = 1, 0
    for cost in costs:
        if fill + cost > capacity:
            segments += 1
            fill = cost
        else:
            fill += cost
    return segments, fill


def _utf16_len(chars: str) -> int:
    return len(chars) if chars.isascii() else len(chars.encode("utf-16-le", "surrogatepass")) >> 1


@lru_cache(maxsize=1)
def _grapheme_re() -> Any:
    import regex  # imported on first UCS-2 multipart text: keeps `import smskit` light

    return regex.compile(r"\X")


def _ucs2_atoms(text: str) -> list[int]:
    """UTF-16 sizes of the pieces a segment boundary may not cut: grapheme clusters."""
    atoms: list[int] = []
    for cluster in _grapheme_re().findall(text):
        single_bmp = len(cluster) == 1 and cluster < "\U00010000"
        size = 1 if single_bmp else len(cluster.encode("utf-16-le")) >> 1
        if size <= UCS2_MULTI:
            atoms.append(size)
        else:  # a cluster larger than a segment must be cut; keep surrogate pairs whole
            atoms.extend(2 if ord(ch) > 0xFFFF else 1 for ch in cluster)
    return atoms


def ucs2_layout(text: str) -> tuple[int, int, int, int]:
    """(units, segments, per_segment, remaining) of a valid text sent as UCS-2."""
    units = _utf16_len(text)
    if units <= UCS2_SINGLE:
        return units, 1, UCS2_SINGLE, UCS2_SINGLE - units
    segments, fill = _pack(_ucs2_atoms(text), UCS2_MULTI)
    return units, segments, UCS2_MULTI, UCS2_MULTI - fill


def _gsm_layout(costs: list[int], tables: int) -> tuple[int, int, int]:
    """(segments, per_segment, units in the last segment) for GSM-7 septet costs."""
    septets = sum(costs)
    single = gsm_capacity(tables, concatenated=False)
    if septets <= single:
        return (1 if septets else 0), single, septets
    per = gsm_capacity(tables, concatenated=True)
    segments, fill = _pack(costs, per)
    return segments, per, fill


# Texts made only of one-septet characters (the common case) need no per-character walk.
_SINGLE_SEPTET_RE: Final = re.compile("[" + re.escape("".join(sorted(_gsm.DEFAULT_BASIC))) + "]*")


def analyze(text: str, *, national: str | None = None) -> TextStats:
    """Encoding, size and segment count of ``text`` as the network bills it.

    ``national`` (``"tr"``, ``"es"`` or ``"pt"``) also tries that language's TS 23.038
    Annex A single and locking shift tables and keeps the combination with the fewest
    segments (then the fewest tables); each table announced costs header room in every
    segment (155/149 septets with one table, 152/146 with two). Off by default because
    not every network and handset supports them. Texts over 1224 characters are analysed
    too; :func:`validate_text` enforces the limit.
    """
    check_str(text)
    if national is None and _SINGLE_SEPTET_RE.fullmatch(text):
        septets = len(text)
        segments, per, fill = _gsm_layout_uniform(septets)
        return TextStats(GSM7, septets, septets, segments, per, per - fill)
    return _analyze_walk(text, national)


def _gsm_layout_uniform(septets: int) -> tuple[int, int, int]:
    """:func:`_gsm_layout` for a text whose characters all cost one septet."""
    if septets <= GSM_SINGLE:
        return (1 if septets else 0), GSM_SINGLE, septets
    segments = -(-septets // GSM_MULTI)
    return segments, GSM_MULTI, septets - (segments - 1) * GSM_MULTI


def _analyze_walk(text: str, national: str | None) -> TextStats:
    """:func:`analyze` by a walk over every character, for every alphabet ``national`` allows."""
    best: tuple[tuple[int, int, int], TextStats] | None = None
    fewest_missing: tuple[tuple[int, str], ...] | None = None
    for alphabet in alphabets(national):
        cost = alphabet.cost
        costs = [cost.get(ch, 0) for ch in text]
        if 0 in costs:
            missing = tuple((i, ch) for i, ch in enumerate(text) if ch not in cost)
            if fewest_missing is None or len(missing) < len(fewest_missing):
                fewest_missing = missing
            continue
        segments, per, fill = _gsm_layout(costs, alphabet.tables)
        stats = TextStats(
            GSM7,
            len(text),
            sum(costs),
            segments,
            per,
            per - fill,
            (),
            alphabet.locking,
            alphabet.single,
        )
        key = (segments, alphabet.tables, stats.units)
        if best is None or key < best[0]:
            best = (key, stats)
    if best is not None:
        return best[1]
    units, segments, per, remaining = ucs2_layout(text)
    return TextStats(UCS2, len(text), units, segments, per, remaining, fewest_missing or ())


# --------------------------------------------------------------------------- optimisation

_SPACES: Final = " \t\u00a0\u2000-\u200a\u202f\u205f\u3000"
_INVISIBLE: Final = "\u200b\u2060\ufeff\u00ad"
_BREAKS: Final = "\r\n\u2028\u2029"

#: Single characters :func:`optimize` replaces, with what. Spaces, invisible characters and
#: line breaks are handled as runs (see :func:`optimize`), not through this table.
OPTIMIZE_TABLE: Final[Mapping[str, str]] = {
    # apostrophes, primes, acute and grave accents used as quotes
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
    "\u00b4": "'", "\u02bc": "'", "`": "'", "\u2039": "'", "\u203a": "'",
    # double quotes and guillemets
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
    "\u00ab": '"', "\u00bb": '"',
    # hyphens, dashes, minus sign
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-",
    "\u2015": "-", "\u2212": "-",
    # ellipsis
    "\u2026": "...",
    # Greek capitals identical to Latin ones (the ten distinct ones are GSM-7 already)
    "\u0391": "A", "\u0392": "B", "\u0395": "E", "\u0396": "Z", "\u0397": "H",
    "\u0399": "I", "\u039a": "K", "\u039c": "M", "\u039d": "N", "\u039f": "O",
    "\u03a1": "P", "\u03a4": "T", "\u03a5": "Y", "\u03a7": "X",
    # symbol look-alikes of GSM-7 Greek letters
    "\u2126": "\u03a9", "\u2206": "\u0394",
    # TS 23.038 code 0x09 is C cedilla; handsets long showed it as either case
    "\u00e7": "\u00c7",
}  # fmt: skip

_OPTIMIZE_RE: Final = re.compile(
    rf"(?P<brk>[{_SPACES}{_INVISIBLE}]*(?:[{_BREAKS}][{_SPACES}{_INVISIBLE}]*)+)"
    rf"|(?P<edge>\A[{_SPACES}{_INVISIBLE}]+|[{_SPACES}{_INVISIBLE}]+\Z)"
    rf"|(?P<run>[{_SPACES}{_INVISIBLE}]+)"
    rf"|(?P<char>[{''.join(map(re.escape, OPTIMIZE_TABLE))}])"
)
# Finds whether _OPTIMIZE_RE would change anything: most texts need no rewrite at all.
_ODD_SPACES: Final = _SPACES.replace(" ", "") + _INVISIBLE + "\r\u2028\u2029"
_NEEDS_OPTIMIZE_RE: Final = re.compile(
    rf"[{_ODD_SPACES}{''.join(map(re.escape, OPTIMIZE_TABLE))}]|  | \n|\n |\A | \Z"
)
_DROP_IN_BREAKS: Final = re.compile(rf"[{_SPACES}{_INVISIBLE}]")
_CRLF_RUN: Final = re.compile(r"\r+\n")


class Replacement(tuple[int, str, str]):
    """One change :func:`optimize` made: ``(position in the original, original, new)``."""

    __slots__ = ()

    def __new__(cls, position: int, original: str, replacement: str) -> Replacement:
        return super().__new__(cls, (position, original, replacement))

    @property
    def position(self) -> int:
        """Where the change starts in the original text (an index into it)."""
        return self[0]

    @property
    def original(self) -> str:
        """The characters that were replaced."""
        return self[1]

    @property
    def replacement(self) -> str:
        """What replaced them (may be empty)."""
        return self[2]

    def __repr__(self) -> str:
        return f"Replacement({self[0]}, {self[1]!r}, {self[2]!r})"


@dataclass(frozen=True, slots=True)
class Optimization:
    """Result of :func:`optimize`: the new text, each change, and the segments saved."""

    text: str
    original: str
    replacements: tuple[Replacement, ...]
    segments_before: int
    segments_after: int

    @property
    def saved(self) -> int:
        """Segments saved per message (never negative: no replacement lengthens a segment)."""
        return self.segments_before - self.segments_after


def _optimize_match(match: re.Match[str]) -> str:
    kind = match.lastgroup
    found = match.group()
    if kind == "char":
        return OPTIMIZE_TABLE[found]
    if kind == "brk":
        kept = _DROP_IN_BREAKS.sub("", found).replace("\u2028", "\n").replace("\u2029", "\n")
        return _CRLF_RUN.sub("\n", kept)
    if kind == "edge":
        return ""
    return " " if found.strip(_INVISIBLE) else ""


def optimize_text(text: str) -> str:
    """Only the text :func:`optimize` produces, without its report: the cheap call for billing."""
    check_str(text)
    if not _NEEDS_OPTIMIZE_RE.search(text):
        return text
    return _rewrite(text)


def _rewrite(text: str) -> str:
    return _OPTIMIZE_RE.sub(_optimize_match, text)


def optimize(text: str) -> Optimization:
    """Replace look-alikes of GSM-7 characters and drop useless spacing, as the gateway's
    ``auto_optimize_text`` does, and report what it saved.

    * characters of :data:`OPTIMIZE_TABLE`: curly quotes and guillemets become ``'``/``"``,
      dashes and minus ``-``, the ellipsis ``...``, Greek capitals that look Latin their
      Latin twin, ``ç`` becomes ``Ç``;
    * runs of spaces, tabs, no-break and other Unicode spaces become one space, zero-width
      spaces, word joiners, BOM and soft hyphens are removed, and spacing at the start, at
      the end and around line breaks is dropped;
    * CR LF becomes LF, Unicode line and paragraph separators become LF.

    Zero-width joiners (emoji sequences) and accented letters are left alone. Idempotent.
    """
    check_str(text)
    replacements: list[Replacement] = []
    pieces: list[str] = []
    last = 0
    for match in _OPTIMIZE_RE.finditer(text):
        new = _optimize_match(match)
        if new != match.group():
            replacements.append(Replacement(match.start(), match.group(), new))
            pieces += [text[last : match.start()], new]
            last = match.end()
    pieces.append(text[last:])
    result = "".join(pieces)
    before = analyze(text).segments
    after = analyze(result).segments if replacements else before
    return Optimization(result, text, tuple(replacements), before, after)
