"""The one chunk runner: streaming input, bounded concurrency, progress and journal exactly once.

The property test drives the real send engine (journal, lease, request ids, the client's own
retries) through ``httpx.MockTransport``: it scripts, per chunk, outcomes the sandbox cannot
be told to give one chunk among concurrent ones (a 5xx then success, a refusal of one
recipient, an interrupt arriving while that chunk is in flight). The differential tests run
on real sandboxes over HTTP.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import tempfile
import threading
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import smskit
from smskit.campaigns.send import execute
from smskit.campaigns.sending.blocking import run_blocking
from smskit.campaigns.sending.journal import Journal
from smskit.campaigns.sending.runner import run_chunks
from smskit.client.clients import Backoff
from smskit.sandbox import Sandbox

TEXT = "Promo -20% ce week-end. STOP au 36173"
FAST = Backoff(base=0.0, cap=0.0)
OUTCOMES = ("ok", "retry_then_ok", "retries_exhausted", "permanent", "one_refused", "interrupt")
# What the journal's log says of a chunk, by the outcome scripted for it (first run).
EXPECTED_LOG = {
    "ok": ["in_flight", "sent"],
    "retry_then_ok": ["in_flight", "sent"],  # the client retried inside one request
    "retries_exhausted": ["in_flight", "failed"],
    "permanent": ["in_flight", "failed"],
    "one_refused": ["in_flight", "pending", "in_flight", "sent"],
    "interrupt": ["in_flight", "sent"],  # in flight when stopped: finishes and is recorded
}


class Recorder:
    """A ProgressEvents view that keeps every event."""

    def __init__(self) -> None:
        self.started: tuple[int, int, str] | None = None
        self.advances: list[int] = []
        self.finished = 0

    def start(self, total: int, initial: int, unit: str) -> None:
        self.started = (total, initial, unit)

    def advance(self, count: int, **postfix: object) -> None:
        self.advances.append(count)

    def finish(self) -> None:
        self.finished += 1


class ScriptedGateway:
    """Answers each chunk's sends as its scripted outcome says; records what it accepted."""

    def __init__(self, outcomes: list[str], stop: threading.Event) -> None:
        self.outcomes = outcomes
        self.stop = stop
        self.second_run = False
        self.attempts: Counter[int] = Counter()
        self.accepted_ids: Counter[str] = Counter()
        self.accepted_numbers: Counter[str] = Counter()

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        numbers = [r["phone_number"] for r in body["recipients"]]
        idx = int(numbers[0][4:7])
        self.attempts[idx] += 1
        outcome = "ok" if self.second_run and self.outcomes[idx] != "permanent" else None
        outcome = outcome or self.outcomes[idx]
        first = self.attempts[idx] == 1
        if (outcome == "retry_then_ok" and first) or outcome == "retries_exhausted":
            return httpx.Response(503)
        if outcome == "permanent":
            return refusal({"text": {"code": 499, "message": "refused"}})
        if outcome == "one_refused" and first:
            return refusal({"recipients[0].phone_number": {"code": 413, "message": "no"}})
        if outcome == "interrupt":
            self.stop.set()  # what Ctrl-C does while this chunk's request is out
        self.accepted_ids[body["request_id"]] += 1
        self.accepted_numbers.update(numbers)
        return httpx.Response(
            201,
            json={
                "sms_ticket": body["request_id"],
                "number_of_contacts": len(numbers),
                "number_of_sms_needed": len(numbers),
                "total_cost": 0.05 * len(numbers),
            },
        )


def refusal(errors: dict[str, Any]) -> httpx.Response:
    return httpx.Response(
        400, json={"code": 400, "message": "Payload validation error.", "errors": errors}
    )


def size_of(idx: int) -> int:
    """Chunk ``idx`` holds idx + 2 recipients: sizes tell chunks apart in progress events,
    and one refused recipient always leaves another to send."""
    return idx + 2


def chunk_columns(idx: int) -> dict[str, list[Any]]:
    """Chunk ``idx``'s recipients; digits 4-6 of each number are the chunk's index."""
    numbers = [f"+336{idx:03d}{j:05d}" for j in range(size_of(idx))]
    return {
        "phone_number": numbers,
        "row": [idx * 100 + j for j in range(size_of(idx))],
        "segments": [1] * size_of(idx),
    }


def new_journal(path: Path, count: int, *, streamed: bool) -> Journal:
    """A campaign of ``count`` chunks: planned in advance, or to be added as streamed."""
    book = Journal(path, mode="create", lease=0)
    meta = {
        "name": "prop",
        "text": TEXT,
        "sender": "Shop",
        "options": {},
        "campaign_id": "c" * 32,
        "fields": [],
        "recipients": count,
    }
    if streamed:
        book.initialise(meta, {}, [], [])
        return book
    parts = [chunk_columns(i) for i in range(count)]
    plan = {name: [v for part in parts for v in part[name]] for name in parts[0]}
    ends = [sum(size_of(i) for i in range(k + 1)) for k in range(count)]
    bounds = list(zip([0, *ends[:-1]], ends, strict=True))
    book.initialise(meta, plan, bounds, [])
    return book


def log_by_chunk(path: Path) -> dict[int, list[str]]:
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT chunk, state FROM log ORDER BY id").fetchall()
    found: dict[int, list[str]] = {}
    for chunk, state in rows:
        found.setdefault(chunk, []).append(state)
    return found


async def send(
    run: tuple[Path, int, bool, int], gateway: ScriptedGateway, recorder: Recorder, *, first: bool
) -> smskit.CampaignResult:
    """One run of the send engine over the scripted gateway (a resume when not ``first``);
    ``run`` is (journal path, chunks, streamed, concurrency)."""
    path, count, streamed, concurrency = run
    book = new_journal(path, count, streamed=streamed) if first else Journal(path, lease=0)
    client = smskit.AsyncClient(
        "login",
        "key",
        "http://127.0.0.1:9",
        backoff=FAST,
        max_retries=2,
        transport=httpx.MockTransport(gateway),
    )
    source = (book.add_chunk(i, chunk_columns(i)) for i in range(count)) if streamed else None
    total = sum(size_of(i) for i in range(count))
    async with client:
        return await execute(
            book,
            client,
            concurrency,
            recorder,
            gateway.stop,
            share=True,
            chunks=source,
            total=total,
        )


@settings(max_examples=40, deadline=None)
@given(
    outcomes=st.lists(st.sampled_from(OUTCOMES), min_size=1, max_size=9),
    concurrency=st.integers(1, 4),
    streamed=st.booleans(),
)
def test_every_chunk_is_reported_once_to_progress_and_journal(
    outcomes: list[str], concurrency: int, streamed: bool
) -> None:
    """For random outcomes per chunk (ok, 5xx then ok, 5xx past the retries, a permanent
    refusal, one recipient refused, an interrupt), planned or streamed: each chunk the gateway
    saw is one progress event of its size and its scripted journal history; the others are
    untouched; a resume finishes exactly the rest, and every number is accepted at most once."""
    count = len(outcomes)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "j.sqlite"
        run = (path, count, streamed, concurrency)
        gateway = ScriptedGateway(outcomes, threading.Event())
        first = Recorder()
        result = asyncio.run(send(run, gateway, first, first=True))
        seen = set(gateway.attempts)
        logs = log_by_chunk(path)
        total = sum(size_of(i) for i in range(count))
        assert first.started == (total, 0, "recipient")
        assert first.finished == 1
        assert sorted(first.advances) == sorted(size_of(i) for i in seen)
        for idx in range(count):
            assert logs.get(idx, []) == (EXPECTED_LOG[outcomes[idx]] if idx in seen else [])
        interrupts = [i for i in seen if outcomes[i] == "interrupt"]
        assert (result.stopped is not None) == bool(interrupts)
        if interrupts:  # no chunk taken after: only those holding the other slots ran
            assert max(seen) <= min(interrupts) + concurrency - 1
        else:
            assert seen == set(range(count))

        settled = {i for i in seen if outcomes[i] != "retries_exhausted"}
        gateway.second_run = True
        gateway.stop = threading.Event()
        second = Recorder()
        asyncio.run(send(run, gateway, second, first=False))
        refused = {i for i in seen if outcomes[i] == "one_refused"}  # the rest: all ok now
        sizes = {i: size_of(i) - (i in refused) for i in range(count)}
        assert second.started == (total, sum(sizes[i] for i in settled), "recipient")
        assert sorted(second.advances) == sorted(
            size_of(i) for i in range(count) if i not in settled
        )
        with Journal(path) as book:
            states = {c.idx: c.state for c in book.chunks()}
            assert [c.size for c in book.chunks()] == [sizes[i] for i in range(count)]
        for idx, outcome in enumerate(outcomes):
            assert states[idx] == ("failed" if outcome == "permanent" else "sent")
        assert set(gateway.accepted_ids.values()) <= {1}
        assert set(gateway.accepted_numbers.values()) <= {1}
        expected_numbers = {
            number
            for i, outcome in enumerate(outcomes)
            if outcome != "permanent"
            for number in chunk_columns(i)["phone_number"][i in refused :]
        }
        assert set(gateway.accepted_numbers) == expected_numbers


async def units(
    source: Iterable[int],
    work: Callable[[int], Awaitable[Any]],
    recorder: Recorder,
    *,
    concurrency: int,
    stop: threading.Event,
    total: int,
) -> None:
    """The runner on chunks of one unit each."""
    await run_chunks(
        source,
        work,
        concurrency=concurrency,
        stop=stop,
        progress=recorder,
        total=total,
        unit="x",
        size=lambda _: 1,
    )


def test_a_generator_is_pulled_lazily_in_a_worker_thread() -> None:
    """A generator source is advanced off the event loop's thread, and never more than
    ``concurrency`` chunks are taken and not yet finished."""
    taken = 0
    finished = 0
    ahead: list[int] = []
    threads: set[str] = set()

    def source() -> Iterator[int]:
        nonlocal taken
        for item in range(50):
            threads.add(threading.current_thread().name)
            taken += 1
            ahead.append(taken - finished)
            yield item

    async def work(item: int) -> dict[str, int]:
        nonlocal finished
        while taken - finished < 3 and taken < 50:  # hold every slot, to see the bound
            await asyncio.sleep(0.001)
        finished += 1
        return {"done": finished}

    async def main() -> str:
        recorder = Recorder()
        await units(source(), work, recorder, concurrency=3, stop=threading.Event(), total=50)
        assert recorder.advances == [1] * 50
        return threading.current_thread().name

    loop_thread = asyncio.run(main())
    assert taken == finished == 50
    assert max(ahead) == 3
    assert loop_thread not in threads


def test_an_error_in_a_work_stops_the_rest_and_is_raised_after_those_in_flight() -> None:
    """A work that raises sets stop: no chunk starts after it, the ones running finish and
    are reported, then its exception is raised; it is not reported itself."""
    recorder = Recorder()
    started: list[int] = []

    async def work(item: int) -> None:
        started.append(item)
        if item == 2:
            raise RuntimeError("boom")
        await asyncio.sleep(0)

    stop = threading.Event()
    with pytest.raises(RuntimeError, match="boom"):
        asyncio.run(units(list(range(10)), work, recorder, concurrency=2, stop=stop, total=10))
    assert stop.is_set()
    assert started == [0, 1, 2, 3] or started == [0, 1, 2]
    assert len(recorder.advances) == len(started) - 1 and recorder.finished == 1


def test_an_error_in_the_source_is_raised_after_the_chunks_in_flight() -> None:
    """A generator that fails mid-way: the chunks it gave are finished and reported, then
    its exception is raised."""
    recorder = Recorder()

    def source() -> Iterator[int]:
        yield 1
        yield 2
        raise ValueError("bad partition")

    async def work(item: int) -> None:
        await asyncio.sleep(0)

    with pytest.raises(ValueError, match="bad partition"):
        asyncio.run(units(source(), work, recorder, concurrency=4, stop=threading.Event(), total=2))
    assert recorder.advances == [1, 1]


# -- sync and async, planned and streamed: the same journal ----------------------------------


def journal_record(path: Path) -> dict[str, Any]:
    """What a journal says was done, without times or the gateway's tickets."""
    with sqlite3.connect(path) as db:
        return {
            "chunks": db.execute(
                "SELECT idx, start, stop, keep, request_id, state, attempts, cost, sms, "
                "contacts, error, retryable FROM chunks ORDER BY idx"
            ).fetchall(),
            "rejected": db.execute("SELECT * FROM rejected ORDER BY row").fetchall(),
            "log": db.execute(
                "SELECT chunk, state, request_id FROM log ORDER BY chunk, id"
            ).fetchall(),
        }


RECIPIENTS = [
    *(f"+3361{i:07d}" for i in range(23)),
    "0612",  # too short: excluded by preflight
    *(f"+3247{i:07d}" for i in range(6)),  # BE
    "+33612345678",
    "+33612345678",  # a duplicate: excluded
]


def test_sync_and_async_sends_write_the_same_journal(tmp_path: Path) -> None:
    """The same campaign (one name) sent with Campaign.send (sync facade) and Campaign.asend
    (awaited), each on its own sandbox, leaves identical journals: chunks, request ids,
    states, costs, exclusions and the history of every chunk."""
    paths = []
    with Sandbox() as first, Sandbox() as second:
        with smskit.Client(sandbox=first) as client:
            campaign = smskit.Campaign(client, RECIPIENTS, text=TEXT, sender="Shop", name="same")
            done = campaign.send(
                progress=False, chunk_size=7, concurrency=3, journal=tmp_path / "sync.sqlite"
            )
            paths.append(done.journal)

        async def awaited() -> smskit.CampaignResult:
            async with smskit.AsyncClient(sandbox=second) as client:
                campaign = smskit.Campaign(
                    client, RECIPIENTS, text=TEXT, sender="Shop", name="same"
                )
                return await campaign.asend(
                    progress=False, chunk_size=7, concurrency=3, journal=tmp_path / "async.sqlite"
                )

        paths.append(asyncio.run(awaited()).journal)
        assert len(first.sent()) == len(second.sent()) == 30
    sync, awaited_record = (journal_record(p) for p in paths)
    assert sync == awaited_record
    assert [row[5] for row in sync["chunks"]] == ["sent"] * 5
    with Journal(paths[0]) as a, Journal(paths[1]) as b:
        assert a.excluded() == b.excluded() and len(a.excluded()) == 2


def test_a_streamed_campaign_sends_what_the_planned_one_sends(tmp_path: Path) -> None:
    """Chunks fed one by one to the journal from a generator (add_chunk, as the Dask sender
    does) are sent under the same request ids, with the same history, as the same campaign
    planned in advance, and the sandbox accepts the same recipients."""
    with Sandbox() as planned_box, Sandbox() as streamed_box:
        with smskit.Client(sandbox=planned_box) as client:
            campaign = smskit.Campaign(client, RECIPIENTS, text=TEXT, sender="Shop")
            planned = campaign.send(progress=False, chunk_size=7, journal=tmp_path / "p.sqlite")
        with Journal(planned.journal) as source:
            # The copy goes through another sandbox: it takes the plan, not the gateway.
            meta = {k: v for k, v in source.meta().items() if k != "gateway"}
            plan = source.plan()
            bounds = [(c.positions[0], c.positions[-1] + 1) for c in source.chunks()]
        book = Journal(tmp_path / "s.sqlite", mode="create", lease=0)
        book.initialise(meta, {}, [], [])

        def chunks() -> Iterator[Any]:
            for idx, (start, stop) in enumerate(bounds):
                yield book.add_chunk(idx, {k: v[start:stop] for k, v in plan.items()})

        recorder = Recorder()
        with smskit.Client(sandbox=streamed_box) as client:
            streamed = run_blocking(
                lambda stop: execute(
                    book, client, 2, recorder, stop, share=False, chunks=chunks(), total=30
                )
            )
        assert sorted(recorder.advances) == [2, 7, 7, 7, 7]
        assert streamed.complete
        key = ["phone_number", "request_id"]
        assert sorted(map(tuple, streamed_box.sent()[key].to_numpy().tolist())) == sorted(
            map(tuple, planned_box.sent()[key].to_numpy().tolist())
        )
    assert journal_record(planned.journal) == journal_record(streamed.journal)


def test_a_run_cancelled_mid_step_leaves_its_generator_closable() -> None:
    """Ctrl-C while a worker thread computes the next chunk (a Dask partition): the run's
    cancellation waits for that step, so its owner's ``close()`` of the generator never
    meets it still executing (it raised "generator already executing", a Dask send's
    KeyboardInterrupt turned into a ValueError)."""
    started, release = threading.Event(), threading.Event()

    def chunks() -> Iterator[int]:
        started.set()
        release.wait(10)
        yield 1

    source = chunks()

    async def work(chunk: int) -> None:
        return None

    async def main() -> None:
        run = asyncio.create_task(
            run_chunks(source, work, concurrency=1, stop=threading.Event(), progress=False,
                       total=1, unit="chunk", size=lambda chunk: 1)
        )  # fmt: skip
        await asyncio.to_thread(started.wait, 10)
        threading.Timer(0.3, release.set).start()
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
        assert release.is_set()  # the step ended before the cancellation did
        source.close()

    asyncio.run(main())
