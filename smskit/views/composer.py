"""The campaign :class:`Composer`: a text area whose cost, encoding and checks follow every
keystroke, with one-click fixes, a cost estimate and a confirmed send.

The live panel's content is :func:`smskit.views.pure_panel.compose_panel` (pure); this module
only lays it out and wires the controls.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final

from smskit._repr import tolerant_repr
from smskit.campaigns.analysis.results import CampaignResult
from smskit.campaigns.campaign import Campaign
from smskit.campaigns.planning.audience import Audience
from smskit.campaigns.planning.estimates import CostEstimate
from smskit.campaigns.planning.report import PreflightReport
from smskit.campaigns.planning.spec import CampaignSpec
from smskit.client import AsyncClient, Client
from smskit.errors import ValidationError
from smskit.rules import content
from smskit.rules import spec as _spec
from smskit.rules import text as engine
from smskit.rules.fields import DYNAMIC_FIELDS
from smskit.rules.region import DEFAULT_REGION
from smskit.views.base import ProgressFile, View, escaped, widgets
from smskit.views.pure_panel import ComposerPanel, compose_panel, panel_html

__all__ = ["Composer", "Sent"]

DEBOUNCE_S: Final = 0.15  # the longest a keystroke waits for quiet typing
DEBOUNCE_FACTOR: Final = 2.0  # the wait, when typing outpaces refreshes: twice a refresh


@dataclass(frozen=True)
class Sent:
    """One campaign sent from a :class:`Composer`: what it sent (``send_kwargs``), its name,
    its journal (None: the campaign's default), when (UTC) and its result."""

    kwargs: dict[str, Any]
    name: str
    journal: Path | None
    at: datetime
    result: CampaignResult


@dataclass(frozen=True)
class _Series:
    """How a composer names the campaigns it sends: the first one ``name`` (None: dated) in
    ``journal`` (None: the campaign's default), the next ones numbered from them. What the
    constructor was given, not a campaign setting: the held campaign's spec says the current
    campaign's name and journal (numbered ones included)."""

    name: str | None
    journal: Path | None

    def numbered(self, number: int) -> tuple[str | None, Path | None]:
        """The name and journal of the ``number``-th campaign (2, 3 ...)."""
        journal = _numbered(self.journal, number) if self.journal is not None else None
        # Unnamed, the campaign names itself with its creation time: a new name anyway.
        name = f"{self.name[:90]}-{number}" if self.name is not None else None
        return name, journal


@dataclass(frozen=True)
class _Next:
    """What the next send would be: a new campaign (``name``, ``journal``) or a repeat of
    ``previous`` (the same values, already sent from this composer)."""

    name: str | None
    journal: Path | None
    previous: Sent | None
    new: bool


class Composer(View):
    """Write a campaign's text with its cost, encoding and checks following every keystroke.

    ``recipients``: what :class:`smskit.Campaign` takes (DataFrame, CSV path, list); the
    preview and preflight use them. ``send_options`` are the send endpoint's (``type``,
    ``purpose``, ``with_replies``, ``send_at``, ``auto_optimize_text`` ...). ``debounce``:
    seconds of quiet typing before the panel refreshes after a keystroke. None (the default)
    refreshes at once while refreshing keeps up with the typing (the last refresh took less
    than the time since the previous keystroke); when keys come faster than that (a million
    recipients, a busy machine) it waits for a pause of twice the last refresh, at most
    :data:`DEBOUNCE_S`, so a burst costs one refresh, not one per key. 0 refreshes on every
    change, as tests want. ``journal`` is where :meth:`send` journals (default: the
    campaign's). Numbers on the account's opt-out list are excluded (``opted_out``) in the
    panel and the send; ``include_opted_out=True`` sends to them too, for a transactional
    send only (``purpose="alert"``; docs/optouts.md). ``repeat_window`` is the campaign's
    repeat guard (:class:`smskit.Campaign`): the same send made that recently, from this
    composer or anywhere else, is refused unless sent again on purpose.

    Each send with other values (text, sender, options) is a new campaign: the first one is
    named ``name`` and journaled in ``journal``, the next ones ``<name>-2``, ``<name>-3`` ...
    (unnamed: each its own dated name) in ``<journal stem>-2.journal.sqlite`` ... (the
    confirmation says which). The same values
    again are not sent twice by :meth:`send`; the "send" button says so before Confirm, and
    Confirm then sends them again as a new campaign (``send(again=True)``).

    The Composer holds one :class:`smskit.Campaign` (:meth:`campaign`): each edit of the
    controls gives it an edited :class:`~smskit.campaigns.planning.spec.CampaignSpec`, and a new
    campaign sent from it is the same campaign given a new name and journal, so the
    recipients are read once and estimate and send use the campaign the panel checked. The
    spec lives in that campaign only (:attr:`spec` reads it; without recipients the Composer
    holds the spec itself): text, sender and options are the controls', send options the
    controls do not show are the spec's, and the name and journal are the spec's too.
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
        default_region: str | None = DEFAULT_REGION,
        debounce: float | None = None,
        include_opted_out: bool = False,
        repeat_window: timedelta | None = None,
        **send_options: Any,
    ) -> None:
        spec = CampaignSpec(
            text, sender, send_options, name, default_region, journal=journal,
            include_opted_out=include_opted_out, repeat_window=repeat_window,
        )  # fmt: skip
        self._client = client
        # The one campaign (None without recipients), which holds the one spec: every field
        # is read with the numbers, so the first {field} typed costs no read.
        self._held = None if recipients is None else Campaign.from_spec(client, recipients, spec)
        if self._held is not None:
            self._held.read_fields = DYNAMIC_FIELDS
        # Without recipients there is no campaign to hold the spec: the Composer holds it.
        self._unheld_spec = spec if self._held is None else None
        self._series = _Series(spec.name, None if spec.journal is None else Path(spec.journal))
        self._debounce = debounce
        self._refresh_s = 0.0  # how long the last refresh took
        self._last_key = float("-inf")  # when the text last changed (perf_counter)
        self._pending: asyncio.TimerHandle | None = None
        self.result: CampaignResult | None = None
        self.sends: list[Sent] = []  # every campaign sent from this composer, oldest first
        self._again = False  # what Confirm does: the confirmation on show asked to send again
        self._confirm_for: dict[str, Any] | None = None  # the values the confirmation is about
        self.cost_estimate: CostEstimate | None = None
        self._report: PreflightReport | None = None
        self._shown_for: Any = None  # the values the estimate or result on show were made from
        self._build(text, sender, spec.options)
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
    def text(self) -> str:
        """The text as typed (a template with ``{first_name}`` ... fields)."""
        return str(self.text_area.value)

    @text.setter
    def text(self, value: str) -> None:
        self.text_area.value = value

    @property
    def sender(self) -> str:
        """The sender ID in the sender box (settable)."""
        return str(self.sender_input.value)

    @sender.setter
    def sender(self, value: str) -> None:
        self.sender_input.value = value

    def options(self) -> dict[str, Any]:
        """The send options the controls and the constructor set (None values left out)."""
        beyond_controls = {k: v for k, v in self.spec.options.items() if k not in _UI_OPTIONS}
        chosen: dict[str, Any] = {
            **beyond_controls,
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
    def client(self) -> Client | AsyncClient:
        """The client of the campaign (``smskit.Client()`` unless given)."""
        return self._held.client if self._held is not None else super().client

    @property
    def spec(self) -> CampaignSpec:
        """The campaign the controls describe, as of the last refresh: the held campaign's
        spec (the Composer keeps no copy of it)."""
        if self._held is not None:
            return self._held.spec
        assert self._unheld_spec is not None  # set whenever no campaign is held
        return self._unheld_spec

    def _edit(self, **changes: Any) -> CampaignSpec:
        """Give the one spec ``changes`` (checked: a ValidationError leaves it as it was)."""
        spec = self.spec.replace(**changes)
        if self._held is not None:
            self._held.spec = spec
        else:
            self._unheld_spec = spec
        return spec

    @property
    def audience(self) -> Audience | None:
        """The recipients' half of preflight, computed once (None without recipients)."""
        return self._held.audience if self._held is not None else None

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

    def debounce_s(self, since_last_key: float = float("inf")) -> float:
        """How long a keystroke coming ``since_last_key`` seconds after the previous one waits
        for quiet typing before the panel refreshes (0: at once)."""
        if self._debounce is not None:
            return self._debounce
        if self._refresh_s < since_last_key:
            return 0.0  # refreshing keeps up with this typing: no reason to wait
        return min(DEBOUNCE_S, DEBOUNCE_FACTOR * self._refresh_s)

    def _typed(self, _change: Mapping[str, Any]) -> None:
        now = time.perf_counter()
        delay = self.debounce_s(now - self._last_key)
        self._last_key = now
        if delay <= 0:
            self.refresh()
            return
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None:  # no event loop to wait in (a plain script): refresh now, unchained
            self.refresh()
            return
        if self._pending is not None:
            self._pending.cancel()
        self._pending = loop.call_later(delay, self.refresh)

    def _changed(self, _change: Mapping[str, Any]) -> None:
        self.refresh()

    def refresh(self) -> ComposerPanel:
        """Recompute the live panel, the checks and the buttons from the current values."""
        started = time.perf_counter()
        if self._pending is not None:
            self._pending.cancel()  # this refresh covers the one a keystroke scheduled
            self._pending = None
        text, options = self.text, self.options()
        if self._shown_for is not None and self._shown_for != self.send_kwargs():
            self._show_result(None)  # an estimate or a result of other values would mislead
        option_error = recipients_error = None
        self._report = None
        try:
            spec = self._edit(text=text, sender=self.sender, options=options)
        except ValidationError as exc:
            option_error = str(exc)
        else:
            options = dict(spec.options)
            if self._held is not None:
                try:
                    self._report = self._held.preflight(offline=True)
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
        if self._confirm_for is not None and (
            not self._panel.ok or self._confirm_for != self.send_kwargs()
        ):
            self.cancel()  # a confirmation of other values (or of a blocked send) would mislead
        self.send_button.disabled = not self._panel.ok or self._confirm_for is not None
        self._refresh_s = time.perf_counter() - started
        return self._panel

    # -- one-click fixes -----------------------------------------------------------------------

    def optimize(self) -> engine.Optimization:
        """Replace look-alike characters and useless spacing; say how many segments it saved."""
        result = engine.optimize(self.text)
        self.text = result.text
        self.refresh()
        changes = len(result.replacements)
        self.message.value = escaped(
            f"optimised: {changes} change(s), {result.segments_before} → "
            f"{result.segments_after} segment(s) per message, {result.saved} saved"
        )
        return result

    def add_stop_mention(self, mention: str = content.DEFAULT_STOP_MENTION) -> str:
        """Append a STOP mention on a new line (unless the text has one)."""
        self.text = content.add_stop_mention(self.text, mention)
        self.refresh()
        self.message.value = escaped(f"added {mention!r}")
        return self.text

    # -- estimate and send ---------------------------------------------------------------------

    def campaign(self) -> Campaign:
        """The :class:`smskit.Campaign` the Composer holds, with the spec the controls
        describe; raises when a check fails (or without recipients)."""
        panel = self.refresh()
        if self._held is None:
            raise ValidationError("recipients", "the Composer was given none to send to")
        if not panel.ok:
            failed = panel.failed[0]
            raise ValidationError(failed.name, failed.message)
        return self._held

    def _checked_online(self, campaign: Campaign) -> int:
        """``campaign``'s preflight done with the gateway's served countries and prices (the
        panel's is offline): how many recipients it sends to."""
        return campaign.preflight().to_send

    def _progress(self, unit: str, total: int) -> ProgressFile:
        sink = ProgressFile(self.progress, self.progress_label, unit)
        sink.start(total)
        return sink.options()

    def estimate(self) -> CostEstimate:
        """The gateway's figures for the campaign (``simulation_mode``): cost, SMS, balance."""
        campaign = self.campaign()
        to_send = self._checked_online(campaign)
        self.cost_estimate = campaign.estimate(progress=self._progress("recipients", to_send))
        self._show_result(self.cost_estimate)
        self.message.value = escaped(
            f"estimate: {self.cost_estimate.sms} SMS, cost {self.cost_estimate.cost}"
        )
        return self.cost_estimate

    def _next(self, *, again: bool) -> _Next:
        """Where the next send goes: the campaign these values were sent as (nothing is sent
        twice), or a new campaign with its own name and journal."""
        kwargs = self.send_kwargs()
        previous = next((s for s in reversed(self.sends) if s.kwargs == kwargs), None)
        if previous is not None and not again:
            return _Next(previous.name, previous.journal, previous, new=False)
        # The first send goes where it was asked to, unless an unnamed composer finds that
        # journal taken: its campaign (named with its creation time) cannot be the one there.
        series = self._series
        first = series.journal is None or series.name is not None or not series.journal.exists()
        if not self.sends and first:
            return _Next(series.name, series.journal, previous, new=True)
        used = {s.journal for s in self.sends}
        number = max(2, len(self.sends) + 1)
        while True:
            name, journal = series.numbered(number)
            if journal is None or (journal not in used and not journal.exists()):
                return _Next(name, journal, previous, new=True)
            number += 1

    def ask_confirmation(self) -> None:
        """What "send" does: show Confirm / Cancel with what would be sent, saying beforehand
        whether it is a new campaign and, for values already sent, when they were."""
        if not self.refresh().ok:
            return
        report = self._report
        assert report is not None
        plan = self._next(again=True)
        what = f"{report.to_send} message(s), {report.segments} SMS, from {self.sender!r}"
        if plan.previous is not None:
            sent = plan.previous.result.summary().iloc[0]
            question = (
                f"This text was already sent at {_clock(plan.previous.at)} "
                f"(sent: {int(sent['sent'])}). Send it AGAIN, {what}, as a new campaign"
                f"{_where(plan)}?"
            )
        elif self.sends or plan.journal != self._series.journal:
            question = f"Send {what}, as a new campaign{_where(plan)}?"
        else:
            question = f"Send {what}?"
        self._again = plan.previous is not None
        self._confirm_for = self.send_kwargs()
        self.confirm_label.value = escaped(question)
        self.confirm_box.layout.display = "flex"
        self.send_button.disabled = True

    def cancel(self) -> None:
        """Hide the confirmation without sending."""
        self._confirm_for = None
        self.confirm_box.layout.display = "none"
        self.send_button.disabled = not self._panel.ok

    def _confirmed(self) -> None:
        self._confirm_for = None
        self.confirm_box.layout.display = "none"
        again, self._again = self._again, False
        self._guarded(lambda: self.send(again=again))
        self.send_button.disabled = not self._panel.ok

    def send(self, *, again: bool = False) -> CampaignResult:
        """Send now, with progress (no confirmation: calling it from code is the confirmation).

        Values already sent from this composer are not sent twice (re-running a cell sends
        nothing): the earlier result is shown and returned, saying when it was sent.
        ``again=True`` sends them again, as a new campaign. Other values are a new campaign.
        """
        campaign = self.campaign()  # the checks: raises while one fails
        plan = self._next(again=again)
        if plan.previous is not None and not plan.new:
            sent = plan.previous.result.summary().iloc[0]
            self.result = plan.previous.result
            self._show_result(self.result)
            self.message.value = escaped(
                f"already sent at {_clock(plan.previous.at)} (sent: {int(sent['sent'])}): "
                "nothing sent again; send(again=True), or the send button, sends it again"
            )
            return self.result
        if self.sends or plan.journal != self._series.journal:
            # a new campaign: a name and journal of its own (unnamed: a new date)
            self._edit(name=plan.name, journal=plan.journal, created=None)
        to_send = self._checked_online(campaign)
        self.message.value = escaped(f"sending to {to_send} recipient(s)…")
        kwargs = self.send_kwargs()
        self.result = campaign.send(progress=self._progress("recipients", to_send), again=again)
        self.sends.append(Sent(kwargs, campaign.name, plan.journal, datetime.now(UTC), self.result))
        summary = self.result.summary().iloc[0]
        self.message.value = escaped(
            f"sent: {int(summary['sent'])}, already accepted: {int(summary['already_accepted'])}"
            f", failed: {int(summary['failed'])}, rejected: {int(summary['rejected'])}, "
            f"excluded: {int(summary['excluded'])}; {int(summary['sms'])} SMS, "
            f"cost {summary['cost']} (campaign {campaign.name})"
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

    @tolerant_repr
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
_JOURNAL_SUFFIX: Final = ".journal.sqlite"


def _numbered(journal: Path, number: int) -> Path:
    """``x.journal.sqlite`` -> ``x-<number>.journal.sqlite``; others ``<stem>-<n><suffix>``."""
    name = journal.name
    if name.endswith(_JOURNAL_SUFFIX):
        return journal.with_name(f"{name[: -len(_JOURNAL_SUFFIX)]}-{number}{_JOURNAL_SUFFIX}")
    return journal.with_name(f"{journal.stem}-{number}{journal.suffix}")


def _clock(moment: datetime) -> str:
    """A send's time as the user reads it: local wall clock with its offset."""
    return moment.astimezone().strftime("%H:%M:%S %z")


def _where(plan: _Next) -> str:
    shown = f"journal {plan.journal}" if plan.journal is not None else "its own journal"
    return f" ({plan.name}, {shown})" if plan.name else f" ({shown})"
