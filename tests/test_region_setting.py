"""SMSKIT_DEFAULT_REGION: one rule for what the variable may hold, said in a shell's words.

Accepted values are exactly the numbering plan's regions (``phonenumbers.SUPPORTED_REGIONS``,
the oracle here) and the empty string; every other value is refused naming the variable, with
what a shell can set instead (never "None", which no shell can set). Every accepted value is
one the command's ``--region`` accepts, so the option's default can never fail blaming
``--region`` (``XX`` did: exit 2, "Invalid value for '--region'" though none was given)."""

from __future__ import annotations

import itertools
import string

import click
import phonenumbers
import pytest
from hypothesis import given
from hypothesis import strategies as st

from smskit.cli.options import CountryCode
from smskit.errors import ValidationError
from smskit.rules.region import ENV_DEFAULT_REGION, check_region, default_region_setting

TWO_LETTERS = ["".join(pair) for pair in itertools.product(string.ascii_uppercase, repeat=2)]
VALUES = (
    st.sampled_from(TWO_LETTERS)
    | st.sampled_from(TWO_LETTERS).map(str.lower)
    | st.text(max_size=4)
    | st.sampled_from(sorted(phonenumbers.SUPPORTED_REGIONS))
)


@given(VALUES)
def test_the_setting_accepts_the_numbering_plans_regions_and_empty_only(value: str) -> None:
    """A region of the numbering plan is the default; empty is none; anything else is a
    ValidationError naming the variable, saying what a shell can set, never "None"."""
    if value in phonenumbers.SUPPORTED_REGIONS:
        assert default_region_setting({ENV_DEFAULT_REGION: value}) == value
        return
    if value == "":
        assert default_region_setting({ENV_DEFAULT_REGION: value}) is None
        return
    with pytest.raises(ValidationError) as refused:
        default_region_setting({ENV_DEFAULT_REGION: value})
    assert refused.value.field == ENV_DEFAULT_REGION and refused.value.value == value
    assert "None" not in refused.value.rule
    assert "set it empty for no default region" in refused.value.rule
    assert "unset it for FR" in refused.value.rule


@given(VALUES)
def test_a_python_argument_follows_the_same_rule_and_may_be_none(value: str) -> None:
    """check_region (a default_region= argument) accepts the same regions; its refusal
    offers None, which Python can pass."""
    if value in phonenumbers.SUPPORTED_REGIONS:
        assert check_region(value) == value
    else:
        with pytest.raises(ValidationError, match=r", or None \(got ") as refused:
            check_region(value)
        assert refused.value.field == "default_region"
    assert check_region(None) is None


def test_every_accepted_setting_is_a_region_the_option_accepts() -> None:
    """Each of the 676 two-letter codes the setting accepts converts through --region's
    type: the option's default never fails in the option's name."""
    accepted = [code for code in TWO_LETTERS if code in phonenumbers.SUPPORTED_REGIONS]
    assert "FR" in accepted and "XX" not in accepted and "UK" not in accepted
    for code in accepted:
        assert default_region_setting({ENV_DEFAULT_REGION: code}) == code
        assert CountryCode().convert(code, None, None) == code
    with pytest.raises(click.BadParameter):
        CountryCode().convert("XX", None, None)
