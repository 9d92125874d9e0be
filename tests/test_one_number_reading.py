"""One reader, one answer: the same rows of (number as written, country) read by every entry
point that reads numbers (a campaign's preflight, the Composer, ``smskit.bulk_hlr`` of a
frame and of the CSV file, ``smskit hlr FILE.csv``, ``OptOuts.import_csv`` and
``smskit optouts import``) give the same E.164 numbers: a row's ``country`` is the region
of its national number everywhere (bulk HLR read ``0472 78 24 89`` on a BE row as French).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import smskit
from smskit.cli import cli
from smskit.replies.optouts import OptOuts
from smskit.sandbox import Sandbox

# National numbers that mean another line in each country, and one with its +code.
WRITTEN = ("0472 78 24 89", "06 12 34 56 78", "01 23 45 67 89", "0151 23456789",
           "07700 900123", "612 34 56 78", "+32 472 78 24 89")  # fmt: skip
COUNTRIES = ("BE", "FR", "DE", "GB", "ES", None)
ROWS = st.lists(st.tuples(st.sampled_from(WRITTEN), st.sampled_from(COUNTRIES)), min_size=1,
                max_size=12)  # fmt: skip


def as_frame(rows: list[tuple[str, str | None]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["phone_number", "country"])


def write_csv(rows: list[tuple[str, str | None]], path: Path) -> Path:
    as_frame(rows).to_csv(path, index=False)
    return path


@settings(
    max_examples=5,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(rows=ROWS)
def test_every_entry_point_reads_each_row_to_the_same_number(
    rows: list[tuple[str, str | None]],
    sandbox: Sandbox,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Per row, the campaign's preflight is the oracle: the Composer gives the same number;
    bulk HLR (frame and file) answers the same number per (value, country); the CLI's hlr
    and the opt-out imports (library and CLI) hold the same set of numbers."""
    where = tmp_path_factory.mktemp("rows")
    frame = as_frame(rows)
    source = write_csv(rows, where / "rows.csv")
    with smskit.Client(sandbox=sandbox) as client:
        options = {"text": "Alerte", "sender": "Ops", "purpose": "alert"}
        read = smskit.Campaign(client, frame, **options).preflight().frame["phone_number"]
        expected = dict(zip(rows, read, strict=True))
        numbers = {n for n in read if isinstance(n, str) and n.startswith("+")}
        composer = smskit.Composer(client, frame, debounce=0, **options).preflight
        assert composer is not None
        assert composer.frame["phone_number"].tolist() == read.tolist()
        for given_rows in (frame, source):
            answered = smskit.bulk_hlr(client, given_rows, journal=False, progress=False)
            table = answered.to_frame()
            distinct = list(dict.fromkeys(rows))
            assert len(table) == len(distinct)
            for pair, got, error in zip(
                distinct, table["phone_number"], table["error"], strict=True
            ):
                if pd.isna(error):
                    assert got == expected[pair], pair
    out = where / "out.csv"
    env = {"SMSKIT_BASE_URL": sandbox.url, "SMSKIT_API_LOGIN": sandbox.login,
           "SMSKIT_API_KEY": sandbox.api_key}  # fmt: skip
    checked = CliRunner().invoke(cli, ["hlr", str(source), "-o", str(out), "--no-cache"], env=env)
    assert checked.exit_code in (0, 7), checked.stderr
    written = pd.read_csv(out, dtype=str)
    assert set(written.loc[written["error"].isna(), "phone_number"]) <= numbers
    assert set(written["phone_number"]) >= numbers
    valid = [row for row, number in expected.items() if number in numbers]
    listed = write_csv(valid, where / "optouts.csv")
    with OptOuts(("https://gw.example", "one"), path=where / "lists.sqlite") as lists:
        lists.import_csv(listed)
        assert lists.numbers() == numbers
    imported = CliRunner().invoke(
        cli, ["optouts", "import", str(listed), "--path", str(where / "cli.sqlite")], env=env
    )
    assert imported.exit_code == 0, imported.stderr
    with OptOuts((sandbox.url, sandbox.login), path=where / "cli.sqlite") as lists:
        assert lists.numbers() == numbers


def test_bulk_hlr_reads_a_belgian_row_as_belgian(sandbox: Sandbox, tmp_path: Path) -> None:
    """The reported case: 0472 78 24 89 on a BE row is +32472782489 in bulk_hlr (frame and
    file) and in `smskit hlr FILE.csv` (was +33472782489, a French landline, checked and
    billed); on a FR row it stays French."""
    rows = [("0472 78 24 89", "BE"), ("0472 78 24 89", "FR")]
    source = write_csv(rows, tmp_path / "rows.csv")
    with smskit.Client(sandbox=sandbox) as client:
        for given_rows in (as_frame(rows), source):
            table = smskit.bulk_hlr(client, given_rows, journal=False, progress=False).to_frame()
            assert table["phone_number"].tolist() == ["+32472782489", "+33472782489"]
    env = {"SMSKIT_BASE_URL": sandbox.url, "SMSKIT_API_LOGIN": sandbox.login,
           "SMSKIT_API_KEY": sandbox.api_key}  # fmt: skip
    out = tmp_path / "out.csv"
    for extra in ([], ["--column", "phone_number"]):
        result = CliRunner().invoke(cli, ["hlr", str(source), "-o", str(out), "--no-cache", *extra],
                                    env=env)  # fmt: skip
        assert result.exit_code == 0, result.stderr
        assert pd.read_csv(out, dtype=str)["phone_number"].tolist() == [
            "+32472782489",
            "+33472782489",
        ]
