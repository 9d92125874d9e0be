"""The journal file and the bulk runner, without a gateway."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import sqlite3
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import smskit
from smskit.campaigns.planning.plan import _prices
from smskit.campaigns.sending.blocking import run_blocking
from smskit.campaigns.sending.journal import Journal, column_json
from smskit.campaigns.sending.runner import run_chunks
from smskit.rules.canonical import canonical_json

META = {"campaign_id": "c1", "name": "t", "text": "x STOP", "sender": "Shop", "options": {}}
# Three recipients to send, in two chunks: [0, 2) and [2, 3).
PLAN = {
    "phone_number": ["+33611", "+33612", "+33613"],
    "row": [0, 1, 4],
    "segments": [1, 2, 1],
    "field:first_name": ["Ann", "", "Zoé"],
}
BOUNDS = [(0, 2), (2, 3)]


def test_canonical_json_has_one_spelling() -> None:
    """Sorted keys, no spaces, non-ASCII kept: equal values give equal text (and request ids)."""
    assert canonical_json({"b": 1, "a": "é"}) == '{"a":"é","b":1}'
    assert canonical_json([{"z": 1, "a": 2}]) == canonical_json([{"a": 2, "z": 1}])


def test_a_campaign_is_written_whole_and_read_back(tmp_path: Path) -> None:
    """initialise() stores meta, the plan, chunks (pending) and exclusions; chunks read back
    with their rows and segments, payloads with the non-empty fields only."""
    path = tmp_path / "j.sqlite"
    with Journal(path, mode="create") as journal:
        journal.initialise(META, PLAN, BOUNDS, [(3, "0612", None, "invalid_number", "too_short")])
    with Journal(path) as journal:
        meta = journal.meta()
        assert {k: meta[k] for k in META} == META
        chunks = journal.chunks()
        assert [c.state for c in chunks] == ["pending", "pending"]
        assert [c.request_id for c in chunks] == [None, None]  # derived at the first attempt
        assert chunks[0].rows == (0, 1) and chunks[0].segments == (1, 2)
        assert chunks[1].rows == (4,)
        assert list(journal.payload(chunks[0])) == [
            {"phone_number": "+33611", "first_name": "Ann"},
            {"phone_number": "+33612"},
        ]
        assert journal.excluded() == [(3, "0612", None, "invalid_number", "too_short")]
        assert journal.counts() == {
            "pending": 2, "in_flight": 0, "sent": 0, "already_accepted": 0, "failed": 0,
        }  # fmt: skip


def test_initialise_is_all_or_nothing(tmp_path: Path) -> None:
    """A failure while writing (here, one row excluded twice) leaves no half campaign; a
    journal is initialised once."""
    path = tmp_path / "j.sqlite"
    with Journal(path, mode="create") as journal:
        with pytest.raises(sqlite3.IntegrityError):
            journal.initialise(META, PLAN, BOUNDS, [(3, "a", None, "duplicate", None)] * 2)
        assert journal.meta() == {}
        assert journal.chunks() == []
        journal.initialise(META, PLAN, BOUNDS, [])
        with pytest.raises(smskit.ConfigurationError, match="already initialised"):
            journal.initialise(META, PLAN, BOUNDS, [])


def test_in_flight_derives_the_request_id_and_every_change_is_logged(tmp_path: Path) -> None:
    """The first attempt stores request_id = BLAKE2b(campaign id, index, canonical payload)
    with the in_flight state; an outcome stores ticket and cost; the log keeps both."""
    with Journal(tmp_path / "j.sqlite", mode="create", lease=0) as journal:
        journal.initialise(META, PLAN, BOUNDS, [])
        rid, contacts = journal.mark_in_flight(journal.chunk(0))
        payload = '[{"first_name":"Ann","phone_number":"+33611"},{"phone_number":"+33612"}]'
        expected = hashlib.blake2b(f"c1:0:{payload}".encode(), digest_size=16).hexdigest()
        assert rid == expected
        assert list(contacts) == json.loads(payload)
        chunk = journal.chunk(0)
        assert (chunk.state, chunk.attempts, chunk.request_id) == ("in_flight", 1, expected)
        assert journal.mark_in_flight(chunk)[0] == expected  # a retry repeats it
        journal.mark_done(0, "sent", ticket="T1", cost=0.195, sms=3, contacts=2)
        chunk = journal.chunk(0)
        assert (chunk.state, chunk.ticket, chunk.cost, chunk.sms) == ("sent", "T1", 0.195, 3)
        assert [(c, s, r) for c, _, s, r, _ in journal.log()] == [
            (None, "lease", None),  # taken when opened
            (0, "in_flight", expected),
            (0, "in_flight", expected),
            (0, "sent", expected),
        ]
        with pytest.raises(ValueError, match="state"):
            journal.mark_done(1, "pending")  # type: ignore[arg-type]


def test_reject_drops_recipients_and_rekeys_the_chunk(tmp_path: Path) -> None:
    """Refused recipients move to `rejected`; the chunk keeps the others under the id derived
    from its smaller payload."""
    with Journal(tmp_path / "j.sqlite", mode="create", lease=0) as journal:
        journal.initialise(META, PLAN, BOUNDS, [])
        first, _ = journal.mark_in_flight(journal.chunk(0))
        smaller = journal.reject(journal.chunk(0), {0: "not served (code 413)"})
        payload = '[{"phone_number":"+33612"}]'
        assert (
            smaller.request_id
            == hashlib.blake2b(f"c1:0:{payload}".encode(), digest_size=16).hexdigest()
        )
        assert smaller.request_id != first
        assert smaller.state == "pending"
        assert smaller.rows == (1,) and smaller.segments == (2,)
        assert list(journal.payload(smaller)) == [{"phone_number": "+33612"}]
        assert journal.rejected() == [(0, 0, "+33611", "not served (code 413)")]


def test_opening_what_is_not_a_journal_is_a_clear_error(tmp_path: Path) -> None:
    """A missing file, an existing file in create mode, or a non-SQLite file: named errors."""
    with pytest.raises(smskit.ConfigurationError, match="does not exist"):
        Journal(tmp_path / "missing.sqlite")
    text = tmp_path / "notes.txt"
    text.write_text("hello, this is not a database at all" * 10)
    with pytest.raises(smskit.ConfigurationError, match="not an smskit journal"):
        Journal(text)
    with pytest.raises(smskit.ConfigurationError, match="already exists"):
        Journal(text, mode="create")


def test_the_runner_runs_at_most_n_at_once_and_nothing_after_stop() -> None:
    """With concurrency 2 no more than 2 workers overlap; once stop is set, none starts."""
    running = 0
    peak = 0
    started: list[int] = []
    stop = threading.Event()

    async def worker(item: int) -> None:
        nonlocal running, peak
        started.append(item)
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.001)
        running -= 1
        if item == 5:
            stop.set()

    asyncio.run(
        run_chunks(
            range(20), worker, concurrency=2, stop=stop, progress=False, total=20, unit="x",
            size=lambda _: 1,
        )
    )  # fmt: skip
    assert peak == 2
    assert 5 in started and len(started) <= 7  # item 5's partner may already be running


@pytest.mark.parametrize("taken_by", ["process", "work's thread"])
def test_an_interrupt_in_a_notebook_lets_requests_in_flight_finish(
    ctrl_c: None, taken_by: str
) -> None:
    """Inside a running loop (a notebook), "interrupt kernel" raises KeyboardInterrupt in the
    main thread: the work is told to stop, is waited for, then the interrupt propagates; also
    when the kernel hands the SIGINT to the work's own thread (an untimed wait slept through
    that one: the work ran its 5,000 steps unstopped, seen at load 7 in the suite)."""
    import os
    import signal

    seen: list[bool] = []

    async def work(stop: threading.Event) -> None:
        if taken_by == "process":
            os.kill(os.getpid(), signal.SIGINT)  # what "interrupt kernel" does
        else:
            signal.pthread_kill(threading.get_ident(), signal.SIGINT)  # this thread, not main
        for _ in range(5000):  # requests in flight would be finishing here
            if stop.is_set():
                break
            await asyncio.sleep(0.001)
        seen.append(stop.is_set())

    async def cell() -> None:
        run_blocking(work)

    loop = asyncio.new_event_loop()  # run_until_complete: no SIGINT handler of asyncio.run
    try:
        with pytest.raises(KeyboardInterrupt):
            loop.run_until_complete(cell())
    finally:
        loop.close()
    assert seen == [True]


def test_run_blocking_inside_and_outside_an_event_loop() -> None:
    """The same call works from plain code and from inside a running loop (a notebook)."""

    async def work(stop: threading.Event) -> str:
        await asyncio.sleep(0)
        return threading.current_thread().name

    outside = run_blocking(work)

    async def cell() -> str:
        return run_blocking(work)

    inside = asyncio.run(cell())
    assert outside == threading.current_thread().name
    assert inside.startswith("smskit-bulk")


# Plan column values: shared objects (a price repeated, as a plan holds them) and distinct ones.
_COLUMN_VALUES = st.lists(
    st.one_of(
        st.none(),
        st.integers(-(2**40), 2**40),
        st.floats(allow_nan=False),
        st.sampled_from([0.0, -0.0, 1, 1.0, 0.065, True]),
        st.text(max_size=5),
    ),
    max_size=8,
)


@settings(max_examples=60, deadline=None)
@given(_COLUMN_VALUES, st.integers(0, 3000), st.randoms(use_true_random=False))
def test_a_plan_column_reads_back_as_json_dumps_spells_it(
    kinds: list[Any], size: int, rnd: random.Random
) -> None:
    """column_json, spelling a column of few distinct objects once each, reads back to what
    json.dumps of the column reads back to: same values, same types, -0.0 kept."""
    column = [rnd.choice(kinds) for _ in range(size)] if kinds else []
    spelt = json.loads(column_json(column))
    plain = json.loads(json.dumps(column, ensure_ascii=False))
    assert [(type(v), repr(v)) for v in spelt] == [(type(v), repr(v)) for v in plain]


def test_the_plan_prices_are_shared_objects_and_keep_every_value() -> None:
    """A plan's predicted prices: one float object per distinct price (not one a recipient),
    None where not priced, -0.0 apart from 0.0."""
    costs = np.array([0.065, np.nan, -0.0, 0.0, 0.13] * 2000)
    prices = _prices(costs)
    assert [repr(p) for p in prices[:5]] == ["0.065", "None", "-0.0", "0.0", "0.13"]
    assert [repr(p) for p in prices] == [repr(p) for p in prices[:5]] * 2000
    assert len({id(p) for p in prices}) == 5
