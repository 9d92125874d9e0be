"""The ``smskit`` command on the inputs a stranger gives it: a command that checked or read
nothing never exits 0, a file that is not a campaign's journal is input (exit 4) naming the
option or argument, and ``hlr -o`` into a missing directory is refused before any paid check.
Each runs in-process against a real sandbox over HTTP."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from smskit.cli import cli
from smskit.cli.output import EXIT_INPUT, EXIT_REPEAT, EXIT_USAGE
from smskit.sandbox import Sandbox

Run = Callable[..., Result]
ALERT = ("send", "--text", "Alerte serveur", "--sender", "Ops", "--to", "+33612345678",
         "--purpose", "alert", "--yes")  # fmt: skip


@pytest.fixture
def run(fresh_sandbox: Sandbox) -> Iterator[Run]:
    """``run(*args)``: the command in-process, configured for the test's sandbox."""
    env = {
        "SMSKIT_BASE_URL": fresh_sandbox.url,
        "SMSKIT_API_LOGIN": fresh_sandbox.login,
        "SMSKIT_API_KEY": fresh_sandbox.api_key,
        "SMSKIT_NOW": "2026-03-03T10:00:00+01:00",
    }

    def invoke(*args: str) -> Result:
        return CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)

    yield invoke


def one_line(result: Result) -> str:
    """The single stderr line of a refused command (no traceback)."""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


def not_journals(tmp_path: Path) -> list[Path]:
    """Files a user may pass where a journal is expected: a CSV, another SQLite database."""
    csv = tmp_path / "customers.csv"
    csv.write_text("phone_number\n+33612345678\n")
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t (a)")
    return [csv, other]


@pytest.mark.parametrize(
    "values", [("12",), ("12", "abc"), ("not-a-number", "+1")], ids=["one", "two", "mixed"]
)
def test_hlr_with_no_number_among_the_values_exits_4(
    run: Run, fresh_sandbox: Sandbox, values: tuple[str, ...]
) -> None:
    """`smskit hlr` given only values that are not numbers checked nothing: exit 4 naming
    them, no breakdown on stdout, nothing charged (never exit 0)."""
    result = run("hlr", *values, "--json")
    assert result.exit_code == EXIT_INPUT and result.stdout == ""
    line = one_line(result)
    assert "nothing checked" in line and repr(values[0]) in line
    assert fresh_sandbox.balance() == 1000.0


def test_hlr_csv_without_numbers_exits_4_and_writes_the_reasons(run: Run, tmp_path: Path) -> None:
    """A CSV whose values are all bad: exit 4, and -o still says why for each value; a CSV
    with a header only: exit 4 too."""
    source, out = tmp_path / "bad.csv", tmp_path / "out.csv"
    source.write_text("phone_number\n12\nabc\n")
    result = run("hlr", str(source), "-o", str(out))
    assert result.exit_code == EXIT_INPUT and str(out) in one_line(result)
    assert out.read_text().count("not sent:") == 2
    source.write_text("phone_number\n")
    empty = run("hlr", str(source))
    assert empty.exit_code == EXIT_INPUT and "no values" in one_line(empty)


def test_hlr_with_some_numbers_still_checks_them(run: Run) -> None:
    """One bad value among numbers is not a refusal: the numbers are checked, exit 0."""
    result = run("hlr", "12", "+33612345678", "--json")
    assert result.exit_code == 0, result.stderr
    assert '"bad_format": 1' in result.stdout


def test_hlr_output_in_a_missing_directory_is_refused_before_checking(
    run: Run, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """-o into a directory that does not exist: exit 2 naming -o, before any paid check."""
    result = run("hlr", "+33612345678", "-o", str(tmp_path / "nowhere" / "out.csv"))
    assert result.exit_code == EXIT_USAGE and "'-o'" in one_line(result)
    assert fresh_sandbox.balance() == 1000.0


@pytest.mark.parametrize("command", ["status", "resume"])
def test_campaign_command_on_a_file_that_is_not_a_journal_exits_4(
    run: Run, tmp_path: Path, command: str
) -> None:
    """`campaign status|resume` given a CSV or another SQLite file: exit 4 naming JOURNAL
    (input), not 3 (configuration), and the file is left as it was."""
    for path in not_journals(tmp_path):
        before = path.read_bytes()
        result = run("campaign", command, str(path))
        assert result.exit_code == EXIT_INPUT
        line = one_line(result)
        assert line.startswith(f"smskit: error: JOURNAL {path}") and "not an smskit journal" in line
        assert path.read_bytes() == before


def test_send_journal_option_on_a_file_that_is_not_a_journal_exits_4(
    run: Run, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """`send --journal customers.csv`: exit 4 naming --journal, nothing sent."""
    for path in not_journals(tmp_path):
        result = run(*ALERT, "--journal", str(path))
        assert result.exit_code == EXIT_INPUT
        assert f"--journal {path}" in one_line(result)
    assert fresh_sandbox.sent().empty


def test_same_alert_to_another_gateway_is_not_a_repeat(run: Run, fresh_sandbox: Sandbox) -> None:
    """The same send to another account (URL or login) within 10 minutes was refused as a
    repeat (exit 9) pointing to the first gateway's campaign; it is sent, and a repeat to
    the first gateway is still refused."""
    with Sandbox(seed=0) as other:
        env = {
            "SMSKIT_BASE_URL": other.url,
            "SMSKIT_API_LOGIN": other.login,
            "SMSKIT_API_KEY": other.api_key,
            "SMSKIT_NOW": "2026-03-03T10:01:00+01:00",
        }
        assert run(*ALERT).exit_code == 0
        elsewhere = CliRunner().invoke(cli, list(ALERT), env=env, catch_exceptions=False)
        assert elsewhere.exit_code == 0, elsewhere.stderr
        assert len(other.sent()) == 1
    again = CliRunner().invoke(
        cli,
        list(ALERT),
        env={
            "SMSKIT_BASE_URL": fresh_sandbox.url,
            "SMSKIT_API_LOGIN": fresh_sandbox.login,
            "SMSKIT_API_KEY": fresh_sandbox.api_key,
            "SMSKIT_NOW": "2026-03-03T10:02:00+01:00",
        },
        catch_exceptions=False,
    )
    assert again.exit_code == EXIT_REPEAT and "--again" in one_line(again)
    assert len(fresh_sandbox.sent()) == 1


def test_same_alert_with_the_clock_set_back_is_refused_as_a_repeat(
    run: Run, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """The same send with SMSKIT_NOW 5 minutes before the recorded one (the clock set back)
    was sent again, the record taken as older than 10 minutes; now exit 9 naming the
    recorded time, saying it is after now, and --again; nothing sent; --again sends it."""
    assert run(*ALERT).exit_code == 0
    env = {
        "SMSKIT_BASE_URL": fresh_sandbox.url,
        "SMSKIT_API_LOGIN": fresh_sandbox.login,
        "SMSKIT_API_KEY": fresh_sandbox.api_key,
        "SMSKIT_NOW": "2026-03-03T09:55:00+01:00",
    }
    back = CliRunner().invoke(cli, list(ALERT), env=env, catch_exceptions=False)
    assert back.exit_code == EXIT_REPEAT, back.stderr
    line = one_line(back)
    assert "recorded at 2026-03-03T10:00:00+01:00, after this command's now" in line
    assert "2026-03-03T09:55:00+01:00" in line and "--again" in line and "min ago" not in line
    assert len(fresh_sandbox.sent()) == 1
    again = CliRunner().invoke(cli, [*ALERT, "--again"], env=env, catch_exceptions=False)
    assert again.exit_code == 0, again.stderr
    assert len(fresh_sandbox.sent()) == 2


def test_hlr_cache_option_on_a_campaign_journal_exits_4_and_leaves_it(
    run: Run, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """`hlr --cache <a campaign's journal>` exited 0 and added the cache's table to the
    journal (then unreadable by `campaign status`); now exit 4 naming --cache, before any
    check, and the journal still reads."""
    journal = tmp_path / "alert.journal.sqlite"
    assert run(*ALERT, "--journal", str(journal)).exit_code == 0
    before = journal.read_bytes()
    result = run("hlr", "+33698765432", "--cache", str(journal))
    assert result.exit_code == EXIT_INPUT and f"--cache {journal}" in one_line(result)
    assert journal.read_bytes() == before
    assert run("campaign", "status", str(journal)).exit_code == 0
    assert fresh_sandbox.balance() == pytest.approx(1000.0 - 0.065)


def test_hlr_csv_without_the_column_names_the_columns_found(run: Run, tmp_path: Path) -> None:
    """A semicolon-separated CSV: exit 4 listing the one column read and saying values are
    separated by commas (was "numbers: a DataFrame of numbers needs a 'phone_number' column")."""
    source = tmp_path / "excel.csv"
    source.write_text("phone_number;first_name\r\n0612345678;Ana\r\n")
    result = run("hlr", str(source))
    assert result.exit_code == EXIT_INPUT
    line = one_line(result)
    assert "'phone_number;first_name'" in line and "commas" in line and "--column" in line


def test_hlr_output_onto_its_input_or_a_database_is_refused_before_checking(
    run: Run, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """`hlr IN.csv -o IN.csv` would replace the customers file with the answers (its other
    columns lost), `-o` onto an SQLite file (a journal) would destroy it: both exit 2
    naming -o, before any paid check, the file unchanged."""
    source = tmp_path / "customers.csv"
    source.write_text("phone_number,first_name\n+33612345678,Ada\n")
    journal = tmp_path / "a.journal.sqlite"
    with sqlite3.connect(journal) as db:
        db.execute("CREATE TABLE meta (key, value)")
    for target in (source, journal):
        before = target.read_bytes()
        result = run("hlr", str(source), "-o", str(target))
        assert result.exit_code == EXIT_USAGE and "'-o'" in one_line(result)
        assert target.read_bytes() == before
    assert fresh_sandbox.balance() == 1000.0


# Each option or argument naming a file the command writes or makes, as (its name in the
# refusal, the arguments around the file).
WRITTEN: dict[str, tuple[str, Callable[[str], list[str]]]] = {
    "send --journal": ("'--journal'", lambda f: [*ALERT, "--journal", f]),
    "send --dry-run --journal": ("'--journal'", lambda f: [*ALERT, "--dry-run", "--journal", f]),
    "optouts export": ("'FILE'", lambda f: ["optouts", "export", f]),
    "sandbox --path": ("'--path'", lambda f: ["sandbox", "--port", "0", "--path", f]),
    "sandbox --env-file": ("'--env-file'", lambda f: ["sandbox", "--port", "0", "--env-file", f]),
    "hlr -o": ("'-o'", lambda f: ["hlr", "+33612345678", "-o", f]),
    "campaign list -o": ("'-o'", lambda f: ["campaign", "list", "-o", f]),
}  # fmt: skip


@pytest.mark.parametrize("written", sorted(WRITTEN))
def test_a_file_to_write_in_a_missing_directory_is_usage_naming_it(
    written: str, run: Run, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A file the command writes or makes, in a directory that does not exist: exit 2, one
    line naming the option (or argument), the file and the directory, before any check.
    `send --journal` was exit 3 "ConfigurationError: ..." after the preflight and the cost
    (and its --dry-run exit 0: the send it rehearsed would fail); `optouts export` exit 3
    "ConfigurationError: ..."; `sandbox --path` exit 3; `sandbox --env-file` made the
    directory (the key's file where no directory was meant). Nothing sent, paid, or made."""
    hint, args = WRITTEN[written]
    nowhere = tmp_path / "nowhere"
    target = nowhere / "file.sqlite"
    result = run(*args(str(target)))
    line = one_line(result)
    assert result.exit_code == EXIT_USAGE, (result.exit_code, line)
    said = f"Invalid value for {hint}: {target}: directory {str(nowhere)!r} does not exist"
    assert said in line, line
    assert "Preflight" not in result.stdout and "Cost" not in result.stdout
    assert fresh_sandbox.sent().empty and fresh_sandbox.balance() == 1000.0
    assert not nowhere.exists()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["a.csv", "b.csv"], "give one IN.csv file at a time (got 2 files)"),
        (["a.csv", "+33612345678"], "give one IN.csv file, or numbers, not both"),
        (["+33612345678", "--no-cache", "--cache", "{cache}"],
         "--cache FILE keeps the answers, --no-cache keeps none: not both"),
    ],
    ids=["two files", "a file and a number", "--cache and --no-cache"],
)  # fmt: skip
def test_hlr_arguments_that_contradict_are_usage_saying_which(
    args: list[str],
    said: str,
    run: Run,
    fresh_sandbox: Sandbox,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two IN.csv files were told "give one IN.csv file, or numbers, not both" (no number
    was given); --cache FILE with --no-cache checked without the cache, silently dropping
    the option. Each is exit 2 saying what it got, before any (paid) check; no cache made."""
    monkeypatch.chdir(tmp_path)
    for name in ("a.csv", "b.csv"):
        (tmp_path / name).write_text("phone_number\n+33612345678\n")
    cache = tmp_path / "answers.sqlite"
    result = run("hlr", *[a.replace("{cache}", str(cache)) for a in args])
    assert result.exit_code == EXIT_USAGE
    assert one_line(result) == f"smskit hlr: error: {said} (see: smskit hlr --help)"
    assert fresh_sandbox.balance() == 1000.0 and not cache.exists()
