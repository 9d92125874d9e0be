"""The campaign journal: one SQLite file that makes a bulk send exactly-once and resumable.

It holds the whole plan before the first request leaves: every recipient to send (number and
field values, column by column, in order) and every chunk as a range of that plan. A chunk's
payload and ``request_id`` are derived from those, deterministically, so a resume (after a
crash, a kernel restart, a lost answer) needs nothing but this file and repeats the very same
request: the gateway's duplicate protection turns a second delivery into "already accepted".

A chunk moves ``pending -> in_flight -> sent | already_accepted | failed``. ``in_flight``
(with the request_id) is committed *before* the request leaves, the outcome right after it
returns; every change is also appended to the ``log`` table.

The file is in WAL mode with ``synchronous=NORMAL`` (chosen, measured: a commit is a write
to the WAL and no fsync; SQLite fsyncs at checkpoints only): a killed process (SIGKILL, a
kernel restart) loses nothing committed; a power cut may lose the last commits, which only
makes a resume repeat requests the gateway then answers as duplicates (within its 24 h
window). The outcome's commit costs about 4 % of a send's client CPU (docs/benchmarks.md);
it stays its own transaction, so an answered chunk is never left ``in_flight`` waiting for
the next chunk's.

One sender per campaign: a runner opens the journal with ``lease=`` (seconds it may wait)
and holds an exclusive lease: the OS lock on a ``-lease`` file beside it, its owner one row
of table ``lease`` (see :mod:`smskit.campaigns.sending.lease`). Every ``in_flight`` is
written only under a lease still held, so a runner whose lease was taken over sends nothing
more. Files are created 0600 (by :func:`smskit._sqlite.connect`; SQLite gives the WAL files
the same mode).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from smskit import _sqlite
from smskit.campaigns.sending.journal_file import connect_journal
from smskit.campaigns.sending.lease import LEASE_SCHEMA, POLL_S, Lease, lease_owner
from smskit.campaigns.sending.record import CampaignRecord
from smskit.errors import CampaignBusy, ConfigurationError
from smskit.rules.contacts import ContactChunk, chunk_contacts
from smskit.rules.filekind import check_regular_file
from smskit.rules.files import as_file_path
from smskit.rules.missing import is_missing
from smskit.rules.ranges import checked_seconds

__all__ = ["CHUNK_STATES", "Chunk", "Journal", "column_json", "derive_request_id", "open_leased"]

FORMAT_VERSION: Final = 2
CHUNK_STATES: Final = ("pending", "in_flight", "sent", "already_accepted", "failed")
DONE_STATES: Final = ("sent", "already_accepted")
State = Literal["pending", "in_flight", "sent", "already_accepted", "failed"]
FIELD_PREFIX: Final = "field:"

# The log's rows (chunk NULL) saying how a run of the sender ended.
RUN_STOPPED: Final = "run_stopped"
RUN_ENDED: Final = "run_ended"

SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS plan (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS chunks (
    idx INTEGER PRIMARY KEY,
    start INTEGER NOT NULL,
    stop INTEGER NOT NULL,
    keep TEXT,
    request_id TEXT UNIQUE,
    state TEXT NOT NULL CHECK (state IN
        ('pending', 'in_flight', 'sent', 'already_accepted', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    ticket TEXT,
    cost REAL,
    cost_estimated INTEGER NOT NULL DEFAULT 0,
    sms INTEGER,
    contacts INTEGER,
    error TEXT,
    retryable INTEGER NOT NULL DEFAULT 0,
    first_attempt_at REAL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS excluded (
    row INTEGER PRIMARY KEY, input TEXT, phone_number TEXT, issue TEXT NOT NULL, detail TEXT);
CREATE TABLE IF NOT EXISTS rejected (
    row INTEGER PRIMARY KEY, chunk INTEGER NOT NULL, phone_number TEXT, error TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS log (
    id INTEGER PRIMARY KEY, chunk INTEGER, at REAL NOT NULL, state TEXT NOT NULL,
    request_id TEXT, detail TEXT);
CREATE TABLE IF NOT EXISTS streamed (idx INTEGER PRIMARY KEY, plan TEXT NOT NULL);
-- The gateway's time of a chunk's accepting answer (HTTP Date) beside ours; none before.
CREATE TABLE IF NOT EXISTS answered (chunk INTEGER PRIMARY KEY, gateway_at REAL NOT NULL,
    local_at REAL NOT NULL);
"""


def plan_contacts(columns: Mapping[str, Sequence[Any]], positions: Iterable[int]) -> ContactChunk:
    """The Contact objects at ``positions`` of plan ``columns`` (``phone_number`` and
    ``field:<name>`` lists): the number and each non-empty field."""
    fields = {name[len(FIELD_PREFIX) :]: column for name, column in columns.items()
              if name.startswith(FIELD_PREFIX)}  # fmt: skip
    return chunk_contacts(columns["phone_number"], fields, positions)


def derive_request_id(campaign_id: str, index: int, payload_json: str | bytes) -> str:
    """A chunk's request_id: 32 hex digits of BLAKE2b(campaign id, index, payload JSON).

    The payload is the canonical JSON of the chunk's Contact objects, the bytes its request
    posts as ``recipients`` (:attr:`ContactChunk.encoded`); text is taken as its UTF-8.
    """
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{campaign_id}:{index}:".encode())
    digest.update(payload_json if isinstance(payload_json, bytes) else payload_json.encode())
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class Chunk:
    """One journal row: which planned recipients a chunk sends and where it stands.

    ``positions`` index the plan (a ``range`` when the chunk is a whole range of it, a tuple
    once re-keyed); ``request_id`` is None until the first attempt derives it.
    """

    idx: int
    request_id: str | None
    state: State
    positions: Sequence[int]
    rows: tuple[int, ...]
    segments: tuple[int, ...]
    attempts: int = 0
    ticket: str | None = None
    cost: float | None = None
    cost_estimated: bool = False
    sms: int | None = None
    contacts: int | None = None
    error: str | None = None
    retryable: bool = False
    first_attempt_at: float | None = None

    @property
    def size(self) -> int:
        """Number of recipients in the chunk."""
        return len(self.positions)

    @property
    def dropped(self) -> int:
        """Recipients the gateway said it did not keep (``number_of_contacts`` below the
        chunk's size, spec convention 3); the answer does not say which ones."""
        if self.contacts is None or self.state not in DONE_STATES:
            return 0
        return max(0, self.size - self.contacts)


# The recipients a chunk row still holds (the gateway's refusals taken out), in SQL.
_SIZE: Final = "CASE WHEN keep IS NULL THEN stop - start ELSE json_array_length(keep) END"
_EXCLUDED: Final = "SELECT row, input, phone_number, issue, detail FROM excluded"
_CHUNK_COLUMNS: Final = (
    "idx, start, stop, keep, request_id, state, attempts, ticket, cost, cost_estimated, sms, "
    "contacts, error, retryable, first_attempt_at, streamed.plan "
    "FROM chunks LEFT JOIN streamed USING (idx)"
)


class Journal:
    """An open journal file; every writing method commits before it returns (thread-safe).

    ``lease``: None to read or cache only; seconds to wait for the exclusive lease a sender
    needs (0: refuse at once with :class:`smskit.CampaignBusy` when another runner holds it).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        mode: Literal["open", "create", "any"] = "open",
        lease: float | None = None,
    ) -> None:
        self.path = as_file_path(path, "journal")
        check_regular_file(self.path, "journal")  # a pipe is neither missing nor empty
        exists = self.path.exists() and self.path.stat().st_size > 0
        if mode == "open" and not exists:
            empty = self.path.is_file()  # an empty file is there: it is no journal, not missing
            raise ConfigurationError(
                f"{str(self.path)!r} is an empty file, not a campaign's journal"
                if empty
                else f"journal {str(self.path)!r} does not exist"
            )
        if mode == "create" and exists:
            raise ConfigurationError(f"journal {str(self.path)!r} already exists")
        self._lock = threading.Lock()
        self._plan: dict[str, list[Any]] | None = None
        self._campaign_id: str | None = None
        self._lease: Lease | None = None
        self._db = connect_journal(
            self.path, SCHEMA + LEASE_SCHEMA, FORMAT_VERSION, campaign=mode == "open"
        )
        if lease is not None:
            try:
                self.acquire(wait=lease)
            except BaseException:
                self._db.close()
                raise

    def __repr__(self) -> str:
        return f"Journal({str(self.path)!r})"

    def close(self) -> None:
        """Give the lease back (if held) and close the file (the state is already on disk)."""
        self.release()
        with self._lock:
            self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _tx(self) -> AbstractContextManager[sqlite3.Connection]:
        return _sqlite.transaction(self._db, self._lock)

    @contextmanager
    def _leased_tx(self, unleased: str) -> Iterator[sqlite3.Connection]:
        """A write transaction only under this journal's lease still held: a journal opened
        without it is a ConfigurationError ending with ``unleased``; a runner whose lease was
        taken over gets :class:`smskit.CampaignBusy` and changes nothing."""
        with self._tx() as db:
            if self._lease is None:
                raise ConfigurationError(
                    f"journal {str(self.path)!r} was opened without its lease: {unleased}"
                )
            self._lease.check(db)
            yield db

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    # -- the lease -------------------------------------------------------------------------

    @property
    def holds_lease(self) -> bool:
        """Whether this journal object holds the campaign's lease (until closed)."""
        return self._lease is not None

    def owner(self) -> dict[str, Any] | None:
        """The lease holder (``host``, ``pid``, ``since``), or None (see
        :func:`~smskit.campaigns.sending.lease.lease_owner`)."""
        with self._lock:
            return lease_owner(self._db)

    def acquire(self, *, wait: float = 0.0) -> None:
        """Take the exclusive lease, waiting up to ``wait`` seconds for a live owner to end.

        Raises :class:`smskit.CampaignBusy` naming the owner when it is still held.
        """
        if self._lease is None:
            self._lease = Lease.acquire(self._db, self._lock, str(self.path), wait)

    def release(self) -> None:
        """Give the lease back (nothing when not held)."""
        lease, self._lease = self._lease, None
        if lease is not None:
            lease.release()

    # -- meta ------------------------------------------------------------------------------

    def meta(self) -> dict[str, Any]:
        """The ``meta`` table as stored (key -> JSON value): the raw rows
        :meth:`record` decodes. Read it only to look at the file itself."""
        return {key: json.loads(value) for key, value in self._read("SELECT key, value FROM meta")}

    def record(self) -> CampaignRecord | None:
        """The campaign this journal holds (None before :meth:`initialise`); a ValueError
        names the journal and the key of a value of the wrong type."""
        meta = self.meta()
        if not meta:
            return None
        try:
            return CampaignRecord.from_meta(meta)
        except ValueError as exc:
            raise ValueError(f"journal {str(self.path)!r}: {exc}") from None

    def held(self) -> CampaignRecord:
        """:meth:`record`, for a journal that must hold a campaign (ConfigurationError if
        it holds none)."""
        record = self.record()
        if record is None:
            raise ConfigurationError(f"journal {str(self.path)!r} holds no campaign")
        return record

    @property
    def campaign_id(self) -> str:
        """The campaign id every request_id derives from."""
        if self._campaign_id is None:
            self._campaign_id = self.held().campaign_id
        return self._campaign_id

    # -- a new campaign ----------------------------------------------------------------------

    def initialise(
        self,
        record: CampaignRecord | Mapping[str, Any],
        plan: Mapping[str, Sequence[Any]],
        bounds: Iterable[tuple[int, int]],
        excluded: Iterable[tuple[int, Any, Any, str, Any]],
    ) -> None:
        """Write a whole campaign in one transaction: a crash leaves all of it or nothing.

        ``record``: the campaign (a mapping is read as a journal's ``meta``, with
        :meth:`CampaignRecord.from_meta`, so it is checked the same way). ``plan``:
        equal-length columns ``phone_number``, ``row``, ``segments`` and ``field:<name>`` per
        field, in sending order (a column given as a list is kept as it is, not copied: it
        must not change after). ``bounds``: each chunk's (start, stop) in the plan.
        ``excluded``: (row, input, phone_number, issue, detail) kept out by preflight.
        """
        now = time.time()
        kept = {name: _as_list(column) for name, column in plan.items()}
        with self._tx() as db:
            if db.execute("SELECT COUNT(*) FROM meta").fetchone()[0]:
                raise ConfigurationError(f"journal {str(self.path)!r} is already initialised")
            db.executemany(  # a column's text at a time, not all of them at once
                "INSERT INTO plan VALUES (?, ?)",
                ((name, column_json(column)) for name, column in kept.items()),
            )
            db.executemany(
                "INSERT INTO chunks (idx, start, stop, state, updated_at) "
                "VALUES (?, ?, ?, 'pending', ?)",
                ((idx, start, stop, now) for idx, (start, stop) in enumerate(bounds)),
            )
            _exclude(db, excluded)
            if not isinstance(record, CampaignRecord):
                record = CampaignRecord.from_meta(record)
            meta = {**record.to_meta(), "format": FORMAT_VERSION, "created_at": now}
            db.executemany(
                "INSERT INTO meta VALUES (?, ?)",
                [(key, json.dumps(value)) for key, value in meta.items()],
            )
        self._plan = kept  # as just written (a list given is kept, not copied)

    # -- the plan ----------------------------------------------------------------------------

    def _base(self) -> dict[str, list[Any]]:
        """The columns written by :meth:`initialise` (read once, then kept: they never change)."""
        if self._plan is None:
            self._plan = {
                name: json.loads(value) for name, value in self._read("SELECT * FROM plan")
            }
        return self._plan

    def _columns(self, idx: int) -> tuple[Mapping[str, Sequence[Any]], int]:
        """The plan columns holding chunk ``idx``'s recipients, and the position of their first."""
        found = self._read(
            "SELECT plan, start FROM streamed JOIN chunks USING (idx) WHERE idx = ?", (idx,)
        )
        return (json.loads(found[0][0]), found[0][1]) if found else (self._base(), 0)

    def plan_columns(self, *names: str) -> dict[str, list[Any]]:
        """Only the columns ``names`` of the plan :meth:`initialise` wrote (those it does not
        hold are left out; chunks added by :meth:`add_chunk` are not read)."""
        marks = ",".join("?" * len(names))
        rows = self._read(f"SELECT name, value FROM plan WHERE name IN ({marks})", names)
        return {name: json.loads(value) for name, value in rows}

    def plan(self) -> dict[str, list[Any]]:
        """The plan's columns, those of chunks added by :meth:`add_chunk` after (in memory
        at once: for results, not for sending)."""
        parts = [
            json.loads(text) for (text,) in self._read("SELECT plan FROM streamed ORDER BY idx")
        ]
        if not parts:
            return self._base()
        whole = [self._base(), *parts]
        names = sorted({name for part in whole for name in part})
        return {
            name: [v for part in whole for v in part.get(name, [""] * len(part.get("row", ())))]
            for name in names
        }

    def payload(self, chunk: Chunk) -> ContactChunk:
        """What ``chunk`` sends."""
        columns, first = self._columns(chunk.idx)
        positions = chunk.positions
        if positions and positions[-1] - positions[0] == len(positions) - 1:  # a whole range
            return plan_contacts(columns, range(positions[0] - first, positions[-1] - first + 1))
        return plan_contacts(columns, [p - first for p in positions])

    def add_chunk(self, idx: int, columns: Mapping[str, Sequence[Any]]) -> Chunk:
        """A chunk the plan did not hold, for plans too large to write before sending: its
        recipients as ``columns`` (:meth:`initialise`'s plan format, JSON values) are kept
        with it, so a resume needs nothing else. Chunks are added in order (``idx``: the
        number of chunks so far); a chunk added again (a resume reading its source again)
        must be the same, and comes back as recorded (the sender skips accepted ones).
        """
        value = json.dumps({name: list(columns[name]) for name in sorted(columns)},
                           ensure_ascii=False)  # fmt: skip
        with self._tx() as db:
            found = db.execute("SELECT plan FROM streamed WHERE idx = ?", (idx,)).fetchone()
            count, end = db.execute(
                "SELECT COUNT(*), COALESCE(MAX(stop), 0) FROM chunks"
            ).fetchone()
            if found is None and idx == count:
                size = len(columns["phone_number"])
                db.execute("INSERT INTO streamed VALUES (?, ?)", (idx, value))
                db.execute(
                    "INSERT INTO chunks (idx, start, stop, state, updated_at) "
                    "VALUES (?, ?, ?, 'pending', ?)",
                    (idx, end, end + size, time.time()),
                )
            elif found is None or found[0] != value:
                why = "is not the one it holds" if found else f"comes after chunk {count - 1}"
                raise ConfigurationError(
                    f"journal {str(self.path)!r}: chunk {idx} {why}: chunks are added in order, "
                    "and the same again on a resume (has this campaign's source changed?)"
                )
        return self.chunk(idx)

    def tally(self) -> tuple[int, int, float]:
        """(recipients in chunks, those settled: accepted or failed for good, cost so far),
        counted without reading the plan."""
        settled = "state IN ('sent', 'already_accepted') OR (state = 'failed' AND NOT retryable)"
        total, done, cost = self._read(
            f"SELECT SUM({_SIZE}), SUM(CASE WHEN {settled} THEN {_SIZE} END), SUM(cost) FROM chunks"
        )[0]
        return int(total or 0), int(done or 0), float(cost or 0.0)

    # -- chunks ------------------------------------------------------------------------------

    def _chunk(self, record: Sequence[Any]) -> Chunk:
        (idx, start, stop, keep, rid, state, attempts, ticket, cost, estimated, sms, contacts,
         error, retryable, first, streamed) = record  # fmt: skip
        plan, first_position = (
            (self._base(), 0) if streamed is None else (json.loads(streamed), start)
        )
        if keep is None:  # the whole range: slices, not a lookup per recipient
            positions: Sequence[int] = range(start, stop)  # no int object a recipient
            begin, end = start - first_position, stop - first_position
            rows = tuple(plan["row"][begin:end])
            segments = tuple(plan["segments"][begin:end])
        else:
            positions = tuple(json.loads(keep))
            at = [p - first_position for p in positions]
            rows = tuple(plan["row"][i] for i in at)
            segments = tuple(plan["segments"][i] for i in at)
        return Chunk(
            idx, rid, state, positions, rows, segments, attempts, ticket, cost, bool(estimated),
            sms, contacts, error, bool(retryable), first,
        )  # fmt: skip

    def chunks(self) -> list[Chunk]:
        """Every chunk, in order."""
        return [self._chunk(r) for r in self._read(f"SELECT {_CHUNK_COLUMNS} ORDER BY idx")]

    def chunk(self, idx: int) -> Chunk:
        """One chunk by index."""
        records = self._read(f"SELECT {_CHUNK_COLUMNS} WHERE idx = ?", (idx,))
        if not records:
            raise KeyError(idx)
        return self._chunk(records[0])

    def counts(self) -> dict[str, int]:
        """Number of chunks in each state (every state listed)."""
        found = dict(self._read("SELECT state, COUNT(*) FROM chunks GROUP BY state"))
        return {state: int(found.get(state, 0)) for state in CHUNK_STATES}

    def mark_in_flight(self, chunk: Chunk) -> tuple[str, ContactChunk]:
        """Before a request leaves: the chunk may be accepted from now on.

        Returns the request_id (derived and stored on the first attempt) and the payload.
        Raises :class:`smskit.CampaignBusy` when another runner has taken the lease over.
        """
        contacts = self.payload(chunk)
        # A request_id once stored is the chunk's for good (a resume repeats it as recorded).
        rid = chunk.request_id or derive_request_id(self.campaign_id, chunk.idx, contacts.encoded)
        now = time.time()
        with self._leased_tx(
            "a sender opens it with lease= (seconds to wait for another runner)"
        ) as db:
            db.execute(
                "UPDATE chunks SET state = 'in_flight', request_id = ?, attempts = attempts + 1, "
                "error = NULL, first_attempt_at = COALESCE(first_attempt_at, ?), updated_at = ? "
                "WHERE idx = ?",
                (rid, now, now, chunk.idx),
            )
            _log(db, chunk.idx, "in_flight", None, now)
        return rid, contacts

    def mark_done(
        self,
        idx: int,
        state: State,
        *,
        ticket: str | None = None,
        cost: float | None = None,
        cost_estimated: bool = False,
        sms: int | None = None,
        contacts: int | None = None,
        error: str | None = None,
        retryable: bool = False,
        gateway_at: float | None = None,
    ) -> None:
        """After the request returned (or gave up): its outcome (``gateway_at``: the answer's
        time by the gateway's clock, Unix seconds, when it gave one)."""
        if state not in ("sent", "already_accepted", "failed"):
            raise ValueError(f"state: an outcome is sent, already_accepted or failed, not {state}")
        now = time.time()
        with self._tx() as db:
            db.execute(
                "UPDATE chunks SET state = ?, ticket = ?, cost = ?, cost_estimated = ?, sms = ?, "
                "contacts = ?, error = ?, retryable = ?, updated_at = ? WHERE idx = ?",
                (state, ticket, cost, int(cost_estimated), sms, contacts, error, int(retryable),
                 now, idx),
            )  # fmt: skip
            _log(db, idx, state, error or ticket, now)
            if gateway_at is not None:
                db.execute(
                    "INSERT OR REPLACE INTO answered VALUES (?, ?, ?)", (idx, gateway_at, now)
                )

    def rekeyed(
        self, chunk: Chunk, dropped: Collection[int]
    ) -> tuple[list[int], str | None, list[tuple[int, str]]]:
        """``chunk`` less its recipients at ``dropped`` (chunk positions): the plan positions kept,
        their request id (None: none left), each dropped (row, number). The caller commits."""
        kept = [p for i, p in enumerate(chunk.positions) if i not in dropped]
        columns, first = self._columns(chunk.idx)
        numbers, rid = columns["phone_number"], None
        if kept:
            payload = plan_contacts(columns, (p - first for p in kept)).encoded
            rid = derive_request_id(self.campaign_id, chunk.idx, payload)
        gone = [(chunk.rows[i], numbers[chunk.positions[i] - first]) for i in sorted(dropped)]
        return kept, rid, gone

    def reject(self, chunk: Chunk, refused: Mapping[int, str]) -> Chunk:
        """The gateway refused some recipients of a chunk: drop them and re-key the chunk.

        ``refused`` maps positions *in the chunk* to the gateway's message. Nothing of a
        refused request was sent, so the smaller chunk gets its own ``request_id``; both
        facts are committed together, before the new request leaves.
        """
        kept, rid, gone = self.rekeyed(chunk, refused.keys())
        rows = [(row, chunk.idx, number, refused[i])
                for i, (row, number) in zip(sorted(refused), gone, strict=True)]  # fmt: skip
        now = time.time()
        with self._tx() as db:
            db.executemany("INSERT OR REPLACE INTO rejected VALUES (?, ?, ?, ?)", rows)
            db.execute(
                "UPDATE chunks SET keep = ?, request_id = ?, state = 'pending', "
                "first_attempt_at = NULL, updated_at = ? WHERE idx = ?",
                (json.dumps(kept), rid, now, chunk.idx),
            )
            _log(db, chunk.idx, "pending", f"{len(refused)} recipient(s) refused; re-keyed", now)
        return self.chunk(chunk.idx)

    def put_back(self, idx: int, error: str) -> None:
        """The gateway refused a chunk's whole request, recipients untouched (credit,
        credentials): nothing of it was sent, so it is ``pending`` again, as unsent as one
        never tried (a resume leaves out its numbers opted out since, re-keyed), with
        ``error`` saying why it was not sent."""
        now = time.time()
        with self._tx() as db:
            db.execute(
                "UPDATE chunks SET state = 'pending', error = ?, retryable = 0, "
                "first_attempt_at = NULL, updated_at = ? WHERE idx = ?",
                (error, now, idx),
            )
            _log(db, idx, "pending", error, now)

    # -- recipients kept out ---------------------------------------------------------------

    def excluded(self) -> list[tuple[int, str | None, str | None, str, str | None]]:
        """(row, input, phone_number, issue, detail) of recipients kept out: by preflight, or
        by :meth:`withhold` before their chunk was sent."""
        return self._read(_EXCLUDED)

    def excluded_for(self, issue: str) -> list[tuple[int, str | None, str | None, str, str | None]]:
        """:meth:`excluded`, only those of ``issue`` (``opted_out``: at most as many as the
        account's list holds, where a streamed campaign's exclusions may not fit in memory)."""
        return self._read(f"{_EXCLUDED} WHERE issue = ?", (issue,))

    def withhold(self, chunk: Chunk, dropped: Sequence[int], issue: str, detail: str) -> Chunk:
        """Take the recipients at ``dropped`` (positions *in the chunk*) out of a ``pending``
        chunk: recorded as kept out (table ``excluded``, ``issue`` and ``detail``) and
        the chunk re-keyed (its request id derived from the smaller payload), in one transaction
        committed before any request. A chunk left empty is done with nothing sent (``sent``, no
        request id, 0 recipients, cost 0), not failed. Returns the chunk as now journaled.
        Only under the journal's lease still held (:class:`smskit.CampaignBusy` if taken over)."""
        if chunk.state != "pending":
            raise ValueError(f"chunk {chunk.idx} is {chunk.state}: only a pending one is changed")
        out = set(dropped)
        kept, rid, gone = self.rekeyed(chunk, out)
        state, none_left = ("pending", 0) if kept else ("sent", 1)
        now = time.time()
        with self._leased_tx("only its sender changes a chunk") as db:
            _exclude(db, [(row, number, number, issue, detail) for row, number in gone])
            db.execute(
                "UPDATE chunks SET keep = ?, request_id = ?, state = ?, first_attempt_at = NULL, "
                "cost = CASE WHEN ? THEN 0 ELSE cost END, sms = CASE WHEN ? THEN 0 ELSE sms END, "
                "contacts = CASE WHEN ? THEN 0 ELSE contacts END, updated_at = ? WHERE idx = ?",
                (json.dumps(kept), rid, state, none_left, none_left, none_left, now, chunk.idx),
            )
            said = f"{len(out)} recipient(s) {issue}; " + ("re-keyed" if kept else "none left")
            _log(db, chunk.idx, state, said, now)
        return self.chunk(chunk.idx)

    def first_attempt(self) -> float | None:
        """When the campaign's first request left (the earliest chunk's first attempt, Unix
        seconds), read without the chunks' recipients; None before any."""
        found = self._read("SELECT MIN(first_attempt_at) FROM chunks")[0][0]
        return None if found is None else float(found)

    def excluded_count(self, issue: str | None = None) -> int:
        """Recipients kept out (only those of ``issue`` if given), counted without reading
        them."""
        if issue is None:
            return int(self._read("SELECT COUNT(*) FROM excluded")[0][0])
        return int(self._read("SELECT COUNT(*) FROM excluded WHERE issue = ?", (issue,))[0][0])

    def chunk_outcomes(self) -> list[tuple[Any, ...]]:
        """Per chunk, in order, what it became, without reading its recipients: (idx, start,
        stop, recipients, request_id, state, attempts, ticket, cost, cost_estimated, sms,
        contacts, error, retryable). ``start``/``stop`` bound it in the plan; ``recipients``
        counts those still in it (the gateway's refusals taken out)."""
        return self._read(
            f"SELECT idx, start, stop, {_SIZE}, request_id, state, attempts, ticket, cost, "
            "cost_estimated, sms, contacts, error, retryable FROM chunks ORDER BY idx"
        )

    def rejected(self) -> list[tuple[int, int, str | None, str]]:
        """(row, chunk, phone_number, error) of recipients the gateway refused."""
        return self._read("SELECT row, chunk, phone_number, error FROM rejected")

    def sent_at(self) -> dict[int, float]:
        """When each accepted chunk went out, as well as the journal knows (Unix seconds), by
        chunk index: when its acceptance was recorded (``sent``); for ``already_accepted``
        (an earlier attempt's answer was lost) its first attempt, the earliest the gateway
        can have taken it. Read from the ``log`` and chunk rows every journal format has, so
        older journals answer too.
        """
        rows = self._read(
            "SELECT c.idx, CASE WHEN c.state = 'already_accepted' "
            "THEN COALESCE(c.first_attempt_at, MIN(l.at)) ELSE MIN(l.at) END "
            "FROM chunks c JOIN log l ON l.chunk = c.idx "
            "WHERE l.state IN ('sent', 'already_accepted') GROUP BY c.idx"
        )
        return {int(idx): float(at) for idx, at in rows}

    def answered(self) -> dict[int, tuple[float, float]]:
        """(gateway's time, ours) of each chunk's accepting answer that was dated, by chunk
        (none in a journal written before smskit recorded them)."""
        return {int(c): (float(g), float(o)) for c, g, o in self._read("SELECT * FROM answered")}

    def record_run(self, stopped: str | None) -> None:
        """A send or resume has ended: why it stopped early (None: it ran to its end), so a
        result read later (``CampaignResult.load``, ``smskit campaign status``) says it."""
        if not stopped and self.stop_reason() is None:
            return  # nothing to correct: a run that changed nothing writes nothing
        now = time.time()
        state = RUN_STOPPED if stopped else RUN_ENDED
        with self._tx() as db:
            db.execute(
                "INSERT INTO log (chunk, at, state, request_id, detail) "
                "VALUES (NULL, ?, ?, NULL, ?)",
                (now, state, stopped),
            )

    def stop_reason(self) -> str | None:
        """Why the last send or resume of this journal stopped early (None: it ran to its end,
        or no run recorded one)."""
        found = self._read(
            "SELECT state, detail FROM log WHERE chunk IS NULL AND state IN (?, ?) "
            "ORDER BY id DESC LIMIT 1",
            (RUN_STOPPED, RUN_ENDED),
        )
        return found[0][1] if found and found[0][0] == RUN_STOPPED else None

    def log(self) -> list[tuple[int | None, float, str, str | None, str | None]]:
        """Every state change: (chunk, at, state, request_id, detail), oldest first."""
        return self._read("SELECT chunk, at, state, request_id, detail FROM log ORDER BY id")


async def open_leased(
    path: str | Path, *, mode: Literal["open", "any"] = "open", wait: float = 0.0
) -> Journal:
    """``Journal(path, lease=wait)`` for async code: waits with ``asyncio.sleep``, so the
    event loop keeps running and a cancelled wait leaves no lease behind."""
    wait = checked_seconds("wait", wait)
    deadline = time.monotonic() + wait
    while True:
        try:
            return Journal(path, mode=mode, lease=0)
        except CampaignBusy as busy:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CampaignBusy(busy.journal, busy.owner, waited=wait) from None
            await asyncio.sleep(min(POLL_S, left))


def column_json(column: Sequence[Any]) -> str:
    """A plan column as the JSON text the journal stores (``json.loads`` gives it back).

    Each value is spelt by ``json.dumps``; a column holding few distinct objects (the
    segments, the predicted prices: a float's shortest spelling is most of ``json.dumps``'s
    time there) spells each object once, found by identity, so the same object always gets
    the same text and equal values that are different objects (``0.0`` and ``-0.0``, ``1``
    and ``1.0``) keep their own.
    """
    values = _as_list(column)
    distinct = dict.fromkeys(map(id, values[:_SPELL_PROBE]))
    if len(values) < _SPELL_MIN or len(distinct) > _SPELL_DISTINCT:
        return json.dumps(values, ensure_ascii=False)
    objects = {id(value): value for value in values}
    if len(objects) > _SPELL_DISTINCT:
        return json.dumps(values, ensure_ascii=False)
    spelt = {key: json.dumps(value, ensure_ascii=False) for key, value in objects.items()}
    return "[" + ",".join(map(spelt.__getitem__, map(id, values))) + "]"


# column_json spells a column value by value only when it is long and its first values are
# few distinct objects: a column of distinct ones (numbers, rows) costs one probe.
_SPELL_MIN: Final = 1024
_SPELL_PROBE: Final = 1024
_SPELL_DISTINCT: Final = 64


def _as_list(column: Sequence[Any]) -> list[Any]:
    return column if isinstance(column, list) else list(column)


def _exclude(db: sqlite3.Connection, excluded: Iterable[tuple[int, Any, Any, str, Any]]) -> None:
    db.executemany(
        "INSERT INTO excluded VALUES (?, ?, ?, ?, ?)",
        ((row, _text(raw), _text(number), issue, _text(detail))
         for row, raw, number, issue, detail in excluded),
    )  # fmt: skip


def _log(db: sqlite3.Connection, idx: int, state: str, detail: str | None, now: float) -> None:
    db.execute(
        "INSERT INTO log (chunk, at, state, request_id, detail) "
        "SELECT idx, ?, ?, request_id, ? FROM chunks WHERE idx = ?",
        (now, state, detail, idx),
    )


def _text(value: Any) -> str | None:
    return None if is_missing(value) else str(value)
