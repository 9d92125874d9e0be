"""The per-number path of :mod:`smskit.rules.phones`: one value read as phonenumbers reads it.

Its constants (reasons, the spec's line types) and functions are the rule, the reference;
the whole-array lane (:mod:`._phonematrix`, with the region plans of :mod:`._phoneplan`)
follows it for whole arrays and is pinned to its answers. One number is read here
(:func:`classify`, :func:`to_e164`, what the sandbox and the client's checks ask); arrays
are read by :mod:`smskit.rules.phones`.
"""

from __future__ import annotations

import operator
import re
from functools import lru_cache
from typing import Any, Final, NamedTuple

import phonenumbers
from phonenumbers import (
    NumberParseException,
    PhoneMetadata,
    PhoneNumber,
    PhoneNumberType,
    ValidationResult,
)

from smskit.errors import ValidationError
from smskit.rules._phonetexts import NOT_A_NUMBER_TEXT as _NOT_A_NUMBER_TEXT
from smskit.rules._phonetexts import to_text as _to_text
from smskit.rules.region import DEFAULT_REGION, is_region

__all__ = [
    "DIGIT_ALTERNATIVES",
    "REASONS",
    "TYPE_MAP",
    "PhoneCheck",
    "classify",
    "gateway_number",
    "is_e164",
    "is_stage_and_screen",
    "main_region",
    "national_rule",
    "read_valid",
    "refusal",
    "region_of",
    "spec_type",
    "to_e164",
]

REASONS: Final = (
    "ok",
    "empty",
    "not_a_number",
    "contains_letters",
    "misplaced_sign",
    "forbidden_character",
    "invalid_country_code",
    "too_short",
    "too_long",
    "invalid_number",
)

# phonenumbers' line types -> the spec's phone_number_type values.
TYPE_MAP: Final[dict[int, str]] = {
    PhoneNumberType.FIXED_LINE: "landline",
    PhoneNumberType.MOBILE: "mobile",
    PhoneNumberType.FIXED_LINE_OR_MOBILE: "mobile_or_landline",
    PhoneNumberType.TOLL_FREE: "toll_free",
    PhoneNumberType.PREMIUM_RATE: "premium",
    PhoneNumberType.SHARED_COST: "shared_cost",
    PhoneNumberType.VOIP: "voip",
    PhoneNumberType.PERSONAL_NUMBER: "personal_number",
    PhoneNumberType.PAGER: "pager",
    PhoneNumberType.UAN: "universal_access_number",
    PhoneNumberType.VOICEMAIL: "voicemail_only",
    PhoneNumberType.UNKNOWN: "unknown",
}

_PARSE_REASON: Final = {
    NumberParseException.INVALID_COUNTRY_CODE: "invalid_country_code",
    NumberParseException.NOT_A_NUMBER: "not_a_number",
    NumberParseException.TOO_SHORT_AFTER_IDD: "too_short",
    NumberParseException.TOO_SHORT_NSN: "too_short",
    NumberParseException.TOO_LONG: "too_long",
}
POSSIBLE_REASON: Final = {
    ValidationResult.IS_POSSIBLE: "invalid_number",
    ValidationResult.INVALID_COUNTRY_CODE: "invalid_country_code",
    ValidationResult.TOO_SHORT: "too_short",
    ValidationResult.TOO_LONG: "too_long",
    # A local-only number lacks its area code: for an SMS it is too short.
    ValidationResult.IS_POSSIBLE_LOCAL_ONLY: "too_short",
    ValidationResult.INVALID_LENGTH: "invalid_number",
}

_E164_RE: Final = re.compile(r"\+[1-9][0-9]{6,14}")
# Letters are refused, never read as keypad digits: "+33612345ABC" is a typo, not +33612345222.
_LETTER_RE: Final = re.compile(r"[^\W\d_]")
# Digits (any script: the same digit), blanks, the five separators and "+"; "+" and "-" are
# then checked as signs. Line breaks and control characters are not blanks inside a number.
_FORBIDDEN_RE: Final = re.compile(r"[^\d \t\u00a0\u2000-\u200a\u202f\u205f\u3000.\-/()+]")
# Before the first digit: blanks and "(" around at most one "+"; a "-" there or after the
# last digit is a minus sign, not a separator.
_HEAD_RE: Final = re.compile(r"[^\d+\-]*(?:\+[^\d+\-]*)?")
_DIGIT_RE: Final = re.compile(r"\d")
_TAIL_RE: Final = re.compile(r"\D*\Z")
_SEPARATORS_RE: Final = re.compile(r"[\s.\-()/]+")
_REGIONS_OF_CODE: Final = {
    str(code): regions for code, regions in phonenumbers.COUNTRY_CODE_TO_REGION_CODE.items()
}

# Ofcom's numbers for drama: 7 national digits then any 3 (10-digit national numbers).
_UK_DRAMA_PREFIXES: Final = frozenset(
    {
        "1134960", "1144960", "1154960", "1164960", "1174960", "1184960",  # Leeds..Reading
        "1214960", "1314960", "1414960", "1514960", "1614960", "1914980",  # Birmingham..Tyne
        "2079460", "2896496", "2920180",  # London, Northern Ireland, Cardiff
        "1632960", "7700900", "8081570", "9098790", "3069990",  # no area, mobile, 080, 09, 03
    }
)  # fmt: skip

_CODES: Final = frozenset(str(code) for code in phonenumbers.COUNTRY_CODE_TO_REGION_CODE)
# A trunk prefix rule phonenumbers may strip that is plain digits: "0", "0|8", "1"...
DIGIT_ALTERNATIVES: Final = re.compile(r"[0-9]+(?:\|[0-9]+)*")


class PhoneCheck(NamedTuple):
    """Outcome of checking one value: what :func:`normalize` puts in one row."""

    e164: str | None
    valid: bool
    reason: str
    region: str | None
    type: str


_EMPTY: Final = PhoneCheck(None, False, "empty", None, "bad_format")
REASON_CODE: Final = {name: code for code, name in enumerate(REASONS)}
NOT_A_NUMBER: Final = PhoneCheck(None, False, "not_a_number", None, "bad_format")


def is_e164(value: object) -> bool:
    """True for a string of ``+`` then 7 to 15 ASCII digits, the first not 0 (E.164)."""
    return isinstance(value, str) and _E164_RE.fullmatch(value) is not None


def is_stage_and_screen(e164: str) -> bool:
    """True for numbers a regulator reserves for films and fiction (UK Ofcom, NANP 555-01xx)."""
    try:
        digits = e164[1:] if e164.startswith("+") else e164
        if len(digits) == 12 and digits.startswith("44"):
            return digits[2:9] in _UK_DRAMA_PREFIXES
        return len(digits) == 11 and digits[0] == "1" and digits[4:9] == "55501"
    except (TypeError, AttributeError) as exc:  # zero cost on the valid path
        raise ValidationError("e164", "must be a string of digits, optionally after '+'") from exc


def spec_type(number: phonenumbers.PhoneNumber, e164: str | None = None) -> str:
    """The spec's ``phone_number_type`` of a parsed number (``bad_format`` when invalid)."""
    try:
        if e164 is None:
            e164 = f"+{number.country_code}{phonenumbers.national_significant_number(number)}"
        if is_stage_and_screen(e164):
            return "stage_and_screen"
        line_type = phonenumbers.number_type(number)
        # number_type() is UNKNOWN exactly when is_valid_number() is False: one regex pass, not two.
        return "bad_format" if line_type == PhoneNumberType.UNKNOWN else TYPE_MAP[line_type]
    except (TypeError, AttributeError) as exc:  # zero cost on the valid path
        raise ValidationError(
            "number", "must be a phonenumbers.PhoneNumber (e164, if given, a string)"
        ) from exc


def read_valid(compact: str, region: str | None) -> tuple[PhoneNumber, str, str] | None:
    """Fast path: (number, E.164, spec type) of compact digits read literally, if valid.

    ``compact`` is ``+`` and digits, or national digits read in ``region`` (trunk prefix
    stripped). None when that reading is not a valid number: then call
    ``phonenumbers.parse``, which reads valid input the same way (pinned by tests over every
    region) at several times the cost.
    """
    try:
        if compact.startswith("+"):
            digits = compact[1:]
            if not (digits.isascii() and digits.isdigit()) or not 3 <= len(digits) <= 17:
                return None
            for length in (1, 2, 3):
                if digits[:length] in _CODES:
                    code, national = int(digits[:length]), digits[length:]
                    break
            else:
                return None
        else:
            rule = national_rule(region) if region else None
            if rule is None or not (compact.isascii() and compact.isdigit()):
                return None
            code, prefix, strippable = rule
            national = compact
            if prefix and compact.startswith(prefix):
                national = compact[len(prefix) :]
            elif any(compact.startswith(other) for other in strippable):
                return None
        # Leading zeros (Italy) and overlong input are for parse() to judge.
        if not national or national[0] == "0" or len(national) > 17:
            return None
        number = PhoneNumber(country_code=code, national_number=int(national))
        e164 = f"+{code}{national}"
        kind = spec_type(number, e164)
        return None if kind == "bad_format" else (number, e164, kind)
    except (TypeError, AttributeError) as exc:  # zero cost on the valid path
        raise ValidationError(
            "compact", "must be a string of digits, optionally after '+'"
        ) from exc


def refusal(text: str) -> str | None:
    """The reason a text may not be read as a number at all, or None (then parse it).

    ``contains_letters``: any letter (never a keypad digit); ``forbidden_character``: anything
    but digits, blanks, ``. - / ( )`` and ``+``; ``misplaced_sign``: a ``+`` that is not the
    single leading one, or a ``-`` before the first digit or after the last.
    """
    try:
        if _LETTER_RE.search(text):
            return "contains_letters"
        if _FORBIDDEN_RE.search(text):
            return "forbidden_character"
        first = _DIGIT_RE.search(text)
        if first is None:
            return None
        head, body = text[: first.start()], text[first.start() :]
        if "+" in body or "-" in _TAIL_RE.findall(body)[0] or not _HEAD_RE.fullmatch(head):
            return "misplaced_sign"
        return None
    except (TypeError, AttributeError) as exc:  # zero cost on the valid path
        raise ValidationError("text", "must be a string") from exc


def main_region(country_code: int | None) -> str | None:
    """The main ISO 3166 region of a country calling code (None when unknown or non-geographic).
    Anything but an integer (a numpy one too) or None is refused: text ``"33"`` read as an
    unknown code, or ``33.0`` read as France, would be a guess."""
    if country_code is None:  # what phonenumbers leaves in a number it could not read
        return None
    try:
        code = None if isinstance(country_code, bool) else operator.index(country_code)
    except TypeError:
        code = None
    if code is None:
        raise ValidationError(
            "country_code", "must be an integer country calling code", value=country_code
        )
    region = phonenumbers.region_code_for_country_code(code)
    return region if len(region) == 2 and region != "ZZ" else None


def region_of(e164: str) -> str | None:
    """ISO 3166 alpha-2 region of a ``+E.164`` number, valid or not (the country it is priced
    and served in); None when the text is not ``+`` and digits or its code is unknown or
    non-geographic.

    A code shared by several regions (+1, +7, +44...) is resolved from the whole number; a
    number of such a code that matches no region gets the code's main region.
    """
    if not (e164.startswith("+") and e164[1:].isdigit()):
        return None
    for length in (1, 2, 3):
        regions = _REGIONS_OF_CODE.get(e164[1 : 1 + length])
        if regions is not None:
            if len(regions) == 1:
                return regions[0] if regions[0] != "001" else None
            return _shared_code_region(e164, length)
    return None


@lru_cache(maxsize=65_536)
def _shared_code_region(e164: str, code_length: int) -> str | None:
    national = e164[1 + code_length :]
    if national[:1] in ("", "0"):  # leading zeros: parse() records them
        try:
            number = phonenumbers.parse(e164, None)
        except NumberParseException:
            return None
    else:
        number = PhoneNumber(
            country_code=int(e164[1 : 1 + code_length]), national_number=int(national)
        )
    return phonenumbers.region_code_for_number(number) or main_region(number.country_code)


def gateway_number(text: str) -> str | None:
    """A number as the gateway reads one it is sent: separators (blanks, ``.-()/``) dropped, a
    leading ``00`` read as ``+``, then E.164 (:func:`is_e164`) or None. The gateway never
    guesses a country; the client sends E.164 only and never relies on this cleaning."""
    compact = _SEPARATORS_RE.sub("", text)
    if compact.startswith("00"):
        compact = "+" + compact[2:]
    return compact if is_e164(compact) else None


def classify(value: Any, default_region: str | None = DEFAULT_REGION) -> PhoneCheck:
    """Check one value (string, int, float, None, NaN) and say why it is rejected, if it is."""
    text = _to_text(value)
    if text is None or text is _NOT_A_NUMBER_TEXT:
        return _EMPTY if text is None else NOT_A_NUMBER
    return classify_text(text, checked_region(default_region))


def to_e164(value: Any, default_region: str | None = DEFAULT_REGION) -> str | None:
    """The E.164 form of a valid number, or None."""
    return classify(value, default_region).e164


# -- internals ---------------------------------------------------------------------------


def checked_region(default_region: str | None) -> str | None:
    if default_region is None:
        return None
    region = str(default_region).upper()
    if not is_region(region):
        raise ValidationError(
            "default_region",
            "must be an ISO 3166 alpha-2 region known to the numbering plan, e.g. 'FR'",
            value=default_region,
        )
    return region


@lru_cache(maxsize=512)
def national_rule(region: str) -> tuple[int, str | None, tuple[str, ...]] | None:
    """Country code, trunk prefix and every prefix parse() may strip, when those are plain
    digits (no transform rule, no carrier-code pattern); None means: always use parse()."""
    meta = PhoneMetadata.metadata_for_region(region)
    if meta is None or meta.country_code is None or meta.national_prefix_transform_rule:
        return None
    parsing = meta.national_prefix_for_parsing
    if parsing is not None and not DIGIT_ALTERNATIVES.fullmatch(parsing):
        return None
    strippable = tuple(parsing.split("|")) if parsing else ()
    prefix = meta.national_prefix
    if strippable and prefix not in strippable:
        return None
    return meta.country_code, prefix, strippable


@lru_cache(maxsize=65_536)
def classify_text(text: str, region: str | None) -> PhoneCheck:
    return _classify_uncached(text, region)


def _classify_uncached(text: str, region: str | None) -> PhoneCheck:
    refused = refusal(text)
    if refused is not None:
        return PhoneCheck(None, False, refused, None, "bad_format")
    compact = _SEPARATORS_RE.sub("", text.replace("(0)", ""))
    if compact.startswith("00"):
        text = compact = "+" + compact[2:]
    fast = read_valid(compact, region)
    if fast is not None:
        return _valid_check(*fast)
    first = _check_parsed(text, region)
    if first.valid or not compact.isdigit() or compact.startswith("0"):
        return first
    # Spreadsheets drop the "+": a digit string invalid at home may be international.
    fast = read_valid("+" + compact, None)
    if fast is not None:
        return _valid_check(*fast)
    second = _check_parsed("+" + compact, None)
    return second if second.valid else first


def _valid_check(number: PhoneNumber, e164: str, kind: str) -> PhoneCheck:
    region = phonenumbers.region_code_for_number(number) or main_region(number.country_code)
    return PhoneCheck(e164, True, "ok", region, kind)


def _check_parsed(text: str, region: str | None) -> PhoneCheck:
    try:
        number = phonenumbers.parse(text, region)
    except NumberParseException as exc:
        reason = _PARSE_REASON.get(exc.error_type, "not_a_number")
        return PhoneCheck(None, False, reason, None, "bad_format")
    e164 = f"+{number.country_code}{phonenumbers.national_significant_number(number)}"
    kind = spec_type(number, e164)
    if kind != "bad_format":
        return _valid_check(number, e164, kind)
    reason = POSSIBLE_REASON[phonenumbers.is_possible_number_with_reason(number)]
    return PhoneCheck(None, False, reason, main_region(number.country_code), "bad_format")
