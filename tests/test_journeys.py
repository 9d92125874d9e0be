"""Python journeys a stranger takes, against a real sandbox over HTTP: the bulk helpers read a
string as one number, so one naming a file is refused (never checked as one bad number)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

import smskit
from smskit.sandbox import Sandbox


@pytest.fixture
def client(fresh_sandbox: Sandbox) -> Iterator[smskit.Client]:
    """A client on the test's own sandbox."""
    with smskit.Client(sandbox=fresh_sandbox) as made:
        yield made


@pytest.mark.parametrize("name", ["customers.csv", "list.txt", "missing.parquet", "Base.CSV"])
def test_bulk_helpers_refuse_a_string_naming_a_file(
    client: smskit.Client,
    fresh_sandbox: Sandbox,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
) -> None:
    """bulk_hlr(client, "customers.csv") checked the path as one bad number and returned a
    result; it is refused naming `numbers` and how to read the file, and nothing is charged
    (delete_contacts alike, naming `phone_numbers`)."""
    monkeypatch.chdir(tmp_path)
    for existing in ("customers.csv", "list.txt"):
        Path(existing).write_text("phone_number\n+33612345678\n")
    with pytest.raises(smskit.ValidationError) as caught:
        smskit.bulk_hlr(client, name, progress=False, journal=False)
    assert (caught.value.field, caught.value.value) == ("numbers", name)
    # the advice works: a CSV or Parquet file given as a pathlib.Path is read; another kind
    # is saved as one first
    if name.lower().endswith((".csv", ".parquet")):
        assert f"pathlib.Path({name!r})" in caught.value.rule
    else:
        assert "save it as a CSV (.csv, UTF-8) or Parquet" in caught.value.rule
    with pytest.raises(smskit.ValidationError) as deleting:
        smskit.campaigns.delete_contacts(client, name, progress=False)
    assert deleting.value.field == "phone_numbers"
    assert fresh_sandbox.balance() == 1000.0


def test_a_csv_name_given_to_bulk_hlr_is_refused_with_advice_bulk_hlr_takes(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bulk_hlr(client, "customers.csv") advised Campaign.from_csv, which bulk_hlr does not
    take and which sends SMS instead of checking lines; the advice is the pathlib.Path that
    bulk_hlr reads (its own call), word for word, and following it checks the file's number.
    A campaign's recipients keep Campaign.from_csv (with its client) as the other way."""
    monkeypatch.chdir(tmp_path)
    Path("customers.csv").write_text("phone_number\n0612345678\n")
    with pytest.raises(smskit.ValidationError) as caught:
        smskit.bulk_hlr(client, "customers.csv", progress=False, journal=False)
    assert str(caught.value) == (
        "numbers: a string is one phone number, and this one names a file: to read the file, "
        "pass pathlib.Path('customers.csv') (got 'customers.csv')"
    )
    with pytest.raises(smskit.ValidationError) as campaign:
        smskit.Campaign(client, "customers.csv", text="Alerte", sender="Ops", purpose="alert")
    assert str(campaign.value) == (
        "recipients: a string is one phone number, and this one names a file: to read the "
        "file, pass pathlib.Path('customers.csv') (or Campaign.from_csv(client, "
        "'customers.csv', ...)) (got 'customers.csv')"
    )
    assert fresh_sandbox.balance() == 1000.0
    lines = smskit.bulk_hlr(client, Path("customers.csv"), progress=False, journal=False)
    assert lines.to_frame()["phone_number"].tolist() == ["+33612345678"]
    assert fresh_sandbox.balance() < 1000.0  # the advice followed: the line was checked


def test_bulk_hlr_string_that_is_a_number_is_checked(
    client: smskit.Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A string a phone number could be stays one number, even when a file has that name."""
    monkeypatch.chdir(tmp_path)
    Path("0612345678").write_text("phone_number\n+33698765432\n")
    frame = smskit.bulk_hlr(client, "0612345678", progress=False, journal=False).to_frame()
    assert frame["phone_number"].tolist() == ["+33612345678"]
    assert frame["status"].astype(str).tolist() == ["valid"]


@pytest.mark.parametrize("bad", ["+3361234\ud800", "06\udc0012"])
def test_bulk_helpers_name_the_value_holding_a_lone_surrogate(
    client: smskit.Client, fresh_sandbox: Sandbox, bad: str
) -> None:
    """A number holding a lone surrogate (bytes decoded wrongly) was refused as "values: must
    be an iterable of numbers (UnicodeEncodeError)"; it is refused naming the argument, the
    position and the rule, before any request."""
    for helper, field in ((smskit.bulk_hlr, "numbers"),
                          (smskit.campaigns.delete_contacts, "phone_numbers")):  # fmt: skip
        with pytest.raises(smskit.ValidationError) as caught:
            helper(client, ["+33612345678", bad], progress=False)
        assert (caught.value.field, caught.value.position) == (field, 1)
        assert "lone surrogate" in caught.value.rule and caught.value.value == bad
    assert fresh_sandbox.balance() == 1000.0


def sent_journal(client: smskit.Client, path: Path) -> Path:
    """The journal of a one-recipient campaign sent to the test's sandbox."""
    campaign = smskit.Campaign(
        client, ["+33612345678"], text="Alerte", sender="Ops", purpose="alert"
    )
    assert campaign.send(progress=False, journal=path).complete
    return path


def test_bulk_hlr_refuses_a_campaign_journal_as_its_cache_and_leaves_it_readable(
    client: smskit.Client, tmp_path: Path
) -> None:
    """bulk_hlr(journal=<a campaign's journal>) added the cache's table to it, after which
    the journal was refused as "the HLR cache" (resume impossible); it is refused naming
    what the file is, the file byte for byte unchanged and still a readable journal."""
    journal = sent_journal(client, tmp_path / "alert.journal.sqlite")
    before = journal.read_bytes()
    with pytest.raises(
        smskit.ConfigurationError, match="is not an HLR cache: it is the journal of a campaign"
    ):
        smskit.bulk_hlr(client, ["+33698765432"], progress=False, journal=journal)
    assert journal.read_bytes() == before
    assert smskit.CampaignResult.load(journal).complete


def test_hlr_cache_file_of_its_own_kind_is_reused(client: smskit.Client, tmp_path: Path) -> None:
    """A cache file made by bulk_hlr is accepted again and serves its answers."""
    cache = tmp_path / "hlr.sqlite"
    smskit.bulk_hlr(client, ["+33698765432"], progress=False, journal=cache)
    again = smskit.bulk_hlr(client, ["+33698765432"], progress=False, journal=cache).to_frame()
    assert again["cached"].tolist() == [True]


def test_inbox_refuses_files_that_are_not_inboxes_and_leaves_them(
    client: smskit.Client, tmp_path: Path
) -> None:
    """Inbox(<a campaign journal>) added the inbox's tables to it (the journal then refused by
    CampaignResult.load); Inbox("customers.csv") and a path in a missing directory raised raw
    sqlite3 errors. Each is a ConfigurationError naming the file, which is left unchanged."""
    journal = sent_journal(client, tmp_path / "alert.journal.sqlite")
    csv = tmp_path / "customers.csv"
    csv.write_text("phone_number\n+33612345678\n")
    for path in (journal, csv):
        before = path.read_bytes()
        with pytest.raises(smskit.ConfigurationError, match="is not an inbox file"):
            smskit.Inbox(str(path))
        assert path.read_bytes() == before
    assert smskit.CampaignResult.load(journal).complete
    with pytest.raises(smskit.ConfigurationError, match=r"its directory .* does not exist"):
        smskit.Inbox(str(tmp_path / "missing" / "replies.sqlite"))


def test_hlr_cache_of_the_earlier_journal_format_is_still_a_cache(
    client: smskit.Client, tmp_path: Path
) -> None:
    """A cache file of earlier versions (the journal's tables, no campaign, a table hlr) is
    accepted: only a file holding a campaign or foreign tables is refused."""
    from smskit.campaigns.sending.journal import Journal

    cache = tmp_path / "hlr.sqlite"
    Journal(cache, mode="any").close()  # the journal's tables, never a campaign
    with sqlite3.connect(cache) as db:
        db.execute("CREATE TABLE hlr (phone_number TEXT PRIMARY KEY, result TEXT, checked_at REAL)")
    frame = smskit.bulk_hlr(client, ["+33698765432"], progress=False, journal=cache).to_frame()
    assert frame["status"].astype(str).tolist() == ["valid"]
