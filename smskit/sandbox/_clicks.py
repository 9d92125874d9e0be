"""Recipients opening the links of their texts: seeded people and preview bots, over HTTP.

An smskit extension for demos and tests (docs/links.md): the sandbox reads the links in the
texts it sent (:func:`smskit.rules.links.find_links`: it needs nothing but the URLs) and
requests them as phones and as the bots that open links nobody clicked. Who clicks, which
link, with which user agent and when is drawn from ``seed`` (:func:`script`, pure); the
requests are real (:func:`play`), made at their seeded delays.

Bots come first, people later: every bot request is made in the first third of
``within_seconds`` and every person's click in the last third, so that no person's click
falls within a second of a bot request on the same link (which the burst rule would rightly
read as one burst) when ``within_seconds`` is at least 4.5 s (the default); the people wait
for every bot request's answer, so a loaded machine delays them rather than mixing them.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any, Final

from smskit.rules.links import find_links

__all__ = ["BOTS", "PHONES", "PlannedClick", "play", "script"]

PHONES: Final = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/124.0.0.0 Mobile Safari/537.36",
    "Mozilla/5.0 (Linux; Android 13; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) "
    "SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36",
)
_DESKTOP: Final = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/124.0.0.0 Safari/537.36"
)
# name -> (method, user agent, requests, seconds between them)
BOTS: Final = {
    "imessage_preview": ("GET", "facebookexternalhit/1.1 Facebot Twitterbot/1.0", 1, 0.0),
    "whatsapp_preview": ("GET", "WhatsApp/2.23.20.0 A", 1, 0.0),
    "telegram_preview": ("GET", "TelegramBot (like TwitterBot)", 1, 0.0),
    "link_checker": ("HEAD", _DESKTOP, 1, 0.0),
    "scanner_burst": ("GET", _DESKTOP, 3, 0.1),
}


@dataclass(frozen=True)
class PlannedClick:
    """One request to make: who (``human`` or a bot of :data:`BOTS`), on which link, how, when
    (seconds after the start)."""

    phone_number: str
    url: str
    who: str
    method: str
    user_agent: str
    delay: float


def script(
    messages: Iterable[tuple[str, str, bool]],
    *,
    rate: float,
    bot_share: float,
    seed: int,
    within_seconds: float,
) -> list[PlannedClick]:
    """The requests for ``messages`` (number, text as sent, delivered) in order of delay:
    ``round(rate * n)`` people among the delivered and ``round(bot_share * n)`` bot visits
    among all, ``n`` the messages with a link."""
    rng = random.Random(seed)
    linked = [(n, [link.url for link in find_links(t)], d) for n, t, d in messages]
    linked = [item for item in linked if item[1]]
    delivered = [item for item in linked if item[2]]
    people = rng.sample(delivered, min(len(delivered), round(rate * len(linked))))
    bots = rng.sample(linked, min(len(linked), round(bot_share * len(linked))))
    third = within_seconds / 3
    planned = []
    for number, urls, _ in bots:
        name = rng.choice(sorted(BOTS))
        method, agent, count, gap = BOTS[name]
        start = rng.uniform(0, third - gap * count)
        url = rng.choice(urls)
        planned += [
            PlannedClick(number, url, name, method, agent, start + i * gap) for i in range(count)
        ]
    for number, urls, _ in people:
        delay = rng.uniform(2 * third, within_seconds)
        planned.append(
            PlannedClick(number, rng.choice(urls), "human", "GET", rng.choice(PHONES), delay)
        )
    return sorted(planned, key=lambda click: click.delay)


def play(planned: list[PlannedClick], workers: int = 32) -> list[dict[str, Any]]:
    """Make each request at its delay (redirects not followed); the records with ``status``
    (the HTTP status, or 0 when no answer came). The bots' requests are all answered before
    the first person clicks, and at least the planned quiet between them is kept: on a
    loaded machine the bots' requests may be late, and a person's click must still not land
    within a second of a bot request on the same link."""
    bots = [click for click in planned if click.who != "human"]
    people = [click for click in planned if click.who == "human"]
    start = time.monotonic()
    records = _requests(bots, start, workers)
    if bots and people:
        quiet = min(c.delay for c in people) - max(c.delay for c in bots)
        late = time.monotonic() + quiet - (start + min(c.delay for c in people))
        start += max(0.0, late)
    records += _requests(people, start, workers)
    return sorted(records, key=lambda record: record["delay"])


def _requests(planned: list[PlannedClick], start: float, workers: int) -> list[dict[str, Any]]:
    """Each of ``planned`` requested at ``start`` plus its delay, by ``workers`` threads."""
    import httpx

    lock = threading.Lock()
    queue = iter(planned)

    def worker(client: httpx.Client) -> list[dict[str, Any]]:
        done: list[dict[str, Any]] = []
        while True:
            with lock:
                click = next(queue, None)
            if click is None:
                return done
            time.sleep(max(0.0, start + click.delay - time.monotonic()))
            try:
                answer = client.request(
                    click.method, click.url, headers={"User-Agent": click.user_agent}
                )
                status = answer.status_code
            except httpx.HTTPError:
                status = 0
            done.append({**asdict(click), "status": status})

    with (
        httpx.Client(follow_redirects=False, trust_env=False, timeout=10.0) as client,
        ThreadPoolExecutor(max_workers=workers) as pool,
    ):
        results = [pool.submit(worker, client) for _ in range(workers)]
        return [record for future in results for record in future.result()]
