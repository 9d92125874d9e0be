"""``smskit campaign status|resume JOURNAL``: a journaled campaign, read or finished;
``smskit campaign list``: the ledger of every journaled campaign."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import click

from smskit.cli.options import file_option, is_quiet, output_option
from smskit.cli.output import (
    EXIT_CONFIG,
    EXIT_INCOMPLETE,
    EXIT_INPUT,
    EXIT_REPEAT,
    json_option,
    print_json,
    print_row,
    progress,
    records,
    row,
)
from smskit.cli.sendcheck import (
    Refused,
    inbox_file,
    journal_result,
    quiet_shortfall,
    say_shortfall,
    unresumable,
)

if TYPE_CHECKING:
    import pandas as pd

    from smskit.campaigns import CampaignResult

journal_argument = click.argument(
    "journal", metavar="JOURNAL", type=click.Path(exists=True, dir_okay=False, path_type=Path)
)


@click.group()
def campaign() -> None:
    """Campaign journals: the ledger of all of them, one's status, or a resume after a crash
    or a stop."""


@campaign.command()
@journal_argument
@json_option
def status(journal: Path, as_json: bool) -> int:
    """What the journal records, without sending anything; exits 7 unless complete."""
    return _report(journal_result(journal, "JOURNAL"), as_json)


@campaign.command()
@journal_argument
@click.option("--concurrency", type=click.IntRange(1, 64), default=4, show_default=True)
@json_option
def resume(journal: Path, concurrency: int, as_json: bool) -> int:
    """Send what the journal has not sent yet, on the gateway it records (URL and login; the
    key from SMSKIT_API_KEY). Never sends a chunk twice; exits 7 unless complete, 9 when the
    journal was complete already (nothing to send)."""
    from smskit.campaigns import Campaign
    from smskit.errors import SandboxEndedError

    recorded = journal_result(journal, "JOURNAL")  # not a journal: exit 4 before connecting
    if recorded.complete:
        raise Refused(
            f"campaign {recorded.name!r} (journal {journal}) is complete: nothing to resume, "
            "nothing sent",
            EXIT_REPEAT,
        )
    try:
        with quiet_shortfall():
            result = Campaign.resume(journal, concurrency=concurrency, progress=progress())
    except SandboxEndedError as exc:
        raise Refused(
            f"{journal}: nothing to resume, {unresumable(exc.url)}; `smskit campaign status "
            f"{journal}` shows what it did",
            EXIT_CONFIG,
        ) from None
    return _report(result, as_json)


def _report(result: CampaignResult, as_json: bool) -> int:
    say_shortfall(result)
    summary = row(result.summary())
    if as_json:
        print_json({"summary": summary, "not_sent": records(result.not_sent)})
    else:
        print_row("Campaign:", summary)
    return 0 if result.complete else EXIT_INCOMPLETE


# The ledger's columns a table shows (--json and -o hold every column).
SHOWN: Final = (
    "name", "started", "sender", "purpose", "recipients", "sent", "sms", "cost", "reported",
    "delivered", "replies", "opt_outs", "complete",
)  # fmt: skip


@campaign.command(name="list")
@click.argument(
    "journals", metavar="[JOURNAL | DIRECTORY]...", nargs=-1, type=click.Path(path_type=Path)
)
@output_option("the whole ledger (every column, unreadable journals included)")
@file_option(
    "--inbox",
    exists=True,
    help="The callbacks' store delivery reports, replies and STOPs are counted from "
    "(default: the one `smskit replies serve` keeps, when there is one).",
)
@json_option
def list_(
    journals: tuple[Path, ...], output: Path | None, inbox: Path | None, as_json: bool
) -> int:
    """The ledger: one line per journaled campaign (name, when, sender, purpose, recipients,
    sent, SMS, cost, reported, delivered, replies, opt-outs), oldest first, from the journals
    in the per-user campaigns directory, or those given (files, or directories of them); the
    outcome counts from the callbacks' store (blank when there is none).

    Exits 4 when there is no journal to list, or when a file could not be read as a
    campaign's journal (each named on stderr with why; the others are still listed), or
    when --inbox is not a callbacks' store (an empty file included; nothing listed).
    """
    import warnings

    from smskit.campaigns import history

    store = None if inbox is None else inbox_file(inbox, "--inbox", "nothing listed")
    with warnings.catch_warnings():  # each unreadable journal is printed below, by row
        warnings.simplefilter("ignore", UserWarning)
        ledger = history(list(journals) or None, inbox=store)
    where = ", ".join(map(str, journals)) or "the campaigns directory"
    if ledger.empty:
        raise Refused(f"no campaign journal found in {where}", EXIT_INPUT)
    if output is not None:
        ledger.to_csv(output, index=False)
    unread = ledger[ledger["problem"].notna()]
    read = ledger[ledger["problem"].isna()]
    if as_json:
        print_json({"campaigns": _json_rows(read.drop(columns="problem")),
                    "unreadable": records(unread[["journal", "problem"]])})  # fmt: skip
    elif len(read):
        click.echo(_shown(read).to_string(index=False))
    if inbox is None and not is_quiet():
        from smskit._paths import replies_path

        if not replies_path().is_file():
            click.echo(
                f"reported, delivered, replies and opt-outs are blank: no callbacks' store at "
                f"{replies_path()} (--inbox FILE names one)",
                err=True,
            )
    for journal, problem in unread[["journal", "problem"]].itertuples(index=False):
        click.echo(f"smskit campaign list: unreadable journal {journal}: {problem}", err=True)
    return EXIT_INPUT if len(unread) else 0


def _json_rows(frame: pd.DataFrame) -> list[dict[str, Any]]:
    rows = records(frame)
    for record, started in zip(rows, frame["started"], strict=True):
        record["started"] = started.isoformat()
    return rows


def _shown(frame: pd.DataFrame) -> pd.DataFrame:
    """The table's columns as people read them: minutes, money, blanks for unknown counts;
    an experiment's and arm's columns only when some campaign is an experiment's arm."""
    from smskit._html import money

    columns = list(SHOWN)
    if frame["experiment"].notna().any():
        columns[1:1] = ["experiment", "arm"]
    shown = frame[columns].astype(object).where(frame[columns].notna(), "")
    shown["started"] = frame["started"].dt.strftime("%Y-%m-%d %H:%M %Z")
    shown["cost"] = frame["cost"].map(money)
    shown["complete"] = frame["complete"].map({True: "yes", False: "no"})
    return shown
