"""Nothing done is not success, for every command alike: a command that changed nothing
exits 4 when its input held nothing to do (a header-only file, an inbox without opt-outs,
every recipient excluded) and 9 when everything asked was done already (numbers already
listed or already off the list, a complete campaign resumed, a named campaign already sent);
one line on stderr saying "nothing ...", nothing on stdout. Doing part of it is done (0)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from smskit.cli import cli
from smskit.cli.output import EXIT_INPUT, EXIT_REPEAT
from smskit.sandbox import Sandbox

REPO = Path(__file__).resolve().parent.parent
NOW = "2026-03-03T10:00:00+01:00"
LISTED, OTHER = "+33612345678", "+33612345679"
ALERT = ("send", "--text", "Alerte serveur", "--sender", "Ops", "--to", LISTED,
         "--purpose", "alert", "--yes")  # fmt: skip

Run = Callable[..., Result]


@pytest.fixture
def run(fresh_sandbox: Sandbox) -> Run:
    """The command in-process on the test's sandbox, as cron runs it (no terminal)."""
    env = {"SMSKIT_BASE_URL": fresh_sandbox.url, "SMSKIT_API_LOGIN": fresh_sandbox.login,
           "SMSKIT_API_KEY": fresh_sandbox.api_key, "SMSKIT_NOW": NOW}  # fmt: skip

    def invoke(*args: str) -> Result:
        return CliRunner().invoke(cli, list(args), env=env)

    return invoke


def nothing_done(result: Result) -> str:
    """The one stderr line of a command that did nothing; stdout empty."""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "nothing" in lines[0], result.stderr
    assert result.stdout == "", result.stdout
    return lines[0]


def test_optouts_import_of_a_header_only_file_exits_4(run: Run, tmp_path: Path) -> None:
    """`optouts import` of a file with a header and no row: exit 4 (was "0 added", exit 0)."""
    empty = tmp_path / "optouts.csv"
    empty.write_text("phone_number\n")
    result = run("optouts", "import", str(empty))
    assert result.exit_code == EXIT_INPUT
    assert "holds no number" in nothing_done(result)


def test_optouts_import_of_numbers_all_listed_exits_9_and_part_of_them_is_done(
    run: Run, tmp_path: Path
) -> None:
    """Importing numbers all on the list already: exit 9; one of them new: 0, "1 added"."""
    assert run("optouts", "add", LISTED).exit_code == 0
    listed = tmp_path / "listed.csv"
    listed.write_text(f"phone_number\n{LISTED}\n")
    result = run("optouts", "import", str(listed))
    assert result.exit_code == EXIT_REPEAT and "already on the opt-out list" in nothing_done(result)
    listed.write_text(f"phone_number\n{LISTED}\n{OTHER}\n")
    more = run("optouts", "import", str(listed))
    assert more.exit_code == 0 and "1 number(s) added" in more.stdout


def test_optouts_add_of_a_listed_number_and_remove_of_an_unlisted_one_exit_alike(
    run: Run,
) -> None:
    """`add` of a listed number and `remove` of an unlisted one both change nothing: both
    exit 9 (add exited 0, remove 4); with one number to change among them, both exit 0."""
    assert run("optouts", "add", LISTED).exit_code == 0
    added = run("optouts", "add", LISTED)
    removed = run("optouts", "remove", OTHER, "--note", "never listed")
    assert (added.exit_code, removed.exit_code) == (EXIT_REPEAT, EXIT_REPEAT)
    nothing_done(added), nothing_done(removed)
    assert run("optouts", "add", LISTED, OTHER).exit_code == 0
    assert run("optouts", "remove", LISTED, "+33612345670", "--note", "x").exit_code == 0


def test_campaign_resume_of_a_complete_journal_exits_9_and_sends_nothing(
    run: Run, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Resuming a journal whose campaign is complete: exit 9 (was 0), nothing sent."""
    journal = tmp_path / "alert.journal.sqlite"
    assert run(*ALERT, "--journal", str(journal)).exit_code == 0
    sent = len(fresh_sandbox.sent())
    result = run("campaign", "resume", str(journal))
    assert result.exit_code == EXIT_REPEAT and "is complete" in nothing_done(result)
    assert len(fresh_sandbox.sent()) == sent == 1


def test_nothing_done_as_real_processes(fresh_sandbox: Sandbox, tmp_path: Path) -> None:
    """The same rule as cron meets it, in fresh processes: a header-only import exits 4, a
    repeated add exits 9, each with one line on stderr and nothing on stdout."""
    empty = tmp_path / "optouts.csv"
    empty.write_text("phone_number\n")
    env = {**os.environ, "SMSKIT_BASE_URL": fresh_sandbox.url,
           "SMSKIT_API_LOGIN": fresh_sandbox.login, "SMSKIT_API_KEY": fresh_sandbox.api_key,
           "XDG_DATA_HOME": str(tmp_path / "data")}  # fmt: skip
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])

    def smskit(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "smskit", *args], capture_output=True,
                              text=True, timeout=120, env=env, check=False)  # fmt: skip

    imported = smskit("optouts", "import", str(empty))
    assert smskit("optouts", "add", LISTED).returncode == 0
    again = smskit("optouts", "add", LISTED)
    for done, code in ((imported, EXIT_INPUT), (again, EXIT_REPEAT)):
        assert done.returncode == code, done.stderr
        assert done.stdout == "" and len(done.stderr.strip().splitlines()) == 1


def test_send_of_a_header_only_file_exits_4_saying_it_holds_no_recipient(
    run: Run, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """`send --csv` of a file with a header and no row: exit 4 in one line naming the file
    and saying it holds no recipient (never "all 0 recipient(s) are excluded"), nothing on
    stdout (no preflight of nobody), with or without --json; nothing sent."""
    empty = tmp_path / "customers.csv"
    empty.write_text("phone_number,first_name\n")
    for extra in ((), ("--json",), ("--dry-run",)):
        result = run("send", "--text", "Bonjour {first_name}", "--sender", "Shop", "--csv",
                     str(empty), "--purpose", "alert", "--yes", *extra)  # fmt: skip
        assert result.exit_code == EXIT_INPUT
        line = nothing_done(result)
        assert str(empty) in line and "holds no recipient" in line and "all 0" not in line
    assert len(fresh_sandbox.sent()) == 0
