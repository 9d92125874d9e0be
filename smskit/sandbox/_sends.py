"""The account's sends: each one priced, charged and recorded in one transaction, its
messages (sent, or scheduled until due), the recipients it ignored, its ``request_id``
kept 24 h (a repeat refused, see ``_request_ids``). Part of the sandbox's store (``_store``).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from smskit.rules import spec as _spec
from smskit.rules.answers import BLANK_CODE, NO_RECIPIENT_MESSAGE, RECIPIENTS_FIELD, nobody_left
from smskit.sandbox import _request_ids
from smskit.sandbox._account import Account
from smskit.sandbox._casting import NOT_ALLOWED
from smskit.sandbox._contact_book import ContactBook
from smskit.sandbox._database import Database, derive_id, iso
from smskit.sandbox._domain import Dropped, Message, SendRequest, validation_error
from smskit.sandbox._prices import to_eur, to_micros
from smskit.sandbox._request_ids import DuplicateAnswer

REQUEST_ID_TTL = _spec.REQUEST_ID_TTL_HOURS * 3600.0
BLACKLIST_FEE = to_micros(_spec.BLACKLIST_REMOVAL_FEE_EUR)

SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS campaigns (
    sms_ticket TEXT PRIMARY KEY, request_id TEXT, created_at REAL NOT NULL, send_at REAL,
    number_of_contacts INTEGER NOT NULL, number_of_sms_needed INTEGER NOT NULL,
    total_cost INTEGER NOT NULL, blacklisted_removed INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY, sms_ticket TEXT NOT NULL, request_id TEXT,
    phone_number TEXT NOT NULL, country_code TEXT NOT NULL, text TEXT NOT NULL,
    segments INTEGER NOT NULL, unit_price INTEGER NOT NULL, cost INTEGER NOT NULL,
    status TEXT NOT NULL, send_at REAL, sent_at REAL, sender TEXT NOT NULL, type TEXT NOT NULL,
    purpose TEXT NOT NULL, with_replies INTEGER NOT NULL, created_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS messages_due ON messages (send_at) WHERE status = 'scheduled';
CREATE TABLE IF NOT EXISTS dropped (
    sms_ticket TEXT NOT NULL, position INTEGER NOT NULL, phone_number TEXT NOT NULL,
    reason TEXT NOT NULL, created_at REAL NOT NULL);
"""
    + _request_ids.SCHEMA
)
TABLES = ("campaigns", "messages", "dropped", *_request_ids.TABLES)

SENT_COLUMNS = (
    "sms_ticket", "request_id", "phone_number", "country_code", "text", "segments",
    "unit_price", "cost", "status", "send_at", "sent_at", "sender", "type", "purpose",
    "with_replies", "created_at",
)  # fmt: skip
DROPPED_COLUMNS = ("sms_ticket", "position", "phone_number", "reason", "created_at")


class Sends:
    """Sends of the one sandbox account; they draw on its ``account`` and read its ``book``'s
    blacklist."""

    def __init__(self, db: Database, account: Account, book: ContactBook) -> None:
        self._db = db
        self._account = account
        self._book = book

    def dispatch_due(self, now: float) -> int:
        """Scheduled messages whose time has come become ``sent``; returns how many."""
        with self._db.transaction() as tx:
            return _dispatch(tx, now)

    def send(
        self,
        request: SendRequest,
        messages: list[Message],
        dropped: list[Dropped],
        now: float,
        duplicate_answer: DuplicateAnswer = "spec",
    ) -> dict[str, Any]:
        """Price, charge and record a send in one transaction (simulation: nothing written).

        A ``request_id`` accepted in the last 24 h is refused (in ``duplicate_answer``'s
        shape). ``dropped`` are the recipients the gateway ignored (convention 3); blacklisted
        numbers removed on request join them, and all are recorded with their reason. When no
        recipient is left, the required ``recipients`` is blank: refused, nothing recorded.
        """
        product = request.type
        with self._db.transaction() as tx:
            _dispatch(tx, now)
            if request.request_id is not None:
                _request_ids.check_unused(
                    tx, request.request_id, now, REQUEST_ID_TTL, duplicate_answer
                )
            removed = 0
            if request.auto_remove_blacklisted_numbers:
                blocked = self._book.blacklisted(tx, [m.phone_number for m in messages])
                removed = sum(m.phone_number in blocked for m in messages)
                dropped = dropped + [
                    Dropped(m.index, m.phone_number, "blacklisted, removed on request")
                    for m in messages
                    if m.phone_number in blocked
                ]
                messages = [m for m in messages if m.phone_number not in blocked]
            if nobody_left(len(messages)):
                raise validation_error(
                    {RECIPIENTS_FIELD: {"code": BLANK_CODE, "message": NO_RECIPIENT_MESSAGE}}
                )
            unserved: dict[str, dict[str, Any]] = {}
            rows = []
            total = 0
            segments = 0
            send_at = request.send_at.timestamp() if request.send_at is not None else None
            status = "scheduled" if send_at is not None else "sent"
            sent_at = None if send_at is not None else now
            for message in messages:
                price = self._account.unit_price(message.country_code, product)
                if price is None:
                    key = f"recipients[{message.index}].phone_number"
                    unserved[key] = {
                        "code": NOT_ALLOWED,
                        "message": f"{key}: destination not served "
                        f"({message.country_code}, {product}).",
                    }
                    continue
                cost = price * message.segments
                total += cost
                segments += message.segments
                rows.append(
                    (message.phone_number, message.country_code, message.text, message.segments,
                     price, cost)
                )  # fmt: skip
            if unserved:
                raise validation_error(unserved)
            if request.auto_remove_blacklisted_numbers:
                total += BLACKLIST_FEE
            residual = self._account.charge(
                tx, total, "this send", now, commit=not request.simulation_mode
            )
            if request.simulation_mode:
                upcoming = (self._db.meta(tx, "seq:ticket") or 0) + 1
                ticket = "sim-" + derive_id(self._db.seed, "simulation", upcoming)
            else:
                ticket = self._db.next_id(tx, "ticket")
            answer = {
                "sms_ticket": ticket,
                "number_of_contacts": len(rows),
                "number_of_sms_needed": segments,
                "residual_credit": to_eur(residual),
                "total_cost": to_eur(total),
            }
            if not request.simulation_mode:
                tx.executemany(
                    f"INSERT INTO messages ({', '.join(SENT_COLUMNS)}) "
                    f"VALUES ({', '.join('?' * len(SENT_COLUMNS))})",
                    [
                        (ticket, request.request_id, *row, status, send_at, sent_at,
                         request.sender_used, product, request.purpose, request.with_replies, now)
                        for row in rows
                    ],
                )  # fmt: skip
                tx.execute(
                    "INSERT INTO campaigns VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (ticket, request.request_id, now, send_at, len(rows), segments, total, removed),
                )
                if request.request_id is not None:
                    _request_ids.remember(tx, request.request_id, ticket, now)
                tx.executemany(
                    "INSERT INTO dropped VALUES (?, ?, ?, ?, ?)",
                    [
                        (ticket, d.index, d.phone_number, d.reason, now)
                        for d in sorted(dropped, key=lambda d: d.index)
                    ],
                )
        return answer

    def sent(self, now: float) -> list[dict[str, Any]]:
        """Every accepted recipient, oldest first (due scheduled messages dispatched first)."""
        with self._db.transaction() as tx:
            _dispatch(tx, now)
            rows = tx.execute(f"SELECT {', '.join(SENT_COLUMNS)} FROM messages ORDER BY id")
            records = [dict(zip(SENT_COLUMNS, row, strict=True)) for row in rows]
        for record in records:
            record["unit_price"] = to_eur(record["unit_price"])
            record["cost"] = to_eur(record["cost"])
            record["with_replies"] = bool(record["with_replies"])
            for key in ("send_at", "sent_at", "created_at"):
                record[key] = iso(record[key])
        return records

    def dropped(self) -> list[dict[str, Any]]:
        """Every recipient a send ignored, with the reason, oldest first (control)."""
        names = DROPPED_COLUMNS
        with self._db.reading() as db:
            rows = db.execute(f"SELECT {', '.join(names)} FROM dropped ORDER BY rowid")
            return [{**dict(zip(names, r, strict=True)), "created_at": iso(r[4])} for r in rows]


def _dispatch(tx: sqlite3.Connection, now: float) -> int:
    cursor = tx.execute(
        "UPDATE messages SET status = 'sent', sent_at = send_at "
        "WHERE status = 'scheduled' AND send_at <= ?",
        (now,),
    )
    return cursor.rowcount
