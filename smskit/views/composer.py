"""The campaign :class:`Composer`: a text editor whose cost, encoding and checks follow every
keystroke, with one-click fixes, a cost estimate and a confirmed send; an anywidget (one ES
module, ``static/composer.js``, and its stylesheet) that runs in JupyterLab, Notebook 7, VS
Code, Colab and marimo.

The live panel's content is :func:`smskit.views.pure_panel.compose_panel` (pure), sent to the
front end as :func:`smskit.views.pure_panel.panel_state`; this module holds the campaign,
decides what each button may do, and runs it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Unpack

from smskit._repr import tolerant_repr
from smskit.campaigns.analysis.results import CampaignResult
from smskit.campaigns.campaign import Campaign
from smskit.campaigns.planning.audience import Audience
from smskit.campaigns.planning.estimates import CostEstimate
from smskit.campaigns.planning.holdout import Holdout, as_holdout
from smskit.campaigns.planning.links import LinkTracking, check_tracking_inbox
from smskit.campaigns.planning.report import PreflightOutline, PreflightReport
from smskit.campaigns.planning.spec import CampaignOptions, CampaignSpec
from smskit.campaigns.sending.journal_file import numbered_journal
from smskit.client import AsyncClient, Client
from smskit.errors import SmskitError, ValidationError
from smskit.replies.inbox import Inbox
from smskit.rules import content
from smskit.rules import spec as _spec
from smskit.rules import text as engine
from smskit.rules.fields import DYNAMIC_FIELDS
from smskit.rules.region import DEFAULT_REGION
from smskit.views.pure_panel import PREVIEW_ROWS, ComposerPanel, compose_panel, panel_state
from smskit.views.widget import NO_PROGRESS, TraitProgress, Widget, es_module, stylesheet, traitlets

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
        journal = numbered_journal(self.journal, number) if self.journal is not None else None
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


class Composer(Widget):
    """Write a campaign's text with its cost, encoding and checks following every keystroke.

    ``recipients``: what :class:`smskit.Campaign` takes (DataFrame, CSV path, list); the
    preview and preflight use them. ``options`` are the send endpoint's (``type``,
    ``purpose``, ``with_replies``, ``send_at``, ``auto_optimize_text`` ...) and the campaign
    options declared on :class:`~smskit.campaigns.planning.spec.CampaignSpec`, as
    :class:`smskit.Campaign` takes them. ``debounce``:
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
    composer or anywhere else, is refused unless sent again on purpose. ``holdout``
    (``seed``, ``stratify``) keeps a seeded part of the recipients out of the send as
    :class:`smskit.Campaign` does: the recipients to send exclude them, and the panel and
    :attr:`summary` say how many are held out (docs/conversions.md). ``frequency_cap``
    (``"2/7D"``; not given: the account's default, ``SMSKIT_FREQUENCY_CAP``) excludes the
    marketing recipients already at the cap (``frequency_capped``, counted in the panel).
    ``track_links=inbox`` sends each URL of the text as each recipient's short link
    (:class:`smskit.Campaign`'s ``track_links``): the meter, the preview, the SMS count and
    the estimate count the real links, and the send registers them (docs/links.md).

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

    ACTIONS = ("optimize", "stop", "estimate", "send", "confirm", "cancel")
    INPUTS = ("text", "sender", "sms_type", "purpose", "with_replies", "send_at")
    _esm = es_module("composer")
    _css = stylesheet("composer")

    # What the user types is not echoed back (ipywidgets' echo_update): the front end has it,
    # and each keystroke's answer is the panel; one message fewer through the host per key.
    text = traitlets.Unicode("").tag(sync=True, echo_update=False)
    """The text as typed (a template with ``{first_name}`` ... fields; settable)."""
    sender = traitlets.Unicode("").tag(sync=True, echo_update=False)
    """The sender ID in the sender box (settable)."""
    sms_type = traitlets.Unicode("").tag(sync=True)
    """The send option ``type`` ("" for the gateway's default)."""
    purpose = traitlets.Unicode("wholesale").tag(sync=True)
    """The send option ``purpose``."""
    with_replies = traitlets.Bool(False).tag(sync=True)
    """The send option ``with_replies``."""
    send_at = traitlets.Unicode("").tag(sync=True)
    """The send option ``send_at`` ("" for now)."""
    choices = traitlets.Dict().tag(sync=True)
    """The values the ``type`` and ``purpose`` menus offer (the rule book's)."""
    state = traitlets.Dict().tag(sync=True)
    """What the live panel shows (:func:`smskit.views.pure_panel.panel_state`)."""
    controls = traitlets.Dict().tag(sync=True)
    """Each button's ``enabled`` and, when disabled, ``why``."""
    summary = traitlets.Dict().tag(sync=True)
    """Always in view: recipients to send, excluded, SMS and cost (``to_send``, ``excluded``
    and ``sms`` None while the text cannot be sent; ``cost`` None until estimated, its
    ``unit``: the wallet's, a currency)."""
    confirmation = traitlets.Unicode("").tag(sync=True)
    """The question Confirm / Cancel answer ("" while none is on show)."""
    progress = traitlets.Dict(NO_PROGRESS).tag(sync=True)
    """The running estimate's or send's progress (``done``, ``total``, ``unit``)."""
    result_html = traitlets.Unicode("").tag(sync=True)
    """The estimate or result on show, as its HTML (escaped by its template)."""

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
        holdout: float | int | Holdout | None = None,
        seed: int | None = None,
        stratify: str | None = None,
        track_links: Inbox | None = None,
        **options: Unpack[CampaignOptions],
    ) -> None:
        self._links = None if track_links is None else check_tracking_inbox(track_links)
        self._linked_for: tuple[str, Path, tuple[str, ...], tuple[str, ...]] | None = None
        spec = CampaignSpec.of(
            text, sender, name=name, default_region=default_region, journal=journal,
            holdout=as_holdout(holdout, seed, stratify), **options,
        )  # fmt: skip
        self._client = client
        # The one campaign (None without recipients), which holds the one spec: every field
        # is read with the numbers, so the first {field} typed costs no read.
        self._held = None if recipients is None else Campaign.from_spec(client, recipients, spec)
        if self._held is not None:
            self._held.read_fields = DYNAMIC_FIELDS
        # The recipients as given (the held campaign's, with their short links, when tracking).
        self._given = None if self._held is None else self._held.recipients
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
        self._outline: PreflightOutline | None = None  # the panel's preflight, each refresh
        self._report: PreflightReport | None = None  # the whole report, made when asked for
        self._shown_for: Any = None  # the values the estimate or result on show were made from
        self._cost: tuple[float | None, str] | None = None  # the cost on show and its source
        self._unit: str | None = None  # the wallet's unit, read once with the first estimate
        sent = spec.options
        super().__init__(
            text=text,
            sender=sender,
            sms_type=sent.get("type") or "",
            purpose=sent.get("purpose", "wholesale"),
            with_replies=bool(sent.get("with_replies", False)),
            send_at=sent.get("send_at") or "",
            choices={"type": list(_spec.SMS_TYPES), "purpose": list(reversed(_spec.PURPOSES))},
        )
        self.observe(self._typed, names="text")
        self.observe(
            lambda _: self.refresh(),
            names=["sender", "sms_type", "purpose", "with_replies", "send_at"],
        )
        self.refresh()

    # -- state ---------------------------------------------------------------------------------

    def options(self) -> dict[str, Any]:
        """The send options the controls and the constructor set (None values left out)."""
        beyond_controls = {k: v for k, v in self.spec.options.items() if k not in _UI_OPTIONS}
        chosen: dict[str, Any] = {
            **beyond_controls,
            "type": self.sms_type or None,
            "purpose": self.purpose,
            "with_replies": bool(self.with_replies),
            "send_at": self.send_at.strip() or None,
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
        """The campaign's preflight for the current text and options (None without recipients,
        or while it fails): made on first use after a refresh (a keystroke computes only the
        panel's figures, :meth:`smskit.Campaign.preflight_outline`)."""
        if self._report is None and self._outline is not None and self._held is not None:
            self._report = self._held.preflight(offline=True)
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
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop to wait in (a plain script): refresh now, unchained
            self.refresh()
            return
        if self._pending is not None:
            self._pending.cancel()
        self._pending = loop.call_later(delay, self.refresh)

    def refresh(self) -> ComposerPanel:
        """Recompute the live panel, the checks and the buttons from the current values."""
        started = time.perf_counter()
        if self._pending is not None:
            self._pending.cancel()  # this refresh covers the one a keystroke scheduled
            self._pending = None
        with self.hold_sync():  # one message to the front end: the panel, buttons, summary
            text, options = self.text, self.options()
            if self._shown_for is not None and self._shown_for != self.send_kwargs():
                self._show_result(None)  # an estimate or a result of other values would mislead
            option_error = recipients_error = None
            self._outline = self._report = None
            tracking = self._tracking_of(text)
            sent_text = text if tracking is None else tracking.tracked.text
            try:
                spec = self._edit(text=sent_text, sender=self.sender, options=options)
            except ValidationError as exc:
                option_error = str(exc)
            else:
                self._track(tracking)
                options = dict(spec.options)
                if self._held is not None:
                    try:
                        self._outline = self._held.preflight_outline(
                            offline=True, rows=PREVIEW_ROWS
                        )
                    except Exception as exc:  # whatever broke, the panel says so, send blocked
                        recipients_error = f"preflight failed: {type(exc).__name__}: {exc}"
            self._panel = compose_panel(
                text, sender=self.sender, options=options, report=self._outline,
                option_error=option_error, recipients_error=recipients_error,
                link_base=None if self._links is None else self._links.link_base,
            )  # fmt: skip
            if self._confirm_for is not None and (
                not self._panel.ok or self._confirm_for != self.send_kwargs()
            ):
                self.cancel()  # a confirmation of other values (or a blocked send) would mislead
            self.state = panel_state(self._panel)
            self._show_controls()
        self._refresh_s = time.perf_counter() - started
        return self._panel

    def _tracking_of(self, text: str) -> LinkTracking | None:
        """The tracking of ``text``'s links (None: not tracking, or a link that cannot be
        carried: the panel's ``links`` check says why and blocks the send)."""
        if self._links is None:
            return None
        try:
            return LinkTracking.of(self._links, text)
        except ValidationError:
            return None

    def _track(self, tracking: LinkTracking | None) -> None:
        """Give the held campaign ``tracking`` and its recipients their short links, made
        again only when the campaign's name or its links changed."""
        held = self._held
        if held is None or self._given is None or self._links is None:
            return
        previous, held.tracking = held.tracking, tracking
        if tracking is None:
            held.recipients, self._linked_for = self._given, None
            return
        tracked = tracking.tracked
        journal = held.spec.journal_path()
        key = (held.spec.identity, journal, tracked.fields, tracked.destinations)
        if key == self._linked_for and previous is not None:
            tracking.made, tracking.written = previous.made, previous.written
            tracking.scope, tracking.given, tracking.wanted = (
                previous.scope, previous.given, previous.wanted,
            )  # fmt: skip
            return
        held.recipients = tracking.recipients(
            self._given, key[0], fields=DYNAMIC_FIELDS, journal=journal
        )
        self._linked_for = key

    def _show_controls(self) -> None:
        """Each button enabled or not, and why not; the summary always in view."""
        panel = self._panel
        blocked = panel.failed[0] if panel.failed else None
        why_blocked = None if blocked is None else _reason(blocked.name, blocked.message)
        why_optimize = why_stop = None
        if panel.stats is None:
            why_optimize = "the text cannot be analysed"
        elif not panel.can_optimize:
            why_optimize = "nothing to optimise: no look-alike character or useless spacing"
        if not panel.stop_required:
            why_stop = "not required: purpose='alert'"
        elif panel.has_stop:
            why_stop = "the text has a STOP mention"
        on_show = self._confirm_for is not None
        why_send = why_blocked
        if why_blocked is None and on_show:
            why_send = "waiting for Confirm or Cancel below"
        self.controls = {
            "optimize": {"enabled": why_optimize is None, "why": why_optimize},
            "stop": {"enabled": why_stop is None, "why": why_stop},
            "estimate": {"enabled": why_blocked is None, "why": why_blocked},
            "send": {"enabled": why_send is None, "why": why_send},
            "confirm": {"enabled": on_show, "why": None if on_show else "nothing to confirm"},
            "cancel": {"enabled": on_show, "why": None if on_show else "nothing to cancel"},
        }
        cost, source = self._cost if self._cost is not None else (None, None)
        summary = {
            "recipients": panel.recipients,
            "to_send": panel.to_send,
            # None while nothing can be sent (the text cannot): no count of the excluded. The
            # holdout's recipients are held out, not excluded (the recipients check says so).
            "excluded": None
            if panel.to_send is None
            else (panel.recipients or 0) - panel.to_send - (panel.held_out or 0),
            "sms": panel.sms,
            "cost": cost,
            "unit": self._unit if cost is not None else None,
            "source": source,  # "estimate" or "sent"; None: ask with "estimate cost"
        }
        if panel.held_out:  # a holdout: how many of the recipients it keeps out
            summary["held_out"] = panel.held_out
        self.summary = summary

    def enabled(self, action: str) -> bool:
        """Whether the button of ``action`` is enabled now."""
        return bool(self.controls.get(action, {}).get("enabled"))

    def _on_estimate(self) -> None:
        self._guarded(self.estimate)

    # -- one-click fixes -----------------------------------------------------------------------

    def optimize(self) -> engine.Optimization:
        """Replace look-alike characters and useless spacing; say how many segments it saved."""
        result = engine.optimize(self.text)
        self.text = result.text
        self.refresh()
        changes = len(result.replacements)
        self.say(
            f"optimised: {changes} change(s), {result.segments_before} → "
            f"{result.segments_after} segment(s) per message, {result.saved} saved"
        )
        return result

    def add_stop_mention(self, mention: str = content.DEFAULT_STOP_MENTION) -> str:
        """Append a STOP mention on a new line (unless the text has one)."""
        self.text = content.add_stop_mention(self.text, mention)
        self.refresh()
        self.say(f"added {mention!r}")
        return self.text

    _on_optimize = optimize  # the buttons' actions (Widget.press)
    _on_stop = add_stop_mention

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

    def _wallet_unit(self) -> str | None:
        """The wallet's unit (the account's currency), asked once; None when unknown."""
        if self._unit is None and isinstance(self.client, Client):
            try:
                self._unit = self.client.wallet.check_balance().unit
            except SmskitError:
                return None
        return self._unit

    def _money(self, amount: float | None) -> str:
        """An amount as the message line says it: with the wallet's unit when known."""
        if amount is None:
            return "unknown"
        return f"{amount} {self._unit}" if self._unit else f"{amount}"

    def estimate(self) -> CostEstimate:
        """The gateway's figures for the campaign (``simulation_mode``): cost, SMS, balance."""
        campaign = self.campaign()
        # preflight again, online: the gateway's served countries and prices (the panel's is not)
        to_send = campaign.preflight().to_send
        self.cost_estimate = campaign.estimate(progress=TraitProgress(self, "recipients", to_send))
        self._wallet_unit()
        self._show_result(self.cost_estimate, cost=(self.cost_estimate.cost, "estimate"))
        self.say(
            f"estimate: {self.cost_estimate.sms} SMS, cost {self._money(self.cost_estimate.cost)}"
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
        # A folder is no journal taken: the campaign refuses it (numbering put the journal in
        # a new file "<folder>-2" beside it).
        series = self._series
        first = series.journal is None or series.name is not None or not series.journal.is_file()
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
        report = self._outline
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
        with self.hold_sync():
            self.confirmation = question
            self._show_controls()

    _on_send = ask_confirmation

    def cancel(self) -> None:
        """Hide the confirmation without sending."""
        self._confirm_for = None
        with self.hold_sync():
            self.confirmation = ""
            self._show_controls()

    _on_cancel = cancel

    def _on_confirm(self) -> None:
        self._confirm_for = None
        self.confirmation = ""
        again, self._again = self._again, False
        self._guarded(lambda: self.send(again=again))
        self._show_controls()

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
            self._show_result(self.result, cost=(_cost(sent), "sent"))
            self.say(
                f"already sent at {_clock(plan.previous.at)} (sent: {int(sent['sent'])}): "
                "nothing sent again; send(again=True), or the send button, sends it again"
            )
            return self.result
        if self.sends or plan.journal != self._series.journal:
            # a new campaign: a name and journal of its own (unnamed: a new date)
            self._edit(name=plan.name, journal=plan.journal, created=None)
            self._track(self._tracking_of(self.text))  # its links are made for its name
        to_send = campaign.preflight().to_send  # online, as for the estimate
        self.say(f"sending to {to_send} recipient(s)…")
        kwargs = self.send_kwargs()
        progress = TraitProgress(self, "recipients", to_send)
        self.result = campaign.send(progress=progress, again=again)
        self.sends.append(Sent(kwargs, campaign.name, plan.journal, datetime.now(UTC), self.result))
        summary = self.result.summary().iloc[0]
        self._wallet_unit()
        self._show_result(self.result, cost=(_cost(summary), "sent"))
        self.say(
            f"sent: {int(summary['sent'])}, already accepted: {int(summary['already_accepted'])}"
            f", failed: {int(summary['failed'])}, rejected: {int(summary['rejected'])}, "
            f"excluded: {int(summary['excluded'])}; {int(summary['sms'])} SMS, "
            f"cost {self._money(_cost(summary))} (campaign {campaign.name})"
        )
        return self.result

    def _show_result(
        self,
        result: CostEstimate | CampaignResult | None,
        cost: tuple[float | None, str] | None = None,
    ) -> None:
        """Show an estimate or a send result (and its ``cost``: the amount and where it comes
        from), remembering the values it belongs to; None takes them away."""
        with self.hold_sync():
            self.result_html = "" if result is None else result.to_html()
            self._shown_for = None if result is None else self.send_kwargs()
            self._cost = cost
            if result is None:
                self.say("")
                self.progress = NO_PROGRESS
            self._show_controls()

    @tolerant_repr
    def __repr__(self) -> str:
        panel = self._panel
        shown = self.text if len(self.text) <= 30 else self.text[:29] + "…"
        stats = panel.stats
        figures = f"{stats.encoding}, {stats.segments} segment(s)" if stats else "not analysable"
        recipients = "no recipients" if panel.recipients is None else f"{panel.to_send} to send"
        if panel.recipients is not None and panel.to_send is None:  # the text cannot be sent
            recipients = f"{panel.recipients} recipient(s)"
        failed = ", ".join(c.name for c in panel.failed)
        state = "ready" if panel.ok else f"blocked by {failed}"
        return f"Composer({shown!r}, {figures}, {recipients}, {state})"


_UI_OPTIONS: Final = frozenset({"type", "purpose", "with_replies", "send_at"})


def _cost(summary: Any) -> float | None:
    """A result summary's cost (None when unknown)."""
    from smskit.rules.missing import is_missing

    value = summary["cost"]
    return None if is_missing(value) else float(value)


def _clock(moment: datetime) -> str:
    """A send's time as the user reads it: local wall clock with its offset."""
    return moment.astimezone().strftime("%H:%M:%S %z")


def _where(plan: _Next) -> str:
    shown = f"journal {plan.journal}" if plan.journal is not None else "its own journal"
    return f" ({plan.name}, {shown})" if plan.name else f" ({shown})"


def _reason(check: str, message: str) -> str:
    """Why a check blocks the send, named once: a refusal's message names its field already
    (``sender: must have 3 to 11 characters``), another check's message is given its name."""
    return message if message.startswith(f"{check}: ") else f"{check}: {message}"
