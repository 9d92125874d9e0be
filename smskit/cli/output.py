"""What every command shares: exit codes, the client, and printing for people or scripts."""

from __future__ import annotations

import contextlib
import contextvars
import io
import json
import math
import signal
import sys
import threading
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final

import click

from smskit.cli.options import is_quiet
from smskit.client import Client

if TYPE_CHECKING:
    import pandas as pd

EXIT_OK: Final = 0
EXIT_DECLINED: Final = 1
EXIT_USAGE: Final = 2
EXIT_CONFIG: Final = 3
EXIT_INPUT: Final = 4
EXIT_REFUSED: Final = 5
EXIT_UNREACHABLE: Final = 6
EXIT_INCOMPLETE: Final = 7
EXIT_BUSY: Final = 8
EXIT_REPEAT: Final = 9
EXIT_INTERRUPTED: Final = 130

EXIT_CODES_HELP: Final = (
    "Exit codes: 0 done (all that was asked now holds); 1 declined "
    "or unexpected error; 2 usage; 3 configuration (credentials, URL, an SMSKIT_* setting, "
    "missing extra, port); "
    "4 input refused, a file unreadable, or nothing in it to do (a header-only file); 5 "
    "gateway answered with an error; 6 gateway unreachable or timed out; 7 not all done "
    "(numbers without an answer, recipients not sent); 8 another runner is sending that "
    "campaign; 9 nothing to do, it was done already (the same send less than 10 minutes "
    "ago, a named campaign already sent, a complete journal resumed, numbers already on or "
    "off the opt-out list); 130 interrupted. Nothing done is never 0."
)

# The files the running command reads, by the field the library's errors name them with
# (``recipients``, ``optouts``, ``IN``): an error about one is shown naming what the user
# typed (``--csv contacts.csv: ...``). Set afresh by each run (cli.main).
FILES_READ: Final[contextvars.ContextVar[dict[str, str]]] = contextvars.ContextVar("files_read")


def name_file(field: str, shown: str) -> None:
    """Errors of the library about ``field`` are about the file the user typed as ``shown``
    (an option and its value, or an argument)."""
    FILES_READ.get({})[field] = shown


def named_file(field: str) -> str | None:
    """What the user typed for the file the library calls ``field`` (its part before a dot:
    ``optouts.country`` is about ``optouts``), or None."""
    return FILES_READ.get({}).get(field.split(".", 1)[0])


# ``--json``: one JSON document on stdout instead of text.
json_option = click.option(
    "--json", "as_json", is_flag=True, help="Print one JSON document (for scripts)."
)


def connect() -> Client:
    """The client of the ``SMSKIT_*`` settings, or of an embedded sandbox.

    The library announces a sandbox on stdout; here stdout is for results (``--json``,
    pipes), so the announcement goes to stderr, and nowhere with ``--quiet`` or when stderr
    is not a terminal (cron mail).
    """
    sink = io.StringIO() if is_quiet() else sys.stderr
    with contextlib.redirect_stdout(sink):
        return Client()


def progress() -> bool:
    """Progress bars only where someone watches: stderr is a terminal."""
    return sys.stderr.isatty()


def plain(value: Any) -> Any:
    """``value`` as JSON can hold it: NaN/NA as null, numpy scalars as numbers."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if hasattr(value, "item") and not hasattr(value, "__len__"):  # numpy scalar
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, int | float):
        return value
    try:
        import pandas as pd

        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    return str(value)


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows of ``frame`` as JSON-ready dicts (index dropped unless it is named)."""
    if any(name is not None for name in frame.index.names):
        frame = frame.reset_index()
    return [plain(row) for row in frame.to_dict(orient="records")]


def row(frame: pd.DataFrame) -> dict[str, Any]:
    """The one row of a summary frame as a JSON-ready dict."""
    return records(frame)[0]


def print_json(document: Any) -> None:
    click.echo(json.dumps(plain(document), ensure_ascii=False, indent=2))


def print_row(title: str, values: Mapping[str, Any]) -> None:
    """A one-row summary as ``key: value`` lines under a title."""
    click.echo(title)
    width = max((len(str(k)) for k in values), default=0)
    for key, value in values.items():
        click.echo(f"  {str(key).ljust(width)}  {'' if value is None else value}")


def print_table(frame: pd.DataFrame) -> None:
    click.echo(frame.to_string())


@contextlib.contextmanager
def warnings_said(category: type[Warning]) -> Iterator[None]:
    """The warnings of ``category`` the block raises, each said on stderr as one
    ``warning: ...`` line once it ends (in the shell's words, never a Python traceback line);
    any other warning shown as Python would show it."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", category)
        yield
    for warning in caught:
        if issubclass(warning.category, category):
            click.echo(f"warning: {warning.message}", err=True)
        else:
            warnings.showwarning(
                warning.message, warning.category, warning.filename, warning.lineno
            )


@contextlib.contextmanager
def stopped_by_signals() -> Iterator[None]:
    """Ctrl-C (SIGINT) and ``kill`` (SIGTERM) raise ``KeyboardInterrupt`` while a server
    command runs: also where its shell started it with SIGINT ignored (a background job of a
    script inherits that), so "Ctrl-C stops it" holds however it was launched."""
    if threading.current_thread() is not threading.main_thread():  # CliRunner in a thread
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    for number in previous:
        signal.signal(number, stop)
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)
