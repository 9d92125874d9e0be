"""Every file the ``smskit`` command reads, given broken: exit 4 and one line on stderr that
names the file or its option, never "unexpected error (a bug)", never a traceback, nothing
sent. The broken files are a generated family (empty, an unclosed quote, binary bytes, a NUL
byte, Latin-1 bytes, an SQLite file where a CSV is read, a CSV where SQLite is read) crossed
with every command and option that reads a file; a Hypothesis test adds random bytes."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from smskit.cli import cli
from smskit.cli.output import EXIT_INCOMPLETE, EXIT_INPUT
from smskit.sandbox import Sandbox

REPO = Path(__file__).resolve().parent.parent
NOW = "2026-03-03T10:00:00+01:00"  # inside the French marketing hours


def _sqlite(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (a)")
    sqlite3.connect(path).close()


# name -> writer of a broken file at the given path
BROKEN: dict[str, Callable[[Path], object]] = {
    "empty": lambda p: p.write_bytes(b""),
    "unclosed quote": lambda p: p.write_text(
        'phone_number,first_name\n+33612345678,"Anne\n+33612345679,Marc\n'
    ),
    "binary": lambda p: p.write_bytes(bytes(range(256)) * 8),
    "NUL byte": lambda p: p.write_bytes(b"phone_number,first_name\n+33612345678,An\x00ne\n"),
    "Latin-1": lambda p: p.write_bytes(b"phone_number,first_name\n+33612345678,Zo\xe9\n"),
    "SQLite file": _sqlite,
    "Parquet file": lambda p: pq.write_table(pa.table({"phone_number": [NUMBER]}), p),
    "CSV file": lambda p: p.write_text("phone_number,first_name\n+33612345678,Anne\n"),
}

SEND = ("send", "--sender", "Shop", "--purpose", "alert", "--dry-run")
NUMBER = "+33612345678"

# Each command or option that reads a file: its arguments around the file, and what it reads
# (a CSV reader is given every kind but a CSV; an SQLite store every kind: the SQLite file
# holds another table, so it is not a journal, a cache, an inbox nor an opt-out list).
READERS: dict[str, tuple[Callable[[str], list[str]], str]] = {
    "send --csv with a field": (
        lambda f: [*SEND, "--text", "Bonjour {first_name}", "--csv", f], "csv"),
    "send --csv": (lambda f: [*SEND, "--text", "Bonjour", "--csv", f], "csv"),
    "send --journal": (
        lambda f: ["send", "--sender", "Shop", "--purpose", "alert", "--text", "Bonjour",
                   "--to", NUMBER, "--journal", f, "--yes"], "sqlite"),
    "hlr IN.csv": (lambda f: ["hlr", f], "csv"),
    "hlr --cache": (lambda f: ["hlr", NUMBER, "--cache", f], "sqlite"),
    "optouts import": (lambda f: ["optouts", "import", f], "csv"),
    "optouts absorb": (lambda f: ["optouts", "absorb", f], "sqlite"),
    "optouts --path": (lambda f: ["optouts", "list", "--path", f], "sqlite"),
    "campaign status": (lambda f: ["campaign", "status", f], "sqlite"),
    "campaign resume": (lambda f: ["campaign", "resume", f], "sqlite"),
    "campaign list": (lambda f: ["campaign", "list", f], "sqlite"),
    "campaign list --inbox": (lambda f: ["campaign", "list", "--inbox", f], "sqlite"),
    "send --track-links": (
        lambda f: ["send", "--sender", "Shop", "--purpose", "alert", "--text",
                   "Bonjour https://shop.example/a", "--to", NUMBER, "--track-links", f,
                   "--yes"], "sqlite"),
}  # fmt: skip


# An empty file is an empty SQLite database (SQLite's own reading): where the command keeps a
# store it writes (a cache, a journal), it starts one there. A store the command only reads
# (`campaign list --inbox`, `optouts list --path`) is refused when empty, left empty: like any
# broken file.
NEW_STORE_WHEN_EMPTY = ("send --journal", "hlr --cache")


def cases() -> list[tuple[str, str]]:
    """(reader, broken kind): every kind a reader cannot read."""
    return [
        (reader, kind)
        for reader, (_, reads) in READERS.items()
        for kind in BROKEN
        if not (reads == "csv" and kind == "CSV file")
        and not (kind == "empty" and reader in NEW_STORE_WHEN_EMPTY)
    ]


def environment(sandbox: Sandbox) -> dict[str, str]:
    return {"SMSKIT_BASE_URL": sandbox.url, "SMSKIT_API_LOGIN": sandbox.login,
            "SMSKIT_API_KEY": sandbox.api_key, "SMSKIT_NOW": NOW}  # fmt: skip


def refused_line(result: Result) -> str:
    """The one line a refused command prints on stderr: no traceback, not a bug."""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert "unexpected error" not in lines[0], lines[0]
    return lines[0]


def test_the_family_covers_every_reader_and_kind() -> None:
    """Each reader meets at least five broken kinds, and each kind at least one reader."""
    found = cases()
    assert {reader for reader, _ in found} == set(READERS)
    assert {kind for _, kind in found} == set(BROKEN)
    assert all(sum(r == reader for r, _ in found) >= 5 for reader in READERS)


@pytest.mark.parametrize(("reader", "kind"), cases())
def test_a_broken_file_is_input_refused_naming_it(
    reader: str, kind: str, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A file the command cannot read: exit 4, one line naming the file (or its option),
    never "a bug"; nothing sent, the file left byte for byte."""
    path = tmp_path / ("contacts.csv" if READERS[reader][1] == "csv" else "store.sqlite")
    BROKEN[kind](path)
    before = path.read_bytes()
    args, _ = READERS[reader]
    result = CliRunner().invoke(cli, args(str(path)), env=environment(fresh_sandbox))
    line = refused_line(result)
    assert result.exit_code == EXIT_INPUT, (result.exit_code, line)
    assert path.name in line or "--" in line or "line " in line, line
    assert path.read_bytes() == before
    assert fresh_sandbox.sent().empty
    assert "does not exist" not in line  # the file is there (campaign status of an empty file)


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(content=st.binary(max_size=300) | st.text(max_size=200).map(str.encode))
def test_any_bytes_as_a_csv_is_read_or_refused_never_a_bug(
    content: bytes, fresh_sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Random bytes given to `send --csv` with a {field}, `hlr` and `optouts import`: a
    result (0 or 7) or input refused (4) in one line, never "a bug"."""
    path = tmp_path_factory.mktemp("bytes") / "random.csv"
    path.write_bytes(b"phone_number,first_name\n" + content)
    for reader in ("send --csv with a field", "hlr IN.csv", "optouts import"):
        args, _ = READERS[reader]
        result = CliRunner().invoke(cli, args(str(path)), env=environment(fresh_sandbox))
        assert "unexpected error" not in result.stderr and "Traceback" not in result.stderr
        assert result.exit_code in (0, EXIT_INPUT, EXIT_INCOMPLETE), (reader, result.stderr)


@pytest.mark.parametrize("kind", ["empty", "unclosed quote", "binary"])
def test_send_with_a_field_of_a_broken_csv_as_a_real_process_exits_4(
    kind: str, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """The reported case as a user runs it: `python -m smskit send --csv FILE --text
    "Bonjour {first_name}"` of an empty, unclosed-quote or binary file exits 4 with one line
    (was "unexpected error (a bug)" with pandas' ParserError/UnicodeDecodeError/EmptyDataError)."""
    path = tmp_path / "contacts.csv"
    BROKEN[kind](path)
    env = {**os.environ, **environment(fresh_sandbox), "XDG_DATA_HOME": str(tmp_path / "data")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    args = READERS["send --csv with a field"][0](str(path))
    done = subprocess.run([sys.executable, "-m", "smskit", *args], capture_output=True,
                          text=True, timeout=120, env=env, check=False)  # fmt: skip
    lines = done.stderr.strip().splitlines()
    assert done.returncode == EXIT_INPUT, done.stderr
    assert len(lines) == 1 and "unexpected error" not in lines[0] and done.stdout == ""
    assert "CSV file" in lines[0]


@pytest.mark.parametrize("reader", ["send --csv with a field", "hlr IN.csv", "optouts import"])
def test_a_parquet_file_renamed_csv_is_named_as_parquet(
    reader: str, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A Parquet file named .csv: exit 4, one line saying it is a Parquet file and to save it
    as CSV UTF-8 (was "holds bytes that are not UTF-8 text ..., or it is not a text file")."""
    path = tmp_path / "contacts.csv"
    BROKEN["Parquet file"](path)
    args, _ = READERS[reader]
    result = CliRunner().invoke(cli, args(str(path)), env=environment(fresh_sandbox))
    line = refused_line(result)
    assert result.exit_code == EXIT_INPUT, (result.exit_code, line)
    assert "the CSV file is a Parquet file, not CSV text: save it as CSV UTF-8" in line, line
    assert "contacts.csv" in line and fresh_sandbox.sent().empty


@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_named_pipe_is_input_refused_naming_it_never_waited_on(
    reader: str, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A named pipe (FIFO) where a file is read, as cron runs the command: `smskit hlr
    pipe.csv` and `optouts import pipe.csv` waited forever for a writer; `send --csv` said
    "no such file", a journal "does not exist", an inbox "an empty file", a store "disk I/O
    error". Now each exits 4 at once, one line naming the file and what it is; nothing sent,
    nothing made beside the pipe."""
    (tmp_path / "files").mkdir()
    pipe = tmp_path / "files" / ("contacts.csv" if READERS[reader][1] == "csv" else "store.sqlite")
    os.mkfifo(pipe)
    env = {**os.environ, **environment(fresh_sandbox), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}  # fmt: skip
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    args, _ = READERS[reader]
    done = subprocess.run([sys.executable, "-m", "smskit", *args(str(pipe))], capture_output=True,
                          text=True, timeout=60, env=env, check=False)  # fmt: skip
    lines = done.stderr.strip().splitlines()
    assert done.returncode == EXIT_INPUT, (done.returncode, done.stderr)
    assert len(lines) == 1 and "unexpected error" not in lines[0], done.stderr
    assert f"{str(pipe)!r} is a named pipe (FIFO), not a file stored on disk" in lines[0], lines
    assert "ValidationError" not in lines[0] and "does not exist" not in lines[0], lines[0]
    assert "Sent:" not in done.stdout and fresh_sandbox.sent().empty  # preflight may print
    assert stat.S_ISFIFO(pipe.lstat().st_mode) and list(pipe.parent.iterdir()) == [pipe]


@pytest.mark.parametrize("reader", ["send --csv", "optouts import", "hlr IN.csv"])
def test_a_float_s_text_in_a_csv_is_refused_naming_the_file_s_line(
    reader: str, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A float's text in a CSV file's phone_number column: exit 4, one line naming the file,
    its line (the header is line 1; a blank line and a quoted value's line break counted)
    and the column, with advice for the file (no pandas: no read_csv, no dtype=str)."""
    path = tmp_path / "contacts.csv"
    path.write_text(
        'phone_number,note\n\n+33612345679,"two\nlines"\n33612345678.0,x\n+33612345670,y\n'
    )
    args, _ = READERS[reader]
    result = CliRunner().invoke(cli, args(str(path)), env=environment(fresh_sandbox))
    line = refused_line(result)
    assert result.exit_code == EXIT_INPUT, (result.exit_code, line)
    assert f"{path}: line 5, phone_number: '33612345678.0': a float cannot hold" in line, line
    assert "without '.0'" in line, line
    assert "read_csv" not in line and "dtype" not in line and "recipients[" not in line, line
    assert "numbers[" not in line, line  # the file's line, not the library's row index
    assert fresh_sandbox.sent().empty
    assert "line_status" not in result.stdout  # nothing checked, no breakdown printed


@pytest.mark.parametrize("reader", ["send --csv", "optouts import", "hlr IN.csv"])
def test_a_repeated_phone_number_column_is_refused_naming_both(
    reader: str, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A CSV header naming phone_number twice was read by its first copy (the second's
    numbers never checked, never sent, never listed); exit 4, one line naming the file, the
    column and both places; nothing sent, the file left as it was."""
    path = tmp_path / "contacts.csv"
    path.write_text("phone_number,first_name,phone_number\n+33612345678,Anne,+33612345679\n")
    before = path.read_bytes()
    args, _ = READERS[reader]
    result = CliRunner().invoke(cli, args(str(path)), env=environment(fresh_sandbox))
    line = refused_line(result)
    assert result.exit_code == EXIT_INPUT, (result.exit_code, line)
    assert "phone_number: this column appears more than once (columns 1 and 3 of the header" in line
    assert str(path) in line and "rename or remove the others in the file" in line, line
    assert fresh_sandbox.sent().empty and path.read_bytes() == before
    assert "line_status" not in result.stdout


@pytest.mark.parametrize(
    ("given", "advice"),
    [
        ("contacts.csv", "give the file with --csv FILE"),
        ("list.txt", "save it as CSV UTF-8"),
    ],
)
def test_a_file_given_to_to_is_refused_advising_csv(
    given: str, advice: str, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """`send --to contacts.csv`: a file where a number goes was read as one invalid number
    ("nothing to send: all 1 recipient(s) are excluded"); now exit 4, one line naming --to
    and the file, advising --csv (no Python words); nothing sent, the file left as it was."""
    path = tmp_path / given
    path.write_text("phone_number\n+33612345678\n")
    args = [*SEND, "--text", "Bonjour", "--to", NUMBER, "--to", str(path)]
    result = CliRunner().invoke(cli, args, env=environment(fresh_sandbox))
    line = refused_line(result)
    assert result.exit_code == EXIT_INPUT, (result.exit_code, line)
    assert f"--to: {str(path)!r}: " in line, line
    assert advice in line and "--csv" in line, line
    assert "pathlib" not in line and "pass " not in line, line
    assert fresh_sandbox.sent().empty


def test_send_without_recipients_or_with_both_says_which(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Neither --to nor --csv was told "..., not both"; now "not both" only when both came.
    Usage errors (exit 2) either way; nothing sent."""
    path = tmp_path / "people.csv"
    path.write_text(f"phone_number\n{NUMBER}\n")
    runs = {
        "neither": [*SEND, "--text", "Bonjour"],
        "both": [*SEND, "--text", "Bonjour", "--to", NUMBER, "--csv", str(path)],
    }
    said = {}
    for case, args in runs.items():
        result = CliRunner().invoke(cli, args, env=environment(fresh_sandbox))
        assert result.exit_code == 2, (case, result.exit_code, result.stderr)
        assert "give recipients with --to (repeatable) or --csv FILE" in result.stderr
        said[case] = "not both" in result.stderr
    assert said == {"neither": False, "both": True}
    assert fresh_sandbox.sent().empty
