"""The account's money and identity: wallet packs, unit prices, charges, credit-transfer
tokens. Part of the sandbox's store (``_store``); the packs themselves are ``_wallet``'s."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from smskit.errors import CODE_INSUFFICIENT_CREDIT
from smskit.sandbox import _wallet
from smskit.sandbox._database import Database, iso
from smskit.sandbox._domain import GatewayError
from smskit.sandbox._prices import CREDIT_KEYS, CURRENCY, default_price_rows, to_eur, to_micros

SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS prices (
    country_code TEXT NOT NULL, product_name TEXT NOT NULL, micros INTEGER NOT NULL,
    PRIMARY KEY (country_code, product_name));
CREATE TABLE IF NOT EXISTS tokens (
    token TEXT PRIMARY KEY, email_to TEXT NOT NULL, created_at REAL NOT NULL);
"""
    + _wallet.SCHEMA
)
TABLES = ("prices", "tokens", "wallet_packs")


class Account:
    """Wallet, prices and tokens of the one sandbox account."""

    def __init__(self, db: Database, *, balance: float) -> None:
        self._db = db
        self.initial_balance = to_micros(balance)
        self._prices: dict[tuple[str, str], int] = {}

    def open(self, tx: sqlite3.Connection, now: float) -> bool:
        """A new (or reset) account: the opening packs and the default prices; a file from
        before the packs keeps its balance as one pack. True when the default prices were
        written (then :meth:`use_default_prices` once ``tx`` is committed: no need to read
        them back)."""
        if (legacy := self._db.meta(tx, "balance")) is not None:
            _wallet.replace(tx, self._pack_id(tx), int(legacy), now)
            return False
        _wallet.open_account(tx, self._pack_id(tx), self.initial_balance, now)
        tx.executemany(
            "INSERT INTO prices (country_code, product_name, micros) VALUES (?, ?, ?)",
            default_price_rows(),
        )
        return True

    def load_prices(self) -> None:
        """Read the unit prices into memory (after opening, a reset or a price change)."""
        with self._db.reading() as db:
            rows = db.execute("SELECT country_code, product_name, micros FROM prices")
            self._prices = {(c, p): m for c, p, m in rows}

    def use_default_prices(self) -> None:
        """The default prices in memory: what :meth:`open` wrote to a new or reset account."""
        self._prices = {(c, p): m for c, p, m in default_price_rows()}

    def _pack_id(self, tx: sqlite3.Connection) -> Callable[[], str]:
        return lambda: self._db.next_id(tx, "pack")

    # --- wallet ----------------------------------------------------------------------------

    def balance_micros(self, now: float) -> int:
        """Current balance in micro-euros: credit left in the packs not expired at ``now``."""
        with self._db.reading() as db:
            return _wallet.balance(db, now)

    def wallet_packs(self, now: float) -> list[_wallet.Pack]:
        """Packs with credit left, not expired at ``now``, the first to expire first."""
        with self._db.reading() as db:
            return _wallet.packs(db, now)

    def set_balance(self, amount_eur: float, now: float) -> None:
        """Set the balance (control): every pack replaced by one of that amount."""
        with self._db.transaction() as tx:
            _wallet.replace(tx, self._pack_id(tx), to_micros(amount_eur), now)

    def add_pack(self, amount_eur: float, expires_at: float, now: float) -> str:
        """Add a pack of credit expiring at ``expires_at`` (control); returns its id."""
        with self._db.transaction() as tx:
            return _wallet.add(tx, self._pack_id(tx), to_micros(amount_eur), expires_at, now)

    def charge(
        self, tx: sqlite3.Connection, cost: int, what: str, now: float, *, commit: bool
    ) -> int:
        """Draw ``cost`` micros from the packs inside the caller's transaction (only check
        when not ``commit``); returns the balance left. Refused when the balance is short."""
        balance = _wallet.balance(tx, now)
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
            _wallet.consume(tx, cost, now)
        return balance - cost

    def charge_hlr(self, countries: Sequence[str | None], now: float, *, simulation: bool) -> int:
        """Charge one HLR unit per number of a priced country; returns the cost in micros."""
        cost = sum(self._prices.get((c or "", "hlr"), 0) for c in countries)
        with self._db.transaction() as tx:
            self.charge(tx, cost, "this HLR request", now, commit=not simulation)
        return cost

    # --- prices ----------------------------------------------------------------------------

    def prices(self) -> dict[tuple[str, str], int]:
        """``{(country_code, product_name): micro-euros}``."""
        return dict(self._prices)

    def unit_price(self, country_code: str, product_name: str) -> int | None:
        """One unit price in micros (None: that product is not served there)."""
        return self._prices.get((country_code, product_name))

    def set_price(self, country_code: str, product_name: str, price_eur: float) -> None:
        """Set one unit price (control); a new country becomes served."""
        with self._db.transaction() as tx:
            tx.execute(
                "INSERT INTO prices (country_code, product_name, micros) VALUES (?, ?, ?) "
                "ON CONFLICT DO UPDATE SET micros = excluded.micros",
                (country_code, product_name, to_micros(price_eur)),
            )
        self.load_prices()

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

    # --- sub-account tokens ----------------------------------------------------------------

    def new_token(self, email_to: str, now: float) -> str:
        """A fresh token bound to the sub-account e-mail."""
        with self._db.transaction() as tx:
            token = self._db.next_id(tx, "token", 32)
            tx.execute("INSERT INTO tokens VALUES (?, ?, ?)", (token, email_to, now))
        return token

    def tokens(self) -> list[dict[str, Any]]:
        """Issued tokens, oldest first (control)."""
        with self._db.reading() as db:
            rows = db.execute("SELECT token, email_to, created_at FROM tokens ORDER BY rowid")
            return [{"token": t, "email_to": e, "created_at": iso(c)} for t, e, c in rows]
