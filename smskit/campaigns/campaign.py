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

import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from smskit.campaigns.bulk import (
    abulk_hlr,
    acreate_contacts,
    adelete_contacts,
    bulk_hlr,
    create_contacts,
    delete_contacts,
)
from smskit.campaigns.definition import CampaignSpec, SpecHolder, check_client
from smskit.campaigns.estimates import CostEstimate, Simulator, offline_estimate
from smskit.campaigns.journal import Journal, derive_request_id, open_leased
from smskit.campaigns.orchestration import InMemoryAudience, run_preflight
from smskit.campaigns.plan import Plan, build_plan
from smskit.campaigns.preflight import (
    ISSUES,
    MARKETING_HOURS,
    Audience,
    MarketingHours,
    PreflightReport,
    PreflightSettings,
    Recipients,
    register_marketing_hours,
)
from smskit.campaigns.reconnect import gateway_record, reconnect
from smskit.campaigns.results import RECIPIENT_STATES, CampaignResult
from smskit.campaigns.runner import (
    ProgressOption,
    async_client,
    check_chunk_size,
    check_concurrency,
    run_chunks,
)
from smskit.campaigns.sending import execute
from smskit.campaigns.twins import blocking, interruption
from smskit.client import AsyncClient, Client
from smskit.errors import ConfigurationError
from smskit.rules import spec as _spec
from smskit.rules.fields import check_field_names
from smskit.rules.region import DEFAULT_REGION

__all__ = [
    "ISSUES",
    "MARKETING_HOURS",
    "RECIPIENT_STATES",
    "Campaign",
    "CampaignResult",
    "CostEstimate",
    "MarketingHours",
    "PreflightReport",
    "abulk_hlr",
    "acreate_contacts",
    "adelete_contacts",
    "bulk_hlr",
    "create_contacts",
    "delete_contacts",
    "derive_request_id",
    "register_marketing_hours",
]

logger = logging.getLogger("smskit.campaigns.campaign")


class Campaign(SpecHolder):
    """A bulk send, checked and costed before it goes, sent in journaled chunks.

    ``recipients``: a DataFrame (columns named like the spec's Contact fields), the path
    of a CSV file with such a header, or a list of numbers or dicts. ``send_options`` are
    the send endpoint's own (``type``, ``send_at``, ``purpose``, ``with_replies``,
    ``auto_optimize_text``, ``auto_remove_blacklisted_numbers``). Nothing is sent until
    :meth:`send`. ``name`` names the journal and is the campaign's identity; by default it
    is ``campaign-<created>-<hash>``: when the campaign was created (to the microsecond) and
    a hash of the text, sender and options, so the same content created again later is a new
    campaign, sent again (name it to make a re-run continue the same one). ``clock``
    (returning an aware datetime) is what "now" means to the creation time and the
    marketing-hours check; ``journal`` where :meth:`send` journals by default. Together they
    are the campaign's :class:`~smskit.campaigns.definition.CampaignSpec` (``.spec``),
    checked once here. ``client`` None: ``smskit.Client()``, made on the first request.
    ``read_fields``: the Contact fields read with the numbers in the first pass over the
    recipients (default: those the text uses; the Composer reads them all, so a field typed
    later costs no second read).
    """

    def __init__(
        self,
        client: Client | AsyncClient | None,
        recipients: Any,
        *,
        text: str,
        sender: str,
        name: str | None = None,
        default_region: str | None = DEFAULT_REGION,
        clock: Callable[[], datetime] | None = None,
        journal: str | Path | None = None,
        read_fields: Sequence[str] | None = None,
        **send_options: Any,
    ) -> None:
        check_client(client)
        spec = CampaignSpec(text, sender, send_options, name, default_region, clock, journal)
        super().__init__(client, spec)
        self.recipients = Recipients(recipients)
        self._read_fields = (
            None if read_fields is None else check_field_names(read_fields, "read_fields")
        )
        self._report: PreflightReport | None = None
        # The recipients' half of preflight, kept while they (and default_region) do not change.
        self._audience: Audience | None = None
        # What the report checked: the recipients' fingerprint and the settings (the text,
        # sender and options may change between preflight and send).
        self._report_of: tuple[str, PreflightSettings] | None = None

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
        recipients is one phone number, never a file name."""
        return cls(client, Path(path), text=text, sender=sender, **options)

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
        check.
        """
        fingerprint = self.recipients.fingerprint()
        spec = self.spec
        back_end = InMemoryAudience(self.recipients, self._audience, fields=self._read_fields)
        report = run_preflight(back_end, spec.settings, spec.instant(now), self._serving(offline))
        self._audience = back_end.audience
        self._report = report
        self._report_of = (fingerprint, spec.settings)
        return report

    async def aestimate(
        self,
        *,
        offline: bool = False,
        unit_prices: Mapping[str, float] | None = None,
        chunk_size: int = 500,
        concurrency: int = 4,
        progress: ProgressOption = False,
    ) -> CostEstimate:
        """Cost, SMS count and residual credit; from the gateway (``simulation_mode``, chunk by
        chunk, compared with the balance) or, with ``offline=True``, from :mod:`smskit.rules.text`
        (no request; cost only with ``unit_prices``: EUR per segment by country code)."""
        check_chunk_size(chunk_size, _spec.RECIPIENTS_MAX)
        plan = self._plan(chunk_size)
        if offline:
            return offline_estimate(plan.segments_and_regions(), unit_prices)
        check_concurrency(concurrency)
        stop, share = interruption()
        async with async_client(self.client, share=share) as client:
            simulator = Simulator(client, self.text, self.sender, self.options)

            async def one(index: int) -> None:
                start, stop_at = plan.bounds[index]
                rows = plan.columns["row"][start:stop_at]
                await simulator.chunk(index, rows, plan.contacts(start, stop_at))

            await run_chunks(
                range(len(plan.bounds)),
                one,
                concurrency=concurrency,
                stop=stop,
                progress=progress,
                total=len(plan.columns["row"]),
                unit="recipient",
                size=lambda index: plan.bounds[index][1] - plan.bounds[index][0],
            )
            balance = (await client.wallet.check_balance()).amount
        return simulator.estimate(balance)

    estimate = blocking(aestimate)

    # -- sending -----------------------------------------------------------------------------

    async def asend(
        self,
        *,
        concurrency: int = 4,
        chunk_size: int = 500,
        progress: ProgressOption = True,
        journal: str | Path | None = None,
        wait: float = 0,
    ) -> CampaignResult:
        """Send every recipient that passes preflight, in chunks, ``concurrency`` at a time.

        With a journal (``journal``, else :meth:`default_journal`) that already holds this
        campaign, it continues it: chunks accepted before are not sent again. Raises
        ``ValidationError`` for a campaign-level preflight error, ``CampaignBusy`` when
        another runner sends this journal (after waiting ``wait`` s).
        """
        check_concurrency(concurrency)
        check_chunk_size(chunk_size, _spec.RECIPIENTS_MAX)
        path = self.spec.journal_path(journal)
        plan = self._plan(chunk_size)
        book = self._adopt(await open_leased(path, mode="any", wait=wait), plan, chunk_size)
        stop, share = interruption()
        return await execute(book, self.client, concurrency, progress, stop, share=share)

    send = blocking(asend)

    @staticmethod
    async def aresume(
        journal_path: str | Path,
        client: Client | AsyncClient | None = None,
        *,
        concurrency: int = 4,
        progress: ProgressOption = True,
        wait: float = 0,
    ) -> CampaignResult:
        """Continue the campaign a journal holds (after a crash, a kill, a kernel restart).

        Needs no DataFrame: the journal has every chunk's payload. Chunks accepted before are
        never sent again; those left in flight or failed for a transient reason are sent
        again with the same request_id, which the gateway accepts at most once.
        Without ``client``, it goes back to the gateway the journal records (URL and login; the
        key from ``SMSKIT_API_KEY``, or the sandbox still running in this process), or raises a
        ConfigurationError asking for one.
        Raises ``CampaignBusy`` when another runner sends it (after waiting ``wait`` s).
        """
        check_concurrency(concurrency)
        stop, share = interruption()
        # A reconnected client is only ever used through an async twin (see async_client).
        runner = client if client is not None else reconnect(journal_path, Client)
        book = await open_leased(journal_path, wait=wait)
        return await execute(book, runner, concurrency, progress, stop, share=share)

    resume = staticmethod(blocking(aresume))

    # -- internals ---------------------------------------------------------------------------

    def _adopt(self, book: Journal, plan: Plan, chunk_size: int) -> Journal:
        """``book`` initialised with ``plan``, or checked to hold it (closed if it does not)."""
        path = book.path
        try:
            meta = book.meta()
            if not meta:
                meta = {**plan.meta, "gateway": gateway_record(self.client)}
                book.initialise(meta, plan.columns, plan.bounds, plan.excluded)
            elif meta.get("campaign_id") != plan.campaign_id:
                raise ConfigurationError(
                    f"journal {str(path)!r} holds another campaign ({meta.get('name')!r}, "
                    "other text, sender, options or recipients); pass journal= or name= for "
                    "this one, or delete the file to start over"
                )
            elif meta.get("chunk_size") != chunk_size:
                logger.info(
                    "continuing %s with its journal's chunks of %s", path, meta.get("chunk_size")
                )
        except BaseException:
            book.close()
            raise
        return book

    def _current_report(self) -> PreflightReport:
        """The last preflight if neither recipients nor settings changed since, else a new one."""
        if self._report is None or self._report_of != (
            self.recipients.fingerprint(),
            self.settings,
        ):
            self.preflight()
        assert self._report is not None
        return self._report

    def _plan(self, chunk_size: int) -> Plan:
        """Preflight, then the exact payload of every chunk and the ids derived from it."""
        report = self._current_report()
        assert self._audience is not None  # set by the preflight that made the report
        return build_plan(report, self._audience, self.spec.header, self.default_region, chunk_size)
