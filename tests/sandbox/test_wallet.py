"""Wallet endpoints over HTTP: balance, its detailed and per-product shapes, credits."""

from __future__ import annotations

import math

import httpx
import pytest

from smskit.sandbox import Sandbox

BALANCE = "/v1/public/wallet/check-balance"
CREDITS = "/v1/public/wallet/check-credits"
DEFAULT_COUNTRIES = {
    "AT", "BE", "CA", "CH", "DE", "ES", "FR", "GB", "IE", "IT", "LU", "MA", "NL", "PL", "PT", "US",
}  # fmt: skip


def test_default_balance_is_1000_eur() -> None:
    """A new account holds 1000 EUR (documented), as {amount, unit}."""
    with Sandbox() as sb, httpx.Client(base_url=sb.url, headers=sb.auth_headers()) as client:
        assert client.get(BALANCE).json() == {"amount": 1000.0, "unit": "EUR"}


def test_balance_for_a_country_and_product(fresh_api: httpx.Client) -> None:
    """country_code + product_name add that unit price and the credits it buys."""
    result = fresh_api.get(BALANCE, params={"country_code": "fr", "product_name": "sms_premium"})
    assert result.json() == {
        "amount": 1000.0,
        "unit": "EUR",
        "country_code": "FR",
        "product_name": "sms_premium",
        "unit_price": 0.065,
        "credits": math.floor(1000 / 0.065),
    }


def test_country_and_product_go_together(api: httpx.Client) -> None:
    """One without the other is 410 on the missing one; an unknown product is 413."""
    alone = api.get(BALANCE, params={"country_code": "FR"}).json()
    assert alone["errors"]["product_name"]["code"] == 410
    other = api.get(BALANCE, params={"product_name": "hlr"}).json()
    assert other["errors"]["country_code"]["code"] == 410
    bad = api.get(BALANCE, params={"country_code": "FR", "product_name": "fax"}).json()
    assert bad["errors"]["product_name"]["code"] == 413
    unserved = api.get(BALANCE, params={"country_code": "JP", "product_name": "hlr"}).json()
    assert unserved["errors"]["country_code"]["code"] == 413


def test_balance_with_details_lists_every_price(fresh_api: httpx.Client) -> None:
    """with_details=true adds one line per priced country and product (4 products each)."""
    details = fresh_api.get(BALANCE, params={"with_details": "true"}).json()["details"]
    assert len(details) == 4 * len(DEFAULT_COUNTRIES)
    line = next(d for d in details if (d["country_code"], d["product_name"]) == ("BE", "hlr"))
    assert line == {
        "country_code": "BE",
        "product_name": "hlr",
        "unit_price": 0.008,
        "credits": 125000,
    }
    assert "details" not in fresh_api.get(BALANCE, params={"with_details": "false"}).json()


def test_premium_dearer_than_low_cost_everywhere(sandbox: Sandbox) -> None:
    """Realistic prices: in every priced country premium SMS costs more than low cost."""
    prices = sandbox.prices().pivot(index="country_code", columns="product_name", values="price")
    assert set(prices.index) == DEFAULT_COUNTRIES
    assert (prices["sms_premium"] > prices["sms_low_cost"]).all()


def test_credits_for_every_priced_country(fresh_api: httpx.Client) -> None:
    """Without a filter: every priced country, each with the four integer credit counts."""
    credits = fresh_api.get(CREDITS).json()
    assert set(credits) == DEFAULT_COUNTRIES
    assert credits["FR"] == {
        "premium_sms": math.floor(1000 / 0.065),
        "vocal_sms": math.floor(1000 / 0.12),
        "low_cost_sms": math.floor(1000 / 0.045),
        "hlr": math.floor(1000 / 0.008),
    }


def test_credits_filter_by_country_codes(api: httpx.Client) -> None:
    """country_codes[] keeps the countries asked (case forgiven); unpriced ones are left out."""
    response = api.get(CREDITS, params={"country_codes[]": ["FR", "be", "JP"]})
    assert set(response.json()) == {"FR", "BE"}
    comma = api.get(CREDITS, params={"country_codes": "DE,ES"})
    assert set(comma.json()) == {"DE", "ES"}


def test_credits_follow_balance_and_prices(fresh_sandbox: Sandbox, fresh_api: httpx.Client) -> None:
    """Credits are floor(balance / unit price); control changes show at once."""
    fresh_sandbox.set_balance(10)
    fresh_sandbox.set_price("JP", "sms_premium", 0.09)
    credits = fresh_api.get(CREDITS, params={"country_codes[]": "JP"}).json()
    assert credits == {"JP": {"premium_sms": 111, "vocal_sms": 0, "low_cost_sms": 0, "hlr": 0}}
    assert fresh_api.get(BALANCE).json()["amount"] == pytest.approx(10)
