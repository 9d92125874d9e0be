"""A NumPy number is the number it holds: a count, seed or limit given as ``np.int64`` (a
size computed from a frame) behaves exactly like the same Python int and is kept as one
(``smskit.rules.ranges``); a bool or a float is still refused with the same sentence."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import smskit
from smskit.campaigns.analysis.split import assign_arms
from smskit.campaigns.campaign import Campaign
from smskit.campaigns.planning.holdout import Holdout
from smskit.campaigns.sending.journal import Journal
from smskit.errors import ValidationError
from smskit.rules.caps import FrequencyCap
from smskit.rules.links import new_tokens
from smskit.rules.personalize import render_all
from smskit.rules.ranges import (
    checked_integer,
    checked_number,
    checked_probability,
    checked_seconds,
)
from smskit.sandbox import Sandbox
from smskit.sandbox._callbacks import script_campaign_replies
from smskit.sandbox._faults import Faults
from smskit.sandbox._reports import CallbackFaults, DeliveryModel
from smskit.views.percentages import percentages

INT_KINDS: list[Callable[[int], Any]] = [np.int64, np.int32]
TEXT = "Promo -20% ce week-end. STOP au 36173"


def _outcome(check: Callable[[Any], Any], value: Any) -> tuple[str, Any]:
    """What ``check(value)`` does: its answer, or the refusal's field and rule."""
    try:
        return "taken", check(value)
    except ValidationError as refusal:
        return "refused", (refusal.field, refusal.rule)


@given(
    value=st.integers(-(2**31), 2**31 - 1),
    low=st.none() | st.integers(-5, 5),
    high=st.none() | st.integers(-5, 600),
    kind=st.sampled_from(INT_KINDS),
)
def test_a_numpy_integer_is_checked_as_the_same_python_int(
    value: int, low: int | None, high: int | None, kind: Callable[[int], Any]
) -> None:
    """checked_integer answers a NumPy integer as it answers the same int, with a plain int."""

    def check(v: Any) -> int:
        return checked_integer("n", v, low=low, high=high)

    expected, got = _outcome(check, value), _outcome(check, kind(value))
    assert got == expected
    if got[0] == "taken":
        assert type(got[1]) is int


@pytest.mark.parametrize(
    "value",
    [True, False, np.bool_(True), 100.0, np.float64(100.0), np.float32(100.0),
     np.timedelta64(100), "100", None],
)  # fmt: skip
def test_a_bool_a_float_or_a_duration_is_still_no_integer(value: Any) -> None:
    """Refused with the sentence an out-of-range int gets: the field, the rule, the value."""
    with pytest.raises(ValidationError) as out_of_range:
        checked_integer("chunk_size", 501, low=1, high=500)
    with pytest.raises(ValidationError) as refused:
        checked_integer("chunk_size", value, low=1, high=500)
    assert (refused.value.field, refused.value.rule) == ("chunk_size", out_of_range.value.rule)
    assert refused.value.rule == "must be an integer from 1 to 500"
    assert refused.value.value is value


@given(
    value=st.floats(allow_nan=True, allow_infinity=True, width=32),
    kind=st.sampled_from([np.float32, np.float64, float]),
)
def test_a_numpy_float_is_checked_as_the_same_python_float(
    value: float, kind: Callable[[float], Any]
) -> None:
    """seconds, a probability and a ranged number answer np.float32/np.float64 as the Python
    float of the same value, with a plain float."""
    checks: list[Callable[[Any], float]] = [
        lambda v: checked_seconds("wait", v),
        lambda v: checked_probability("alpha", v),
        lambda v: checked_number("amount", v, high=30.0, above=True, unit=" of EUR"),
    ]
    for check in checks:
        expected, got = _outcome(check, float(kind(value))), _outcome(check, kind(value))
        assert got == expected
        if got[0] == "taken":
            assert type(got[1]) is float


@pytest.mark.parametrize("kind", INT_KINDS)
@pytest.mark.parametrize("value", [0, 1, 3, 10**6])
def test_a_numpy_integer_is_a_number_too(kind: Callable[[int], Any], value: int) -> None:
    """An integer of seconds or of EUR is taken as the float it is; a bool never."""
    assert checked_seconds("wait", kind(value)) == float(value)
    assert type(checked_seconds("wait", kind(value))) is float
    for bool_ in (True, np.bool_(True)):
        with pytest.raises(ValidationError, match=r"^wait: must be a number of seconds >= 0"):
            checked_seconds("wait", bool_)
        with pytest.raises(ValidationError, match=r"^alpha: must be a number between 0 and 1"):
            checked_probability("alpha", bool_)
    assert math.isinf(checked_seconds("wait", 10**400))  # an int past a float's range


def _send(box: Sandbox, chunk_size: Any, journal: Path) -> tuple[Any, ...]:
    with smskit.Client(sandbox=box) as client:
        numbers = [f"+3361{i:07d}" for i in range(7)]
        campaign = Campaign(client, numbers, text=TEXT, sender="Shop")
        result = campaign.send(chunk_size=chunk_size, progress=False, journal=journal)
    chunks = result.chunks()
    sent = box.sent()
    with Journal(journal) as book:
        held = book.held()
    return (
        chunks["recipients"].tolist(),
        chunks["state"].astype(str).tolist(),
        # the numbers each request carried, in chunk order (ids differ: a campaign's own)
        [
            sorted(sent.loc[sent["request_id"] == rid, "phone_number"])
            for rid in chunks["request_id"]
        ],
        held.chunk_size,
    )


@pytest.mark.parametrize("kind", INT_KINDS)
def test_a_send_chunked_by_a_numpy_size_is_the_send_of_the_same_int(
    kind: Callable[[int], Any], tmp_path: Path
) -> None:
    """Through the real sandbox, chunk_size=np.int64(3) sends the chunks of recipients
    chunk_size=3 sends, and the journal records a plain int 3."""
    with Sandbox(seed=0) as plain, Sandbox(seed=0) as numpy_sized:
        expected = _send(plain, 3, tmp_path / "int.sqlite")
        got = _send(numpy_sized, kind(3), tmp_path / "numpy.sqlite")
    assert got == expected
    assert expected[0] == [3, 3, 1]
    assert type(got[-1]) is int


def _refused_field(start: Any) -> str:
    """The field a refusal of render_all(start=...) names (rows counted from ``start``)."""
    frame = pd.DataFrame({"first_name": ["B" * 51]})
    with pytest.raises(ValidationError) as refusal:
        render_all("Hi {first_name}", frame, start=start)
    return refusal.value.field


def _faults(seed: Any) -> tuple[str, list[tuple[float, str | None]]]:
    faults = Faults()
    faults.inject_faults(error_rate=0.3, drop_rate=0.2, seed=seed)
    return json.dumps(faults.settings.__dict__), [faults.draw() for _ in range(40)]


ENTRY_POINTS: dict[str, Callable[[Any], Any]] = {
    "Faults.inject_faults seed": _faults,
    "script_campaign_replies seed": lambda seed: script_campaign_replies(
        [(f"+3361{i:07d}", 1.7e9 + i) for i in range(30)],
        rate=0.5,
        opt_out_share=0.2,
        seed=seed,
        within_hours=1,
    ),
    "DeliveryModel seed": lambda seed: json.dumps(DeliveryModel(seed=seed).__dict__),
    "CallbackFaults seed": lambda seed: json.dumps(CallbackFaults(0.1, 0.1, seed).__dict__),
    "Holdout seed and count": lambda n: json.dumps(Holdout(n, seed=n).record()),
    "assign_arms seed": lambda seed: assign_arms(40, 3, seed).tolist(),
    "new_tokens count": lambda n: len(new_tokens(n)),
    "FrequencyCap count": lambda n: (str(cap := FrequencyCap(n, timedelta(days=7))), cap.count),
    "render_all start": _refused_field,
    "Client max_retries": lambda n: json.dumps(
        smskit.Client("login", "key", "http://127.0.0.1:9", max_retries=n).max_retries
    ),
    "percentages decimals": lambda n: percentages(
        pd.DataFrame({"rate": [0.703512, 0.1]}), decimals=n
    ).to_html(),
}


@pytest.mark.parametrize("kind", INT_KINDS)
@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_every_seed_and_limit_takes_a_numpy_integer_as_the_same_int(
    entry: str, kind: Callable[[int], Any]
) -> None:
    """Seeds, counts and limits given as NumPy integers give what the same Python int
    gives, and what is kept stays JSON-serialisable."""
    run = ENTRY_POINTS[entry]
    assert run(kind(5)) == run(5)


def test_a_numpy_count_of_the_inbox_wait_is_the_int(tmp_path: Path) -> None:
    """Inbox.wait(n=np.int64(0), timeout=np.float32(0)) returns at once, as with 0 and 0.0;
    a NumPy signature tolerance is kept as the float it holds."""
    with smskit.Inbox(tmp_path / "inbox.sqlite", signature_tolerance=np.int64(300)) as inbox:
        assert inbox.wait(np.int64(0), np.float32(0.0)) == inbox.wait(0, 0.0) == 0
        assert type(inbox.signature_tolerance) is float and inbox.signature_tolerance == 300.0
