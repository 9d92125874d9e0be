"""``smskit optouts list|history|export|import|add|remove|absorb``: an account's opt-out list.

The list is local (SQLite in the per-user data directory), so these commands send nothing
and need no key: the account is named by ``SMSKIT_BASE_URL`` and ``SMSKIT_API_LOGIN`` (or
``--base-url`` and ``--login``), the key every list is filed under (docs/optouts.md); with
neither set, the embedded sandbox's list, as every other command uses that sandbox then.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from smskit.cli.options import file_option, in_a_directory, region_option
from smskit.cli.output import (
    EXIT_INPUT,
    EXIT_REPEAT,
    connect,
    json_option,
    name_file,
    print_json,
    print_table,
    records,
    warnings_said,
)
from smskit.cli.sendcheck import Refused, inbox_file, not_this_file

if TYPE_CHECKING:
    import pandas as pd

    from smskit.replies.optouts import OptOuts


@dataclass(frozen=True)
class _Account:
    """Whose list, in which file: ``--base-url``, ``--login`` and ``--path`` as given."""

    base_url: str | None
    login: str | None
    path: Path | None

    def open(self, reading: str | None = None) -> OptOuts:
        """The account's list; a ``--path`` that is not a list is input refused (exit 4).
        ``reading``: the command only reads the list, and this says what it did not do when
        ``--path`` holds none (no such file, or an empty one), refused the same way: a list
        is never started in a file a read command was given."""
        from smskit.errors import ConfigurationError, ValidationError
        from smskit.replies.optouts import OptOuts, OptOutsNotReadWarning, account_key

        if reading is not None and self.path is not None:
            if not self.path.exists():
                raise Refused(f"--path {self.path}: no such file, no opt-out list: {reading}")
            if self.path.is_file() and self.path.stat().st_size == 0:  # a pipe: OptOuts says
                raise Refused(f"--path {self.path}: an empty file, not an opt-out list: {reading}")
        account: Any = (self.base_url, self.login)
        if not self.base_url and not self.login:  # nothing named: the embedded sandbox's list
            with connect() as client:
                account = client
        elif not self.base_url or not self.login:
            raise ConfigurationError(
                "name the account whose opt-out list this is: set both SMSKIT_BASE_URL and "
                "SMSKIT_API_LOGIN (or pass --base-url and --login), or neither for the embedded "
                "sandbox's"
            )
        else:  # an account no gateway URL names: configuration (exit 3), not the --path file
            account_key(account)
        try:
            with warnings_said(OptOutsNotReadWarning):  # a --path no preflight reads
                listed = OptOuts(account, path=self.path)
        except (ConfigurationError, ValidationError) as exc:  # --path is no list: exit 4
            if self.path is None:
                raise
            raise not_this_file(f"--path {self.path}", exc) from exc
        return listed


def _account(function: Callable[..., int]) -> Callable[..., int]:
    """``--base-url``, ``--login`` and ``--path``: whose list, in which file, given to the
    command as one ``account``."""

    @functools.wraps(function)
    def command(
        *args: Any, base_url: str | None, login: str | None, path: Path | None, **kwargs: Any
    ) -> int:
        return function(*args, account=_Account(base_url, login, path), **kwargs)

    with_path = file_option(
        "--path",
        help="SQLite file of the lists (default: $SMSKIT_OPTOUTS_PATH, else optouts.sqlite in "
        "the per-user data directory: the file every preflight reads).",
    )(command)
    with_login = click.option(
        "--login", envvar="SMSKIT_API_LOGIN", help="The account's login "
        "(default: $SMSKIT_API_LOGIN).",
    )(with_path)  # fmt: skip
    return click.option(
        "--base-url", envvar="SMSKIT_BASE_URL", help="The gateway's base URL "
        "(default: $SMSKIT_BASE_URL).",
    )(with_login)  # fmt: skip


def _by_hand(function: Callable[..., int]) -> Callable[..., int]:
    """``NUMBER...`` typed on the command line, their ``--region`` and the account."""
    with_account = region_option()(_account(function))
    return click.argument("numbers", nargs=-1, required=True, metavar="NUMBER...")(with_account)


def _done(changed: int, how: str, nothing: str) -> int:
    """Say how many numbers were ``how`` (added, removed); none changed is nothing done: the
    refusal ``nothing``, exit 9."""
    if changed == 0:
        raise Refused(nothing, EXIT_REPEAT)
    click.echo(f"{changed} number(s) {how}")
    return 0


def _print(frame: pd.DataFrame, key: str, as_json: bool, empty: str | None = None) -> int:
    """``frame`` as a table, or with ``--json`` as ``{"count": rows, key: [row, ...]}``;
    ``empty`` is said instead of a table without rows, when given."""
    if as_json:
        print_json({"count": len(frame), key: records(frame)})
    elif empty is not None and frame.empty:
        click.echo(empty)
    else:
        print_table(frame)
    return 0


@click.group()
def optouts() -> None:
    """The account's opt-out list: numbers every preflight excludes (opted_out)."""


@optouts.command("list")
@_account
@json_option
def list_(account: _Account, as_json: bool) -> int:
    """The numbers on the list, first opt-out first, with source and reference."""
    with account.open(reading="nothing listed") as listed:
        frame = listed.to_frame()
    return _print(frame, "optouts", as_json, empty="No number on the opt-out list.")


@optouts.command()
@_account
@json_option
def history(account: _Account, as_json: bool) -> int:
    """Every change of the list (added, removed, and callbacks that changed nothing)."""
    with account.open(reading="nothing listed") as listed:
        frame = listed.history()
    return _print(frame, "events", as_json)


@optouts.command("export")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path), callback=in_a_directory)
@_account
def export_(file: Path, account: _Account) -> int:
    """Write the list to FILE as CSV (phone_number, opted_out_at, source, reference, note).
    FILE is replaced; the list's own file, or another SQLite database, is refused (exit 4)."""
    name_file("path", str(file))
    with account.open(reading="nothing written") as listed:
        count = listed.to_csv(file)
    click.echo(f"{count} number(s) written to {file}")
    return 0


@optouts.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--note", help="Why these numbers are listed (kept in history).")
@region_option()
@_account
def import_(file: Path, note: str | None, region: str | None, account: _Account) -> int:
    """List every number of the CSV FILE (a phone_number column). A row that cannot be read
    exactly refuses the whole file (exit 4, naming the row and the rule); nothing is listed."""
    name_file("optouts", str(file))
    with account.open() as listed:
        added = listed.import_csv(file, note=note, default_region=region)
    if added == 0:
        from smskit.replies.optoutcsv import read_optouts_csv

        held = len(read_optouts_csv(file, region))  # the reader import_csv used
        if held == 0:
            raise Refused(f"{file} holds no number (a header only): nothing added", EXIT_INPUT)
        raise Refused(
            f"all {held} number(s) of {file} are already on the opt-out list: nothing added",
            EXIT_REPEAT,
        )
    click.echo(f"{added} number(s) added from {file}")
    return 0


@optouts.command()
@click.option("--note", help="Why (kept in history).")
@_by_hand
def add(numbers: tuple[str, ...], note: str | None, region: str | None, account: _Account) -> int:
    """List NUMBER... by hand (an opt-out received another way). Exits 9 when all of them
    were listed already (nothing done)."""
    with account.open() as listed:
        added = listed.add(numbers, note=note, default_region=region)
    return _done(added, "added", "already on the opt-out list: nothing added")


@optouts.command()
@click.option("--note", required=True, help="Why they are removed (kept in history).")
@_by_hand
def remove(numbers: tuple[str, ...], note: str, region: str | None, account: _Account) -> int:
    """Take NUMBER... off the list (undo a mistaken opt-out); the removal stays in history.
    Exits 9 when none of them was listed (nothing done)."""
    with account.open() as listed:
        removed = listed.remove(numbers, note=note, default_region=region)
    return _done(
        removed, "removed", "none of these numbers is on the opt-out list: nothing removed"
    )


@optouts.command()
@click.argument("inbox", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@_account
def absorb(inbox: Path, account: _Account) -> int:
    """Take every opt-out an inbox file holds (STOP callbacks, replies asking to stop); each
    callback is taken once, however often absorbed. Exits 4 when the inbox holds no opt-out,
    9 when each was taken before (nothing done)."""
    from smskit.errors import ConfigurationError

    store = inbox_file(inbox, "INBOX", "nothing added")  # read, never made into a store here
    with account.open() as listed:
        try:
            added = listed.absorb(store)
        except ConfigurationError as exc:  # another account's inbox: input refused (exit 4)
            raise Refused(f"INBOX {inbox}: {exc}", EXIT_INPUT) from exc
    if added == 0:
        if len(store.opt_out_events()) == 0:
            raise Refused(f"{inbox} holds no opt-out: nothing added", EXIT_INPUT)
        raise Refused(
            f"every opt-out of {inbox} is already on the list (or was removed after it): "
            "nothing added",
            EXIT_REPEAT,
        )
    click.echo(f"{added} number(s) added from {inbox}")
    return 0
