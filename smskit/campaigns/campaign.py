"""Campaigns at scale: preflight, estimate, then chunked, idempotent, resumable sending.

```
campaign = smskit.Campaign(client, Path("customers.csv"), sender="Shop", name="june-promo",
                           text="Bonjour {first_name} ... STOP au 36173")
campaign.preflight()          # per-recipient report (and the gateway's served countries)
campaign.estimate()           # the gateway's own figures (simulation_mode), vs the balance
result = campaign.send()      # chunks of 500, 4 at a time, journal june-promo.journal.sqlite
smskit.Campaign.resume("june-promo.journal.sqlite")   # after a crash or a kernel restart
```

Exactly-once: each chunk's ``request_id`` is derived from the campaign id and the chunk's
payload, both stored in the journal before anything is sent. A retry, a resume or a re-run
of a named campaign repeats the same ids, and the gateway refuses a ``request_id`` it
accepted in the last 24 hours: that answer is recorded as ``already_accepted``, never sent
twice. A campaign not named is named with its creation time: created again later, it is a
new campaign and is sent.
See docs/campaigns.md for every decision.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from smskit.campaigns.analysis.results import CampaignResult
from smskit.campaigns.executor import CampaignExecutor, ClientOption, OptOutState, Run
from smskit.campaigns.planning.audience import Audience
from smskit.campaigns.planning.links import LinkTracking
from smskit.campaigns.planning.orchestration import (
    AudienceBackEnd,
    InMemoryAudience,
    OutlineAudience,
    ReportT,
    run_preflight,
)
from smskit.campaigns.planning.plan import Plan, build_plan
from smskit.campaigns.planning.preflight import PreflightSettings
from smskit.campaigns.planning.report import OUTLINE_ROWS, PreflightOutline, PreflightReport
from smskit.campaigns.send import JournalCheck, check_journal, execute, holds_campaign
from smskit.campaigns.sending.blocking import interruption
from smskit.campaigns.sending.journal import Journal, open_leased
from smskit.campaigns.sending.lease import closed_on_error
from smskit.campaigns.sending.reconnect import journal_for_send, reopen
from smskit.campaigns.sending.record import JournaledGateway
from smskit.client import AsyncClient, Client
from smskit.errors import ConfigurationError
from smskit.rules.fields import check_field_names
from smskit.rules.optouts import Suppression
from smskit.rules.recipients import Recipients

__all__ = ["Campaign", "journal_check", "journal_plan", "send_journaled", "track_links"]

logger = logging.getLogger("smskit.campaigns.campaign")


class Campaign(CampaignExecutor[CampaignResult]):
    """A bulk send, checked and costed before it goes, sent in journaled chunks.

    ``recipients``: a DataFrame (columns named like the spec's Contact fields), the path
    of a CSV file with such a header, or a list of numbers or dicts. ``options`` are the send
    endpoint's own (``type``, ``send_at``, ``purpose``, ``with_replies``,
    ``auto_optimize_text``, ``auto_remove_blacklisted_numbers``) and the campaign options
    declared on :class:`~smskit.campaigns.planning.spec.CampaignSpec` (``include_opted_out``,
    ``repeat_window``, ``frequency_cap``; typed by ``CampaignOptions``). Nothing is sent until
    :meth:`send`. ``name`` names the journal and is the campaign's identity; by default it
    is ``campaign-<created>-<hash>``: when the campaign was created (to the microsecond) and
    a hash of the text, sender and options, so the same content created again later is a new
    campaign, sent again (name it to make a re-run continue the same one). ``clock``
    (returning an aware datetime) is what "now" means to the creation time and the
    marketing-hours check; ``journal`` where :meth:`send` journals by default. Together they
    are the campaign's :class:`~smskit.campaigns.planning.spec.CampaignSpec` (``.spec``),
    checked once here. ``client`` None: ``smskit.Client()``, made on the first request.
    Numbers on the account's opt-out list (:class:`smskit.OptOuts`) are never sent to
    (issue ``opted_out``), unless ``include_opted_out=True`` on a transactional send
    (``purpose="alert"``; refused for marketing): see docs/optouts.md.
    """

    recipients: Recipients
    _read_fields: Sequence[str] | None = None
    _report: PreflightReport | None = None
    # The recipients' half of preflight, kept while they (and default_region) do not change.
    _audience: Audience | None = None
    # What the report checked: the recipients' fingerprint and the settings (the text,
    # sender and options may change between preflight and send),
    # and the state of the opt-out list it read.
    _report_of: tuple[str, PreflightSettings, OptOutState] | None = None

    def _taken(self, recipients: Any) -> Recipients:
        return Recipients(recipients)

    def _tracked(self, tracking: LinkTracking, recipients: Recipients) -> Recipients:
        # made for the journal a send would use now: a re-run continuing it makes the same
        journal = journal_for_send(self.spec.journal_path())[0]
        return tracking.recipients(recipients, self.spec.identity, journal=journal)

    def _links_for(self, path: Path) -> None:
        """Give the recipients the short links of this campaign sent in ``path`` when theirs
        were made for another journal (two sends of one name never share a token)."""
        if self.tracking is not None:
            moved = self.tracking.for_journal(self.spec.identity, path)
            if moved is not None:  # a snapshot's fingerprint never changes: preflight again
                self.recipients, self._report = moved, None

    @property
    def read_fields(self) -> Sequence[str] | None:
        """The Contact fields the first reading of the recipients takes with the numbers
        (None: those the text uses; the Composer reads them all, so a field typed later costs
        no second read). Checked when set."""
        return self._read_fields

    @read_fields.setter
    def read_fields(self, fields: Sequence[str] | None) -> None:
        self._read_fields = None if fields is None else check_field_names(fields, "read_fields")

    @classmethod
    def from_csv(
        cls,
        client: Client | AsyncClient | None,
        path: str | Path,
        *,
        text: str,
        sender: str,
        **options: Any,
    ) -> Campaign:
        """A campaign whose recipients are the CSV file at ``path`` (a header row with
        ``phone_number``); ``options`` as for the constructor. A plain string given as
        recipients is one phone number, never a file name. A Parquet file is refused here
        (the name says CSV): give its ``pathlib.Path`` as the recipients instead."""
        recipients = Recipients.from_csv(path)
        return cls(client, recipients, text=text, sender=sender, **options)

    def describe_recipients(self) -> str:
        """The recipients in a few words (for the repr)."""
        return self.recipients.describe()

    @property
    def audience(self) -> Audience | None:
        """The recipients' half of the last preflight (numbers, line types, duplicates, field
        values), reused while the recipients and the default region do not change."""
        return self._audience

    # -- preflight and estimate --------------------------------------------------------------

    def preflight(self, *, now: datetime | None = None, offline: bool = False) -> PreflightReport:
        """Check every recipient and the campaign; nothing is sent.

        Which destination countries the gateway serves for the product, and at what price,
        it learns from the gateway (once per client: the credits-per-country answer and one
        simulated SMS per new country); ``offline=True`` asks nothing and leaves both
        unchecked. ``now`` (an aware datetime) overrides the clock for the marketing-hours
        check. Numbers on the account's opt-out list (:class:`smskit.OptOuts`) are excluded
        (issue ``opted_out``) unless the campaign includes them (``include_opted_out``).
        """
        fingerprint = self.recipients.fingerprint()
        spec = self.spec
        suppression, state = self._suppression(offline)
        back_end = InMemoryAudience(self.recipients, self._audience, fields=self._read_fields)
        report = self._checked(back_end, back_end, suppression, now, offline)
        self._report = report
        self._report_of = (fingerprint, spec.settings, state)
        return report

    def preflight_outline(
        self, *, now: datetime | None = None, offline: bool = False, rows: int = OUTLINE_ROWS
    ) -> PreflightOutline:
        """:meth:`preflight`'s figures (recipients, to send, SMS, the most one recipient
        takes), findings and first ``rows`` rows, without its per-recipient frame: what the
        Composer shows at each keystroke. The same checks, in the same order; the frame is
        made only when the gateway's prices (``offline=False``) or a holdout need it."""
        suppression, _state = self._suppression(offline)
        inner = InMemoryAudience(self.recipients, self._audience, fields=self._read_fields)
        return self._checked(OutlineAudience(inner, rows), inner, suppression, now, offline)

    def _checked(
        self,
        back_end: AudienceBackEnd[ReportT],
        memory: InMemoryAudience,
        suppression: Suppression,
        now: datetime | None,
        offline: bool,
    ) -> ReportT:
        """:func:`run_preflight` of the spec through ``back_end`` (whose recipients'
        half is ``memory``, kept for the next preflight)."""
        if self.tracking is not None:
            self.tracking.check_sent_text(self.spec.text)
        spec = self.spec
        history = self._history(offline)
        report = run_preflight(
            back_end, spec.settings, spec.instant(now), self._serving(offline), suppression,
            history,
        )  # fmt: skip
        self._audience = memory.audience
        return report

    # -- where the recipients are: in memory ---------------------------------------------------

    def _planned(self, chunk_size: int) -> Plan:
        return self._plan(chunk_size)

    async def _journaled(self, path: Path, chunk_size: int, wait: float) -> Journal:
        """The journal at ``path`` holding the campaign's plan (see :meth:`_adopt`), its lease
        held; the plan's tracked links registered with the inbox first (docs/links.md)."""
        self._links_for(path)
        plan = self._plan(chunk_size)
        if self.tracking is not None:  # registered before any text carrying them goes
            assert self._report is not None  # made by _plan
            self.tracking.register(self._report.frame, self.spec.identity)
        return self._adopt(await open_leased(path, mode="any", wait=wait), plan, chunk_size)

    async def _deliver(self, path: Path, chunk_size: int, run: Run) -> CampaignResult:
        book = await self._journaled(path, chunk_size, run.wait)
        stop, share = interruption()
        return await execute(
            book, self.client, run.concurrency, run.progress, stop, share=share, repeat=run.repeat
        )

    def _content_id(self) -> str:
        content_id = self._plan(500).record.content_id  # the chunking is not the content
        assert content_id is not None
        return content_id

    @classmethod
    async def _continue(cls, path: str | Path, client: ClientOption, run: Run) -> CampaignResult:
        book, sender = await reopen(path, client, concurrency=run.concurrency, wait=run.wait)
        stop, share = interruption()
        return await execute(
            book, sender, run.concurrency, run.progress, stop, share=share, repeat=run.repeat
        )

    # -- internals ---------------------------------------------------------------------------

    def _adopt(self, book: Journal, plan: Plan, chunk_size: int) -> Journal:
        """``book`` initialised with ``plan``, or checked to hold it (closed if it does not)."""
        path = book.path
        with closed_on_error(book):
            held = book.record()
            if held is None:
                record = plan.record.replace(
                    gateway=JournaledGateway.of(self.client),
                    include_opted_out=self.spec.include_opted_out,  # read at a resume
                    campaign_options=self.spec.journaled_options(),
                )
                book.initialise(record, plan.columns, plan.bounds, plan.excluded)
            elif not holds_campaign(held, plan.campaign_id):
                raise ConfigurationError(
                    f"journal {str(path)!r} holds another campaign ({held.name!r}, "
                    "other text, sender, options or recipients); pass journal= or name= for "
                    "this one, or delete the file to start over"
                )
            elif held.chunk_size != chunk_size:
                logger.info("continuing %s with its journal's chunks of %s", path, held.chunk_size)
        return book

    def _current_report(self) -> PreflightReport:
        """The last preflight if neither recipients, settings nor the opt-out list changed
        since, else a new one."""
        if self._report is None or self._report_of != (
            self.recipients.fingerprint(),
            self.settings,
            self._optout_state(),
        ):
            self.preflight()
        assert self._report is not None
        return self._report

    def _plan(self, chunk_size: int) -> Plan:
        """Preflight, then the exact payload of every chunk and the ids derived from it."""
        report = self._current_report()
        assert self._audience is not None  # set by the preflight that made the report
        return build_plan(
            report, self._audience, self.spec.header, self.default_region, chunk_size,
            self.spec.content,
            None if self.tracking is None else self.tracking.content_columns,
        )  # fmt: skip


def journal_check(campaign: Campaign, journal: str | Path | None = None) -> JournalCheck:
    """How the journal a send of ``campaign`` would use (``journal``, else the campaign's
    default; the next one beside it when that holds an ended sandbox's send) fits it: free,
    this campaign unfinished or complete, or another campaign (see
    :class:`~smskit.campaigns.send.JournalFit`). Runs preflight if the campaign has
    none for its current recipients and settings; sends nothing."""
    path = journal_for_send(campaign.spec.journal_path(journal))[0]
    campaign._links_for(path)
    plan = campaign._plan(500)  # the campaign id does not depend on the chunking
    return check_journal(path, campaign.name, plan.campaign_id)


# What an experiment (smskit.campaigns.experiment) does with each arm's campaign.


def track_links(campaign: Campaign, tracking: LinkTracking) -> None:
    """Track ``campaign``'s links with ``tracking``, made for its text (an experiment's arm,
    made from its spec, is given its own)."""
    campaign.tracking = tracking
    campaign.recipients = campaign._tracked(tracking, campaign.recipients)


async def journal_plan(campaign: Campaign, path: Path, chunk_size: int, wait: float) -> None:
    """Journal ``campaign``'s plan at ``path`` (preflight first), sending nothing; its tracked
    links are registered with the inbox before (docs/links.md)."""
    (await campaign._journaled(path, chunk_size, wait)).close()


async def send_journaled(
    campaign: Campaign, path: Path, client: ClientOption, run: Run
) -> CampaignResult:
    """Send what the journal at ``path`` (``campaign``'s: :func:`journal_plan`) has left, as
    ``run`` says, under the campaign's repeat guard (its ``repeat_window``), asked before the
    first request; a short send is not warned of (the experiment says it per arm)."""
    guard = campaign._repeat_guard(again=False)
    return await Campaign._continue(path, client, dataclasses.replace(run, repeat=guard))
