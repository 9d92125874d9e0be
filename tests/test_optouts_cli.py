"""``smskit optouts ...``: the account's opt-out list from the shell, with exit codes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner, Result

from smskit.cli import cli
from smskit.replies import Inbox
from smskit.replies.optouts import OptOuts
from smskit.sandbox import Sandbox

ACCOUNT = {"SMSKIT_BASE_URL": "https://gw.example", "SMSKIT_API_LOGIN": "acme"}


def run(*args: str, env: dict[str, str | None] | None = None) -> Result:
    """The command in-process on the ACCOUNT (unless ``env`` says otherwise)."""
    return CliRunner().invoke(cli, list(args), env=ACCOUNT if env is None else env)


def test_add_list_remove_and_history() -> None:
    """add lists numbers (read like recipients), list --json shows them, remove needs a
    note and leaves it in history."""
    added = run("optouts", "add", "06 12 34 56 78", "+33612345679", "--note", "by phone")
    assert added.exit_code == 0 and "2 number(s) added" in added.stdout
    listed = json.loads(run("optouts", "list", "--json").stdout)
    assert listed["count"] == 2
    assert {r["phone_number"] for r in listed["optouts"]} == {"+33612345678", "+33612345679"}
    assert run("optouts", "remove", "+33612345678").exit_code == 2  # --note is required
    removed = run("optouts", "remove", "+33612345678", "--note", "typed by mistake")
    assert removed.exit_code == 0 and "1 number(s) removed" in removed.stdout
    events = json.loads(run("optouts", "history", "--json").stdout)["events"]
    assert [e["action"] for e in events] == ["added", "added", "removed"]
    assert events[-1]["note"] == "typed by mistake"


def test_removing_a_number_not_listed_exits_9() -> None:
    """Nothing removed is not reported as success: exit 9 (nothing to do), one line."""
    result = run("optouts", "remove", "+33612345678", "--note", "x")
    assert result.exit_code == 9 and "nothing removed" in result.stderr


@pytest.mark.parametrize(
    ("command", "nothing"),
    [(["list"], "nothing listed"), (["history"], "nothing listed"),
     (["export", "out.csv"], "nothing written")],
)  # fmt: skip
def test_a_read_command_never_starts_a_list_in_its_path(
    command: list[str], nothing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """list, history and export only read the list: a --path that is an empty file, or no
    file, is input refused naming --path (exit 4; an empty one was made into a list and
    "No number on the opt-out list." said of it), nothing written anywhere."""
    monkeypatch.chdir(tmp_path)
    empty, missing = tmp_path / "empty.sqlite", tmp_path / "typo.sqlite"
    empty.touch()
    for path, why in ((empty, "an empty file, not an opt-out list"),
                      (missing, "no such file, no opt-out list")):  # fmt: skip
        result = run("optouts", *command, "--path", str(path))
        assert result.exit_code == 4 and result.stdout == ""
        assert result.stderr == f"smskit: error: --path {path}: {why}: {nothing}\n"
    assert sorted(tmp_path.iterdir()) == [empty] and empty.read_bytes() == b""


def test_a_write_command_starts_a_list_in_an_empty_path(tmp_path: Path) -> None:
    """add given an empty --path keeps the list there (SQLite reads an empty file as a new
    database), which list then reads."""
    path = tmp_path / "optouts.sqlite"
    path.touch()
    assert run("optouts", "add", "+33612345678", "--path", str(path)).exit_code == 0
    listed = json.loads(run("optouts", "list", "--json", "--path", str(path)).stdout)
    assert [r["phone_number"] for r in listed["optouts"]] == ["+33612345678"]


@pytest.mark.parametrize("base_url", ["ftp://gw.example", "https://gw.example:99999", "gw"])
def test_an_account_no_gateway_url_names_is_refused_nothing_added(
    base_url: str, tmp_path: Path
) -> None:
    """SMSKIT_BASE_URL that no client accepts (another scheme, a port past 65535, no URL):
    `optouts add` exits 3 naming the variable and adds nothing (it said "1 number(s) added"
    to a list no send, refused at that URL, could ever read)."""
    path = tmp_path / "optouts.sqlite"
    env = {"SMSKIT_BASE_URL": base_url, "SMSKIT_API_LOGIN": "acme"}
    result = run("optouts", "add", "+33612345678", "--path", str(path), env=env)
    assert result.exit_code == 3 and result.stdout == ""
    assert "SMSKIT_BASE_URL" in result.stderr and repr(base_url) in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert (
        not path.exists()
        or OptOuts(("https://gw.example", "acme"), path=path).numbers() == frozenset()
    )


def test_export_then_import_into_another_account(tmp_path: Path) -> None:
    """export writes the CSV; import into another gateway lists the same numbers."""
    run("optouts", "add", "+33612345678", "+447700900123")
    out = tmp_path / "list.csv"
    exported = run("optouts", "export", str(out))
    assert exported.exit_code == 0 and "2 number(s) written" in exported.stdout
    other = {"SMSKIT_BASE_URL": "https://other.example", "SMSKIT_API_LOGIN": "acme"}
    imported = run("optouts", "import", str(out), env=other)
    assert imported.exit_code == 0 and "2 number(s) added" in imported.stdout
    with OptOuts(("https://other.example", "acme")) as listed:
        assert listed.numbers() == frozenset({"+33612345678", "+447700900123"})


def test_a_broken_csv_exits_4_naming_the_row_and_lists_nothing(tmp_path: Path) -> None:
    """A row with an invalid number: exit 4, one line naming optouts[1].phone_number."""
    broken = tmp_path / "broken.csv"
    broken.write_text("phone_number\n+33612345678\n12\n", encoding="utf-8")
    result = run("optouts", "import", str(broken))
    assert result.exit_code == 4
    assert "optouts[1].phone_number" in result.stderr
    assert json.loads(run("optouts", "list", "--json").stdout)["count"] == 0


def test_with_half_an_account_it_exits_3() -> None:
    """SMSKIT_API_LOGIN without SMSKIT_BASE_URL: configuration error, exit 3, naming both
    (with neither, the embedded sandbox's list: tests/test_cli_embedded.py)."""
    result = run("optouts", "list", env={"SMSKIT_BASE_URL": None, "SMSKIT_API_LOGIN": "acme"})
    assert result.exit_code == 3 and "SMSKIT_BASE_URL" in result.stderr


def test_absorb_takes_an_inbox_files_opt_outs_once(tmp_path: Path) -> None:
    """absorb INBOX takes the STOP reply an inbox file received over HTTP; a second absorb
    adds nothing."""
    path = tmp_path / "replies.sqlite"
    with Sandbox() as sb, Inbox(path) as inbox:
        sb.set_callback_url(inbox.url)
        sb.simulate_reply("+33612345679", "STOP")
        sb.simulate_reply("+33612345670", "Merci !")
        inbox.wait(2)
    first = run("optouts", "absorb", str(path))
    assert first.exit_code == 0 and "1 number(s) added" in first.stdout
    again = run("optouts", "absorb", str(path))
    assert again.exit_code == 9 and "nothing added" in again.stderr and again.stdout == ""
    with OptOuts(("https://gw.example", "acme")) as listed:
        assert listed.numbers() == frozenset({"+33612345679"})


def test_send_refuses_include_opted_out_for_marketing(fresh_sandbox: Sandbox) -> None:
    """smskit send --include-opted-out without --purpose alert: exit 4, one line naming the
    option; nothing sent."""
    env: dict[str, str | None] = {
        "SMSKIT_BASE_URL": fresh_sandbox.url,
        "SMSKIT_API_LOGIN": fresh_sandbox.login,
        "SMSKIT_API_KEY": fresh_sandbox.api_key,
    }
    result = run(
        "send", "--text", "Soldes ! STOP au 36173", "--sender", "Shop", "--to", "+33612345678",
        "--include-opted-out", "--yes", env=env,
    )  # fmt: skip
    assert result.exit_code == 4
    # The error names the flag typed (OPTION_OF_FIELD, generated from the declaration).
    assert "--include-opted-out:" in result.stderr and "Traceback" not in result.stderr
    assert fresh_sandbox.sent().empty


def test_replies_serve_puts_a_stop_on_the_named_accounts_list(tmp_path: Path) -> None:
    """`smskit replies serve` as a real process with SMSKIT_BASE_URL and SMSKIT_API_LOGIN set:
    a STOP reply POSTed to it is on that account's opt-out list (and only that one's)."""
    repo = Path(__file__).resolve().parent.parent
    environ = {**os.environ, **ACCOUNT, "PYTHONPATH": str(repo)}
    server = subprocess.Popen(
        [sys.executable, "-m", "smskit", "replies", "serve", "--path",
         str(tmp_path / "replies.sqlite"), "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environ,
    )  # fmt: skip
    assert server.stdout is not None
    printed = ""
    for line in server.stdout:
        printed += line
        if line.startswith("}"):
            break
    reply = {"message_id": "m1", "number": "+33612345678", "text": "STOP",
             "reception_date": "2025-03-01T10:15:00+00:00"}  # fmt: skip
    try:
        url = str(json.loads(printed)["url"])
        assert httpx.post(url, json=reply, timeout=10).status_code == 200
    finally:
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=30) == 0
    with OptOuts(("https://gw.example", "acme")) as listed:
        assert listed.numbers() == frozenset({"+33612345678"})
    with OptOuts(("https://gw.example", "someone-else")) as other:
        assert len(other) == 0


def test_export_onto_the_list_itself_or_another_database_is_refused(tmp_path: Path) -> None:
    """`optouts export` naming the list's own SQLite file (or a journal, any SQLite
    database) is refused in one line naming the file, exit 4, the file byte for byte as it
    was and the list still listing its numbers; an existing CSV is replaced, as asked."""
    run("optouts", "add", "+33612345678")
    with OptOuts(("https://gw.example", "acme")) as listed:
        own = listed.path
    other = tmp_path / "campaign.journal.sqlite"
    other.write_bytes(own.read_bytes())
    for target in (own, other):
        before = target.read_bytes()
        result = run("optouts", "export", str(target))
        assert result.exit_code == 4, result.output
        (line,) = result.stderr.strip().splitlines()
        assert str(target) in line and "SQLite" in line and "nothing" not in result.stdout
        assert target.read_bytes() == before
    with OptOuts(("https://gw.example", "acme")) as listed:
        assert listed.numbers() == frozenset({"+33612345678"})
    old = tmp_path / "old.csv"
    old.write_text("phone_number\n+33600000000\n")
    assert run("optouts", "export", str(old)).exit_code == 0
    assert "+33612345678" in old.read_text() and "+33600000000" not in old.read_text()


def test_a_file_given_as_a_number_is_refused_advising_import(tmp_path: Path) -> None:
    """`optouts add list.csv`: the file was read as one invalid number ("contains_letters",
    no word of `optouts import`); now exit 4, one line naming NUMBER and the file, advising
    `smskit optouts import FILE`; the numbers beside it are not listed either."""
    path = tmp_path / "list.csv"
    path.write_text("phone_number\n+33612345678\n", encoding="utf-8")
    for command in (["add"], ["remove", "--note", "x"]):
        result = run("optouts", *command, "+33612345679", str(path))
        assert result.exit_code == 4, (result.exit_code, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and f"NUMBER: {str(path)!r}: " in lines[0], lines
        assert "smskit optouts import FILE" in lines[0] and "import_csv" not in lines[0], lines
    assert json.loads(run("optouts", "list", "--json").stdout)["count"] == 0
    assert "contains_letters" in run("optouts", "add", "not-a-number").stderr  # unchanged
