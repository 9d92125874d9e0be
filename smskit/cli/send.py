"""``smskit send``: one text to numbers or a CSV file, checked and costed before it goes.

Before anything is sent: each warning and exclusion is printed with its reason; a field the
recipients cannot fill, marketing outside its hours (unless ``--outside-hours`` or
``--at-next-permitted``), nothing left to send, a journal holding another campaign and a
repeat of the same send within 10 minutes (unless ``--again``) are refused, each with its
exit code. A campaign not named is named with its creation time (``SMSKIT_NOW`` or the
system clock), so the same alert on another day is a new campaign and is sent.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import click

import smskit
from smskit.cli.options import (
    PURPOSE,
    SMS_TYPE,
    HoldoutSize,
    campaign_options,
    file_option,
    given_campaign_options,
    now,
    region_option,
)
from smskit.cli.output import (
    EXIT_DECLINED,
    EXIT_INCOMPLETE,
    EXIT_REPEAT,
    connect,
    json_option,
    name_file,
    print_json,
    print_row,
    progress,
    records,
    row,
    warnings_said,
)
from smskit.cli.sendcheck import (
    Refused,
    check_fields,
    check_journal,
    exclusion_reasons,
    grouped,
    not_this_file,
    quiet_shortfall,
    sandbox_of,
    say_shortfall,
    scheduled_line,
    show_preflight,
    unresumable,
)
from smskit.rules.recipients import check_file_name

# Why --csv refuses a Parquet file the library reads: the option names the kind it reads.
CSV_ONLY = (
    "--csv reads CSV files only, as its name says: save it as CSV UTF-8 (a Parquet file "
    "is read by smskit.Campaign in Python, given as a pathlib.Path)"
)


@click.command()
@click.option("--text", required=True, help="The text; {field} inserts a CSV column.")
@click.option("--sender", required=True, help="Sender name or number shown to recipients.")
@click.option("--to", "numbers", multiple=True, metavar="NUMBER", help="A recipient, repeatable.")
@file_option(
    "--csv",
    "csv_file",
    exists=True,
    help="CSV of recipients (UTF-8, a header row; its name ends in .csv): a phone_number "
    "column, and the fields the text uses. CSV only, as the option's name says, so what a "
    "command reads is what it names: save a spreadsheet or a Parquet file as CSV UTF-8 "
    "(in Python, smskit.Campaign also reads a Parquet file given as a pathlib.Path).",
)
@click.option("--type", "sms_type", type=SMS_TYPE, help="Product (default premium).")
@click.option(
    "--purpose",
    type=PURPOSE,
    help="alert (transactional, any hour) or wholesale (marketing, the default: permitted "
    "hours apply).",
)
@click.option("--send-at", help="When to send (ISO 8601), default now.")
@click.option(
    "--outside-hours",
    is_flag=True,
    help="Send marketing even outside the destinations' permitted hours.",
)
@click.option(
    "--at-next-permitted",
    is_flag=True,
    help="Outside the permitted hours, schedule the send (send_at) at the next permitted "
    "moment of every destination, and show it.",
)
@click.option("--with-replies", is_flag=True, default=None, help="Let recipients answer.")
@campaign_options()
@region_option()
@click.option(
    "--name",
    help="Campaign name: its identity and journal; a re-run with the same name continues it "
    "(default: a name with the creation time, so each run is a new campaign).",
)
@file_option(
    "--journal",
    made=True,
    help="Journal file (default: <name>.journal.sqlite in the per-user data directory).",
)
@click.option(
    "--again", is_flag=True, help="Send even if the same send was made less than 10 minutes ago."
)
@click.option(
    "--dry-run", is_flag=True, help="Check and cost only (free simulation); send nothing."
)
@file_option(
    "--track-links",
    exists=True,
    help="Inbox file `smskit replies serve` keeps: each link of the text goes as a "
    "per-recipient short link it serves, counted in the cost (docs/links.md).",
)
@click.option(
    "--holdout",
    type=HoldoutSize(),
    help="Keep a seeded random part of the recipients to send to out of the send, to compare "
    "with (a share: 0.1, or a count: 500); shown as held_out (docs/conversions.md).",
)
@click.option(
    "--holdout-seed", type=int, help="The holdout's seed (default: the campaign's name seeds it)."
)
@click.option(
    "--holdout-by-country", is_flag=True, help="Hold out the share in each destination country."
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
    outside_hours: bool,
    at_next_permitted: bool,
    with_replies: bool | None,
    region: str,
    name: str | None,
    journal: Path | None,
    again: bool,
    dry_run: bool,
    track_links: Path | None,
    holdout: float | int | None,
    holdout_seed: int | None,
    holdout_by_country: bool,
    yes: bool,
    as_json: bool,
    **declared: Any,
) -> int:
    """Send TEXT from SENDER to --to numbers or a --csv file: preflight (each warning and
    exclusion with its reason) and cost printed, confirmation asked unless --yes.

    Exits 7 when some recipients were not sent, 9 when it repeats a send made less than 10
    minutes ago or recorded after now (the clock went back; --again sends it) or a named
    campaign already sent.
    """
    if bool(numbers) == (csv_file is not None):
        both = ", not both" if numbers else ""
        raise click.UsageError(f"give recipients with --to (repeatable) or --csv FILE{both}")
    if at_next_permitted and (outside_hours or send_at):
        raise click.UsageError(
            "--at-next-permitted goes with neither --outside-hours nor --send-at"
        )
    if holdout is None and (holdout_seed is not None or holdout_by_country):
        raise click.UsageError("--holdout-seed and --holdout-by-country go with --holdout")
    for number in numbers:  # a file where a number goes: refused advising --csv (cli/main)
        check_file_name(number, "recipients")
    if csv_file is not None:
        name_file("recipients", f"--csv {csv_file}")
        from smskit.rules.files import table_path

        table_path(csv_file, "recipients", csv_only=CSV_ONLY)  # a directory, .xlsx: named
    check_fields(text, numbers, csv_file)
    instant = now()
    options: dict[str, Any] = {
        key: value
        for key, value in (
            ("type", sms_type and sms_type.lower()),
            ("purpose", purpose and purpose.lower()),
            ("send_at", send_at),
            ("with_replies", with_replies),
        )
        if value is not None
    }
    held: dict[str, Any] = {}
    if holdout is not None:
        stratify = "country" if holdout_by_country else None
        held = {"holdout": holdout, "seed": holdout_seed, "stratify": stratify}
    recipients: Any = csv_file if csv_file is not None else list(numbers)
    document: dict[str, Any] = {"scheduled_at": None}
    inbox = None if track_links is None else _tracking_inbox(track_links)
    chosen = given_campaign_options(declared)  # the spec's options, as declared there
    with connect() as client:

        def campaign_for(settings: dict[str, Any]) -> smskit.Campaign:
            return smskit.Campaign(
                client, recipients, text=text, sender=sender, name=name,
                default_region=region, clock=lambda: instant, track_links=inbox,
                **chosen, **held, **settings,
            )  # fmt: skip

        campaign = campaign_for(options)
        when = campaign.schedule_at_next_permitted() if at_next_permitted else None
        if when is not None:
            document["scheduled_at"] = campaign.spec.options["send_at"]
            if not as_json:
                click.echo(scheduled_line(when))
        report = campaign.preflight()
        if report.recipients == 0:  # a header-only --csv (--to needs a number): nothing read
            raise Refused(f"nothing to send: {csv_file} holds no recipient (a header only)")
        refusals = report.hours_refusals()
        _describe_preflight(document, report, as_json)
        if report.to_send == 0:  # each exclusion was just listed (stdout) with its reason
            why = [f"{f.field} {f.message()}" for f in report.blocking_findings()]
            counts = report.issues()  # and the line itself says why: stderr is what cron mails
            reasons = ", ".join(f"{issue}: {n}" for issue, n in counts[counts > 0].items())
            raise Refused(
                f"nothing to send: {why[0]}"
                if why
                else f"nothing to send: all {report.recipients} recipient(s) are excluded "
                f"({reasons})"
            )
        report.raise_for_errors()
        if refusals and not outside_hours:
            opening = campaign.next_permitted()
            assert opening is not None  # refused for the hours: a permitted moment comes
            if not dry_run:
                raise Refused(
                    f"{'; '.join(refusals)}: nothing sent; pass --at-next-permitted to schedule "
                    f"it at the next permitted moment ({opening:%a %Y-%m-%d %H:%M %Z}), or "
                    "--outside-hours to send it anyway"
                )
            # a dry run checks and costs: it says when the send would be allowed
            document["allowed_from"] = opening.isoformat()
            if not as_json:
                click.echo(
                    f"Not allowed now: {'; '.join(refusals)}; the send would be allowed "
                    f"from {opening:%a %Y-%m-%d %H:%M %Z} (--at-next-permitted schedules it "
                    "there)"
                )
        asked = journal if journal is not None else campaign.default_journal()
        # the library's warning names Python: _say_new_journal says it once the send goes ahead
        path = campaign.journal_for_send(asked, announce=False)
        if not dry_run:
            check_journal(campaign, path, name is not None)
            if not again:
                _check_repeat(campaign, instant)
        _say_new_journal(asked, path, dry_run)
        estimate = campaign.estimate(progress=progress())
        document["estimate"] = row(estimate.summary())
        if not as_json:
            print_row("Cost (the gateway's simulation):", document["estimate"])
        if dry_run:
            document["result"] = None
            return _finish(document, as_json, 0)
        question = f"Send {report.to_send} recipient(s) for {estimate.cost}?"
        if report.summary()["held_out"].iloc[0]:
            question = f"{question[:-1]} ({report.summary()['held_out'].iloc[0]} held out)?"
        if estimate.enough is False:
            question = f"The balance does not cover it. {question}"
        if not yes and not click.confirm(question, err=True):
            document["result"] = None
            click.echo("nothing sent", err=True)
            return _finish(document, as_json, EXIT_DECLINED)
        from smskit.campaigns import RepeatNotRecordedWarning

        # the send went out: a record the guard could not keep is said, the exit code its own
        with quiet_shortfall(), warnings_said(RepeatNotRecordedWarning):
            result = campaign.send(progress=progress(), journal=path, again=again)
        say_shortfall(result)
    document["result"] = row(result.summary())
    document["not_sent"] = records(result.not_sent)
    if not as_json:
        print_row("Sent:", document["result"])
    return _finish(document, as_json, 0 if result.complete else EXIT_INCOMPLETE)


def _tracking_inbox(path: Path) -> smskit.Inbox:
    """The inbox file ``smskit replies serve`` keeps, opened to register links (it is served
    by that command, not here); refused, left as it was, when it is no inbox (serving it
    would not make one) or has never been served (an empty file included: opening it would
    start an inbox in it)."""
    from smskit.errors import ConfigurationError, NotStartedError, ValidationError

    serve = f"serve it first: smskit replies serve --path {path}"
    if path.is_file() and path.stat().st_size == 0:  # a pipe's size is 0 too: Inbox names it
        raise Refused(f"--track-links {path}: an empty file, never served as an inbox; {serve}")
    try:
        inbox = smskit.Inbox(path)
    except (ConfigurationError, ValidationError) as exc:
        keeps = "; give the file `smskit replies serve --path FILE` keeps"
        raise not_this_file(f"--track-links {path}", exc, keeps) from exc
    try:
        inbox.link_base  # noqa: B018  (a file never served has no address yet)
    except NotStartedError as exc:
        raise Refused(
            f"--track-links {path}: an inbox file never served: its links have no address "
            f"yet; {serve}"
        ) from exc
    return inbox


def _say_new_journal(asked: Path, path: Path, dry_run: bool) -> None:
    """On stderr, when the send moved to a new journal beside ``asked``: said only after the
    journal and repeat checks passed, so a refused run never claims a new campaign."""
    if path == asked:
        return
    verb = "would be" if dry_run else "is"
    click.echo(
        f"{asked} holds a send to an embedded sandbox, which ended with its command: kept "
        f"as history; this send {verb} a new campaign, journaled in {path}",
        err=True,
    )


def _describe_preflight(document: dict[str, Any], report: Any, as_json: bool) -> None:
    document["preflight"] = row(report.summary())
    document["campaign_warnings"] = [
        {"code": f.code, "message": f.message()} for f in report.findings
    ]
    document["warnings"] = grouped(report.frame, "warning")
    document["exclusions"] = exclusion_reasons(report)
    document["excluded"] = records(report.excluded)
    if not as_json:
        show_preflight(report, document["preflight"])


def _check_repeat(campaign: smskit.Campaign, instant: datetime) -> None:
    """The campaign's repeat guard, asked before the estimate and the confirmation."""
    earlier = campaign.earlier_send()
    if earlier is None:
        return
    at = earlier.at.isoformat(timespec="seconds")
    if earlier.at > instant:  # the clock went back (or SMSKIT_NOW is earlier): never "old"
        when = (
            f"is recorded at {at}, after this command's now "
            f"({instant.isoformat(timespec='seconds')}: the clock was set back since, or "
            "SMSKIT_NOW says an earlier time), so it may have been made moments ago"
        )
    else:
        minutes = (instant - earlier.at).total_seconds() / 60
        when = f"was made {minutes:.0f} min ago, at {at}"
    made = (
        f"the same send (text, sender, options, recipients) {when} (campaign {earlier.name}, "
        f"journal {earlier.journal})"
    )
    if earlier.complete:
        raise Refused(f"{made}: nothing sent; pass --again to send it again", EXIT_REPEAT)
    url = sandbox_of(earlier.journal)
    if url is not None:
        raise Refused(f"{made} and is not finished: nothing sent; {unresumable(url)}", EXIT_REPEAT)
    raise Refused(
        f"{made} and is not finished: nothing sent; `smskit campaign resume {earlier.journal}` "
        "finishes it (--again would send every recipient again, as a new campaign)",
        EXIT_REPEAT,
    )


def _finish(document: dict[str, Any], as_json: bool, code: int) -> int:
    if as_json:
        print_json(document)
    return code
