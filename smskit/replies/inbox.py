"""Inbound-SMS replies: a receiver for the gateway's callback and its SQLite inbox.

The gateway POSTs each reply to a URL registered in the account (spec, "Events") with no
authentication, so :class:`Inbox` serves one unguessable URL
(``http://127.0.0.1:PORT/callbacks/<token>/inbound``); anything else is 404. It answers 200
with an empty body to every POST there, as the spec requires even on error, keeps malformed
and oversized bodies in a rejects table, deduplicates replies by ``message_id`` (the gateway
may retry) and turns them into a typed DataFrame. Starlette and uvicorn are imported only
by ``Inbox.start()``.

Facing the internet (docs/reliability.md): it binds 127.0.0.1 unless given another address,
and then logs a warning; it answers only allowed ``Host`` values; optional signatures
(:mod:`smskit.replies.signing`) authenticate the sender; :class:`smskit._server.Guards` close
stalled connections; its SQLite file is created 0600. The HTTP side is
:mod:`smskit.replies.receiver`, the analytics :mod:`smskit.replies.analytics`.
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import secrets
import sqlite3
import threading
import unicodedata
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from smskit import _sqlite
from smskit._account import held
from smskit._server import Guards, Served, http_url
from smskit.errors import ConfigurationError, ValidationError
from smskit.replies import clicks, receiver, reports
from smskit.replies.optouts import (
    Account,
    OptOutEvent,
    OptOuts,
    account_key,
    claim_account,
    kept_account,
)
from smskit.replies.receiver import Reply
from smskit.replies.reports import Report, micros, stored_times
from smskit.replies.signing import DEFAULT_TOLERANCE, secret_bytes
from smskit.rules.bots import BotRules
from smskit.rules.callbacks import CALLBACK_KINDS
from smskit.rules.choices import checked_choice
from smskit.rules.content import has_stop_mention
from smskit.rules.filekind import check_regular_file
from smskit.rules.files import as_file_path
from smskit.rules.hosts import is_loopback
from smskit.rules.links import LinkKey, check_link_base
from smskit.rules.ranges import checked_integer, checked_number, checked_seconds
from smskit.rules.text import check_str
from smskit.rules.timezone import account_time_zone

if TYPE_CHECKING:
    import pandas


__all__ = ["FRAME_COLUMNS", "MAX_BODY", "Inbox", "is_opt_out"]

logger = logging.getLogger("smskit.replies.inbox")

MAX_BODY = 64 * 1024  # a reply is at most a few SMS segments: 64 KiB is generous
FRAME_COLUMNS = (
    "message_id", "number", "text", "sim_card_number", "reception_date", "received_at",
    "is_opt_out",
)  # fmt: skip

# ----------------------------------------------------------------------------- opt-out rule

# Whole words (after folding case and accents) that ask to stop wherever they appear.
_OPT_OUT_WORDS = frozenset(
    {"stop", "stopall", "stopsms", "arret", "arrete", "arreter", "arretez", "unsubscribe",
     "unsub", "optout"}
)  # fmt: skip
_OPT_OUT_PREFIXES = ("desabonn", "desinscri", "unsubscrib")
# Words that opt out only as the whole message: inside a sentence they usually do not.
_ALONE_WORDS = frozenset({"end", "quit", "cancel", "revoke", "fin"})
_WORD = re.compile(r"[^\W_]+")


def is_opt_out(text: str) -> bool:
    """Whether an inbound reply asks to stop receiving messages.

    True when the reply has the outbound STOP mention (:func:`smskit.text.has_stop_mention`),
    or, ignoring case and accents, the word stop / stopall / stop sms, arrêt / arrêter /
    arrêtez, unsubscribe / unsub, opt out, or a word starting with désabonn, désinscri or
    unsubscrib; or when the whole reply is END, QUIT, CANCEL, REVOKE or FIN. Deliberately
    more lenient than the outbound rule (which wants the exact upper-case word STOP): a
    missed opt-out keeps messaging someone who said no, a false one only drops a contact.
    "stp" (French for "please") and words merely containing stop ("nonstop") do not count.
    """
    if not isinstance(text, str):
        raise ValidationError("text", "must be a string", value=text)
    if has_stop_mention(text):
        return True
    folded = "".join(
        c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)
    ).casefold()
    words = _WORD.findall(folded)
    if any(w in _OPT_OUT_WORDS or w.startswith(_OPT_OUT_PREFIXES) for w in words):
        return True
    if any(a == "opt" and b == "out" for a, b in itertools.pairwise(words)):
        return True
    return len(words) == 1 and words[0] in _ALONE_WORDS


# -------------------------------------------------------------------------------- the store

_SCHEMA = """
CREATE TABLE IF NOT EXISTS replies (
    message_id TEXT PRIMARY KEY, number TEXT NOT NULL, text TEXT NOT NULL,
    sim_card_number TEXT, reception_date INTEGER NOT NULL, reception_date_raw TEXT NOT NULL,
    received_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS rejects (
    id INTEGER PRIMARY KEY, received_at INTEGER NOT NULL, reason TEXT NOT NULL,
    size INTEGER NOT NULL, body TEXT);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def _check_kind(path: str) -> None:
    """Refuse (left unchanged) a file that is not an inbox: not SQLite, or holding other
    tables (a campaign journal, the HLR cache), which the inbox's tables would spoil."""
    own = _sqlite.schema_tables(_SCHEMA + reports.SCHEMA + clicks.SCHEMA)
    instead = "give another file (or none, for an inbox in memory)"
    check_regular_file(path, "path")  # a pipe: SQLite's "disk I/O error", or a wait
    _sqlite.check_kind(path, "an inbox file", own, instead=instead)


class _Store:
    """Replies, delivery reports, STOPs and rejects in SQLite; one connection behind one
    condition (any thread)."""

    def __init__(self, path: str | None) -> None:
        self.changed = threading.Condition()
        if path:
            _check_kind(path)
        try:
            self._db = _sqlite.connect(path or None, _SCHEMA + reports.SCHEMA + clicks.SCHEMA)
        except sqlite3.Error as exc:  # a directory that does not exist, a damaged file
            raise ConfigurationError(f"{path!r} cannot be an inbox file: {exc}") from exc
        self.count = self._db.execute("SELECT COUNT(*) FROM replies").fetchone()[0]
        self.kinds = reports.counts(self._db)  # delivery reports and STOPs stored
        self.duplicates = 0  # replies received again
        self.report_duplicates = 0  # delivery reports and STOPs received again
        self.refused = 0  # bad or missing signatures: counted, never stored
        self.unsaved: dict[str, Reply | Report] = {}  # by message_id (reply) or key (report)
        self._seen_before: set[str] = set()
        # The account's opt-out list, given the opt-outs as they are stored (Inbox(account=)).
        self.feed: OptOuts | None = None
        self.feed_pending: list[OptOutEvent] = []
        self.links = clicks.LinkBook(self._db, self.changed)  # short links and their clicks

    def add(self, item: Reply | Report) -> bool:
        """Store a reply unless its message_id is known, a delivery report or STOP unless
        the same body is; True when it was new.

        If SQLite fails, the callback waits in memory (``unsaved``) and is written with the
        next one: the spec makes the receiver answer 200 even on error, so no retry would
        bring it.
        """
        ident = item.key if isinstance(item, Report) else item.message_id
        with self.changed:
            self.unsaved.setdefault(ident, item)
            self.flush()
            return ident not in self._seen_before

    def flush(self) -> None:
        """Write the callbacks held in memory, oldest first; keep them if SQLite still fails."""
        with self.changed:
            self._seen_before = set()
            held = [r for r in self.unsaved.values() if isinstance(r, Report)]
            replies = [r for r in self.unsaved.values() if not isinstance(r, Report)]
            try:
                with _sqlite.transaction(self._db, self.changed):
                    now = micros(datetime.now(UTC))
                    reports_seen = reports.write(self._db, held, now)
                    replies_seen = {
                        reply.message_id for reply in replies if not self._insert(reply, now)
                    }
            except sqlite3.Error:
                logger.exception(
                    "%d inbound callbacks held in memory: SQLite failed", len(self.unsaved)
                )
                return
            self._seen_before = reports_seen | replies_seen
            for item in held:
                if item.key not in reports_seen:
                    self.kinds[item.kind] += 1
            self.count += len(replies) - len(replies_seen)
            self.duplicates += len(replies_seen)
            self.report_duplicates += len(reports_seen)
            if self.feed is not None:
                self._feed(held, replies, reports_seen | replies_seen, now)
            self.unsaved.clear()
            self.changed.notify_all()

    def _feed(self, held: list[Report], replies: list[Reply], seen: set[str], now: int) -> None:
        """Give the opt-out list the opt-outs just stored; held for the next flush if its
        file fails (the list takes each once, so giving one twice is harmless)."""
        assert self.feed is not None
        self.feed_pending += [
            OptOutEvent(item.number, "stop_callback", item.key, item.at_us or now)
            for item in held
            if item.kind == "stop" and item.key not in seen
        ]
        self.feed_pending += [
            OptOutEvent(reply.number, "stop_reply", reply.message_id, reply.reception_us)
            for reply in replies
            if reply.message_id not in seen and is_opt_out(reply.text)
        ]
        if not self.feed_pending:
            return
        try:
            self.feed.record(self.feed_pending)
        except (sqlite3.Error, ConfigurationError):
            logger.exception("%d opt-outs wait for the opt-out list", len(self.feed_pending))
            return
        self.feed_pending = []

    def _insert(self, reply: Reply, received_at: int) -> bool:
        """Store one reply (inside the caller's transaction); False if it was already stored."""
        cursor = self._db.execute(
            "INSERT OR IGNORE INTO replies VALUES (?, ?, ?, ?, ?, ?, ?)",
            (reply.message_id, reply.number, reply.text, reply.sim_card_number,
             reply.reception_us, reply.reception_raw, received_at),
        )  # fmt: skip
        return cursor.rowcount == 1

    def reject(self, reason: str, size: int, body: bytes | None) -> None:
        """Keep what could not be stored, for inspection."""
        shown = None if body is None else body.decode("utf-8", errors="replace")
        try:
            with self.changed:
                self._db.execute(
                    "INSERT INTO rejects (received_at, reason, size, body) VALUES (?, ?, ?, ?)",
                    (micros(datetime.now(UTC)), reason, size, shown),
                )
        except sqlite3.Error:
            logger.exception("a rejected callback could not be kept: SQLite failed")

    def remembered(self, key: str, value: str | None) -> str | None:
        """The value kept under ``key``: ``value`` (now kept) if given, else the one kept before."""
        with self.changed:
            if value is not None:
                self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
                return value
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
            return None if row is None else str(row[0])

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        with self.changed:
            if self.unsaved:
                self.flush()
            return self._db.execute(sql).fetchall()


# -------------------------------------------------------------------------------- the inbox


class Inbox(Served):
    """Receive the gateway's inbound-SMS callbacks on loopback and keep them in SQLite.

    ``with Inbox() as inbox: sandbox.set_callback_url(inbox.url); ...; inbox.to_frame()``.
    ``path=None`` keeps replies in memory; a file (created 0600) keeps them across runs, with
    the token and port, so the callback URL stays the same after a restart (``token=`` sets
    it). The data stays readable after ``stop()``.

    ``account`` (the client whose callbacks these are, or a ``(base_url, login)`` pair):
    every STOP callback and reply that opts out is also put on that account's opt-out list
    as it is stored (:class:`smskit.OptOuts`, file ``optouts_path``, default in the per-user
    data directory), so the next preflight excludes the number (docs/optouts.md).

    To face the internet: ``host`` another address than loopback (logged as a warning),
    ``allowed_hosts`` the names the gateway puts in the ``Host`` header (required for a
    wildcard address such as ``0.0.0.0``), ``signing_secret`` to accept only signed callbacks
    (:mod:`smskit.replies.signing`, timestamps within ``signature_tolerance`` seconds). Each
    request must arrive within ``request_timeout`` seconds, idle connections close after
    ``keep_alive_timeout``, and while more than ``max_connections`` are open, connections
    stalled (no whole request within ``header_timeout``) are closed, the longest stalled
    first; a connection still within its header deadline, or whose request has arrived, is
    never closed to make room (docs/reliability.md, "A burst of callbacks is kept whole").
    """

    _server_name = "smskit-inbox"

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        max_body: int = MAX_BODY,
        token: str | None = None,
        allowed_hosts: Sequence[str] | None = None,
        signing_secret: str | bytes | None = None,
        signature_tolerance: float = DEFAULT_TOLERANCE,
        request_timeout: float = 10.0,
        keep_alive_timeout: int = 5,
        max_connections: int = 256,
        header_timeout: float = 5.0,
        account: Account | tuple[str, str] | None = None,
        optouts_path: str | os.PathLike[str] | None = None,
        link_base: str | None = None,
    ) -> None:
        self._secret = (
            None if signing_secret is None else secret_bytes("signing_secret", signing_secret)
        )
        del signing_secret  # on self only: a refusal's traceback shows the locals
        self._token = receiver.checked_token(token)
        del token
        account = held(account)  # a URL with login:KEY@ never in clear in this frame
        if account is not None:
            account_key(account)  # an account no gateway URL names: refused before any file
        max_body = checked_integer("max_body", max_body, low=1024, unit=" bytes")
        if not isinstance(host, str) or not host:
            raise ValidationError("host", "must be an IP address or host name", value=host)
        self._link_base = None if link_base is None else check_link_base(link_base)
        self.allowed_hosts = receiver.allowed_hosts(host, allowed_hosts, self._link_base)
        self.signature_tolerance = checked_number(
            "signature_tolerance", signature_tolerance, high=3600.0, above=True, unit=" of seconds"
        )
        request_timeout = checked_number(
            "request_timeout", request_timeout, above=True, finite=False
        )
        header_timeout = checked_number("header_timeout", header_timeout, above=True, finite=False)
        self.guards = Guards(
            request_timeout,
            checked_integer("keep_alive_timeout", keep_alive_timeout, low=1),
            checked_integer("max_connections", max_connections, low=1),
            header_timeout,
        )
        self.path = None if path is None else str(as_file_path(path, "path"))
        self._init_served(host, port)
        self.max_body = max_body
        self._store = _Store(self.path)
        self.optouts = None if account is None else OptOuts(account, path=optouts_path)
        if self.optouts is not None:  # a file keeps one account's callbacks (docs/outcomes.md)
            claim_account(self._store, self.optouts.gateway, self.path)
        self._store.feed = self.optouts
        # The spec gives the callback no authentication: this token in the URL is the secret.
        # A file inbox keeps its token and port, so the URL registered with the gateway
        # still answers after a kernel restart.
        self._token = (
            self._token or self._store.remembered("token", None) or secrets.token_urlsafe(24)
        )
        if self.path is not None:
            self._store.remembered("token", self._token)
            self._link_base = self._store.remembered("link_base", self._link_base)
            self.allowed_hosts = receiver.allowed_hosts(host, allowed_hosts, self._link_base)
            if port == 0:
                self.port = int(self._store.remembered("port", None) or 0)
        self._requested_port = port

    # --- lifecycle -------------------------------------------------------------------------

    @property
    def account(self) -> tuple[str, str] | None:
        """Whose callbacks these are, ``(base_url, login)``: ``account=``'s, or its file's."""
        return kept_account(self._store)

    @property
    def url(self) -> str:
        """The callback URL to register with the gateway (it holds the token: keep it private)."""
        return f"{self._served_url()}{self._path(self._token)}"

    @property
    def link_base(self) -> str:
        """Where short links start: ``link_base=`` (a public domain in front of the inbox, kept
        by a file inbox), else this inbox's own ``http://host:port``, also when another
        process serves its file (docs/links.md)."""
        if self._link_base is None and self._server is None and self.port:
            return http_url(self.host, self.port)  # a file inbox another process serves
        return self._link_base or self._served_url()

    def register_links(self, campaign: str, rows: Iterable[tuple[str, str, int, int, str]]) -> int:
        """Store short links ``(token, phone_number, row, link, destination)`` of ``campaign``
        before they are sent; returns how many were new (a token registered again for the
        same recipient is kept; for another, refused)."""
        return self._store.links.register(campaign, rows)

    def link_tokens(self, campaign: str, rows: Sequence[int], link: int) -> list[str]:
        """The tokens of ``link`` for ``rows`` of ``campaign``: derived from this inbox's
        secret (made once, kept in its file) by HMAC-SHA256, so planning the campaign again
        gives the same (docs/links.md)."""
        check_str(campaign, "campaign")
        link = checked_integer("link", link, low=0)
        if not isinstance(rows, Sequence) or isinstance(rows, str):
            raise ValidationError("rows", "must be a list of row numbers", value=rows)
        rows = [checked_integer(f"rows[{i}]", row, low=0) for i, row in enumerate(rows)]
        return self.link_key().tokens(campaign, rows, link)

    def link_key(self) -> LinkKey:
        """This inbox's token maker (its secret, made once and kept in its file): what a
        Dask campaign hands its workers to make the same tokens as :meth:`link_tokens`."""
        secret = (
            self._store.remembered("link_secret", None)
            or self._store.remembered("link_secret", secrets.token_hex(32))
            or ""
        )
        return LinkKey(bytes.fromhex(secret))

    def links(self) -> pandas.DataFrame:
        """One row per short link registered: :data:`smskit.replies.clicks.LINK_COLUMNS`."""
        return self._store.links.links_frame()

    def clicks(
        self, bots: BotRules | None = None, time_zone: str | None = None
    ) -> pandas.DataFrame:
        """One row per request on a short link, oldest first, with its campaign, recipient
        and destination; ``reason`` is ``human`` or why it is a bot (``bots``: the rules,
        :class:`smskit.BotRules`), ``bot`` says which. Dates in ``time_zone`` (default the
        account's). A campaign's outcomes also judge requests before delivery."""
        return self._store.links.clicks_frame(account_time_zone(time_zone), bots)

    def start(self) -> Inbox:
        """Serve the callback URL from a background thread; returns self.

        A file inbox first tries the port it had last time; if that is taken it takes another
        and logs that the callback URL changed.
        """
        remembered = self.path is not None and self.port != 0 and self._requested_port == 0
        try:
            super().start()
        except OSError:
            if not remembered:
                raise
            logger.warning("port %d is taken: the inbox callback URL changes", self.port)
            self.port = 0
            super().start()
        if self.path is not None and self._server is not None:
            self._store.remembered("port", str(self._server.port))
        if (warning := self.exposure_warning()) is not None:
            logger.warning(warning)
        return self

    def exposure_warning(self) -> str | None:
        """What ``start()`` logs when the address is not loopback (None when it is)."""
        if is_loopback(self.host):
            return None
        return (
            f"the reply inbox listens on {self.host}: reachable from other machines "
            f"(Host must be one of {', '.join(self.allowed_hosts)}; signatures "
            f"{'required' if self._secret is not None else 'off: pass signing_secret='})"
        )

    def _app(self) -> Any:
        receiver.mask_tokens_in_access_log()
        return receiver.build_app(
            self._token,
            self._store,
            self.max_body,
            allowed_hosts=self.allowed_hosts,
            secret=self._secret,
            tolerance=self.signature_tolerance,
            links=clicks.link_endpoint(self._store.links),
            link_path=urlsplit(self.link_base).path if self._link_base else "",
        )

    def _guards(self) -> Guards:
        return self.guards

    def __repr__(self) -> str:
        if "_store" not in vars(self):  # a constructor that raised (tracebacks show locals)
            return "<Inbox (not opened)>"
        where = f"{self._server.url}{self._path('***')}" if self._server is not None else "stopped"
        return f"<Inbox {where} replies={len(self)}>"

    @staticmethod
    def _path(token: str) -> str:
        return f"/callbacks/{token}/inbound"

    # --- what arrived ----------------------------------------------------------------------

    def __len__(self) -> int:
        with self._store.changed:
            return self._store.count

    def stats(self) -> dict[str, int]:
        """Replies stored, duplicate deliveries of replies ignored (since this object exists),
        rejects, callbacks held in memory because SQLite failed (written at the next
        success); delivery reports and STOPs stored, and those received again (ignored)."""
        store = self._store
        rejected = store.rows("SELECT COUNT(*) FROM rejects")[0][0]
        with store.changed:  # the links' lock too (the same condition)
            return {
                "stored": store.count,
                "duplicates": store.duplicates,
                "rejected": rejected,
                "unsaved": len(store.unsaved),
                "delivery_reports": store.kinds["delivery_report"],
                "stops": store.kinds["stop"],
                "report_duplicates": store.report_duplicates,
                **store.links.counts(),
            }

    @property
    def refused(self) -> int:
        """Callbacks refused for a missing, wrong or stale signature (stored nowhere)."""
        with self._store.changed:
            return self._store.refused

    def wait(self, n: int, timeout: float = 10.0, *, kind: str = "reply") -> int:
        """Block until at least ``n`` callbacks of ``kind`` (``reply``, ``delivery_report``
        or ``stop``) are stored; returns the count.

        Raises ``TimeoutError`` (the built-in) saying how many arrived, if ``timeout``
        seconds pass first. A file inbox counts the callbacks it already held.
        """
        n = checked_integer("n", n, low=0)
        timeout = checked_seconds("timeout", timeout)
        checked_choice("kind", kind, CALLBACK_KINDS)
        store = self._store

        def count() -> int:
            return store.count if kind == "reply" else store.kinds[kind]

        # threading refuses a timeout past TIMEOUT_MAX (~292 years): that long is for ever
        bounded = None if timeout >= threading.TIMEOUT_MAX else timeout
        with store.changed:
            if not store.changed.wait_for(lambda: count() >= n, bounded):
                what = "replies" if kind == "reply" else f"{kind} callbacks"
                raise TimeoutError(f"only {count()} of {n} {what} arrived within {timeout} s")
            return count()

    def to_frame(self, time_zone: str | None = None) -> pandas.DataFrame:
        """One row per reply, by reception date: :data:`FRAME_COLUMNS`, dates in ``time_zone``
        (default: the account's, ``SMSKIT_TIME_ZONE`` or Europe/Paris; ``"UTC"`` for UTC)."""
        import pandas as pd

        zone = account_time_zone(time_zone)
        rows = self._store.rows(
            "SELECT message_id, number, text, sim_card_number, reception_date, received_at "
            "FROM replies ORDER BY reception_date, message_id"
        )
        frame = pd.DataFrame.from_records(rows, columns=list(FRAME_COLUMNS[:-1]))
        for column in ("reception_date", "received_at"):
            frame[column] = stored_times(frame[column], zone)
        frame["is_opt_out"] = frame["text"].map(is_opt_out).astype(bool)
        return frame

    def opt_outs(self) -> list[str]:
        """Numbers that asked to stop, once each, first asker first: by a reply that opts
        out (:func:`is_opt_out`) or by a STOP callback (its number, when it has one).

        Ready for ``client.contact.delete(...)`` or the account blacklist.
        """
        import pandas as pd

        replies = self.to_frame("UTC")
        asked = [
            (at, number)
            for number, at, opt in zip(
                replies["number"], replies["reception_date"], replies["is_opt_out"], strict=True
            )
            if opt
        ]
        stops = self.stops("UTC")
        asked += [
            (received if pd.isna(at) else at, number)
            for number, at, received in zip(
                stops["number"], stops["stop_date"], stops["received_at"], strict=True
            )
            if isinstance(number, str)
        ]
        asked.sort(key=lambda pair: pair[0])  # stable: replies first on a tie
        return list(dict.fromkeys(number for _, number in asked))

    def opt_out_events(self) -> list[OptOutEvent]:
        """Every opt-out stored (STOP callbacks, replies that opt out), as the account's
        opt-out list takes them (:meth:`smskit.OptOuts.absorb`)."""
        replies = self._store.rows(
            "SELECT message_id, number, text, reception_date FROM replies ORDER BY rowid"
        )
        stops = self._store.rows(
            "SELECT key, number, stop_date, received_at FROM stops ORDER BY rowid"
        )
        return [
            OptOutEvent(number, "stop_reply", message_id, at)
            for message_id, number, text, at in replies
            if is_opt_out(text)
        ] + [
            OptOutEvent(number, "stop_callback", key, received if at is None else at)
            for key, number, at, received in stops
        ]

    def delivery_reports(self, time_zone: str | None = None) -> pandas.DataFrame:
        """One row per delivery report received (a report delivered twice: once), in arrival
        order: :data:`smskit.replies.reports.REPORT_COLUMNS`. ``status`` is a categorical of
        the vendor's statuses; ``status_raw`` holds what came (an unknown status too);
        ``flags`` names what was missing or unreadable (``flagged`` when any)."""
        zone = account_time_zone(time_zone)
        return reports.reports_frame(self._store.rows(reports.REPORTS_SQL), zone)

    def delivery_status(self, time_zone: str | None = None) -> pandas.DataFrame:
        """One row per message (``message_id``) with its standing report: the highest tier,
        then the latest ``delivery_date`` (docs/callbacks.md), so a final status is never
        replaced by an earlier report arriving late; ``final`` tells ACK (or an unknown
        status) from an end; ``reports`` counts the message's distinct reports."""
        zone = account_time_zone(time_zone)
        return reports.status_frame(self._store.rows(reports.STATUS_SQL), zone)

    def stops(self, time_zone: str | None = None) -> pandas.DataFrame:
        """One row per STOP (opt-out) callback received, in arrival order:
        :data:`smskit.replies.reports.STOP_COLUMNS`."""
        zone = account_time_zone(time_zone)
        return reports.stops_frame(self._store.rows(reports.STOPS_SQL), zone)

    def rejects(self) -> pandas.DataFrame:
        """Bodies POSTed to the URL but not stored: when, why, size, body (None if too large)."""
        import pandas as pd

        rows = self._store.rows("SELECT received_at, reason, size, body FROM rejects ORDER BY id")
        frame = pd.DataFrame.from_records(rows, columns=["received_at", "reason", "size", "body"])
        frame["received_at"] = stored_times(frame["received_at"], "UTC")
        return frame
