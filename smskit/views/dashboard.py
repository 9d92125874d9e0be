"""The account :class:`Dashboard`: balance and wallet packs, credits by country (table and
map), current drafts; an anywidget (one ES module, ``static/dashboard.js``, and its
stylesheet).

What it shows is the gateway's answers as the client reads them, the map's colours and note
those of :func:`smskit.views.plots.credits_map` (as :func:`smskit.views.chart_state.map_state`);
the front end draws what it is sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from smskit._repr import tolerant_repr
from smskit.client import AsyncClient, Client, frames
from smskit.errors import ValidationError
from smskit.views.widget import Widget, es_module, stylesheet, table_html, traitlets

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Dashboard"]

_DRAFT_COLUMNS = ("kind", "number_of_contacts", "number_of_sms_needed", "total_cost",
                  "cost_per_contact")  # fmt: skip


class Dashboard(Widget):
    """The account at a glance: balance and its wallet packs (those expiring soon marked),
    credits by country (table and map), current drafts. The "refresh" button
    (:meth:`press`) asks the gateway again (:meth:`refresh`)."""

    ACTIONS = ("refresh",)
    _esm = es_module("dashboard")
    _css = stylesheet("dashboard")

    balance_html = traitlets.Unicode("").tag(sync=True)
    """The balance and its packs, as the balance's HTML (escaped by its template)."""
    credits_table = traitlets.Unicode("").tag(sync=True)
    """Credits by country, as escaped HTML."""
    drafts_table = traitlets.Unicode("").tag(sync=True)
    """The current SMS and voice drafts, as escaped HTML."""
    map = traitlets.Dict().tag(sync=True)
    """The credits map (:func:`smskit.views.chart_state.map_state`)."""

    def __init__(
        self, client: Client | AsyncClient | None = None, *, product: str = "premium_sms"
    ) -> None:
        self._client = client
        self.product = product
        self.balance: Any = None
        self.packs: pd.DataFrame | None = None
        self.expiring: pd.DataFrame | None = None
        self.credits: pd.DataFrame | None = None
        self.drafts: pd.DataFrame | None = None
        self._raw_credits: Any = None
        super().__init__()
        self.refresh()

    def _on_refresh(self) -> None:
        self._guarded(self.refresh)

    def refresh(self) -> None:
        """Ask the gateway again: balance, credits, SMS and voice drafts."""
        from smskit.views import plots
        from smskit.views.chart_state import map_state

        client = self.client
        if isinstance(client, AsyncClient):
            raise ValidationError("client", "the dashboard needs a smskit.Client (blocking)")
        self.balance = client.wallet.check_balance(with_details=True)
        self.packs = self.balance.packs_frame()
        self.expiring = self.balance.expiring()
        self._raw_credits = client.wallet.check_credits()
        self.credits = frames.credits_wide(self._raw_credits)
        drafts = client.sms_campaign.draft(), client.voice_campaign.draft()
        self.drafts = frames.drafts_frame(*drafts)
        with self.hold_sync():
            self.balance_html = self.balance.to_html()
            self.credits_table = table_html(self.credits)
            self.drafts_table = table_html(self.drafts[list(_DRAFT_COLUMNS)])
            self.map = map_state(plots.credits_map(self._raw_credits, product=self.product))
            self.say("")

    @tolerant_repr
    def __repr__(self) -> str:
        if self.balance is None:
            return "Dashboard(not loaded)"
        countries = 0 if self.credits is None else len(self.credits)
        drafts = 0 if self.drafts is None else len(self.drafts)
        packs = 0 if self.packs is None else len(self.packs)
        soon = 0 if self.expiring is None else len(self.expiring)
        return (
            f"Dashboard(balance={self.balance.amount} {self.balance.unit}, "
            f"{packs} packs ({soon} expiring soon), "
            f"{countries} countries with credits, {drafts} drafts)"
        )
