"""The send engine: every unfinished chunk of a journal, each request framed by two
committed journal writes, refused recipients taken out and the rest re-sent re-keyed."""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from smskit.campaigns.journal import Chunk, Journal
from smskit.campaigns.results import CampaignResult
from smskit.campaigns.runner import Progress, ProgressOption, async_client, bounded
from smskit.errors import (
    APIError,
    AuthenticationError,
    CampaignBusy,
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
    from smskit.client import AsyncClient, Client
    from smskit.client.models import SendResult

__all__ = ["RESEND_WINDOW_S", "execute", "refused_recipients"]

logger = logging.getLogger("smskit.campaigns.campaign")

# A chunk whose outcome is unknown is re-sent only while the gateway still remembers its
# request_id (24 h, spec Limits); an hour of margin for clocks and slow resumes.
RESEND_WINDOW_S: Final = (_spec.REQUEST_ID_TTL_HOURS - 1) * 3600.0
_RECIPIENT_KEY_RE: Final = re.compile(r"recipients\[(\d+)\](?:\..+)?")


async def execute(
    book: Journal,
    client: Client | AsyncClient,
    concurrency: int,
    progress: ProgressOption,
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

    async def run(self, concurrency: int, progress: ProgressOption) -> str | None:
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
        refused = refused_recipients(exc.errors, len(contacts))
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


def refused_recipients(errors: Mapping[str, Any], size: int) -> dict[int, str] | None:
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
