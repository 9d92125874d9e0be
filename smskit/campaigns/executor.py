"""The campaign executors' common part: :class:`CampaignExecutor`, on which
:class:`smskit.Campaign` (recipients in memory) and :class:`smskit.dask.Campaign` (recipients
partitioned) are thin: one spec, one set of public methods with one signature each, every
operation written once (async, with its generated blocking twin), and what differs (where
the recipients are) behind four hooks.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Final, Generic, Protocol, Self, TypeVar, Unpack

from smskit._account import gateway_of
from smskit._repr import tolerant_repr
from smskit.campaigns.analysis.results import IncompleteSendWarning, shortfall_message
from smskit.campaigns.analysis.sends import marketing_history
from smskit.campaigns.planning.destinations import destinations
from smskit.campaigns.planning.estimates import CostEstimate, offline_estimate, simulate
from smskit.campaigns.planning.holdout import Holdout, as_holdout
from smskit.campaigns.planning.links import LinkTracking
from smskit.campaigns.planning.preflight import PreflightSettings
from smskit.campaigns.planning.report import CampaignFindings
from smskit.campaigns.planning.spec import CampaignOptions, CampaignSpec
from smskit.campaigns.sending.blocking import blocking, warn_caller
from smskit.campaigns.sending.progress import ProgressOption, check_progress
from smskit.campaigns.sending.reconnect import journal_for_send
from smskit.campaigns.sending.repeats import EarlierSend, RepeatGuard
from smskit.campaigns.sending.runner import check_chunk_size, check_client, check_concurrency
from smskit.client import AsyncClient, Client
from smskit.errors import ValidationError
from smskit.replies.inbox import Inbox
from smskit.replies.optouts import account_key, listed_numbers
from smskit.rules import spec as _spec
from smskit.rules.caps import SentHistory
from smskit.rules.destinations import Destinations
from smskit.rules.hours import next_permitted
from smskit.rules.optouts import Suppression
from smskit.rules.region import DEFAULT_REGION

if TYPE_CHECKING:
    from smskit.rules.contacts import ContactChunk

__all__ = ["CampaignExecutor", "ClientOption", "Planned", "Run"]

ResultT = TypeVar("ResultT")
ClientOption = Client | AsyncClient | None
# Whose opt-out list a report checked, and its version (None: not read).
OptOutState = tuple[tuple[str, str], int] | None
NO_ACCOUNT: Final = "no client yet (an offline preflight makes none): give the campaign a client"


@dataclass(frozen=True)
class Run:
    """How a send or a resume runs: requests at a time, progress, seconds to wait for the
    journal's lease."""

    concurrency: int
    progress: ProgressOption
    wait: float
    repeat: RepeatGuard | None = None  # a send's: the campaign's repeat guard

    def __post_init__(self) -> None:
        check_progress(self.progress)  # before the journal is planned: a refusal plans nothing


class Planned(Protocol):
    """The chunks a send would make, as an estimate reads them."""

    @property
    def to_send(self) -> int:
        """Recipients sent."""

    def segments_and_regions(self) -> Iterable[tuple[Sequence[int], Sequence[str | None]]]:
        """Each chunk's recipients' segments and regions."""

    def chunks(self) -> Iterable[tuple[int, list[int], ContactChunk]]:
        """Each chunk's index, rows and payload, made as they are taken."""


def _edited(name: str, doc: str) -> Any:
    """A spec field as an attribute; assigning it gives the campaign an edited spec."""

    def get(self: CampaignExecutor[Any]) -> Any:
        return getattr(self.spec, name)

    def set_(self: CampaignExecutor[Any], value: Any) -> None:
        self.spec = self.spec.replace(**{name: value})

    return property(get, set_, doc=doc)


class CampaignExecutor(Generic[ResultT]):
    """What both campaign executors share: a client and one spec (its fields as attributes,
    ``text`` and ``sender`` assignable: the campaign then holds the edited spec), the repr,
    and every operation above the client, each written once, async, with its generated
    blocking twin. What differs is where the recipients are, behind four hooks:
    ``_taken`` (the recipients checked and held), ``_planned`` (the chunks to estimate),
    ``_deliver`` (a send) and ``_continue`` (a resume); ``describe_recipients`` words them
    for the repr."""

    kind: ClassVar[str] = "Campaign"
    resume_call: ClassVar[str] = "smskit.Campaign.resume"  # what a short send's warning names

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
        holdout: float | int | Holdout | None = None,
        seed: int | None = None,
        stratify: str | None = None,
        track_links: Inbox | None = None,
        **options: Unpack[CampaignOptions],
    ) -> None:
        check_client(client)
        self._client = client
        # Tracked links: the spec holds the text as sent, each URL replaced by the field
        # that carries its short link (docs/links.md).
        self.tracking = None if track_links is None else LinkTracking.of(track_links, text)
        self.spec = CampaignSpec.of(
            text if self.tracking is None else self.tracking.tracked.text, sender, name=name,
            default_region=default_region, clock=clock, journal=journal,
            holdout=as_holdout(holdout, seed, stratify), **options,
        )  # fmt: skip
        self.recipients = self._taken(recipients)
        if self.tracking is not None:
            self.recipients = self._tracked(self.tracking, self.recipients)

    def _tracked(self, tracking: LinkTracking, recipients: Any) -> Any:
        """The recipients with their short links (see :mod:`~smskit.campaigns.planning.links`)."""
        raise ValidationError("track_links", f"is not available on {self.kind} yet (docs/links.md)")

    def _taken(self, recipients: Any) -> Any:
        """The recipients as this front end holds them (checked)."""
        raise NotImplementedError

    @property
    def client(self) -> Client | AsyncClient:
        """The client the campaign's requests go through (``smskit.Client()`` unless given);
        assignable (an experiment gives its arms one)."""
        if self._client is None:
            self._client = Client()
        return self._client

    @client.setter
    def client(self, client: Client | AsyncClient | None) -> None:
        check_client(client)
        self._client = client

    @tolerant_repr
    def __repr__(self) -> str:
        return (
            f"{self.kind}({self.name!r}, {self.describe_recipients()}, "
            f"text={self.spec.shown_text()!r}, sender={self.sender!r})"
        )

    @classmethod
    def from_spec(
        cls, client: Client | AsyncClient | None, recipients: Any, spec: CampaignSpec
    ) -> Self:
        """The campaign ``spec`` describes (this very spec: its creation time, hence its
        identity, kept), sending to ``recipients``."""
        campaign = cls(client, recipients, **spec.arguments())
        campaign.spec = spec
        return campaign

    def describe_recipients(self) -> str:
        """The recipients in a few words (for the repr)."""
        raise NotImplementedError

    text = _edited("text", "The text (a template with ``{first_name}`` ... fields).")
    sender = _edited("sender", "The sender shown to recipients.")

    @property
    def options(self) -> Mapping[str, Any]:
        """The send options, checked (read-only)."""
        return self.spec.options

    @property
    def name(self) -> str:
        """The campaign's name: it names the journal (see :attr:`CampaignSpec.identity`)."""
        return self.spec.identity

    @property
    def default_region(self) -> str | None:
        """The country of national numbers when a row names none."""
        return self.spec.default_region

    @property
    def settings(self) -> PreflightSettings:
        """What preflight checks the campaign against."""
        return self.spec.settings

    def _serving(
        self, offline: bool
    ) -> Callable[[Callable[[], Mapping[str, str]]], Destinations | None]:
        """What preflight asks the gateway (see ``run_preflight``): nothing when ``offline``,
        else the countries served for the product and their prices, learned once per client."""
        if offline:
            return lambda _samples: None
        product = self.settings.product
        return lambda samples: destinations(self.client, samples(), product)

    def _suppression(self, offline: bool) -> tuple[Suppression, OptOutState]:
        """The account's opt-out list as preflight reads it, and its state (what a report
        checked: a send preflights again when the list changed since). The account is the
        client's; an offline preflight of a campaign without a client yet makes none (that
        would start the embedded sandbox) and says the list was not read."""
        if self._client is None and offline:
            return Suppression(unread=NO_ACCOUNT), None
        key = account_key(self.client)
        version, numbers = listed_numbers(key)
        return Suppression(numbers), (key, version)

    def _history(self, offline: bool) -> SentHistory:
        """The account's marketing messages the campaign's frequency cap counts (none read
        without a cap), from the journals of the campaigns directory, the campaign's own
        left out. An offline preflight of a campaign without a client yet makes none and
        says the cap was not checked."""
        if self.settings.frequency_cap is None:
            return SentHistory()
        if self._client is None and offline:
            return SentHistory(unread=NO_ACCOUNT)
        return marketing_history(self.client, leave_out=self.spec.identity)

    def _optout_state(self) -> OptOutState:
        """The state of the account's opt-out list now (the client made if needed)."""
        return self._suppression(offline=False)[1]

    def default_journal(self) -> Path:
        """Where :meth:`send` journals unless told: the spec's journal, else
        ``<campaigns dir>/<name>.journal.sqlite``, in the per-user data directory (on Linux
        ``~/.local/share/smskit/campaigns/``, moved by ``XDG_DATA_HOME``)."""
        return self.spec.journal_path()

    def journal_for_send(self, journal: str | Path | None = None, announce: bool = True) -> Path:
        """The journal :meth:`send` uses when asked for ``journal`` (default: the campaign's):
        that one, unless it holds a send to an embedded sandbox that has ended (finished
        history, kept as it is): then the next free ``<stem>-2`` ... beside it, said in a
        warning unless ``announce`` is False (see
        :func:`smskit.campaigns.sending.reconnect.journal_for_send`)."""
        path, passed = journal_for_send(self.spec.journal_path(journal))
        if passed is not None and announce:
            _warn_new_journal(passed, path, stacklevel=2)
        return path

    # -- the operations, written once ---------------------------------------------------------

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
        chunk, compared with the balance) or, with ``offline=True``, from :mod:`smskit.text`
        (no request; cost only with ``unit_prices``: EUR per segment by country code)."""
        chunk_size = check_chunk_size(chunk_size, _spec.RECIPIENTS_MAX)
        planned = self._planned(chunk_size)
        if offline:
            counted = planned.segments_and_regions()
            return await asyncio.to_thread(offline_estimate, counted, unit_prices)
        return await simulate(
            self.client, self.spec.header, planned.chunks(), total=planned.to_send,
            concurrency=concurrency, progress=progress,
        )  # fmt: skip

    estimate = blocking(aestimate)

    async def asend(
        self,
        *,
        concurrency: int = 4,
        chunk_size: int = 500,
        progress: ProgressOption = True,
        journal: str | Path | None = None,
        wait: float = 0,
        again: bool = False,
    ) -> ResultT:
        """Send every recipient that passes preflight, in chunks, ``concurrency`` at a time.

        With a journal (``journal``, else :meth:`default_journal`) that already holds this
        campaign, it continues it: chunks accepted before are not sent again. Raises
        ``ValidationError`` for a campaign-level preflight error, ``CampaignBusy`` when
        another runner sends this journal (after waiting ``wait`` s), and, with a
        ``repeat_window``, ``RepeatedSend`` for the same send made within it as a new
        campaign (:meth:`earlier_send`) unless ``again``.
        """
        concurrency = check_concurrency(concurrency)
        chunk_size = check_chunk_size(chunk_size, _spec.RECIPIENTS_MAX)
        path, passed = journal_for_send(self.spec.journal_path(journal))
        guard = self._repeat_guard(again)
        if guard is not None and not path.exists():
            # a new campaign the guard refuses: refused before its journal is made or
            # announced (nothing sent, no file left behind)
            guard.check(self._content_id())
        if passed is not None:
            _warn_new_journal(passed, path, stacklevel=1)
        run = Run(concurrency, progress, wait, guard)
        result = await self._deliver(path, chunk_size, run)
        self._warn_if_short(result)
        return result

    send = blocking(asend)

    def next_permitted(self) -> datetime | None:
        """When preflight refuses this marketing campaign now for a destination's hours, the
        first moment inside the hours of every destination it sends to, from the moment
        preflight checked (its ``send_at`` when later than the clock); None when the hours
        allow it."""
        report = self._current_report()
        if not report.hours_refusals():
            return None
        return next_permitted(report.sending_regions(), report.evaluated_at or self.spec.instant())

    def schedule_at_next_permitted(self) -> datetime | None:
        """Schedule the campaign (its ``send_at``) at :meth:`next_permitted` when the hours
        refuse it now, and return that moment; None (the campaign unchanged) when they allow
        it. The CLI's ``smskit send --at-next-permitted``."""
        when = self.next_permitted()
        if when is not None:
            self.spec = self.spec.replace(options={**self.spec.options, "send_at": when})
        return when

    def earlier_send(self) -> EarlierSend | None:
        """The send this campaign's would repeat now: the same send (name as given, text,
        sender, options, region, recipients and their fields) through the same gateway made
        less than ``repeat_window`` ago, or recorded after now (the clock was set back: never
        taken as old) (None: none, or no ``repeat_window``). Runs preflight
        if the campaign has none for its current recipients and settings; sends nothing."""
        guard = self._repeat_guard(again=False)
        return None if guard is None else guard.earlier(self._content_id())

    def _repeat_guard(self, again: bool) -> RepeatGuard | None:
        """The guard a send runs under (None without a ``repeat_window``)."""
        if self.spec.repeat_window is None:
            return None
        client = self.client  # the embedded sandbox, new in each process, counts as one
        gateway = None if client.is_sandbox else gateway_of(client.base_url, client.api_login)
        return RepeatGuard(self.spec.repeat_window, again, self.spec.instant(), gateway)

    def _content_id(self) -> str:
        """The content id of the send (what the repeat guard compares)."""
        raise NotImplementedError

    def _current_report(self) -> CampaignFindings:
        """The last preflight if neither recipients nor settings changed since, else a new
        one."""
        raise NotImplementedError

    @classmethod
    async def aresume(
        cls,
        journal_path: str | Path,
        client: Client | AsyncClient | None = None,
        *,
        concurrency: int = 4,
        progress: ProgressOption = True,
        wait: float = 0,
    ) -> ResultT:
        """Continue the campaign a journal holds (after a crash, a kill, a kernel restart).

        Needs no recipients: the journal (and, for a Dask campaign, the files staged beside
        it) has every chunk's payload. Chunks accepted before are never sent again; those
        left in flight or failed for a transient reason are sent again with the same
        request_id, which the gateway accepts at most once. Without ``client``, it goes back
        to the gateway the journal records (URL and login; the key from ``SMSKIT_API_KEY``,
        or the sandbox still running in this process), or raises a ConfigurationError asking
        for one. Raises ``CampaignBusy`` when another runner sends it (after waiting
        ``wait`` s).
        """
        concurrency = check_concurrency(concurrency)
        result = await cls._continue(journal_path, client, Run(concurrency, progress, wait))
        cls._warn_if_short(result)
        return result

    @classmethod
    def _warn_if_short(cls, result: Any) -> None:
        """An :class:`IncompleteSendWarning` at the caller's line when ``result`` did not
        reach every recipient it was for: how many, why, and the resume call."""
        call = f"{cls.resume_call}({str(result.journal)!r})"
        said = shortfall_message(result.summary(), result.chunks(), call)
        if said is not None:
            warn_caller(said, IncompleteSendWarning, stacklevel=2)

    # mypy sees a classmethod's function in the class body, the runtime its descriptor.
    resume = classmethod(blocking(aresume.__func__))  # type: ignore[attr-defined]

    # -- the hooks: where the recipients are ----------------------------------------------------

    def _planned(self, chunk_size: int) -> Planned:
        """The chunks a send of ``chunk_size`` would make (preflight first if needed)."""
        raise NotImplementedError

    async def _deliver(self, path: Path, chunk_size: int, run: Run) -> ResultT:
        """Send through the journal at ``path``."""
        raise NotImplementedError

    @classmethod
    async def _continue(cls, journal_path: str | Path, client: ClientOption, run: Run) -> ResultT:
        """Resume the journal at ``journal_path``."""
        raise NotImplementedError


def _warn_new_journal(passed: Path, path: Path, stacklevel: int) -> None:
    """Warn that ``passed`` (an ended embedded sandbox's send) is kept as history and the send
    is a new campaign journaled in ``path``."""
    warn_caller(
        f"{str(passed)!r} holds a send to an embedded sandbox that has ended (it lives as long "
        f"as its process): kept as history; this send is a new campaign, journaled in "
        f"{str(path)!r}",
        UserWarning,
        stacklevel=stacklevel + 1,
    )
