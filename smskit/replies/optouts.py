"""The opt-out list of an account: numbers that asked to stop, kept in SQLite, with a trace.

Why here, in ``replies``: the list is fed by what the callback receiver stores (STOP
callbacks, replies that opt out), and read by every preflight above (campaigns, dask, views,
cli). ``replies`` is the one part both sides may import (the receiver cannot import
campaigns); the rule preflight applies, given the numbers, is :mod:`smskit.rules.optouts`.

One list per account, all accounts in one file (default ``optouts.sqlite`` in the per-user
data directory, :mod:`smskit._paths`), keyed by the gateway's base URL and the login: the
key the HLR answer cache uses (:func:`smskit._account.gateway_of`), so a second gateway (a
second sandbox, the real account) never sees the first one's list.

Every change is an event in ``optout_events`` (what, when, from where, why), never deleted:
``history()`` is the trace, and an analyst undoing a mistaken opt-out (``remove``) leaves
one. The numbers listed now are in ``optouts``, written in the same transaction. A callback
(STOP or opt-out reply) is taken once per account however often it is offered (by the Inbox
as it stores it, or by ``absorb(inbox)`` later), and a number removed by hand is not put
back by a callback dated before the removal; a later STOP puts it back. See docs/optouts.md.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from numbers import Number
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol

from smskit import _sqlite
from smskit._account import EMBEDDED_SANDBOX, Gateway, Hidden, account_of, gateway_of, held
from smskit._paths import check_directory_of, check_not_replacing
from smskit.errors import ConfigurationError, ValidationError, advised
from smskit.replies.optoutcsv import CSV_SOURCES, read_optouts_csv
from smskit.replies.reports import micros, stored_times
from smskit.rules.filekind import check_regular_file
from smskit.rules.files import as_file_path
from smskit.rules.hosts import http_url_parts
from smskit.rules.optouts import listed_form
from smskit.rules.region import DEFAULT_REGION
from smskit.rules.text import check_str

if TYPE_CHECKING:
    import pandas

__all__ = [
    "ACTIONS",
    "CSV_COLUMNS",
    "FRAME_COLUMNS",
    "HISTORY_COLUMNS",
    "PATH_VARIABLE",
    "SOURCES",
    "OptOutEvent",
    "OptOuts",
    "OptOutsNotReadWarning",
    "account_key",
    "claim_account",
    "kept_account",
    "listed_numbers",
    "optouts_path",
    "warn_unless_read",
]

# Where an opt-out came from: the gateway's STOP callback, a reply asking to stop, a person.
SOURCES: Final = CSV_SOURCES
# What an event did: listed, unlisted, nothing (already listed; removed after it was sent).
ACTIONS: Final = ("added", "removed", "already_listed", "kept_removed")
FRAME_COLUMNS: Final = ("phone_number", "opted_out_at", "source", "reference", "note")
CSV_COLUMNS: Final = FRAME_COLUMNS
HISTORY_COLUMNS: Final = (
    "phone_number", "action", "source", "reference", "note", "at", "recorded_at", "via",
)  # fmt: skip

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS optout_events (
    id INTEGER PRIMARY KEY, base_url TEXT NOT NULL, api_login TEXT NOT NULL,
    phone_number TEXT NOT NULL, action TEXT NOT NULL, source TEXT NOT NULL, reference TEXT,
    note TEXT, at INTEGER NOT NULL, recorded_at INTEGER NOT NULL, via TEXT NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS optout_callbacks ON optout_events
    (base_url, api_login, source, reference) WHERE via = 'inbox';
CREATE INDEX IF NOT EXISTS optout_numbers ON optout_events
    (base_url, api_login, phone_number, action);
CREATE INDEX IF NOT EXISTS optout_versions ON optout_events (base_url, api_login, id);
CREATE TABLE IF NOT EXISTS optouts (
    base_url TEXT NOT NULL, api_login TEXT NOT NULL, phone_number TEXT NOT NULL,
    at INTEGER NOT NULL, source TEXT NOT NULL, reference TEXT, note TEXT,
    PRIMARY KEY (base_url, api_login, phone_number));
"""


PATH_VARIABLE: Final = "SMSKIT_OPTOUTS_PATH"


def optouts_path() -> Path:
    """The file of every account's opt-out list that preflight reads (every preflight: a
    campaign's, a resume's, Dask's, the Composer's, the CLI's): ``$SMSKIT_OPTOUTS_PATH``
    when set, else ``optouts.sqlite`` in smskit's per-user data directory. The variable set
    to a file in a directory that does not exist is refused naming it: read as "no list
    yet", a mistyped path would have excluded no one from any send."""
    from smskit._paths import data_dir

    given = os.environ.get(PATH_VARIABLE)
    if not given:
        return data_dir() / "optouts.sqlite"
    path = Path(given)
    if not path.parent.is_dir():  # refused as every SMSKIT_* setting is: naming the variable
        raise ValidationError(
            PATH_VARIABLE,
            f"its directory {str(path.parent)!r} does not exist, so no preflight can read an "
            "opt-out list there and none would exclude its numbers: create the directory, or "
            f"unset {PATH_VARIABLE} for the default list",
            value=given,
        )
    return path


class OptOutsNotReadWarning(UserWarning):
    """An opt-out list opened in a file no preflight reads: its numbers are not excluded."""


_warned: set[Path] = set()


def warn_unless_read(path: Path, stacklevel: int = 3) -> None:
    """Warn (once per file and process) that the list at ``path`` is not the one preflight
    reads (:func:`optouts_path`), and how to make it so."""
    import warnings

    read = optouts_path()
    if _same_file(path, read) or path in _warned:
        return
    _warned.add(path)
    warnings.warn(
        f"the opt-out list {str(path)!r} is not the one preflight reads ({str(read)!r}): "
        f"numbers listed there are not excluded from any send. Set {PATH_VARIABLE}="
        f"{path} to make preflight read it, or leave the path out to use the default list",
        OptOutsNotReadWarning,
        stacklevel=stacklevel,
    )


def _same_file(one: Path, other: Path) -> bool:
    try:
        return one.resolve() == other.resolve()
    except (OSError, RuntimeError):
        return one == other


@dataclass(frozen=True)
class OptOutEvent:
    """One opt-out a callback brought: the number as the gateway gave it, ``source``
    (``stop_callback`` or ``stop_reply``), ``reference`` (the callback's key: a reply's
    message_id, a STOP's body hash) and when it was asked (UTC microseconds)."""

    number: str | None
    source: str
    reference: str
    at_us: int


class HoldsOptOuts(Protocol):
    """What :meth:`OptOuts.absorb` reads: an :class:`~smskit.replies.Inbox`."""

    def opt_out_events(self) -> list[OptOutEvent]:
        """Every opt-out the inbox holds."""

    @property
    def account(self) -> tuple[str, str] | None:
        """Whose callbacks the inbox holds (None: not recorded)."""


class Account(Protocol):
    """A client (``smskit.Client`` / ``AsyncClient``): what names the account."""

    @property
    def base_url(self) -> str: ...

    @property
    def api_login(self) -> str: ...


def account_key(account: Account | tuple[str, str]) -> Gateway:
    """The key of ``account``: a client (its ``base_url`` and ``api_login``) or a
    ``(base_url, login)`` pair (a URL carrying credentials is refused, shown masked)."""
    account = held(account)
    if isinstance(account, tuple):
        if len(account) == 2 and isinstance(account[0], Hidden):
            return gateway_of(*account)  # refused: the URL carries credentials
        if len(account) == 2 and all(isinstance(part, str) and part for part in account):
            url = account[0].strip()  # a list at a URL no client accepts: no send reads it
            if url != EMBEDDED_SANDBOX and http_url_parts(url) is None:
                raise ConfigurationError(
                    "an opt-out list's account is a gateway's base URL (SMSKIT_BASE_URL) such "
                    "as https://host[:port][/prefix], the port from 1 to 65535, and a login; "
                    f"got {account[0]!r}"
                )
            return gateway_of(*account)
    else:
        base_url = getattr(account, "base_url", None)
        login = getattr(account, "api_login", None)
        if isinstance(base_url, str) and isinstance(login, str) and base_url and login:
            return account_of(account)
    raise ValidationError(
        "account",
        "must be a client (smskit.Client, smskit.AsyncClient) or a (base_url, login) pair",
        value=type(account).__name__,
    )


class _Remembers(Protocol):
    def remembered(self, key: str, value: str | None) -> str | None: ...


def kept_account(store: _Remembers) -> Gateway | None:
    """The account an inbox's store says its callbacks are from, None when never said."""
    kept = store.remembered("account", None)
    return None if kept is None else gateway_of(*json.loads(kept))


def claim_account(store: _Remembers, gateway: Gateway, path: str | None) -> None:
    """Record in an inbox's store that its callbacks are ``gateway``'s; a file that holds
    another account's is refused (their outcomes and opt-outs would mix), left unchanged."""
    kept = kept_account(store)
    if kept is not None and kept != gateway:
        raise ConfigurationError(
            f"{path!r} holds the callbacks of {kept[0]} as {kept[1]!r}, not of {gateway[0]} "
            f"as {gateway[1]!r}: one inbox file per account (their outcomes and opt-outs "
            "would mix); give another file"
        )
    if kept is None:
        store.remembered("account", json.dumps(list(gateway)))


def _identity(path: Path) -> tuple[int, int] | None:
    """Which file is at ``path`` now (device and inode; None when there is none)."""
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _check_kind(path: Path) -> None:
    """Refuse (left unchanged) a file that is not an opt-out list: not SQLite, or holding
    other tables (an inbox, a journal, the HLR cache), which these tables would spoil."""
    own = {"optout_events", "optouts"}
    check_regular_file(path, "path")  # a pipe: SQLite's "disk I/O error", or a wait
    _sqlite.check_kind(path, "an opt-out list", own, instead="give another file (or none)")


class OptOuts:
    """The opt-out list of one account (``smskit.OptOuts(client)``): numbers every preflight
    excludes (finding ``opted_out``), fed by STOP callbacks and replies that opt out.

    ``account``: a client, or a ``(base_url, login)`` pair. ``path``: the SQLite file
    (default :func:`optouts_path`, shared by every account, each seeing its own). Safe from
    any thread; ``close()`` when done (or use it as a context manager).
    """

    def __init__(
        self, account: Account | tuple[str, str], *, path: str | os.PathLike[str] | None = None
    ) -> None:
        account = held(account)  # a URL with login:KEY@ never in clear in this frame
        self.gateway = account_key(account)
        self.path = as_file_path(path, "path") if path is not None else optouts_path()
        self._lock = threading.Lock()
        self._db = self._connect()
        if path is not None:
            warn_unless_read(self.path)

    def _connect(self) -> sqlite3.Connection:
        """Open the file (made if needed), noting which file it is (:meth:`_current`)."""
        _check_kind(self.path)
        try:
            db = _sqlite.connect(self.path, _SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise ConfigurationError(f"{str(self.path)!r} is not an opt-out list: {exc}") from exc
        self._identity = _identity(self.path)
        return db

    @contextlib.contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """A write transaction on the file now at ``path``. Committed, the write-ahead log
        is folded into the file and emptied: a copy of the file taken now (a backup) holds
        every change, and a file moved in over it later is never read through this file's
        log by another connection still open on it."""
        with self._lock:
            self._current()
        with _sqlite.transaction(self._db, self._lock) as db:
            yield db
        with self._lock:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def _current(self) -> sqlite3.Connection:
        """The connection to the file now at ``path`` (call with the lock held): a file
        replaced since it was opened (another inode: restored from a backup, copied over,
        moved in) is opened again, never read from the old one."""
        now = _identity(self.path)
        if now is not None and now != self._identity:
            self._db.close()
            self._db = self._connect()
        return self._db

    def __repr__(self) -> str:
        # Shown in tracebacks with their locals too: a constructor that raised, or a closed
        # file, still has a repr (and never a raw sqlite3 error).
        if "_db" not in vars(self):
            return "<OptOuts (not opened)>"
        base_url, login = self.gateway
        try:
            count = f"numbers={len(self)}"
        except sqlite3.ProgrammingError:  # closed
            count = "closed"
        return f"<OptOuts {base_url} login={login!r} {count}>"

    def __enter__(self) -> OptOuts:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the file (every change is already on disk)."""
        with self._lock:
            self._db.close()

    # -- reading -------------------------------------------------------------------------------

    def __len__(self) -> int:
        sql = "SELECT COUNT(*) FROM optouts WHERE base_url = ? AND api_login = ?"
        return int(self._rows(sql)[0][0])

    def __contains__(self, number: object) -> bool:
        """Whether ``number`` is listed, read as preflight reads a recipient (a national
        number in the default region, an int, a numpy integer): ``"06 12 34 56 78" in
        optouts`` is True when ``+33612345678`` is listed; a number given exactly as a
        callback gave it (kept so when it is not valid, ``+3361234``) is found as given; a
        float never is (no float is a phone number: ``add`` refuses one)."""
        from smskit.rules.phonecheck import to_e164
        from smskit.rules.recipients import is_float_number

        if is_float_number(number):
            return False  # never a phone number (rules.recipients.RULE_FLOAT): never listed
        e164 = to_e164(number, DEFAULT_REGION) or (number if isinstance(number, str) else None)
        return e164 is not None and e164 in self.numbers()

    def _rows(self, sql: str, gateway: Gateway | None = None) -> list[tuple[Any, ...]]:
        """The rows of ``sql``, whose parameters are the account (``gateway``: another one in
        the same file, as :func:`listed_numbers` reads it)."""
        with self._lock:
            return self._current().execute(sql, gateway or self.gateway).fetchall()

    def version(self) -> int:
        """A number that changes whenever the list does (its latest event)."""
        return self._version_of(self.gateway)

    def numbers(self) -> frozenset[str]:
        """The numbers listed now (E.164)."""
        return self._numbers_of(self.gateway)

    def _version_of(self, gateway: Gateway) -> int:
        sql = "SELECT COALESCE(MAX(id), 0) FROM optout_events WHERE base_url = ? AND api_login = ?"
        return int(self._rows(sql, gateway)[0][0])

    def _numbers_of(self, gateway: Gateway) -> frozenset[str]:
        sql = "SELECT phone_number FROM optouts WHERE base_url = ? AND api_login = ?"
        return frozenset(number for (number,) in self._rows(sql, gateway))

    def to_frame(self, time_zone: str | None = None) -> pandas.DataFrame:
        """One row per number listed, first opt-out first: :data:`FRAME_COLUMNS`
        (``opted_out_at`` in ``time_zone``, default the account's; ``source`` a categorical
        of :data:`SOURCES`; ``reference`` the callback it came from)."""
        rows = self._rows(
            "SELECT phone_number, at, source, reference, note FROM optouts "
            "WHERE base_url = ? AND api_login = ? ORDER BY at, phone_number"
        )
        return _frame(rows, list(FRAME_COLUMNS), ("opted_out_at",), time_zone)

    def history(self, time_zone: str | None = None) -> pandas.DataFrame:
        """Every event of the list, in the order recorded: :data:`HISTORY_COLUMNS` (``at``:
        when the opt-out was asked or the change made; ``via``: ``inbox``, ``hand`` or
        ``csv:<file name>``)."""
        rows = self._rows(
            "SELECT phone_number, action, source, reference, note, at, recorded_at, via "
            "FROM optout_events WHERE base_url = ? AND api_login = ? ORDER BY id"
        )
        frame = _frame(rows, list(HISTORY_COLUMNS), ("at", "recorded_at"), time_zone)
        import pandas as pd

        frame["action"] = pd.Categorical(frame["action"], categories=list(ACTIONS))
        return frame

    # -- changes -------------------------------------------------------------------------------

    def record(self, events: Iterable[OptOutEvent]) -> int:
        """Take the opt-outs callbacks brought, each once (by ``source`` and ``reference``);
        returns how many numbers were added. A number the gateway gave that is not a valid
        E.164 number is recorded as given (listed, so never sent to: it cannot match a
        recipient, and ``history()`` shows it)."""
        now = micros(datetime.now(UTC))
        added = 0
        with self._writing() as db:
            for event in events:
                number = listed_form(event.number)
                if number is None:
                    continue
                action = self._action_for(db, number, event.at_us)
                cursor = db.execute(
                    "INSERT OR IGNORE INTO optout_events (base_url, api_login, phone_number, "
                    "action, source, reference, note, at, recorded_at, via) "
                    "VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, 'inbox')",
                    (*self.gateway, number, action, event.source, event.reference,
                     event.at_us, now),
                )  # fmt: skip
                if cursor.rowcount == 1 and action == "added":
                    self._list(db, number, event.at_us, event.source, event.reference, None)
                    added += 1
        return added

    def _action_for(self, db: sqlite3.Connection, number: str, at_us: int) -> str:
        """What a callback asking at ``at_us`` does to ``number``: add it, nothing (already
        listed), or nothing because a person removed it after it was asked."""
        listed = db.execute(
            "SELECT 1 FROM optouts WHERE base_url = ? AND api_login = ? AND phone_number = ?",
            (*self.gateway, number),
        ).fetchone()
        if listed:
            return "already_listed"
        removed = db.execute(
            "SELECT MAX(at) FROM optout_events WHERE base_url = ? AND api_login = ? AND "
            "phone_number = ? AND action = 'removed'",
            (*self.gateway, number),
        ).fetchone()[0]
        return "kept_removed" if removed is not None and removed >= at_us else "added"

    def _list(
        self,
        db: sqlite3.Connection,
        number: str,
        at_us: int,
        source: str,
        reference: str | None,
        note: str | None,
    ) -> bool:
        """Put ``number`` on the list; False when it is on it already."""
        cursor = db.execute(
            "INSERT OR IGNORE INTO optouts VALUES (?, ?, ?, ?, ?, ?, ?)",
            (*self.gateway, number, at_us, source, reference, note),
        )
        return cursor.rowcount == 1

    def absorb(self, inbox: HoldsOptOuts) -> int:
        """Take every opt-out ``inbox`` holds (STOP callbacks, replies that opt out), each
        once however often absorbed; returns how many numbers were added. An Inbox made with
        ``account=`` does this as it stores them. An inbox whose file records another
        account's callbacks (``inbox.account``) is refused naming both: its STOPs were
        asked of that account, not of this one."""
        kept = inbox.account
        if kept is not None and account_key(kept) != self.gateway:
            raise ConfigurationError(
                f"the inbox holds the callbacks of {kept[0]} as {kept[1]!r}, not of "
                f"{self.gateway[0]} as {self.gateway[1]!r}: its opt-outs belong on that account's "
                "list, not on this one"
            )
        return self.record(inbox.opt_out_events())

    def add(
        self,
        numbers: Iterable[Any] | str,
        *,
        note: str | None = None,
        default_region: str | None = DEFAULT_REGION,
    ) -> int:
        """List ``numbers`` by hand (read like recipients: national ones in
        ``default_region``); returns how many were not listed before. A value that is not a
        valid number refuses the whole call, naming its position; nothing is written."""
        return self._change(_read_numbers(numbers, default_region), "added", note, "hand")

    def remove(
        self,
        numbers: Iterable[Any] | str,
        *,
        note: str | None = None,
        default_region: str | None = DEFAULT_REGION,
    ) -> int:
        """Unlist ``numbers`` (undo a mistaken opt-out); returns how many were listed. The
        removal stays in :meth:`history` with ``note``; a callback dated before it does not
        list the number again, a later one does."""
        return self._change(_read_numbers(numbers, default_region), "removed", note, "hand")

    def _change(
        self,
        numbers: Sequence[tuple[str, int | None, str, str | None, str | None]] | Sequence[str],
        action: str,
        note: str | None,
        via: str,
    ) -> int:
        if note is not None:
            check_str(note, "note")
        now = micros(datetime.now(UTC))
        changed = 0
        with self._writing() as db:
            for item in numbers:
                if isinstance(item, str):
                    number, at, source, reference, why = item, now, "manual", None, note
                else:
                    number, at_given, source, reference, why = item
                    at = now if at_given is None else at_given
                    why = why if why is not None else note
                if action == "added":
                    done = self._list(db, number, at, source, reference, why)
                else:
                    done = (
                        db.execute(
                            "DELETE FROM optouts WHERE base_url = ? AND api_login = ? AND "
                            "phone_number = ?",
                            (*self.gateway, number),
                        ).rowcount
                        == 1
                    )
                    at = now  # a removal happens now, whatever it undoes
                if done:
                    changed += 1
                    db.execute(
                        "INSERT INTO optout_events (base_url, api_login, phone_number, action, "
                        "source, reference, note, at, recorded_at, via) VALUES "
                        "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (*self.gateway, number, action, source, reference, why, at, now, via),
                    )
        return changed

    # -- CSV -----------------------------------------------------------------------------------

    def to_csv(self, path: str | Path) -> int:
        """Write the list to ``path`` as CSV (:data:`CSV_COLUMNS`, dates ISO 8601 in UTC);
        returns the rows written. :meth:`import_csv` reads it back as the same list; a list
        holding a NUL character (which no CSV reader takes) is refused, nothing written, and
        so is a ``path`` that is the list's own file or another SQLite database."""
        target = as_file_path(path, "path")
        check_directory_of(target)
        check_not_replacing(target, "path", reads=(self.path,))
        frame = self.to_frame("UTC")
        frame["opted_out_at"] = frame["opted_out_at"].map(lambda t: t.isoformat())
        for column in ("phone_number", "reference", "note"):  # what import_csv could not read
            nul = frame[column].map(lambda text: isinstance(text, str) and "\x00" in text)
            if nul.any():
                raise ValidationError(
                    f"optouts.{column}",
                    "holds a NUL character, which a CSV file cannot carry: nothing written",
                    position=int(nul.to_numpy().argmax()),
                    value=frame[column][nul].iloc[0],
                )
        # Every cell quoted: pandas leaves a lone carriage return unquoted, which a reader
        # takes for the end of the row.
        frame.to_csv(target, index=False, quoting=csv.QUOTE_ALL)
        return len(frame)

    def import_csv(
        self,
        path: str | Path,
        *,
        note: str | None = None,
        default_region: str | None = DEFAULT_REGION,
    ) -> int:
        """List every number of the CSV file at ``path`` (a ``phone_number`` column; the
        other :data:`CSV_COLUMNS` kept when present, as :meth:`to_csv` writes them); returns
        how many were not listed before. A row smskit cannot read exactly (a number that is
        not valid, a date without a time zone, an unknown source) refuses the whole file,
        naming the row and the rule; nothing is written."""
        source = as_file_path(path, "path")
        rows = read_optouts_csv(source, default_region)
        return self._change(rows, "added", note, f"csv:{source.name}")


def _read_numbers(numbers: Iterable[Any] | str, default_region: str | None) -> list[str]:
    """``numbers`` in E.164 form, or a ValidationError naming the first unreadable one."""
    from smskit.rules.phonecheck import classify
    from smskit.rules.recipients import names_file, refuse_floats

    if isinstance(numbers, str | Number):  # one number (an int, a numpy integer too)
        values: list[Any] = [numbers]
    elif isinstance(numbers, Iterable) and not isinstance(numbers, Mapping):
        values = list(numbers)
    else:
        raise ValidationError("numbers", "must be a number or a list of numbers", value=numbers)
    refuse_floats(values, "numbers")  # a float is never a phone number, as for recipients
    read: list[str] = []
    for position, value in enumerate(values):
        check = classify(value, default_region)
        if check.e164 is None and isinstance(value, str) and names_file(value):
            fact = "a string is one phone number, and this one names a file"
            refusal = ValidationError(
                "numbers",
                f"{fact}: to read a CSV file of opt-outs, use import_csv({value!r})",
                value=value,
                position=position,
            )
            raise advised(refusal, fact, "optouts_import")
        if check.e164 is None:
            raise ValidationError(
                "numbers",
                f"not a valid phone number ({check.reason})",
                value=value,
                position=position,
            )
        read.append(check.e164)
    return list(dict.fromkeys(read))


def _frame(
    rows: list[tuple[Any, ...]], columns: list[str], times: tuple[str, ...], time_zone: str | None
) -> pandas.DataFrame:
    import pandas as pd

    from smskit.rules.timezone import account_time_zone

    zone = account_time_zone(time_zone)
    frame = pd.DataFrame.from_records(rows, columns=columns)
    for column in times:
        frame[column] = stored_times(frame[column], zone)
    frame["source"] = pd.Categorical(frame["source"], categories=list(SOURCES))
    for column in ("phone_number", "reference", "note"):
        frame[column] = frame[column].astype(object)
    return frame


# -- what preflight reads ----------------------------------------------------------------------

_open: dict[Path, OptOuts] = {}  # one connection per file, for the lists preflight reads
# numbers by the file's identity and the list's version
_known: dict[tuple[Path, Gateway], tuple[tuple[object, int], frozenset[str]]] = {}
_open_lock = threading.Lock()


def listed_numbers(
    account: Account | tuple[str, str], path: str | Path | None = None
) -> tuple[int, frozenset[str]]:
    """The version of ``account``'s opt-out list (see :meth:`OptOuts.version`) and the
    numbers on it, read once per version (preflight asks at every run: the Composer at
    every keystroke). Reading creates no file: without one, the list is empty."""
    account = held(account)
    gateway = account_key(account)
    where = Path(path) if path is not None else optouts_path()
    with _open_lock:
        store = _open.get(where)
        if not where.is_file():
            if store is not None:  # the list was deleted since: no list now
                _open.pop(where).close()
            if os.path.lexists(where):  # a directory, a dangling link: not "no list yet"
                raise ConfigurationError(
                    f"{str(where)!r} is not an opt-out list (not a file): the list cannot "
                    "be read, so no preflight could exclude its numbers"
                )
            return 0, frozenset()
        if store is None:
            store = _open[where] = OptOuts(gateway, path=where)
        version = store._version_of(gateway)  # reopens a file replaced since (another inode)
        known = _known.get((where, gateway))
        if known is not None and known[0] == (store._identity, version):
            return version, known[1]
        numbers = store._numbers_of(gateway)
        _known[(where, gateway)] = ((store._identity, version), numbers)
        return version, numbers
