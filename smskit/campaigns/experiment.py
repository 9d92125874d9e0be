"""Text experiments: one audience split at random into arms, one text each, compared after.

```
experiment = smskit.Experiment(client, customers, sender="Shop", name="june-ab", seed=7,
                               variants={"A": "Soldes -20% ... STOP au 36173",
                                         "B": "-20% ce week-end ... STOP au 36173"},
                               stratify="country", purpose="marketing")
experiment.preview()            # per arm: recipients, to send, segments, estimated cost
experiment.send()               # every arm through its campaign journal; re-run: resumes
experiment.compare(inbox)       # rates with intervals, tests against arm A, sample sizes
smskit.Experiment.load("june-ab").send()     # after a crash or a kernel restart
```

``holdout=0.1`` adds a no-send arm named ``holdout``: each arm's campaign holds out that
share of its sendable recipients (a count is shared out among the arms), journaled with the
arm's plan and never sent; ``result.conversions(orders)`` and ``result.lift(orders)`` compare
the arms with it (docs/conversions.md).

An experiment is identified by its name (given, or ``experiment-<created>-<hash>``) and the
directory of its files (default: the campaign journals' own). Its record
(:mod:`smskit.campaigns.analysis.experiment_record`) keeps the split; each arm is a
:class:`smskit.Campaign` named ``<name>.<arm>``, made from the experiment's one
:class:`~smskit.campaigns.planning.spec.CampaignSpec` with the arm's text, journaled like any
campaign. Before the first SMS leaves, the record is written and every arm's plan is
journaled; a send after that (a re-run, :meth:`Experiment.load`) resumes the journals and
neither splits nor plans again, so nothing is sent twice. See docs/experiments.md.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import os
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, Unpack

from smskit._paths import campaigns_dir
from smskit.campaigns.analysis.comparison import ExperimentComparison, compare_counts
from smskit.campaigns.analysis.experiment_record import (
    ExperimentRecord,
    arm_journal,
    numbers_digest,
    record_path,
)
from smskit.campaigns.analysis.outcomes import Match
from smskit.campaigns.analysis.results import (
    AUDIENCE,
    CampaignResult,
    ConversionsAndLift,
    IncompleteSendWarning,
    shortfall_message,
)
from smskit.campaigns.analysis.split import (
    UNKNOWN_STRATUM,
    assign_arms,
    check_arms,
    check_seed,
    check_stratify,
    new_seed,
)
from smskit.campaigns.campaign import Campaign, journal_plan, send_journaled, track_links
from smskit.campaigns.executor import ClientOption, Run
from smskit.campaigns.planning.holdout import Holdout, as_holdout
from smskit.campaigns.planning.links import LinkTracking, check_tracking_inbox
from smskit.campaigns.planning.plan import Plan, check_name
from smskit.campaigns.planning.spec import CampaignOptions, CampaignSpec
from smskit.campaigns.sending.blocking import blocking, warn_caller
from smskit.campaigns.sending.journal import Journal
from smskit.campaigns.sending.progress import ProgressOption, check_progress
from smskit.campaigns.sending.runner import check_chunk_size, check_client
from smskit.client import AsyncClient, Client
from smskit.errors import ConfigurationError, SandboxEndedError, ValidationError
from smskit.replies.inbox import Inbox
from smskit.rules import spec as _spec
from smskit.rules.canonical import canonical_json
from smskit.rules.choices import checked_choice
from smskit.rules.fields import used_fields
from smskit.rules.recipients import Recipients, number_checks
from smskit.rules.region import DEFAULT_REGION

if TYPE_CHECKING:
    import pandas as pd

    from smskit.campaigns.analysis.conversions import OrderReading
    from smskit.campaigns.analysis.lift import Lift

__all__ = ["HOLDOUT_ARM", "Experiment", "ExperimentResult"]

logger = logging.getLogger("smskit.campaigns.experiment")

# <experiment>.<arm> names the arm's campaign: 100 characters at most (CAMPAIGN_NAME_MAX),
# arms 30 (ARM_NAME_MAX).
NAME_MAX: Final = 68
# The no-send arm's name: its recipients' group in conversions (no arm may take it).
HOLDOUT_ARM: Final = "holdout"


class _Arm(Campaign):
    """One arm: a campaign whose journal also records the experiment it belongs to."""

    experiment: Mapping[str, Any] = MappingProxyType({})

    def _plan(self, chunk_size: int) -> Plan:
        plan = super()._plan(chunk_size)
        record = plan.record.replace(experiment=self.experiment)
        return dataclasses.replace(plan, record=record)

    async def journal_plan(self, path: Path, chunk_size: int, wait: float) -> None:
        """Journal the arm's plan at ``path``, sending nothing (:func:`journal_plan`)."""
        await journal_plan(self, path, chunk_size, wait)


class Experiment:
    """An A/B (or A/B/n) test of texts: the audience split at random, one arm per text.

    ``variants``: arm name -> text, the first arm the control (2 to 26 arms). ``seed``
    (default: drawn, then recorded) makes the split; ``stratify="country"`` splits each
    country's recipients evenly. ``sender``, ``default_region``, ``clock`` and the send and
    campaign options (``frequency_cap="2/7D"``, ``include_opted_out``, ``repeat_window``...:
    :class:`smskit.Campaign`'s, docs/frequency-caps.md) are every arm's. ``name`` names the
    experiment and its files in ``directory`` (default: the campaign journals' directory):
    made again with the same name, the experiment adopts the split its record holds (the same
    recipients, texts and options needed) rather than drawing another. ``holdout`` (a share
    or a count, or a :class:`~smskit.campaigns.planning.holdout.Holdout`) adds the no-send
    arm ``holdout``: each arm's campaign holds out that share of its sendable recipients (a
    count is shared out among the arms, the first arms taking the remainder), drawn with the
    experiment's seed and stratification unless the ``Holdout`` gives its own, journaled with
    the arm's plan, never sent (docs/conversions.md).
    """

    def __init__(
        self,
        client: ClientOption,
        recipients: Any,
        *,
        variants: Mapping[str, str],
        sender: str,
        name: str | None = None,
        seed: int | None = None,
        stratify: str | None = None,
        default_region: str | None = DEFAULT_REGION,
        clock: Callable[[], datetime] | None = None,
        directory: str | Path | None = None,
        track_links: Inbox | None = None,
        holdout: float | Holdout | None = None,
        **options: Unpack[CampaignOptions],
    ) -> None:
        check_client(client)
        arms = check_arms(variants)
        held = _check_holdout(holdout, stratify, arms)
        self._links = None if track_links is None else check_tracking_inbox(track_links)
        stratify = check_stratify(stratify)
        if seed is not None:
            seed = check_seed(seed)
        first = next(iter(arms.values()))
        spec = CampaignSpec.of(first, sender, default_region=default_region, clock=clock, **options)
        for text in arms.values():
            spec.replace(text=text)  # each arm's text checked like a campaign's
        if name is not None:
            _check_name(name)
        reader = Recipients(recipients)
        used = sorted({f for text in arms.values() for f in used_fields(text)})
        frame = reader.columns(used).reset_index(drop=True)
        numbers, regions = frame["phone_number"].tolist(), frame["country"].tolist()
        assert spec.created is not None
        record = ExperimentRecord(
            name=name or _default_name(arms, sender, spec.options, spec.created),
            created=spec.created.isoformat(),
            arms=arms,
            sender=sender,
            options=dict(spec.options),
            default_region=default_region,
            seed=-1,  # drawn below unless a record is adopted
            stratify=stratify,
            recipients=len(frame),
            numbers=numbers_digest(numbers, regions),
            assignment=[],
            holdout=held,
        )
        self._directory = _directory(directory)  # where _adopted looks
        self._frame: pd.DataFrame | None = frame  # what _split splits
        record = self._adopted(record, seed) or self._split(record, seed, default_region)
        self._hold(record, self._directory, client, frame, spec)

    def _hold(
        self,
        record: ExperimentRecord,
        directory: Path,
        client: ClientOption,
        frame: pd.DataFrame | None,
        spec: CampaignSpec,
    ) -> None:
        """The experiment's state, set in this one place (made, or loaded)."""
        self._directory = directory
        self._frame = frame
        self._client = client
        self._made: Client | None = None
        self.record = record
        self._arms = self._make_arms(spec)

    # -- identity -------------------------------------------------------------------------

    @classmethod
    def load(
        cls, name: str, client: ClientOption = None, *, directory: str | Path | None = None
    ) -> Experiment:
        """The experiment ``name`` as its record holds it (in ``directory``, default the
        campaign journals'), without its recipients: it can :meth:`send` (resume) once its
        arms' plans are journaled (its first send does that before any SMS), and compare."""
        check_client(client)
        _check_name(name)
        where = _directory(directory)
        record = ExperimentRecord.read(record_path(where, name))
        spec = CampaignSpec(
            next(iter(record.arms.values())), record.sender, record.options, None,
            record.default_region, None, None, record.created_at,
        )  # fmt: skip
        experiment = cls.__new__(cls)  # made from its record: no recipients to split
        experiment._links = None  # the arms' journals hold their links
        experiment._hold(record, where, client, None, spec)
        return experiment

    @property
    def name(self) -> str:
        """The experiment's name: it names its record and its arms' campaigns."""
        return self.record.name

    @property
    def seed(self) -> int:
        """The seed the split was drawn with (given, or drawn and recorded)."""
        return self.record.seed

    @property
    def variants(self) -> dict[str, str]:
        """Arm name -> text, the control first."""
        return dict(self.record.arms)

    @property
    def control(self) -> str:
        """The arm every other arm is compared with (the first)."""
        return next(iter(self.record.arms))

    @property
    def holdout(self) -> Holdout | None:
        """The no-send arm's choice as recorded (its seed None: the experiment's), or None."""
        held = self.record.holdout
        return None if held is None else Holdout(held["size"], held["seed"], held["stratify"])

    @property
    def directory(self) -> Path:
        """Where the record and the arms' journals are."""
        return self._directory

    @property
    def path(self) -> Path:
        """The experiment's record."""
        return record_path(self._directory, self.name)

    @property
    def client(self) -> Client | AsyncClient | None:
        """The client the arms use: the one given, else one ``smskit.Client()`` made when an
        arm first needs it (None until then). A resume without a client given goes back to
        the gateway each journal records, as :meth:`smskit.Campaign.resume` does."""
        return self._client

    @property
    def arms(self) -> dict[str, Campaign]:
        """Each arm's campaign (``<name>.<arm>``); preflight one with ``arms[arm].preflight()``.
        After :meth:`load`, arms hold no recipients: they can only resume."""
        return dict(self._arms)

    def journal(self, arm: str) -> Path:
        """The journal of ``arm``."""
        return arm_journal(self._directory, self.name, arm)

    def assignment(self) -> pd.DataFrame:
        """One row per input row: ``row``, its ``arm`` (categorical, arms in order), its
        ``stratum`` (the country, when stratified) and, when the recipients are held,
        ``phone_number`` as given."""
        import pandas as pd

        record = self.record
        arms = list(record.arms)
        frame = pd.DataFrame({"row": range(record.recipients)})
        frame["arm"] = pd.Categorical.from_codes(record.assignment, categories=pd.Index(arms))
        if record.strata is not None:
            frame["stratum"] = pd.Series(record.strata, dtype="string")
        if self._frame is not None:
            frame["phone_number"] = self._frame["phone_number"].to_numpy()
        return frame

    def __repr__(self) -> str:
        if "record" not in vars(self):  # a constructor that raised (tracebacks show locals)
            return "Experiment(<not made>)"
        sizes = self.assignment()["arm"].value_counts(sort=False)
        shown = ", ".join(f"{arm}={int(n)}" for arm, n in sizes.items())
        return f"Experiment({self.name!r}, {shown}, seed={self.seed})"

    # -- preview, send, compare ------------------------------------------------------------

    async def apreview(
        self,
        *,
        offline: bool = False,
        unit_prices: Mapping[str, float] | None = None,
        now: datetime | None = None,
    ) -> pd.DataFrame:
        """Per arm, before anything is sent: its text's encoding and segments, its campaign's
        preflight (recipients, to send, excluded, segments) and estimate (SMS and cost from
        the gateway's simulation, or ``offline`` from the rule book with ``unit_prices``)."""
        import pandas as pd

        from smskit.rules.text import analyze

        rows = []
        for arm, campaign in self._held_arms().items():
            # CPU work and a cached lookup: off the event loop, which may be the caller's.
            report = await asyncio.to_thread(campaign.preflight, now=now, offline=offline)
            estimate = None
            if report.ok:
                estimate = await campaign.aestimate(offline=offline, unit_prices=unit_prices)
            stats = analyze(campaign.text)
            summary = report.summary().iloc[0]
            rows.append({
                "arm": arm,
                "text": campaign.text,
                "encoding": stats.encoding,
                "segments_per_sms": stats.segments,
                "recipients": int(summary["recipients"]),
                "to_send": int(summary["to_send"]),
                "excluded": int(summary["excluded"]),
                **({"held_out": int(summary.get("held_out", 0))} if self.holdout else {}),
                "segments": int(summary["segments"]),
                "ok": bool(summary["ok"]),
                "estimated_sms": None if estimate is None else estimate.sms,
                "estimated_cost": None if estimate is None else estimate.cost,
                "estimate": None if estimate is None else estimate.source,
            })  # fmt: skip
        frame = pd.DataFrame(rows)
        frame["arm"] = pd.Categorical(frame["arm"], categories=list(self.record.arms))
        return frame.astype(
            {"estimated_sms": "Int64", "estimated_cost": "Float64", "estimate": "string"}
        )

    preview = blocking(apreview)

    async def asend(
        self,
        *,
        chunk_size: int = 500,
        concurrency: int = 4,
        progress: ProgressOption = True,
        wait: float = 0,
    ) -> ExperimentResult:
        """Send every arm, each through its campaign journal (exactly once, resumable).

        First the record is written (if it is not yet) and every arm's plan journaled (arms
        already journaled are not planned again), so that a crash at any point leaves an
        experiment that :meth:`load` resumes; then each arm is sent in turn, or resumed: a
        chunk accepted before is never sent again. ``chunk_size``, ``concurrency``,
        ``progress`` and ``wait`` as for :meth:`smskit.Campaign.send`.
        """
        chunk_size = check_chunk_size(chunk_size, _spec.RECIPIENTS_MAX)
        check_progress(progress)  # before any arm is planned
        if not self.path.exists():
            self._directory.mkdir(parents=True, exist_ok=True)
            self.record.write(self.path)
        for arm, campaign in self._arms.items():
            path = self.journal(arm)
            if _journaled(path):
                continue
            if not isinstance(campaign, _Arm) or self._frame is None:
                raise ConfigurationError(
                    f"arm {arm!r} of experiment {self.name!r} was never journaled: make the "
                    "Experiment again with its recipients (same name) to send it"
                )
            self._share_client()
            try:
                await campaign.journal_plan(path, chunk_size, wait)
            except ValidationError as exc:  # an arm refused (every recipient opted out...)
                where = f"arm {arm!r}: {exc.field}"
                raise ValidationError(
                    where, exc.rule, position=exc.position, value=exc.value, line=exc.line
                ) from exc
        results = {}
        given = None if self._client is self._made else self._client  # made here: the journal's
        for arm, campaign in self._arms.items():
            run = Run(concurrency, progress, wait)
            try:
                results[arm] = await send_journaled(campaign, self.journal(arm), given, run)
            except SandboxEndedError as ended:  # before any request: nothing was sent
                raise ended.of_experiment(self.name) from None
        rows = {arm: self.record.rows_of(arm) for arm in self.record.arms}
        again = f"experiment.send() again (smskit.Experiment.load({self.name!r}).send())"
        for arm, result in results.items():
            said = shortfall_message(result.summary(), result.chunks(), again)
            if said is not None:
                warn_caller(f"arm {arm!r}: {said}", IncompleteSendWarning, stacklevel=2)
        return ExperimentResult(self.name, results, rows)

    send = blocking(asend)

    def results(self) -> ExperimentResult:
        """What each arm's journal holds so far (nothing sent)."""
        found = {}
        for arm in self.record.arms:
            path = self.journal(arm)
            if not _journaled(path):
                raise ConfigurationError(f"arm {arm!r} of {self.name!r} has not been sent")
            found[arm] = CampaignResult.load(path)
        rows = {arm: self.record.rows_of(arm) for arm in self.record.arms}
        return ExperimentResult(self.name, found, rows)

    def compare(
        self,
        inbox: Any = None,
        *,
        alpha: float = 0.05,
        power: float = 0.8,
        lift: float = 0.1,
        correction: str = "holm",
        match: Match = "auto",
    ) -> ExperimentComparison:
        """The arms compared on delivery, reply and opt-out among their recipients sent:
        Wilson intervals at ``1 - alpha``, each arm tested against the control (p-values
        adjusted by ``correction``), and the recipients an arm needs to detect a relative
        ``lift`` at ``power`` (:func:`~smskit.campaigns.analysis.comparison.compare_counts`, from
        statsmodels). The counts are :meth:`ExperimentResult.counts`: each arm's outcomes
        (:meth:`smskit.CampaignResult.outcomes` with ``inbox`` and ``match``). Nothing is
        sent; an arm not sent yet is refused; the ``holdout`` arm, sent nothing, has no
        outcomes to compare (its orders do: :meth:`ExperimentResult.lift`). Recipients still
        ``pending`` (no report yet)
        count as not delivered: a :class:`UserWarning` says how many. See
        docs/experiments.md."""
        outcomes = self.results().outcomes(inbox, match=match)
        pending = int((outcomes["status"] == "pending").sum())
        if pending:
            warnings.warn(
                f"{pending} of the {len(outcomes)} recipient(s) sent have no delivery report "
                "yet (status 'pending'): the delivered rates count them as not delivered; "
                "compare once the reports are in",
                UserWarning,
                stacklevel=2,
            )
        counts = _count_outcomes(outcomes)
        return compare_counts(counts, alpha=alpha, power=power, lift=lift, correction=correction)

    # -- internals ------------------------------------------------------------------------

    def _held_arms(self) -> dict[str, _Arm]:
        arms = {arm: c for arm, c in self._arms.items() if isinstance(c, _Arm)}
        if len(arms) != len(self._arms):
            raise ConfigurationError(
                f"experiment {self.name!r} was loaded without its recipients: make it again "
                "with them (same name) to preview it"
            )
        self._share_client()
        return arms

    def _share_client(self) -> None:
        """Give every arm one client: the one given, else one ``smskit.Client()`` made for
        them all when the first needs it (not one per arm)."""
        if self._client is None:
            self._client = self._made = Client()
        for campaign in self._arms.values():
            campaign.client = self._client

    def _adopted(self, record: ExperimentRecord, seed: int | None) -> ExperimentRecord | None:
        """The record already written for this name, when it is this experiment's."""
        path = record_path(self._directory, record.name)
        if not path.exists():
            return None
        found = ExperimentRecord.read(path)
        differing = found.differences(record)
        if seed is not None and seed != found.seed:
            differing.append("seed")
        if differing:
            raise ConfigurationError(
                f"experiment {record.name!r} ({str(path)!r}) was made with other "
                f"{', '.join(differing)}: pass another name=, or delete its files to start over"
            )
        logger.info("experiment %s: the split recorded in %s is kept", record.name, path)
        return found

    def _split(
        self, record: ExperimentRecord, seed: int | None, default_region: str | None
    ) -> ExperimentRecord:
        """``record`` with a new split drawn from ``seed`` (or a fresh seed)."""
        import numpy as np
        import pandas as pd

        assert self._frame is not None
        seed = new_seed() if seed is None else seed
        frame = self._frame
        checked = number_checks(frame["phone_number"].array, frame["country"].array, default_region)
        strata = None
        if record.stratify == "country":
            strata = checked["region"].astype(object).fillna(UNKNOWN_STRATUM).tolist()
        # One number, one arm: the rows of a number (any spelling) share its first row's draw,
        # so that arm's preflight excludes the repeats as duplicate and nobody gets two texts.
        # A number that cannot be read is a unit of its own (preflight excludes it).
        keys = [e if isinstance(e, str) else f"row:{i}" for i, e in enumerate(checked["e164"])]
        units, _ = pd.factorize(np.array(keys, dtype=object))
        _, firsts = np.unique(units, return_index=True)
        drawn = assign_arms(
            len(firsts), len(record.arms), seed, None if strata is None else
            [strata[row] for row in firsts],
        )[units]  # fmt: skip
        return dataclasses.replace(record, seed=seed, assignment=drawn.tolist(), strata=strata)

    def _make_arms(self, spec: CampaignSpec) -> dict[str, Campaign]:
        """Each arm's campaign: ``spec`` with the arm's text, name and journal."""
        arms: dict[str, Campaign] = {}
        holdouts = _arm_holdouts(self.record)
        for arm, text in self.record.arms.items():
            arm_spec = spec.replace(
                text=text, name=f"{self.name}.{arm}", journal=self.journal(arm),
                holdout=holdouts[arm],
            )  # fmt: skip
            if self._frame is None:
                arms[arm] = Campaign.from_spec(self._client, [], arm_spec)
                continue
            rows = self.record.rows_of(arm)
            tracking = None if self._links is None else LinkTracking.of(self._links, text)
            if tracking is not None:  # the arm's text as sent: its links in fields
                arm_spec = arm_spec.replace(text=tracking.tracked.text)
            campaign = _Arm.from_spec(self._client, self._frame.iloc[rows], arm_spec)
            if tracking is not None:
                track_links(campaign, tracking)
            campaign.experiment = {
                "name": self.name, "arm": arm, "arms": list(self.record.arms),
                "control": self.control, "seed": self.seed, "stratify": self.record.stratify,
                "record": self.path.name,
                **({"holdout": self.record.holdout} if self.record.holdout else {}),
            }  # fmt: skip
            arms[arm] = campaign
        return arms


@dataclass(frozen=True)
class ExperimentResult(ConversionsAndLift["pd.DataFrame"]):
    """What each arm's journal holds: one :class:`~smskit.campaigns.analysis.results.CampaignResult`
    per arm, the control first. ``conversions()`` is every arm's, ``group`` the recipient's
    arm or ``holdout``, ``arm`` the arm it was dealt to, ``row`` its row in the experiment's
    input (``recipients`` is that input table); each arm's window starts at that arm's send
    instant, for its held-out recipients too."""

    name: str
    arms: dict[str, CampaignResult] = field(repr=False)
    # Each arm's input rows, in order (its journal's row i is the i-th): conversions' rows.
    rows: Mapping[str, list[int]] | None = field(default=None, repr=False)

    @property
    def held_out(self) -> int:
        """Recipients of the no-send arm ``holdout``: every arm's held out."""
        return sum(result.held_out for result in self.arms.values())

    @property
    def complete(self) -> bool:
        """Every arm has nothing left to send."""
        return all(result.complete for result in self.arms.values())

    def summary(self) -> pd.DataFrame:
        """One row per arm: its campaign's summary (recipients per state, SMS, cost ...)."""
        import pandas as pd

        frames = [r.summary().assign(arm=arm) for arm, r in self.arms.items()]
        frame = pd.concat(frames, ignore_index=True)
        if "held_out" in frame:  # an arm that held out nobody has no such column
            frame["held_out"] = frame["held_out"].fillna(0).astype("int64")
        frame["arm"] = pd.Categorical(frame["arm"], categories=list(self.arms))
        return frame[["arm", *[c for c in frame.columns if c != "arm"]]]

    def _recipients_region(self) -> str | None:
        return next(iter(self.arms.values()))._recipients_region()  # the arms share it

    def _conversions(
        self, orders: Any, inbox: Any, customer_id: str | None, recipients: Any,
        reading: OrderReading,
    ) -> pd.DataFrame:  # fmt: skip
        """Every arm's conversions (a refusal names the experiment's input row), ``group``
        a categorical: the arms in order, then ``holdout``."""
        import numpy as np
        import pandas as pd

        tables = self._arm_tables(customer_id, recipients)
        frames = []
        for arm, result in self.arms.items():
            try:
                frame = result.conversions(
                    orders, inbox=inbox, customer_id=customer_id, recipients=tables[arm], **reading
                )
            except ValidationError as exc:
                raise self._in_input(exc, arm) from None
            held = frame["group"].astype(str) == HOLDOUT_ARM
            frame["group"] = np.where(held, HOLDOUT_ARM, arm)
            if self.rows is not None:
                frame["row"] = np.asarray(self.rows[arm], dtype="int64")[frame["row"]]
            frames.append(frame.assign(arm=arm))
        frame = pd.concat(frames, ignore_index=True).sort_values("row", ignore_index=True)
        frame["group"] = pd.Categorical(frame["group"], categories=[*self.arms, HOLDOUT_ARM])
        frame["arm"] = pd.Categorical(frame["arm"], categories=list(self.arms))
        first = ["row", "phone_number", "group", "arm"]
        return frame[[*first, *[c for c in frame.columns if c not in first]]]

    def lift(
        self,
        orders: Any,
        *,
        arm: str | None = None,
        alpha: float = 0.05,
        power: float = 0.8,
        customer_id: str | None = None,
        recipients: Any = None,
        **reading: Unpack[OrderReading],
    ) -> Lift:
        """``arm`` (default: every arm, pooled) against the no-send arm ``holdout`` on
        :meth:`conversions` (same arguments): :class:`~smskit.campaigns.analysis.lift.Lift`,
        its incremental ROI against that arm's (or every arm's) billed cost."""
        from smskit.campaigns.analysis.lift import lift

        checked_choice("arm", arm, list(self.arms), optional=True)
        frame = self.conversions(orders, customer_id=customer_id, recipients=recipients, **reading)
        chosen = [arm] if arm is not None else list(self.arms)
        cost = sum(c.cost or 0.0 for name in chosen for c in self.arms[name].records)
        return lift(frame, treated=arm, cost=cost or None, alpha=alpha, power=power)

    def _arm_tables(self, customer_id: str | None, recipients: Any) -> dict[str, Any]:
        """Each arm's part of ``recipients`` (the experiment's input), its rows in the arm's
        order, as the arm's ``CampaignResult.conversions`` reads it: only ``customer_id``,
        read once; None for every arm without ``customer_id`` (the arm refuses a table)."""
        from smskit.campaigns.analysis.conversions import refuse_repeats
        from smskit.rules.orders import order_frame

        if customer_id is None or recipients is None or self.rows is None:
            return dict.fromkeys(self.arms, recipients)
        table = order_frame(recipients, [customer_id], "recipients")
        if customer_id not in table.columns:
            raise ValidationError(
                f"recipients.{customer_id}", "no such column (customer_id= names it)"
            )
        last = max((max(rows) for rows in self.rows.values() if rows), default=-1)
        if last >= len(table):
            raise ValidationError(
                "recipients",
                f"has {len(table)} rows but the experiment dealt row {last}: not its recipients",
            )
        dealt = sorted(row for rows in self.rows.values() for row in rows)
        refuse_repeats(table[customer_id].iloc[dealt].dropna(), f"recipients.{customer_id}")
        return {arm: table.iloc[self.rows[arm]].reset_index(drop=True) for arm in self.arms}

    def _in_input(self, exc: ValidationError, arm: str) -> ValidationError:
        """``exc`` from ``arm``'s conversions, a recipients' row named as the experiment's
        input row (an arm's rows are its own)."""
        at = exc.position if exc.field.startswith("recipients") else None
        if not isinstance(at, int) or self.rows is None:
            return exc
        return exc.at(self.rows[arm][at])

    def outcomes(self, inbox: Any = None, *, match: Match = "auto") -> pd.DataFrame:
        """Every arm's :meth:`smskit.CampaignResult.outcomes` (one row per recipient the
        gateway accepted) with an ``arm`` column first; ``inbox`` and ``match`` as there
        (HLR details from the bulk HLR cache)."""
        import pandas as pd

        each = {arm: r.outcomes(inbox, match=match) for arm, r in self.arms.items()}
        frame = pd.concat([f.assign(arm=arm) for arm, f in each.items()], ignore_index=True)
        frame["arm"] = pd.Categorical(frame["arm"], categories=list(self.arms))
        frame = frame[["arm", *[c for c in frame.columns if c != "arm"]]]
        # The experiment's audience: every arm's (each recipient it was for, sent or not).
        frame.attrs[AUDIENCE] = sum(int(f.attrs[AUDIENCE]) for f in each.values())
        return frame

    def counts(self, inbox: Any = None, *, match: Match = "auto") -> pd.DataFrame:
        """Per arm, from :meth:`outcomes`: ``sent`` (recipients the gateway accepted: every
        rate's denominator), ``delivered`` (standing status ``DELIVERED``), ``replied`` (at
        least one reply), ``opted_out`` (a STOP callback or a reply that opts out)."""
        return _count_outcomes(self.outcomes(inbox, match=match))

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{arm}: {r.summary().iloc[0]['sent']} sent" for arm, r in self.arms.items()
        )
        return f"ExperimentResult({self.name!r}, {shown})"


def _check_holdout(holdout: Any, stratify: str | None, arms: Mapping[str, str]) -> Any:
    """``holdout=`` as the record keeps it (None: no holdout arm); no arm may be named
    ``holdout`` beside it. A share or count is drawn with the experiment's seed and strata."""
    if holdout is None:
        return None
    if HOLDOUT_ARM in arms:
        raise ValidationError(
            "variants",
            f"an arm named {HOLDOUT_ARM!r} would be the no-send arm's group: rename it",
            value=HOLDOUT_ARM,
        )
    chosen = as_holdout(holdout)
    assert chosen is not None
    if not isinstance(holdout, Holdout):
        chosen = Holdout(chosen.size, None, stratify)
    return chosen.record()


def _arm_holdouts(record: ExperimentRecord) -> dict[str, Holdout | None]:
    """Each arm's holdout: the share, or the count shared out (the first arms take the
    remainder; an arm given none holds out nobody), seeded by the record's seed unless the
    holdout has its own."""
    held = record.holdout
    if held is None:
        return dict.fromkeys(record.arms)
    seed = record.seed if held["seed"] is None else held["seed"]
    size, count = held["size"], len(record.arms)
    found: dict[str, Holdout | None] = {}
    for position, arm in enumerate(record.arms):
        share = size if isinstance(size, float) else size // count + (position < size % count)
        found[arm] = Holdout(share, seed, held["stratify"]) if share else None
    return found


def _journaled(path: Path) -> bool:
    """Whether ``path`` is a journal holding a plan (an empty file is none)."""
    if not path.exists() or path.stat().st_size == 0:
        return False
    with Journal(path) as book:
        return book.record() is not None


def _directory(directory: Any) -> Path:
    """``directory`` as a Path (None: the campaign journals' directory)."""
    if directory is None:
        return campaigns_dir()
    if not isinstance(directory, str | os.PathLike) or str(directory) == "":
        raise ValidationError("directory", "must be a path (str or pathlib.Path)", value=directory)
    return Path(directory)


def _check_name(name: Any) -> None:
    check_name(name)
    if len(name) > NAME_MAX:
        raise ValidationError(
            "name", f"an experiment's name is at most {NAME_MAX} characters", value=name
        )


def _default_name(
    arms: Mapping[str, str], sender: str, options: Mapping[str, Any], created: datetime
) -> str:
    """``experiment-<created>-<hash>`` of when it was made and its texts, sender and options."""
    body = canonical_json({"arms": dict(arms), "sender": sender, "options": dict(options)})
    digest = hashlib.blake2b(body.encode(), digest_size=5).hexdigest()
    return f"experiment-{created.astimezone(UTC):%Y%m%dT%H%M%S.%f}Z-{digest}"


def _count_outcomes(frame: pd.DataFrame) -> pd.DataFrame:
    """Per arm of :meth:`ExperimentResult.outcomes`' ``frame``: sent, delivered, replied,
    opted_out (what :meth:`ExperimentResult.counts` returns)."""
    import pandas as pd

    grouped = frame.groupby("arm", observed=False, sort=True)
    counts = pd.DataFrame({
        "sent": grouped.size(),
        "delivered": grouped["status"].agg(lambda s: int((s == "DELIVERED").sum())),
        "replied": grouped["replied"].sum(),
        "opted_out": grouped["opt_out"].sum(),
    })  # fmt: skip
    if (frame["clicks"].sum() + frame["bot_clicks"].sum()) > 0:  # its links were requested
        counts["clicked"] = grouped["clicked"].sum()
    return counts.astype("int64").reset_index()
