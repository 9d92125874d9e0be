"""The suite's Hypothesis examples are never failed for their time (tests/conftest.py's profile)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st


def test_the_loaded_profile_has_no_deadline() -> None:
    """Every @given test without a deadline of its own runs with none: speed is benchmarks'."""
    assert settings().deadline is None


@given(st.integers())
def test_a_given_test_inherits_no_deadline(_value: int) -> None:
    """Inside a @given test the settings in force have no deadline either."""
    assert settings.default is not None and settings.default.deadline is None
