"""The sandbox's one numeric check (balance, amounts, prices, rates, latency, clock)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from smskit.errors import ValidationError
from smskit.sandbox import Sandbox
from smskit.sandbox._numbers import checked_number


@given(value=st.floats(allow_nan=True, allow_infinity=True), above=st.booleans())
def test_a_number_is_taken_exactly_when_finite_and_in_range(value: float, above: bool) -> None:
    """Accepted iff finite and within [0, 1] (0 excluded when ``above``); the error names
    the field."""
    fits = math.isfinite(value) and (value > 0 if above else value >= 0) and value <= 1
    if fits:
        assert checked_number("rate", value, high=1.0, above=above) == value
    else:
        with pytest.raises(ValidationError, match="rate: must be a finite number between 0"):
            checked_number("rate", value, high=1.0, above=above)


@pytest.mark.parametrize("value", [True, "1", None, [1]])
def test_a_bool_or_a_non_number_is_refused_naming_the_unit(value: object) -> None:
    """True is not 1 EUR; a string or None is not a number either."""
    with pytest.raises(ValidationError, match="amount: must be a number of EUR"):
        checked_number("amount", value, unit=" of EUR")


def test_every_sandbox_setter_refuses_through_it() -> None:
    """Balance, price, pack amount and clock all refuse a negative or infinite value."""
    with Sandbox(seed=0) as box:
        with pytest.raises(ValidationError, match="amount: must be a finite number >= 0"):
            box.set_balance(-1)
        with pytest.raises(ValidationError, match="price: must be a finite number > 0"):
            box.set_price("FR", "sms_premium", 0)
        with pytest.raises(ValidationError, match="seconds: must be a finite number >= 0"):
            box.advance(math.inf)
    with pytest.raises(ValidationError, match="balance: must be a finite number >= 0"):
        Sandbox(balance=-0.5)
