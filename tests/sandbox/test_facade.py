"""The ``Sandbox`` facade restates no signature: each control method is the Gateway's (or
the request faults'), forwarded, so Python and HTTP control cannot drift apart."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import httpx
import pandas as pd
import pytest

from smskit.errors import ValidationError
from smskit.sandbox import Sandbox
from smskit.sandbox._faults import Faults
from smskit.sandbox._gateway import Gateway


def _public_functions(cls: type) -> dict[str, Callable[..., Any]]:
    """The public functions ``cls`` defines or takes from its smskit bases (its parts)."""
    found: dict[str, Callable[..., Any]] = {}
    for klass in reversed(cls.__mro__):
        if klass.__module__.startswith("smskit"):
            found.update(
                (name, value)
                for name, value in vars(klass).items()
                if not name.startswith("_") and inspect.isfunction(value)
            )
    return found


# The facade's methods that are not a Gateway or Faults method: the sandbox's own lifecycle
# (start, stop and running come from smskit._server.Served).
OWN = {"auth_headers"}
# What Sandbox itself declares.
DECLARED = {
    name: value
    for name, value in vars(Sandbox).items()
    if not name.startswith("_") and inspect.isfunction(value)
}


def test_every_facade_method_the_gateway_has_is_the_gateways_method() -> None:
    """A Sandbox method named like a Gateway/Faults method wraps exactly that method; the
    rest are the facade's own lifecycle methods (none restates a control signature)."""
    targets = {**_public_functions(Faults), **_public_functions(Gateway)}
    for name, method in DECLARED.items():
        if name in OWN:
            assert name not in targets, name
            continue
        assert name in targets, f"Sandbox.{name} has no Gateway/Faults method to forward to"
        assert method.__wrapped__ is targets[name], name  # type: ignore[attr-defined]
        assert method.__doc__ == targets[name].__doc__, name
        assert method.__qualname__ == f"Sandbox.{name}"
    assert len(DECLARED) - len(OWN) >= 30  # the whole control surface, not a sample


def test_facade_signatures_equal_the_gateways() -> None:
    """Bound on a sandbox, every forwarded method has its target's parameters and defaults;
    the frame ones return a DataFrame where the Gateway returns records."""
    box = Sandbox()
    targets: dict[str, Any] = {
        **{n: getattr(box._gateway.request_faults, n) for n in _public_functions(Faults)},
        **{n: getattr(box._gateway, n) for n in _public_functions(Gateway)},
    }
    frames = 0
    for name in set(DECLARED) - OWN:
        ours, theirs = inspect.signature(getattr(box, name)), inspect.signature(targets[name])
        assert ours.parameters == theirs.parameters, name
        if ours.return_annotation != theirs.return_annotation:
            assert theirs.return_annotation == "list[dict[str, Any]]", name
            assert ours.return_annotation == "pandas.DataFrame", name
            frames += 1
    assert frames == 11


def test_a_forwarded_method_acts_on_this_sandboxs_gateway(fresh_sandbox: Sandbox) -> None:
    """set_balance through the facade is what the HTTP wallet endpoint then reports."""
    fresh_sandbox.set_balance(12.5)
    with httpx.Client(base_url=fresh_sandbox.url, headers=fresh_sandbox.auth_headers()) as api:
        answer = api.get("/v1/public/wallet/check-balance").json()
    assert answer == {"amount": 12.5, "unit": "EUR"}
    assert fresh_sandbox.balance() == 12.5


def test_frame_methods_keep_their_columns_and_times(fresh_sandbox: Sandbox) -> None:
    """sent() and dropped() come back as DataFrames with their columns and UTC times."""
    fresh_sandbox.set_price("FR", "sms_premium", 0.1)
    with httpx.Client(base_url=fresh_sandbox.url, headers=fresh_sandbox.auth_headers()) as api:
        body = {"text": "Sale STOP au 36173", "recipients": ["+33612345678", "0612345678"],
                "sender": "MyShop"}  # fmt: skip
        assert api.post("/v1/public/sms-campaign/send", json=body).status_code == 201
    sent, dropped = fresh_sandbox.sent(), fresh_sandbox.dropped()
    assert isinstance(sent, pd.DataFrame) and list(sent["phone_number"]) == ["+33612345678"]
    assert str(sent["sent_at"].dt.tz) == "UTC"
    assert list(dropped.columns) == [
        "sms_ticket", "position", "phone_number", "reason", "created_at"
    ]  # fmt: skip
    assert list(dropped["position"]) == [1] and str(dropped["created_at"].dt.tz) == "UTC"


def test_reset_clears_the_request_faults_from_python_and_http(fresh_sandbox: Sandbox) -> None:
    """The faults live on the gateway: reset() and POST /_sandbox/reset both clear them."""
    fresh_sandbox.inject_faults(error_rate=0.5, seed=3)
    assert fresh_sandbox.faults()["error_rate"] == 0.5
    fresh_sandbox.reset()
    assert fresh_sandbox.faults()["error_rate"] == 0.0
    fresh_sandbox.inject_faults(drop_rate=0.25)
    with httpx.Client(base_url=fresh_sandbox.url, headers=fresh_sandbox.auth_headers()) as api:
        assert api.get("/_sandbox/faults").json()["drop_rate"] == 0.25
        api.post("/_sandbox/reset")
    assert fresh_sandbox.faults()["drop_rate"] == 0.0


def test_the_http_callback_route_keeps_the_python_signing_secret(fresh_sandbox: Sandbox) -> None:
    """Re-registering a URL over HTTP leaves the secret set in Python; from Python, a call
    without ``signing_secret`` stops signing (a secret never travels over HTTP)."""
    queue = fresh_sandbox._gateway.callback_queue
    fresh_sandbox.set_callback_url("http://127.0.0.1:9/in", signing_secret="s" * 16)
    with httpx.Client(base_url=fresh_sandbox.url, headers=fresh_sandbox.auth_headers()) as api:
        api.post("/_sandbox/callback", json={"url": "http://127.0.0.1:9/other"})
    assert queue._secret == b"s" * 16
    assert fresh_sandbox.callback_urls()["reply"] == "http://127.0.0.1:9/other"
    fresh_sandbox.set_callback_url("http://127.0.0.1:9/in")
    assert queue._secret is None


def test_inject_callback_faults_takes_rates_and_refuses_through_the_one_check(
    fresh_sandbox: Sandbox,
) -> None:
    """The rates become the player's CallbackFaults; a share over 1 is refused by name."""
    fresh_sandbox.inject_callback_faults(withhold_rate=0.25, garble_rate=0.5, seed=7)
    faults = fresh_sandbox._gateway.player.faults
    assert (faults.withhold_rate, faults.garble_rate, faults.seed) == (0.25, 0.5, 7)
    with pytest.raises(ValidationError, match="garble_rate: must be a finite number between"):
        fresh_sandbox.inject_callback_faults(garble_rate=1.5)


def test_a_delivery_model_is_refused_by_one_check_where_it_is_given() -> None:
    """Sandbox(delivery_model=...) and set_delivery_model(...) refuse a non-model, each naming
    its own argument (one check, _reports.checked_model)."""
    with pytest.raises(ValidationError, match=r"^delivery_model: must be a DeliveryModel"):
        Sandbox(delivery_model="fast")  # type: ignore[arg-type]
    box = Sandbox()
    with pytest.raises(ValidationError, match=r"^model: must be a DeliveryModel"):
        box.set_delivery_model({"seed": 1})  # type: ignore[arg-type]
