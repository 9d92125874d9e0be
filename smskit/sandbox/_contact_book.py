"""The account's contacts, their lists and tags, and the blacklist. Part of the sandbox's
store (``_store``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from smskit.rules.fields import DYNAMIC_FIELDS
from smskit.sandbox._database import Database
from smskit.sandbox._domain import ContactCreate, ContactDelete

SCHEMA = """
CREATE TABLE IF NOT EXISTS contacts (
    phone_number TEXT PRIMARY KEY, email TEXT NOT NULL DEFAULT '',
    first_name TEXT, last_name TEXT, param1 TEXT, param2 TEXT, param3 TEXT, param4 TEXT,
    param5 TEXT, created_at REAL NOT NULL, updated_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS lists (list_name TEXT PRIMARY KEY, created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS list_members (
    list_name TEXT NOT NULL, phone_number TEXT NOT NULL, PRIMARY KEY (list_name, phone_number));
CREATE TABLE IF NOT EXISTS contact_tags (
    phone_number TEXT NOT NULL, tag_name TEXT NOT NULL, PRIMARY KEY (phone_number, tag_name));
CREATE TABLE IF NOT EXISTS blacklist (
    phone_number TEXT PRIMARY KEY, added_at REAL NOT NULL, source TEXT NOT NULL);
"""
TABLES = ("contacts", "lists", "list_members", "contact_tags", "blacklist")


class ContactBook:
    """Contacts, lists, tags and blacklist of the one sandbox account."""

    def __init__(self, db: Database) -> None:
        self._db = db

    # --- contacts --------------------------------------------------------------------------

    def create(self, request: ContactCreate, now: float) -> list[dict[str, str]]:
        """Add, update or skip each contact; attach list and tag to those added or updated."""
        items = []
        with self._db.transaction() as tx:
            blocked: set[str] = set()
            if request.auto_remove_blacklisted_numbers:
                blocked = self.blacklisted(tx, [p.phone_number for p in request.contacts])
            if request.list_name is not None:
                tx.execute("INSERT OR IGNORE INTO lists VALUES (?, ?)", (request.list_name, now))
            for person in request.contacts:
                number = person.phone_number
                row = tx.execute(
                    "SELECT email FROM contacts WHERE phone_number = ?", (number,)
                ).fetchone()
                if number in blocked or (row is not None and request.do_not_overwrite):
                    status = "skipped"
                    email = "" if row is None else row[0]
                elif row is None:
                    status = "added"
                    email = person.email or ""
                    values = [person.fields.get(name) for name in DYNAMIC_FIELDS]
                    tx.execute(
                        "INSERT INTO contacts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (number, email, *values, now, now),
                    )
                else:
                    status = "updated"
                    changes = dict(person.fields)
                    if person.email is not None:
                        changes["email"] = person.email
                    email = changes.get("email", row[0]) or ""
                    assignments = "".join(f", {name} = ?" for name in changes)
                    tx.execute(
                        f"UPDATE contacts SET updated_at = ?{assignments} WHERE phone_number = ?",
                        (now, *changes.values(), number),
                    )
                if status != "skipped":
                    if request.list_name is not None:
                        tx.execute(
                            "INSERT OR IGNORE INTO list_members VALUES (?, ?)",
                            (request.list_name, number),
                        )
                    if request.tag_name is not None:
                        tx.execute(
                            "INSERT OR IGNORE INTO contact_tags VALUES (?, ?)",
                            (number, request.tag_name),
                        )
                items.append({"phone_number": number, "email": email, "status": status})
        return items

    def delete(self, request: ContactDelete) -> None:
        """Remove numbers from one list, or from the account (lists and tags included)."""
        numbers = list(request.phone_numbers)
        marks = ",".join("?" * len(numbers))
        with self._db.transaction() as tx:
            if request.list_name is not None:
                tx.execute(
                    f"DELETE FROM list_members WHERE list_name = ? AND phone_number IN ({marks})",
                    (request.list_name, *numbers),
                )
                return
            for table in ("contacts", "list_members", "contact_tags"):
                tx.execute(f"DELETE FROM {table} WHERE phone_number IN ({marks})", numbers)

    def empty_list(self, name: str) -> int:
        """Remove every member of a list (contacts stay in the account); returns how many.

        A list never created is empty already: 0, as deleting from it removes nothing.
        """
        with self._db.transaction() as tx:
            return tx.execute("DELETE FROM list_members WHERE list_name = ?", (name,)).rowcount

    def records(self) -> list[dict[str, Any]]:
        """Every contact with its lists and tags (control)."""
        columns = ("phone_number", "email", *DYNAMIC_FIELDS)
        with self._db.reading() as db:
            rows = db.execute(
                f"SELECT {', '.join(columns)} FROM contacts ORDER BY created_at, phone_number"
            ).fetchall()
            lists = _group(db, "SELECT phone_number, list_name FROM list_members ORDER BY 2")
            tags = _group(db, "SELECT phone_number, tag_name FROM contact_tags ORDER BY 2")
        return [
            {**dict(zip(columns, row, strict=True)), "lists": lists.get(row[0], []),
             "tags": tags.get(row[0], [])}
            for row in rows
        ]  # fmt: skip

    def lists(self) -> dict[str, int]:
        """Every list name with its member count (control)."""
        with self._db.reading() as db:
            rows = db.execute(
                "SELECT l.list_name, COUNT(m.phone_number) FROM lists l "
                "LEFT JOIN list_members m USING (list_name) GROUP BY l.list_name ORDER BY 1"
            )
            return dict(rows.fetchall())

    # --- blacklist -------------------------------------------------------------------------

    def blacklist(self) -> list[str]:
        """Blacklisted numbers, sorted."""
        with self._db.reading() as db:
            return [r[0] for r in db.execute("SELECT phone_number FROM blacklist ORDER BY 1")]

    def add_to_blacklist(self, numbers: Iterable[str], now: float, source: str) -> None:
        """Blacklist numbers (already normalised)."""
        with self._db.transaction() as tx:
            tx.executemany(
                "INSERT OR IGNORE INTO blacklist VALUES (?, ?, ?)",
                [(n, now, source) for n in numbers],
            )

    @staticmethod
    def blacklisted(tx: sqlite3.Connection, numbers: Sequence[str]) -> set[str]:
        """Which of ``numbers`` are blacklisted, inside the caller's transaction."""
        found: set[str] = set()
        for start in range(0, len(numbers), 500):
            chunk = numbers[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = tx.execute(
                f"SELECT phone_number FROM blacklist WHERE phone_number IN ({marks})", chunk
            )
            found.update(row[0] for row in rows)
        return found


def _group(db: sqlite3.Connection, sql: str) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for key, value in db.execute(sql):
        grouped.setdefault(key, []).append(value)
    return grouped
