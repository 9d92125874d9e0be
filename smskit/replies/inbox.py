"""Inbound-SMS replies: a loopback receiver for the gateway's callback, an SQLite inbox, analytics.

The gateway POSTs each reply to a URL registered in the account (spec, "Events") with no
authentication, so :class:`Inbox` serves one unguessable URL
(``http://127.0.0.1:PORT/callbacks/<token>/inbound``); anything else is 404. It answers 200
with an empty body to every POST there, as the spec requires even on error, keeps malformed
and oversized bodies in a rejects table, deduplicates replies by ``message_id`` (the gateway
may retry) and turns them into a typed DataFrame. Starlette and uvicorn are imported only
by ``Inbox.start()``.

The analytics below are pure pandas over ``Inbox.to_frame()`` (and a frame of sends).
"""

from __future__ import annotations

import functools
import hmac
import itertools
import json
import logging
import os
import re
import secrets
import sqlite3
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from smskit import _sqlite
from smskit._server import Served
from smskit.errors import ValidationError
from smskit.rules.text import has_stop_mention

if TYPE_CHECKING:
    import pandas


__all__ = [
    "FRAME_COLUMNS",
    "MAX_BODY",
    "Inbox",
    "is_opt_out",
    "link_replies",
    "opt_out_rate",
    "replies_per_period",
    "reply_rate",
]

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

    True when the reply has the outbound STOP mention (:func:`smskit.rules.text.has_stop_mention`),
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


# --------------------------------------------------------------------------- callback bodies


class _Malformed(ValueError):
    """A callback body that cannot be stored as a reply; the message names field and rule."""


@dataclass(frozen=True)
class _Reply:
    message_id: str
    number: str
    text: str
    sim_card_number: str | None
    reception_us: int
    reception_raw: str


def _parse(raw: bytes) -> _Reply:
    """The spec's callback body -> a reply; ``_Malformed`` says which field breaks which rule."""
    try:
        body = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise _Malformed("body: must be JSON (UTF-8)") from None
    if not isinstance(body, dict):
        raise _Malformed("body: must be a JSON object")
    text = body.get("text")
    if not isinstance(text, str):
        raise _Malformed("text: must be a string")
    sim = body.get("sim_card_number")
    return _Reply(
        message_id=_identifier(body, "message_id"),
        number=_identifier(body, "number"),
        text=text,
        sim_card_number=None if sim is None else _identifier(body, "sim_card_number"),
        reception_us=_reception_us(body.get("reception_date")),
        reception_raw=str(body.get("reception_date")),
    )


def _identifier(body: dict[str, Any], field: str) -> str:
    value = body.get(field)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or not value.strip():
        raise _Malformed(f"{field}: must be a non-blank string or an integer")
    return value.strip()


def _reception_us(value: Any) -> int:
    """ISO 8601 (``T`` or space, offset or ``Z``; none means UTC) or Unix seconds -> µs."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            moment = datetime.fromtimestamp(value, UTC)
        except (OverflowError, OSError, ValueError):  # NaN, infinity, year past 9999
            raise _Malformed("reception_date: must be a Unix timestamp in years 1..9999") from None
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip())
        except ValueError:
            raise _Malformed("reception_date: must be an ISO 8601 date and time") from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
    else:
        raise _Malformed("reception_date: must be an ISO 8601 string or a Unix timestamp")
    return _micros(moment)


def _micros(moment: datetime) -> int:
    delta = moment - datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


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


class _Store:
    """Replies and rejects in SQLite; one connection behind one condition (any thread)."""

    def __init__(self, path: str | None) -> None:
        self.changed = threading.Condition()
        self._db = _sqlite.connect(path or None, _SCHEMA)
        self.count = self._db.execute("SELECT COUNT(*) FROM replies").fetchone()[0]
        self.duplicates = 0
        self.unsaved: dict[str, _Reply] = {}
        self._seen_before: set[str] = set()

    def add(self, reply: _Reply) -> bool:
        """Store a reply unless its message_id is known; True when it was new.

        If SQLite fails, the reply waits in memory (``unsaved``) and is written with the next
        one: the spec makes the receiver answer 200 even on error, so no retry would bring it.
        """
        with self.changed:
            self.unsaved.setdefault(reply.message_id, reply)
            self.flush()
            return reply.message_id not in self._seen_before

    def flush(self) -> None:
        """Write the replies held in memory, oldest first; keep them if SQLite still fails."""
        with self.changed:
            self._seen_before = set()
            try:
                with _sqlite.transaction(self._db, self.changed):
                    for reply in self.unsaved.values():
                        cursor = self._db.execute(
                            "INSERT OR IGNORE INTO replies VALUES (?, ?, ?, ?, ?, ?, ?)",
                            (reply.message_id, reply.number, reply.text, reply.sim_card_number,
                             reply.reception_us, reply.reception_raw,
                             _micros(datetime.now(UTC))),
                        )  # fmt: skip
                        if cursor.rowcount != 1:
                            self._seen_before.add(reply.message_id)
            except sqlite3.Error:
                logger.exception(
                    "%d inbound replies held in memory: SQLite failed", len(self.unsaved)
                )
                return
            written = len(self.unsaved) - len(self._seen_before)
            self.unsaved.clear()
            self.duplicates += len(self._seen_before)
            if written:
                self.count += written
                self.changed.notify_all()

    def reject(self, reason: str, size: int, body: bytes | None) -> None:
        """Keep what could not be stored, for inspection."""
        shown = None if body is None else body.decode("utf-8", errors="replace")
        try:
            with self.changed:
                self._db.execute(
                    "INSERT INTO rejects (received_at, reason, size, body) VALUES (?, ?, ?, ?)",
                    (_micros(datetime.now(UTC)), reason, size, shown),
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
    ``path=None`` keeps replies in memory; a file keeps them across runs, with the token and
    port, so the callback URL stays the same after a restart (``token=`` sets it). The data
    stays readable after ``stop()``.
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
    ) -> None:
        if isinstance(max_body, bool) or not isinstance(max_body, int) or max_body < 1024:
            raise ValidationError("max_body", "must be an integer >= 1024 bytes", value=max_body)
        self.path = None if path is None else os.fspath(path)
        self._init_served(host, port)
        self.max_body = max_body
        if token is not None and (not isinstance(token, str) or not _TOKEN_RE.fullmatch(token)):
            raise ValidationError("token", "must be 16 to 128 characters A-Z a-z 0-9 _ -")
        self._store = _Store(self.path)
        # The spec gives the callback no authentication: this token in the URL is the secret.
        # A file inbox keeps its token and port, so the URL registered with the gateway
        # still answers after a kernel restart.
        self._token = token or self._store.remembered("token", None) or secrets.token_urlsafe(24)
        if self.path is not None:
            self._store.remembered("token", self._token)
            if port == 0:
                self.port = int(self._store.remembered("port", None) or 0)
        self._requested_port = port

    # --- lifecycle -------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The callback URL to register with the gateway (it holds the token: keep it private)."""
        return f"{self._served_url()}{self._path(self._token)}"

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
        return self

    def _app(self) -> Any:
        _mask_tokens_in_access_log()
        return _build_app(self._token, self._store, self.max_body)

    def __repr__(self) -> str:
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
        """Replies stored, duplicate deliveries ignored (since this object exists), rejects, and
        replies held in memory because SQLite failed (written at the next success)."""
        rejected = self._store.rows("SELECT COUNT(*) FROM rejects")[0][0]
        with self._store.changed:
            stored, duplicates = self._store.count, self._store.duplicates
            unsaved = len(self._store.unsaved)
        return {
            "stored": stored,
            "duplicates": duplicates,
            "rejected": rejected,
            "unsaved": unsaved,
        }

    def wait(self, n: int, timeout: float = 10.0) -> int:
        """Block until at least ``n`` replies are stored; returns the count.

        Raises ``TimeoutError`` (the built-in) saying how many arrived, if ``timeout``
        seconds pass first. A file inbox counts the replies it already held.
        """
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValidationError("n", "must be an integer >= 0", value=n)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout < 0:
            raise ValidationError("timeout", "must be a number of seconds >= 0", value=timeout)
        store = self._store
        with store.changed:
            if not store.changed.wait_for(lambda: store.count >= n, timeout):
                raise TimeoutError(f"only {store.count} of {n} replies arrived within {timeout} s")
            return store.count

    def to_frame(self) -> pandas.DataFrame:
        """One row per reply, by reception date: :data:`FRAME_COLUMNS`, dates UTC datetimes."""
        import pandas as pd

        rows = self._store.rows(
            "SELECT message_id, number, text, sim_card_number, reception_date, received_at "
            "FROM replies ORDER BY reception_date, message_id"
        )
        frame = pd.DataFrame.from_records(rows, columns=list(FRAME_COLUMNS[:-1]))
        for column in ("reception_date", "received_at"):
            frame[column] = pd.to_datetime(frame[column].astype("int64"), unit="us", utc=True)
        frame["is_opt_out"] = frame["text"].map(is_opt_out).astype(bool)
        return frame

    def opt_outs(self) -> list[str]:
        """Numbers that asked to stop (:func:`is_opt_out`), once each, first asker first.

        Ready for ``client.contact.delete(...)`` or the account blacklist.
        """
        frame = self.to_frame()
        return frame.loc[frame["is_opt_out"], "number"].drop_duplicates().tolist()

    def rejects(self) -> pandas.DataFrame:
        """Bodies POSTed to the URL but not stored: when, why, size, body (None if too large)."""
        import pandas as pd

        rows = self._store.rows("SELECT received_at, reason, size, body FROM rejects ORDER BY id")
        frame = pd.DataFrame.from_records(rows, columns=["received_at", "reason", "size", "body"])
        frame["received_at"] = pd.to_datetime(
            frame["received_at"].astype("int64"), unit="us", utc=True
        )
        return frame


_TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{16,128}")
_TOKEN_IN_PATH = re.compile(r"/callbacks/[^/\s]+/")


class _MaskTokens(logging.Filter):
    """uvicorn's access log (on whenever the notebook configures logging) shows the path."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(
                _TOKEN_IN_PATH.sub("/callbacks/***/", a) if isinstance(a, str) else a
                for a in record.args
            )
        return True


@functools.cache
def _mask_tokens_in_access_log() -> None:
    logging.getLogger("uvicorn.access").addFilter(_MaskTokens())


def _build_app(token: str, store: _Store, max_body: int) -> Any:
    """The receiver: one route; empty bodies in every answer, details only in the log."""
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    expected = token.encode()

    async def inbound(request: Request) -> Response:
        if not hmac.compare_digest(request.path_params["token"].encode(), expected):
            logger.warning("inbound callback refused: wrong token in the URL (404)")
            return Response(status_code=404)
        if request.method != "POST":
            return Response(status_code=405, headers={"Allow": "POST"})
        raw, size = await _read(request, max_body)
        # Spec rule 1: the receiver answers 200 even when it ignores the reply or fails.
        if raw is None:
            store.reject(f"body over {max_body} bytes", size, None)
            logger.warning(
                "inbound callback refused: body over %d bytes (kept in rejects)", max_body
            )
            return Response(status_code=200)
        try:
            reply = _parse(raw)
        except _Malformed as exc:
            store.reject(str(exc), size, raw)
            logger.error("inbound callback rejected (kept in rejects): %s", exc)
            return Response(status_code=200)
        if not store.add(reply):
            logger.info("inbound reply %s received again: ignored", reply.message_id)
        return Response(status_code=200)

    async def http_error(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        return Response(status_code=status)

    async def server_error(request: Request, exc: Exception) -> Response:
        logger.error("inbound callback failed", exc_info=exc)
        return Response(status_code=500)

    methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
    return Starlette(
        routes=[Route("/callbacks/{token}/inbound", inbound, methods=methods)],
        exception_handlers={HTTPException: http_error, Exception: server_error},
    )


async def _read(request: Any, limit: int) -> tuple[bytes | None, int]:
    """The body, or None once it passes ``limit`` bytes (declared or streamed)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return None, int(declared)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None, size
        chunks.append(chunk)
    return b"".join(chunks), size


# --------------------------------------------------------------------------------- analytics


def replies_per_period(replies: pandas.DataFrame, freq: str = "D") -> pandas.DataFrame:
    """Replies and opt-outs per period (``"D"``, ``"h"``, ``"W"``...), gaps filled with 0.

    Periods follow the time zone of ``reception_date`` (UTC from ``Inbox.to_frame()``;
    ``tz_convert`` it first to count per local day). Index: period start.
    """
    import pandas as pd

    _require(replies, ("reception_date",), "replies")
    try:
        offset = pd.tseries.frequencies.to_offset(freq)
    except (TypeError, ValueError):
        raise ValidationError(
            "freq", "must be a pandas frequency such as 'D', 'h' or 'W'", value=freq
        ) from None
    times = _times(replies["reception_date"])
    counts = pd.DataFrame(
        {"replies": 1, "opt_outs": _opt_out_flags(replies).astype("int64").to_numpy()},
        index=pd.DatetimeIndex(times),
    )
    counts = counts[counts.index.notna()]
    result = counts.resample(offset).sum().astype("int64")
    result.index.name = "period"
    return result


def link_replies(replies: pandas.DataFrame, sends: pandas.DataFrame) -> pandas.DataFrame:
    """``replies`` plus a ``ticket`` column: the send each reply most likely answers.

    The callback carries no ticket, so a reply is linked to the latest send to its number
    (digits compared, ``+``/``00`` ignored) sent at or before its reception; when ``sends``
    has ``sender`` and the reply a ``sim_card_number``, they must match (the short number
    that received it). ``sends`` needs ``ticket`` (or ``sms_ticket``) and ``phone_number``;
    with ``with_replies`` only those rows count; without ``sent_at``, the last row of the
    number counts. Unlinked replies get None.
    """
    import pandas as pd

    _require(replies, ("number", "reception_date"), "replies")
    candidates = _sends(sends)
    left = pd.DataFrame(
        {
            "row": range(len(replies)),
            "key": _number_keys(replies["number"]).to_numpy(),
            "at": _times(replies["reception_date"]).to_numpy(),
        }
    )
    if "sim_card_number" in replies.columns:
        left["sim"] = replies["sim_card_number"].map(_text_or_none).to_numpy()
    else:
        left["sim"] = None
    tickets: dict[int, Any] = {}
    if "sent_at" not in candidates.columns:
        latest = candidates.drop_duplicates("key", keep="last").set_index("key")["ticket"]
        tickets = dict(zip(left["row"], left["key"].map(latest), strict=True))
    else:
        left = left[left["at"].notna()].sort_values("at")
        right = candidates.sort_values("sent_at")
        by_sender = "sender" in right.columns
        passes = [(left[left["sim"].isna()] if by_sender else left, ["key"])]
        if by_sender:
            passes.append((left[left["sim"].notna()], ["key", "sim"]))
            right = right.assign(sim=right["sender"].map(_text_or_none))
        for part, keys in passes:
            if part.empty:
                continue
            matched = pd.merge_asof(
                part, right[["sent_at", "ticket", *keys]], left_on="at", right_on="sent_at",
                by=keys, direction="backward",
            )  # fmt: skip
            tickets.update(zip(matched["row"], matched["ticket"], strict=True))
    linked = replies.copy()
    linked["ticket"] = [_text_or_none(tickets.get(row)) for row in range(len(replies))]
    return linked


def reply_rate(replies: pandas.DataFrame, sends: pandas.DataFrame) -> pandas.DataFrame:
    """Per ticket: recipients, replies, repliers, opt_outs, reply_rate, opt_out_rate.

    Rates are distinct numbers over distinct recipients of the ticket; replies are linked
    to tickets by :func:`link_replies`.
    """
    import pandas as pd

    candidates = _sends(sends)
    linked = link_replies(replies, sends)
    linked = linked.assign(
        key=_number_keys(linked["number"]).to_numpy(),
        opt=_opt_out_flags(linked).to_numpy(),
    )
    linked = linked[linked["ticket"].notna()]
    table = pd.DataFrame({"recipients": candidates.groupby("ticket", sort=False)["key"].nunique()})
    by_ticket = linked.groupby("ticket")
    columns = {
        "replies": by_ticket.size(),
        "repliers": by_ticket["key"].nunique(),
        "opt_outs": linked[linked["opt"]].groupby("ticket")["key"].nunique(),
    }
    for name, values in columns.items():
        table[name] = values.reindex(table.index, fill_value=0).astype("int64")
    table["reply_rate"] = table["repliers"] / table["recipients"]
    table["opt_out_rate"] = table["opt_outs"] / table["recipients"]
    table.index.name = "ticket"
    return table


def opt_out_rate(replies: pandas.DataFrame, sends: pandas.DataFrame) -> float:
    """Distinct recipients who opted out (replies linked to ``sends``) / distinct recipients.

    NaN when ``sends`` has no recipient.
    """
    candidates = _sends(sends)
    recipients = candidates["key"].nunique()
    if recipients == 0:
        return float("nan")
    linked = link_replies(replies, sends)
    opted = linked[linked["ticket"].notna() & _opt_out_flags(linked).to_numpy()]
    return _number_keys(opted["number"]).nunique() / recipients


# --- helpers ---------------------------------------------------------------------------------


def _require(frame: Any, columns: Sequence[str], field: str) -> None:
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise ValidationError(field, "must be a pandas DataFrame", value=type(frame).__name__)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValidationError(field, f"needs the column(s) {', '.join(missing)}")


def _sends(sends: Any) -> pandas.DataFrame:
    """ticket, key (+ sent_at, sender when given) of the sends that can be replied to."""
    import pandas as pd

    _require(sends, ("phone_number",), "sends")
    ticket = "ticket" if "ticket" in sends.columns else "sms_ticket"
    if ticket not in sends.columns:
        raise ValidationError("sends", "needs a ticket (or sms_ticket) column")
    rows = sends
    if "with_replies" in rows.columns:
        rows = rows[rows["with_replies"].fillna(False).astype(bool).to_numpy()]
    out = pd.DataFrame(
        {"ticket": rows[ticket].astype(str).to_numpy(),
         "key": _number_keys(rows["phone_number"]).to_numpy()}
    )  # fmt: skip
    if "sender" in rows.columns:
        out["sender"] = rows["sender"].to_numpy()
    if "sent_at" in rows.columns:
        out["sent_at"] = _times(rows["sent_at"]).to_numpy()
        out = out[out["sent_at"].notna()]  # scheduled, not sent yet: nobody can reply
    return out.reset_index(drop=True)


def _times(values: pandas.Series) -> pandas.Series:
    """Datetimes; naive or strings are read as UTC, aware ones keep their zone."""
    import pandas as pd

    if isinstance(values.dtype, pd.DatetimeTZDtype):
        return values
    if pd.api.types.is_datetime64_dtype(values.dtype):
        return values.dt.tz_localize("UTC")
    return pd.to_datetime(values, utc=True, format="ISO8601")


def _number_keys(numbers: pandas.Series) -> pandas.Series:
    """Digits only, without a leading 00: +33 6.. and 0033 6.. compare equal."""
    return (
        numbers.astype(str).str.replace(r"\D", "", regex=True).str.replace(r"^00", "", regex=True)
    )


def _opt_out_flags(frame: pandas.DataFrame) -> pandas.Series:
    if "is_opt_out" in frame.columns:
        return frame["is_opt_out"].fillna(False).astype(bool)
    _require(frame, ("text",), "replies")
    return frame["text"].map(is_opt_out).astype(bool)


def _text_or_none(value: Any) -> str | None:
    import pandas as pd

    return None if value is None or pd.isna(value) else str(value)
