"""What ``smskit send`` checks and says before it sends: the preflight in words (each
warning and exclusion with its reason), the fields the recipients cannot fill, marketing
outside its hours, and a journal that already holds a campaign.

Every refusal is a :class:`Refused` carrying its exit code; the command prints it as one
line. Nothing here decides a gateway rule: the findings are the rule book's (by code).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import click

from smskit.cli.output import EXIT_INPUT, EXIT_REPEAT, print_row

if TYPE_CHECKING:
    import pandas as pd

    import smskit
    from smskit.campaigns import CampaignResult, PreflightReport
    from smskit.replies import Inbox

__all__ = [
    "SHOWN_ROWS",
    "Refused",
    "check_fields",
    "check_journal",
    "grouped",
    "inbox_file",
    "journal_result",
    "not_this_file",
    "sandbox_of",
    "show_preflight",
    "unresumable",
]

SHOWN_ROWS: Final = 10  # rows listed per reason


class Refused(click.ClickException):
    """A send refused before anything went out: one line, its own exit code."""

    def __init__(self, message: str, code: int = EXIT_INPUT) -> None:
        super().__init__(message)
        self.exit_code = code  # type: ignore[misc]  # Click's class default, per instance here


def not_this_file(where: str, exc: Exception, then: str = "") -> Refused:
    """Input refused (exit 4): the file the user typed as ``where`` (an option or argument
    and its value) is not what it should be, as the library's check said (its rule alone
    for a ValidationError: ``where`` names the file already); ``then`` is advice after it."""
    from smskit.errors import ValidationError

    reason = exc.rule if isinstance(exc, ValidationError) else str(exc)
    return Refused(f"{where}: {reason}{then}", EXIT_INPUT)


def check_fields(text: str, numbers: tuple[str, ...], csv_file: Path | None) -> None:
    """Refuse a text whose dynamic fields the recipients cannot fill: ``--to`` numbers carry
    no fields; a ``--csv`` file must have a column per field (a field never renders empty
    for want of a column)."""
    from smskit.rules.fields import used_fields

    used = used_fields(text)
    if not used:
        return
    if numbers:
        raise Refused(
            f"--text uses {', '.join('{' + f + '}' for f in used)}, which --to numbers cannot "
            f"fill: give --csv FILE with a {used[0]} column, or remove the field"
        )
    assert csv_file is not None
    from smskit.rules.csvtext import csv_columns

    columns = set(csv_columns(csv_file))  # the recipients' reader: a broken file is exit 4
    absent = [field for field in used if field not in columns]
    if absent:
        raise Refused(
            f"--text uses {', '.join('{' + f + '}' for f in absent)} but --csv {csv_file} has "
            f"no {', '.join(absent)} column (columns: {', '.join(sorted(columns))})"
        )


def grouped(frame: pd.DataFrame, column: str) -> list[dict[str, Any]]:
    """Rows of ``frame`` grouped by the text of ``column`` (nulls left out): per distinct text,
    how many rows and the first :data:`SHOWN_ROWS` row numbers, most frequent first."""
    present = frame.loc[frame[column].notna(), ["row", column]]
    groups = [
        {"reason": str(reason), "recipients": len(rows), "rows": [*map(int, rows.head(SHOWN_ROWS))]}
        for reason, rows in present.groupby(column, observed=True, sort=False)["row"]
    ]
    return sorted(groups, key=lambda g: (-g["recipients"], g["reason"]))


def exclusion_reasons(report: PreflightReport) -> list[dict[str, Any]]:
    """The excluded recipients grouped by issue and its detail (``duplicate: same number as
    row 0``), as the report words them."""
    excluded = report.excluded
    if excluded.empty:
        return []
    details = excluded["detail"].astype(object)
    reasons = [
        str(issue) if detail is None or detail != detail else f"{issue}: {detail}"
        for issue, detail in zip(excluded["issue"], details, strict=True)
    ]
    return grouped(excluded.assign(reason=reasons), "reason")


def show_preflight(report: PreflightReport, summary: dict[str, Any]) -> None:
    """The summary, then each campaign warning, each recipient warning and each exclusion
    with its reason, the rows it concerns and how many."""
    print_row("Preflight:", {k: v for k, v in summary.items() if v not in (0, None)})
    for message in report.warnings:
        click.echo(f"Warning: {message}")
    for title, groups in (
        ("Warning", grouped(report.frame.loc[report.frame["send"]], "warning")),
        ("Excluded", exclusion_reasons(report)),
    ):
        for group in groups:
            rows = ", ".join(map(str, group["rows"]))
            more = ", ..." if group["recipients"] > len(group["rows"]) else ""
            click.echo(
                f"{title}: {group['recipients']} recipient(s): {group['reason']} (row {rows}{more})"
            )


def journal_result(path: Path, option: str) -> CampaignResult:
    """What the journal at ``path`` records; a file that is not a campaign's journal (a
    CSV, the HLR cache, another SQLite file) is input refused naming ``option`` (exit 4),
    not a configuration error."""
    from smskit.campaigns import CampaignResult
    from smskit.errors import ConfigurationError, ValidationError

    try:
        return CampaignResult.load(path)
    except (ConfigurationError, ValidationError) as exc:  # the journal check: this file only
        raise not_this_file(f"{option} {path}", exc) from exc


def inbox_file(path: Path, option: str, nothing: str) -> Inbox:
    """The inbox file at ``path``, which the command reads; a file that is not one is input
    refused naming ``option`` (exit 4), left unchanged, ``nothing`` saying what was not done.
    An empty file is one too: it holds no callback, and opening it would start an inbox in
    the user's file (SQLite reads an empty file as a new database)."""
    from smskit.errors import ConfigurationError, ValidationError
    from smskit.replies import Inbox

    if path.is_file() and path.stat().st_size == 0:  # a pipe's size is 0 too: Inbox names it
        raise Refused(f"{option} {path}: an empty file, not an inbox: {nothing}")
    try:
        return Inbox(path)
    except (ConfigurationError, ValidationError) as exc:  # the inbox's check: this file only
        raise not_this_file(f"{option} {path}", exc) from exc


def check_journal(campaign: smskit.Campaign, path: Path, named: bool) -> None:
    """Refuse a journal that holds another campaign (another name, or the same name with
    another text, sender, options or recipients), or a named campaign already complete (a
    re-run that would send nothing). The library decides (``journal_check``); this words it."""
    from smskit.campaigns.campaign import journal_check
    from smskit.campaigns.send import JournalFit
    from smskit.errors import ConfigurationError, ValidationError

    try:
        check = journal_check(campaign, path)
    except (ConfigurationError, ValidationError) as exc:  # no campaign's journal: this file
        raise not_this_file(f"--journal {path}", exc) from exc
    name = campaign.name
    if check.fit is JournalFit.OTHER_NAME:
        raise Refused(
            f"--journal {path} holds campaign {check.held_name!r}: give another --journal "
            f"(or none), or finish that one with `smskit campaign resume {path}`"
        )
    if check.fit is JournalFit.OTHER_CONTENT:
        raise Refused(
            f"campaign {name!r} (journal {path}) was created with another text, sender, "
            "options or recipients: give this send another --name (or --journal)"
        )
    if check.fit is JournalFit.COMPLETE:
        hint = "give another --name to send it again" if named else "send it again later"
        raise Refused(
            f"campaign {name!r} was already sent (journal {path}, complete): nothing sent; {hint}",
            EXIT_REPEAT,
        )


def scheduled_line(when: datetime) -> str:
    """``Scheduled at ...``: the instant in its zone and in UTC."""
    from datetime import UTC

    return (
        f"Scheduled at {when:%a %Y-%m-%d %H:%M %Z} ({when.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}), "
        "the next moment inside the marketing hours of every destination"
    )


def say_shortfall(result: CampaignResult) -> None:
    """On stderr, when ``result`` did not reach everyone it was for: how many, why, and the
    command that sends the rest (the library's warning names Python: silenced around the
    calls that would raise it, see :func:`quiet_shortfall`); for a campaign sent to an
    embedded sandbox, that no command can resume, the command that sends it again."""
    from smskit.campaigns.analysis.results import shortfall_message

    command = f"`smskit campaign resume {result.journal}`"
    said = shortfall_message(result.summary(), result.chunks(), command)
    if said is None:  # everyone reached: nothing to say, no journal to open
        return
    url = sandbox_of(result.journal)
    if url is not None:
        said = said.removesuffix(f": {command} resumes it") + f"; {unresumable(url)}"
    click.echo(f"smskit: {said}", err=True)


def sandbox_of(journal: str | Path) -> str | None:
    """The URL of the embedded sandbox ``journal``'s campaign went to (the one a command
    starts when nothing is configured, or a notebook's ``smskit.Sandbox()``): it ends with
    its process, so no command can resume the campaign. None for a gateway reached by URL
    (``smskit sandbox`` included), or a journal that cannot be read."""
    from smskit.campaigns.sending.journal import Journal
    from smskit.errors import ConfigurationError

    try:
        with Journal(journal) as book:
            record = book.record()
    except (ConfigurationError, ValueError):  # gone or unreadable: the usual advice stands
        return None
    gateway = None if record is None else record.gateway
    return gateway.base_url if gateway is not None and gateway.sandbox else None


def unresumable(url: str) -> str:
    """What to do with a campaign sent to the embedded sandbox at ``url``."""
    return (
        f"it went to an embedded sandbox ({url}), which lives as long as the process that "
        "started it: no command can resume it; `smskit send` again with --again sends it to "
        "every recipient, as a new campaign"
    )


@contextlib.contextmanager
def quiet_shortfall() -> Iterator[None]:
    """A block where the library's IncompleteSendWarning is not printed (the CLI says it
    with its own command instead, :func:`say_shortfall`)."""
    import warnings

    from smskit.campaigns import IncompleteSendWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IncompleteSendWarning)
        yield
