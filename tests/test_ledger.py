"""The ledger of every campaign (``smskit.campaigns.history``, ``smskit campaign list``, its
figure), read from journals made by real sends on the sandbox over HTTP. The judges are the
gateway's own figures (its balance change, the messages it holds) and each campaign's own
result summary; files that are not readable journals always surface, with why."""

from __future__ import annotations

import json
import shutil
import sqlite3
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pytest
from _gateway import callback_gateway
from click.testing import CliRunner, Result

import smskit
from smskit._paths import campaigns_dir, replies_path
from smskit.campaigns import history
from smskit.campaigns.sending.journal import Journal
from smskit.cli import cli
from smskit.cli.output import EXIT_INPUT, EXIT_OK, EXIT_USAGE
from smskit.plots import campaign_history
from smskit.replies import is_opt_out
from smskit.sandbox import DeliveryModel, Sandbox

PROMO = "Promo -20% ce week-end. STOP au 36173"  # 1 GSM-7 segment
ALERT = "Alerte: maintenance ce soir de 22h a 23h"
LONG = "Bonjour, " + "x" * 160 + " STOP au 36173"  # 2 segments
FR_PREMIUM = 0.065  # EUR per segment (docs/sandbox.md)


def fr_mobiles(count: int, start: int = 0) -> list[str]:
    """Distinct valid French mobile numbers."""
    return [f"+3361{i:07d}" for i in range(start, start + count)]


@dataclass
class Sends:
    """Three campaigns sent on one sandbox, journaled in the campaigns directory."""

    sandbox: Sandbox
    results: dict[str, smskit.CampaignResult]
    spent: float  # the gateway's balance change


@pytest.fixture
def sends(fresh_sandbox: Sandbox) -> Iterator[Sends]:
    """A promotion to 1,203 numbers and one that is not a number (kept out), an alert to 7, a
    two-segment text to 40: each a real send through the journaled runner."""
    before = fresh_sandbox.balance()
    with smskit.Client(sandbox=fresh_sandbox) as client:
        results = {
            "promo": smskit.Campaign(
                client, [*fr_mobiles(1203), "12"], text=PROMO, sender="Shop", name="promo"
            ).send(progress=False),
            "alert": smskit.Campaign(
                client, fr_mobiles(7, 5000), text=ALERT, sender="Ops", purpose="alert", name="alert"
            ).send(progress=False),
            "long": smskit.Campaign(
                client, fr_mobiles(40, 6000), text=LONG, sender="Shop", name="long"
            ).send(progress=False),
        }
    yield Sends(fresh_sandbox, results, before - fresh_sandbox.balance())


def test_each_campaign_row_equals_what_the_gateway_holds(sends: Sends) -> None:
    """Per campaign, sent, SMS and cost are what the sandbox holds for that campaign's text
    (counted from its messages), and all costs add up to the balance change."""
    ledger = history().set_index("name")
    held = sends.sandbox.sent()
    for name, text in (("promo", PROMO), ("alert", ALERT), ("long", LONG)):
        mine = held[held["text"] == text]
        assert ledger.loc[name, "sent"] == len(mine)
        assert ledger.loc[name, "sms"] == int(mine["segments"].sum())
        assert ledger.loc[name, "cost"] == pytest.approx(float(mine["cost"].sum()))
    assert ledger["cost"].sum() == pytest.approx(sends.spent)
    assert sends.spent == pytest.approx((1203 + 7 + 2 * 40) * FR_PREMIUM)


def test_each_row_equals_its_campaigns_own_summary(sends: Sends) -> None:
    """recipients, sent, SMS, cost and completeness are those of each result's summary();
    sender and purpose those the campaign was made with (no purpose: wholesale)."""
    ledger = history().set_index("name")
    for name, result in sends.results.items():
        summary = result.summary().iloc[0]
        row = ledger.loc[name]
        assert row["recipients"] == summary["recipients"]
        sent = summary["sent"] + summary["already_accepted"] - summary["dropped_by_gateway"]
        assert row["sent"] == sent
        assert row["sms"] == summary["sms"] and row["cost"] == pytest.approx(summary["cost"])
        assert bool(row["complete"]) is bool(summary["complete"])
        assert row["journal"] == str(result.journal)
    assert ledger.loc["promo", "recipients"] == 1204 and ledger.loc["promo", "sent"] == 1203
    assert ledger[["sender", "purpose"]].astype(str).to_dict("index") == {
        "promo": {"sender": "Shop", "purpose": "wholesale"},
        "alert": {"sender": "Ops", "purpose": "alert"},
        "long": {"sender": "Shop", "purpose": "wholesale"},
    }
    assert not ledger["streamed"].any() and ledger["problem"].isna().all()


def test_columns_have_explicit_dtypes_and_times_in_the_account_zone(sends: Sends) -> None:
    """Counts are Int64, cost float64, purpose a categorical of the spec's purposes, started
    tz-aware (the account's zone by default, UTC when asked) and oldest first."""
    ledger = history()
    dtypes = ledger.dtypes.astype(str).to_dict()
    for column in ("recipients", "sent", "sms", "delivered", "replies", "opt_outs"):
        assert dtypes[column] == "Int64"
    assert dtypes["cost"] == "float64" and dtypes["started"] == "datetime64[ns, Europe/Paris]"
    assert list(ledger["purpose"].cat.categories) == ["alert", "wholesale"]
    assert list(ledger["name"]) == ["promo", "alert", "long"]  # the order they were sent in
    utc = history(time_zone="UTC")
    assert str(utc["started"].dt.tz) == "UTC"
    assert (utc["started"] == ledger["started"]).all()
    created = json.loads(_meta(sends.results["promo"].journal)["created_at"])
    assert ledger.loc[0, "started"].timestamp() == pytest.approx(created, abs=1e-6)


def test_started_is_when_the_journal_was_written_not_the_campaigns_clock(
    fresh_sandbox: Sandbox,
) -> None:
    """A campaign whose clock (as SMSKIT_NOW sets the CLI's) says 3 March is named after that
    clock, but its ledger row's ``started`` is the system time its journal was written: a
    recorded fact of the file, never a replayed "now" (decided; docs/ledger.md)."""
    replayed = datetime(2026, 3, 3, 9, 0, tzinfo=UTC)
    before = datetime.now(UTC)
    with smskit.Client(sandbox=fresh_sandbox) as client:
        sent = smskit.Campaign(client, fr_mobiles(2), text=ALERT, sender="Ops", purpose="alert",
                               clock=lambda: replayed).send(progress=False)  # fmt: skip
    after = datetime.now(UTC)
    assert sent.name.startswith("campaign-20260303T090000")
    started = history(time_zone="UTC").set_index("name").loc[sent.name, "started"]
    assert before <= started.to_pydatetime() <= after


def test_outcomes_without_a_callbacks_store_are_missing_never_zero(sends: Sends) -> None:
    """No callbacks' store (none given, none where `smskit replies serve` keeps it): reported,
    delivered, replies and opt-outs are <NA>, not 0 (nothing claimed that was not read); a
    store given that does not exist is refused."""
    assert not replies_path().exists()
    ledger = history()
    assert ledger[["reported", "delivered", "replies", "opt_outs"]].isna().all().all()
    assert not replies_path().exists()  # the default store is not created by reading
    with pytest.raises(smskit.ConfigurationError, match="no callbacks' store"):
        history(inbox=campaigns_dir() / "nowhere.sqlite")


def test_an_empty_callbacks_file_is_read_never_made_into_a_store(
    sends: Sends, tmp_path: Path
) -> None:
    """An empty file given as the inbox of history() and CampaignResult.outcomes() is refused
    naming it (ConfigurationError), left empty with no -wal or -shm (each call made it an
    inbox and counted its zeros as known outcomes); an empty file where `smskit replies
    serve` keeps its store is no store: outcomes missing, the file left empty."""
    empty = tmp_path / "callbacks.sqlite"
    empty.touch()
    result = smskit.CampaignResult.load(history()["journal"].iloc[0])
    for read in (lambda: history(inbox=empty), lambda: result.outcomes(inbox=empty)):
        with pytest.raises(smskit.ConfigurationError, match="is an empty file, not a callbacks"):
            read()
    assert empty.read_bytes() == b"" and sorted(tmp_path.iterdir()) == [empty]
    replies_path().parent.mkdir(parents=True, exist_ok=True)
    replies_path().touch()
    ledger = history()
    assert ledger[["reported", "delivered", "replies", "opt_outs"]].isna().all().all()
    assert replies_path().read_bytes() == b""


@dataclass
class Outcomes:
    """Two campaigns whose every callback reached the default store, and the sandbox's own
    script of them."""

    numbers: dict[str, list[str]]  # campaign -> its recipients
    reports: pd.DataFrame  # the sandbox's scripted delivery reports and STOPs
    replies: pd.DataFrame  # the sandbox's simulated replies


@pytest.fixture
def outcomes() -> Iterator[Outcomes]:
    """A marketing send with replies to 300 numbers and an alert to 120 on a fast, seeded
    delivery model (late, duplicated, out-of-order reports, STOPs), every callback received by
    the store `smskit replies serve` keeps; a third of the first campaign's recipients reply."""
    numbers = {"promo": fr_mobiles(300), "alert": fr_mobiles(120, 5000)}
    model = DeliveryModel.fast(seed=7, late_share=0.3, duplicate_share=0.3, stop_share=0.2)
    gateway = callback_gateway(replies_path(), seed=3, delivery_model=model)
    with gateway as (sb, _, client):
        promo = smskit.Campaign(
            client, numbers["promo"], text=PROMO, sender="Shop", name="promo", with_replies=True
        ).send(progress=False)
        smskit.Campaign(
            client, numbers["alert"], text=ALERT, sender="Ops", purpose="alert", name="alert"
        ).send(progress=False)
        sb.wait_for_deliveries(timeout=60)
        sb.simulate_campaign_replies(promo.chunks()["ticket"][0], rate=0.3, opt_out_share=0.2)
        sb.wait_for_deliveries(timeout=60)
        yield Outcomes(numbers, pd.DataFrame(sb.reports()), pd.DataFrame(sb.replies()))


def test_outcome_counts_equal_the_sandboxs_own_script(outcomes: Outcomes) -> None:
    """Per campaign, reported and delivered are the final statuses the sandbox decided for
    its recipients, replies the recipients it made reply, opt-outs those it sent a STOP for
    or whose reply asks to stop: read from the default store with no argument."""
    ledger = history().set_index("name")
    reports = outcomes.reports
    finals = reports[(reports["kind"] == "delivery_report") & (reports["status"] != "ACK")]
    decided = finals.drop_duplicates("message_id").set_index("number")["status"]
    stops = set(reports.loc[reports["kind"] == "stop", "number"])
    replies = outcomes.replies
    asked = set(replies.loc[replies["text"].map(is_opt_out), "number"])
    for name, numbers in outcomes.numbers.items():
        mine = decided[decided.index.isin(numbers)]
        assert ledger.loc[name, "reported"] == len(mine) == len(numbers)
        assert ledger.loc[name, "delivered"] == (mine == "DELIVERED").sum()
        assert ledger.loc[name, "replies"] == replies["number"].isin(numbers).sum()
        assert ledger.loc[name, "opt_outs"] == len((stops | asked) & set(numbers))
    assert ledger.loc["promo", "replies"] == 90 and ledger.loc["alert", "replies"] == 0
    assert 0 < ledger.loc["promo", "delivered"] < 300
    assert ledger.loc["promo", "opt_outs"] > len(stops & set(outcomes.numbers["promo"]))


def test_outcome_counts_equal_the_campaigns_own_outcomes(outcomes: Outcomes) -> None:
    """The ledger's counts are each campaign's CampaignResult.outcomes() counted: one join,
    the same figures; an Inbox object given reads the same as its file."""
    ledger = history().set_index("name")
    given = history(inbox=smskit.Inbox(replies_path())).set_index("name")
    for name in outcomes.numbers:
        frame = smskit.CampaignResult.load(ledger.loc[name, "journal"]).outcomes()
        assert ledger.loc[name, "reported"] == frame["final"].sum()
        assert ledger.loc[name, "delivered"] == (frame["status"] == "DELIVERED").sum()
        assert ledger.loc[name, "replies"] == frame["replied"].sum()
        assert ledger.loc[name, "opt_outs"] == frame["opt_out"].sum()
    counts = ["reported", "delivered", "replies", "opt_outs"]
    assert given[counts].equals(ledger[counts])


def test_a_stopped_campaign_is_incomplete_and_counts_what_went(
    fresh_sandbox: Sandbox,
) -> None:
    """Credit for two chunks of 100 out of 500: the row says incomplete, sent 200, and its
    cost is the balance change."""
    fresh_sandbox.set_balance(15.0)
    with smskit.Client(sandbox=fresh_sandbox) as client:
        campaign = smskit.Campaign(client, fr_mobiles(500), text=PROMO, sender="Shop")
        result = campaign.send(chunk_size=100, concurrency=1, progress=False)
    assert not result.complete
    row = history().iloc[0]
    assert not row["complete"] and row["recipients"] == 500
    assert row["sent"] == len(fresh_sandbox.sent()) == 200
    assert row["cost"] == pytest.approx(15.0 - fresh_sandbox.balance())


def test_a_dask_campaign_is_in_the_ledger_beside_the_pandas_ones(
    dask_cluster: object, fresh_sandbox: Sandbox
) -> None:
    """A campaign sent from Dask partitions journals into the same directory: its row says
    streamed, its sent and cost are the gateway's, and its delivered count the sandbox's
    decided statuses."""
    import dask.dataframe as dd

    from smskit.dask import Campaign as DaskCampaign

    base = pd.DataFrame({"phone_number": fr_mobiles(1100)})
    fresh_sandbox.set_delivery_model(DeliveryModel.fast(seed=2))
    with smskit.Inbox(replies_path()) as inbox, smskit.Client(sandbox=fresh_sandbox) as client:
        fresh_sandbox.set_callback_url(inbox.url)
        DaskCampaign(
            client, dd.from_pandas(base, npartitions=3), text=PROMO, sender="Shop", name="big"
        ).send(progress=False)
        smskit.Campaign(
            client, fr_mobiles(3, 9000), text=ALERT, sender="Ops", purpose="alert", name="small"
        ).send(progress=False)
        fresh_sandbox.wait_for_deliveries(timeout=60)
    ledger = history().set_index("name")
    assert ledger.loc["big", "streamed"] and not ledger.loc["small", "streamed"]
    held = fresh_sandbox.sent()
    assert ledger.loc["big", "sent"] == (held["text"] == PROMO).sum() == 1100
    assert ledger.loc["big", "recipients"] == 1100 and ledger.loc["big", "complete"]
    assert ledger["cost"].sum() == pytest.approx(float(held["cost"].sum()))
    reports = pd.DataFrame(fresh_sandbox.reports())
    finals = reports[(reports["kind"] == "delivery_report") & (reports["status"] != "ACK")]
    decided = finals.drop_duplicates("message_id").set_index("number")["status"]
    big = decided[decided.index.isin(base["phone_number"])]
    assert ledger.loc["big", "reported"] == len(big) == 1100
    assert ledger.loc["big", "delivered"] == (big == "DELIVERED").sum()


def _meta(path: Path) -> dict[str, str]:
    with sqlite3.connect(path) as db:
        return dict(db.execute("SELECT key, value FROM meta"))


def unreadable_files(directory: Path, journal: Path) -> dict[str, Path]:
    """Files that are not readable campaign journals, beside the real ones: a CSV, another
    SQLite database, an empty file, a journal of another format, one that holds no campaign,
    a damaged one."""
    files = {
        "csv": directory / "customers.csv",
        "other": directory / "other.sqlite",
        "empty": directory / "empty.journal.sqlite",
        "newer": directory / "newer.journal.sqlite",
        "none": directory / "none.journal.sqlite",
        "damaged": directory / "damaged.journal.sqlite",
    }
    files["csv"].write_text("phone_number\n+33612345678\n")
    with sqlite3.connect(files["other"]) as db:
        db.execute("CREATE TABLE t (a)")
    files["empty"].touch()
    shutil.copy(journal, files["newer"])
    with sqlite3.connect(files["newer"]) as db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'format'")
    Journal(files["none"], mode="any").close()
    files["damaged"].write_bytes(journal.read_bytes()[:4096] + b"\x00garbage" * 512)
    return files


def test_files_that_are_not_journals_are_rows_with_why_and_a_warning(sends: Sends) -> None:
    """Each unreadable file is a row naming it and why (the real campaigns still listed, in
    full), and one warning names them all: none is dropped silently."""
    directory = campaigns_dir()
    files = unreadable_files(directory, sends.results["promo"].journal)
    with pytest.warns(UserWarning, match="6 file") as caught:
        ledger = history()
    flagged = ledger[ledger["problem"].notna()].set_index("journal")["problem"]
    assert sorted(flagged.index) == sorted(str(p) for p in files.values())
    assert "not SQLite" in flagged[str(files["csv"])]
    assert "another kind" in flagged[str(files["other"])]
    assert "empty file" in flagged[str(files["empty"])]
    assert "format 99" in flagged[str(files["newer"])]
    assert "holds no campaign" in flagged[str(files["none"])]
    assert "not an smskit journal" in flagged[str(files["damaged"])]
    for path in files.values():
        assert str(path) in str(caught[0].message)
    read = ledger[ledger["problem"].isna()]
    assert sorted(read["name"]) == ["alert", "long", "promo"]
    unread = ledger[ledger["problem"].notna()]
    assert unread[["name", "started", "sent", "cost"]].isna().all().all()
    assert list(ledger.index[ledger["problem"].notna()]) == [3, 4, 5, 6, 7, 8]  # listed last
    assert files["csv"].read_text() == "phone_number\n+33612345678\n"  # left unchanged


def test_journals_given_as_paths_a_directory_or_a_list(sends: Sends, tmp_path: Path) -> None:
    """A journal's path reads that one; a list reads each; a directory every file in it; a
    path that does not exist is a row saying so."""
    promo, alert = sends.results["promo"].journal, sends.results["alert"].journal
    assert list(history(promo)["name"]) == ["promo"]
    assert list(history([str(alert), promo])["name"]) == ["promo", "alert"]
    shutil.copy(alert, tmp_path / "copy.journal.sqlite")
    assert list(history(tmp_path)["name"]) == ["alert"]
    with pytest.warns(UserWarning, match="does not exist"):
        missing = history([promo, tmp_path / "nowhere.sqlite"])
    assert missing["problem"].isna().tolist() == [True, False]


def test_a_value_that_names_no_journal_is_refused() -> None:
    """A number, or a list holding one, is refused naming the argument and its position."""
    with pytest.raises(smskit.ValidationError, match="journals"):
        history(12)
    with pytest.raises(smskit.ValidationError, match=r"journals\[1\]"):
        history(["a.sqlite", 3])


def test_an_empty_directory_gives_an_empty_ledger_with_its_dtypes() -> None:
    """No journal yet: no row, no warning, the same columns and dtypes."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ledger = history()
    assert ledger.empty and ledger.dtypes["sent"] == "Int64"
    assert str(ledger.dtypes["started"]) == "datetime64[ns, Europe/Paris]"


# -- the figure ---------------------------------------------------------------------------------


def test_the_figure_draws_each_campaigns_cost_and_sent(sends: Sends) -> None:
    """The cost trace holds each campaign's cost at its start, the running total ends at the
    balance change, and the sent trace holds each campaign's sent; unknown deliveries are
    not drawn and the title says so."""
    ledger = history()
    figure = campaign_history(ledger)
    traces = {trace.name: trace for trace in figure.data}
    assert list(traces["cost"].y) == pytest.approx(list(ledger["cost"]))
    assert list(traces["cost"].text) == ["promo", "alert", "long"]
    assert traces["total cost"].y[-1] == pytest.approx(sends.spent)
    assert list(traces["sent"].y) == [1203, 7, 40]
    assert len(traces["delivered"].y) == 0
    assert "delivery not known for 3 of 3" in figure.layout.title.text


def test_the_figure_names_journals_it_cannot_draw(sends: Sends) -> None:
    """Unreadable journals have no time: not drawn, counted in the title."""
    (campaigns_dir() / "notes.txt").write_text("not a journal")
    with pytest.warns(UserWarning):
        figure = campaign_history()
    assert "1 journal(s) unreadable" in figure.layout.title.text
    assert len(next(t for t in figure.data if t.name == "cost").y) == 3


# -- smskit campaign list -----------------------------------------------------------------------


@pytest.fixture
def run() -> Callable[..., Result]:
    """``run(*args)``: the command in-process (it reads journals only: no gateway needed)."""

    def invoke(*args: str) -> Result:
        return CliRunner().invoke(cli, ["campaign", "list", *args], catch_exceptions=False)

    return invoke


def test_cli_lists_every_campaign_and_exits_0(sends: Sends, run: Callable[..., Result]) -> None:
    """One line per campaign, oldest first, with its sent and cost; nothing on stderr."""
    result = run()
    assert result.exit_code == EXIT_OK and result.stderr == ""
    lines = result.stdout.strip().splitlines()
    assert lines[0].split()[:5] == ["name", "started", "sender", "purpose", "recipients"]
    assert [line.split()[0] for line in lines[1:]] == ["promo", "alert", "long"]
    promo = lines[1].split()
    assert "1204" in promo and "1203" in promo and "78.195" in promo and promo[-1] == "yes"


def test_cli_json_holds_the_ledgers_rows(sends: Sends, run: Callable[..., Result]) -> None:
    """--json: every column of each row as history() has it, times in ISO 8601 with offset."""
    result = run("--json")
    assert result.exit_code == EXIT_OK
    document = json.loads(result.stdout)
    assert document["unreadable"] == []
    ledger = history()
    rows = document["campaigns"]
    assert [r["name"] for r in rows] == list(ledger["name"])
    assert [r["cost"] for r in rows] == pytest.approx(list(ledger["cost"]))
    assert [r["sent"] for r in rows] == list(ledger["sent"])
    assert rows[0]["delivered"] is None
    assert pd.Timestamp(rows[0]["started"]) == ledger.loc[0, "started"]


def test_cli_with_no_journal_exits_4_saying_so(run: Callable[..., Result]) -> None:
    """No journal to list: exit 4, one line on stderr, nothing on stdout (never exit 0)."""
    result = run()
    assert result.exit_code == EXIT_INPUT and result.stdout == ""
    assert "no campaign journal found" in result.stderr


def test_cli_names_each_unreadable_journal_and_exits_4(
    sends: Sends, run: Callable[..., Result], tmp_path: Path
) -> None:
    """The readable campaigns are still listed; each unreadable file is one stderr line with
    why; exit 4. -o writes the whole ledger, unreadable rows included."""
    files = unreadable_files(campaigns_dir(), sends.results["promo"].journal)
    out = tmp_path / "ledger.csv"
    result = run("-o", str(out))
    assert result.exit_code == EXIT_INPUT
    assert [line.split()[0] for line in result.stdout.strip().splitlines()[1:]] == [
        "promo", "alert", "long",
    ]  # fmt: skip
    errors = result.stderr.strip().splitlines()
    assert len(errors) == len(files)
    for path in files.values():
        assert sum(str(path) in line for line in errors) == 1
    written = pd.read_csv(out)
    assert len(written) == 9 and written["problem"].notna().sum() == 6


def test_cli_json_lists_the_unreadable_apart(sends: Sends, run: Callable[..., Result]) -> None:
    """--json: unreadable journals under "unreadable" with their problem; exit 4."""
    (campaigns_dir() / "notes.txt").write_text("hello")
    result = run("--json")
    assert result.exit_code == EXIT_INPUT
    document = json.loads(result.stdout)
    assert len(document["campaigns"]) == 3
    assert [u["journal"] for u in document["unreadable"]] == [str(campaigns_dir() / "notes.txt")]
    assert "not SQLite" in document["unreadable"][0]["problem"]


def test_cli_reads_the_journals_given(sends: Sends, run: Callable[..., Result]) -> None:
    """Journals named on the command line are the only ones listed."""
    result = run(str(sends.results["alert"].journal))
    assert result.exit_code == EXIT_OK
    assert [line.split()[0] for line in result.stdout.strip().splitlines()[1:]] == ["alert"]


def test_cli_output_into_a_missing_directory_is_usage(
    sends: Sends, run: Callable[..., Result], tmp_path: Path
) -> None:
    """-o into a directory that does not exist: exit 2 naming -o, nothing written."""
    result = run("-o", str(tmp_path / "nowhere" / "ledger.csv"))
    assert result.exit_code == EXIT_USAGE and "'-o'" in result.stderr
    assert result.stdout == "" and not (tmp_path / "nowhere").exists()


def test_files_smskit_keeps_beside_journals_are_not_rows(sends: Sends) -> None:
    """SQLite's -wal/-shm files, an experiment's record and a Dask campaign's .parts
    directory are not journals: no row, no warning."""
    directory = campaigns_dir()
    (directory / "june-ab.experiment.json").write_text('{"format": "smskit-experiment/1"}')
    (directory / "june-ab.experiment.json.partial").write_text("{")
    (directory / "big.journal.sqlite.parts").mkdir()
    (directory / "promo.journal.sqlite-wal").write_bytes(b"")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ledger = history()
    assert sorted(ledger["name"]) == ["alert", "long", "promo"]
    assert ledger["experiment"].isna().all() and ledger["arm"].isna().all()


def test_the_figure_draws_delivered_when_known(outcomes: Outcomes) -> None:
    """With the store read, the delivered trace holds each campaign's delivered count and its
    hover the delivery rate over sent; the title claims no unknown delivery."""
    ledger = history()
    figure = campaign_history(ledger)
    trace = next(t for t in figure.data if t.name == "delivered")
    assert list(trace.y) == list(ledger["delivered"])
    pairs = zip(ledger["delivered"], ledger["sent"], strict=True)
    rates = [f"{delivered / sent:.1%} delivered" for delivered, sent in pairs]
    assert list(trace.customdata) == rates
    assert "not known" not in figure.layout.title.text


def test_cli_counts_outcomes_from_the_store(
    outcomes: Outcomes, run: Callable[..., Result], tmp_path: Path
) -> None:
    """The table's delivered column is the ledger's; --inbox naming a file that is not a
    callbacks' store (a journal) is input refused naming --inbox (exit 4), left unchanged."""
    ledger = history().set_index("name")
    result = run("--json", "--inbox", str(replies_path()))
    assert result.exit_code == EXIT_OK
    rows = {row["name"]: row for row in json.loads(result.stdout)["campaigns"]}
    for name in ("promo", "alert"):
        for column in ("reported", "delivered", "replies", "opt_outs"):
            assert rows[name][column] == ledger.loc[name, column]
    journal = Path(ledger.loc["promo", "journal"])
    before = journal.read_bytes()
    refused = run("--inbox", str(journal))
    assert refused.exit_code == EXIT_INPUT and refused.stdout == ""
    assert "--inbox" in refused.stderr and "not an inbox" in refused.stderr
    assert journal.read_bytes() == before


def test_cli_refuses_an_empty_inbox_file_and_leaves_it_empty(
    sends: Sends, run: Callable[..., Result], tmp_path: Path
) -> None:
    """`campaign list --inbox EMPTY` with journals to list: input refused naming --inbox and
    the file (exit 4, as `optouts absorb` of an empty file), nothing listed, and the file
    still empty with no -wal or -shm beside it (it was made into an inbox, then exit 4 said
    "no campaign journal found")."""
    empty = tmp_path / "callbacks.sqlite"
    empty.touch()
    refused = run("--inbox", str(empty))
    assert refused.exit_code == EXIT_INPUT and refused.stdout == ""
    assert refused.stderr == (
        f"smskit: error: --inbox {empty}: an empty file, not an inbox: nothing listed\n"
    )
    assert empty.read_bytes() == b"" and sorted(tmp_path.iterdir()) == [empty]
    assert run().exit_code == EXIT_OK  # the same journals, no --inbox: listed


def test_a_campaign_without_callbacks_counts_zero_reported(fresh_sandbox: Sandbox) -> None:
    """A campaign sent before the callback URL was registered has no report in the store: it
    reads as reported 0 and delivered 0 beside one that has them (CampaignResult.outcomes()
    gives it `pending` rows; it raised on a zone-less delivery_date before)."""
    fresh_sandbox.set_delivery_model(DeliveryModel.fast(seed=1))
    with smskit.Inbox() as inbox, smskit.Client(sandbox=fresh_sandbox) as client:
        early = smskit.Campaign(client, fr_mobiles(5), text=PROMO, sender="Shop", name="early")
        result = early.send(progress=False)
        fresh_sandbox.set_callback_url(inbox.url)
        smskit.Campaign(client, fr_mobiles(4, 100), text=PROMO, sender="Shop", name="late").send(
            progress=False
        )
        fresh_sandbox.wait_for_deliveries(timeout=30)
        ledger = history(inbox=inbox).set_index("name")
        outcomes = result.outcomes(inbox)
    scripted = pd.DataFrame(fresh_sandbox.reports())
    assert not scripted["number"].isin(fr_mobiles(5)).any()
    assert ledger.loc["early", ["reported", "delivered", "replies", "opt_outs"]].tolist() == [
        0, 0, 0, 0,
    ]  # fmt: skip
    assert ledger.loc["late", "reported"] == 4
    assert (outcomes["status"] == "pending").all() and outcomes["delivery_date"].isna().all()


def test_an_experiments_arms_are_rows_naming_it(
    fresh_sandbox: Sandbox, run: Callable[..., Result]
) -> None:
    """Each arm of a smskit.Experiment is a row naming the experiment and its arm, with the
    arm's own recipients (the record's split) and what the gateway holds for its text; the
    experiment's record is no row; the table shows the two columns."""
    texts = {"A": PROMO, "B": "Soldes ce week-end: -20%. STOP au 36173"}
    with smskit.Client(sandbox=fresh_sandbox) as client:
        experiment = smskit.Experiment(
            client, fr_mobiles(200), variants=texts, sender="Shop", name="june-ab", seed=7
        )
        experiment.send(progress=False)
        smskit.Campaign(client, fr_mobiles(3, 900), text=LONG, sender="Shop", name="solo").send(
            progress=False
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the record beside the journals is not a problem
        ledger = history().set_index("name")
    assert sorted(ledger.index) == ["june-ab.A", "june-ab.B", "solo"]
    held = fresh_sandbox.sent()
    for arm, text in texts.items():
        row = ledger.loc[f"june-ab.{arm}"]
        assert (row["experiment"], row["arm"]) == ("june-ab", arm)
        assert row["recipients"] == len(experiment.record.rows_of(arm))
        assert row["sent"] == (held["text"] == text).sum()
    assert ledger.loc["solo", ["experiment", "arm"]].isna().all()
    assert ledger.loc["june-ab.A", "recipients"] + ledger.loc["june-ab.B", "recipients"] == 200
    lines = run().stdout.strip().splitlines()
    assert lines[0].split()[:3] == ["name", "experiment", "arm"]
    assert sorted(line.split()[1] for line in lines[1:] if line.startswith("june-ab")) == [
        "june-ab", "june-ab",
    ]  # fmt: skip


def test_cli_says_why_the_outcome_columns_are_blank_on_a_terminal(
    sends: Sends, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No callbacks' store: on a terminal, one notice says where none was found and how to
    name one; --quiet drops it (the exit stays 0: the journals were all read)."""
    monkeypatch.setattr("smskit.cli.options._stderr_is_terminal", lambda: True)
    shown = CliRunner().invoke(cli, ["campaign", "list"], catch_exceptions=False)
    assert shown.exit_code == EXIT_OK
    assert shown.stderr.strip() == (
        "reported, delivered, replies and opt-outs are blank: no callbacks' store at "
        f"{replies_path()} (--inbox FILE names one)"
    )
    quiet = CliRunner().invoke(cli, ["-q", "campaign", "list"], catch_exceptions=False)
    assert quiet.exit_code == EXIT_OK and quiet.stderr == ""
