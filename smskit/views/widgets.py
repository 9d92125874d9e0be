"""Notebook widgets: the campaign :class:`Composer`, an :class:`HLRExplorer`, a :class:`Dashboard`.

Reached lazily (``smskit.Composer`` ...), so ``import smskit`` never loads ipywidgets or plotly.
Each widget is an object holding an ipywidgets box (``.widget``), displayed by a notebook cell,
and readable from code: what the panels show is also in attributes (``.text``, ``.stats``,
``.preflight``, ``.frame`` ...), and what the buttons do are methods (``.optimize()``,
``.send()``, ``.check()``), so a script or a test drives them without a browser. ``repr`` is
cheap (no request) and doubles as the plain-text fallback where widgets cannot render.
"""

from __future__ import annotations

import asyncio
import html
import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from smskit.errors import MissingExtraError, SmskitError, ValidationError

try:
    import ipywidgets as widgets
except ImportError as exc:  # an optional extra: say which one installs it
    raise MissingExtraError("smskit's notebook widgets", "ipywidgets", "notebook") from exc

from smskit.campaigns.campaign import Campaign, CampaignResult, CostEstimate, hlr
from smskit.campaigns.plan import check_options
from smskit.campaigns.preflight import PreflightReport, PreflightSettings, preflight
from smskit.client import AsyncClient, Client, frames
from smskit.rules import spec as _spec
from smskit.rules import text as engine
from smskit.rules.recipients import Recipients
from smskit.views.compose import ComposerPanel, compose_panel, panel_html

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go

__all__ = ["Composer", "Dashboard", "HLRExplorer"]

DEBOUNCE_S: Final = 0.15
ALL: Final = "(all)"
# Not on spaces: "06 12 34 56 78" is one number.
_NUMBER_SPLIT_RE: Final = re.compile(r"[\r\n,;]+")


def _default_client(client: Client | AsyncClient | None) -> Client | AsyncClient:
    return client if client is not None else Client()


def _escaped(message: str, color: str = "#333") -> str:
    return f'<span style="color:{color}">{html.escape(message)}</span>'


class _ProgressFile:
    """Progress events (:class:`smskit.campaigns.runner.ProgressEvents`) shown by an
    ``IntProgress``: the second view of a bulk call's progress, tqdm being the first.

    Events come from whichever thread runs the bulk work; the widget follows, headless or in
    a kernel.
    """

    def __init__(self, bar: widgets.IntProgress, label: widgets.HTML, unit: str) -> None:
        self.bar = bar
        self.label = label
        self.unit = unit
        self.total = 0

    def options(self) -> _ProgressFile:
        """What to pass as ``progress=`` to smskit's bulk calls."""
        return self

    def start(self, total: int, initial: int = 0, unit: str | None = None) -> None:
        self.total = total
        self.bar.max = max(total, 1)
        self.bar.value = min(initial, self.bar.max)
        self.bar.layout.visibility = "visible"
        self.label.value = f"{initial}/{total} {self.unit}"

    def advance(self, count: int, **postfix: Any) -> None:
        self.bar.value = min(self.bar.value + count, self.bar.max)
        self.label.value = f"{self.bar.value}/{self.total} {self.unit}"

    def finish(self) -> None:
        """The bar stays as the work left it."""


def _figure_output(output: widgets.Output, figures: list[go.Figure]) -> None:
    """Show plotly figures in ``output`` as plotly's mime bundle (no kernel round trip needed)."""
    import plotly.io as pio

    output.outputs = tuple(
        {
            "output_type": "display_data",
            "data": {
                "application/vnd.plotly.v1+json": json.loads(pio.to_json(fig, validate=False)),
                "text/plain": f"<plotly figure: {fig.layout.title.text or ''}>",
            },
            "metadata": {},
        }
        for fig in figures
    )


def _table_html(frame: pd.DataFrame) -> str:
    """A DataFrame as escaped HTML (values may come from the user or the gateway)."""
    return frame.to_html(escape=True, border=0, na_rep="")


class _View:
    """A widget object: a box to display, a cheap ``repr`` that is its text/plain fallback."""

    widget: widgets.Box

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle = dict(self.widget._repr_mimebundle_(**kwargs) or {})
        bundle["text/plain"] = repr(self)
        return bundle


# -- the composer --------------------------------------------------------------------------------


class Composer(_View):
    """Write a campaign's text with its cost, encoding and checks following every keystroke.

    ``recipients``: what :class:`smskit.Campaign` takes (DataFrame, CSV path, list); the
    preview and preflight use them. ``send_options`` are the send endpoint's (``type``,
    ``purpose``, ``with_replies``, ``send_at``, ``auto_optimize_text`` ...). ``debounce``:
    seconds of quiet typing before the panel refreshes (0 refreshes on every change, as
    tests want). ``journal`` is where :meth:`send` journals (default: the campaign's).
    """

    def __init__(
        self,
        client: Client | AsyncClient | None = None,
        recipients: Any = None,
        *,
        text: str = "",
        sender: str = "",
        name: str | None = None,
        journal: str | Path | None = None,
        default_region: str | None = "FR",
        debounce: float = DEBOUNCE_S,
        **send_options: Any,
    ) -> None:
        options = check_options(send_options)
        self._client = client
        self._source = recipients
        self._recipients = Recipients(recipients) if recipients is not None else None
        self._name = name
        self._journal = journal
        self._default_region = default_region
        self._debounce = debounce
        self._pending: asyncio.TimerHandle | None = None
        self._extra = {k: v for k, v in options.items() if k not in _UI_OPTIONS}
        self.result: CampaignResult | None = None
        self.cost_estimate: CostEstimate | None = None
        self._report: PreflightReport | None = None
        self._shown_for: Any = None  # the values the estimate or result on show were made from
        self._numbers_cache: dict[Any, Any] = {}  # the recipients never change: check them once
        self._build(text, sender, options)
        self.refresh()

    # -- layout --------------------------------------------------------------------------------

    def _build(self, text: str, sender: str, options: Mapping[str, Any]) -> None:
        self.text_area = widgets.Textarea(
            value=text,
            placeholder="Hello {first_name}, ... STOP au 36173",
            description="text",
            continuous_update=True,
            layout=widgets.Layout(width="100%", height="7em"),
        )
        self.sender_input = widgets.Text(value=sender, description="sender", placeholder="MyShop")
        self.type_select = widgets.Dropdown(
            options=[("gateway default", ""), *[(t, t) for t in _spec.SMS_TYPES]],
            value=options.get("type", ""),
            description="type",
        )
        self.purpose_select = widgets.Dropdown(
            options=list(reversed(_spec.PURPOSES)),
            value=options.get("purpose", "wholesale"),
            description="purpose",
        )
        self.replies_box = widgets.Checkbox(
            value=bool(options.get("with_replies", False)), description="with_replies"
        )
        self.send_at_input = widgets.Text(
            value=options.get("send_at") or "",
            description="send_at",
            placeholder="now, or 2030-06-04T10:00:00+02:00",
        )
        self.live = widgets.HTML()
        self.optimize_button = widgets.Button(description="optimise text", icon="magic")
        self.stop_button = widgets.Button(
            description="add STOP mention",
            icon="hand-paper-o",
            layout=widgets.Layout(width="auto"),  # the default width cuts the label
        )
        self.estimate_button = widgets.Button(description="estimate cost", icon="calculator")
        self.send_button = widgets.Button(
            description="send", button_style="primary", icon="paper-plane"
        )
        self.confirm_label = widgets.HTML()
        self.confirm_button = widgets.Button(description="Confirm", button_style="danger")
        self.cancel_button = widgets.Button(description="Cancel")
        self.confirm_box = widgets.HBox(
            [self.confirm_label, self.confirm_button, self.cancel_button],
            layout=widgets.Layout(display="none"),
        )
        self.progress = widgets.IntProgress(
            value=0, min=0, max=1, description="progress",
            layout=widgets.Layout(visibility="hidden"),
        )  # fmt: skip
        self.progress_label = widgets.HTML()
        self.message = widgets.HTML()
        self.output = widgets.HTML()
        for control in (self.sender_input, self.type_select, self.purpose_select,
                        self.replies_box, self.send_at_input):  # fmt: skip
            control.observe(self._changed, names="value")
        self.text_area.observe(self._typed, names="value")
        self.optimize_button.on_click(lambda _: self.optimize())
        self.stop_button.on_click(lambda _: self.add_stop_mention())
        self.estimate_button.on_click(lambda _: self._guarded(self.estimate))
        self.send_button.on_click(lambda _: self.ask_confirmation())
        self.confirm_button.on_click(lambda _: self._confirmed())
        self.cancel_button.on_click(lambda _: self.cancel())
        settings = widgets.HBox([self.sender_input, self.type_select, self.purpose_select])
        schedule = widgets.HBox([self.send_at_input, self.replies_box])
        buttons = widgets.HBox(
            [self.optimize_button, self.stop_button, self.estimate_button, self.send_button]
        )
        self.widget = widgets.VBox(
            [self.text_area, settings, schedule, self.live, buttons, self.confirm_box,
             widgets.HBox([self.progress, self.progress_label]), self.message, self.output],
            layout=widgets.Layout(width="100%"),
        )  # fmt: skip
        self.widget.add_class("smskit-composer")

    # -- state ---------------------------------------------------------------------------------

    @property
    def client(self) -> Client | AsyncClient:
        """The client estimates and sends go through (``smskit.Client()`` unless given)."""
        if self._client is None:
            self._client = Client()
        return self._client

    @property
    def text(self) -> str:
        """The text as typed (a template with ``{first_name}`` ... fields)."""
        return str(self.text_area.value)

    @text.setter
    def text(self, value: str) -> None:
        self.text_area.value = value

    @property
    def sender(self) -> str:
        return str(self.sender_input.value)

    @sender.setter
    def sender(self, value: str) -> None:
        self.sender_input.value = value

    def options(self) -> dict[str, Any]:
        """The send options the controls and the constructor set (None values left out)."""
        chosen: dict[str, Any] = {
            **self._extra,
            "type": self.type_select.value or None,
            "purpose": self.purpose_select.value,
            "with_replies": bool(self.replies_box.value),
            "send_at": self.send_at_input.value.strip() or None,
        }
        return {k: v for k, v in chosen.items() if v is not None}

    def send_kwargs(self) -> dict[str, Any]:
        """``text``, ``sender`` and the send options: the keyword arguments ``kw`` of
        ``client.sms_campaign.send(recipients=..., **kw)`` and ``Campaign(client, rcpts, **kw)``."""
        return {"text": self.text, "sender": self.sender, **self.options()}

    @property
    def panel(self) -> ComposerPanel:
        """What the live panel shows now."""
        return self._panel

    @property
    def stats(self) -> engine.TextStats | None:
        """Encoding, units, segments of the text as typed (None when it cannot be analysed)."""
        return self._panel.stats

    @property
    def preflight(self) -> PreflightReport | None:
        """The campaign's preflight for the current text and options (None without recipients)."""
        return self._report

    @property
    def ready(self) -> bool:
        """Every check passes: "send" is enabled."""
        return self._panel.ok

    # -- refreshing ----------------------------------------------------------------------------

    def _typed(self, _change: Mapping[str, Any]) -> None:
        if self._debounce <= 0:
            self.refresh()
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop to wait in (a plain script): refresh now
            self.refresh()
            return
        if self._pending is not None:
            self._pending.cancel()
        self._pending = loop.call_later(self._debounce, self.refresh)

    def _changed(self, _change: Mapping[str, Any]) -> None:
        self.refresh()

    def refresh(self) -> ComposerPanel:
        """Recompute the live panel, the checks and the buttons from the current values."""
        if self._pending is not None:
            self._pending.cancel()  # this refresh covers the one a keystroke scheduled
            self._pending = None
        text, options = self.text, self.options()
        if self._shown_for is not None and self._shown_for != self.send_kwargs():
            self._show_result(None)  # an estimate or a result of other values would mislead
        option_error = recipients_error = None
        self._report = None
        try:
            options = check_options(options)
        except ValidationError as exc:
            option_error = str(exc)
        else:
            if self._recipients is not None:
                settings = PreflightSettings(
                    text=text,
                    sender=self.sender,
                    default_region=self._default_region,
                    purpose=options.get("purpose"),
                    with_replies=options.get("with_replies"),
                    send_at=options.get("send_at"),
                    auto_optimize_text=options.get("auto_optimize_text"),
                    type=options.get("type"),
                )
                try:
                    self._report = preflight(
                        self._recipients, settings, numbers_cache=self._numbers_cache
                    )
                except Exception as exc:  # whatever broke, the panel must say so and block send
                    recipients_error = f"preflight failed: {type(exc).__name__}: {exc}"
        self._panel = compose_panel(
            text, sender=self.sender, options=options, report=self._report,
            option_error=option_error, recipients_error=recipients_error,
        )  # fmt: skip
        self.live.value = panel_html(self._panel)
        self.optimize_button.disabled = not self._panel.can_optimize
        self.stop_button.disabled = not self._panel.can_add_stop
        self.estimate_button.disabled = not self._panel.ok
        self.send_button.disabled = not self._panel.ok
        if not self._panel.ok:
            self.cancel()
        return self._panel

    # -- one-click fixes -----------------------------------------------------------------------

    def optimize(self) -> engine.Optimization:
        """Replace look-alike characters and useless spacing; say how many segments it saved."""
        result = engine.optimize(self.text)
        self.text = result.text
        self.refresh()
        changes = len(result.replacements)
        self.message.value = _escaped(
            f"optimised: {changes} change(s), {result.segments_before} → "
            f"{result.segments_after} segment(s) per message, {result.saved} saved"
        )
        return result

    def add_stop_mention(self, mention: str = engine.DEFAULT_STOP_MENTION) -> str:
        """Append a STOP mention on a new line (unless the text has one)."""
        self.text = engine.add_stop_mention(self.text, mention)
        self.refresh()
        self.message.value = _escaped(f"added {mention!r}")
        return self.text

    # -- estimate and send ---------------------------------------------------------------------

    def campaign(self) -> Campaign:
        """The :class:`smskit.Campaign` the current values describe; raises when a check fails."""
        panel = self.refresh()
        if not panel.ok:
            failed = panel.failed[0]
            raise ValidationError(failed.name, failed.message)
        return Campaign(
            self.client, self._source, name=self._name, default_region=self._default_region,
            **self.send_kwargs(),
        )  # fmt: skip

    def _progress(self, unit: str, total: int) -> _ProgressFile:
        sink = _ProgressFile(self.progress, self.progress_label, unit)
        sink.start(total)
        return sink.options()

    def estimate(self) -> CostEstimate:
        """The gateway's figures for the campaign (``simulation_mode``): cost, SMS, balance."""
        campaign = self.campaign()
        to_send = self._report.to_send if self._report is not None else 0
        self.cost_estimate = campaign.estimate(progress=self._progress("recipients", to_send))
        self._show_result(self.cost_estimate)
        self.message.value = _escaped(
            f"estimate: {self.cost_estimate.sms} SMS, cost {self.cost_estimate.cost}"
        )
        return self.cost_estimate

    def ask_confirmation(self) -> None:
        """What "send" does: show Confirm / Cancel with what would be sent."""
        if not self.refresh().ok:
            return
        report = self._report
        assert report is not None
        self.confirm_label.value = _escaped(
            f"Send {report.to_send} message(s), {report.segments} SMS, from {self.sender!r}?"
        )
        self.confirm_box.layout.display = "flex"
        self.send_button.disabled = True

    def cancel(self) -> None:
        """Hide the confirmation without sending."""
        self.confirm_box.layout.display = "none"
        self.send_button.disabled = not self._panel.ok

    def _confirmed(self) -> None:
        self.confirm_box.layout.display = "none"
        self._guarded(self.send)
        self.send_button.disabled = not self._panel.ok

    def _guarded(self, action: Callable[[], Any]) -> None:
        """Run a button's action; its error is shown in the widget, not lost in a log."""
        try:
            action()
        except SmskitError as exc:
            self.message.value = _escaped(f"{type(exc).__name__}: {exc}", "#d62728")

    def send(self) -> CampaignResult:
        """Send now, with progress (no confirmation: calling it from code is the confirmation)."""
        campaign = self.campaign()
        to_send = self._report.to_send if self._report is not None else 0
        self.message.value = _escaped(f"sending to {to_send} recipient(s)…")
        self.result = campaign.send(
            progress=self._progress("recipients", to_send), journal=self._journal
        )
        summary = self.result.summary().iloc[0]
        self.message.value = _escaped(
            f"sent: {int(summary['sent'])}, already accepted: {int(summary['already_accepted'])}"
            f", failed: {int(summary['failed'])}, rejected: {int(summary['rejected'])}, "
            f"excluded: {int(summary['excluded'])}; {int(summary['sms'])} SMS, "
            f"cost {summary['cost']}"
        )
        self._show_result(self.result)
        return self.result

    def _show_result(self, result: CostEstimate | CampaignResult | None) -> None:
        """Show an estimate or a send result, remembering the values it belongs to."""
        self.output.value = "" if result is None else result.to_html()
        self._shown_for = None if result is None else self.send_kwargs()
        if result is None:
            self.message.value = ""
            self.progress.value = 0
            self.progress_label.value = ""

    def __repr__(self) -> str:
        panel = self._panel
        shown = self.text if len(self.text) <= 30 else self.text[:29] + "…"
        stats = panel.stats
        figures = f"{stats.encoding}, {stats.segments} segment(s)" if stats else "not analysable"
        recipients = "no recipients" if panel.to_send is None else f"{panel.to_send} to send"
        failed = ", ".join(c.name for c in panel.failed)
        state = "ready" if panel.ok else f"blocked by {failed}"
        return f"Composer({shown!r}, {figures}, {recipients}, {state})"


_UI_OPTIONS: Final = frozenset({"type", "purpose", "with_replies", "send_at"})


# -- the HLR explorer ----------------------------------------------------------------------------


class HLRExplorer(_View):
    """Check lines in bulk and explore the answers: a breakdown table and charts per country
    and ``line_status``, exported to CSV.

    ``numbers``: a list or Series (a DataFrame column) to check, else paste them in the box.
    ``journal`` is the HLR cache :func:`smskit.hlr` keeps (False: none).
    """

    def __init__(
        self,
        client: Client | AsyncClient | None = None,
        numbers: Any = None,
        *,
        journal: str | Path | bool | None = None,
        default_region: str | None = "FR",
    ) -> None:
        self._client = client
        self._journal = journal
        self._default_region = default_region
        self.frame: pd.DataFrame | None = None
        given = "" if numbers is None else "\n".join(str(n) for n in list(numbers))
        self.numbers_area = widgets.Textarea(
            value=given,
            description="numbers",
            placeholder="one number per line (or separated by commas)",
            layout=widgets.Layout(width="100%", height="6em"),
        )
        self.check_button = widgets.Button(description="check", button_style="primary")
        self.progress = widgets.IntProgress(
            value=0, min=0, max=1, description="progress",
            layout=widgets.Layout(visibility="hidden"),
        )  # fmt: skip
        self.progress_label = widgets.HTML()
        self.country_select = widgets.Dropdown(options=[ALL], value=ALL, description="country")
        self.status_select = widgets.Dropdown(
            options=[ALL, *_spec.LINE_STATUS], value=ALL, description="line_status"
        )
        self.table = widgets.HTML()
        self.charts = widgets.Output()
        self.csv_path = widgets.Text(value="hlr.csv", description="CSV file")
        self.export_button = widgets.Button(description="export CSV", disabled=True)
        self.message = widgets.HTML()
        self.check_button.on_click(lambda _: self._guarded(self.check))
        self.export_button.on_click(lambda _: self._guarded(self._export))
        self.country_select.observe(lambda _: self.render(), names="value")
        self.status_select.observe(lambda _: self.render(), names="value")
        self.numbers_area.observe(lambda _: self.clear(), names="value")
        self.widget = widgets.VBox(
            [self.numbers_area, widgets.HBox([self.check_button, self.progress,
                                              self.progress_label]),
             widgets.HBox([self.country_select, self.status_select]), self.table, self.charts,
             widgets.HBox([self.csv_path, self.export_button]), self.message],
        )  # fmt: skip
        self.widget.add_class("smskit-hlr-explorer")

    @property
    def client(self) -> Client | AsyncClient:
        """The client the checks go through (``smskit.Client()`` unless given)."""
        if self._client is None:
            self._client = Client()
        return self._client

    def numbers(self) -> list[str]:
        """The numbers in the box, one per line (or separated by commas or semicolons)."""
        return [n.strip() for n in _NUMBER_SPLIT_RE.split(self.numbers_area.value) if n.strip()]

    def _guarded(self, action: Callable[[], Any]) -> None:
        try:
            action()
        except SmskitError as exc:
            self.message.value = _escaped(f"{type(exc).__name__}: {exc}", "#d62728")

    def check(self) -> pd.DataFrame:
        """Check every number in the box (bulk HLR, with progress); returns the typed frame."""
        self.clear()
        numbers = self.numbers()
        if not numbers:
            raise ValidationError("numbers", "paste at least one phone number")
        sink = _ProgressFile(self.progress, self.progress_label, "numbers")
        sink.start(len(numbers))
        self.frame = hlr(
            self.client, numbers, progress=sink.options(), journal=self._journal,
            default_region=self._default_region,
        ).to_frame()  # fmt: skip
        countries = sorted(self.frame["country_code"].dropna().unique().tolist())
        with self.country_select.hold_trait_notifications():
            self.country_select.options = [ALL, *countries]
            self.country_select.value = ALL
        self.status_select.value = ALL
        self.export_button.disabled = False
        self.render()
        self.message.value = _escaped(f"{len(self.frame)} number(s) checked")
        return self.frame

    def clear(self) -> None:
        """Forget the last check (the numbers changed): results of other numbers would mislead."""
        self.frame = None
        self.table.value = ""
        _figure_output(self.charts, [])
        self.export_button.disabled = True
        self.message.value = ""
        self.progress_label.value = ""
        self.progress.layout.visibility = "hidden"

    @property
    def filtered(self) -> pd.DataFrame | None:
        """The checked numbers the country and line_status filters keep."""
        if self.frame is None:
            return None
        frame = self.frame
        if self.country_select.value != ALL:
            frame = frame[frame["country_code"] == self.country_select.value]
        if self.status_select.value != ALL:
            frame = frame[frame["line_status"] == self.status_select.value]
        return frame

    def breakdown(self) -> pd.DataFrame | None:
        """Numbers per country and line_status (with totals) for the filtered numbers."""
        shown = self.filtered
        if shown is None:
            return None
        table = frames.crosstab(shown, "country", "line_status")
        present = (table != 0).any(axis=0)
        present[frames.TOTAL] = True  # statuses nobody has are left out, the total never
        return table.loc[:, present]

    def figures(self) -> list[go.Figure]:
        """The charts of the filtered numbers: line status by number type, and by country."""
        from smskit.views import plots

        shown = self.filtered
        if shown is None or shown.empty:
            return []
        return [plots.hlr_breakdown(shown), plots.hlr_sunburst(shown)]

    def render(self) -> None:
        """Redraw the table and the charts for the current filters."""
        table = self.breakdown()
        if table is None:
            self.table.value = ""
            return
        self.table.value = _table_html(table)
        _figure_output(self.charts, self.figures())

    def to_csv(self, path: str | Path | None = None) -> str | None:
        """The filtered frame as CSV: written to ``path``, or returned as text without one."""
        shown = self.filtered
        if shown is None:
            raise ValidationError("frame", "check numbers before exporting them")
        return shown.to_csv(path, index=False)

    def _export(self) -> None:
        path = Path(self.csv_path.value).expanduser()
        self.to_csv(path)
        rows = len(self.filtered) if self.filtered is not None else 0
        self.message.value = _escaped(f"{rows} row(s) written to {path}")

    def __repr__(self) -> str:
        if self.frame is None:
            return f"HLRExplorer({len(self.numbers())} number(s) to check)"
        counts = self.frame["line_status"].value_counts()
        shown = ", ".join(f"{status}={int(n)}" for status, n in counts.items() if n)
        return f"HLRExplorer({len(self.frame)} checked: {shown or 'no answer'})"


# -- the dashboard -------------------------------------------------------------------------------


class Dashboard(_View):
    """The account at a glance: balance and its wallet packs (those expiring soon marked),
    credits by country (table and map), current drafts."""

    def __init__(
        self, client: Client | AsyncClient | None = None, *, product: str = "premium_sms"
    ) -> None:
        self.client = _default_client(client)
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
        self.refresh_button.on_click(lambda _: self._guarded())
        self.widget = widgets.VBox(
            [widgets.HBox([self.balance_html, self.refresh_button]),
             widgets.HTML("<strong>Credits by country</strong>"), self.credits_table, self.map,
             widgets.HTML("<strong>Current drafts</strong>"), self.drafts_table, self.message],
        )  # fmt: skip
        self.widget.add_class("smskit-dashboard")
        self.refresh()

    def _guarded(self) -> None:
        try:
            self.refresh()
        except SmskitError as exc:
            self.message.value = _escaped(f"{type(exc).__name__}: {exc}", "#d62728")

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
            f'<div style="max-height: 20em; overflow-y: auto">{_table_html(self.credits)}</div>'
        )
        columns = ["kind", "number_of_contacts", "number_of_sms_needed", "total_cost",
                   "cost_per_contact"]  # fmt: skip
        self.drafts_table.value = _table_html(self.drafts[columns])
        _figure_output(self.map, [plots.credits_map(self._raw_credits, product=self.product)])
        self.message.value = ""

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
