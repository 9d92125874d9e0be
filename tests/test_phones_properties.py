"""Numbers are never altered (issue #19): letters, signs and other characters are refused with
their own reason, and valid numbers read exactly as phonenumbers reads them."""

from __future__ import annotations

import pandas as pd
import phonenumbers
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phonenumbers import PhoneNumberFormat, PhoneNumberType

from smskit.errors import ValidationError
from smskit.rules import phonecheck
from smskit.rules.phonecheck import classify, to_e164
from smskit.rules.phones import normalize
from smskit.sandbox._hlr import lookup

REGIONS = sorted(phonenumbers.SUPPORTED_REGIONS)
KINDS = (PhoneNumberType.MOBILE, PhoneNumberType.FIXED_LINE, PhoneNumberType.TOLL_FREE)
FORMATS = (PhoneNumberFormat.E164, PhoneNumberFormat.INTERNATIONAL, PhoneNumberFormat.NATIONAL)
SEPARATORS = (" ", ".", "-", "/", "\u00a0")
# Not letters, not digits, not separators: each one makes a value unreadable.
FORBIDDEN = ("*", "#", ",", ";", "_", "\n", "\r", "\x00", "\u2013", "\uff0b", "~", "=", ":", "'")


@st.composite
def valid_numbers(draw: st.DrawFn) -> tuple[str, str, phonenumbers.PhoneNumber]:
    """(text, region, number): a number phonenumbers calls valid, spelled in a usual format."""
    region = draw(st.sampled_from(REGIONS))
    kind = draw(st.sampled_from(KINDS))
    example = phonenumbers.example_number_for_type(region, kind)
    if example is None:
        example = phonenumbers.example_number(region)
    if example is None:
        example = phonenumbers.parse("+33612345678")
    national = str(example.national_number)
    tail = draw(st.integers(0, 99))
    if len(national) > 4:
        national = national[:-2] + f"{tail:02d}"
    number = phonenumbers.PhoneNumber(
        country_code=example.country_code,
        national_number=int(national),
        italian_leading_zero=example.italian_leading_zero,
        number_of_leading_zeros=example.number_of_leading_zeros,
    )
    text = phonenumbers.format_number(number, draw(st.sampled_from(FORMATS)))
    return text, region, number


def _insert(text: str, piece: str, where: float) -> str:
    at = int(where * (len(text) + 1))
    return text[:at] + piece + text[at:]


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=1, max_size=25), st.characters(categories=("Lu", "Ll", "Lo")))
def test_random_text_with_a_letter_is_never_a_number(text: str, letter: str) -> None:
    """Any string holding a letter is refused as contains_letters, never converted."""
    value = _insert(text, letter, 0.5)
    check = classify(value)
    assert (check.valid, check.e164, check.reason) == (False, None, "contains_letters")
    assert to_e164(value) is None
    assert normalize([value])["reason"].tolist() == ["contains_letters"]


@settings(max_examples=300, deadline=None)
@given(valid_numbers(), st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", min_size=1,
                                max_size=4), st.floats(0, 1))  # fmt: skip
def test_valid_number_with_letters_is_refused(
    drawn: tuple[str, str, phonenumbers.PhoneNumber], letters: str, where: float
) -> None:
    """A valid number with keypad letters anywhere in it is refused, in every region."""
    text, region, _ = drawn
    value = _insert(text, letters, where)
    assert classify(value, region).reason == "contains_letters"
    assert to_e164(value, region) is None


@settings(max_examples=200, deadline=None)
@given(valid_numbers(), st.sampled_from(FORBIDDEN), st.floats(0, 1))
def test_valid_number_with_a_forbidden_character_is_refused(
    drawn: tuple[str, str, phonenumbers.PhoneNumber], char: str, where: float
) -> None:
    """Any character but digits, blanks, . - / ( ) and + makes the value forbidden_character."""
    text, region, _ = drawn
    value = _insert(text, char, where)
    if value.strip() == text:  # a line break at either end is only surrounding blank
        return
    assert classify(value, region).reason == "forbidden_character"


@settings(max_examples=200, deadline=None)
@given(valid_numbers(), st.sampled_from(["-", "--", "+-", "-+", "++", "(-", "- "]))
def test_leading_sign_other_than_one_plus_is_refused(
    drawn: tuple[str, str, phonenumbers.PhoneNumber], sign: str
) -> None:
    """A minus, a double plus or a plus then a minus before a number: misplaced_sign."""
    text, region, _ = drawn
    assert classify(sign + text.lstrip("+"), region).reason == "misplaced_sign"


@settings(max_examples=200, deadline=None)
@given(valid_numbers(), st.sampled_from(["+", "-"]), st.floats(0, 1))
def test_sign_after_the_first_digit_is_refused(
    drawn: tuple[str, str, phonenumbers.PhoneNumber], sign: str, where: float
) -> None:
    """A + anywhere after a digit, or a - after the last digit, is a misplaced sign."""
    text, region, _ = drawn
    digits = [i for i, c in enumerate(text) if c.isdigit()]
    at = digits[0] + 1 + int(where * (len(text) - digits[0] - 1)) if sign == "+" else len(text)
    assert classify(text[:at] + sign + text[at:], region).reason == "misplaced_sign"


@settings(max_examples=400, deadline=None)
@given(valid_numbers(), st.sampled_from(SEPARATORS))
def test_valid_numbers_read_as_phonenumbers_reads_them(
    drawn: tuple[str, str, phonenumbers.PhoneNumber], separator: str
) -> None:
    """Differential: for numbers phonenumbers calls valid, same E.164, same line type."""
    text, region, number = drawn
    if not phonenumbers.is_valid_number(number) or phonecheck.is_stage_and_screen(
        phonenumbers.format_number(number, PhoneNumberFormat.E164)
    ):
        return
    spelled = text.replace(" ", separator)
    reference = phonenumbers.parse(spelled, region)
    expected = phonenumbers.format_number(reference, PhoneNumberFormat.E164)
    kind = phonecheck.TYPE_MAP[phonenumbers.number_type(reference)]
    check = classify(spelled, region)
    assert (check.e164, check.type, check.reason) == (expected, kind, "ok"), spelled
    row = normalize([spelled], region=[region], default_region=None).iloc[0]
    assert (row["e164"], row["type"]) == (expected, kind)


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("+33612345ABC", "contains_letters"),  # was sent to +33612345222
        ("1-800-FLOWERS", "contains_letters"),
        ("tel:+33612345678", "contains_letters"),
        ("06 12 34 56 78 ext. 12", "contains_letters"),
        ("\uff0b33612345678", "forbidden_character"),  # full-width plus
        ("06 12 34 56 78;", "forbidden_character"),
        ("06\n12 34 56 78", "forbidden_character"),
        ("06–12–34–56–78", "forbidden_character"),  # en dash
        ("06*12345678", "forbidden_character"),
        ("-0612345678", "misplaced_sign"),
        ("0612345678-", "misplaced_sign"),
        (-33612345678, "misplaced_sign"),
        (-33612345678.0, "misplaced_sign"),
        ("++33612345678", "misplaced_sign"),
        ("+33+612345678", "misplaced_sign"),
        ("0033 +612345678", "misplaced_sign"),
    ],
)
def test_each_refusal_reason(value: object, reason: str) -> None:
    """Each refusal has its own reason code, listed in REASONS, with type bad_format."""
    check = classify(value)
    assert (check.valid, check.e164, check.reason, check.type) == (
        False,
        None,
        reason,
        "bad_format",
    )
    assert reason in phonecheck.REASONS
    assert normalize([value])["reason"].tolist() == [reason]


@pytest.mark.parametrize(
    "value", ["(+33) 6 12 34 56 78", "+33 (0)6 12 34 56 78", "+33/6.12.34-56-78", "٠٦١٢٣٤٥٦٧٨"]
)
def test_allowed_spellings_still_read(value: str) -> None:
    """Parentheses round a leading +, the four separators and digits of any script are kept."""
    assert to_e164(value) == "+33612345678"


def test_simulated_hlr_never_converts_letters() -> None:
    """The sandbox's HLR answers bad_format for a number with letters, not a converted one."""
    result = lookup("+33612345ABC")
    assert (result["phone_number_type"], result["line_status"]) == ("bad_format", "not_applicable")


def test_per_row_region_reads_each_national_number_in_its_region() -> None:
    """region= gives each row its region; a missing or blank one means the default."""
    frame = normalize(
        ["0612345678", "020 7123 4567", "0612345678", "(212) 736-3100", "+447400123456"],
        region=pd.Series(["FR", "gb", None, "US", ""]),
    )
    assert frame["e164"].tolist() == [
        "+33612345678",
        "+442071234567",
        "+33612345678",
        "+12127363100",
        "+447400123456",
    ]
    assert frame["region"].tolist() == ["FR", "GB", "FR", "US", "GB"]


def test_same_value_in_two_regions_is_read_twice() -> None:
    """Deduplication keys on value and region: one text, two regions, two answers."""
    frame = normalize(["020 7123 4567"] * 2, region=["GB", "FR"], default_region=None)
    assert frame["valid"].tolist() == [True, False]


def test_per_row_region_unknown_code_names_the_row() -> None:
    """An unknown region is refused, naming the field and the first row holding it."""
    with pytest.raises(ValidationError) as caught:
        normalize(["0612345678"] * 3, region=["FR", "FR", "France"])
    assert (caught.value.field, caught.value.position) == ("region", 2)


def test_per_row_region_must_match_the_values() -> None:
    """A region list of another length, or a Series with other labels, is refused."""
    with pytest.raises(ValidationError):
        normalize(["0612345678"] * 3, region=["FR"])
    values = pd.Series(["0612345678"] * 2, index=[10, 11])
    with pytest.raises(ValidationError):
        normalize(values, region=pd.Series(["FR", "GB"], index=[0, 1]))
    aligned = normalize(values, region=pd.Series(["FR", "GB"], index=[10, 11]))
    assert aligned["valid"].tolist() == [True, False]
