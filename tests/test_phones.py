"""Phone-number normalisation: messy input, reasons, types, frame shape, deduplication."""

from __future__ import annotations

import math
import random

import numpy as np
import pandas as pd
import phonenumbers
import pytest
from phonenumbers import PhoneNumberFormat, PhoneNumberType

from smskit.errors import ValidationError
from smskit.rules import phonecheck, phones
from smskit.rules import spec as _spec
from smskit.rules.phonecheck import classify, is_e164, to_e164
from smskit.rules.phones import normalize


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("+33612345678", True),
        ("+6834002", True),  # Niue: 3-digit code + 4 digits, the shortest E.164 numbers
        ("+683400", False),  # 6 digits
        ("+" + "1" * 15, True),  # E.164 maximum
        ("+" + "1" * 16, False),
        ("33612345678", False),  # no '+'
        ("+033612345678", False),  # no country code starts with 0
        ("+33 612345678", False),  # spaces are not E.164
        ("+33612345678\n", False),
        ("+３３６１２３４５６７８", False),  # full-width digits
        (33612345678, False),  # not a string
        (None, False),
    ],
)
def test_is_e164(value: object, expected: bool) -> None:
    """is_e164: '+', first digit 1-9, 7 to 15 ASCII digits in all, nothing else."""
    assert is_e164(value) is expected


@pytest.mark.parametrize(
    "value",
    [
        "06 12 34 56 78",
        "06.12.34.56.78",
        "06-12-34-56-78",
        "(06) 12 34 56 78",
        "  0612345678\t",
        "+33 (0)6 12 34 56 78",
        "+33 6 12 34 56 78",
        "0033 6 12 34 56 78",
        "0033612345678",
        "33612345678",  # spreadsheet dropped the '+'
        "33612345678.0",  # a float column written back as text
        33612345678.0,  # read as float from a CSV
        np.float64(33612345678.0),
        33612345678,
        np.int64(612345678),  # read as int: the leading 0 is gone
        612345678,
    ],
)
def test_messy_french_mobile_becomes_e164(value: object) -> None:
    """Every usual spelling of the French mobile 06 12 34 56 78 gives +33612345678."""
    assert to_e164(value) == "+33612345678"


@pytest.mark.parametrize(
    ("value", "region", "expected"),
    [
        ("020 7123 4567", "GB", "+442071234567"),
        ("(212) 736-3100", "US", "+12127363100"),
        ("011 33 6 12 34 56 78", "US", "+33612345678"),  # US international prefix
        ("+44 20 7123 4567", "FR", "+442071234567"),  # explicit code beats the default
        ("447400123456", "FR", "+447400123456"),  # digits only, invalid in France
        ("0612345678", "fr", "+33612345678"),  # region is case-insensitive
    ],
)
def test_default_region_reads_national_numbers(value: str, region: str, expected: str) -> None:
    """National numbers are read in the default region; international ones are kept."""
    assert to_e164(value, default_region=region) == expected


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (None, "empty"),
        (float("nan"), "empty"),
        (pd.NA, "empty"),
        ("", "empty"),
        ("   ", "empty"),
        ("call me", "contains_letters"),
        ("(...)", "not_a_number"),
        (True, "not_a_number"),
        (6.5, "not_a_number"),
        (math.inf, "not_a_number"),
        ("+999 123 456", "invalid_country_code"),  # no country has code 999
        ("0612", "too_short"),
        ("+33 6 12 34 56 7", "too_short"),  # French numbers have 9 national digits
        ("+33 6 12 34 56 78 90", "too_long"),
        ("+33 7 00 00 00 00", "invalid_number"),  # right length, unallocated 070 block
    ],
)
def test_rejection_reasons(value: object, reason: str) -> None:
    """Each rejected value gets one of the documented reasons, no E.164, type bad_format."""
    check = classify(value)
    assert check.reason == reason
    assert check.reason in phonecheck.REASONS
    assert (check.valid, check.e164, check.type) == (False, None, "bad_format")


def test_invalid_number_of_known_country_keeps_its_region() -> None:
    """A French number that is too short is still attributed to France."""
    assert classify("+33 6 12 34 56 7").region == "FR"


def test_without_default_region_national_numbers_are_rejected() -> None:
    """default_region=None accepts only international input."""
    assert classify("06 12 34 56 78", None).reason == "invalid_country_code"
    assert to_e164("+33 6 12 34 56 78", None) == "+33612345678"


def test_unknown_default_region_is_a_validation_error() -> None:
    """A default region that does not exist is refused, naming the parameter."""
    with pytest.raises(ValidationError) as caught:
        normalize(["0612345678"], default_region="XX")
    assert caught.value.field == "default_region"


@pytest.mark.parametrize(
    ("value", "kind", "region"),
    [
        ("06 12 34 56 78", "mobile", "FR"),
        ("07 81 23 45 67", "mobile", "FR"),
        ("01 40 00 00 00", "landline", "FR"),  # Paris
        ("0800 12 34 56", "toll_free", "FR"),  # numéro vert
        ("09 51 23 45 67", "voip", "FR"),  # 09: VoIP/box numbers
        ("+44 7400 123456", "mobile", "GB"),
        ("+44 161 234 5678", "landline", "GB"),  # Manchester
        ("+1 212 736 3100", "mobile_or_landline", "US"),  # NANP: either
        ("+1 800 234 5678", "toll_free", "US"),
        ("+41 78 123 45 67", "mobile", "CH"),
    ],
)
def test_line_types_use_spec_values(value: str, kind: str, region: str) -> None:
    """Valid numbers get the spec's phone_number_type and their ISO region."""
    check = classify(value)
    assert (check.valid, check.reason, check.type, check.region) == (True, "ok", kind, region)


@pytest.mark.parametrize(
    "value", ["+44 20 7946 0123", "+44 7700 900123", "+44 1632 960000", "+1 212 555 0150"]
)
def test_drama_numbers_are_valid_stage_and_screen(value: str) -> None:
    """Regulator numbers reserved for fiction are accepted and flagged stage_and_screen."""
    check = classify(value)
    assert (check.valid, check.type) == (True, "stage_and_screen")
    assert check.e164 == "+" + "".join(c for c in value if c.isdigit())


def test_frame_columns_and_dtypes() -> None:
    """normalize returns the documented columns, with categoricals over the closed sets."""
    frame = normalize(["06 12 34 56 78", "nope", None])
    assert list(frame.columns) == ["input", "e164", "valid", "reason", "region", "type"]
    assert frame["e164"].dtype == pd.StringDtype()
    assert frame["region"].dtype == pd.StringDtype()
    assert frame["valid"].dtype == bool
    assert list(frame["reason"].cat.categories) == list(phonecheck.REASONS)
    assert list(frame["type"].cat.categories) == list(_spec.PHONE_NUMBER_TYPE)
    assert frame["e164"].tolist() == ["+33612345678", pd.NA, pd.NA]
    assert frame["valid"].tolist() == [True, False, False]
    assert frame["reason"].tolist() == ["ok", "contains_letters", "empty"]
    assert frame["type"].tolist() == ["mobile", "bad_format", "bad_format"]


def test_frame_keeps_the_series_index_and_inputs() -> None:
    """A Series keeps its index, and `input` holds the original values untouched."""
    values = pd.Series([33612345678.0, np.nan, 612345678.0], index=["a", "b", "c"])
    frame = normalize(values)
    assert list(frame.index) == ["a", "b", "c"]
    assert frame.loc["a", "input"] == 33612345678.0
    assert math.isnan(frame.loc["b", "input"])
    assert frame["e164"].tolist() == ["+33612345678", pd.NA, "+33612345678"]


def test_empty_input_gives_empty_typed_frame() -> None:
    """No values: zero rows, same columns and dtypes."""
    frame = normalize([])
    assert len(frame) == 0
    assert list(frame.columns) == ["input", "e164", "valid", "reason", "region", "type"]
    assert list(frame["reason"].cat.categories) == list(phonecheck.REASONS)


@pytest.mark.parametrize("path", ["lane", "per number"])
def test_duplicates_are_parsed_once(monkeypatch: pytest.MonkeyPatch, path: str) -> None:
    """Equal values are read once, by the whole-array lane or (fewer than ``LANE_MIN_ROWS``
    in a region) number by number; a float is read as the text of its digits."""
    seen: list[str] = []
    if path == "lane":
        monkeypatch.setattr(phones, "LANE_MIN_ROWS", 1)
        express = phones._phonematrix.express

        def counting(texts: list[str], region: str | None, words: object) -> object:
            seen.extend(texts)
            return express(texts, region, words)  # type: ignore[arg-type]

        monkeypatch.setattr(phones._phonematrix, "express", counting)
    else:
        classify = phones.classify_text

        def counting_one(text: str, region: str | None) -> object:
            seen.append(text)
            return classify(text, region)

        monkeypatch.setattr(phones, "classify_text", counting_one)
    values = ["06 12 34 56 78"] * 3 + [33612345678.0, 33612345678.0, "33612345678", None]
    frame = normalize(values)
    # Distinct raw values are read once each, even when two clean to one text: a second pass
    # of hashing every text would cost more than those rare repeats.
    assert sorted(seen) == ["06 12 34 56 78", "33612345678", "33612345678"]
    assert frame["valid"].tolist() == [True] * 6 + [False]


def test_fast_reading_agrees_with_phonenumbers_parse_in_every_region() -> None:
    """National and international spellings of every region's examples read like parse() does."""
    rng = random.Random(4)
    kinds = (PhoneNumberType.MOBILE, PhoneNumberType.FIXED_LINE, PhoneNumberType.TOLL_FREE)
    checked = 0
    for region in sorted(phonenumbers.SUPPORTED_REGIONS):
        for kind in kinds:
            example = phonenumbers.example_number_for_type(region, kind)
            if example is None:
                continue
            national = phonenumbers.format_number(example, PhoneNumberFormat.NATIONAL)
            spelled = national[:-2] + f"{rng.randrange(100):02d}"
            for text in (national, spelled):
                reference = phonenumbers.parse(text, region)
                expected = phonenumbers.format_number(reference, PhoneNumberFormat.E164)
                if phonenumbers.is_valid_number(reference):
                    assert to_e164(text, region) == expected, (region, text)
                    compact = "".join(c for c in expected if c.isdigit())
                    assert to_e164("+" + compact, None) == expected
                    checked += 1
    assert checked > 400


@pytest.mark.parametrize("code", ["33", 33.0, 33.5, True, [33], b"33"])
def test_main_region_refuses_a_country_code_that_is_not_an_integer(code: object) -> None:
    """A calling code that is not an integer is refused naming country_code and the value:
    text "33" was read as an unknown code (None) and 33.0 as France, both guesses."""
    with pytest.raises(ValidationError) as refused:
        phonecheck.main_region(code)  # type: ignore[arg-type]
    assert refused.value.field == "country_code"
    assert refused.value.rule == "must be an integer country calling code"
    assert refused.value.value == code


@pytest.mark.parametrize(
    ("code", "region"), [(33, "FR"), (np.int64(33), "FR"), (1, "US"), (800, None), (None, None)]
)
def test_main_region_of_an_integer_code(code: object, region: str | None) -> None:
    """An integer code (numpy's too) gives its main region; a non-geographic one None."""
    assert phonecheck.main_region(code) == region  # type: ignore[arg-type]
