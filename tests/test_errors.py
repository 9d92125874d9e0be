"""The error tree: shape as drawn in the module docstring, and messages that say what failed."""

from __future__ import annotations

import inspect

import pytest

import smskit
from smskit import errors


@pytest.mark.parametrize(
    ("child", "parent"),
    [
        (errors.ConfigurationError, errors.SmskitError),
        (errors.ValidationError, errors.SmskitError),
        (errors.ValidationError, ValueError),
        (errors.TransportError, errors.SmskitError),
        (errors.TimeoutError, errors.TransportError),
        (errors.APIError, errors.SmskitError),
        (errors.AuthenticationError, errors.APIError),
        (errors.StopMentionMissingError, errors.APIError),
        (errors.InsufficientCreditError, errors.APIError),
        (errors.PayloadValidationError, errors.APIError),
        (errors.DuplicateRequestError, errors.PayloadValidationError),
        (errors.NotFoundError, errors.APIError),
        (errors.RateLimitError, errors.APIError),
        (errors.ServerError, errors.APIError),
    ],
)
def test_tree_matches_the_issue(child: type, parent: type) -> None:
    """Each error sits under the parent the issue asks for, so except clauses catch families."""
    assert issubclass(child, parent)


def test_docstring_draws_every_public_error() -> None:
    """The module docstring's tree names every class in errors.__all__."""
    drawing = inspect.getdoc(errors) or ""
    for name in errors.__all__:
        assert name in drawing


def test_every_error_is_reexported_by_the_package() -> None:
    """smskit.XError is smskit.errors.XError for every error."""
    for name in errors.__all__:
        assert getattr(smskit, name) is getattr(errors, name)


@pytest.mark.parametrize(
    ("field", "position", "expected"),
    [
        ("sender", None, "sender: must have 3 to 11 characters (got 'AB')"),
        ("phone_numbers", 4, "phone_numbers[4]: must have 3 to 11 characters (got 'AB')"),
        (
            "recipients.phone_number",
            3,
            "recipients[3].phone_number: must have 3 to 11 characters (got 'AB')",
        ),
    ],
)
def test_validation_message_names_field_position_and_rule(
    field: str, position: int | None, expected: str
) -> None:
    """Field, position (inside the path for nested fields), rule, then the value."""
    error = errors.ValidationError(
        field, "must have 3 to 11 characters", position=position, value="AB"
    )
    assert str(error) == expected
    assert (error.field, error.position, error.value) == (field, position, "AB")


def test_long_values_are_shortened_in_messages() -> None:
    """A huge value does not flood a notebook: it is cut to 60 characters."""
    error = errors.ValidationError("text", "too long", value="x" * 5000)
    assert len(str(error)) < 100 and str(error).endswith("...)")


def test_api_error_message_has_status_code_and_field_errors() -> None:
    """HTTP status, gateway code, message and each field error appear in str()."""
    error = errors.PayloadValidationError(
        "Payload validation error.",
        status_code=400,
        code=400,
        errors={"sender": {"code": 411, "message": "too long"}},
    )
    assert (
        str(error) == "HTTP 400, code 400: Payload validation error. (sender: too long (code 411))"
    )
    assert error.errors["sender"]["code"] == 411


def test_rate_limit_error_carries_retry_after() -> None:
    """RateLimitError keeps the wait the gateway asked for."""
    error = errors.RateLimitError("slow down", retry_after=2.0, status_code=429, code=429)
    assert error.retry_after == 2.0 and error.status_code == 429


def test_a_refusal_moved_to_its_row_in_a_larger_input_keeps_its_advice() -> None:
    """ValidationError.at: a Dask partition's (or an experiment arm's) refusal re-raised at
    its row in the whole input. The Dask orders path and Experiment rebuilt the error from
    field, rule, value and line, and lost the fact and remedy the shell words its advice from."""
    from smskit.errors import ValidationError, advised

    first = advised(
        ValidationError("recipients", "is a float", position=7, value=3.3e10, line=9),
        "a number read as a float",
        "dtype",
    )
    moved = first.at(27)
    assert str(moved) == "recipients[27]: is a float (got 33000000000.0)"
    assert (moved.field, moved.rule, moved.position, moved.value, moved.line) == (
        "recipients", "is a float", 27, 3.3e10, 9,
    )  # fmt: skip
    assert (moved.fact, moved.remedy) == ("a number read as a float", ("dtype",))
    assert first.position == 7 and str(first).startswith("recipients[7]:")
