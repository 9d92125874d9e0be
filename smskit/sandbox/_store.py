"""The sandbox account's state in SQLite, in four parts over one database.

``Store`` opens the database (``_database``: one connection, one lock, one transaction per
operation, settings and identifier sequences in ``meta``) and holds the parts, each the
owner of its tables:

- ``account`` (``_account``): wallet packs, unit prices, charges, credit-transfer tokens;
- ``contacts`` (``_contact_book``): contacts, lists, tags and the blacklist;
- ``sends`` (``_sends``): sends, their messages and ignored recipients, request ids;
- ``replies`` (``_reply_log``): simulated replies and their delivery outcomes.

Money is integer micro-euros; times are Unix timestamps from the sandbox clock.
"""

from __future__ import annotations

from typing import Any

from smskit.sandbox import _account, _contact_book, _database, _reply_log, _sends
from smskit.sandbox._account import Account
from smskit.sandbox._contact_book import ContactBook
from smskit.sandbox._database import Database
from smskit.sandbox._reply_log import ReplyLog
from smskit.sandbox._sends import Sends

_PARTS = (_database, _account, _contact_book, _sends, _reply_log)
_SCHEMA = "".join(part.SCHEMA for part in _PARTS)
_TABLES = tuple(table for part in _PARTS for table in part.TABLES)


class Store:
    """SQLite-backed account (memory, or the file ``path``); safe to call from any thread."""

    def __init__(self, path: str | None, *, seed: int, balance: float, now: float) -> None:
        self.seed = seed
        self.db = Database(path, _SCHEMA, seed=seed)
        self.account = Account(self.db, balance=balance)
        self.contacts = ContactBook(self.db)
        self.sends = Sends(self.db, self.account, self.contacts)
        self.replies = ReplyLog(self.db)
        priced = False  # a file opened before keeps its own prices: read them
        with self.db.transaction() as tx:
            if self.db.meta(tx, "opened") is None:
                self.db.set_meta(tx, "opened", now)
                priced = self.account.open(tx, now)
        self._hold_prices(priced)

    def _hold_prices(self, priced: bool) -> None:
        """The prices held in memory: the defaults just written (``priced``), else the file's."""
        if priced:
            self.account.use_default_prices()
        else:
            self.account.load_prices()

    def get_meta(self, key: str) -> Any:
        """A stored setting (drafts, callback URLs)."""
        with self.db.reading() as db:
            return self.db.meta(db, key)

    def set_meta(self, key: str, value: Any) -> None:
        """Store a setting."""
        with self.db.transaction() as tx:
            self.db.set_meta(tx, key, value)

    def reset(self, now: float) -> None:
        """Back to a fresh account: default balance and prices, every table emptied."""
        with self.db.transaction() as tx:
            for table in _TABLES:
                tx.execute(f"DELETE FROM {table}")
            self.db.set_meta(tx, "opened", now)
            priced = self.account.open(tx, now)
        self._hold_prices(priced)
