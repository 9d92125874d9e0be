"""What a campaign would cost: the gateway's own figures (simulation) or an offline count."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from smskit._html import shown_record
from smskit.campaigns.sending.blocking import async_client, interruption
from smskit.campaigns.sending.progress import ProgressOption
from smskit.campaigns.sending.runner import check_concurrency, run_chunks, without_refused
from smskit.errors import InsufficientCreditError, SmskitError

if TYPE_CHECKING:
    import pandas as pd

    from smskit.client import AsyncClient, Client
    from smskit.rules.contacts import ContactChunk

__all__ = ["CostEstimate", "Simulator", "offline_estimate", "simulate"]


class Simulator:
    """Runs each planned chunk in simulation_mode and collects the gateway's figures."""

    def __init__(self, client: AsyncClient, text: str, sender: str, options: Mapping[str, Any]):
        self.client = client
        self.text = text
        self.sender = sender
        self.options = dict(options)
        self.rows: dict[int, tuple[Any, ...]] = {}  # chunk, recipients, sms, cost, error
        self.problems: list[dict[str, Any]] = []
        self.short = False

    async def chunk(self, index: int, rows: list[int], payload: ContactChunk) -> None:
        """Simulate one chunk; refused recipients are listed and the rest simulated again."""
        error: str | None = None

        async def attempt(positions: list[int]) -> tuple[int, int | None, float | None]:
            result = await self.client.sms_campaign.send(
                text=self.text,
                recipients=payload.pick(positions),
                sender=self.sender,
                simulation_mode=True,
                validate=False,  # a plan's chunk: preflight checked it (build_plan insists)
                **self.options,
            )
            return len(positions), result.number_of_sms_needed, result.total_cost

        def drop(positions: list[int], refused: dict[int, str]) -> list[int] | None:
            for pos, message in refused.items():
                original = positions[pos]
                self.problems.append(
                    {"row": rows[original], "phone_number": payload[original]["phone_number"],
                     "chunk": index, "error": message}
                )  # fmt: skip
            kept = [p for k, p in enumerate(positions) if k not in refused]
            return kept or None

        try:
            figures = await without_refused(list(range(len(payload))), attempt, drop, len)
            if figures is None:  # every recipient refused: the chunk sends nothing, costs nothing
                figures = (0, 0, 0.0)
        except SmskitError as exc:
            # The gateway checks the balance even when simulating: a chunk dearer than
            # the balance gets no figures, only the verdict.
            self.short = self.short or isinstance(exc, InsufficientCreditError)
            error = f"{type(exc).__name__}: {exc}"
            figures = (len(rows), None, None)
        self.rows[index] = (index, *figures, error)

    def estimate(self, balance: float | None) -> CostEstimate:
        rows = [self.rows[i] for i in sorted(self.rows)]
        return _estimate("gateway", rows, balance, self.problems, refused_for_credit=self.short)


async def simulate(
    client: Client | AsyncClient,
    header: Mapping[str, Any],
    chunks: Iterable[tuple[int, list[int], ContactChunk]],
    *,
    total: int,
    concurrency: int,
    progress: ProgressOption,
) -> CostEstimate:
    """The gateway's figures for ``chunks`` (index, rows, payload: taken lazily) of the
    campaign ``header`` (``text``, ``sender``, ``options``), each sent in ``simulation_mode``,
    ``concurrency`` at a time, then the balance to compare with."""
    concurrency = check_concurrency(concurrency)
    stop, share = interruption()
    async with async_client(client, share=share) as gateway:
        simulator = Simulator(gateway, header["text"], header["sender"], header["options"])
        await run_chunks(chunks, lambda chunk: simulator.chunk(*chunk), concurrency=concurrency,
                         stop=stop, progress=progress, total=total, unit="recipient",
                         size=lambda chunk: len(chunk[1]))  # fmt: skip
        balance = (await gateway.wallet.check_balance()).amount
    return simulator.estimate(balance)


def offline_estimate(
    chunks: Iterable[tuple[Sequence[int], Sequence[str | None]]],
    unit_prices: Mapping[str, float] | None,
) -> CostEstimate:
    """The figures of each chunk, given as (segments, regions) of its recipients, from the
    segments alone; a cost only with ``unit_prices`` (EUR per segment by country code)."""
    rows = []
    for index, (segments, found) in enumerate(chunks):
        cost: float | None = None
        error = None
        regions = [r or "?" for r in found]
        if unit_prices is not None:
            unpriced = sorted(set(regions) - set(unit_prices))
            if unpriced:
                error = f"no unit price for {', '.join(unpriced)}"
            else:
                prices = [unit_prices[r] for r in regions]
                cost = round(sum(s * u for s, u in zip(segments, prices, strict=True)), 6)
        rows.append((index, len(segments), int(sum(segments)), cost, error))
    return _estimate("offline", rows, None, [])


def _estimate(
    source: str,
    rows: list[tuple[Any, ...]],
    balance: float | None,
    problems: list[dict[str, Any]],
    refused_for_credit: bool = False,
) -> CostEstimate:
    import pandas as pd

    frame = pd.DataFrame(rows, columns=["chunk", "recipients", "sms", "cost", "error"]).astype(
        {"sms": "Int64", "cost": "Float64", "error": "string"}
    )
    refused = pd.DataFrame(problems, columns=["row", "phone_number", "chunk", "error"])
    refused = refused.sort_values("row", ignore_index=True)
    return CostEstimate(source, frame, balance, refused, refused_for_credit=refused_for_credit)


@dataclass(frozen=True)
class CostEstimate:
    """What the campaign would cost: per chunk (``to_frame()``), totals, and the balance.

    ``source`` is ``"gateway"`` (simulation_mode requests) or ``"offline"`` (segments from
    :mod:`smskit.text`; cost only with unit prices). ``problems`` lists recipients the
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
            summary=shown_record(self.summary().iloc[0].to_dict()),
            errors=[e for e in self.frame["error"].dropna().unique().tolist()][:5],
            problems=[shown_record(p) for p in self.problems.head(10).to_dict("records")],
            more=max(len(self.problems) - 10, 0),
        )

    def _repr_html_(self) -> str:
        return self.to_html()
