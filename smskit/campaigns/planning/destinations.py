"""Learn from the gateway which destinations it serves and at what price; once per client.

The credits-per-country answer lists the countries served; for each country a campaign
needs, a one-recipient simulation of the campaign's product says whether that product is
served there (the gateway refuses the recipient otherwise, with its reason) and, from the
cost of one SMS, its unit price. Answers are cached per client, so a notebook that
preflights again as the text changes asks nothing more.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Mapping
from typing import Final

from smskit.campaigns.sending.blocking import async_client, run_blocking
from smskit.client import AsyncClient, Client
from smskit.errors import InsufficientCreditError, PayloadValidationError
from smskit.rules.destinations import Destinations, Verdict

__all__ = ["destinations"]

# The simplest payload the gateway accepts anywhere: a transactional one-SMS text.
_PROBE_TEXT: Final = "Test"
_PROBE_SENDER: Final = "Check"
_lock = threading.Lock()
_known: weakref.WeakKeyDictionary[Client | AsyncClient, Destinations] = weakref.WeakKeyDictionary()


def destinations(
    client: Client | AsyncClient, samples: Mapping[str, str], product: str
) -> Destinations:
    """What the gateway says of each country in ``samples`` (country -> one of its numbers in
    E.164) for ``product``; asked only for what ``client`` has not learned yet."""
    with _lock:
        known = _known.get(client, Destinations())
    wanted = {c: n for c, n in samples.items() if known.verdict(c, product) is None}
    if known.listed is not None and not wanted:
        return known

    async def learn(stop: threading.Event) -> Destinations:
        async with async_client(client, share=False) as probe:
            return await _ask(probe, known, wanted, product)

    learned = run_blocking(learn)
    with _lock:
        merged = _known.get(client, Destinations())
        merged = Destinations(learned.listed, {**merged.verdicts, **learned.verdicts})
        _known[client] = merged
    return merged


async def _ask(
    client: AsyncClient, known: Destinations, samples: Mapping[str, str], product: str
) -> Destinations:
    if known.listed is None:
        known = Destinations(
            Destinations.from_credits(await client.wallet.check_credits()).listed, known.verdicts
        )
    answers: dict[tuple[str, str], Verdict] = {}
    for country, number in sorted(samples.items()):
        if known.verdict(country, product) is not None:
            continue
        answers[(country, product)] = await _probe(client, number, product)
    return known.learned(answers)


async def _probe(client: AsyncClient, number: str, product: str) -> Verdict:
    try:
        result = await client.sms_campaign.send(
            text=_PROBE_TEXT,
            recipients=[number],
            sender=_PROBE_SENDER,
            type=product,
            purpose="alert",
            simulation_mode=True,
        )
    except InsufficientCreditError:
        return Verdict(True)  # served; the price is unknown while the balance is short
    except PayloadValidationError as exc:
        refusal = next(iter(exc.errors.values()), None) if exc.errors else None
        message = refusal.get("message") if isinstance(refusal, Mapping) else None
        return Verdict(False, str(message or exc))
    sms = result.number_of_sms_needed or 1
    price = None if result.total_cost is None else round(result.total_cost / sms, 6)
    return Verdict(True, None, price)
