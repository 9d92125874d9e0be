"""The balance as the vendor documents it: an amount in a unit, and the wallet's packs.

``wallet/check-balance`` answers ``{amount, unit}`` with the account's currency as unit; with
``product_name`` and ``country_code`` the amount counts that product's credits there and
``unit`` names the product; ``with_details=true`` adds ``wallet_packs`` (``id``, ``credit``,
``expiration_date``), each credit in the same unit. A date-time without an offset is the
vendor's Central European Time (Europe/Paris), so expirations are read as Paris time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar
from zoneinfo import ZoneInfo

from smskit.client import reprs
from smskit.client.models import Record
from smskit.client.readers import as_object, read_datetime, read_float, read_str
from smskit.errors import ResponseShapeError
from smskit.rules.spec import PRODUCTS

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["EXPIRING_SOON_DAYS", "VENDOR_TZ", "Balance", "WalletPack"]

VENDOR_TZ = ZoneInfo("Europe/Paris")
EXPIRING_SOON_DAYS = 60  # what views call "expires soon"


def _vendor_datetime(data: Mapping[str, Any], key: str) -> datetime | None:
    """ISO 8601 or ``YYYY-MM-DD HH:MM:SS``; without an offset, Paris time."""
    moment = read_datetime(data, key)
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=VENDOR_TZ)


@dataclass(frozen=True, slots=True)
class WalletPack(Record):
    """One pack of the wallet: its id, the credit left (in the balance's unit), its expiry."""

    _title: ClassVar[str] = "Wallet pack"

    id: str | None
    credit: float | None
    expiration_date: datetime | None

    def __repr__(self) -> str:
        expires = None if self.expiration_date is None else self.expiration_date.isoformat()
        return f"WalletPack(id={self.id!r}, credit={self.credit!r}, expiration_date={expires!r})"

    @classmethod
    def from_json(cls, data: Any) -> WalletPack:
        """Parse one item of ``wallet_packs``."""
        body = as_object(data, "wallet_packs item")
        return cls(
            read_str(body, "id"),
            read_float(body, "credit"),
            _vendor_datetime(body, "expiration_date"),
            raw=dict(body),
        )


@dataclass(frozen=True, slots=True)
class Balance(Record):
    """The balance: ``amount`` in ``unit`` (a currency, or a product's credits), and packs.

    ``wallet_packs`` is empty unless asked for with ``with_details=True``.
    """

    _title: ClassVar[str] = "Balance"

    amount: float | None
    unit: str | None
    wallet_packs: tuple[WalletPack, ...] = field(default=())

    @classmethod
    def from_json(cls, data: Any) -> Balance:
        """Parse any ``wallet/check-balance`` body; fields beyond these stay in ``.raw``."""
        body = as_object(data, "Balance")
        packs = body.get("wallet_packs")
        if packs is not None and not isinstance(packs, list):
            raise ResponseShapeError(f"wallet_packs: expected a list, got {packs!r}")
        return cls(
            read_float(body, "amount"),
            read_str(body, "unit"),
            tuple(WalletPack.from_json(item) for item in packs or ()),
            raw=dict(body),
        )

    def __repr__(self) -> str:
        packs = f", wallet_packs={list(self.wallet_packs)!r}" if self.wallet_packs else ""
        return f"Balance(amount={self.amount!r}, unit={self.unit!r}{packs})"

    @property
    def product(self) -> str | None:
        """The product whose credits ``amount`` counts, or None for a currency amount."""
        return self.unit if self.unit in PRODUCTS else None

    def _rows(self) -> list[tuple[str, Any]]:
        return [("amount", self.amount), ("unit", self.unit), ("packs", len(self.wallet_packs))]

    def to_frame(self) -> pd.DataFrame:
        """One row: amount and unit."""
        from smskit.client.frame_builders import balance_table

        return balance_table(self)

    def packs_frame(self) -> pd.DataFrame:
        """One row per pack: ``id``, ``credit``, ``unit``, ``expiration_date`` (Paris time)."""
        from smskit.client.frame_builders import wallet_packs_table

        return wallet_packs_table(self)

    def expiring(
        self, within_days: float = EXPIRING_SOON_DAYS, *, now: datetime | None = None
    ) -> pd.DataFrame:
        """The packs that expire within ``within_days`` of ``now`` (default: the current time)."""
        from smskit.client.frame_builders import expiring_packs_table

        return expiring_packs_table(self, within_days, now=now)

    def to_html(self) -> str:
        """The amount with its unit, and the packs with what expires soon, as HTML."""
        return reprs.balance_html(self, soon_days=EXPIRING_SOON_DAYS)
