"""A seeded shop: synthetic orders for a campaign's recipients, with a known truth.

The sandbox plays the gateway; the shop plays the analyst's own order table, so a demo or a
test can show an estimate's interval covering the truth it was drawn from. Each recipient
of group ``holdout`` converts within the window with probability ``baseline``; each other
recipient (``treated``, or an experiment's arm) with ``baseline + lift``. A converter places
one order plus a Poisson(``repeat``) number more, each of a Gamma amount of mean
``mean_amount``, at instants uniform over the window after the (would-be) send. Around
them the shop adds ``noise`` orders per recipient before the send and after the window
(they must never count) and orders of people who were not recipients, so a join that ignores
the window or the numbers is caught.

The truth: the conversion rate lift is ``lift``; the revenue per recipient lift is
``lift * (1 + repeat) * mean_amount`` (:attr:`SeededShop.revenue_lift`).

Pure numpy and pandas, seeded (one ``seed``, one table). May import ``smskit.rules`` and
``smskit.errors`` only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from smskit.errors import ValidationError
from smskit.rules.orders import window_of
from smskit.rules.ranges import checked_share

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SeededShop"]


@dataclass(frozen=True)
class SeededShop:
    """Orders for a campaign's recipients with known ``baseline`` and true ``lift``
    (probabilities of converting within ``window`` of the send). See the module docstring."""

    baseline: float = 0.05
    lift: float = 0.02
    mean_amount: float = 40.0
    repeat: float = 0.25
    noise: float = 0.1
    strangers: int = 100
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("baseline", "lift"):
            object.__setattr__(self, name, checked_share(name, getattr(self, name)))
        if self.baseline + self.lift > 1:
            raise ValidationError("lift", "baseline + lift must be at most 1", value=self.lift)
        if self.mean_amount <= 0 or self.repeat < 0 or self.noise < 0 or self.strangers < 0:
            raise ValidationError("shop", "mean_amount must be positive; the others not negative")

    @property
    def revenue_lift(self) -> float:
        """The true lift of revenue per recipient, in the amounts' currency."""
        return self.lift * (1 + self.repeat) * self.mean_amount

    def orders(
        self,
        recipients: pd.DataFrame,
        *,
        sent_at: Any,
        window: Any = "5D",
        holdout: str = "holdout",
    ) -> pd.DataFrame:
        """The orders table: ``order_id``, ``phone_number``, ``ordered_at`` (UTC), ``amount``.

        ``recipients`` has ``phone_number`` and ``group`` (a campaign result's
        :meth:`~smskit.CampaignResult.groups`); ``sent_at`` is the send instant (timezone
        aware); group ``holdout`` converts at ``baseline``, any other at ``baseline + lift``.
        """
        import numpy as np
        import pandas as pd

        for name in ("phone_number", "group"):
            if name not in recipients.columns:
                raise ValidationError(f"recipients.{name}", "no such column")
        start = pd.Timestamp(sent_at)
        if start.tzinfo is None:
            raise ValidationError("sent_at", "an instant needs a time zone", value=sent_at)
        span = window_of(window).value
        rng = np.random.default_rng(self.seed)
        numbers = recipients["phone_number"].to_numpy(dtype=object)
        held = recipients["group"].to_numpy(dtype=object) == holdout
        chance = np.where(held, self.baseline, self.baseline + self.lift)
        who = np.flatnonzero(rng.random(len(numbers)) < chance)
        per = 1 + rng.poisson(self.repeat, len(who))
        buyer = np.repeat(who, per)
        offsets = rng.integers(0, span, len(buyer))
        # Orders that must not count: before the send, or after the window closes.
        late = np.flatnonzero(rng.random(len(numbers)) < self.noise)
        early = np.flatnonzero(rng.random(len(numbers)) < self.noise)
        base = start.tz_convert("UTC").value
        instants = np.concatenate(
            [
                base + offsets,
                base + span + rng.integers(0, span, len(late)),
                base - 1 - rng.integers(0, span, len(early)),
            ]
        )
        people = np.concatenate([numbers[buyer], numbers[late], numbers[early]])
        strangers = np.array(
            [f"+3361{n:07d}" for n in rng.choice(10_000_000, self.strangers, replace=False)],
            dtype=object,
        )
        known = set(numbers.tolist()) if len(strangers) else set()
        mine = np.array([n in known for n in strangers], dtype=bool)
        strangers = strangers[~mine]  # never a recipient's number
        people = np.concatenate([people, strangers])
        instants = np.concatenate([instants, base + rng.integers(0, span, len(strangers))])
        amounts = rng.gamma(2.0, self.mean_amount / 2.0, len(people)).round(2)
        order = np.argsort(instants, kind="stable")
        return pd.DataFrame(
            {
                "order_id": np.arange(1, len(order) + 1),
                "phone_number": pd.array(people[order], dtype="string"),
                "ordered_at": pd.to_datetime(instants[order], utc=True),
                "amount": amounts[order],
            }
        )
