"""The bulk HLR cache is keyed by the gateway: one gateway's answers never serve another.

Two sandboxes over real HTTP that answer differently (every line live / every line dead)
share one cache file; a configured real gateway (an https URL, answered by an httpx
MockTransport: no sandbox can stand at a non-loopback address) is never served the
sandbox's answers; a cache file of the earlier layout (answers keyed by number only) is
neither served nor a crash.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import smskit
from smskit._account import gateway_of
from smskit.campaigns.bulk import abulk_hlr, bulk_hlr
from smskit.campaigns.bulk.hlr_cache import HLRCache
from smskit.sandbox import HLRDistribution, Sandbox

NUMBERS = [f"+3361{i:07d}" for i in range(12)]
HLR_FR = 0.008  # EUR per French number checked (docs/sandbox.md)


@pytest.fixture
def live_and_dead() -> Iterator[tuple[Sandbox, Sandbox]]:
    """Two gateways: one says every mobile is live, the other that every one is dead."""
    no_porting = {"ported_share": 0.0}
    live = HLRDistribution(line_status={"live": 1.0}, **no_porting)
    dead = HLRDistribution(line_status={"dead": 1.0}, **no_porting)
    with Sandbox(hlr_distribution=live) as a, Sandbox(hlr_distribution=dead) as b:
        yield a, b


def statuses(sandbox: Sandbox, path: Path) -> tuple[list[str], list[bool]]:
    """Line statuses and "cached" flags of NUMBERS checked through ``sandbox`` with ``path``."""
    with smskit.Client(sandbox=sandbox) as client:
        frame = bulk_hlr(client, NUMBERS, journal=path, progress=False).to_frame()
    return frame["line_status"].astype(str).tolist(), frame["cached"].tolist()


def test_answers_of_one_gateway_are_never_served_for_another(
    live_and_dead: tuple[Sandbox, Sandbox], tmp_path: Path
) -> None:
    """After the live gateway answered, the dead one is asked afresh (and billed): dead, not
    the cached live; each gateway then gets its own answers back from the cache."""
    live, dead = live_and_dead
    path = tmp_path / "hlr.sqlite"
    assert statuses(live, path) == (["live"] * 12, [False] * 12)
    assert statuses(dead, path) == (["dead"] * 12, [False] * 12)
    assert dead.balance() == pytest.approx(1000.0 - 12 * HLR_FR)
    assert statuses(live, path) == (["live"] * 12, [True] * 12)
    assert statuses(dead, path) == (["dead"] * 12, [True] * 12)
    assert dead.balance() == pytest.approx(1000.0 - 12 * HLR_FR)  # the cache paid nothing


def test_the_sandbox_answers_are_never_served_against_a_configured_real_gateway(
    live_and_dead: tuple[Sandbox, Sandbox], tmp_path: Path
) -> None:
    """A cache filled by the sandbox, then the same numbers through a client configured for
    an https gateway: every number is asked of that gateway, whose answers come back."""
    live, _ = live_and_dead
    path = tmp_path / "hlr.sqlite"
    statuses(live, path)
    asked: list[str] = []
    with smskit.Client(sandbox=live) as sandbox_client:
        dead = sandbox_client.contact.hlr_request(NUMBERS[:1]).raw[0] | {"line_status": "dead"}

    def real_gateway(request: httpx.Request) -> httpx.Response:
        numbers = json.loads(request.content)["phone_numbers"]
        asked.extend(numbers)
        return httpx.Response(200, json=[dead | {"phone_number": n} for n in numbers])

    async def check() -> list[str]:
        async with smskit.AsyncClient(
            "acme",
            "key",
            "https://gateway.example.com",
            transport=httpx.MockTransport(real_gateway),
        ) as client:
            results = await abulk_hlr(client, NUMBERS, journal=path, progress=False)
        return [r.line_status or "" for r in results]

    assert asyncio.run(check()) == ["dead"] * 12
    assert sorted(asked) == NUMBERS


def test_a_cache_of_the_earlier_layout_is_neither_served_nor_a_crash(
    live_and_dead: tuple[Sandbox, Sandbox], tmp_path: Path
) -> None:
    """A file whose table ``hlr`` keys answers by number only (the earlier layout) holding
    "live" for every number: the dead gateway is asked afresh, and its answers kept."""
    path = tmp_path / "hlr.sqlite"
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE hlr (phone_number TEXT PRIMARY KEY, result TEXT NOT NULL, "
            "checked_at REAL NOT NULL)"
        )
        db.executemany(
            "INSERT INTO hlr VALUES (?, ?, strftime('%s', 'now'))",
            [(n, json.dumps({"phone_number": n, "line_status": "live"})) for n in NUMBERS],
        )
    _, dead = live_and_dead
    assert statuses(dead, path) == (["dead"] * 12, [False] * 12)
    assert statuses(dead, path) == (["dead"] * 12, [True] * 12)


def test_a_file_that_is_not_sqlite_is_refused_naming_it(tmp_path: Path) -> None:
    """A text file given as the cache: ConfigurationError naming the file, nothing else."""
    path = tmp_path / "notes.txt"
    path.write_text("not a database at all " * 20)
    with pytest.raises(smskit.ConfigurationError, match=r"notes\.txt.*not an HLR cache"):
        HLRCache(path)


def test_cached_answers_follow_gateway_login_and_age(tmp_path: Path) -> None:
    """Answers come back for their own base URL and login only (a trailing slash is the same
    gateway), while younger than max_age (None: any age)."""
    cache = HLRCache(tmp_path / "hlr.sqlite")
    try:
        here = gateway_of("https://gw.example/", "acme")
        cache.store(here, {"+33612345678": {"status": "valid"}})
        assert cache.cached(gateway_of("https://gw.example", "acme"), ["+33612345678"], None) == {
            "+33612345678": {"status": "valid"}
        }
        assert cache.cached(gateway_of("https://gw.example", "other"), ["+33612345678"], None) == {}
        assert (
            cache.cached(gateway_of("https://other.example", "acme"), ["+33612345678"], None) == {}
        )
        with sqlite3.connect(cache.path) as db:
            db.execute("UPDATE hlr_answers SET checked_at = checked_at - 100")
        assert cache.cached(here, ["+33612345678"], 50) == {}
        assert cache.cached(here, ["+33612345678"], 200) == {"+33612345678": {"status": "valid"}}
    finally:
        cache.close()
