"""The sandbox reads numbers with the rule book: the gateway's leniency and number -> country."""

from __future__ import annotations

import re

import phonenumbers
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smskit.rules import phones
from smskit.rules.phones import gateway_number, region_of
from smskit.sandbox import _hlr
from smskit.sandbox._casting import normalize_phone

# The sandbox's own reading before it asked the rule book, kept as the reference its lenient
# behaviour must not drift from: separators dropped one by one, "00" as "+", then E.164.
_OLD_SEPARATORS = re.compile(r"[\s\-.()/\u00a0]")
_OLD_E164 = re.compile(r"\+[1-9][0-9]{6,14}")


def old_reading(text: str) -> str | None:
    """The sandbox's former normalize_phone on a string."""
    text = _OLD_SEPARATORS.sub("", text)
    if text.startswith("00"):
        text = "+" + text[2:]
    return text if _OLD_E164.fullmatch(text) else None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (" +33 6 12-34.56(78)", "+33612345678"),
        ("0033612345678", "+33612345678"),
        ("+33\u00a0612/345678", "+33612345678"),
        ("\t+44 7911 123456\n", "+447911123456"),
        ("0612345678", None),  # national: the gateway never guesses a country
        ("+0612345678", None),
        ("++33612345678", None),
        ("+33612345ABC", None),
        ("+331234", None),  # 6 digits: E.164 has 7 to 15
    ],
)
def test_gateway_number_reads_like_the_gateway(text: str, expected: str | None) -> None:
    """Separators and a leading 00 are read; anything else that is not E.164 is refused."""
    assert gateway_number(text) == expected
    assert normalize_phone(text) == expected


@settings(max_examples=400)
@given(st.text(alphabet="+0123456789 -.()/\u00a0\t\nA٣", max_size=22))
def test_sandbox_reading_has_not_drifted(text: str) -> None:
    """The sandbox's reading through the rule book equals its former one on any text."""
    assert normalize_phone(text) == old_reading(text)


@settings(max_examples=400)
@given(st.text(alphabet="0123456789", min_size=6, max_size=15))
def test_what_the_client_sends_the_sandbox_reads_unchanged(digits: str) -> None:
    """An E.164 number (what the client sends) is read as itself; anything else is refused."""
    number = "+" + digits
    assert (normalize_phone(number) == number) == phones.is_e164(number)


@pytest.mark.parametrize(
    ("number", "region"),
    [
        ("+33612345678", "FR"),
        ("+12127363100", "US"),  # 212: New York
        ("+14165551234", "CA"),  # 416: Toronto, same +1 code
        ("+441534123456", "JE"),  # 01534: Jersey, same +44 code
        ("+79161234567", "RU"),
        ("+77012345678", "KZ"),  # 70x: Kazakh mobiles, same +7 code
        ("+80012345678", None),  # international freephone: no country
        ("33612345678", None),  # no '+'
        ("+999123", None),  # no such country code
    ],
)
def test_region_of(number: str, region: str | None) -> None:
    """region_of resolves shared country codes from the whole number; None when no country."""
    assert region_of(number) == region


EXAMPLES = sorted(
    phonenumbers.format_number(example, phonenumbers.PhoneNumberFormat.E164)
    for region in phonenumbers.SUPPORTED_REGIONS
    for kind in (phonenumbers.PhoneNumberType.MOBILE, phonenumbers.PhoneNumberType.FIXED_LINE)
    if (example := phonenumbers.example_number_for_type(region, kind)) is not None
)


def test_preflight_and_sandbox_agree_on_the_country_of_valid_numbers() -> None:
    """Every region's example numbers: the client's reading (classify) and the sandbox's
    pricing country and HLR country are one region (non-geographic codes: no country)."""
    assert len(EXAMPLES) > 400
    for number in EXAMPLES:
        check = phones.classify(number, None)
        if not check.valid:
            continue
        expected = None if check.region == "001" else check.region
        assert region_of(number) == expected, number
        assert _hlr.lookup(number)["country_code"] == expected, number
