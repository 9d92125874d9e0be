"""Country names have one home (smskit.rules.countries): HLR answers and client tables agree."""

from __future__ import annotations

from pathlib import Path

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


@pytest.mark.parametrize("bad_row", [3, 26_001, 59_999])
def test_a_bad_country_cell_is_refused_at_its_row_of_the_input(
    bad_row: int, sandbox: Sandbox, tmp_path: Path
) -> None:
    """A country cell the numbering plan does not know, in a 60,000-row input whose numbers
    repeat: a campaign's preflight checks numbers in blocks of 25,000 rows and bulk_hlr
    its distinct numbers, and each named the row within what it checked (row 40,000 was
    "country[15000]", a row after a repeat one too few), under the field 'country', which
    `smskit send --csv` printed as "ValidationError: country[1]: ..." naming no file. Now
    each names the input's row, under its field's column, and the command the file."""
    import pandas as pd
    from click.testing import CliRunner

    from smskit.cli import cli

    numbers = [f"+336{12345600 + i % 7:08d}" for i in range(60_000)]  # repeats throughout
    countries = ["FR"] * 60_000
    countries[bad_row] = "XX"
    frame = pd.DataFrame({"phone_number": numbers, "country": countries})
    with pytest.raises(smskit.ValidationError) as planned:
        smskit.Campaign(None, frame, text="Hi", sender="Shop").preflight(offline=True)
    with smskit.Client(sandbox=sandbox) as client, pytest.raises(smskit.ValidationError) as hlr:
        smskit.bulk_hlr(client, frame, progress=False, journal=False)
    found = [(e.value.field, e.value.position, e.value.value) for e in (planned, hlr)]
    assert found == [("recipients.country", bad_row, "XX"), ("numbers.country", bad_row, "XX")]
    rule = "each row's region must be an ISO 3166 alpha-2 code known to the numbering plan"
    assert planned.value.rule.startswith(rule) and hlr.value.rule == planned.value.rule
    if bad_row == 3:  # the commands, on a file of the first rows
        path = tmp_path / "customers.csv"
        frame.iloc[:10].to_csv(path, index=False)
        env = {"SMSKIT_BASE_URL": sandbox.url, "SMSKIT_API_LOGIN": sandbox.login,
               "SMSKIT_API_KEY": sandbox.api_key}  # fmt: skip
        send = ["send", "--text", "Hi", "--sender", "Shop", "--purpose", "alert", "--csv",
                str(path), "--dry-run"]  # fmt: skip
        for args, named in ((send, f"--csv {path}: recipients[3]"), (["hlr", str(path)],
                            f"{path}: numbers[3]")):  # fmt: skip
            result = CliRunner().invoke(cli, args, env=env)
            assert result.exit_code == 4
            assert result.stderr.strip().splitlines() == [
                f"smskit: error: {named}.country: {planned.value.rule} (got 'XX')"
            ]


def test_a_bad_country_cell_of_the_orders_is_refused_at_its_row() -> None:
    """Orders' national numbers are read in their rows' country after the E.164 ones are
    taken as written: a bad country cell was named at its place among the national ones
    (field 'country', row 1 here); now at the orders' row, under orders.country."""
    import pandas as pd

    from smskit.campaigns.analysis.conversions import conversions

    orders = pd.DataFrame({
        "phone_number": ["+33612345678", "0612345678", "+33612345679", "0470123456"],
        "country": ["FR", "FR", "FR", "XX"],
        "ordered_at": ["2026-03-02T10:00:00Z"] * 4,
        "amount": ["1", "2", "3", "4"],
    })  # fmt: skip
    recipients = pd.DataFrame({"phone_number": ["+33612345678"]})
    with pytest.raises(smskit.ValidationError) as caught:
        conversions(recipients, orders, sent_at="2026-03-01T10:00:00Z")
    assert (caught.value.field, caught.value.position, caught.value.value) == (
        "orders.country",
        3,
        "XX",
    )
