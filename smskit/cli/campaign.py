"""``smskit campaign status|resume JOURNAL``: a journaled campaign, read or finished."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from smskit.cli.output import (
    EXIT_INCOMPLETE,
    json_option,
    print_json,
    print_row,
    progress,
    records,
    row,
)
from smskit.cli.sendcheck import journal_result

if TYPE_CHECKING:
    from smskit.campaigns import CampaignResult

journal_argument = click.argument(
    "journal", metavar="JOURNAL", type=click.Path(exists=True, dir_okay=False, path_type=Path)
)


@click.group()
def campaign() -> None:
    """A campaign's journal: its status, or a resume after a crash or a stop."""


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
    key from SMSKIT_API_KEY). Never sends a chunk twice; exits 7 unless complete."""
    from smskit.campaigns import Campaign

    journal_result(journal, "JOURNAL")  # not a campaign's journal: exit 4 before connecting
    result = Campaign.resume(journal, concurrency=concurrency, progress=progress())
    return _report(result, as_json)


def _report(result: CampaignResult, as_json: bool) -> int:
    summary = row(result.summary())
    if as_json:
        print_json({"summary": summary, "not_sent": records(result.not_sent)})
    else:
        print_row("Campaign:", summary)
    return 0 if result.complete else EXIT_INCOMPLETE
