"""The ``smskit`` command as cron runs it: an exit code per outcome for every command against
an unreachable, a failing (injected 500s) and a healthy gateway; warnings and exclusions
shown with their reasons; marketing hours; re-runs that never silently do nothing (the
clock set by SMSKIT_NOW); option values checked; the sandbox notice dropped."""

from __future__ import annotations

import atexit
import json
import os
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from smskit.cli import cli
from smskit.cli.output import (
    EXIT_CONFIG,
    EXIT_DECLINED,
    EXIT_INCOMPLETE,
    EXIT_INPUT,
    EXIT_REFUSED,
    EXIT_REPEAT,
    EXIT_UNREACHABLE,
    EXIT_USAGE,
)
from smskit.client.config import SANDBOX_NOTICE
from smskit.sandbox import Sandbox

REPO = Path(__file__).resolve().parent.parent
TUESDAY_10H = "2026-03-03T10:00:00+01:00"  # inside the French marketing hours
TUESDAY_23H = "2026-03-03T23:00:00+01:00"  # outside them
ALERT = ("send", "--text", "Alerte serveur: disque plein", "--sender", "Ops",
         "--to", "+33612345678", "--purpose", "alert", "--yes")  # fmt: skip
PROMO = ("send", "--text", "Promo -20% STOP au 36173", "--sender", "Shop",
         "--to", "+33612345678", "--yes")  # fmt: skip

Run = Callable[..., Result]


_HELD: list[socket.socket] = []


def closed_port() -> int:
    """A loopback port nothing listens on: bound by this process and never listened on, for
    the whole run (a port bound then released could be taken by any other server on the
    machine before the command connects, and answer)."""
    if not _HELD:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        _HELD.append(sock)
        atexit.register(sock.close)  # closed with the run, not left to the interpreter
    return int(_HELD[0].getsockname()[1])


@pytest.fixture(params=["healthy", "failing", "unreachable"])
def gateway(request: pytest.FixtureRequest, fresh_sandbox: Sandbox) -> str:
    """The three gateways a cron job meets: the sandbox as is, the sandbox answering 500 to
    every request, and a URL nothing listens on."""
    if request.param == "failing":
        fresh_sandbox.inject_faults(error_rate=1.0)
    return str(request.param)


def environment(sandbox: Sandbox, gateway: str = "healthy", now: str = TUESDAY_10H) -> dict:
    url = f"http://127.0.0.1:{closed_port()}" if gateway == "unreachable" else sandbox.url
    return {"SMSKIT_BASE_URL": url, "SMSKIT_API_LOGIN": sandbox.login,
            "SMSKIT_API_KEY": sandbox.api_key, "SMSKIT_NOW": now}  # fmt: skip


@pytest.fixture
def run(fresh_sandbox: Sandbox) -> Iterator[Run]:
    """``run(*args, now=..., gateway=...)``: the command in-process on the test's sandbox."""

    def invoke(*args: str, now: str = TUESDAY_10H, gateway: str = "healthy",
               input: str | None = None) -> Result:  # fmt: skip
        env = environment(fresh_sandbox, gateway, now)
        return CliRunner().invoke(cli, list(args), env=env, input=input, catch_exceptions=False)

    yield invoke


def stderr_line(result: Result) -> str:
    """The one line a refused command prints on stderr."""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


# -- an exit code per command and gateway ---------------------------------------------------

ACCOUNT = {"healthy": 0, "failing": EXIT_REFUSED, "unreachable": EXIT_UNREACHABLE}


@pytest.mark.parametrize("command", [("balance",), ("credits", "--country", "fr")])
def test_account_commands_exit_per_gateway(run: Run, gateway: str, command: tuple) -> None:
    """balance and credits: 0 healthy, 5 when the gateway answers 500, 6 unreachable."""
    result = run(*command, gateway=gateway)
    assert result.exit_code == ACCOUNT[gateway], result.stderr
    if gateway != "healthy":
        assert ("ServerError" if gateway == "failing" else "could not reach") in stderr_line(result)


def test_hlr_exits_7_when_any_number_has_no_answer(run: Run, gateway: str, tmp_path: Path) -> None:
    """hlr: 0 when every number is answered; 7 (and each error listed, and in -o) when the
    gateway fails or cannot be reached, never "0 without an answer"."""
    out = tmp_path / "out.csv"
    result = run("hlr", "+33612345678", "0698765432", "-o", str(out), "--json", gateway=gateway)
    document = json.loads(result.stdout)
    if gateway == "healthy":
        assert result.exit_code == 0 and document["without_answer"] == 0
        return
    assert result.exit_code == EXIT_INCOMPLETE
    assert document["without_answer"] == 2 and document["errors"][0]["values"] == 2
    kind = "ServerError" if gateway == "failing" else "TransportError"
    assert document["errors"][0]["error"].startswith(kind)
    assert out.read_text().count(kind) == 2


def test_hlr_human_output_lists_why_numbers_have_no_answer(run: Run) -> None:
    """The text output says how many values have no answer; the error of each kind goes to
    stderr (it was on stdout, stderr empty), also with --json."""
    result = run("hlr", "+33612345678", gateway="unreachable")
    assert result.exit_code == EXIT_INCOMPLETE
    assert "1 without an answer" in result.stdout
    assert "Without an answer: 1 value(s): TransportError" in result.stderr
    assert "Without an answer" not in result.stdout
    scripted = run("hlr", "+33612345678", "--json", gateway="unreachable")
    assert "Without an answer: 1 value(s): TransportError" in scripted.stderr


SEND = {"healthy": 0, "failing": EXIT_REFUSED, "unreachable": EXIT_UNREACHABLE}


@pytest.mark.parametrize("mode", ["--yes", "--dry-run"])
def test_send_exits_per_gateway(run: Run, gateway: str, mode: str, fresh_sandbox: Sandbox) -> None:
    """send (and --dry-run): 0 healthy, 5 failing, 6 unreachable; only a healthy --yes
    sends anything."""
    result = run(*ALERT[:-1], mode, gateway=gateway)
    assert result.exit_code == SEND[gateway], result.stderr
    fresh_sandbox.clear_faults()
    sent = len(fresh_sandbox.sent())
    assert sent == (1 if (gateway, mode) == ("healthy", "--yes") else 0)


@pytest.mark.parametrize("state", ["healthy", "failing", "unreachable"])
def test_campaign_status_and_resume_exit_per_gateway(
    run: Run, state: str, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A send stopped for credit (7); `campaign status` reads only the journal (7 while
    unfinished); `campaign resume` (to the gateway the journal records) after a top-up: 0
    healthy, 7 when that gateway fails or is stopped (the chunk left failed, retryable), and
    status still 7 then."""
    journal = tmp_path / "j.sqlite"
    fresh_sandbox.set_balance(0.0)
    stopped = run(*ALERT, "--journal", str(journal))
    assert stopped.exit_code == EXIT_INCOMPLETE
    fresh_sandbox.set_balance(10.0)
    assert run("campaign", "status", str(journal)).exit_code == EXIT_INCOMPLETE
    if state == "failing":
        fresh_sandbox.inject_faults(error_rate=1.0)
    if state == "unreachable":
        fresh_sandbox.stop()
    # The resume goes to the journal's gateway whatever SMSKIT_BASE_URL says.
    elsewhere = "unreachable" if state == "unreachable" else "healthy"
    resumed = run("campaign", "resume", str(journal), gateway=elsewhere)
    status = run("campaign", "status", str(journal), gateway=elsewhere).exit_code
    if state == "healthy":
        assert (resumed.exit_code, status) == (0, 0)
    else:
        assert (resumed.exit_code, status) == (EXIT_INCOMPLETE, EXIT_INCOMPLETE)


def test_server_commands_exit_3_on_a_port_in_use(tmp_path: Path) -> None:
    """sandbox and replies serve talk to no gateway: a port already taken is exit 3, one
    line naming the address."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        for args in (
            ["sandbox", "--port", port, "--env-file", str(tmp_path / "env")],
            ["replies", "serve", "--port", port, "--path", str(tmp_path / "r.sqlite")],
        ):
            result = CliRunner().invoke(cli, args)
            assert result.exit_code == EXIT_CONFIG
            assert f"cannot listen on 127.0.0.1 port {port}:" in stderr_line(result)


@pytest.mark.parametrize(
    ("text", "numbers", "why"),
    [
        ("Alerte", ("0612", "+33123456789"), "(invalid_number: 1, cannot_receive_sms: 1)"),
        ("", ("+33612345678",), "(empty_text: 1)"),
    ],
)
def test_nothing_to_send_is_refused(
    text: str, numbers: tuple[str, ...], why: str, run: Run, fresh_sandbox: Sandbox
) -> None:
    """Every recipient excluded: exit 4 saying so, nothing sent (not "sent 0", exit 0). The
    one line on stderr (what cron mails) counts the reasons too: it said only "all 1
    recipient(s) are excluded" for an empty --text, the reason on stdout alone."""
    to = [arg for number in numbers for arg in ("--to", number)]
    result = run("send", "--text", text, "--sender", "Ops", "--purpose", "alert", *to, "--yes")
    assert result.exit_code == EXIT_INPUT
    said = f"smskit: error: nothing to send: all {len(numbers)} recipient(s) are excluded {why}"
    assert stderr_line(result) == said
    assert fresh_sandbox.sent().empty


def test_declined_confirmation_exits_1(run: Run, fresh_sandbox: Sandbox) -> None:
    """Answering no at the confirmation: exit 1, nothing sent."""
    result = run(*ALERT[:-1], input="n\n")
    assert result.exit_code == EXIT_DECLINED and fresh_sandbox.sent().empty


# -- what preflight found, in words ----------------------------------------------------------


def test_dry_run_lists_each_warning_and_exclusion_with_its_reason(run: Run) -> None:
    """--dry-run prints each exclusion (issue and detail, rows) and each warning, not only
    their counts."""
    result = run("send", "--text", "Promo STOP au 36173", "--sender", "Shop",
                 "--to", "+33612345678", "--to", "0612", "--to", "+33612345678",
                 "--to", "+33123456789", "--dry-run")  # fmt: skip
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "Excluded: 1 recipient(s): duplicate: same number as row 0 (row 2)" in out
    assert "Excluded: 1 recipient(s): invalid_number: too_short (row 1)" in out
    assert "Excluded: 1 recipient(s): cannot_receive_sms: line type landline (row 3)" in out


def test_warnings_are_listed_and_in_json(run: Run, tmp_path: Path) -> None:
    """A CSV row with an empty first_name: the warning "missing {first_name}" is printed with
    its row, and --json carries it grouped with its count."""
    source = tmp_path / "r.csv"
    source.write_text("phone_number,first_name\n+33612345678,Ann\n+33698765432,\n")
    args = ("send", "--text", "Bonjour {first_name} STOP au 36173", "--sender", "Shop",
            "--csv", str(source), "--dry-run")  # fmt: skip
    text = run(*args)
    assert text.exit_code == 0, text.stderr
    assert "Warning: 1 recipient(s): missing {first_name} (row 1)" in text.stdout
    document = json.loads(run(*args, "--json").stdout)
    assert document["warnings"] == [
        {"reason": "missing {first_name}", "recipients": 1, "rows": [1]}
    ]
    assert [w["code"] for w in document["campaign_warnings"]] == ["fields_missing"]


def test_field_the_numbers_cannot_fill_is_refused(run: Run, fresh_sandbox: Sandbox) -> None:
    """`--text "Promo {first_name}"` with --to: refused naming the field (no "Promo ." sent)."""
    result = run("send", "--text", "Promo {first_name} STOP au 36173", "--sender", "Shop",
                 "--to", "+33612345678", "--yes")  # fmt: skip
    assert result.exit_code == EXIT_INPUT
    line = stderr_line(result)
    assert "{first_name}" in line and "--to" in line and "--csv" in line
    assert fresh_sandbox.sent().empty


def test_field_without_its_csv_column_is_refused(run: Run, tmp_path: Path) -> None:
    """A CSV without the column a field needs: refused naming the field and the file."""
    source = tmp_path / "r.csv"
    source.write_text("phone_number\n+33612345678\n")
    result = run("send", "--text", "Bonjour {first_name} STOP au 36173", "--sender", "Shop",
                 "--csv", str(source), "--dry-run")  # fmt: skip
    assert result.exit_code == EXIT_INPUT
    assert "no first_name column" in stderr_line(result)


# -- marketing hours --------------------------------------------------------------------------


def test_marketing_outside_hours_is_refused_naming_both_options(
    run: Run, fresh_sandbox: Sandbox
) -> None:
    """Marketing at 23:00 in Paris: exit 4, the reason, the next permitted moment and both
    options named; nothing sent."""
    result = run(*PROMO, now=TUESDAY_23H)
    assert result.exit_code == EXIT_INPUT
    line = stderr_line(result)
    assert "outside permitted hours in FR" in line
    assert "--at-next-permitted" in line and "--outside-hours" in line
    assert "Wed 2026-03-04 08:00 CET" in line
    assert fresh_sandbox.sent().empty


def test_outside_hours_option_sends_anyway(run: Run, fresh_sandbox: Sandbox) -> None:
    """--outside-hours: the user's explicit choice; the warning is still printed."""
    result = run(*PROMO, "--outside-hours", now=TUESDAY_23H)
    assert result.exit_code == 0, result.stderr
    assert "outside permitted hours in FR" in result.stdout
    assert len(fresh_sandbox.sent()) == 1


def test_at_next_permitted_schedules_at_the_hours_rule_opening(
    run: Run, fresh_sandbox: Sandbox
) -> None:
    """--at-next-permitted at Saturday 21:00: scheduled Monday 08:00 Paris (no marketing on
    Sunday), shown, and the send carries that send_at."""
    result = run(*PROMO, "--at-next-permitted", "--json", now="2026-03-07T21:00:00+01:00")
    assert result.exit_code == 0, result.stderr
    scheduled = json.loads(result.stdout)["scheduled_at"]
    assert datetime.fromisoformat(scheduled) == datetime.fromisoformat("2026-03-09T08:00:00+01:00")
    shown = run(*PROMO, "--at-next-permitted", "--dry-run", now="2026-03-07T21:00:00+01:00")
    assert "Scheduled at Mon 2026-03-09 08:00 CET (2026-03-09T07:00:00Z)" in shown.stdout
    assert len(fresh_sandbox.sent()) == 1


def test_alert_is_sent_at_any_hour(run: Run, fresh_sandbox: Sandbox) -> None:
    """purpose alert (transactional) at 23:00: sent, no refusal."""
    assert run(*ALERT, now=TUESDAY_23H).exit_code == 0
    assert len(fresh_sandbox.sent()) == 1


# -- re-runs: the cron test --------------------------------------------------------------------


def test_cron_same_alert_twice_a_day_then_next_day(run: Run, fresh_sandbox: Sandbox) -> None:
    """The daily alert as cron runs it: sent (exit 0); the same run 2 minutes later is refused
    (exit 9) naming the earlier send and --again; with --again it is sent; 3 hours later it
    is sent (a new campaign); the next day it is sent. Five runs, four SMS billed."""
    start = datetime.fromisoformat(TUESDAY_10H)
    at = {name: (start + delta).isoformat() for name, delta in (
        ("first", timedelta()), ("repeat", timedelta(minutes=2)),
        ("later", timedelta(hours=3)), ("next_day", timedelta(days=1)))}  # fmt: skip
    assert run(*ALERT, now=at["first"]).exit_code == 0
    repeat = run(*ALERT, now=at["repeat"])
    assert repeat.exit_code == EXIT_REPEAT
    line = stderr_line(repeat)
    assert "2 min ago" in line and "campaign campaign-20260303T090000.000000Z-" in line
    assert "--again" in line
    assert len(fresh_sandbox.sent()) == 1
    assert run(*ALERT, "--again", now=at["repeat"]).exit_code == 0
    assert run(*ALERT, now=at["later"]).exit_code == 0
    assert run(*ALERT, now=at["next_day"]).exit_code == 0
    assert len(fresh_sandbox.sent()) == 4
    assert fresh_sandbox.balance() == pytest.approx(1000.0 - 4 * 0.065)


def test_a_damaged_line_of_the_log_of_sends_refuses_the_send_naming_it(
    run: Run, fresh_sandbox: Sandbox, user_dirs: Path
) -> None:
    """A cut line in the log of recent sends (cli-sends.jsonl) was skipped and the same alert
    went out again 2 minutes later; now the run exits 3 with one line naming the file, the
    line and the rule, nothing sent, --again included; once the line is removed, the repeat
    is refused as before (exit 9) and --again sends it."""
    start = datetime.fromisoformat(TUESDAY_10H)
    assert run(*ALERT, now=start.isoformat()).exit_code == 0
    log = user_dirs / "data" / "smskit" / "cli-sends.jsonl"
    whole = log.read_bytes()
    log.write_bytes(whole + whole[: len(whole) // 2])  # a second record cut halfway
    later = (start + timedelta(minutes=2)).isoformat()
    for again in ((), ("--again",)):
        refused = run(*ALERT, *again, now=later)
        assert refused.exit_code == EXIT_CONFIG, refused.stderr
        line = stderr_line(refused)
        assert line.startswith(
            f"smskit: error: ConfigurationError: {log}:2: a record of the repeat guard's log "
            "of recent sends cannot be read: not a JSON line ("
        ), line
        assert line.endswith(
            "; nothing sent: fix or remove that line (removed, the send it records is "
            "forgotten and could be made again)"
        ), line
        assert "Sent" not in refused.stdout
    assert len(fresh_sandbox.sent()) == 1
    log.write_bytes(whole)
    assert run(*ALERT, now=later).exit_code == EXIT_REPEAT
    assert run(*ALERT, "--again", now=later).exit_code == 0
    assert len(fresh_sandbox.sent()) == 2


def test_repeat_of_an_unfinished_send_points_to_resume(run: Run, fresh_sandbox: Sandbox) -> None:
    """A send stopped for credit, run again a minute later: exit 9 naming `campaign resume`
    of its journal (not --again, which would send everyone again); the resume finishes it."""
    fresh_sandbox.set_balance(0.0)
    assert run(*ALERT).exit_code == EXIT_INCOMPLETE
    fresh_sandbox.set_balance(10.0)
    repeat = run(*ALERT, now="2026-03-03T10:01:00+01:00")
    assert repeat.exit_code == EXIT_REPEAT
    line = stderr_line(repeat)
    assert "is not finished" in line and "smskit campaign resume " in line
    journal = line.split("smskit campaign resume ", 1)[1].split("`", 1)[0]
    assert run("campaign", "resume", journal).exit_code == 0
    assert len(fresh_sandbox.sent()) == 1


def test_named_campaign_already_sent_is_refused_not_silently_done(
    run: Run, fresh_sandbox: Sandbox
) -> None:
    """--name: a re-run continues that campaign; once complete, a re-run (even the next day)
    is exit 9 naming the campaign and --name, never "sent 1" with nothing sent."""
    assert run(*ALERT, "--name", "disk-alert").exit_code == 0
    again = run(*ALERT, "--name", "disk-alert", now="2026-03-04T10:00:00+01:00")
    assert again.exit_code == EXIT_REPEAT
    line = stderr_line(again)
    assert "'disk-alert' was already sent" in line and "--name" in line
    assert len(fresh_sandbox.sent()) == 1


def test_named_campaign_with_other_content_names_the_option(run: Run) -> None:
    """The same --name for another text, or other recipients: refused naming --name, never
    journal= / name=."""
    assert run(*ALERT, "--name", "disk-alert").exit_code == 0
    other = run("send", "--text", "Alerte: CPU", *ALERT[3:], "--name", "disk-alert")
    assert other.exit_code == EXIT_INPUT
    line = stderr_line(other)
    assert "another text" in line and "--name" in line and "name=" not in line
    elsewhere = run(*ALERT[:5], "--to", "+33698765432", *ALERT[7:], "--name", "disk-alert")
    assert elsewhere.exit_code == EXIT_INPUT and "recipients" in stderr_line(elsewhere)


def test_journal_of_another_campaign_names_the_options(run: Run, tmp_path: Path) -> None:
    """The same --journal for another send: refused naming --journal and `campaign resume`,
    never the Python arguments journal= / name=."""
    journal = str(tmp_path / "j.sqlite")
    assert run(*ALERT, "--journal", journal).exit_code == 0
    other = run(*ALERT[:5], "--to", "+33698765432", "--purpose", "alert", "--yes",
                "--journal", journal, now="2026-03-03T11:00:00+01:00")  # fmt: skip
    assert other.exit_code == EXIT_INPUT
    line = stderr_line(other)
    assert "--journal" in line and "journal=" not in line and "name=" not in line


def test_clock_variable_must_be_an_aware_instant(run: Run) -> None:
    """SMSKIT_NOW without an offset: exit 3 naming the variable."""
    result = run(*ALERT, now="2026-03-03T10:00:00")
    assert result.exit_code == EXIT_CONFIG and "SMSKIT_NOW" in stderr_line(result)


# -- option values ------------------------------------------------------------------------------


@pytest.mark.parametrize("code", ["XX", "UK", "F", "123"])
def test_unknown_country_codes_are_refused_naming_the_option(run: Run, code: str) -> None:
    """credits --country and send/hlr --region: an unknown code is exit 2 naming the option
    (UK suggests GB), not "no credits" and exit 0."""
    for args, option in (
        (("credits", "--country", code), "'--country'"),
        (("hlr", "+33612345678", "--region", code), "'--region'"),
        (("send", *ALERT[1:], "--region", code), "'--region'"),
    ):
        result = run(*args)
        assert result.exit_code == EXIT_USAGE
        line = stderr_line(result)
        assert option in line and (code != "UK" or "did you mean GB" in line)


def test_country_codes_are_read_in_any_case(run: Run) -> None:
    """--country fr and --region be are FR and BE."""
    rows = json.loads(run("credits", "--country", "fr", "--json").stdout)
    assert {row["country_code"] for row in rows} == {"FR"}
    result = run("hlr", "0470123456", "--region", "be", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["values"] == 1


def test_help_lists_the_accepted_values(run: Run) -> None:
    """send --help lists the purposes and types; hlr --help the breakdown keys."""
    send_help = run("send", "--help").stdout
    assert "[alert|wholesale]" in send_help and "[sms_premium|sms_low_cost]" in send_help
    assert "line_status" in run("hlr", "--help").stdout
    refused = run(*ALERT[:-3], "--purpose", "promo")
    assert refused.exit_code == EXIT_USAGE and "'promo' is not one of" in stderr_line(refused)


def test_hlr_accepts_numbers_inline(run: Run, fresh_sandbox: Sandbox) -> None:
    """`smskit hlr +33612345678 0698765432` checks those numbers (no "No such file")."""
    result = run("hlr", "+33612345678", "0698765432", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["values"] == 2
    assert fresh_sandbox.balance() == pytest.approx(1000.0 - 2 * 0.008)


def test_hlr_file_not_named_csv_is_refused(run: Run, tmp_path: Path) -> None:
    """A file argument without the .csv suffix is not read as a number (checked for
    nothing): exit 2 saying how files are told from numbers."""
    source = tmp_path / "numbers.txt"
    source.write_text("phone_number\n+33612345678\n")
    result = run("hlr", str(source))
    assert result.exit_code == EXIT_USAGE and ".csv" in stderr_line(result)


def test_hlr_csv_file_missing_is_one_line(run: Run, tmp_path: Path) -> None:
    """An argument ending in .csv is a file: a missing one is exit 4 naming it."""
    result = run("hlr", str(tmp_path / "nope.csv"))
    assert result.exit_code == EXIT_INPUT and "nope.csv" in stderr_line(result)


# -- the sandbox notice -------------------------------------------------------------------------


def test_sandbox_notice_only_on_a_terminal_without_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    """With nothing configured: the notice on a terminal's stderr; none with --quiet; none on a
    non-terminal stderr (cron mail). The answer is printed in every case."""
    env = {"SMSKIT_BASE_URL": None, "SMSKIT_API_LOGIN": None, "SMSKIT_API_KEY": None}

    def notices(*args: str) -> bool:
        result = CliRunner().invoke(cli, list(args), env=env)
        assert result.exit_code == 0 and result.stdout.endswith(" EUR\n")
        return SANDBOX_NOTICE in result.stderr

    assert not notices("balance")  # CliRunner's stderr is not a terminal
    monkeypatch.setattr("smskit.cli.options._stderr_is_terminal", lambda: True)
    assert notices("balance")
    assert not notices("--quiet", "balance")


def test_the_command_starts_without_pandas() -> None:
    """Importing the command (what every run pays before parsing its options) loads neither
    pandas nor the sandbox's server: `--help`, `balance` and usage errors stay quick."""
    probe = "import sys, smskit.cli; print(sorted({'pandas', 'uvicorn'} & set(sys.modules)))"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                           env=env, check=True, timeout=60).stdout  # fmt: skip
    assert found.strip() == "[]"


def test_version_exits_0() -> None:
    """`smskit version` and `smskit --version` print the package's version, exit 0."""
    from smskit._version import __version__

    for args in (["version"], ["--version"]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0 and __version__ in result.stdout


def test_send_of_a_campaign_another_runner_holds_exits_8(run: Run, fresh_sandbox: Sandbox) -> None:
    """A named campaign left unfinished (no credit) whose journal another runner holds:
    re-running the send exits 8 and sends nothing; once it lets go, the re-run finishes it."""
    from smskit.campaigns.sending.journal import Journal
    from smskit.cli.output import EXIT_BUSY

    fresh_sandbox.set_balance(0.0)
    assert run(*ALERT, "--name", "disk-alert").exit_code == EXIT_INCOMPLETE
    fresh_sandbox.set_balance(10.0)
    path = Path(os.environ["XDG_DATA_HOME"]) / "smskit" / "campaigns"
    holder = Journal(path / "disk-alert.journal.sqlite", lease=0)
    try:
        busy = run(*ALERT, "--name", "disk-alert", "--again")
    finally:
        holder.close()
    assert busy.exit_code == EXIT_BUSY and "another runner" in stderr_line(busy)
    assert fresh_sandbox.sent().empty
    assert run(*ALERT, "--name", "disk-alert", "--again").exit_code == 0
    assert len(fresh_sandbox.sent()) == 1


def test_cron_as_real_processes(fresh_sandbox: Sandbox, tmp_path: Path) -> None:
    """`python -m smskit send ...` as cron starts it (a fresh process, stderr not a terminal):
    sent; again a minute later: exit 9, no "Sent:", one line on stderr naming --again;
    the next day: sent. Two SMS billed."""
    env = {**os.environ, **environment(fresh_sandbox), "XDG_DATA_HOME": str(tmp_path)}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])

    def cron(now: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "smskit", *ALERT],
                              capture_output=True, text=True, timeout=60,
                              env={**env, "SMSKIT_NOW": now})  # fmt: skip

    assert cron(TUESDAY_10H).returncode == 0
    repeat = cron("2026-03-03T10:01:00+01:00")
    assert repeat.returncode == EXIT_REPEAT and "Sent:" not in repeat.stdout
    lines = repeat.stderr.strip().splitlines()
    assert len(lines) == 1 and "--again" in lines[0]
    assert cron("2026-03-04T10:00:00+01:00").returncode == 0
    assert len(fresh_sandbox.sent()) == 2
