"""Country names have one home (smskit.rules.countries): HLR answers and client tables agree."""

from __future__ import annotations

import pytest

import smskit
from smskit import frames
from smskit.rules.countries import country_info
from smskit.sandbox import Sandbox


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("FR", ("France", "FRA")),
        ("GB", ("United Kingdom", "GBR")),
        ("XK", ("Kosovo", "XKX")),  # not in ISO 3166, dialled all the same
        ("AC", ("Ascension Island", "ASC")),
        ("ZZ", (None, None)),
        ("FRA", (None, None)),
    ],
)
def test_country_info_names_iso_regions_and_the_few_iso_leaves_out(
    code: str, expected: tuple[str | None, str | None]
) -> None:
    """English common name and alpha-3 of a 2-letter code, None for what is no country."""
    assert country_info(code) == expected


def test_hlr_answer_and_credits_table_name_kosovo_alike(sandbox: Sandbox) -> None:
    """The sandbox's HLR answer and the client's credits table both call XK Kosovo (XKX)."""
    with smskit.Client(sandbox=sandbox) as client:
        (line,) = client.contact.hlr_request(["+38344123456"])
    assert (line.country_code, line.country_name, line.country_code_iso3) == (
        "XK",
        "Kosovo",
        "XKX",
    )
    tidy = frames.credits_frame({"XK": {"premium_sms": 1, "vocal_sms": 2, "low_cost_sms": 3}})
    assert set(zip(tidy["country"], tidy["iso3"], strict=True)) == {("Kosovo", "XKX")}
