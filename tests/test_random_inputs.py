"""Every failure is an smskit error: random values of every type through every public entry point.

The property: a call returns a result or raises an ``smskit.SmskitError`` subclass; never
another exception type, never a hang (a watchdog interrupts a call after 20 s). Client
calls go over real HTTP to a sandbox, with and without client-side validation. Examples are
derandomized, so the suite is repeatable; the regression tests below pin one input of each
raw exception kind the sweep found, with the original exception chained.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from _sweep import (
    FILE_KINDS,
    MISSING_VALUES,
    SCALARS,
    Deep,
    Entry,
    OtherArrowData,
    arguments,
    arrow_data,
    call,
    class_values,
    client_entry_points,
    named_frames,
    pure_entry_points,
    sample_file,
)
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

import smskit
from smskit import frames, phones, text
from smskit.errors import ResponseShapeError
from smskit.sandbox import Sandbox

SWEEP = settings(
    max_examples=50,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
PURE = {entry.name: entry for entry in pure_entry_points()}


def raw_failure(entry: Entry, kwargs: dict[str, Any]) -> str | None:
    """The raw exception a call raised (type, message, arguments), or None."""
    raw = call(entry, kwargs)
    if raw is None:
        return None
    shown = {name: repr(value)[:80] for name, value in kwargs.items()}
    return f"{entry.name} raised {type(raw).__name__}: {raw} for {shown}"


def check(entry: Entry, kwargs: dict[str, Any]) -> None:
    """Fail with the raw exception (type, message, arguments) if the call raised one."""
    failure = raw_failure(entry, kwargs)
    if failure is not None:
        raise AssertionError(failure)


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
    "client.subaccount.credit_transfer_token", "Campaign+preflight+estimate", "Campaign+send",
    "Campaign.resume", "CampaignResult.load", "Composer", "cli send", "bulk_hlr",
    "create_contacts", "delete_contacts",
]  # fmt: skip


@pytest.fixture
def gateway_env(sweep_sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    """SMSKIT_* naming the sweep's sandbox, for the CLI's send."""
    monkeypatch.setenv("SMSKIT_BASE_URL", sweep_sandbox.url)
    monkeypatch.setenv("SMSKIT_API_LOGIN", sweep_sandbox.login)
    monkeypatch.setenv("SMSKIT_API_KEY", sweep_sandbox.api_key)


@pytest.mark.parametrize("validate", [True, False])
@pytest.mark.parametrize("name", CLIENT_ENTRIES)
def test_client_entry_points_raise_only_smskit_errors(
    sweep_sandbox: Sandbox, gateway_env: None, name: str, validate: bool
) -> None:
    """Endpoints, Campaign (construction, preflight, estimate, send, resume, result), the
    Composer, the CLI's send, bulk_hlr and contact helpers."""
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


# Plausible values for required parameters, so that the missing value given to one parameter
# is what the call meets (not a refusal of another parameter first).
PLAUSIBLE_ARGUMENTS: dict[str, Any] = {
    "text": "Code 1234 STOP au 36173", "sender": "Shop", "template": "Bonjour {first_name}",
    "texts": ["Code 1234"], "recipients": ["+33612345678"], "contacts": ["+33612345678"],
    "numbers": ["+33612345678"], "phone_numbers": ["+33612345678"], "values": ["+33612345678"],
    "list_name": "clients", "email_to": "a@b.fr", "journal_path": None,
}  # fmt: skip


def class_failures(entry: Entry, values: dict[str, Any], prepare: Any = None) -> list[str]:
    """Each of ``values`` (:func:`class_values`) in each parameter of ``entry`` (every
    required one plausible otherwise): the raw exceptions raised."""
    base = {name: PLAUSIBLE_ARGUMENTS.get(name, "+33612345678") for name in entry.required}
    failures = []
    for name in (*entry.required, *entry.optional):
        for value in values.values():
            kwargs = {**base, name: value}
            if prepare is not None:
                prepare(kwargs)
            failure = raw_failure(entry, kwargs)
            if failure is not None:
                failures.append(failure)
    return failures


def test_every_class_in_every_parameter_of_pure_functions() -> None:
    """Every missing-value kind, lone surrogates, repeated and non-string column names, Dask
    and Arrow objects and files of every kind, in each parameter of every smskit.text /
    phones / frames function: a result or an SmskitError."""
    values = class_values()
    failures = [f for entry in PURE.values() for f in class_failures(entry, values)]
    assert not failures, "\n".join(failures)


def fresh_journal(kwargs: dict[str, Any]) -> None:
    """A send journals in a new file unless the case is about its journal."""
    kwargs.setdefault("journal", sample_file("empty"))


def dry_run(kwargs: dict[str, Any]) -> None:
    """The CLI checks and costs without sending unless the case is about --dry-run (the
    random sweep sends)."""
    kwargs.setdefault("dry_run", True)


@pytest.mark.parametrize("name", CLIENT_ENTRIES)
def test_every_class_in_every_parameter_of_client_entry_points(
    sweep_sandbox: Sandbox, gateway_env: None, name: str
) -> None:
    """The same values in each parameter of every endpoint, Campaign (every send option),
    its send, resume and result, the Composer, the CLI's send and the bulk helpers."""
    with smskit.Client(sandbox=sweep_sandbox, max_retries=0) as client:
        entry = {e.name: e for e in client_entry_points(client)}[name]
        prepare = {"Campaign+send": fresh_journal, "cli send": dry_run}.get(name)
        values = class_values()
        if name == "cli send":  # a command line passes text: the values that are text or paths
            values = {k: v for k, v in values.items() if isinstance(v, str | Path)}
        failures = class_failures(entry, values, prepare)
    assert not failures, "\n".join(failures)


def test_strategies_generate_every_class() -> None:
    """The sweep's random values include each class: a lone surrogate inside text, every
    missing-value kind, Dask, Arrow and polars objects and files of every kind among the
    scalars ``ANY`` is built on, repeated and non-string column names among its DataFrames,
    Arrow and polars tables and arrays of random cells (text, numbers, bytes, nested) among
    its containers (so the random sweep, not only the lists above, meets them)."""
    scalars: dict[str, Any] = {
        "text with a lone surrogate": lambda v: isinstance(v, str)
        and len(v) > 1 and any("\ud800" <= c <= "\udfff" for c in v),
        **{f"missing {m!r}": (lambda v, m=m: type(v) is type(m) and repr(v) == repr(m))
           for m in MISSING_VALUES},
        "dask collection": lambda v: hasattr(type(v), "__dask_graph__"),
        "arrow object": lambda v: type(v).__module__.startswith("pyarrow"),
        "polars object": lambda v: type(v).__module__.startswith("polars"),
        "other library's arrow data": lambda v: isinstance(v, OtherArrowData),
        **{f"file: {kind}": (lambda v, kind=kind: isinstance(v, Path) and v.name.endswith(kind))
           for kind in FILE_KINDS},
    }  # fmt: skip
    frames: dict[str, Any] = {
        "repeated column": lambda v: isinstance(v, pd.DataFrame) and v.columns.duplicated().any(),
        "non-string column": lambda v: (
            isinstance(v, pd.DataFrame) and any(not isinstance(c, str) for c in v.columns)
        ),
    }
    arrow: dict[str, Any] = {
        "arrow table of text": lambda v: isinstance(v, pa.Table)
        and pa.types.is_string(v.schema.field(0).type),
        "arrow table of integers": lambda v: isinstance(v, pa.Table)
        and pa.types.is_integer(v.schema.field(0).type),
        "arrow table of bytes": lambda v: isinstance(v, pa.Table)
        and pa.types.is_binary(v.schema.field(0).type),
        "arrow nested column": lambda v: isinstance(v, pa.Table)
        and pa.types.is_nested(v.schema.field(0).type),
        "arrow array": lambda v: isinstance(v, pa.Array),
        "polars frame of text": lambda v: isinstance(v, pl.DataFrame)
        and v.dtypes[0] == pl.String,
        "polars series": lambda v: isinstance(v, pl.Series),
    }  # fmt: skip
    # ANY gives arrow_data its own values, lists among them: a list cell is drawn here.
    cells = SCALARS | st.lists(SCALARS, max_size=2)
    for strategy, classes in [
        (SCALARS, scalars), (named_frames(SCALARS), frames), (arrow_data(cells), arrow),
    ]:  # fmt: skip
        found = first_of_each(strategy, classes)
        for label, predicate in classes.items():
            assert label in found and predicate(found[label]), label


def first_of_each(strategy: Any, classes: dict[str, Any]) -> dict[str, Any]:
    """The first value of each class among up to 2,000 derandomized draws of ``strategy``,
    all classes looked for in one run (no shrinking: the first value shows it is drawn)."""
    draw = settings(database=None, derandomize=True, max_examples=2000, phases=[Phase.generate])
    found: dict[str, Any] = {}

    def every_class_drawn(value: Any) -> bool:
        for label, predicate in classes.items():
            if label not in found and predicate(value):
                found[label] = value
        return len(found) == len(classes)

    with contextlib.suppress(NoSuchExample):
        find(strategy, every_class_drawn, settings=draw)
    return found


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
