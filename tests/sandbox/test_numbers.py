"""The sandbox's numbers (balance, amounts, prices, rates, latency, clock) go through the
library's one numeric check, ``smskit.rules.ranges.checked_number``."""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from smskit.errors import ValidationError
from smskit.rules.ranges import checked_number
from smskit.sandbox import DeliveryModel, HLRDistribution, Sandbox
from smskit.sandbox._callbacks import script_campaign_replies
from smskit.sandbox._clock import Clock
from smskit.sandbox._faults import Faults
from smskit.sandbox._reports import CallbackFaults


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
    with pytest.raises(ValidationError, match="amount: must be a finite number of EUR >= 0"):
        checked_number("amount", value, unit=" of EUR")


def test_every_sandbox_setter_refuses_through_it() -> None:
    """Balance, price, pack amount and clock all refuse a negative or infinite value."""
    with Sandbox(seed=0) as box:
        with pytest.raises(ValidationError, match="amount: must be a finite number of EUR >= 0"):
            box.set_balance(-1)
        with pytest.raises(ValidationError, match="price: must be a finite number of EUR > 0"):
            box.set_price("FR", "sms_premium", 0)
        with pytest.raises(ValidationError, match="seconds: must be a finite number >= 0"):
            box.advance(math.inf)
    with pytest.raises(ValidationError, match="balance: must be a finite number of EUR >= 0"):
        Sandbox(balance=-0.5)


@pytest.mark.parametrize(
    "configure",
    [
        lambda: DeliveryModel(seed=True),  # type: ignore[arg-type]
        lambda: CallbackFaults(seed=1.0),  # type: ignore[arg-type]
        lambda: Faults().inject_faults(seed="1"),  # type: ignore[arg-type]
        lambda: script_campaign_replies(
            [],
            rate=0.1,
            opt_out_share=0,
            seed=None,  # type: ignore[arg-type]
            within_hours=1,
        ),
    ],
)
def test_every_seed_is_refused_by_the_one_integer_check(configure: Callable[[], object]) -> None:
    """A bool, float, string or None seed is refused with the same sentence everywhere."""
    with pytest.raises(ValidationError, match=r"^seed: must be an integer"):
        configure()


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"line_status": {"live": math.nan, "dead": 1.0}}, "line_status.live"),
        ({"line_status": {"live": math.inf}}, "line_status.live"),
        ({"line_status": {"live": True}}, "line_status.live"),
        ({"ported_share": math.nan}, "ported_share"),
        ({"ported_window_days": 1.5}, "ported_window_days"),
    ],
)
def test_hlr_distribution_numbers_go_through_the_one_check(
    options: dict[str, object], field: str
) -> None:
    """A NaN or infinite weight (once taken: NaN passed ``w < 0``), a NaN share or a
    fractional window is refused naming the field."""
    with pytest.raises(ValidationError, match=rf"^{re.escape(field)}: must be"):
        HLRDistribution(**options)  # type: ignore[arg-type]


def test_the_clock_refuses_nan_itself() -> None:
    """Clock.advance checks its seconds (NaN once slipped past ``seconds < 0``)."""
    clock = Clock()
    with pytest.raises(ValidationError, match="seconds: must be a finite number >= 0"):
        clock.advance(math.nan)
    before = clock.timestamp()
    assert clock.advance(60).timestamp() >= before + 60


@pytest.mark.parametrize("value", [math.nan, math.inf, -1.0])
def test_a_draft_amount_goes_through_the_one_check(fresh_sandbox: Sandbox, value: float) -> None:
    """A NaN, infinite or negative draft cost is refused naming the field and nothing is
    stored (a NaN once made the draft endpoint answer 500: no JSON number)."""
    with pytest.raises(ValidationError, match=r"^sms\.total_cost: must be a finite number of EUR"):
        fresh_sandbox.set_drafts(sms={"total_cost": value, "status": "pending"})
    with httpx.Client(base_url=fresh_sandbox.url, headers=fresh_sandbox.auth_headers()) as api:
        draft = api.get("/v1/public/sms-campaign/draft")
    assert draft.status_code == 200 and draft.json()["status"] == "validated"
