"""The ``smskit`` command through Click's CliRunner against a real sandbox over HTTP, and once
as a real subprocess: results, --json, exit codes, one-line errors."""

from __future__ import annotations

import csv
import json
import os
import signal
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner, Result

import smskit
from smskit.campaigns.sending.journal import Journal
from smskit.cli import cli
from smskit.cli.output import EXIT_INPUT
from smskit.sandbox import Sandbox

HLR_FR = 0.008  # EUR per French number checked (docs/sandbox.md)
TEXT = "Bonjour {first_name}, -20% ce week-end. STOP au 36173"
REPO = Path(__file__).resolve().parent.parent


# A Tuesday morning in Paris: inside the marketing hours, whenever the suite runs.
WEEKDAY_MORNING = "2026-03-03T10:00:00+01:00"


@pytest.fixture
def env(fresh_sandbox: Sandbox) -> dict[str, str]:
    """SMSKIT_* naming the test's sandbox, as a user's shell would after `smskit sandbox`,
    and the clock (SMSKIT_NOW) on a weekday morning."""
    return {
        "SMSKIT_BASE_URL": fresh_sandbox.url,
        "SMSKIT_API_LOGIN": fresh_sandbox.login,
        "SMSKIT_API_KEY": fresh_sandbox.api_key,
        "SMSKIT_NOW": WEEKDAY_MORNING,
    }


Run = Callable[..., Result]


@pytest.fixture
def run(env: dict[str, str]) -> Iterator[Run]:
    """``run(*args, input=None)``: the command in-process, on the test's sandbox."""
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None) -> Result:
        return runner.invoke(cli, list(args), env=env, input=input, catch_exceptions=False)

    yield invoke


def recipients_csv(path: Path, numbers: list[str]) -> Path:
    """A recipients file with phone_number and first_name columns."""
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["phone_number", "first_name"])
        writer.writerows([number, f"Client{i}"] for i, number in enumerate(numbers))
    return path


def fr_mobiles(count: int) -> list[str]:
    """Distinct valid French mobile numbers."""
    return [f"+3361{i:07d}" for i in range(count)]


def one_error_line(result: Result) -> str:
    """The single stderr line of a failed command (and no traceback)."""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


def test_help_lists_every_command() -> None:
    """`smskit --help` names each command of the issue and documents the exit codes."""
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    for command in ("balance", "credits", "hlr", "send", "campaign", "replies", "sandbox"):
        assert f"\n  {command} " in result.stdout
    assert "Exit codes:" in result.stdout


def test_balance_and_credits(run: Run, fresh_sandbox: Sandbox) -> None:
    """balance prints the gateway's amount; credits --country gives only those countries."""
    fresh_sandbox.set_balance(123.5)
    result = run("balance", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {"amount": 123.5, "unit": "EUR"}
    assert run("balance").stdout.strip() == "123.5 EUR"
    result = run("credits", "--country", "FR", "--country", "GB", "--json")
    rows = json.loads(result.stdout)
    assert {row["country_code"] for row in rows} == {"FR", "GB"}
    assert {row["product"] for row in rows} == {"premium_sms", "vocal_sms", "low_cost_sms", "hlr"}


def test_hlr_checks_distinct_numbers_writes_csv_and_prints_breakdown(
    run,
    fresh_sandbox: Sandbox,
    tmp_path: Path,
) -> None:
    """8 rows (a national twin, an exact repeat, a non-number): 5 distinct numbers billed,
    OUT.csv has one row per distinct value, the breakdown counts them."""
    numbers = fr_mobiles(5)
    source = recipients_csv(
        tmp_path / "in.csv", [*numbers, "0" + numbers[0][3:], numbers[1], "hello"]
    )
    out = tmp_path / "out.csv"
    result = run("hlr", str(source), "-o", str(out), "--json")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert (document["values"], document["bad_format"], document["without_answer"]) == (7, 1, 0)
    assert fresh_sandbox.balance() == pytest.approx(1000.0 - 5 * HLR_FR)
    with out.open() as handle:
        written = list(csv.DictReader(handle))
    assert [row["input"] for row in written] == [*numbers, "0" + numbers[0][3:], "hello"]
    assert document["breakdown"][-1]["count"] == 7


def test_hlr_unknown_column_is_one_line_naming_the_option(run: Run, tmp_path: Path) -> None:
    """--column that the file lacks: exit 2, one line naming --column and the columns there."""
    source = recipients_csv(tmp_path / "in.csv", fr_mobiles(2))
    result = run("hlr", str(source), "--column", "tel")
    assert result.exit_code == 2
    line = one_error_line(result)
    assert "'--column'" in line and "phone_number, first_name" in line


def test_send_dry_run_prints_preflight_and_cost_and_sends_nothing(
    run,
    fresh_sandbox: Sandbox,
    tmp_path: Path,
) -> None:
    """--dry-run: preflight and the gateway's simulated cost, no SMS sent, balance intact."""
    source = recipients_csv(tmp_path / "r.csv", [*fr_mobiles(3), "not a number"])
    result = run("send", "--text", TEXT, "--sender", "Shop", "--csv", str(source), "--dry-run",
                 "--json")  # fmt: skip
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["preflight"]["to_send"] == 3
    assert [row["input"] for row in document["excluded"]] == ["not a number"]
    assert document["estimate"]["sms"] == 3 and document["result"] is None
    assert fresh_sandbox.sent().empty and fresh_sandbox.balance() == pytest.approx(1000.0)


def test_send_asks_first_and_sends_only_after_yes(
    run,
    fresh_sandbox: Sandbox,
    tmp_path: Path,
) -> None:
    """Answering no sends nothing (exit 1); answering yes sends each recipient once (exit 0)."""
    args = ["send", "--text", "Promo -20%. STOP au 36173", "--sender", "Shop",
            "--to", "+33612345678", "--to", "+33698765432",
            "--journal", str(tmp_path / "j.sqlite")]  # fmt: skip
    declined = run(*args, input="n\n")
    assert declined.exit_code == 1 and fresh_sandbox.sent().empty
    accepted = run(*args, input="y\n")
    assert accepted.exit_code == 0, accepted.stderr
    assert sorted(fresh_sandbox.sent()["phone_number"]) == ["+33612345678", "+33698765432"]


def test_unfinished_campaign_exits_7_then_resume_finishes_it(
    run,
    fresh_sandbox: Sandbox,
    tmp_path: Path,
) -> None:
    """Credit runs out mid-campaign: send exits 7, status says 7, and after a top-up
    `campaign resume` (key from SMSKIT_API_KEY) sends the rest once: exit 0."""
    journal = tmp_path / "j.sqlite"
    numbers = fr_mobiles(600)
    fresh_sandbox.set_balance(30.0)  # 500 SMS at 0.065 EUR = 32.50: the first chunk is refused
    source = recipients_csv(tmp_path / "r.csv", numbers)
    result = run("send", "--text", TEXT, "--sender", "Shop", "--csv", str(source), "--yes",
                 "--journal", str(journal), "--json")  # fmt: skip
    assert result.exit_code == 7, result.stderr
    assert json.loads(result.stdout)["result"]["complete"] is False
    assert run("campaign", "status", str(journal)).exit_code == 7
    fresh_sandbox.set_balance(100.0)
    resumed = run("campaign", "resume", str(journal), "--json")
    assert resumed.exit_code == 0, resumed.stderr
    assert json.loads(resumed.stdout)["summary"]["complete"] is True
    assert sorted(fresh_sandbox.sent()["phone_number"]) == numbers
    assert run("campaign", "status", str(journal)).exit_code == 0


def test_errors_are_one_line_with_an_exit_code_per_kind(run: Run, tmp_path: Path) -> None:
    """A bad option value: 2 naming the option; input refused: 4 naming the option, not the
    API field; missing journal: 2 naming the argument; usage: 2."""
    bad = run("credits", "--country", "123")
    assert bad.exit_code == 2 and "'--country'" in one_error_line(bad)
    when = run("send", "--text", "x", "--sender", "Shop", "--to", "+33612345678",
               "--purpose", "alert", "--send-at", "tomorrow")  # fmt: skip
    line = one_error_line(when)
    assert when.exit_code == 4 and line.startswith("smskit: error: --send-at:"), line
    missing = run("campaign", "status", str(tmp_path / "nope.sqlite"))
    assert missing.exit_code == 2 and "JOURNAL" in one_error_line(missing)
    both = run("send", "--text", "x", "--sender", "Shop")
    assert both.exit_code == 2 and "--to" in one_error_line(both)


def test_configuration_error_exits_3_and_never_shows_the_key() -> None:
    """A login without a key: exit 3, one line naming SMSKIT_API_KEY."""
    runner = CliRunner()
    result = runner.invoke(cli, ["balance"], env={"SMSKIT_API_LOGIN": "someone",
                                                   "SMSKIT_API_KEY": None,
                                                   "SMSKIT_BASE_URL": None})  # fmt: skip
    assert result.exit_code == 3 and "SMSKIT_API_KEY" in one_error_line(result)


def test_wrong_key_exits_5_without_the_key(fresh_sandbox: Sandbox) -> None:
    """The gateway refuses the credentials: exit 5, one line, the key given not in it."""
    env = {"SMSKIT_BASE_URL": fresh_sandbox.url, "SMSKIT_API_LOGIN": fresh_sandbox.login,
           "SMSKIT_API_KEY": "wrong-key-never-shown"}  # fmt: skip
    result = CliRunner().invoke(cli, ["balance"], env=env)
    assert result.exit_code == 5
    line = one_error_line(result)
    assert "AuthenticationError" in line and "wrong-key-never-shown" not in line


def test_sandbox_port_out_of_range_is_one_line() -> None:
    """`smskit sandbox --port 99999`: exit 2, one line naming --port, no OverflowError."""
    result = CliRunner().invoke(cli, ["sandbox", "--port", "99999"])
    assert result.exit_code == 2
    line = one_error_line(result)
    assert line.startswith("smskit sandbox: error:") and "'--port'" in line
    assert "Usage: smskit sandbox" in CliRunner().invoke(cli, ["sandbox", "--help"]).stdout


def as_background_job() -> None:
    """Start a child as a script's background job: SIGINT ignored (the shell does that)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def test_sandbox_as_a_real_process_prints_what_a_client_needs(tmp_path: Path) -> None:
    """`python -m smskit sandbox` in a subprocess: the export lines and a 0600 env file hold
    URL, login and key (key not on a non-terminal stdout); a second process uses them; Ctrl-C
    ends it with exit 0, even started as a background job (SIGINT inherited ignored)."""
    env_file = tmp_path / "sandbox.env"
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SMSKIT_")}
    environ["PYTHONPATH"] = os.pathsep.join([str(REPO), environ.get("PYTHONPATH", "")])
    server = subprocess.Popen(
        [sys.executable, "-m", "smskit", "sandbox", "--port", "0", "--env-file", str(env_file)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environ,
        preexec_fn=as_background_job,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        printed = []
        for line in server.stdout:
            printed.append(line)
            if line.startswith("Ctrl-C"):
                break
        text = "".join(printed)
        assert "export SMSKIT_BASE_URL=http://127.0.0.1:" in text
        assert f"source {env_file}" in text and "SMSKIT_API_KEY=" not in text
        assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
        settings = dict(
            line.removeprefix("export ").split("=", 1) for line in env_file.read_text().split("\n")
            if line
        )  # fmt: skip
        assert settings["SMSKIT_API_KEY"] not in text
        client = subprocess.run(
            [sys.executable, "-m", "smskit", "balance", "--json"],
            capture_output=True, text=True, env={**environ, **settings}, timeout=60,
        )  # fmt: skip
        assert client.returncode == 0, client.stderr
        assert json.loads(client.stdout) == {"amount": 1000.0, "unit": "EUR"}
    finally:
        server.send_signal(signal.SIGINT)
        code = server.wait(timeout=30)
    assert code == 0


REPLY = {
    "message_id": "m1",
    "number": "+33612345678",
    "text": "STOP",
    "sim_card_number": "38100",
    "reception_date": "2025-03-01T10:15:00+00:00",
}


def serve_replies(store: Path, **env: str) -> tuple[subprocess.Popen[str], dict[str, object]]:
    """`python -m smskit replies serve --json` in a subprocess started as a background job,
    and the document it printed."""
    environ = {**os.environ, **env}
    environ["PYTHONPATH"] = os.pathsep.join([str(REPO), environ.get("PYTHONPATH", "")])
    server = subprocess.Popen(
        [sys.executable, "-m", "smskit", "replies", "serve", "--path", str(store), "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environ,
        preexec_fn=as_background_job,
    )  # fmt: skip
    assert server.stdout is not None
    printed = ""
    for line in server.stdout:
        printed += line
        if line.startswith("}"):
            break
    return server, json.loads(printed)


def test_replies_serve_as_a_real_process_stores_what_the_gateway_posts(tmp_path: Path) -> None:
    """`smskit replies serve --json` prints its callback URL; a reply POSTed there is in the
    SQLite file after Ctrl-C (exit 0)."""
    store = tmp_path / "replies.sqlite"
    server, started = serve_replies(store)
    try:
        assert started["path"] == str(store) and started["stored"] == 0
        assert httpx.post(str(started["url"]), json=REPLY, timeout=10).status_code == 200
    finally:
        server.send_signal(signal.SIGINT)
        code = server.wait(timeout=30)
    assert code == 0
    with smskit.Inbox(store) as inbox:
        frame = inbox.to_frame()
    assert frame["message_id"].tolist() == ["m1"] and frame["text"].tolist() == ["STOP"]


def test_replies_serve_with_a_signing_secret_refuses_unsigned_callbacks(tmp_path: Path) -> None:
    """SMSKIT_SIGNING_SECRET set: an unsigned callback is answered 401 and stored nowhere;
    `kill` (SIGTERM) stops the server cleanly (exit 0)."""
    store = tmp_path / "replies.sqlite"
    server, started = serve_replies(store, SMSKIT_SIGNING_SECRET="s" * 32)
    try:
        assert httpx.post(str(started["url"]), json=REPLY, timeout=10).status_code == 401
    finally:
        server.send_signal(signal.SIGTERM)
        code = server.wait(timeout=30)
    assert code == 0
    with smskit.Inbox(store) as inbox:
        assert len(inbox) == 0


@pytest.mark.parametrize(
    ("typed", "env", "line"),
    [
        ([], {"SMSKIT_SIGNING_SECRET": "short-secret"},
         "SMSKIT_SIGNING_SECRET: must be at least 16 bytes long (in UTF-8)"),
        (["--signing-secret", "short-secret"], {},
         "--signing-secret: must be at least 16 bytes long (in UTF-8)"),
        (["--link-base", "ftp://go.example"], {},
         "--link-base: must be http(s)://host[:port][/path] in printable ASCII (the port from 1 "
         "to 65535), with no query, "
         "fragment, spaces or braces (got 'ftp://go.example')"),
    ],
)  # fmt: skip
def test_replies_serve_names_what_the_user_gave_for_a_refused_value(
    typed: list[str], env: dict[str, str], line: str, tmp_path: Path
) -> None:
    """A short signing secret from SMSKIT_SIGNING_SECRET is refused naming the variable, typed
    one naming --signing-secret (both said "--link-base: signing_secret: ..."), a bad
    --link-base naming it once: exit 4, one line, the secret never shown, no inbox made."""
    store = tmp_path / "replies.sqlite"
    args = ["replies", "serve", "--port", "0", "--path", str(store), *typed]
    result = CliRunner().invoke(cli, args, env=env)
    assert result.exit_code == EXIT_INPUT and result.stdout == ""
    assert result.stderr == f"smskit: error: {line}\n"
    assert "short-secret" not in result.stderr and not store.exists()


def test_replies_serve_for_an_account_no_gateway_url_names_makes_no_inbox(
    tmp_path: Path,
) -> None:
    """SMSKIT_BASE_URL no client accepts, with --path: exit 3 naming the variable, not blamed
    on --path (it was exit 4 "--path FILE: ..."), and no inbox file made (it was, with its
    -wal and -shm, before the refusal); the library's Inbox(path, account=) refuses first."""
    store = tmp_path / "replies.sqlite"
    env = {"SMSKIT_BASE_URL": "ftp://gw.example", "SMSKIT_API_LOGIN": "acme"}
    result = CliRunner().invoke(
        cli, ["replies", "serve", "--port", "0", "--path", str(store)], env=env
    )
    assert result.exit_code == 3 and result.stdout == ""
    assert "SMSKIT_BASE_URL" in result.stderr and "--path" not in result.stderr
    with pytest.raises(smskit.ConfigurationError, match="SMSKIT_BASE_URL"):
        smskit.Inbox(store, account=("https://gw.example:99999", "acme"))
    assert list(tmp_path.iterdir()) == []


def test_resume_of_a_campaign_another_runner_holds_exits_8(
    run: Run, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """While another runner holds the journal's lease, `campaign resume` exits 8 in one line
    and sends nothing; once it lets go, the resume runs (exit 0)."""
    journal = tmp_path / "j.sqlite"
    fresh_sandbox.set_balance(0.0)
    source = recipients_csv(tmp_path / "r.csv", fr_mobiles(3))
    sent = run("send", "--text", TEXT, "--sender", "Shop", "--csv", str(source), "--yes",
               "--journal", str(journal))  # fmt: skip
    assert sent.exit_code == 7
    fresh_sandbox.set_balance(100.0)
    holder = Journal(journal, lease=0)
    try:
        busy = run("campaign", "resume", str(journal))
    finally:
        holder.close()
    assert busy.exit_code == 8 and "another runner" in one_error_line(busy)
    assert fresh_sandbox.sent().empty
    assert run("campaign", "resume", str(journal)).exit_code == 0
    assert sorted(fresh_sandbox.sent()["phone_number"]) == fr_mobiles(3)


def test_hlr_row_longer_than_header_is_refused_naming_the_row(run: Run, tmp_path: Path) -> None:
    """A row with one value too many (pandas would read the number as an index and check
    the first name instead): the input error exit, one line naming the file and the row,
    nothing checked."""
    numbers = fr_mobiles(2)
    source = tmp_path / "in.csv"
    source.write_text(f"phone_number,first_name\n{numbers[0]},Ann,x\n{numbers[1]},Bob\n")
    result = run("hlr", str(source))
    assert result.exit_code == EXIT_INPUT
    line = one_error_line(result)
    assert "IN[0]" in line and "3 values" in line and "2 columns" in line
