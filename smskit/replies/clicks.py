"""Tracked links served by the inbox: the registry of short links and every request on them.

The inbox's SQLite file holds two more tables. ``links``: token -> campaign, recipient
(number and plan row), which link of the text, and the destination the short link leads
to (UTM parameters already added, :func:`smskit.rules.links.with_utm`). ``clicks``: every
request on a short link, as it came (time on this machine's clock, method, user agent),
also on a token nobody registered (kept clipped, flagged unknown).

``GET {link_base}/{token}`` answers ``302 Found`` with ``Location`` the destination and
``Cache-Control: no-store`` (a browser that cached a permanent redirect would open the shop
without asking again, and that click would never be counted); ``HEAD`` the same without a
body. An unknown token answers a plain ``404`` page: never a redirect, so the inbox is no
open redirect. The request is stored before the answer (a write that fails is held in
memory and written with the next one); telling bots apart waits for analysis
(:mod:`smskit.rules.bots`).

May import: ``smskit.rules``, ``smskit.errors`` and the top-level infrastructure modules.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import quote, urlsplit

from smskit import _sqlite
from smskit.errors import ValidationError
from smskit.rules.bots import BotRules, classify
from smskit.rules.links import TOKEN_RE
from smskit.rules.ranges import checked_integer

if TYPE_CHECKING:
    import pandas

__all__ = ["CLICK_COLUMNS", "LINK_COLUMNS", "SCHEMA", "LinkBook", "link_endpoint"]

logger = logging.getLogger("smskit.replies.inbox")

SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS links (
    token TEXT PRIMARY KEY, campaign TEXT NOT NULL, phone_number TEXT NOT NULL,
    row INTEGER NOT NULL, link INTEGER NOT NULL, destination TEXT NOT NULL,
    created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS clicks (
    id INTEGER PRIMARY KEY, token TEXT NOT NULL, at INTEGER NOT NULL, method TEXT NOT NULL,
    user_agent TEXT, known INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS clicks_by_token ON clicks (token);
"""
LINK_COLUMNS: Final = ("token", "campaign", "phone_number", "row", "link", "destination")
CLICK_COLUMNS: Final = (
    "at", "token", "method", "user_agent", "campaign", "phone_number", "row", "link",
    "destination", "reason", "bot",
)  # fmt: skip
_CLIPPED: Final = 64  # an unknown token is kept this long at most: a path is no diary
_AGENT_MAX: Final = 512
_NOT_FOUND: Final = (
    b"<!doctype html><title>Link not found</title><p>This link does not exist or has expired."
)
_SAFE: Final = ":/?#[]@!$&'()*+,;=%~"


def _micros() -> int:
    return time.time_ns() // 1000


class LinkBook:
    """The registry and the clicks, on the inbox's SQLite connection, under its lock."""

    def __init__(self, db: sqlite3.Connection, lock: threading.Condition) -> None:
        self._db = db
        self._lock = lock
        self._known: dict[str, str] = {}  # token -> destination, filled as asked
        self.pending: list[tuple[str, int, str, str | None, int]] = []  # clicks not yet written

    def register(self, campaign: str, rows: Iterable[tuple[str, str, int, int, str]]) -> int:
        """Store ``(token, phone_number, row, link, destination)`` rows of ``campaign``; a token
        already registered with the same row is kept (a resumed campaign registers again),
        with another one refused. Returns how many were new."""
        if not isinstance(campaign, str) or not campaign:
            raise ValidationError("campaign", "must be a non-blank string", value=campaign)
        checked = [_checked_link(campaign, *row) for row in rows]
        now = _micros()
        with _sqlite.transaction(self._db, self._lock) as db:
            before = db.total_changes
            db.executemany(
                "INSERT OR IGNORE INTO links VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(*row, now) for row in checked],
            )
            added = db.total_changes - before
            if added != len(checked):
                _check_same(db, checked)
        return added

    def destination(self, token: str) -> str | None:
        """Where ``token`` leads, or None (looked up in the file when not yet known here:
        another process may have registered it)."""
        found = self._known.get(token)
        if found is None and TOKEN_RE.fullmatch(token):
            with self._lock:
                row = self._db.execute(
                    "SELECT destination FROM links WHERE token = ?", (token,)
                ).fetchone()
            if row is not None:
                found = self._known[token] = str(row[0])
        return found

    def record(self, token: str, method: str, user_agent: str | None, known: bool) -> None:
        """Store one request (before it is answered); held in memory if SQLite fails."""
        agent = None if user_agent is None else user_agent[:_AGENT_MAX]
        click = (token[:_CLIPPED], _micros(), method, agent, int(known))
        with self._lock:
            self.pending.append(click)
            self.flush()

    def flush(self) -> None:
        """Write the clicks held in memory; keep them if SQLite still fails."""
        with self._lock:
            if not self.pending:
                return
            try:
                with _sqlite.transaction(self._db, self._lock) as db:
                    db.executemany(
                        "INSERT INTO clicks (token, at, method, user_agent, known) "
                        "VALUES (?, ?, ?, ?, ?)",
                        self.pending,
                    )
            except sqlite3.Error:
                logger.exception(
                    "%d link requests held in memory: SQLite failed", len(self.pending)
                )
                return
            self.pending = []

    def counts(self) -> dict[str, int]:
        """Links registered, requests on them, requests on unknown tokens, requests held."""
        with self._lock:
            self.flush()
            links = self._db.execute("SELECT COUNT(*) FROM links").fetchone()[0]
            known, unknown = self._db.execute(
                "SELECT COALESCE(SUM(known), 0), COALESCE(SUM(1 - known), 0) FROM clicks"
            ).fetchone()
            return {
                "links": links, "clicks": known, "unknown_link_requests": unknown,
                "clicks_unsaved": len(self.pending),
            }  # fmt: skip

    def links_frame(self) -> pandas.DataFrame:
        """One row per registered short link: :data:`LINK_COLUMNS`."""
        import pandas as pd

        with self._lock:
            rows = self._db.execute(
                f"SELECT {', '.join(LINK_COLUMNS)} FROM links ORDER BY campaign, row, link"
            ).fetchall()
        frame = pd.DataFrame.from_records(rows, columns=list(LINK_COLUMNS))
        return frame.astype({"row": "int64", "link": "int64"})

    def clicks_frame(self, zone: Any, bots: BotRules | None) -> pandas.DataFrame:
        """One row per request on a registered link, oldest first: :data:`CLICK_COLUMNS`;
        ``reason`` is ``human`` or the bot reason of :func:`smskit.rules.bots.classify`
        (without the delivery rule: the campaign's outcomes know delivery times)."""
        import pandas as pd

        with self._lock:
            self.flush()
            rows = self._db.execute(
                "SELECT c.at, c.token, c.method, c.user_agent, l.campaign, l.phone_number, "
                "l.row, l.link, l.destination FROM clicks c JOIN links l ON l.token = c.token "
                "WHERE c.known = 1 ORDER BY c.at, c.id"
            ).fetchall()
        frame = pd.DataFrame.from_records(rows, columns=list(CLICK_COLUMNS[:-2]))
        frame["at"] = pd.to_datetime(frame["at"].astype("int64"), unit="us", utc=True)
        frame = frame.astype({"row": "int64", "link": "int64"})
        frame["reason"] = classify(frame, bots).astype(object)
        frame["bot"] = frame["reason"].ne("human")
        frame["at"] = frame["at"].dt.tz_convert(zone)
        return frame


def _checked_link(
    campaign: str, token: Any, number: Any, row: Any, link: Any, destination: Any
) -> tuple[str, str, str, int, int, str]:
    if not isinstance(token, str) or not TOKEN_RE.fullmatch(token):
        raise ValidationError("token", "must be a token of smskit.rules.links", value=token)
    if not isinstance(number, str) or not number:
        raise ValidationError(f"links[{token}].phone_number", "must be a number", value=number)
    row = checked_integer(f"links[{token}].row", row, low=0)
    link = checked_integer(f"links[{token}].link", link, low=0)
    return token, campaign, number, row, link, location(destination, token)


def location(destination: Any, token: str = "") -> str:
    """``destination`` as a ``Location`` header carries it: an absolute http(s) URL, any
    character outside ASCII (or a space) percent-encoded as UTF-8."""
    where = f"links[{token}].destination" if token else "destination"
    if not isinstance(destination, str):
        raise ValidationError(where, "must be an http(s) URL", value=destination)
    encoded = quote(destination, safe=_SAFE)
    parts = urlsplit(encoded)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise ValidationError(where, "must be an absolute http(s) URL", value=destination)
    return encoded


def _check_same(db: sqlite3.Connection, checked: list[tuple[str, str, str, int, int, str]]) -> None:
    """A token registered before must name the same campaign, recipient, link, destination."""
    for token, *rest in checked:
        stored = db.execute(
            "SELECT campaign, phone_number, row, link, destination FROM links WHERE token = ?",
            (token,),
        ).fetchone()
        if stored is not None and tuple(stored) != tuple(rest):
            raise ValidationError(
                f"links[{token}]", "is registered already for another recipient or destination"
            )


def link_endpoint(book: LinkBook) -> Any:
    """The Starlette endpoint of ``{link_base}/{token}`` (GET and HEAD)."""
    from starlette.requests import Request
    from starlette.responses import Response

    async def follow(request: Request) -> Response:
        token = request.path_params["token"]
        destination = book.destination(token)
        book.record(
            token, request.method, request.headers.get("user-agent"), destination is not None
        )
        if destination is None:
            return Response(_NOT_FOUND, status_code=404, media_type="text/html")
        return Response(
            status_code=302, headers={"Location": destination, "Cache-Control": "no-store"}
        )

    return follow
