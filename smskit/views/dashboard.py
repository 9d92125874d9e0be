"""The account :class:`Dashboard`: balance and wallet packs, credits by country (table and
map), current drafts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from smskit._repr import tolerant_repr
from smskit.client import AsyncClient, Client, frames
from smskit.errors import ValidationError
from smskit.views.base import View, figure_output, table_html, table_style, widgets

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Dashboard"]


class Dashboard(View):
    """The account at a glance: balance and its wallet packs (those expiring soon marked),
    credits by country (table and map), current drafts."""

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
        self.balance_html = widgets.HTML()
        self.credits_table = widgets.HTML()
        self.map = widgets.Output()
        self.drafts_table = widgets.HTML()
        self.message = widgets.HTML()
        self.refresh_button = widgets.Button(description="refresh", icon="refresh")
        self.refresh_button.on_click(lambda _: self._guarded(self.refresh))
        self.widget = widgets.VBox(
            [widgets.HBox([self.balance_html, self.refresh_button]),
             widgets.HTML("<strong>Credits by country</strong>"), self.credits_table, self.map,
             widgets.HTML("<strong>Current drafts</strong>"), self.drafts_table, self.message],
        )  # fmt: skip
        self.widget.add_class("smskit-dashboard")
        self.widget.children = (*self.widget.children, table_style(self.widget))
        self.refresh()

    def refresh(self) -> None:
        """Ask the gateway again: balance, credits, SMS and voice drafts."""
        from smskit.views import plots

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
        self.balance_html.value = self.balance.to_html()
        # Every served country is a row: keep the table to a scrollable box.
        self.credits_table.value = (
            f'<div style="max-height: 20em; overflow-y: auto">{table_html(self.credits)}</div>'
        )
        columns = ["kind", "number_of_contacts", "number_of_sms_needed", "total_cost",
                   "cost_per_contact"]  # fmt: skip
        self.drafts_table.value = table_html(self.drafts[columns])
        figure_output(self.map, [plots.credits_map(self._raw_credits, product=self.product)])
        self.message.value = ""

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
