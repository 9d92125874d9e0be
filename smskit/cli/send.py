"""``smskit send``: one text to numbers or a CSV file, checked and costed before it goes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

import smskit
from smskit.cli.output import (
    EXIT_DECLINED,
    EXIT_INCOMPLETE,
    connect,
    json_option,
    print_json,
    print_row,
    print_table,
    progress,
    records,
    row,
)

SHOWN_EXCLUDED = 10


@click.command()
@click.option("--text", required=True, help="The text; {field} inserts a CSV column.")
@click.option("--sender", required=True, help="Sender name or number shown to recipients.")
@click.option("--to", "numbers", multiple=True, metavar="NUMBER", help="A recipient, repeatable.")
@click.option(
    "--csv",
    "csv_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="CSV of recipients: a phone_number column, and the fields the text uses.",
)
@click.option("--type", "sms_type", default=None, help="premium, low cost ... (the gateway's).")
@click.option("--purpose", default=None, help="Purpose of the send (the gateway's values).")
@click.option("--send-at", default=None, help="When to send (ISO 8601), default now.")
@click.option("--with-replies", is_flag=True, default=None, help="Let recipients answer.")
@click.option("--region", default="FR", show_default=True, help="Country of national numbers.")
@click.option("--name", default=None, help="Campaign name (names its journal).")
@click.option(
    "--journal",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Journal file (default: the per-user data directory).",
)
@click.option(
    "--dry-run", is_flag=True, help="Check and cost only (free simulation); send nothing."
)
@click.option("-y", "--yes", is_flag=True, help="Send without asking for confirmation.")
@json_option
def send(
    text: str,
    sender: str,
    numbers: tuple[str, ...],
    csv_file: Path | None,
    sms_type: str | None,
    purpose: str | None,
    send_at: str | None,
    with_replies: bool | None,
    region: str,
    name: str | None,
    journal: Path | None,
    dry_run: bool,
    yes: bool,
    as_json: bool,
) -> int:
    """Send TEXT from SENDER to --to numbers or a --csv file: preflight and cost printed,
    confirmation asked unless --yes. Exits 7 when some recipients were not sent."""
    if bool(numbers) == (csv_file is not None):
        raise click.UsageError("give recipients with --to (repeatable) or --csv FILE, not both")
    recipients: Any = csv_file if csv_file is not None else list(numbers)
    options: dict[str, Any] = {
        key: value
        for key, value in (
            ("type", sms_type),
            ("purpose", purpose),
            ("send_at", send_at),
            ("with_replies", with_replies),
        )
        if value is not None
    }
    document: dict[str, Any] = {}
    with connect() as client:
        campaign = smskit.Campaign(
            client, recipients, text=text, sender=sender, name=name, default_region=region,
            **options,
        )  # fmt: skip
        report = campaign.preflight()
        document["preflight"] = row(report.summary())
        document["excluded"] = records(report.excluded)
        if not as_json:
            _show_preflight(document["preflight"], report.excluded)
        report.raise_for_errors()
        estimate = campaign.estimate(progress=progress())
        document["estimate"] = row(estimate.summary())
        if not as_json:
            print_row("Cost (the gateway's simulation):", document["estimate"])
        if dry_run:
            document["result"] = None
            return _finish(document, as_json, 0)
        question = f"Send {report.to_send} recipient(s) for {estimate.cost}?"
        if estimate.enough is False:
            question = f"The balance does not cover it. {question}"
        if not yes and not click.confirm(question, err=True):
            document["result"] = None
            click.echo("nothing sent", err=True)
            return _finish(document, as_json, EXIT_DECLINED)
        result = campaign.send(progress=progress(), journal=journal)
    document["result"] = row(result.summary())
    document["not_sent"] = records(result.not_sent)
    if not as_json:
        print_row("Sent:", document["result"])
    return _finish(document, as_json, 0 if result.complete else EXIT_INCOMPLETE)


def _show_preflight(summary: dict[str, Any], excluded: Any) -> None:
    print_row("Preflight:", {k: v for k, v in summary.items() if v not in (0, None)})
    if len(excluded):
        click.echo(f"Excluded (first {min(len(excluded), SHOWN_EXCLUDED)} of {len(excluded)}):")
        shown = [c for c in ("row", "input", "issue", "detail") if c in excluded.columns]
        print_table(excluded.head(SHOWN_EXCLUDED)[shown or list(excluded.columns)])


def _finish(document: dict[str, Any], as_json: bool, code: int) -> int:
    if as_json:
        print_json(document)
    return code
