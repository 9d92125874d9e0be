"""The simulated HLR: spec fields and value sets, determinism, distribution, porting, ranges."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from datetime import datetime, timedelta

import phonenumbers
import pytest
from phonenumbers import PhoneNumberType

from smskit.rules import spec as _spec
from smskit.sandbox import _hlr
from smskit.sandbox._hlr import HLRDistribution, lookup, lookup_many

SPEC_FIELDS = [
    "network_name",
    "mcc",
    "mnc",
    "status",
    "country_name",
    "country_code_iso3",
    "country_code",
    "area",
    "country_prefix",
    "phone_number",
    "phone_number_type",
    "line_status",
    "is_ported",
    "ported_date",
    "original_network_details",
]
DETAIL_FIELDS = [
    "network_name",
    "mcc",
    "mnc",
    "country_name",
    "country_code_iso3",
    "country_code",
    "area",
    "country_prefix",
]
NO_PORTING = HLRDistribution(ported_share=0.0)
DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}")


def valid_mobiles(region: str, count: int, seed: int = 1) -> list[str]:
    """Distinct mobiles of a region that phonenumbers itself (not the code under test) accepts."""
    rng = random.Random(seed)
    example = phonenumbers.example_number_for_type(region, phonenumbers.PhoneNumberType.MOBILE)
    stem = phonenumbers.format_number(example, phonenumbers.PhoneNumberFormat.E164)[:-6]
    mobile = (PhoneNumberType.MOBILE, PhoneNumberType.FIXED_LINE_OR_MOBILE)
    found: set[str] = set()
    for _ in range(20 * count):
        candidate = stem + f"{rng.randrange(10**6):06d}"
        if phonenumbers.number_type(phonenumbers.parse(candidate)) in mobile:
            found.add(candidate)
            if len(found) == count:
                return sorted(found)
    raise AssertionError(f"test helper: too few valid mobiles around {stem}")


def test_result_has_exactly_the_spec_fields_in_spec_order() -> None:
    """Every result carries the spec's 15 HLR fields, no more, in the spec table's order."""
    for number in ["+33612345678", "+33140000000", "not a number", "+447700900123"]:
        assert list(lookup(number)) == SPEC_FIELDS


def test_valid_mobile_fields_have_spec_types() -> None:
    """A valid French mobile: integers for mcc/mnc, strings elsewhere, boolean is_ported."""
    result = lookup("+33612345678", distribution=NO_PORTING)
    for name in SPEC_FIELDS:
        if name in ("mcc", "mnc"):
            assert type(result[name]) is int
        elif name == "is_ported":
            assert result[name] is False
        elif name in ("ported_date", "original_network_details"):
            assert result[name] is None
        else:
            assert isinstance(result[name], str) and result[name]
    assert json.loads(json.dumps(result)) == result


def test_same_number_same_answer_even_after_cache_reset() -> None:
    """Determinism: equal results for equal input, whether or not the per-process cache is warm."""
    numbers = valid_mobiles("FR", 50)
    first = lookup_many(numbers, seed=7)
    _hlr._line.cache_clear()
    assert lookup_many(numbers, seed=7) == first


def test_same_answer_in_another_process_with_another_hash_seed() -> None:
    """The draw uses a stable hash (not Python's salted hash()): a new process agrees."""
    numbers = valid_mobiles("GB", 20)
    code = (
        "import json, sys; from smskit.sandbox._hlr import lookup_many; "
        "print(json.dumps(lookup_many(json.loads(sys.argv[1]), seed=3)))"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(numbers)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=60,
    )
    assert json.loads(out.stdout) == lookup_many(numbers, seed=3)


def test_another_seed_gives_other_answers() -> None:
    """Changing the seed redraws line status and porting for a good share of numbers."""
    numbers = valid_mobiles("FR", 300)
    a = lookup_many(numbers, seed=0)
    b = lookup_many(numbers, seed=1)
    changed = sum(x != y for x, y in zip(a, b, strict=True))
    # P(same line status) = sum(p^2) ~ 0.65, P(same porting) ~ 5/9: about 2/3 should change.
    assert changed > 0.4 * len(numbers)


def test_input_is_normalised_before_hashing() -> None:
    """Spaced and compact forms of one number are the same line, with the same answer."""
    assert lookup("+33 6 12 34 56 78", seed=5) == lookup("+33612345678", seed=5)


def test_results_are_fresh_objects() -> None:
    """Mutating a returned dict does not leak into later answers (results are cached inside)."""
    everything = HLRDistribution(ported_share=1.0)
    first = lookup("+33612345678", distribution=everything)
    first["original_network_details"]["mcc"] = -1
    first["status"] = "tampered"
    second = lookup("+33612345678", distribution=everything)
    assert second["status"] in _spec.HLR_STATUS
    assert second["original_network_details"]["mcc"] == 208


def test_values_stay_in_the_spec_value_sets() -> None:
    """status, line_status and phone_number_type only take the spec's values."""
    numbers = [*valid_mobiles("DE", 300), *valid_mobiles("US", 100), "+33140000000", "x", "+1"]
    for result in lookup_many(numbers):
        assert result["status"] in _spec.HLR_STATUS
        assert result["line_status"] in _spec.LINE_STATUS
        assert result["phone_number_type"] in _spec.PHONE_NUMBER_TYPE


def test_line_status_distribution_matches_the_default_weights() -> None:
    """On 20,000 valid mobiles the shares are the documented 80/9/6/2/1/1/1 %, within 1 point."""
    numbers = [n for region in ("FR", "GB", "DE", "ES") for n in valid_mobiles(region, 5000)]
    results = lookup_many(numbers, seed=11)
    expected = {
        "live": 0.80,
        "dead": 0.09,
        "absent_subscriber": 0.06,
        "no_teleservice_provisioned": 0.02,
        "not_available_network_only": 0.01,
        "no_coverage": 0.01,
        "inconclusive": 0.01,
    }
    for status, share in expected.items():
        seen = sum(r["line_status"] == status for r in results) / len(results)
        assert abs(seen - share) < 0.01, (status, seen)


def test_status_follows_line_status() -> None:
    """live/absent/no_teleservice -> valid, dead -> invalid, no_coverage -> operator n/a."""
    expected = {
        "live": "valid",
        "absent_subscriber": "valid",
        "no_teleservice_provisioned": "valid",
        "dead": "invalid",
        "no_coverage": "operator_is_not_available",
        "inconclusive": "unknown",
        "not_available_network_only": "unknown",
    }
    for line_status, status in expected.items():
        only = HLRDistribution(line_status={line_status: 1.0})
        result = lookup("+33612345678", distribution=only)
        assert (result["line_status"], result["status"]) == (line_status, status)


def test_custom_distribution_is_honoured() -> None:
    """A 50/50 live/dead configuration gives about half of each and nothing else."""
    half = HLRDistribution(line_status={"live": 1, "dead": 1})
    results = lookup_many(valid_mobiles("IT", 2000), distribution=half)
    dead = sum(r["line_status"] == "dead" for r in results) / len(results)
    assert {r["line_status"] for r in results} == {"live", "dead"}
    assert abs(dead - 0.5) < 0.05


@pytest.mark.parametrize(
    "options",
    [
        {"line_status": {"not_applicable": 1.0}},
        {"line_status": {"alive": 1.0}},
        {"line_status": {"live": -1.0, "dead": 2.0}},
        {"line_status": {"live": 0.0}},
        {"ported_share": 1.5},
        {"ported_window_days": 0},
    ],
)
def test_distribution_rejects_bad_configuration(options: dict[str, object]) -> None:
    """Unknown or reserved statuses, negative/zero weights and out-of-range shares are refused."""
    with pytest.raises(ValueError):
        HLRDistribution(**options)  # type: ignore[arg-type]


def test_about_a_third_of_mobiles_are_ported_before_the_reference_date() -> None:
    """~1/3 of valid mobiles are ported, dated within the window before the reference date."""
    results = lookup_many(valid_mobiles("FR", 3000), seed=2)
    ported = [r for r in results if r["is_ported"]]
    assert abs(len(ported) / len(results) - 1 / 3) < 0.03
    reference = _hlr.DEFAULT.reference_date
    for r in ported:
        assert DATE_RE.fullmatch(r["ported_date"])
        when = datetime.strptime(r["ported_date"], "%Y-%m-%d %H:%M:%S")
        assert reference - timedelta(days=3650) <= when < reference
    for r in results:
        assert (r["ported_date"] is None) == (r["original_network_details"] is None)
        assert (r["ported_date"] is None) == (not r["is_ported"])


def test_ported_number_moves_to_another_operator_of_its_country() -> None:
    """The new network differs from the original one; both carry France's MCC 208."""
    everything = HLRDistribution(ported_share=1.0)
    for result in lookup_many(valid_mobiles("FR", 200), distribution=everything):
        original = result["original_network_details"]
        assert list(original) == DETAIL_FIELDS
        assert result["mcc"] == original["mcc"] or original["mcc"] is None
        assert result["mcc"] == 208 and isinstance(result["mnc"], int)
        assert (result["network_name"], result["mnc"]) != (
            original["network_name"],
            original["mnc"],
        )
        assert original["country_code_iso3"] == "FRA"
        assert original["country_prefix"] == "+33"


def test_porting_window_follows_the_configured_reference_date() -> None:
    """A later reference date and shorter window move every ported_date into that window."""
    reference = datetime(2030, 6, 1, 12, 0, 0)
    dist = HLRDistribution(ported_share=1.0, reference_date=reference, ported_window_days=2)
    for result in lookup_many(valid_mobiles("ES", 100), distribution=dist):
        when = datetime.strptime(result["ported_date"], "%Y-%m-%d %H:%M:%S")
        assert reference - timedelta(days=2) <= when < reference


@pytest.mark.parametrize(
    ("number", "area"),
    [
        ("+442079460123", "London"),  # 020 7946 0xxx
        ("+447700900123", None),  # 07700 900xxx, the drama mobile range
        ("+441134960000", "Leeds"),  # 0113 496 0xxx
        ("+441632960999", None),  # 01632 960xxx, no area
        ("+12125550150", "New York, NY"),  # NANP 555-0100..0199
    ],
)
def test_drama_ranges_are_stage_and_screen(number: str, area: str | None) -> None:
    """Regulator ranges for fiction: stage_and_screen, no network, dead, invalid, never ported."""
    result = lookup(number, distribution=HLRDistribution(ported_share=1.0))
    assert result["phone_number_type"] == "stage_and_screen"
    assert (result["status"], result["line_status"]) == ("invalid", "dead")
    assert result["network_name"] == "" and result["mnc"] == 0
    assert result["is_ported"] is False
    if area is not None:
        assert result["area"] == area


@pytest.mark.parametrize("number", ["+442079461000", "+12125550200", "+447700901123"])
def test_numbers_next_to_drama_ranges_are_not_stage_and_screen(number: str) -> None:
    """Just outside a drama range the number is an ordinary line."""
    assert lookup(number)["phone_number_type"] != "stage_and_screen"


@pytest.mark.parametrize("number", ["abc", "", "0612345678", "+999123456", "+"])
def test_unparseable_input_is_bad_format(number: str) -> None:
    """No country code to read: bad_format, invalid, not_applicable; every network and country
    field holds its type's "unknown" ("" or 0), as the spec types them, never null."""
    result = lookup(number)
    assert result["phone_number_type"] == "bad_format"
    assert (result["status"], result["line_status"]) == ("invalid", "not_applicable")
    for name in ("network_name", "country_code", "country_code_iso3", "country_name", "area"):
        assert result[name] == ""
    assert (result["mcc"], result["mnc"]) == (0, 0)
    assert result["is_ported"] is False
    assert result["phone_number"] == number


def test_invalid_number_of_a_known_country_keeps_the_country() -> None:
    """A French number one digit short is bad_format but still says France and +33."""
    result = lookup("+3361234567")
    assert result["phone_number_type"] == "bad_format"
    assert result["line_status"] == "not_applicable"
    assert (result["country_code"], result["country_code_iso3"]) == ("FR", "FRA")
    assert result["country_prefix"] == "+33"
    assert (result["mcc"], result["network_name"]) == (0, "")


@pytest.mark.parametrize(
    ("number", "kind", "country"),
    [
        ("+33140000000", "landline", "FR"),  # 01: Paris region
        ("+33800123456", "toll_free", "FR"),  # 0800: numéro vert
        ("+441612345678", "landline", "GB"),  # 0161: Manchester
        ("+448001234567", "toll_free", "GB"),  # 0800: freephone
        ("+18002345678", "toll_free", "US"),  # 800 area code
    ],
)
def test_landlines_and_toll_free_get_network_only_answers(
    number: str, kind: str, country: str
) -> None:
    """Non-mobile lines: their type, not_available_network_only, status unknown, not ported."""
    result = lookup(number, distribution=HLRDistribution(ported_share=1.0))
    assert result["phone_number_type"] == kind
    assert result["country_code"] == country
    assert (result["line_status"], result["status"]) == ("not_available_network_only", "unknown")
    assert result["is_ported"] is False


def test_us_geographic_number_is_mobile_or_landline() -> None:
    """NANP numbers do not tell mobile from fixed: mobile_or_landline, area from the geocoder."""
    result = lookup("+12127363100")
    assert result["phone_number_type"] == "mobile_or_landline"
    assert result["area"] == "New York, NY"
    assert (result["country_code"], result["country_code_iso3"]) == ("US", "USA")
    assert result["mcc"] in (310, 311)


def test_french_orange_mobile_has_orange_mcc_mnc() -> None:
    """06 07 is an Orange France block: MCC 208, MNC 01, with porting disabled."""
    result = lookup("+33607123456", distribution=NO_PORTING)
    assert (result["mcc"], result["mnc"]) == (208, 1)
    assert "Orange" in result["network_name"]


def test_ported_orange_number_keeps_orange_as_original_network() -> None:
    """Once ported, the original network details still name Orange France 208/01."""
    result = lookup("+33607123456", distribution=HLRDistribution(ported_share=1.0))
    details = result["original_network_details"]
    assert (details["mcc"], details["mnc"]) == (208, 1)
    assert result["mnc"] != 1


@pytest.mark.parametrize(
    ("number", "iso2", "iso3", "name", "prefix"),
    [
        ("+33612345678", "FR", "FRA", "France", "+33"),
        ("+447400123456", "GB", "GBR", "United Kingdom", "+44"),
        ("+4915123456789", "DE", "DEU", "Germany", "+49"),
        ("+41781234567", "CH", "CHE", "Switzerland", "+41"),
    ],
)
def test_country_names_and_codes_come_from_iso_3166(
    number: str, iso2: str, iso3: str, name: str, prefix: str
) -> None:
    """Country fields: ISO 3166 alpha-2/alpha-3 and English short name, prefix with '+'."""
    result = lookup(number)
    assert (result["country_code"], result["country_code_iso3"]) == (iso2, iso3)
    assert result["country_name"] == name
    assert result["country_prefix"] == prefix
    assert result["phone_number"] == number


def test_mobile_area_falls_back_to_country_name() -> None:
    """A mobile has no geographical area: area is the country name."""
    assert lookup("+4915123456789")["area"] == "Germany"


def test_lookup_many_keeps_order_and_matches_lookup() -> None:
    """lookup_many gives one result per input, in order, equal to lookup on each."""
    numbers = ["+33612345678", "bad", "+442079460123", "+33612345678"]
    assert lookup_many(numbers, seed=4) == [lookup(n, seed=4) for n in numbers]


def test_fast_path_reads_numbers_like_phonenumbers_parse() -> None:
    """Canonical +digits input read without parse() gives what parse() gives, in every region."""
    rng = random.Random(3)
    samples = []
    for region in sorted(phonenumbers.SUPPORTED_REGIONS):
        for kind in (phonenumbers.PhoneNumberType.MOBILE, phonenumbers.PhoneNumberType.FIXED_LINE):
            example = phonenumbers.example_number_for_type(region, kind)
            if example is not None:
                e164 = phonenumbers.format_number(example, phonenumbers.PhoneNumberFormat.E164)
                samples += [e164, e164[:-3] + f"{rng.randrange(1000):03d}"]
    for raw in samples:
        reference = phonenumbers.parse(raw)
        expected = phonenumbers.format_number(reference, phonenumbers.PhoneNumberFormat.E164)
        number, e164, _ = _hlr._parse(raw)
        assert e164 == expected, raw
        assert phonenumbers.is_valid_number(number) == phonenumbers.is_valid_number(reference)


def test_distribution_is_a_comparable_hashable_value() -> None:
    """Equal configurations compare and hash equal; the weights cannot be changed afterwards."""
    a = HLRDistribution(line_status={"live": 3, "dead": 1})
    b = HLRDistribution(line_status={"live": 3, "dead": 1})
    assert a == b and hash(a) == hash(b)
    assert a != HLRDistribution(line_status={"live": 1, "dead": 1})
    with pytest.raises(TypeError):
        a.line_status["live"] = 0  # type: ignore[index]
