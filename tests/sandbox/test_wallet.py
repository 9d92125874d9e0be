"""Wallet endpoints over HTTP: the vendor's balance shapes, wallet packs, served destinations."""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import httpx
import phonenumbers
import pytest

from smskit.sandbox import Sandbox

BALANCE = "/v1/public/wallet/check-balance"
CREDITS = "/v1/public/wallet/check-credits"
SEND = "/v1/public/sms-campaign/send"
PARIS = ZoneInfo("Europe/Paris")
# Written out here, not read from the sandbox: the documented deliberate gaps.
UNSERVED = {
    "premium_sms": {"KP", "SY"},
    "low_cost_sms": {"ER", "KP", "SS", "SY"},
    "vocal_sms": {"KP", "NU", "TK"},
    "hlr": {"KP", "NR"},
}


def packs_of(client: httpx.Client, **params: str) -> list[dict[str, object]]:
    """The wallet_packs of a detailed balance answer."""
    answer = client.get(BALANCE, params={"with_details": "true", **params}).json()
    return answer["wallet_packs"]  # type: ignore[no-any-return]


def test_default_balance_is_1000_eur() -> None:
    """A new account holds 1000 EUR (documented), as {amount, unit}."""
    with Sandbox() as sb, httpx.Client(base_url=sb.url, headers=sb.auth_headers()) as client:
        assert client.get(BALANCE).json() == {"amount": 1000.0, "unit": "EUR"}


def test_product_and_country_count_in_that_products_credits(fresh_api: httpx.Client) -> None:
    """product_name + country_code: amount in credits of that product there, unit = product."""
    result = fresh_api.get(BALANCE, params={"country_code": "fr", "product_name": "vocal_sms"})
    assert result.json() == {"amount": math.floor(1000 / 0.12), "unit": "vocal_sms"}
    premium = fresh_api.get(BALANCE, params={"country_code": "BE", "product_name": "sms_premium"})
    assert premium.json() == {"amount": math.floor(1000 / 0.079), "unit": "sms_premium"}


def test_unserved_destination_has_no_credits(fresh_api: httpx.Client) -> None:
    """A product not served in a country buys nothing there: amount 0 in that product."""
    result = fresh_api.get(BALANCE, params={"country_code": "KP", "product_name": "hlr"})
    assert result.json() == {"amount": 0, "unit": "hlr"}


def test_unrecognised_balance_parameters_are_ignored(api: httpx.Client) -> None:
    """Convention 3: one of country/product alone, or an unknown product, gives the plain shape."""
    for params in (
        {"country_code": "FR"},
        {"product_name": "hlr"},
        {"country_code": "FR", "product_name": "fax"},
        {"country_code": "FRA", "product_name": "hlr"},
    ):
        assert set(api.get(BALANCE, params=params).json()) == {"amount", "unit"}, params
        assert api.get(BALANCE, params=params).json()["unit"] == "EUR"


def test_with_details_lists_the_packs(fresh_api: httpx.Client) -> None:
    """with_details=true adds wallet_packs (id, credit, expiration_date), first to expire first."""
    packs = packs_of(fresh_api)
    assert [set(p) for p in packs] == [{"id", "credit", "expiration_date"}] * 2
    assert [p["credit"] for p in packs] == [100.0, 900.0]
    expirations = [
        datetime.strptime(str(p["expiration_date"]), "%Y-%m-%d %H:%M:%S").replace(tzinfo=PARIS)
        for p in packs
    ]
    soon = expirations[0] - datetime.now(PARIS)
    assert timedelta(days=29) < soon <= timedelta(days=30)
    assert expirations[0] < expirations[1]
    plain = fresh_api.get(BALANCE, params={"with_details": "false"}).json()
    assert "wallet_packs" not in plain


def test_packs_in_product_credits(fresh_api: httpx.Client) -> None:
    """With a product and a country, each pack's credit is counted in that product too."""
    packs = packs_of(fresh_api, country_code="FR", product_name="hlr")
    assert [p["credit"] for p in packs] == [12_500, 112_500]  # 100 and 900 EUR at 0.008


def test_sends_consume_the_pack_expiring_first(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """A charge draws on the oldest-expiring pack, then spills over to the next one."""
    fresh_sandbox.set_balance(0)
    fresh_sandbox.add_wallet_pack(0.1, 300)
    fresh_sandbox.add_wallet_pack(0.1, 10)
    recipients = ["+33612345678", "+33612345679"]
    text = "Sale STOP au 36173"
    response = fresh_api.post(SEND, json={"text": text, "recipients": recipients, "sender": "Shop"})
    assert response.status_code == 201
    assert [p["credit"] for p in packs_of(fresh_api)] == [pytest.approx(0.07)]
    later = fresh_api.post(SEND, json={"text": text, "recipients": recipients, "sender": "Shop"})
    assert later.json()["code"] == 122
    assert fresh_api.get(BALANCE).json()["amount"] == pytest.approx(0.07)


def test_expired_packs_leave_the_balance(fresh_sandbox: Sandbox, fresh_api: httpx.Client) -> None:
    """Once a pack's expiration date passes on the sandbox clock, its credit is gone."""
    fresh_sandbox.advance(31 * 86_400)
    assert fresh_api.get(BALANCE).json() == {"amount": 900.0, "unit": "EUR"}
    assert len(packs_of(fresh_api)) == 1
    fresh_sandbox.advance(366 * 86_400)
    assert fresh_api.get(BALANCE).json() == {"amount": 0.0, "unit": "EUR"}
    assert packs_of(fresh_api) == []


def test_every_country_with_a_dialling_code_is_served(fresh_api: httpx.Client) -> None:
    """check-credits lists every region of phonenumbers' metadata (less the documented gaps)."""
    credits = fresh_api.get(CREDITS).json()
    # North Korea is unserved for every product, so it is no served destination at all.
    assert set(credits) == set(phonenumbers.SUPPORTED_REGIONS) - {"KP"}
    for key, unserved in UNSERVED.items():
        assert {c for c, row in credits.items() if row[key] == 0} == unserved - {"KP"}, key
    core = ("FR", "RE", "GP", "MQ", "GF", "YT", "MC", "GG", "JE", "MA", "DZ", "TN", "SN", "CI")
    assert all(credits[c]["premium_sms"] > 0 for c in (*core, "US", "CA"))


def test_credits_match_what_a_send_is_charged(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """What check-credits reports is what sends cost: balance / credits ~ unit price."""
    credits = fresh_api.get(CREDITS, params={"country_codes[]": ["RE", "SN"]}).json()
    for region in ("RE", "SN"):
        number = phonenumbers.example_number_for_type(region, phonenumbers.PhoneNumberType.MOBILE)
        e164 = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
        payload = {"text": "Promo STOP au 36173", "recipients": [e164], "sender": "Shop"}
        cost = fresh_api.post(SEND, json={**payload, "simulation_mode": True}).json()["total_cost"]
        assert math.floor(1000 / cost) == credits[region]["premium_sms"]


def test_premium_dearer_than_low_cost_everywhere(sandbox: Sandbox) -> None:
    """Realistic prices: wherever both are served, premium SMS costs more than low cost."""
    prices = sandbox.prices().pivot(index="country_code", columns="product_name", values="price")
    both = prices.dropna(subset=["sms_premium", "sms_low_cost"])
    assert len(both) > 200
    assert (both["sms_premium"] > both["sms_low_cost"]).all()


def test_credits_filter_by_country_codes(api: httpx.Client) -> None:
    """country_codes[] keeps the countries asked (case forgiven); unknown codes are left out."""
    response = api.get(CREDITS, params={"country_codes[]": ["FR", "be", "ZZ"]})
    assert set(response.json()) == {"FR", "BE"}
    comma = api.get(CREDITS, params={"country_codes": "DE,ES"})
    assert set(comma.json()) == {"DE", "ES"}


def test_credits_follow_balance_and_prices(fresh_sandbox: Sandbox, fresh_api: httpx.Client) -> None:
    """Credits are floor(balance / unit price); control changes show at once."""
    fresh_sandbox.set_balance(10)
    fresh_sandbox.set_price("KP", "sms_premium", 0.09)
    credits = fresh_api.get(CREDITS, params={"country_codes[]": "KP"}).json()
    assert credits == {"KP": {"premium_sms": 111, "vocal_sms": 0, "low_cost_sms": 0, "hlr": 0}}
    assert fresh_api.get(BALANCE).json()["amount"] == pytest.approx(10)
