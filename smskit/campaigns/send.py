"""One send, from a journal to its result: every unfinished chunk of the journal on the chunk
runner, each request framed by two committed journal writes, refused recipients taken out
and the rest re-sent re-keyed, opt-outs since the plan withheld, a journal sent through
another gateway than its own refused.

Also whether a journal can take a campaign (:func:`check_journal`): one rule, read where a
send adopts its journal (a journal holding another campaign is refused before anything is
written) and by the CLI before it asks to confirm a send. The answer is a code; each front
end words it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeVar

from smskit._account import gateway_of
from smskit.campaigns.analysis.results import CampaignResult
from smskit.campaigns.sending import repeats
from smskit.campaigns.sending.blocking import async_client, warn_caller
from smskit.campaigns.sending.journal import DONE_STATES, Chunk, Journal
from smskit.campaigns.sending.progress import ProgressOption
from smskit.campaigns.sending.reconnect import ended_sandbox
from smskit.campaigns.sending.record import CampaignRecord
from smskit.campaigns.sending.repeats import RepeatGuard
from smskit.campaigns.sending.runner import run_chunks, without_refused
from smskit.errors import (
    APIError,
    AuthenticationError,
    CampaignBusy,
    ConfigurationError,
    DuplicateRequestError,
    InsufficientCreditError,
    RateLimitError,
    SandboxEndedError,
    ServerError,
    SmskitError,
    TransportError,
    ValidationError,
)
from smskit.replies.optouts import account_key, listed_numbers
from smskit.rules import spec as _spec
from smskit.rules.optouts import OPTED_OUT

if TYPE_CHECKING:
    from smskit.client import AsyncClient, Client
    from smskit.client.models import SendResult
    from smskit.rules.contacts import ContactChunk

__all__ = [
    "OPTED_OUT_AT_RESUME",
    "RESEND_WINDOW_S",
    "JournalCheck",
    "JournalFit",
    "check_journal",
    "deliver",
    "execute",
    "holds_campaign",
    "opted_out_now",
]

R = TypeVar("R")

logger = logging.getLogger("smskit.campaigns.campaign")

# A chunk whose outcome is unknown is re-sent only while the gateway still remembers its
# request_id (24 h, spec Limits); an hour of margin for clocks and slow resumes.
RESEND_WINDOW_S: Final = (_spec.REQUEST_ID_TTL_HOURS - 1) * 3600.0
# The detail of a recipient taken out of a pending chunk because it opted out since planned.
OPTED_OUT_AT_RESUME: Final = "on the account's opt-out list when its chunk was about to be sent"


async def execute(
    book: Journal,
    client: Client | AsyncClient,
    concurrency: int,
    progress: ProgressOption,
    stop: threading.Event,
    *,
    share: bool,
    chunks: Iterable[Chunk] | None = None,
    total: int | None = None,
    repeat: RepeatGuard | None = None,
) -> CampaignResult:
    """Send every unfinished chunk of ``book`` (closed after), then read the result back.

    ``chunks``: the journal's chunks to consider, as a stream (see
    :func:`smskit.campaigns.sending.runner.run_chunks`): each a :class:`Chunk` the journal returned,
    typically from :meth:`Journal.add_chunk` for a plan too large to write in advance. Those
    already accepted are skipped, the others sent. Default: every chunk the journal holds.
    ``total``: recipients the whole campaign sends (progress), default the journal's count.
    """
    if chunks is None and book.held().kind == "streamed":
        book.close()
        raise ConfigurationError(
            f"journal {str(book.path)!r} is a streamed (Dask) campaign's: its staged files hold "
            "chunks the journal has not met yet; smskit.dask.Campaign.resume continues it"
        )
    return await deliver(
        book, client, concurrency, progress, stop,
        lambda done, stopped: CampaignResult.from_journal(done, stopped=stopped),
        share=share, chunks=chunks, total=total, repeat=repeat,
    )  # fmt: skip


async def deliver(
    book: Journal,
    client: Client | AsyncClient,
    concurrency: int,
    progress: ProgressOption,
    stop: threading.Event,
    result: Callable[[Journal, str | None], R],
    *,
    share: bool,
    chunks: Iterable[Chunk] | None = None,
    total: int | None = None,
    repeat: RepeatGuard | None = None,
) -> R:
    """:func:`execute`, the result read back by ``result(book, stopped)`` (a streamed
    campaign's never reads its recipients back into memory). ``repeat``: the campaign's
    repeat guard, asked before a new campaign's first request (:func:`refuse_a_repeat`)."""
    try:
        check_same_gateway(book, client)
        key = refuse_a_repeat(book, repeat)
        async with async_client(client, share=share) as gateway:
            sender = _Sender(book, gateway, stop, opted_out_now(book, client))
            stopped = await sender.run(concurrency, progress, chunks, total)
        if key is not None and repeat is not None:
            complete = stopped is None and all(o[5] in DONE_STATES for o in book.chunk_outcomes())
            _record_for_the_guard(book, key, repeat.now, complete)
        book.record_run(stopped)
        return result(book, stopped)
    finally:
        book.close()


def _record_for_the_guard(book: Journal, key: str, now: datetime, complete: bool) -> None:
    """Record a send made under a repeat guard; when the log cannot take it (locked, or a
    line of it unreadable), warn (:class:`RepeatNotRecordedWarning`) instead of raising:
    the SMS are out, and an error would hide the result of the work done."""
    try:
        repeats.record_send(key, now, str(book.held().name), book.path, complete)
    except ConfigurationError as exc:
        warn_caller(
            f"the send went out (its journal {str(book.path)!r} keeps it from going out twice) "
            f"but is not recorded for the repeat guard, which will not refuse the same send "
            f"made afresh: {exc}",
            repeats.RepeatNotRecordedWarning,
        )


def refuse_a_repeat(book: Journal, repeat: RepeatGuard | None) -> str | None:
    """Under a repeat guard, a journal none of whose chunks was ever attempted (a new
    campaign) is refused (:class:`smskit.RepeatedSend`) when its content was sent through
    this gateway within the window; returns the key to record its send under. A journal
    already sending (a named campaign continued, a resume) is never a repeat: the journal
    itself sends nothing twice."""
    content_id = book.held().content_id
    if repeat is None or content_id is None:
        return None
    if any(outcome[6] for outcome in book.chunk_outcomes()):  # attempts: not a new campaign
        return None
    return repeat.check(content_id)


def opted_out_now(book: Journal, client: Client | AsyncClient) -> frozenset[str]:
    """The numbers (E.164) a send of ``book`` leaves out of its chunks still ``pending``: the
    opt-out list of the account the journal records (else the client's) as it is now; none
    when the campaign was journaled with ``include_opted_out`` (a transactional send)."""
    record = book.held()
    if record.include_opted_out:
        return frozenset()
    recorded = record.gateway
    if recorded is not None and recorded.api_login:
        key = account_key(recorded.account)
    else:
        key = account_key(client)
    return listed_numbers(key)[1]


def check_same_gateway(book: Journal, client: Client | AsyncClient) -> None:
    """Refuse to send a journal's campaign through another gateway than the one it records.

    Its chunks' outcomes are that gateway's: through another one (the real account after the
    sandbox, another sandbox, another login), chunks it accepted would count as sent though
    this gateway never sent them, and one left in flight would be sent a second time.
    """
    record = book.held()
    ended = ended_sandbox(record)
    if ended is not None:
        raise SandboxEndedError(book.path, ended)
    if record.gateway is None:
        return  # a journal that records no gateway (older, or streamed): nothing to compare
    theirs = record.gateway.account
    ours = gateway_of(client.base_url, client.api_login)
    if theirs != ours:
        raise ConfigurationError(
            f"journal {str(book.path)!r} was sent through {theirs[0]} as {theirs[1]!r}; this "
            f"client talks to {ours[0]} as {ours[1]!r}: its chunks' outcomes are the other "
            "gateway's. Resume it there, or send this campaign under another name or journal"
        )


class _Sender:
    """Sends a journal's chunks; every request is framed by two committed journal writes."""

    def __init__(
        self,
        journal: Journal,
        client: AsyncClient,
        stop: threading.Event,
        opted_out: frozenset[str] = frozenset(),
    ) -> None:
        record = journal.held()
        if record.text is None or record.sender is None or record.options is None:
            raise ConfigurationError(
                f"journal {str(journal.path)!r} records no text, sender or send options to send"
            )
        self.opted_out = opted_out
        self.journal = journal
        self.client = client
        self.stop = stop
        self.text: str = record.text
        self.sender: str = record.sender
        self.options: dict[str, Any] = dict(record.options)
        self.stopped: str | None = None
        self.cost = 0.0
        self.failed = 0

    def _wanted(self, chunk: Chunk) -> Chunk | None:
        """The chunk to (re)send, or None: pending (less the numbers on the opt-out list now,
        see :meth:`_less_opted_out`), in flight, or failed for a transient reason."""
        if chunk.state == "pending":
            return self._less_opted_out(chunk)
        if chunk.state == "in_flight" or (chunk.state == "failed" and chunk.retryable):
            started = chunk.first_attempt_at
            if started is not None and time.time() - started > RESEND_WINDOW_S:
                self.journal.mark_done(
                    chunk.idx,
                    "failed",
                    error="outcome unknown and its request_id has expired at the gateway (24 h): "
                    "check the gateway's records before sending these recipients again",
                )
                return None
            return chunk
        return None

    def _less_opted_out(self, chunk: Chunk) -> Chunk | None:
        """A ``pending`` chunk without the recipients on the account's opt-out list now, re-keyed
        (None when none is left). Only a pending chunk: nothing of it has left (``in_flight``
        is committed before a request leaves, and a chunk is put back to pending only after a
        refusal of the whole request). One in flight, or failed after an attempt, may have
        been accepted: it is sent as journaled (exactly-once wins, docs/optouts.md)."""
        if not self.opted_out:
            return chunk
        contacts = self.journal.payload(chunk)
        dropped = [i for i, c in enumerate(contacts) if c["phone_number"] in self.opted_out]
        if not dropped:
            return chunk
        try:
            smaller = self.journal.withhold(chunk, dropped, OPTED_OUT, OPTED_OUT_AT_RESUME)
        except CampaignBusy as exc:  # our lease was taken over: the other runner sends now
            self._halt(f"stopped: {exc}")
            return None
        return smaller if smaller.state == "pending" else None

    async def run(
        self,
        concurrency: int,
        progress: ProgressOption,
        chunks: Iterable[Chunk] | None,
        total: int | None,
    ) -> str | None:
        """Send what is left; returns why it stopped early, if it did."""
        if chunks is None:
            wanted = (self._wanted(c) for c in self.journal.chunks())
            todo: Iterable[Chunk] = [c for c in wanted if c is not None]
        else:  # a stream: filtered as it is read, never held whole
            todo = (w for w in (self._wanted(c) for c in chunks) if w is not None)
        known, settled, self.cost = self.journal.tally()
        await run_chunks(
            todo,
            self._one,
            concurrency=concurrency,
            stop=self.stop,
            progress=progress,
            total=known if total is None else total,
            initial=settled,
            unit="recipient",
            size=lambda chunk: chunk.size,
        )
        if self.stop.is_set() and self.stopped is None:
            self.stopped = "interrupted"
        return self.stopped

    async def _one(self, chunk: Chunk) -> dict[str, Any]:
        final = await self._chunk(chunk)
        # Recipients of a failed chunk, or refused from a re-keyed one, count as failures.
        self.failed += chunk.size if final.state == "failed" else chunk.size - final.size
        return {"cost": f"{self.cost:.2f}", "failed": self.failed}

    def _halt(self, reason: str) -> None:
        if self.stopped is None:
            self.stopped = reason
        self.stop.set()

    async def _chunk(self, chunk: Chunk) -> Chunk:
        """Send one chunk until it is accepted or failed (re-keyed if recipients are refused);
        the client retries network errors, 429 and 5xx inside each request."""
        try:
            await without_refused(chunk, self._attempt, self._reject, lambda c: c.size)
        except CampaignBusy as exc:  # our lease was taken over: the other runner sends now
            self._halt(f"stopped: {exc}")
        except ConfigurationError:  # a journal opened without its lease: nothing was sent
            raise
        except InsufficientCreditError as exc:  # the whole request refused: nothing sent
            self.journal.put_back(chunk.idx, f"{type(exc).__name__}: {exc}")
            self._halt("insufficient credit (gateway code 122): top up the balance")
        except AuthenticationError as exc:
            self.journal.put_back(chunk.idx, f"{type(exc).__name__}: {exc}")
            self._halt("authentication failed: check the credentials")
        except (TransportError, ServerError, RateLimitError) as exc:
            self._fail(chunk, exc, retryable=True)  # after the client's own retries
        except (APIError, ValidationError) as exc:  # a refusal not only of recipients, too
            self._fail(chunk, exc, retryable=False)
        except Exception as exc:  # a bug must not leave the other chunks unsent
            logger.exception("chunk %d: unexpected error", chunk.idx)
            self._fail(chunk, exc, retryable=True)
        return self.journal.chunk(chunk.idx)

    async def _attempt(self, chunk: Chunk) -> None:
        """One request, put in flight in the journal first, its outcome recorded after."""
        request_id, contacts = self.journal.mark_in_flight(chunk)
        try:
            result = await self._request(contacts, request_id=request_id)
        except DuplicateRequestError:
            # First attempt of this run, but the gateway accepted this request_id before (a
            # crash after sending, a re-run): the chunk went out once, and only once.
            await self._accepted(chunk, contacts, None)
            return
        if result.duplicate:  # a retry refused after the first attempt's answer was lost
            await self._accepted(chunk, contacts, result.sms_ticket)
        else:
            self._sent(chunk, result)

    async def _request(self, contacts: ContactChunk, **mode: Any) -> SendResult:
        """The campaign's request to ``contacts`` (its text, sender and options), unchecked:
        built from values preflight checked, and checking again costs. ``mode``: the
        ``request_id`` of a send, or ``simulation_mode=True``."""
        return await self.client.sms_campaign.send(
            text=self.text, recipients=contacts, sender=self.sender, validate=False,
            **self.options, **mode,
        )  # fmt: skip

    def _sent(self, chunk: Chunk, result: SendResult) -> None:
        self.journal.mark_done(
            chunk.idx,
            "sent",
            ticket=result.sms_ticket,
            cost=result.total_cost,
            sms=result.number_of_sms_needed,
            contacts=result.number_of_contacts,
            gateway_at=None if result.gateway_date is None else result.gateway_date.timestamp(),
        )
        self.cost += result.total_cost or 0.0

    async def _accepted(self, chunk: Chunk, contacts: ContactChunk, ticket: str | None) -> None:
        """Record "already accepted" with the figures of a simulation of the same payload.

        Simulated first, recorded in one write after: a process killed in between leaves the
        chunk in flight, and its resume asks again, so no accepted chunk lacks its cost.
        """
        try:
            figures = await self._request(contacts, simulation_mode=True)
        except SmskitError:  # the cost stays unknown; the recipients are accepted all the same
            self.journal.mark_done(chunk.idx, "already_accepted", ticket=ticket)
            return
        self.journal.mark_done(
            chunk.idx,
            "already_accepted",
            ticket=ticket,
            cost=figures.total_cost,
            cost_estimated=figures.total_cost is not None,
            sms=figures.number_of_sms_needed,
        )
        self.cost += figures.total_cost or 0.0

    def _fail(self, chunk: Chunk, exc: BaseException, *, retryable: bool) -> None:
        self.journal.mark_done(
            chunk.idx, "failed", error=f"{type(exc).__name__}: {exc}", retryable=retryable
        )

    def _reject(self, chunk: Chunk, refused: dict[int, str]) -> Chunk | None:
        """The chunk minus the recipients the gateway refused, re-keyed; None if none is left."""
        smaller = self.journal.reject(chunk, refused)
        if not smaller.size:
            self.journal.mark_done(
                chunk.idx, "failed", error="every recipient of the chunk was refused"
            )
            return None
        return smaller


class JournalFit(StrEnum):
    """How a journal relates to a campaign about to be sent."""

    FREE = "free"  # no journal there yet (or one never initialised): the send starts it
    UNFINISHED = "unfinished"  # this very campaign, recipients left: the send continues it
    COMPLETE = "complete"  # this very campaign, nothing left: a send would send nothing
    OTHER_NAME = "other_name"  # another campaign, under another name
    OTHER_CONTENT = "other_content"  # the same name, other text, sender, options or recipients


@dataclass(frozen=True)
class JournalCheck:
    """The journal at ``path``, how it fits the campaign, and the name of the campaign it
    holds (None when free)."""

    path: Path
    fit: JournalFit
    held_name: str | None


def holds_campaign(record: CampaignRecord, campaign_id: str) -> bool:
    """The journal whose record this is holds the campaign ``campaign_id`` (what is sent to
    whom: name, text, sender, options, recipients and their fields; not the chunking)."""
    return record.campaign_id == campaign_id


def check_journal(path: Path, name: str, campaign_id: str) -> JournalCheck:
    """How the journal at ``path`` fits the campaign ``name`` whose id is ``campaign_id``.

    A file that is not a campaign's journal raises ConfigurationError (about that file).
    """
    if not path.exists():
        return JournalCheck(path, JournalFit.FREE, None)
    with Journal(path) as book:
        record = book.record()
        if record is None:
            return JournalCheck(path, JournalFit.FREE, None)
        held = str(record.name)
        if not holds_campaign(record, campaign_id):
            other = JournalFit.OTHER_CONTENT if held == name else JournalFit.OTHER_NAME
            return JournalCheck(path, other, held)
        complete = CampaignResult.from_journal(book).complete
    return JournalCheck(path, JournalFit.COMPLETE if complete else JournalFit.UNFINISHED, held)
