"""Recipients given as a file's ``pathlib.Path`` are read by the rule book's one reader of
files (``smskit.rules.files``): a CSV by the recipients' exact text reader, a Parquet file by
Arrow and then as a pyarrow Table given as recipients is read. The advice the product gives
for a string naming ``x.parquet`` (``pathlib.Path('x.parquet')``) was refused as "line 1 of
the CSV file holds a NUL byte"; now every entry point taking recipients reads it as the same
table given in memory, and a spreadsheet, a directory, a missing file or another suffix is
refused naming the file and the rule. The command line's ``--csv`` reads CSV only (its
name), and says so."""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import smskit
from smskit.cli import cli
from smskit.cli.output import EXIT_INPUT
from smskit.errors import ValidationError
from smskit.rules.filekind import special_file
from smskit.rules.files import RULE_TABLE_FILE
from smskit.rules.recipients import FROM_CSV_ONLY, Recipients
from smskit.sandbox import Sandbox
from smskit.views.composer import Composer

TEXT = "Bonjour {first_name}, -20% ce week-end. STOP au 36173"
FIELDS = ["first_name", "param1"]
# How a spreadsheet or a CRM writes a French number (the default region), or a Belgian one
# beside its country.
NUMBERS = st.one_of(
    st.integers(10_000_000, 99_999_999).map(lambda n: f"+336{n}"),
    st.integers(10_000_000, 99_999_999).map(lambda n: f"07{n}"),
    st.integers(10_000_000, 99_999_999).map(lambda n: f"06 {str(n)[:2]} {str(n)[2:4]} {n % 10000}"),
    st.sampled_from(["not a number", "00123", "+33612345678.0"[:12]]),
)
CELLS = st.one_of(st.none(), st.text(min_size=1, max_size=8).filter(lambda t: "\x00" not in t))
ROWS = st.lists(
    st.tuples(NUMBERS, st.sampled_from([None, "FR", "BE"]), CELLS, CELLS), min_size=1, max_size=8
)


def table_of(rows: list[tuple[Any, ...]]) -> pd.DataFrame:
    """The recipients as a pandas frame of text columns (a missing cell is None)."""
    names = ["phone_number", "country", *FIELDS]
    return pd.DataFrame([list(r) for r in rows], columns=names, dtype=object)


def written(frame: pd.DataFrame, folder: Path) -> tuple[Path, Path]:
    """The frame as a CSV file (a missing cell empty) and as a Parquet file (text columns)."""
    csv_path, parquet = folder / "customers.csv", folder / "customers.parquet"
    with csv_path.open("w", encoding="utf-8", newline="") as handle:  # quotes a lone '\r'
        writer = csv.writer(handle)
        writer.writerow(frame.columns)
        writer.writerows(["" if pd.isna(v) else v for v in row] for row in frame.to_numpy())
    pq.write_table(pa.Table.from_pandas(frame.astype("string"), preserve_index=False), parquet)
    return csv_path, parquet


def read(recipients: Any) -> list[list[Any]]:
    """What the recipients reader takes from ``recipients``: each row's number, country and
    fields, a missing value None."""
    columns = Recipients(recipients).columns(FIELDS)
    return [[None if pd.isna(v) else v for v in row] for row in columns.itertuples(index=False)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=ROWS)
def test_a_parquet_or_csv_path_reads_as_the_same_table_in_memory(
    tmp_path_factory: pytest.TempPathFactory, rows: list[tuple[Any, ...]]
) -> None:
    """A Parquet file's Path reads as the pyarrow Table it holds reads, and a CSV file's as
    the same texts (a cell with text in it; an empty cell is missing); typed Parquet columns
    (integers) as the typed table does. Before, the Parquet file was refused as a CSV file
    with a NUL byte."""
    frame = table_of(rows)
    if frame["phone_number"].str.contains(r"\.").any() or (frame == "").any().any():
        frame["phone_number"] = frame["phone_number"].str.replace(".", "", regex=False)
    csv_path, parquet = written(frame, tmp_path_factory.mktemp("files"))
    expected = read(pa.Table.from_pandas(frame.astype("string"), preserve_index=False))
    assert read(parquet) == expected
    assert read(csv_path) == expected
    typed = pa.table({"phone_number": pa.array([33612345678, 33612345679], pa.int64())})
    typed_path = tmp_path_factory.mktemp("typed") / "numbers.parquet"
    pq.write_table(typed, typed_path)
    assert read(typed_path) == read(typed)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """The same three recipients as a CSV file and as a Parquet file."""
    frame = pd.DataFrame({
        "phone_number": ["+33612345678", "06 12 34 56 79", "0470123456"],
        "country": [None, None, "BE"],
        "first_name": ["Anne", "Zoë", None],
    })  # fmt: skip
    csv_path, parquet = written(frame, tmp_path)
    return {"csv": csv_path, "parquet": parquet, "frame": frame}  # type: ignore[dict-item]


def test_every_entry_point_reads_a_parquet_path_as_its_table(
    files: dict[str, Any], sandbox: Sandbox
) -> None:
    """Campaign, the Composer, bulk_hlr and a send read a Parquet file's Path as the table
    it holds (the numbers in E.164, each row's country)."""
    frame = files["frame"]
    with smskit.Client(sandbox=sandbox) as client:
        for given_as in (files["parquet"], files["csv"]):
            preflight = smskit.Campaign(None, given_as, text=TEXT, sender="Shop").preflight(
                offline=True
            )
            expected = smskit.Campaign(None, frame, text=TEXT, sender="Shop").preflight(
                offline=True
            )
            pd.testing.assert_frame_equal(preflight.frame, expected.frame)
            composer = Composer(None, given_as, text=TEXT, sender="Shop", debounce=0)
            assert composer.preflight is not None
            pd.testing.assert_frame_equal(composer.preflight.frame, expected.frame)
            checked = smskit.bulk_hlr(client, given_as, progress=False, journal=False)
            assert sorted(checked.to_frame()["phone_number"].dropna()) == [
                "+32470123456", "+33612345678", "+33612345679"
            ]  # fmt: skip
        sent = client.sms_campaign.send(
            recipients=files["parquet"], text="Promo STOP au 36173", sender="Shop",
            purpose="alert",
        )  # fmt: skip
        assert sent.number_of_contacts == 3


def test_the_advice_for_a_string_naming_a_parquet_file_works(
    files: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A string naming customers.parquet is refused, advising pathlib.Path('customers.parquet')
    (not Campaign.from_csv, which reads CSV); following the advice reads the file."""
    monkeypatch.chdir(files["parquet"].parent)
    with pytest.raises(ValidationError) as caught:
        smskit.Campaign(None, "customers.parquet", text=TEXT, sender="Shop")
    assert "pathlib.Path('customers.parquet')" in caught.value.rule
    assert "from_csv" not in caught.value.rule
    assert caught.value.remedy == ("path_not_csv",)
    followed = smskit.Campaign(None, Path("customers.parquet"), text=TEXT, sender="Shop")
    assert followed.preflight(offline=True).to_frame()["phone_number"].tolist() == [
        "+33612345678", "+33612345679", "+32470123456"
    ]  # fmt: skip
    with pytest.raises(ValidationError) as as_csv:
        smskit.Campaign(None, "customers.csv", text=TEXT, sender="Shop")
    assert as_csv.value.remedy == ("path",) and "from_csv" in as_csv.value.rule


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("book.xlsx", "save a spreadsheet as 'CSV UTF-8'"),
        ("folder.csv", "is a directory"),
        ("pipe.csv", "is a named pipe (FIFO), not a file stored on disk"),
        ("missing.parquet", "no such file"),
        ("list.txt", "its name ends in '.txt'"),
        ("numbers", "its name has no suffix"),
        ("fake.parquet", "cannot be read"),
    ],
)
def test_a_path_naming_no_csv_or_parquet_file_is_refused_naming_it(
    name: str, says: str, tmp_path: Path, sandbox: Sandbox
) -> None:
    """Every entry point taking recipients refuses such a Path naming the field, the file
    and the rule (before: a directory or another suffix was read as CSV, or refused as a
    CSV file holding a NUL byte; a named pipe was "no such file")."""
    path = tmp_path / name
    if name == "folder.csv":
        path.mkdir()
    elif name == "pipe.csv":
        os.mkfifo(path)  # read, it would block until a writer came (the CSV reader reads twice)
    elif name != "missing.parquet":
        path.write_text("phone_number\n+33612345678\n")
    with smskit.Client(sandbox=sandbox) as client:
        entry_points = {
            "Recipients": lambda: Recipients(path).columns([]),
            "Campaign": lambda: smskit.Campaign(None, path, text=TEXT, sender="S").preflight(
                offline=True
            ),
            "Composer": lambda: Composer(None, path, text=TEXT, sender="S", debounce=0),
            "bulk_hlr": lambda: smskit.bulk_hlr(client, path, progress=False, journal=False),
            "send": lambda: client.sms_campaign.send(recipients=path, text="Hi", sender="S"),
        }
        for entry, call in entry_points.items():
            if entry == "Composer" and name == "fake.parquet":
                continue  # read when checked: the Composer's panel shows the refusal
            with pytest.raises(ValidationError) as caught:
                call()
            refusal = caught.value
            assert refusal.field in ("recipients", "numbers"), entry
            assert says in refusal.rule and str(path) in refusal.rule, (entry, refusal.rule)
            if name != "fake.parquet":
                assert RULE_TABLE_FILE in refusal.rule, entry


def test_from_csv_reads_csv_only_saying_how_to_read_parquet(files: dict[str, Any]) -> None:
    """Recipients.from_csv and Campaign.from_csv (named for CSV) refuse a Parquet file,
    saying to give its Path as the recipients; a CSV reads as before."""

    def campaign(path: Path) -> smskit.Campaign:
        return smskit.Campaign.from_csv(None, path, text=TEXT, sender="Shop")

    for call in (Recipients.from_csv, campaign):
        with pytest.raises(ValidationError) as caught:
            call(files["parquet"])
        assert FROM_CSV_ONLY in caught.value.rule and "is a Parquet file" in caught.value.rule
    assert read(Recipients.from_csv(files["csv"])) == read(files["parquet"])


def test_the_command_line_reads_csv_only_and_says_why(
    files: dict[str, Any], fresh_sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`send --csv x.parquet` is exit 4 naming the file and why (--csv reads CSV; save it
    as CSV UTF-8), not "a NUL byte"; `hlr x.parquet` says to save it as CSV (was "give the
    file a .csv name", then refused as a NUL byte); --csv's help says why it reads CSV
    only."""
    env = {"SMSKIT_BASE_URL": fresh_sandbox.url, "SMSKIT_API_LOGIN": fresh_sandbox.login,
           "SMSKIT_API_KEY": fresh_sandbox.api_key}  # fmt: skip
    send = ["send", "--text", "Promo STOP au 36173", "--sender", "Shop", "--dry-run"]
    runner = CliRunner()
    result = runner.invoke(cli, [*send, "--csv", str(files["parquet"])], env=env)
    assert result.exit_code == EXIT_INPUT, result.stderr
    assert "--csv reads CSV files only" in result.stderr and "NUL" not in result.stderr
    assert str(files["parquet"]) in result.stderr
    monkeypatch.chdir(files["parquet"].parent)
    result = runner.invoke(cli, ["hlr", "customers.parquet"], env=env)
    assert result.exit_code == 2 and "save a Parquet file" in result.stderr, result.stderr
    assert fresh_sandbox.sent().empty
    helped = runner.invoke(cli, ["send", "--help"]).output
    assert "CSV only, as the option's name says" in " ".join(helped.split())


def test_what_a_path_names_is_told_by_its_kind(tmp_path: Path) -> None:
    """special_file: a pipe, a socket and a device are named; a regular file, a directory
    and nothing are left to the readers' own words (None). Each kind made for real."""
    import socket

    (tmp_path / "file.csv").write_text("phone_number\n")
    (tmp_path / "folder").mkdir()
    os.mkfifo(tmp_path / "pipe.csv")
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(tmp_path / "socket.csv"))
        kinds = {
            name: special_file(tmp_path / name)
            for name in ("file.csv", "folder", "pipe.csv", "socket.csv", "missing.csv")
        }
    kinds["/dev/null"] = special_file("/dev/null")
    assert kinds == {
        "file.csv": None, "folder": None, "pipe.csv": "a named pipe (FIFO)",
        "socket.csv": "a socket", "missing.csv": None, "/dev/null": "a device",
    }  # fmt: skip
    with pytest.raises(ValidationError) as caught:
        Recipients(Path("/dev/null")).columns([])
    assert caught.value.rule.startswith("'/dev/null' is a device, not a file stored on disk")


@pytest.mark.parametrize("header", ["Phone_Number", "phone_number ", "phone", "numéro"])
def test_a_file_without_phone_number_names_the_columns_it_has(
    header: str, tmp_path: Path, sandbox: Sandbox
) -> None:
    """A header spelling the numbers' column otherwise ('Phone_Number', a trailing blank,
    'phone') was refused "the CSV file needs a 'phone_number' column", which does not show
    why a column that looks right is not: the refusal now lists the header's columns, as
    written, for recipients given as a CSV or Parquet Path, an opt-out list's CSV and
    `smskit send --csv` (one line, exit 4)."""
    csv = tmp_path / "customers.csv"
    csv.write_text(f"{header},first_name\n+33612345678,Anne\n", encoding="utf-8")
    parquet = tmp_path / "customers.parquet"
    pq.write_table(pa.table({header: ["+33612345678"], "first_name": ["Anne"]}), parquet)
    listed = f"(its columns: {header!r}, 'first_name')"
    for path, kind in ((csv, "CSV"), (parquet, "Parquet")):
        with pytest.raises(ValidationError) as caught:
            smskit.Campaign(None, path, text=TEXT, sender="Shop").preflight(offline=True)
        assert caught.value.rule == f"the {kind} file needs a 'phone_number' column {listed}"
    account = ("http://127.0.0.1:9", "acme")
    with smskit.OptOuts(account, path=tmp_path / "optouts.sqlite") as listing:
        with pytest.raises(ValidationError) as caught:
            listing.import_csv(csv)
        assert caught.value.rule == f"the CSV file needs a 'phone_number' column {listed}"
        assert len(listing.to_frame()) == 0
    env = {"SMSKIT_BASE_URL": sandbox.url, "SMSKIT_API_LOGIN": sandbox.login,
           "SMSKIT_API_KEY": sandbox.api_key}  # fmt: skip
    args = ["send", "--text", "Bonjour", "--sender", "Shop", "--purpose", "alert", "--csv",
            str(csv), "--dry-run"]  # fmt: skip
    result = CliRunner().invoke(cli, args, env=env)
    assert result.exit_code == EXIT_INPUT
    assert result.stderr.strip().splitlines() == [
        f"smskit: error: --csv {csv}: recipients: the CSV file needs a 'phone_number' column "
        f"{listed}"
    ]
