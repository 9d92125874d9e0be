"""Input that used to raise a raw exception, or to be read silently wrong, is refused.

One test per class of issue #26 items 3 and 4, each through every entry point the class
reaches: a lone surrogate in any text; a column the reader reads twice; a missing value of
any kind where a date is expected; a file of another kind given as a journal; a string that
names a file; a Dask object or another library's Arrow data where pandas or a list is
expected; a CSV that cannot be read whole; a campaign that would reach nobody. The refusal
is an smskit error naming the field (and the row, or the file's line) and the rule.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from click.testing import CliRunner

import smskit
from smskit import text
from smskit.campaigns import CampaignResult
from smskit.cli import cli
from smskit.cli.output import EXIT_INPUT
from smskit.rules.missing import is_missing
from smskit.sandbox import Sandbox

TEXT = "Code 1234"
OPTIONS: dict[str, Any] = {"text": TEXT, "sender": "Shop", "purpose": "alert"}
MISSING = [float("nan"), pd.NA, pd.NaT, np.datetime64("NaT"), Decimal("NaN"), np.float64("nan")]


@pytest.fixture
def client(fresh_sandbox: Sandbox) -> Iterator[smskit.Client]:
    """A client on the test's own sandbox, without retries."""
    with smskit.Client(sandbox=fresh_sandbox, max_retries=0) as made:
        yield made


def refused(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> smskit.ValidationError:
    """The ValidationError ``fn`` raises (fails on anything else, or nothing)."""
    with pytest.raises(smskit.ValidationError) as caught:
        fn(*args, **kwargs)
    return caught.value


def campaign_report(client: smskit.Client, recipients: Any, **options: Any) -> Any:
    """A campaign's offline preflight (what the constructor and preflight read)."""
    return smskit.Campaign(client, recipients, **{**OPTIONS, **options}).preflight(offline=True)


def digest(path: Path) -> str:
    """The file's bytes, hashed: to see that a refusal left it as it was."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- item 3: raw exceptions ---------------------------------------------------------------


def test_lone_surrogate_in_campaign_text_or_sender_names_the_field(client: smskit.Client) -> None:
    """A lone surrogate in the text or sender was a UnicodeEncodeError from hashing the
    campaign's name; now a ValidationError naming the field and the character's position."""
    for field in ("text", "sender"):
        value = {"text": "Code \ud800", "sender": "S\ud800op"}[field]
        error = refused(smskit.Campaign, client, ["+33612345678"], **{**OPTIONS, field: value})
        assert (error.field, error.value) == (field, "\ud800")
        assert error.position == value.index("\ud800")


def test_lone_surrogate_in_a_recipient_names_field_and_row(client: smskit.Client) -> None:
    """A lone surrogate in a number or a field value was a UnicodeEncodeError from pyarrow, in
    preflight, send and render_all; now refused by the reader naming column and row."""
    numbers = ["+33612345678", "+3361234\ud800"]
    fields = [{"phone_number": "+33612345678", "first_name": "Zo\udce9"}]
    number, first_name = "recipients.phone_number", "recipients.first_name"
    cases: list[tuple[Callable[[], Any], str, int]] = [
        (lambda: campaign_report(client, numbers), number, 1),
        (lambda: client.sms_campaign.send(recipients=numbers, **OPTIONS), number, 1),
        (lambda: campaign_report(client, fields, text="Hi {first_name}"), first_name, 0),
        (lambda: text.render_all("Hi {first_name}", fields), first_name, 0),
        (lambda: client.contact.create(pd.DataFrame(fields, dtype=object)),
         "contacts.first_name", 0),
    ]  # fmt: skip
    for call, field, row in cases:
        error = refused(call)
        assert (error.field, error.position) == (field, row)
        assert "surrogate" in error.rule


def test_lone_surrogate_in_a_query_parameter_names_it(fresh_sandbox: Sandbox) -> None:
    """A lone surrogate in check_balance's or check_credits' query was httpx's
    UnicodeEncodeError (found by a 20,705-call sweep); now a ValidationError naming it."""
    for validate in (True, False):
        with smskit.Client(sandbox=fresh_sandbox, max_retries=0, validate=validate) as client:
            balance = refused(
                client.wallet.check_balance, country_code="F\ud800", product_name="sms_premium"
            )
            credits = refused(client.wallet.check_credits, ["\udfff"])
        assert balance.field == "country_code" and credits.field == "country_codes"


def test_repeated_column_is_refused_naming_it(client: smskit.Client) -> None:
    """Two phone_number (or first_name) columns were pandas' AttributeError / ValueError in
    Campaign, send, render_all, HLR and contacts; now a ValidationError naming the column."""
    twice = pd.DataFrame([["+33612345678", "+33698765432"]], columns=["phone_number"] * 2)
    names = pd.DataFrame([["+33612345678", "Al", "Bo"]],
                         columns=["phone_number", "first_name", "first_name"])  # fmt: skip
    calls: list[tuple[Callable[[], Any], str]] = [
        (lambda: campaign_report(client, twice), "recipients.phone_number"),
        (lambda: client.sms_campaign.send(recipients=twice, **OPTIONS), "recipients.phone_number"),
        (lambda: text.render_all("Hi", twice), "recipients.phone_number"),
        (lambda: campaign_report(client, names, text="Hi {first_name}"), "recipients.first_name"),
        (lambda: client.contact.hlr_request(twice), "phone_numbers.phone_number"),
        (lambda: smskit.bulk_hlr(client, twice, progress=False, journal=False),
         "numbers.phone_number"),
        (lambda: client.contact.delete(twice, list_name="l"), "phone_numbers.phone_number"),
    ]  # fmt: skip
    for call, field in calls:
        assert refused(call).field == field


def test_column_names_of_other_types_are_ignored_like_other_columns(client: smskit.Client) -> None:
    """Column names that are not strings (5, None, a tuple) are not fields: the frame is read
    by its phone_number column, as a frame with any other extra column."""
    frame = pd.DataFrame([["+33612345678", "x", "y", "z"]],
                         columns=["phone_number", 5, None, ("a", "b")])  # fmt: skip
    report = campaign_report(client, frame)
    assert report.to_send == 1
    assert report.to_frame()["phone_number"].tolist() == ["+33612345678"]


@pytest.mark.parametrize("missing", MISSING, ids=repr)
def test_missing_value_as_send_at_is_refused(client: smskit.Client, missing: Any) -> None:
    """send_at=pd.NaT was "NaTType does not support utcoffset" (ValueError); every missing
    kind is now refused naming send_at, in Campaign and in the client's send (None means
    "not given" and is accepted)."""
    assert refused(smskit.Campaign, client, ["+33612345678"], **OPTIONS, send_at=missing).field == (
        "send_at"
    )
    error = refused(
        client.sms_campaign.send, recipients=["+33612345678"], send_at=missing, **OPTIONS
    )
    assert error.field == "send_at"
    assert smskit.Campaign(client, ["+33612345678"], **OPTIONS, send_at=None).options == {
        "purpose": "alert"
    }


def test_numpy_not_a_time_is_missing() -> None:
    """numpy's datetime64("NaT") and timedelta64("NaT") are missing values, like pd.NaT."""
    assert is_missing(np.datetime64("NaT")) and is_missing(np.timedelta64("NaT"))
    assert not is_missing(np.datetime64("2030-01-01")) and not is_missing(np.timedelta64(0))


@pytest.fixture
def sent_journal(client: smskit.Client, tmp_path: Path) -> Path:
    """The journal of a small campaign, sent."""
    path = tmp_path / "sent.journal.sqlite"
    smskit.Campaign(client, ["+33612345678"], **OPTIONS).send(progress=False, journal=path)
    return path


def test_resume_and_load_refuse_files_that_hold_no_campaign(
    client: smskit.Client, tmp_path: Path, sent_journal: Path
) -> None:
    """Campaign.resume / CampaignResult.load of the HLR cache or another SQLite file was
    KeyError: 'text' (and load read an empty campaign, after adding the journal's tables to
    the file); another journal format version, or a file that is not SQLite, too. Each is now
    a ConfigurationError, and the file is left byte for byte as it was."""
    hlr_cache = tmp_path / "hlr.sqlite"
    smskit.bulk_hlr(client, ["+33612345678"], progress=False, journal=hlr_cache)
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE customers (phone TEXT)")
    db.close()
    old = tmp_path / "old.journal.sqlite"
    old.write_bytes(sent_journal.read_bytes())
    with sqlite3.connect(old) as db:
        db.execute("UPDATE meta SET value = '1' WHERE key = 'format'")
    db.close()
    binary = tmp_path / "binary.sqlite"
    binary.write_bytes(bytes(range(256)) * 8)
    earlier_cache = tmp_path / "earlier-hlr.sqlite"  # a cache when it shared the journal's format
    with sqlite3.connect(earlier_cache) as db:
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("CREATE TABLE hlr (phone_number TEXT PRIMARY KEY, result TEXT, checked_at REAL)")
    db.close()
    for path in (hlr_cache, earlier_cache, other, old, binary):
        before = digest(path)
        with pytest.raises(smskit.ConfigurationError, match=path.name):
            smskit.Campaign.resume(path, client, progress=False)
        with pytest.raises(smskit.ConfigurationError, match=path.name):
            CampaignResult.load(path)
        assert digest(path) == before, path.name
    assert CampaignResult.load(sent_journal).complete  # the journal of a campaign still reads
    with sqlite3.connect(sent_journal) as db:  # as journals made when they held HLR answers
        db.execute("CREATE TABLE hlr (phone_number TEXT PRIMARY KEY, result TEXT, checked_at REAL)")
    db.close()
    assert CampaignResult.load(sent_journal).complete


# --- item 4: silently misread ---------------------------------------------------------------


def test_string_naming_a_file_is_refused_with_what_to_pass(
    client: smskit.Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Campaign(client, "customers.csv") preflighted one recipient whose number was the path
    and send() reported complete with nothing sent; a string that cannot be a number and
    names a file, or ends in .csv / .parquet, is now refused, saying to pass Path(...)."""
    monkeypatch.chdir(tmp_path)
    Path("customers.csv").write_text("phone_number\n+33612345678\n")
    Path("list.txt").write_text("phone_number\n+33612345678\n")
    for name in ("customers.csv", "list.txt", "missing.parquet", "data/Base.CSV"):
        error = refused(smskit.Campaign, client, name, **OPTIONS)
        assert (error.field, error.value) == ("recipients", name)
        assert "pathlib.Path" in error.rule
        assert refused(client.sms_campaign.send, recipients=name, **OPTIONS).field == "recipients"
    from_file = smskit.Campaign.from_csv(client, "customers.csv", **OPTIONS)
    assert from_file.preflight(offline=True).to_frame()["phone_number"].tolist() == ["+33612345678"]


def test_number_that_is_also_a_file_name_stays_a_number(
    client: smskit.Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A string a phone number could be is one, even when a file has that name."""
    monkeypatch.chdir(tmp_path)
    Path("0612345678").write_text("phone_number\n+33698765432\n")
    report = campaign_report(client, "0612345678")
    assert report.to_frame()["phone_number"].tolist() == ["+33612345678"]


def test_dask_collection_is_refused_with_a_pointer_to_smskit_dask(client: smskit.Client) -> None:
    """Campaign(client, dask_frame) read its column names as recipients; a Dask collection is
    now refused wherever pandas or a list is read, naming smskit.dask."""
    import dask.dataframe as dd

    frame = dd.from_pandas(pd.DataFrame({"phone_number": ["+33612345678"]}), npartitions=1)
    calls: list[tuple[Callable[[], Any], str]] = [
        (lambda: smskit.Campaign(client, frame, **OPTIONS), "recipients"),
        (lambda: smskit.Campaign(client, frame["phone_number"], **OPTIONS), "recipients"),
        (lambda: client.sms_campaign.send(recipients=frame, **OPTIONS), "recipients"),
        (lambda: client.contact.create(frame), "contacts"),
        (lambda: client.contact.hlr_request(frame), "phone_numbers"),
        (lambda: smskit.bulk_hlr(client, frame, progress=False, journal=False), "numbers"),
        (lambda: smskit.Composer(client, frame), "recipients"),
    ]
    for call, field in calls:
        error = refused(call)
        assert error.field == field and "smskit.dask" in error.rule


class OtherArrowFrame:
    """Another library's object exporting Arrow data (neither pandas, pyarrow nor polars)."""

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        """What pyarrow would read: never called, the reader refuses before."""
        return pa.table({"phone_number": ["+33612345678"]}).__arrow_c_stream__(requested_schema)


def test_other_libraries_arrow_data_is_refused_with_the_conversion_to_use(
    client: smskit.Client,
) -> None:
    """pyarrow and polars objects are read (tests/test_arrow_recipients.py); another library's
    Arrow data is refused (iterating it gives no rows), naming the pandas or pyarrow
    conversion, in the reader and in the lists of numbers."""
    value = OtherArrowFrame()
    for error in (
        refused(smskit.Campaign, client, value, **OPTIONS),
        refused(client.contact.hlr_request, value),
    ):
        assert ".to_pandas()" in error.rule and "pyarrow.table(" in error.rule
        assert error.value == "OtherArrowFrame"


CSV_DEFECTS = {
    "unclosed quote": (b'phone_number,first_name\n+33612345678,Al\n+33612345679,"Bo\n+336,C\n', 3),
    "latin-1 bytes": (b"phone_number,first_name\n+33612345678,Al\n+33612345679,Zo\xeb\n", 3),
    "NUL byte": (b"phone_number\n+33612345678\n+336123\x0045679\n", 3),
    "binary file": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", 1),
    "cut character": (b"phone_number,first_name\n+33612345678,Zo\xc3", 2),
}  # fmt: skip


@pytest.mark.parametrize("defect", sorted(CSV_DEFECTS))
def test_csv_that_cannot_be_read_whole_is_refused_naming_the_line(
    client: smskit.Client, tmp_path: Path, defect: str
) -> None:
    """An unclosed quote was read to the end of the file as one value; bytes that are not
    UTF-8 were a raw UnicodeDecodeError; a NUL byte was read into a number. Each is refused
    with the line where reading stops being exact."""
    data, line = CSV_DEFECTS[defect]
    path = tmp_path / "customers.csv"
    path.write_bytes(data)
    error = refused(campaign_report, client, path, text="Hi {first_name}")
    assert (error.field, error.line, error.value) == ("recipients", line, "customers.csv")
    assert f"line {line} " in str(error)


def test_cli_send_of_a_binary_file_is_an_input_error_not_a_bug(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """`smskit send --csv` of a binary file reported "unexpected error (a bug)"; now exit 4
    with the line."""
    path = tmp_path / "photo.csv"
    path.write_bytes(bytes(range(256)) * 4)
    env = {"SMSKIT_BASE_URL": fresh_sandbox.url, "SMSKIT_API_LOGIN": fresh_sandbox.login,
           "SMSKIT_API_KEY": fresh_sandbox.api_key}  # fmt: skip
    args = ["send", "--text", TEXT, "--sender", "Shop", "--purpose", "alert", "--csv", str(path)]
    result = CliRunner().invoke(cli, [*args, "--yes"], env=env)
    assert result.exit_code == EXIT_INPUT
    assert "line 1 of the CSV file" in result.stderr and "a bug" not in result.stderr
    assert len(fresh_sandbox.sent()) == 0


def test_campaign_that_reaches_nobody_is_not_ok_and_send_refuses(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Preflight of a campaign where no recipient can be sent said ok, and send() returned
    complete=True having sent nothing; now the report is not ok (summary and repr say so) and
    send() and estimate() raise a ValidationError naming recipients. Nothing is sent."""
    for recipients in (["not a number", "+336"], []):
        campaign = smskit.Campaign(client, recipients, **OPTIONS)
        report = campaign.preflight()
        assert not report.ok and report.to_send == 0
        assert report.summary()["ok"].tolist() == [False]
        assert report.summary()["errors"].tolist() == [1]
        assert refused(report.raise_for_errors).field == "recipients"
        journal = tmp_path / "nobody.journal.sqlite"
        assert refused(campaign.send, progress=False, journal=journal).field == "recipients"
        assert refused(campaign.estimate, offline=True).field == "recipients"
        assert not journal.exists()
    assert len(fresh_sandbox.sent()) == 0


def test_dask_campaign_that_reaches_nobody_is_not_ok_and_send_refuses(
    dask_cluster: Any, client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """The same for smskit.dask.Campaign: its report is not ok (summary too) and send()
    raises on recipients, sending nothing."""
    import dask.dataframe as dd

    from smskit.dask import Campaign as DaskCampaign

    frame = dd.from_pandas(pd.DataFrame({"phone_number": ["not a number", "+336"]}), npartitions=2)
    campaign = DaskCampaign(client, frame, **OPTIONS)
    report = campaign.preflight(offline=True)
    assert not report.ok and report.to_send == 0
    assert report.summary()[["errors", "ok"]].values.tolist() == [[1, False]]
    error = refused(campaign.send, progress=False, journal=tmp_path / "nobody.journal.sqlite")
    assert error.field == "recipients"
    assert len(fresh_sandbox.sent()) == 0
