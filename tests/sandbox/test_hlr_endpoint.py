"""POST /v1/public/contact/hlr-request over HTTP: shape, determinism, limits, HLR credits.

The simulation itself is pinned by tests/sandbox/test_hlr.py; here the endpoint around it.
HLR unit prices are the documented defaults: 0.008 EUR in FR and BE, 0.006 in the US.
"""

from __future__ import annotations

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from smskit.rules import spec as _spec
from smskit.sandbox import Sandbox, _hlr

HLR = "/v1/public/contact/hlr-request"
NUMBERS = ["+33612345678", "+32470123456", "+14155550123", "not a number"]
SPEC_FIELDS = {
    "network_name", "mcc", "mnc", "status", "country_name", "country_code_iso3",
    "country_code", "area", "country_prefix", "phone_number", "phone_number_type",
    "line_status", "is_ported", "ported_date", "original_network_details",
}  # fmt: skip


def balance(client: httpx.Client) -> float:
    """The balance as the gateway reports it."""
    return client.get("/v1/public/wallet/check-balance").json()["amount"]


def test_one_result_per_number_with_every_spec_field(api: httpx.Client) -> None:
    """200 with a JSON array: one result per number, in order, each with the 15 spec fields."""
    response = api.post(HLR, json={"phone_numbers": NUMBERS})
    assert response.status_code == 200
    results = response.json()
    assert len(results) == len(NUMBERS)
    for result in results:
        assert set(result) == SPEC_FIELDS
        assert result["status"] in _spec.HLR_STATUS
        assert result["line_status"] in _spec.LINE_STATUS
        assert result["phone_number_type"] in _spec.PHONE_NUMBER_TYPE
    assert results[0]["country_code"] == "FR"
    assert results[3]["phone_number_type"] == "bad_format"


def test_answers_are_deterministic_across_sandboxes(api: httpx.Client) -> None:
    """Same seed, same number, same answer: equal to the HLR simulation for seed 0."""
    first = api.post(HLR, json={"phone_numbers": NUMBERS}).json()
    with (
        Sandbox(seed=0) as other,
        httpx.Client(base_url=other.url, headers=other.auth_headers()) as c,
    ):
        second = c.post(HLR, json={"phone_numbers": NUMBERS}).json()
    assert first == second
    assert first == [_hlr.lookup(n, seed=0) for n in NUMBERS]


def test_hlr_uses_hlr_credits(fresh_api: httpx.Client) -> None:
    """Each number of a priced country costs its HLR price; an unparseable one is free."""
    fresh_api.post(HLR, json={"phone_numbers": NUMBERS})
    assert balance(fresh_api) == pytest.approx(1000 - (0.008 + 0.008 + 0.006))


def test_hlr_simulation_is_free(fresh_api: httpx.Client) -> None:
    """simulation_mode=true returns the same results without charging."""
    simulated = fresh_api.post(HLR, json={"phone_numbers": NUMBERS, "simulation_mode": "true"})
    real = fresh_api.post(HLR, json={"phone_numbers": NUMBERS})
    assert simulated.json() == real.json()
    assert balance(fresh_api) == pytest.approx(1000 - 0.022)


def test_hlr_without_credit_is_refused(fresh_sandbox: Sandbox, fresh_api: httpx.Client) -> None:
    """When the balance cannot pay the checks: 400 code 122, nothing charged."""
    fresh_sandbox.set_balance(0.01)
    response = fresh_api.post(HLR, json={"phone_numbers": NUMBERS[:2]})
    assert response.status_code == 400
    assert response.json()["code"] == 122
    assert balance(fresh_api) == pytest.approx(0.01)


def test_hlr_limits(api: httpx.Client) -> None:
    """1 to 200 numbers: none or a blank item is 410, 201 is 411, 200 is fine."""
    blank = api.post(HLR, json={"phone_numbers": []}).json()
    assert blank["code"] == 400
    assert blank["errors"]["phone_numbers"]["code"] == 410
    missing = api.post(HLR, json={})
    assert missing.json()["errors"]["phone_numbers"]["code"] == 410
    item = api.post(HLR, json={"phone_numbers": ["+33612345678", " "]}).json()
    assert item["errors"]["phone_numbers[1]"]["code"] == 410
    many = [f"+336{n:08d}" for n in range(201)]
    assert (
        api.post(HLR, json={"phone_numbers": many}).json()["errors"]["phone_numbers"]["code"] == 411
    )
    assert len(api.post(HLR, json={"phone_numbers": many[:200]}).json()) == 200


def test_single_number_is_cast_to_a_list(api: httpx.Client) -> None:
    """A bare string for phone_numbers is read as a one-number list."""
    results = api.post(HLR, json={"phone_numbers": "+33612345678"}).json()
    assert [r["phone_number"] for r in results] == ["+33612345678"]


def test_numbers_of_unpriced_countries_are_free(fresh_api: httpx.Client) -> None:
    """A valid number of a country without an HLR price (North Korea) is answered, not charged."""
    results = fresh_api.post(HLR, json={"phone_numbers": ["+8501921234567"]}).json()
    assert results[0]["country_code"] == "KP"
    assert balance(fresh_api) == 1000.0


def test_configured_distribution_shapes_the_answers() -> None:
    """Sandbox(hlr_distribution=...) changes what the endpoint answers for valid mobiles."""
    from smskit.sandbox import HLRDistribution

    mobiles = [f"+336{n:08d}" for n in range(12345600, 12345640)]
    all_dead = HLRDistribution(line_status={"dead": 1.0}, ported_share=0.0)
    with (
        Sandbox(hlr_distribution=all_dead) as sb,
        httpx.Client(base_url=sb.url, headers=sb.auth_headers()) as client,
    ):
        results = client.post(HLR, json={"phone_numbers": mobiles}).json()
    assert {r["line_status"] for r in results} == {"dead"}
    assert {r["is_ported"] for r in results} == {False}


SPEC_TYPES = {
    **dict.fromkeys(
        ("network_name", "status", "country_name", "country_code_iso3", "country_code", "area",
         "country_prefix", "phone_number", "phone_number_type", "line_status"),
        str,
    ),
    "mcc": int,
    "mnc": int,
    "is_ported": bool,
}  # fmt: skip
NULLABLE = {"ported_date": str, "original_network_details": dict}


def _typed_as_the_spec(result: dict[str, object]) -> None:
    """Every field of an HLR result has the spec table's type; only two may be null."""
    for name, kind in SPEC_TYPES.items():
        assert type(result[name]) is kind, (name, result[name])
    for name, kind in NULLABLE.items():
        assert result[name] is None or type(result[name]) is kind, (name, result[name])
    details = result["original_network_details"]
    if isinstance(details, dict):
        for name in ("network_name", "country_name", "country_code", "area", "country_prefix"):
            assert type(details[name]) is str, (name, details)
        assert type(details["mcc"]) is int and type(details["mnc"]) is int


NUMBERS_OF_EVERY_KIND = st.one_of(
    st.text(min_size=1, max_size=20).filter(str.strip),  # anything not blank (blank: 410)
    st.from_regex(r"\+?[0-9][0-9 ]{0,15}", fullmatch=True),  # digits, with or without a code
    st.sampled_from(  # drama ranges, landlines, toll free, unknown carriers, mobiles
        ["06 12 34 56 78", "+447700900123", "+33140000000", "+18002345678", "+12015550123",
         "+33612345678", "+3361234567", "+999123456", "+"]
    ),
)  # fmt: skip


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(numbers=st.lists(NUMBERS_OF_EVERY_KIND, min_size=1, max_size=8))
def test_every_answer_keeps_the_spec_types(api: httpx.Client, numbers: list[str]) -> None:
    """Whatever is asked, each answer types every field as the spec's table does (an integer
    mcc, a string area...): what cannot be known is "" or 0, null only where the spec allows."""
    response = api.post(HLR, json={"phone_numbers": numbers, "simulation_mode": True})
    assert response.status_code == 200
    for result in response.json():
        _typed_as_the_spec(result)


def test_an_unidentifiable_number_has_placeholders_not_nulls(api: httpx.Client) -> None:
    """ "06 12 34 56 78" (national, no country): bad_format, its network and country fields
    "" and 0 (the spec types them string and integer), is_ported false."""
    (result,) = api.post(HLR, json={"phone_numbers": ["06 12 34 56 78"]}).json()
    assert result["phone_number_type"] == "bad_format"
    assert [result[name] for name in ("network_name", "mcc", "mnc", "country_name", "area")] == [
        "",
        0,
        0,
        "",
        "",
    ]
    assert (result["is_ported"], result["ported_date"]) == (False, None)
