"""The ledger of every campaign: one row per journal, read from the journals and the
callbacks' store (:func:`history`).

A row's journal columns come from one query per journal over its chunk records and
``meta`` (never its recipients), so a Dask campaign of millions of recipients reads as fast as
a small one, and both kinds of journal read alike. A file that cannot be read as a campaign's
journal (another kind of file, another journal format, a damaged file, a journal never
written) is never left out: it is a row whose ``problem`` says why (its other columns
missing), and :func:`history` warns once listing them (docs/ledger.md).
"""

from __future__ import annotations

import os
import sqlite3
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeVar

from smskit._paths import campaigns_dir, replies_path
from smskit.campaigns.analysis.outcomes import (
    Callbacks,
    SendFacts,
    no_hlr,
    outcomes_frame,
    sent_recipients,
)
from smskit.campaigns.analysis.results import UNSENT_STATES, CampaignResult
from smskit.campaigns.planning.holdout import HELD_OUT
from smskit.campaigns.sending.journal import DONE_STATES, Journal
from smskit.campaigns.sending.lease import LOCK_SUFFIX
from smskit.errors import ConfigurationError, ValidationError
from smskit.rules import spec as _spec
from smskit.rules.content import DEFAULT_PURPOSE
from smskit.rules.files import as_file_path
from smskit.rules.timezone import account_time_zone

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "LEDGER_COLUMNS",
    "JournalRow",
    "history",
    "journal_files",
    "outcome_counts",
    "read_callbacks",
    "read_journal",
]

# Column -> dtype; "started" is datetime64[ns, <time zone>], "purpose" a categorical of the
# spec's purposes (see ledger_dtypes).
LEDGER_COLUMNS: Final[Mapping[str, str]] = {
    "name": "string",
    "experiment": "string",
    "arm": "string",
    "started": "datetime64[ns, UTC]",
    "sender": "string",
    "purpose": "category",
    "recipients": "Int64",
    "sent": "Int64",
    "held_out": "Int64",
    "sms": "Int64",
    "cost": "float64",
    "cost_estimated": "boolean",
    "reported": "Int64",
    "delivered": "Int64",
    "replies": "Int64",
    "opt_outs": "Int64",
    "clicked": "Int64",
    "complete": "boolean",
    "streamed": "boolean",
    "gateway": "string",
    "journal": "string",
    "problem": "string",
}
# Files smskit keeps beside journals that are not journals: SQLite's own (-wal, -shm,
# -journal), the lease's lock file and an experiment's record
# (smskit.campaigns.analysis.experiment_record, written whole through a .partial file).
_NOT_JOURNALS: Final = (
    "-wal",
    "-shm",
    "-journal",
    LOCK_SUFFIX,
    ".experiment.json",
    ".experiment.json.partial",
)

T = TypeVar("T")


@dataclass(frozen=True)
class JournalRow:
    """What one journal says of its campaign, or why it could not be read (``problem``)."""

    journal: Path
    name: str | None = None
    experiment: str | None = None
    arm: str | None = None
    started: float | None = None  # seconds since the epoch (the journal's created_at)
    sender: str | None = None
    purpose: str | None = None
    recipients: int | None = None
    sent: int | None = None
    held_out: int | None = None  # the holdout: planned out of the send, never sent
    sms: int | None = None
    cost: float | None = None
    cost_estimated: bool | None = None
    reported: int | None = None  # these four: from the callbacks' store, when read
    delivered: int | None = None
    replies: int | None = None
    opt_outs: int | None = None
    clicked: int | None = None  # recipients with a human click on a tracked link
    complete: bool | None = None
    streamed: bool | None = None
    gateway: str | None = None
    problem: str | None = None


def journal_files(journals: Any = None) -> list[Path]:
    """The journal files ``journals`` names: None for every file of the campaigns directory
    (:func:`smskit._paths.campaigns_dir`); a directory for every file in it (SQLite's
    ``-wal``/``-shm``/``-journal`` files, a lease's ``-lease`` lock file, an experiment's
    ``.experiment.json`` record and sub-directories such as a Dask campaign's ``.parts``
    aside); a file path; or a list of those. A path that does not exist is kept: its row
    says so."""
    if journals is None:
        return _in_directory(campaigns_dir())
    if isinstance(journals, str | os.PathLike):
        return _expand(as_file_path(journals, "journals"))
    if isinstance(journals, Iterable) and not isinstance(journals, bytes | Mapping):
        paths = (as_file_path(value, f"journals[{at}]") for at, value in enumerate(journals))
        return [found for path in paths for found in _expand(path)]
    raise ValidationError(
        "journals", "must be a directory, a journal's path, or a list of them", value=journals
    )


def _expand(path: Path) -> list[Path]:
    return _in_directory(path) if path.is_dir() else [path]


def _in_directory(directory: Path) -> list[Path]:
    return sorted(
        path
        for path in directory.iterdir()
        if path.is_file() and not path.name.endswith(_NOT_JOURNALS)
    )


def read_journal(path: Path) -> JournalRow:
    """One journal's row, read without its recipients and without changing the file; a file
    that is not a readable campaign journal gives a row with ``problem`` set."""
    if not path.exists():
        return JournalRow(path, problem="the file does not exist")
    if path.is_file() and path.stat().st_size == 0:
        return JournalRow(path, problem="an empty file: no campaign was ever written to it")
    try:
        with Journal(path) as book:
            return _row(book)
    except ValidationError as exc:  # a named pipe, a device: the rule, the row names the file
        return JournalRow(path, problem=exc.rule)
    except (ConfigurationError, sqlite3.Error, OSError, ValueError) as exc:
        return JournalRow(path, problem=str(exc) or type(exc).__name__)


def _row(book: Journal) -> JournalRow:
    """The row of an open journal (``meta`` read as written by a pandas or a Dask send)."""
    record = book.held()
    where = f"journal {str(book.path)!r}"
    options = record.options
    if options is None:
        raise ValueError(f"{where}: its meta has no send options")
    outcomes = book.chunk_outcomes()
    # (idx, start, stop, recipients, request_id, state, attempts, ticket, cost,
    #  cost_estimated, sms, contacts, error, retryable)
    accepted = [o for o in outcomes if o[5] in DONE_STATES]
    reached = sum(o[2] - o[1] for o in outcomes)
    to_send = record.to_send
    unsettled = any(o[3] and o[5] in UNSENT_STATES for o in outcomes)
    return JournalRow(
        journal=book.path,
        name=_required(record.name, "name", where),
        experiment=record.experiment_name,
        arm=record.arm,
        started=_required(record.created_at, "created_at", where),
        sender=_required(record.sender, "sender", where),
        purpose=options.get("purpose") or DEFAULT_PURPOSE,
        recipients=_required(record.recipients, "recipients", where),
        # What the gateway kept: its number_of_contacts when it said it, else the chunk.
        sent=sum(o[3] if o[11] is None else min(o[11], o[3]) for o in accepted),
        held_out=book.excluded_count(HELD_OUT),
        sms=sum(o[10] or 0 for o in outcomes),
        cost=round(sum(o[8] or 0.0 for o in outcomes), 6),
        cost_estimated=any(bool(o[9]) for o in outcomes),
        complete=not unsettled and (to_send is None or reached >= to_send),
        streamed=record.kind == "streamed",
        gateway=None if record.gateway is None else record.gateway.base_url,
    )


def _required(value: T | None, key: str, where: str) -> T:
    """A value every ledger row shows; a journal without it is a row with a problem."""
    if value is None:
        raise ValueError(f"{where}: its meta has no {key!r}")
    return value


def read_callbacks(inbox: Any) -> Callbacks | None:
    """What the callbacks' store holds, read once for every campaign: ``inbox`` (an
    :class:`smskit.Inbox` or its file, refused when there is none), or None for the store
    ``smskit replies serve`` keeps when it exists (None when it does not, or is an empty
    file never served: nothing known, and the file left as it is)."""
    if inbox is None and not (replies_path().is_file() and replies_path().stat().st_size):
        return None
    return Callbacks.read(inbox)


def outcome_counts(row: JournalRow, callbacks: Callbacks) -> JournalRow:
    """``row`` with its campaign's reported, delivered, replies and opt-out counts, counted
    from :func:`smskit.campaigns.analysis.outcomes.outcomes_frame` (the one join of the callbacks to
    a journal's recipients); a journal that cannot be read now gets its ``problem``."""
    import dataclasses

    if row.problem is not None:
        return row
    try:
        with Journal(row.journal) as book:
            result = CampaignResult.from_journal(book)
            facts = SendFacts.read(book, costs=False)
    except (ConfigurationError, sqlite3.Error, OSError, ValueError) as exc:
        return dataclasses.replace(row, problem=str(exc) or type(exc).__name__)
    if not callbacks.serves(facts.gateway):  # another account's inbox: nothing known here
        return row
    sent = sent_recipients(result.to_frame())
    frame = outcomes_frame(sent, facts, callbacks, no_hlr())
    return dataclasses.replace(
        row,
        reported=int(frame["final"].sum()),
        delivered=int((frame["status"] == "DELIVERED").sum()),
        replies=int(frame["replied"].sum()),
        opt_outs=int(frame["opt_out"].sum()),
        clicked=int(frame["clicked"].sum()),
    )


def ledger_dtypes(time_zone: str) -> dict[str, Any]:
    """The ledger's columns and dtypes, times in ``time_zone``."""
    import pandas as pd

    return {
        **LEDGER_COLUMNS,
        "started": pd.DatetimeTZDtype("ns", time_zone),
        "purpose": pd.CategoricalDtype(list(_spec.PURPOSES)),
    }


def ledger_frame(rows: Iterable[JournalRow], time_zone: str) -> pd.DataFrame:
    """The rows as the ledger: oldest campaign first, journals that could not be read last."""
    import pandas as pd

    records = [
        {name: getattr(row, name, None) for name in LEDGER_COLUMNS} for row in rows
    ]  # delivered, replies, opt_outs: filled by history() when the store is read
    frame = pd.DataFrame.from_records(records, columns=list(LEDGER_COLUMNS))
    frame["journal"] = frame["journal"].map(lambda p: None if p is None else str(p))
    # created_at is time.time(): kept to the microsecond (a float's last digits are noise).
    micros = (frame["started"].astype("float64") * 1e6).round()
    started = pd.to_datetime(micros, unit="us", utc=True)
    frame["started"] = started.dt.tz_convert(time_zone)
    frame = frame.astype(ledger_dtypes(time_zone))
    return frame.sort_values(["started", "journal"], na_position="last", ignore_index=True)


def history(
    journals: Any = None, *, inbox: Any = None, time_zone: str | None = None
) -> pd.DataFrame:
    """The ledger: one row per journaled campaign, oldest first.

    ``journals``: the journals to read, a directory (every file in it), a journal's path, or
    a list of them; default the campaigns directory both ``smskit.Campaign`` and
    ``smskit.dask.Campaign`` journal into. ``inbox``: the callbacks' store (an
    :class:`smskit.Inbox` or its file); default the one ``smskit replies serve`` keeps, when
    it exists (else the four outcome counts are missing). Times in ``time_zone`` (default:
    the account's).

    Columns (:data:`LEDGER_COLUMNS`; docs/ledger.md): ``name``; ``experiment`` and ``arm``
    (an arm of a :class:`smskit.Experiment`); ``started`` (when the journal was written,
    just before the first request); ``sender``; ``purpose`` (``wholesale``, the gateway's
    default, when none was given); ``recipients`` (rows given, those kept out included);
    ``sent`` (recipients the gateway accepted); ``held_out`` (the holdout, never sent: a
    campaign's or an experiment's arm's ``holdout=``); ``sms`` and ``cost`` (the gateway's answers,
    in the account's currency; ``cost_estimated``); from the callbacks' store, as
    :meth:`CampaignResult.outcomes` joins them, the recipients whose delivery report is
    final (``reported``), ``delivered``, who replied (``replies``) and who opted out
    (``opt_outs``), who clicked a tracked link (``clicked``, people only: docs/links.md);
    ``complete`` (nothing left to send); ``streamed`` (a Dask campaign's);
    ``gateway``; ``journal``; and ``problem``: why a file could not be read as a campaign's
    journal (its other columns missing). Such files are also named in one ``UserWarning``:
    never dropped silently.
    """
    zone = account_time_zone(time_zone)
    rows = [read_journal(path) for path in journal_files(journals)]
    callbacks = read_callbacks(inbox)
    if callbacks is not None:
        rows = [outcome_counts(row, callbacks) for row in rows]
    unread = [row for row in rows if row.problem is not None]
    if unread:
        shown = "; ".join(f"{row.journal}: {row.problem}" for row in unread)
        warnings.warn(
            f"{len(unread)} file(s) could not be read as campaign journals (rows with a "
            f"problem): {shown}",
            UserWarning,
            stacklevel=2,
        )
    return ledger_frame(rows, zone)
