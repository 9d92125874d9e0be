"""The sandbox account's state in SQLite: one connection, one lock, one transaction per operation.

Every operation that reads then writes (balance, request ids, contacts) holds the lock for
its whole transaction, so concurrent clients never lose a balance update or a recipient.
Money is integer micro-euros; times are Unix timestamps from the sandbox clock.

A send's ``request_id`` is kept 24 h; a repeat is refused (see ``_request_ids``).
"""

from __future__ import annotations

import base64
import hashlib
import json
import sqlite3
import threading
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any

from smskit import _sqlite
from smskit.rules import spec as _spec
from smskit.rules.answers import BLANK_CODE, NO_RECIPIENT_MESSAGE, RECIPIENTS_FIELD, nobody_left
from smskit.rules.fields import DYNAMIC_FIELDS
from smskit.sandbox import _wallet
from smskit.sandbox._casting import NOT_ALLOWED
from smskit.sandbox._domain import (
    CODE_INSUFFICIENT_CREDIT,
    ContactCreate,
    ContactDelete,
    Dropped,
    GatewayError,
    Message,
    SendRequest,
    validation_error,
)
from smskit.sandbox._prices import (
    CREDIT_KEYS,
    CURRENCY,
    default_prices,
    to_eur,
    to_micros,
)
from smskit.sandbox._request_ids import DuplicateAnswer, check_unused, remember

REQUEST_ID_TTL = _spec.REQUEST_ID_TTL_HOURS * 3600.0
BLACKLIST_FEE = to_micros(_spec.BLACKLIST_REMOVAL_FEE_EUR)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS prices (
    country_code TEXT NOT NULL, product_name TEXT NOT NULL, micros INTEGER NOT NULL,
    PRIMARY KEY (country_code, product_name));
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
CREATE TABLE IF NOT EXISTS request_ids (
    request_id TEXT PRIMARY KEY, sms_ticket TEXT NOT NULL, created_at REAL NOT NULL);
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
CREATE TABLE IF NOT EXISTS tokens (
    token TEXT PRIMARY KEY, email_to TEXT NOT NULL, created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS replies (
    message_id TEXT PRIMARY KEY, number TEXT NOT NULL, text TEXT NOT NULL,
    sim_card_number TEXT NOT NULL, reception_date TEXT NOT NULL, callback_url TEXT,
    delivered INTEGER NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0,
    last_status TEXT);
"""
_TABLES = (
    "meta", "prices", "contacts", "lists", "list_members", "contact_tags", "blacklist",
    "request_ids", "campaigns", "messages", "tokens", "replies", "wallet_packs", "dropped",
)  # fmt: skip

SENT_COLUMNS = (
    "sms_ticket", "request_id", "phone_number", "country_code", "text", "segments",
    "unit_price", "cost", "status", "send_at", "sent_at", "sender", "type", "purpose",
    "with_replies", "created_at",
)  # fmt: skip


def iso(timestamp: float | None) -> str | None:
    """Unix timestamp -> ISO 8601 UTC with offset (None stays None)."""
    if timestamp is None:
        return None
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds")


def derive_id(seed: int, kind: str, n: int, length: int = 12) -> str:
    """The n-th identifier of a kind for a seed: same seed, same sequence, across runs."""
    digest = hashlib.sha256(f"smskit-sandbox:{seed}:{kind}:{n}".encode()).digest()
    if kind == "token":
        return base64.urlsafe_b64encode(digest).decode()[:length]
    return digest.hex()[:length]


class Store:
    """SQLite-backed account; safe to call from any thread."""

    def __init__(self, path: str | None, *, seed: int, balance: float, now: float) -> None:
        self.seed = seed
        self.initial_balance = to_micros(balance)
        self._lock = threading.RLock()
        self._db = _sqlite.connect(path or None, _SCHEMA + _wallet.SCHEMA)
        with self._tx() as db:
            if self._meta(db, "opened") is None:
                self._seed_defaults(db, now)
        self._prices = self._load_prices()

    # --- plumbing --------------------------------------------------------------------------

    def _tx(self) -> AbstractContextManager[sqlite3.Connection]:
        return _sqlite.transaction(self._db, self._lock)

    @staticmethod
    def _meta(db: sqlite3.Connection, key: str) -> Any:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    @staticmethod
    def _set_meta(db: sqlite3.Connection, key: str, value: Any) -> None:
        db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, json.dumps(value)),
        )

    def _next_id(self, db: sqlite3.Connection, kind: str, length: int = 12) -> str:
        n = (self._meta(db, f"seq:{kind}") or 0) + 1
        self._set_meta(db, f"seq:{kind}", n)
        return derive_id(self.seed, kind, n, length)

    def _seed_defaults(self, db: sqlite3.Connection, now: float) -> None:
        self._set_meta(db, "opened", now)
        if (legacy := self._meta(db, "balance")) is not None:  # a file from before the packs
            _wallet.replace(db, self._pack_id(db), int(legacy), now)
            return
        _wallet.open_account(db, self._pack_id(db), self.initial_balance, now)
        db.executemany(
            "INSERT INTO prices (country_code, product_name, micros) VALUES (?, ?, ?)",
            [(c, p, m) for (c, p), m in default_prices().items()],
        )

    def _load_prices(self) -> dict[tuple[str, str], int]:
        with self._lock:
            rows = self._db.execute("SELECT country_code, product_name, micros FROM prices")
            return {(c, p): m for c, p, m in rows}

    def close(self) -> None:
        """Close the database (a file keeps its state for the next Sandbox on that path)."""
        with self._lock:
            self._db.close()

    def _pack_id(self, db: sqlite3.Connection) -> Callable[[], str]:
        return lambda: self._next_id(db, "pack")

    def reset(self, now: float) -> None:
        """Back to a fresh account: default balance and prices, every table emptied."""
        with self._tx() as db:
            for table in _TABLES:
                db.execute(f"DELETE FROM {table}")
            self._seed_defaults(db, now)
        self._prices = self._load_prices()

    # --- wallet ----------------------------------------------------------------------------

    def balance_micros(self, now: float) -> int:
        """Current balance in micro-euros: credit left in the packs not expired at ``now``."""
        with self._lock:
            return _wallet.balance(self._db, now)

    def wallet_packs(self, now: float) -> list[_wallet.Pack]:
        """Packs with credit left, not expired at ``now``, the first to expire first."""
        with self._lock:
            return _wallet.packs(self._db, now)

    def set_balance(self, amount_eur: float, now: float) -> None:
        """Set the balance (control): every pack replaced by one of that amount."""
        with self._tx() as db:
            _wallet.replace(db, self._pack_id(db), to_micros(amount_eur), now)

    def add_pack(self, amount_eur: float, expires_at: float, now: float) -> str:
        """Add a pack of credit expiring at ``expires_at`` (control); returns its id."""
        with self._tx() as db:
            return _wallet.add(db, self._pack_id(db), to_micros(amount_eur), expires_at, now)

    def prices(self) -> dict[tuple[str, str], int]:
        """``{(country_code, product_name): micro-euros}``."""
        return dict(self._prices)

    def set_price(self, country_code: str, product_name: str, price_eur: float) -> None:
        """Set one unit price (control); a new country becomes served."""
        with self._tx() as db:
            db.execute(
                "INSERT INTO prices (country_code, product_name, micros) VALUES (?, ?, ?) "
                "ON CONFLICT DO UPDATE SET micros = excluded.micros",
                (country_code, product_name, to_micros(price_eur)),
            )
        self._prices = self._load_prices()

    def countries(self) -> list[str]:
        """Priced countries, sorted."""
        return sorted({country for country, _ in self._prices})

    def credits(self, balance: int, country: str) -> dict[str, int]:
        """How many units of each product the balance buys in a country (0 when unpriced)."""
        result = {}
        for product, key in CREDIT_KEYS.items():
            price = self._prices.get((country, product))
            result[key] = balance // price if price else 0
        return result

    def _charge(
        self, db: sqlite3.Connection, cost: int, what: str, now: float, *, commit: bool
    ) -> int:
        balance = _wallet.balance(db, now)
        if cost > balance:
            raise GatewayError(
                400,
                {
                    "code": CODE_INSUFFICIENT_CREDIT,
                    "message": (
                        f"Insufficient credit: {what} costs {to_eur(cost):.4f} {CURRENCY}, "
                        f"the balance is {to_eur(balance):.4f} {CURRENCY}."
                    ),
                },
            )
        if commit:
            _wallet.consume(db, cost, now)
        return balance - cost

    # --- sends -----------------------------------------------------------------------------

    def dispatch_due(self, now: float) -> int:
        """Scheduled messages whose time has come become ``sent``; returns how many."""
        with self._tx() as db:
            return self._dispatch(db, now)

    @staticmethod
    def _dispatch(db: sqlite3.Connection, now: float) -> int:
        cursor = db.execute(
            "UPDATE messages SET status = 'sent', sent_at = send_at "
            "WHERE status = 'scheduled' AND send_at <= ?",
            (now,),
        )
        return cursor.rowcount

    def _blacklisted(self, db: sqlite3.Connection, numbers: Sequence[str]) -> set[str]:
        found: set[str] = set()
        for start in range(0, len(numbers), 500):
            chunk = numbers[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = db.execute(
                f"SELECT phone_number FROM blacklist WHERE phone_number IN ({marks})",
                chunk,
            )
            found.update(row[0] for row in rows)
        return found

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
        with self._tx() as db:
            self._dispatch(db, now)
            if request.request_id is not None:
                check_unused(db, request.request_id, now, REQUEST_ID_TTL, duplicate_answer)
            removed = 0
            if request.auto_remove_blacklisted_numbers:
                blocked = self._blacklisted(db, [m.phone_number for m in messages])
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
                price = self._prices.get((message.country_code, product))
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
            residual = self._charge(db, total, "this send", now, commit=not request.simulation_mode)
            if request.simulation_mode:
                upcoming = (self._meta(db, "seq:ticket") or 0) + 1
                ticket = "sim-" + derive_id(self.seed, "simulation", upcoming)
            else:
                ticket = self._next_id(db, "ticket")
            answer = {
                "sms_ticket": ticket,
                "number_of_contacts": len(rows),
                "number_of_sms_needed": segments,
                "residual_credit": to_eur(residual),
                "total_cost": to_eur(total),
            }
            if not request.simulation_mode:
                db.executemany(
                    "INSERT INTO messages (sms_ticket, request_id, phone_number, country_code, "
                    "text, segments, unit_price, cost, status, send_at, sent_at, sender, type, "
                    "purpose, with_replies, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        (ticket, request.request_id, *row, status, send_at, sent_at,
                         request.sender_used, product, request.purpose, request.with_replies, now)
                        for row in rows
                    ],
                )  # fmt: skip
                db.execute(
                    "INSERT INTO campaigns VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (ticket, request.request_id, now, send_at, len(rows), segments, total, removed),
                )
                if request.request_id is not None:
                    remember(db, request.request_id, ticket, now)
                db.executemany(
                    "INSERT INTO dropped VALUES (?, ?, ?, ?, ?)",
                    [
                        (ticket, d.index, d.phone_number, d.reason, now)
                        for d in sorted(dropped, key=lambda d: d.index)
                    ],
                )
        return answer

    def sent(self, now: float) -> list[dict[str, Any]]:
        """Every accepted recipient, oldest first (due scheduled messages dispatched first)."""
        with self._tx() as db:
            self._dispatch(db, now)
            rows = db.execute(f"SELECT {', '.join(SENT_COLUMNS)} FROM messages ORDER BY id")
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
        names = ("sms_ticket", "position", "phone_number", "reason", "created_at")
        with self._lock:
            rows = self._db.execute(f"SELECT {', '.join(names)} FROM dropped ORDER BY rowid")
            return [{**dict(zip(names, r, strict=True)), "created_at": iso(r[4])} for r in rows]

    # --- HLR -------------------------------------------------------------------------------

    def charge_hlr(self, countries: Sequence[str | None], now: float, *, simulation: bool) -> int:
        """Charge one HLR unit per number of a priced country; returns the cost in micros."""
        cost = sum(self._prices.get((c or "", "hlr"), 0) for c in countries)
        with self._tx() as db:
            self._charge(db, cost, "this HLR request", now, commit=not simulation)
        return cost

    # --- contacts --------------------------------------------------------------------------

    def create_contacts(self, request: ContactCreate, now: float) -> list[dict[str, str]]:
        """Add, update or skip each contact; attach list and tag to those added or updated."""
        items = []
        with self._tx() as db:
            blocked: set[str] = set()
            if request.auto_remove_blacklisted_numbers:
                blocked = self._blacklisted(db, [p.phone_number for p in request.contacts])
            if request.list_name is not None:
                db.execute("INSERT OR IGNORE INTO lists VALUES (?, ?)", (request.list_name, now))
            for person in request.contacts:
                number = person.phone_number
                row = db.execute(
                    "SELECT email FROM contacts WHERE phone_number = ?", (number,)
                ).fetchone()
                if number in blocked or (row is not None and request.do_not_overwrite):
                    status = "skipped"
                    email = "" if row is None else row[0]
                elif row is None:
                    status = "added"
                    email = person.email or ""
                    values = [person.fields.get(name) for name in DYNAMIC_FIELDS]
                    db.execute(
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
                    db.execute(
                        f"UPDATE contacts SET updated_at = ?{assignments} WHERE phone_number = ?",
                        (now, *changes.values(), number),
                    )
                if status != "skipped":
                    if request.list_name is not None:
                        db.execute(
                            "INSERT OR IGNORE INTO list_members VALUES (?, ?)",
                            (request.list_name, number),
                        )
                    if request.tag_name is not None:
                        db.execute(
                            "INSERT OR IGNORE INTO contact_tags VALUES (?, ?)",
                            (number, request.tag_name),
                        )
                items.append({"phone_number": number, "email": email, "status": status})
        return items

    def delete_contacts(self, request: ContactDelete) -> None:
        """Remove numbers from one list, or from the account (lists and tags included)."""
        numbers = list(request.phone_numbers)
        marks = ",".join("?" * len(numbers))
        with self._tx() as db:
            if request.list_name is not None:
                db.execute(
                    f"DELETE FROM list_members WHERE list_name = ? AND phone_number IN ({marks})",
                    (request.list_name, *numbers),
                )
                return
            for table in ("contacts", "list_members", "contact_tags"):
                db.execute(f"DELETE FROM {table} WHERE phone_number IN ({marks})", numbers)

    def empty_list(self, name: str) -> int:
        """Remove every member of a list (contacts stay in the account); returns how many.

        A list never created is empty already: 0, as deleting from it removes nothing.
        """
        with self._tx() as db:
            return db.execute("DELETE FROM list_members WHERE list_name = ?", (name,)).rowcount

    def contacts(self) -> list[dict[str, Any]]:
        """Every contact with its lists and tags (control)."""
        with self._lock:
            columns = ("phone_number", "email", *DYNAMIC_FIELDS)
            rows = self._db.execute(
                f"SELECT {', '.join(columns)} FROM contacts ORDER BY created_at, phone_number"
            ).fetchall()
            lists = self._group("SELECT phone_number, list_name FROM list_members ORDER BY 2")
            tags = self._group("SELECT phone_number, tag_name FROM contact_tags ORDER BY 2")
        return [
            {**dict(zip(columns, row, strict=True)), "lists": lists.get(row[0], []),
             "tags": tags.get(row[0], [])}
            for row in rows
        ]  # fmt: skip

    def _group(self, sql: str) -> dict[str, list[str]]:
        grouped: dict[str, list[str]] = {}
        for key, value in self._db.execute(sql):
            grouped.setdefault(key, []).append(value)
        return grouped

    def lists(self) -> dict[str, int]:
        """Every list name with its member count (control)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT l.list_name, COUNT(m.phone_number) FROM lists l "
                "LEFT JOIN list_members m USING (list_name) GROUP BY l.list_name ORDER BY 1"
            )
            return dict(rows.fetchall())

    # --- blacklist -------------------------------------------------------------------------

    def blacklist(self) -> list[str]:
        """Blacklisted numbers, sorted."""
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT phone_number FROM blacklist ORDER BY 1")]

    def add_to_blacklist(self, numbers: Iterable[str], now: float, source: str) -> None:
        """Blacklist numbers (already normalised)."""
        with self._tx() as db:
            db.executemany(
                "INSERT OR IGNORE INTO blacklist VALUES (?, ?, ?)",
                [(n, now, source) for n in numbers],
            )

    # --- tokens, drafts, callback, replies -------------------------------------------------

    def new_token(self, email_to: str, now: float) -> str:
        """A fresh token bound to the sub-account e-mail."""
        with self._tx() as db:
            token = self._next_id(db, "token", 32)
            db.execute("INSERT INTO tokens VALUES (?, ?, ?)", (token, email_to, now))
        return token

    def tokens(self) -> list[dict[str, Any]]:
        """Issued tokens, oldest first (control)."""
        with self._lock:
            rows = self._db.execute("SELECT token, email_to, created_at FROM tokens ORDER BY rowid")
            return [{"token": t, "email_to": e, "created_at": iso(c)} for t, e, c in rows]

    def get_meta(self, key: str) -> Any:
        """A stored setting (drafts, callback URL)."""
        with self._lock:
            return self._meta(self._db, key)

    def set_meta(self, key: str, value: Any) -> None:
        """Store a setting."""
        with self._tx() as db:
            self._set_meta(db, key, value)

    def record_reply(
        self, number: str, text: str, sim_card_number: str, now: float, callback_url: str | None
    ) -> dict[str, Any]:
        """Store an inbound reply; returns the callback body the spec describes."""
        with self._tx() as db:
            message_id = self._next_id(db, "reply")
            reception = iso(now)
            db.execute(
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
        with self._tx() as db:
            db.execute(
                "UPDATE replies SET delivered = ?, attempts = ?, last_status = ? "
                "WHERE message_id = ?",
                (delivered, attempts, status, message_id),
            )

    def replies(self) -> list[dict[str, Any]]:
        """Every simulated reply with its delivery outcome (control)."""
        with self._lock:
            cursor = self._db.execute(
                "SELECT message_id, number, text, sim_card_number, reception_date, callback_url, "
                "delivered, attempts, last_status FROM replies ORDER BY rowid"
            )
            names = [d[0] for d in cursor.description]
            records = [dict(zip(names, row, strict=True)) for row in cursor]
        for record in records:
            record["delivered"] = bool(record["delivered"])
        return records
