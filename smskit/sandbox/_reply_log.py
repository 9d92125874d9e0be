"""The replies recipients sent the account (simulated), each with the outcome of posting it
to the callback URL. Part of the sandbox's store (``_store``)."""

from __future__ import annotations

from typing import Any

from smskit.sandbox._database import Database, iso

SCHEMA = """
CREATE TABLE IF NOT EXISTS replies (
    message_id TEXT PRIMARY KEY, number TEXT NOT NULL, text TEXT NOT NULL,
    sim_card_number TEXT NOT NULL, reception_date TEXT NOT NULL, callback_url TEXT,
    delivered INTEGER NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0,
    last_status TEXT);
"""
TABLES = ("replies",)


class ReplyLog:
    """Inbound replies of the one sandbox account and their delivery outcomes."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def record(
        self, number: str, text: str, sim_card_number: str, now: float, callback_url: str | None
    ) -> dict[str, Any]:
        """Store an inbound reply; returns the callback body the spec describes."""
        with self._db.transaction() as tx:
            message_id = self._db.next_id(tx, "reply")
            reception = iso(now)
            tx.execute(
                "INSERT INTO replies (message_id, number, text, sim_card_number, reception_date, "
                "callback_url) VALUES (?, ?, ?, ?, ?, ?)",
                (message_id, number, text, sim_card_number, reception, callback_url),
            )
        return {
            "message_id": message_id,
            "number": number,
            "text": text,
            "sim_card_number": sim_card_number,
            "reception_date": reception,
        }

    def mark_delivery(self, message_id: str, delivered: bool, attempts: int, status: str) -> None:
        """Record the outcome of posting a reply to the callback URL."""
        with self._db.transaction() as tx:
            tx.execute(
                "UPDATE replies SET delivered = ?, attempts = ?, last_status = ? "
                "WHERE message_id = ?",
                (delivered, attempts, status, message_id),
            )

    def records(self) -> list[dict[str, Any]]:
        """Every simulated reply with its delivery outcome (control)."""
        with self._db.reading() as db:
            cursor = db.execute(
                "SELECT message_id, number, text, sim_card_number, reception_date, callback_url, "
                "delivered, attempts, last_status FROM replies ORDER BY rowid"
            )
            names = [d[0] for d in cursor.description]
            records = [dict(zip(names, row, strict=True)) for row in cursor]
        for record in records:
            record["delivered"] = bool(record["delivered"])
        return records
