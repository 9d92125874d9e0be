"""Every failure is an smskit error: random values of every type through every public entry point.

The property: a call returns a result or raises an ``smskit.SmskitError`` subclass; never
another exception type, never a hang (a watchdog interrupts a call after 20 s). Client
calls go over real HTTP to a sandbox, with and without client-side validation. Examples are
derandomized, so the suite is repeatable; the regression tests below pin one input of each
raw exception kind the sweep found, with the original exception chained.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest
from _sweep import Deep, Entry, arguments, call, client_entry_points, pure_entry_points
from hypothesis import HealthCheck, given, settings

import smskit
from smskit import frames, phones, text
from smskit.client.models import ResponseShapeError
from smskit.sandbox import Sandbox

SWEEP = settings(
    max_examples=50,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
PURE = {entry.name: entry for entry in pure_entry_points()}


def check(entry: Entry, kwargs: dict[str, Any]) -> None:
    """Fail with the raw exception (type, message, arguments) if the call raised one."""
    raw = call(entry, kwargs)
    if raw is not None:
        shown = {name: repr(value)[:80] for name, value in kwargs.items()}
        raise AssertionError(f"{entry.name} raised {type(raw).__name__}: {raw} for {shown}")


@pytest.mark.parametrize("name", sorted(PURE))
def test_pure_functions_raise_only_smskit_errors(name: str) -> None:
    """smskit.text / phones / frames functions: a result or an SmskitError, for any values."""
    entry = PURE[name]

    @SWEEP
    @given(arguments(entry))
    def sweep(kwargs: dict[str, Any]) -> None:
        check(entry, kwargs)

    sweep()


@pytest.fixture(scope="module")
def sweep_sandbox() -> Iterator[Sandbox]:
    """A sandbox of its own: random sends and contacts must not disturb other tests."""
    with Sandbox(seed=0) as sb:
        yield sb


CLIENT_ENTRIES = [
    "client.sms_campaign.send", "client.sms_campaign.draft", "client.voice_campaign.draft",
    "client.contact.create", "client.contact.delete", "client.contact.hlr_request",
    "client.contact_list.empty", "client.wallet.check_balance", "client.wallet.check_credits",
    "client.subaccount.credit_transfer_token", "Campaign+preflight+estimate", "bulk_hlr",
    "create_contacts", "delete_contacts",
]  # fmt: skip


@pytest.mark.parametrize("validate", [True, False])
@pytest.mark.parametrize("name", CLIENT_ENTRIES)
def test_client_entry_points_raise_only_smskit_errors(
    sweep_sandbox: Sandbox, name: str, validate: bool
) -> None:
    """Endpoints, Campaign (construction, preflight, estimate), bulk_hlr and contact helpers."""
    with smskit.Client(sandbox=sweep_sandbox, max_retries=0, validate=validate) as client:
        entry = {e.name: e for e in client_entry_points(client)}[name]

        @SWEEP
        @given(arguments(entry))
        def sweep(kwargs: dict[str, Any]) -> None:
            check(entry, kwargs)

        sweep()


def test_every_public_entry_point_is_swept(sweep_sandbox: Sandbox) -> None:
    """The lists above cover every public function and endpoint (a new one joins the sweep)."""
    functions = {
        f"{module.__name__}.{name}"
        for module in (text, phones, frames)
        for name in module.__all__
        if callable(getattr(module, name)) and not isinstance(getattr(module, name), type)
    }
    assert functions == set(PURE)
    with smskit.Client(sandbox=sweep_sandbox) as client:
        assert {e.name for e in client_entry_points(client)} == set(CLIENT_ENTRIES)


# --- one regression test per raw exception kind the sweep found ------------------------------


def raised(fn: Any, *args: Any, **kwargs: Any) -> smskit.SmskitError:
    """The SmskitError ``fn`` raises (fails if it raises nothing or something else)."""
    with pytest.raises(smskit.SmskitError) as caught:
        fn(*args, **kwargs)
    return caught.value


def test_type_error_becomes_validation_error() -> None:
    """A list as a template was "unhashable type" from the parse cache; now names the field."""
    error = raised(text.fields, ["Bonjour {first_name}"])
    assert isinstance(error, smskit.ValidationError) and error.field == "text"
    error = raised(text.analyze_many, ["a"], national=["pt"])
    assert isinstance(error, smskit.ValidationError) and error.field == "national"


def test_attribute_error_becomes_validation_error_with_cause() -> None:
    """is_stage_and_screen(None) was 'NoneType has no attribute startswith'; cause kept."""
    error = raised(phones.is_stage_and_screen, None)
    assert isinstance(error, smskit.ValidationError) and error.field == "e164"
    assert isinstance(error.__cause__, AttributeError)


def test_key_error_becomes_validation_error_with_cause() -> None:
    """credits_wide of an empty answer was a pandas KeyError on the product columns."""
    error = raised(frames.credits_wide, pd.Series([], dtype=object))
    assert isinstance(error, smskit.ValidationError) and error.field == "credits"
    assert isinstance(error.__cause__, KeyError)


def test_value_error_of_ambiguous_flag_becomes_validation_error(sweep_sandbox: Sandbox) -> None:
    """validate=<DataFrame> was pandas' "truth value is ambiguous" ValueError."""
    with smskit.Client(sandbox=sweep_sandbox, max_retries=0) as client:
        error = raised(client.contact_list.empty, "clients", validate=pd.DataFrame({"a": [1]}))
    assert isinstance(error, smskit.ValidationError) and error.field == "validate"


def test_response_shape_error_is_an_smskit_error() -> None:
    """balance_frame(None) raised ResponseShapeError, a bare ValueError; now an SmskitError."""
    error = raised(frames.balance_frame, None)
    assert isinstance(error, ResponseShapeError) and isinstance(error, ValueError)


def test_unencodable_value_without_validation_names_the_field(sweep_sandbox: Sandbox) -> None:
    """validate=False and a set in the body was httpx's TypeError; now names the field."""
    with smskit.Client(sandbox=sweep_sandbox, max_retries=0, validate=False) as client:
        error = raised(client.contact_list.empty, {"clients"})
        nan = raised(client.subaccount.credit_transfer_token, float("nan"))
    assert isinstance(error, smskit.ValidationError) and error.field == "list_name"
    assert isinstance(error.__cause__, TypeError)
    assert isinstance(nan, smskit.ValidationError) and nan.field == "email_to"
    assert isinstance(nan.__cause__, ValueError)


def test_recursion_error_becomes_validation_error(sweep_sandbox: Sandbox) -> None:
    """A list nested 3,000 deep overflowed repr() and json; now a ValidationError."""
    deep = Deep(3000)
    with pytest.raises(RecursionError):
        json.dumps(deep)  # the raw failure the client used to let through
    with smskit.Client(sandbox=sweep_sandbox, max_retries=0, validate=False) as client:
        error = raised(client.contact.hlr_request, deep)
        credits = raised(client.wallet.check_credits, deep)
    assert isinstance(error, smskit.ValidationError) and error.field == "phone_numbers"
    assert isinstance(credits, smskit.ValidationError) and credits.field == "country_codes"
    fields = raised(text.field_texts, ["a", deep])
    assert isinstance(fields, smskit.ValidationError) and (fields.field, fields.position) == (
        "field",
        1,
    )
