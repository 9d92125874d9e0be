"""Campaigns at scale: preflight, estimate, then chunked, idempotent, resumable sending.

```
campaign = smskit.Campaign(client, "customers.csv", text="Bonjour {first_name} ... STOP au 36173",
                           sender="Shop", name="june-promo")
campaign.preflight()          # per-recipient report; nothing is sent
campaign.estimate()           # the gateway's own figures (simulation_mode), vs the balance
result = campaign.send()      # chunks of 500, 4 at a time, journal june-promo.journal.sqlite
smskit.Campaign.resume("june-promo.journal.sqlite")   # after a crash or a kernel restart
```

Exactly-once: each chunk's ``request_id`` is derived from the campaign id and the chunk's
payload, both stored in the journal before anything is sent. A retry, a resume or a re-run
of the same cell repeats the same ids, and the gateway refuses a ``request_id`` it accepted
in the last 24 hours: that answer is recorded as ``already_accepted``, never sent twice.
See docs/campaigns.md for every decision.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from smskit._paths import campaigns_dir
from smskit.campaigns.bulk import ahlr, create_contacts, delete_contacts, hlr
from smskit.campaigns.journal import (
    DONE_STATES,
    FIELD_PREFIX,
    Chunk,
    Journal,
    canonical_json,
    derive_request_id,
    open_leased,
    plan_contacts,
)
from smskit.campaigns.preflight import (
    ISSUES,
    MARKETING_HOURS,
    MarketingHours,
    PreflightReport,
    Recipients,
    Settings,
    preflight,
    register_marketing_hours,
)
from smskit.campaigns.reconnect import gateway_record, reconnect
from smskit.campaigns.runner import (
    Progress,
    async_client,
    bounded,
    check_chunk_size,
    check_concurrency,
    run_blocking,
)
from smskit.client import AsyncClient, Client
from smskit.client import core as _core
from smskit.errors import (
    APIError,
    AuthenticationError,
    CampaignBusy,
    ConfigurationError,
    DuplicateRequestError,
    InsufficientCreditError,
    PayloadValidationError,
    RateLimitError,
    ServerError,
    SmskitError,
    TransportError,
    ValidationError,
)
from smskit.rules import spec as _spec

if TYPE_CHECKING:
    import pandas as pd

    from smskit.client.models import SendResult

__all__ = [
    "ISSUES",
    "MARKETING_HOURS",
    "RECIPIENT_STATES",
    "Campaign",
    "CampaignResult",
    "CostEstimate",
    "MarketingHours",
    "PreflightReport",
    "ahlr",
    "create_contacts",
    "delete_contacts",
    "derive_request_id",
    "hlr",
    "register_marketing_hours",
]

logger = logging.getLogger("smskit.campaigns.campaign")

# Options passed through to every chunk's send; simulation_mode and request_id are the
# campaign's to set (estimate() simulates; request ids come from the journal).
SEND_OPTIONS: Final = (
    "type",
    "send_at",
    "purpose",
    "with_replies",
    "auto_optimize_text",
    "auto_remove_blacklisted_numbers",
)
MANAGED_OPTIONS: Final = {
    "simulation_mode": "use Campaign.estimate() for a simulation",
    "request_id": "each chunk's request_id is derived from the campaign and the chunk",
}
RECIPIENT_STATES: Final = (
    "sent",
    "already_accepted",
    "pending",
    "in_flight",
    "failed",
    "rejected",
    "excluded",
)
# A chunk whose outcome is unknown is re-sent only while the gateway still remembers its
# request_id (24 h, spec Limits); an hour of margin for clocks and slow resumes.
RESEND_WINDOW_S: Final = (_spec.REQUEST_ID_TTL_HOURS - 1) * 3600.0
_NAME_RE: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_RECIPIENT_KEY_RE: Final = re.compile(r"recipients\[(\d+)\](?:\..+)?")


# -- the plan: what a send would post, chunk by chunk ------------------------------------------


@dataclass(frozen=True)
class _Plan:
    """Every recipient to send, column by column in sending order, and the chunks' ranges."""

    campaign_id: str
    meta: dict[str, Any]
    columns: dict[str, list[Any]]  # phone_number, row, segments, field:<name>
    bounds: list[tuple[int, int]]
    regions: list[str | None]
    excluded: list[tuple[int, Any, Any, str, Any]]

    def contacts(self, start: int, stop: int) -> list[dict[str, str]]:
        """The Contact objects of planned recipients ``start:stop``."""
        return plan_contacts(self.columns, range(start, stop))


# -- the campaign ----------------------------------------------------------------------------


class Campaign:
    """A bulk send, checked and costed before it goes, sent in journaled chunks.

    ``recipients``: a DataFrame (columns named like the spec's Contact fields), the path
    of a CSV file with such a header, or a list of numbers or dicts. ``send_options`` are
    the send endpoint's own (``type``, ``send_at``, ``purpose``, ``with_replies``,
    ``auto_optimize_text``, ``auto_remove_blacklisted_numbers``). Nothing is sent until
    :meth:`send`. ``name`` names the journal; by default it is derived from the text,
    sender and options. ``clock`` (returning an aware datetime) is what "now" means to the
    marketing-hours check.
    """

    def __init__(
        self,
        client: Client | AsyncClient,
        recipients: Any,
        *,
        text: str,
        sender: str,
        name: str | None = None,
        default_region: str | None = "FR",
        clock: Callable[[], datetime] | None = None,
        **send_options: Any,
    ) -> None:
        if not isinstance(client, Client | AsyncClient):
            raise ConfigurationError(
                f"client must be a smskit.Client or smskit.AsyncClient, got {type(client).__name__}"
            )
        if not isinstance(text, str):
            raise ValidationError("text", "must be a string", value=text)
        if not isinstance(sender, str):
            raise ValidationError("sender", "must be a string", value=sender)
        self.client = client
        self.text = text
        self.sender = sender
        self.options = check_options(send_options)
        self.default_region = default_region
        self.recipients = Recipients(recipients)
        self.name = (
            _check_name(name) if name is not None else _default_name(text, sender, self.options)
        )
        self._clock = clock
        self._report: PreflightReport | None = None
        # What the report checked: the recipients' fingerprint and the settings (text, sender,
        # options are plain attributes a notebook may change between preflight and send).
        self._report_of: tuple[str, Settings] | None = None

    def __repr__(self) -> str:
        shown = self.text if len(self.text) <= 40 else self.text[:39] + "…"
        return (
            f"Campaign({self.name!r}, {self.recipients.describe()}, text={shown!r}, "
            f"sender={self.sender!r})"
        )

    @property
    def settings(self) -> Settings:
        """What preflight checks the campaign against."""
        return Settings(
            text=self.text,
            sender=self.sender,
            default_region=self.default_region,
            purpose=self.options.get("purpose"),
            with_replies=self.options.get("with_replies"),
            send_at=self.options.get("send_at"),
            auto_optimize_text=self.options.get("auto_optimize_text"),
        )

    def default_journal(self) -> Path:
        """``<campaigns dir>/<name>.journal.sqlite``: a per-user directory (see smskit._paths)."""
        return campaigns_dir() / f"{self.name}.journal.sqlite"

    # -- preflight and estimate --------------------------------------------------------------

    def preflight(self, *, now: datetime | None = None) -> PreflightReport:
        """Check every recipient and the campaign; nothing is sent, no request is made.

        ``now`` (an aware datetime) overrides the clock for the marketing-hours check.
        """
        fingerprint = self.recipients.fingerprint()
        self._report = preflight(self.recipients, self.settings, now=now, clock=self._clock)
        self._report_of = (fingerprint, self.settings)
        return self._report

    def estimate(
        self,
        *,
        offline: bool = False,
        unit_prices: Mapping[str, float] | None = None,
        chunk_size: int = 500,
        concurrency: int = 4,
        progress: bool | Mapping[str, Any] = False,
    ) -> CostEstimate:
        """Cost, SMS count and residual credit; from the gateway (``simulation_mode``, chunk by
        chunk, compared with the balance) or, with ``offline=True``, from :mod:`smskit.rules.text`
        (no request; cost only with ``unit_prices``: EUR per segment by country code)."""
        check_chunk_size(chunk_size, _spec.RECIPIENTS_MAX)
        plan = self._plan(chunk_size)
        if offline:
            return _offline_estimate(plan, unit_prices)
        check_concurrency(concurrency)
        return run_blocking(
            lambda stop: self._estimate(plan, concurrency, progress, stop, share=False)
        )

    async def aestimate(
        self,
        *,
        chunk_size: int = 500,
        concurrency: int = 4,
        progress: bool | Mapping[str, Any] = False,
    ) -> CostEstimate:
        """:meth:`estimate` from the gateway, awaited in the caller's event loop."""
        check_chunk_size(chunk_size, _spec.RECIPIENTS_MAX)
        check_concurrency(concurrency)
        plan = self._plan(chunk_size)
        return await self._estimate(plan, concurrency, progress, threading.Event(), share=True)

    async def _estimate(
        self,
        plan: _Plan,
        concurrency: int,
        progress: bool | Mapping[str, Any],
        stop: threading.Event,
        *,
        share: bool,
    ) -> CostEstimate:
        async with async_client(self.client, share=share) as client:
            simulator = _Simulator(client, self.text, self.sender, self.options)
            total = len(plan.columns["row"])
            with Progress(progress, total=total, initial=0, unit="recipient") as bar:

                async def one(index: int) -> None:
                    start, stop_at = plan.bounds[index]
                    rows = plan.columns["row"][start:stop_at]
                    await simulator.chunk(index, rows, plan.contacts(start, stop_at))
                    bar.advance(stop_at - start)

                await bounded(range(len(plan.bounds)), one, concurrency, stop)
            balance = (await client.wallet.check_balance()).amount
        return simulator.estimate(balance)

    # -- sending -----------------------------------------------------------------------------

    def send(
        self,
        *,
        concurrency: int = 4,
        chunk_size: int = 500,
        progress: bool | Mapping[str, Any] = True,
        journal: str | Path | None = None,
        wait: float = 0,
    ) -> CampaignResult:
        """Send every recipient that passes preflight, in chunks, ``concurrency`` at a time.

        Works in a notebook (whose event loop is already running) and in scripts. With a
        journal that already holds this campaign, it continues it: chunks accepted before
        are not sent again. Raises ``ValidationError`` for a campaign-level preflight error,
        ``CampaignBusy`` when another runner sends this journal (after waiting ``wait`` s).
        """
        check_concurrency(concurrency)
        check_chunk_size(chunk_size, _spec.RECIPIENTS_MAX)
        path = Path(journal) if journal is not None else self.default_journal()
        book = self._open_journal(path, chunk_size, wait)
        return run_blocking(
            lambda stop: _execute(book, self.client, concurrency, progress, stop, share=False)
        )

    async def asend(
        self,
        *,
        concurrency: int = 4,
        chunk_size: int = 500,
        progress: bool | Mapping[str, Any] = True,
        journal: str | Path | None = None,
        wait: float = 0,
    ) -> CampaignResult:
        """:meth:`send`, awaited in the caller's event loop (``await campaign.asend()``)."""
        check_concurrency(concurrency)
        check_chunk_size(chunk_size, _spec.RECIPIENTS_MAX)
        path = Path(journal) if journal is not None else self.default_journal()
        book = await self._aopen_journal(path, chunk_size, wait)
        return await _execute(
            book, self.client, concurrency, progress, threading.Event(), share=True
        )

    @classmethod
    def resume(
        cls,
        journal_path: str | Path,
        client: Client | AsyncClient | None = None,
        *,
        concurrency: int = 4,
        progress: bool | Mapping[str, Any] = True,
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
        runner = client if client is not None else reconnect(journal_path, Client)
        book = Journal(journal_path, lease=wait)
        return run_blocking(
            lambda stop: _execute(book, runner, concurrency, progress, stop, share=False)
        )

    @classmethod
    async def aresume(
        cls,
        journal_path: str | Path,
        client: Client | AsyncClient | None = None,
        *,
        concurrency: int = 4,
        progress: bool | Mapping[str, Any] = True,
        wait: float = 0,
    ) -> CampaignResult:
        """:meth:`resume`, awaited in the caller's event loop."""
        check_concurrency(concurrency)
        runner = client if client is not None else reconnect(journal_path, AsyncClient)
        book = await open_leased(journal_path, wait=wait)
        return await _execute(book, runner, concurrency, progress, threading.Event(), share=True)

    # -- internals ---------------------------------------------------------------------------

    def _open_journal(self, path: Path, chunk_size: int, wait: float = 0) -> Journal:
        """The journal for this campaign, its lease held: a new one, or a previous run's."""
        plan = self._plan(chunk_size)
        return self._adopt(Journal(path, mode="any", lease=wait), plan, chunk_size)

    async def _aopen_journal(self, path: Path, chunk_size: int, wait: float) -> Journal:
        """:meth:`_open_journal`, waiting for the lease without blocking the event loop."""
        plan = self._plan(chunk_size)
        return self._adopt(await open_leased(path, mode="any", wait=wait), plan, chunk_size)

    def _adopt(self, book: Journal, plan: _Plan, chunk_size: int) -> Journal:
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

    def _plan(self, chunk_size: int) -> _Plan:
        """Preflight, then the exact payload of every chunk and the ids derived from it."""
        report = self._current_report()
        report.raise_for_errors()
        from smskit.rules.text import fields

        used = fields(self.text)
        header = {
            "name": self.name,
            "text": self.text,
            "sender": self.sender,
            "options": self.options,
        }
        numbers: list[str] = []
        values: dict[str, list[str]] = {name: [] for name in used}
        rows: list[int] = []
        segments: list[int] = []
        regions: list[str | None] = []
        frame = report.frame
        offset = 0
        for block in self.recipients.blocks(used):
            part = frame.iloc[offset : offset + len(block)]
            offset += len(block)
            sending = part["send"].to_numpy()
            if not sending.any():
                continue
            numbers += part["phone_number"].to_numpy(dtype=object)[sending].tolist()
            for name in used:
                values[name] += _sent_texts(block[name].to_numpy(dtype=object)[sending])
            rows += part["row"].to_numpy()[sending].tolist()
            segments += part["segments"].to_numpy()[sending].tolist()
            regions += part["region"].astype(object).to_numpy()[sending].tolist()
        columns: dict[str, list[Any]] = {"phone_number": numbers, "row": rows, "segments": segments}
        columns.update({FIELD_PREFIX + name: values[name] for name in sorted(used)})
        # The campaign id covers what is sent to whom, not how it is chunked.
        digest = hashlib.blake2b(digest_size=16)
        digest.update(canonical_json(header).encode())
        for name in ("phone_number", *(FIELD_PREFIX + n for n in sorted(used))):
            digest.update(b"\n" + canonical_json(columns[name]).encode())
        campaign_id = digest.hexdigest()
        bounds = [
            (start, min(start + chunk_size, len(numbers)))
            for start in range(0, len(numbers), chunk_size)
        ]
        excluded_frame = frame.loc[
            ~frame["send"], ["row", "input", "phone_number", "issue", "detail"]
        ]
        excluded = [
            (int(row), raw, number, str(issue), detail)
            for row, raw, number, issue, detail in excluded_frame.itertuples(index=False)
        ]
        meta = {
            **header,
            "campaign_id": campaign_id,
            "default_region": self.default_region,
            "chunk_size": chunk_size,
            "recipients": len(frame),
            "to_send": len(numbers),
            "source": self.recipients.describe(),
        }
        return _Plan(campaign_id, meta, columns, bounds, regions, excluded)


def _sent_texts(values: Any) -> list[str]:
    """A dynamic field's text for each recipient ("" when missing), as preflight rendered it."""
    from smskit.rules.text import field_texts

    return field_texts(values.tolist())


def check_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The send options, checked like the client checks them, ``send_at`` as ISO text."""
    for name in options:
        if name in MANAGED_OPTIONS:
            raise ValidationError(name, f"is set by the campaign: {MANAGED_OPTIONS[name]}")
        if name not in SEND_OPTIONS:
            raise ValidationError(name, f"unknown send option; use {', '.join(SEND_OPTIONS)}")
    checked = {name: value for name, value in options.items() if value is not None}
    _core.check_choice("type", checked.get("type"), _spec.SMS_TYPES)
    _core.check_choice("purpose", checked.get("purpose"), _spec.PURPOSES)
    _core.check_flags({k: v for k, v in checked.items() if k not in ("type", "purpose", "send_at")})
    if "send_at" in checked:
        checked["send_at"] = _core.iso_datetime(checked["send_at"], "send_at", strict=True)
    return checked


def _check_name(name: Any) -> str:
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
        raise ValidationError(
            "name",
            "1 to 100 characters: letters, digits, '.', '_' or '-', starting with a letter or "
            "digit (it names the journal file)",
            value=name,
        )
    return name


def _default_name(text: str, sender: str, options: Mapping[str, Any]) -> str:
    body = canonical_json({"text": text, "sender": sender, "options": options})
    return "campaign-" + hashlib.blake2b(body.encode(), digest_size=5).hexdigest()


# -- the engine --------------------------------------------------------------------------------


async def _execute(
    book: Journal,
    client: Client | AsyncClient,
    concurrency: int,
    progress: bool | Mapping[str, Any],
    stop: threading.Event,
    *,
    share: bool,
) -> CampaignResult:
    """Send every unfinished chunk of ``book``, then read the result back from it."""
    try:
        async with async_client(client, share=share) as runner:
            sender = _Sender(book, runner, stop)
            stopped = await sender.run(concurrency, progress)
        return CampaignResult.from_journal(book, stopped=stopped)
    finally:
        book.close()


class _Sender:
    """Sends a journal's chunks; every request is framed by two committed journal writes."""

    def __init__(self, journal: Journal, client: AsyncClient, stop: threading.Event) -> None:
        meta = journal.meta()
        self.journal = journal
        self.client = client
        self.stop = stop
        self.text: str = meta["text"]
        self.sender: str = meta["sender"]
        self.options: dict[str, Any] = dict(meta["options"])
        self.stopped: str | None = None
        self.cost = 0.0
        self.failed = 0

    def _todo(self, chunks: list[Chunk]) -> list[Chunk]:
        """Chunks to (re)send: pending, in flight, or failed for a transient reason."""
        now = time.time()
        todo = []
        for chunk in chunks:
            if chunk.state == "pending":
                todo.append(chunk)
            elif chunk.state == "in_flight" or (chunk.state == "failed" and chunk.retryable):
                started = chunk.first_attempt_at
                if started is not None and now - started > RESEND_WINDOW_S:
                    self.journal.fail_stale(
                        chunk.idx,
                        "outcome unknown and its request_id has expired at the gateway (24 h): "
                        "check the gateway's records before sending these recipients again",
                    )
                else:
                    todo.append(chunk)
        return todo

    async def run(self, concurrency: int, progress: bool | Mapping[str, Any]) -> str | None:
        """Send what is left; returns why it stopped early, if it did."""
        chunks = self.journal.chunks()
        todo = self._todo(chunks)
        waiting = {chunk.idx for chunk in todo}
        self.cost = sum(c.cost or 0.0 for c in chunks)
        total = sum(c.size for c in chunks)
        initial = sum(c.size for c in chunks if c.idx not in waiting)
        with Progress(progress, total=total, initial=initial, unit="recipient") as bar:

            async def one(chunk: Chunk) -> None:
                size = chunk.size
                final = await self._chunk(chunk)
                # Recipients of a failed chunk, or refused from a re-keyed one, count as failures.
                self.failed += size if final.state == "failed" else size - final.size
                bar.advance(size, cost=f"{self.cost:.2f}", failed=self.failed)

            await bounded(todo, one, concurrency, self.stop)
        if self.stop.is_set() and self.stopped is None:
            self.stopped = "interrupted: Campaign.resume(journal) sends the rest"
        return self.stopped

    def _halt(self, reason: str) -> None:
        if self.stopped is None:
            self.stopped = reason
        self.stop.set()

    async def _chunk(self, chunk: Chunk) -> Chunk:
        """Send one chunk until it is accepted or failed (re-keyed if recipients are refused)."""
        while True:
            smaller = await self._attempt(chunk)
            if smaller is None:
                return self.journal.chunk(chunk.idx)
            chunk = smaller

    async def _attempt(self, chunk: Chunk) -> Chunk | None:
        """One request (the client retries network errors, 429 and 5xx inside it)."""
        try:
            request_id, contacts = self.journal.mark_in_flight(chunk)
        except CampaignBusy as exc:  # our lease was taken over: the other runner sends now
            self._halt(f"stopped: {exc}")
            return None
        try:
            result = await self.client.sms_campaign.send(
                text=self.text,
                recipients=contacts,
                sender=self.sender,
                request_id=request_id,
                validate=False,  # built from values preflight checked; checking again costs
                **self.options,
            )
        except DuplicateRequestError as exc:
            # First attempt of this run, but the gateway accepted this request_id before (a
            # crash after sending, a re-run): the chunk went out once, and only once.
            await self._accepted(chunk, contacts, _ticket_of(exc))
        except PayloadValidationError as exc:
            return self._without_refused(chunk, contacts, exc)
        except InsufficientCreditError as exc:
            self._fail(chunk, exc, retryable=True)
            self._halt("insufficient credit: top up, then Campaign.resume(journal)")
        except AuthenticationError as exc:
            self._fail(chunk, exc, retryable=True)
            self._halt("authentication failed: check the credentials, then resume")
        except (TransportError, ServerError, RateLimitError) as exc:
            self._fail(chunk, exc, retryable=True)  # after the client's own retries
        except (APIError, ValidationError) as exc:
            self._fail(chunk, exc, retryable=False)
        except Exception as exc:  # a bug must not leave the other chunks unsent
            logger.exception("chunk %d: unexpected error", chunk.idx)
            self._fail(chunk, exc, retryable=True)
        else:
            if result.duplicate and result.total_cost is None:
                await self._accepted(chunk, contacts, result.sms_ticket)
            else:  # a replayed first answer carries the figures the gateway billed
                self._sent(chunk, result)
        return None

    def _sent(self, chunk: Chunk, result: SendResult) -> None:
        self.journal.mark_done(
            chunk.idx,
            "already_accepted" if result.duplicate else "sent",
            ticket=result.sms_ticket,
            cost=result.total_cost,
            sms=result.number_of_sms_needed,
            contacts=result.number_of_contacts,
        )
        self.cost += result.total_cost or 0.0

    async def _accepted(
        self, chunk: Chunk, contacts: list[dict[str, Any]], ticket: str | None
    ) -> None:
        """Record "already accepted", then learn its cost from a simulation of the same payload."""
        self.journal.mark_done(chunk.idx, "already_accepted", ticket=ticket)
        try:
            figures = await self.client.sms_campaign.send(
                text=self.text,
                recipients=contacts,
                sender=self.sender,
                simulation_mode=True,
                validate=False,
                **self.options,
            )
        except SmskitError:
            return  # the cost stays unknown; the recipients are accepted all the same
        if figures.total_cost is not None:
            self.journal.set_cost(
                chunk.idx, figures.total_cost, estimated=True, sms=figures.number_of_sms_needed
            )
            self.cost += figures.total_cost

    def _fail(self, chunk: Chunk, exc: BaseException, *, retryable: bool) -> None:
        self.journal.mark_done(
            chunk.idx, "failed", error=f"{type(exc).__name__}: {exc}", retryable=retryable
        )

    def _without_refused(
        self, chunk: Chunk, contacts: list[dict[str, Any]], exc: PayloadValidationError
    ) -> Chunk | None:
        """The chunk minus the recipients the gateway refused, re-keyed; None if not that case."""
        refused = _refused_recipients(exc.errors, len(contacts))
        if refused is None:
            self._fail(chunk, exc, retryable=False)
            return None
        smaller = self.journal.reject(chunk, refused)
        if not smaller.size:
            self.journal.mark_done(
                chunk.idx, "failed", error="every recipient of the chunk was refused"
            )
            return None
        return smaller


def _refused_recipients(errors: Mapping[str, Any], size: int) -> dict[int, str] | None:
    """{position: message} when every field error names a recipient; else None."""
    refused: dict[int, str] = {}
    for key, detail in errors.items():
        match = _RECIPIENT_KEY_RE.fullmatch(key)
        if match is None or int(match.group(1)) >= size:
            return None
        message = detail.get("message") if isinstance(detail, Mapping) else detail
        code = detail.get("code") if isinstance(detail, Mapping) else None
        refused[int(match.group(1))] = f"{message} (code {code})" if code else str(message)
    return refused or None


def _ticket_of(exc: DuplicateRequestError) -> str | None:
    try:
        body = exc.response.json() if exc.response is not None else None
    except ValueError:
        return None
    ticket = body.get("sms_ticket") if isinstance(body, Mapping) else None
    return str(ticket) if ticket is not None else None


# -- estimates ---------------------------------------------------------------------------------


class _Simulator:
    """Runs each planned chunk in simulation_mode and collects the gateway's figures."""

    def __init__(self, client: AsyncClient, text: str, sender: str, options: Mapping[str, Any]):
        self.client = client
        self.text = text
        self.sender = sender
        self.options = dict(options)
        self.rows: dict[int, dict[str, Any]] = {}
        self.problems: list[dict[str, Any]] = []
        self.short = False

    async def chunk(self, index: int, rows: list[int], payload: list[dict[str, str]]) -> None:
        """Simulate one chunk; refused recipients are listed and the rest simulated again."""
        positions = list(range(len(payload)))
        error: str | None = None
        figures: tuple[int, int | None, float | None] | None = None
        while positions:
            try:
                result = await self.client.sms_campaign.send(
                    text=self.text,
                    recipients=[payload[i] for i in positions],
                    sender=self.sender,
                    simulation_mode=True,
                    **self.options,
                )
            except PayloadValidationError as exc:
                refused = _refused_recipients(exc.errors, len(positions))
                if refused is None:
                    error = f"{type(exc).__name__}: {exc}"
                    break
                for pos, message in refused.items():
                    original = positions[pos]
                    self.problems.append(
                        {"row": rows[original], "phone_number": payload[original]["phone_number"],
                         "chunk": index, "error": message}
                    )  # fmt: skip
                positions = [p for k, p in enumerate(positions) if k not in refused]
            except SmskitError as exc:
                # The gateway checks the balance even when simulating: a chunk dearer than
                # the balance gets no figures, only the verdict.
                self.short = self.short or isinstance(exc, InsufficientCreditError)
                error = f"{type(exc).__name__}: {exc}"
                break
            else:
                figures = (len(positions), result.number_of_sms_needed, result.total_cost)
                break
        if not positions:  # every recipient refused: the chunk sends nothing, costs nothing
            figures = (0, 0, 0.0)
        recipients, sms, cost = figures if figures is not None else (len(rows), None, None)
        self.rows[index] = {
            "chunk": index,
            "recipients": recipients,
            "sms": sms,
            "cost": cost,
            "error": error,
        }

    def estimate(self, balance: float | None) -> CostEstimate:
        import pandas as pd

        frame = pd.DataFrame(
            [self.rows[i] for i in sorted(self.rows)],
            columns=["chunk", "recipients", "sms", "cost", "error"],
        ).astype({"sms": "Int64", "cost": "Float64", "error": "string"})
        problems = pd.DataFrame(self.problems, columns=["row", "phone_number", "chunk", "error"])
        return CostEstimate(
            "gateway",
            frame,
            balance,
            problems.sort_values("row", ignore_index=True),
            refused_for_credit=self.short,
        )


def _offline_estimate(plan: _Plan, unit_prices: Mapping[str, float] | None) -> CostEstimate:
    import pandas as pd

    rows = []
    segments = plan.columns["segments"]
    for index, (start, stop) in enumerate(plan.bounds):
        cost: float | None = None
        error = None
        regions = [r or "?" for r in plan.regions[start:stop]]
        if unit_prices is not None:
            unpriced = sorted(set(regions) - set(unit_prices))
            if unpriced:
                error = f"no unit price for {', '.join(unpriced)}"
            else:
                cost = round(
                    sum(
                        s * unit_prices[r]
                        for s, r in zip(segments[start:stop], regions, strict=True)
                    ),
                    6,
                )
        rows.append(
            {"chunk": index, "recipients": stop - start, "sms": sum(segments[start:stop]),
             "cost": cost, "error": error}
        )  # fmt: skip
    frame = pd.DataFrame(rows, columns=["chunk", "recipients", "sms", "cost", "error"]).astype(
        {"sms": "Int64", "cost": "Float64", "error": "string"}
    )
    problems = pd.DataFrame(columns=["row", "phone_number", "chunk", "error"])
    return CostEstimate("offline", frame, None, problems)


@dataclass(frozen=True)
class CostEstimate:
    """What the campaign would cost: per chunk (``to_frame()``), totals, and the balance.

    ``source`` is ``"gateway"`` (simulation_mode requests) or ``"offline"`` (segments from
    :mod:`smskit.rules.text`; cost only with unit prices). ``problems`` lists recipients the
    gateway would refuse (e.g. an unserved destination). The gateway checks the balance
    even when simulating, so a chunk dearer than the balance has no figures:
    ``refused_for_credit`` is then True, ``cost`` None and ``enough`` False.
    """

    source: str
    frame: pd.DataFrame = field(repr=False)
    balance: float | None
    problems: pd.DataFrame = field(repr=False)
    refused_for_credit: bool = False

    @property
    def recipients(self) -> int:
        """Recipients that would be sent."""
        return int(self.frame["recipients"].sum())

    @property
    def sms(self) -> int:
        """SMS (segments) needed."""
        return int(self.frame["sms"].fillna(0).sum())

    @property
    def cost(self) -> float | None:
        """Total cost in the account's currency; None when a chunk's cost is unknown."""
        costs = self.frame["cost"]
        return None if costs.isna().any() else round(float(costs.sum()), 6)

    @property
    def residual_credit(self) -> float | None:
        """Balance left after the campaign (None offline or when the cost is unknown)."""
        if self.balance is None or self.cost is None:
            return None
        return round(self.balance - self.cost, 6)

    @property
    def enough(self) -> bool | None:
        """Whether the balance pays for the campaign (None when either is unknown); False when
        the gateway refused a chunk's simulation for lack of credit."""
        if self.refused_for_credit:
            return False
        residual = self.residual_credit
        return None if residual is None else residual >= 0

    def to_frame(self) -> pd.DataFrame:
        """One row per chunk: recipients, sms, cost, error."""
        return self.frame.copy()

    def summary(self) -> pd.DataFrame:
        """One row: source, recipients, sms, cost, balance, residual credit, enough, problems."""
        import pandas as pd

        return pd.DataFrame(
            [
                {
                    "source": self.source,
                    "recipients": self.recipients,
                    "sms": self.sms,
                    "cost": self.cost,
                    "balance": self.balance,
                    "residual_credit": self.residual_credit,
                    "enough": self.enough,
                    "problems": len(self.problems),
                    "chunk_errors": int(self.frame["error"].notna().sum()),
                }
            ]
        )

    def __repr__(self) -> str:
        return (
            f"CostEstimate(source={self.source!r}, recipients={self.recipients}, sms={self.sms}, "
            f"cost={self.cost}, balance={self.balance}, enough={self.enough})"
        )

    def to_html(self) -> str:
        """Summary and problems as HTML."""
        from smskit._html import render

        return render(
            "campaign_estimate.html",
            summary=_plain(self.summary().iloc[0].to_dict()),
            errors=[e for e in self.frame["error"].dropna().unique().tolist()][:5],
            problems=[_plain(p) for p in self.problems.head(10).to_dict("records")],
            more=max(len(self.problems) - 10, 0),
        )

    def _repr_html_(self) -> str:
        return self.to_html()


# -- results -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CampaignResult:
    """What happened, read back from the journal: per recipient, per chunk, and in one row.

    Recipient ``state``: ``sent``; ``already_accepted`` (the gateway had accepted its chunk
    before: sent once); ``pending`` / ``in_flight`` (not yet / outcome unknown: resume);
    ``failed`` (its chunk failed); ``rejected`` (the gateway refused that recipient);
    ``excluded`` (preflight kept it out). The frames are built on first use.
    """

    name: str
    campaign_id: str
    journal: Path
    stopped: str | None = None
    recipients: int = 0
    records: tuple[Chunk, ...] = field(default=(), repr=False)
    rejected: tuple[tuple[int, int, str | None, str], ...] = field(default=(), repr=False)
    excluded: tuple[tuple[int, Any, Any, str, Any], ...] = field(default=(), repr=False)
    numbers: Sequence[str] = field(default=(), repr=False)  # the plan's, by position

    @classmethod
    def load(cls, journal_path: str | Path) -> CampaignResult:
        """The result as a journal records it, without sending anything."""
        with Journal(journal_path) as book:
            return cls.from_journal(book)

    @classmethod
    def from_journal(cls, journal: Journal, *, stopped: str | None = None) -> CampaignResult:
        """Read the chunks, refusals and exclusions of an open journal."""
        meta = journal.meta()
        return cls(
            meta.get("name", ""),
            meta.get("campaign_id", ""),
            journal.path,
            stopped,
            int(meta.get("recipients", 0)),
            tuple(journal.chunks()),
            tuple(journal.rejected()),
            tuple(journal.excluded()),
            journal.plan().get("phone_number", []),
        )

    def _count(self, state: str) -> int:
        return sum(c.size for c in self.records if c.state == state)

    @property
    def complete(self) -> bool:
        """Nothing left to send: every recipient sent, rejected or excluded."""
        return not any(
            c.size and c.state in ("pending", "in_flight", "failed") for c in self.records
        )

    @cached_property
    def _recipients_frame(self) -> pd.DataFrame:
        import numpy as np
        import pandas as pd

        columns: dict[str, list[Any]] = {name: [] for name in _RESULT_COLUMNS}
        for chunk in self.records:
            size = chunk.size
            total = sum(chunk.segments)
            columns["row"] += chunk.rows
            columns["phone_number"] += [self.numbers[p] for p in chunk.positions]
            columns["chunk"] += [chunk.idx] * size
            columns["request_id"] += [chunk.request_id] * size
            columns["ticket"] += [chunk.ticket] * size
            columns["state"] += [chunk.state] * size
            columns["segments"] += chunk.segments
            if chunk.cost is not None and total:
                columns["cost"] += (np.asarray(chunk.segments) * (chunk.cost / total)).tolist()
            else:
                columns["cost"] += [None] * size
            columns["error"] += [chunk.error] * size
        tail = [
            (row, number, idx, None, None, "rejected", None, None, error)
            for row, idx, number, error in self.rejected
        ] + [
            (row, number if number is not None else raw, None, None, None, "excluded", None,
             None, f"{issue}: {detail}" if detail else issue)
            for row, raw, number, issue, detail in self.excluded
        ]  # fmt: skip
        for record in tail:
            for name, value in zip(_RESULT_COLUMNS, record, strict=True):
                columns[name].append(value)
        dtypes = {**_RESULT_COLUMNS, "state": pd.CategoricalDtype(RECIPIENT_STATES)}
        frame = pd.DataFrame(columns).astype(dtypes)
        return frame.sort_values("row", ignore_index=True)

    @cached_property
    def _chunks_frame(self) -> pd.DataFrame:
        import pandas as pd

        rows = [
            {"chunk": c.idx, "request_id": c.request_id, "state": c.state, "recipients": c.size,
             "attempts": c.attempts, "ticket": c.ticket, "sms": c.sms, "cost": c.cost,
             "cost_estimated": c.cost_estimated, "error": c.error}
            for c in self.records
        ]  # fmt: skip
        dtypes = {
            "chunk": "int64",
            "request_id": "string",
            "state": pd.CategoricalDtype(("pending", "in_flight", *DONE_STATES, "failed")),
            "recipients": "int64",
            "attempts": "int64",
            "ticket": "string",
            "sms": "Int64",
            "cost": "Float64",
            "cost_estimated": "bool",
            "error": "string",
        }
        return pd.DataFrame(rows, columns=list(dtypes)).astype(dtypes)

    def to_frame(self) -> pd.DataFrame:
        """One row per recipient: row, phone_number, chunk, request_id, ticket, state, segments,
        cost (its share of the chunk's cost, by segments), error."""
        return self._recipients_frame.copy()

    def chunks(self) -> pd.DataFrame:
        """One row per chunk: request_id, state, recipients, attempts, ticket, sms, cost, error."""
        return self._chunks_frame.copy()

    @property
    def not_sent(self) -> pd.DataFrame:
        """Every recipient not (yet) sent, with its state and why."""
        frame = self._recipients_frame
        mask = ~frame["state"].isin(["sent", "already_accepted"])
        columns = ["row", "phone_number", "chunk", "state", "error"]
        return frame.loc[mask, columns].reset_index(drop=True)

    def summary(self) -> pd.DataFrame:
        """One row: recipients per state, chunks, SMS, cost, completeness, journal."""
        import pandas as pd

        counts = {state: self._count(state) for state in ("sent", "already_accepted")}
        counts["pending"] = self._count("pending")
        counts["in_flight"] = self._count("in_flight")
        counts["failed"] = self._count("failed")
        counts["rejected"] = len(self.rejected)
        counts["excluded"] = len(self.excluded)
        row: dict[str, Any] = {
            "campaign": self.name,
            "recipients": sum(counts.values()),
            **counts,
            "chunks": len(self.records),
            "chunks_failed": sum(c.state == "failed" for c in self.records),
            "sms": sum(c.sms or 0 for c in self.records),
            "cost": round(sum(c.cost or 0.0 for c in self.records), 6),
            "cost_estimated": any(c.cost_estimated for c in self.records),
            "complete": self.complete,
            "stopped": self.stopped,
            "journal": str(self.journal),
        }
        return pd.DataFrame([row])

    def __repr__(self) -> str:
        counts = self.summary().iloc[0]
        shown = ", ".join(
            f"{state}={int(counts[state])}" for state in RECIPIENT_STATES if counts[state]
        )
        return f"CampaignResult({self.name!r}, {shown or 'no recipients'})"

    def to_html(self) -> str:
        """Summary, chunk states and the first recipients not sent, as HTML."""
        from smskit._html import render

        not_sent = self.not_sent
        return render(
            "campaign_result.html",
            summary=_plain(self.summary().iloc[0].to_dict()),
            columns=list(not_sent.columns),
            rows=[[_shown(v) for v in r] for r in not_sent.head(10).itertuples(index=False)],
            more=max(len(not_sent) - 10, 0),
        )

    def _repr_html_(self) -> str:
        return self.to_html()


_RESULT_COLUMNS: Final[dict[str, Any]] = {
    "row": "int64",
    "phone_number": "string",
    "chunk": "Int64",
    "request_id": "string",
    "ticket": "string",
    "state": "category",  # with RECIPIENT_STATES as categories
    "segments": "Int64",
    "cost": "Float64",
    "error": "string",
}


def _shown(value: Any) -> Any:
    import pandas as pd

    return "" if value is None or (not isinstance(value, str) and pd.isna(value)) else value


def _plain(record: Mapping[str, Any]) -> dict[str, Any]:
    return {key: _shown(value) for key, value in record.items()}
