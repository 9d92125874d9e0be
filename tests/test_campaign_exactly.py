"""Exactly-once and counted exactly across SIGKILLs; one sender per campaign, with real
processes over real HTTP, judged by the sandbox's own record.

Every child process is a real ``python`` running smskit against the sandbox of the test;
the journal is the only thing the processes share.
"""

from __future__ import annotations

import asyncio
import csv
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import IO, Any

import httpx
import pytest

import smskit
from smskit.campaigns.campaign import Campaign
from smskit.campaigns.sending import lease as lease_module
from smskit.campaigns.sending.journal import Journal
from smskit.client.clients import Backoff
from smskit.sandbox import Sandbox

# 1 GSM-7 segment with a short first name, 2 with a long one: SMS count != recipients.
TEXT = (
    "Bonjour {first_name}, -20% ce week-end sur tout le magasin et la livraison offerte des "
    "30 euros, profitez-en vite, merci! STOP au 36173"
)
LONG_NAME = "Marie-Charlotte-Eugenie-Alexandrine-Beatrice"

SEND = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    import smskit

    client = smskit.Client(max_retries=10, backoff=smskit.Backoff(base=0.01, cap=0.05))
    campaign = smskit.Campaign(client, Path(sys.argv[2]), text=sys.argv[3], sender="Shop",
                               name="exact")
    campaign.send(journal=sys.argv[1], chunk_size=100, concurrency=2, progress=False)
    print("finished", flush=True)
    """
)
# Resume; with "probe", first try without waiting (and say who holds it), then wait.
RESUME = textwrap.dedent(
    """
    import sys
    import smskit

    client = smskit.Client(max_retries=10, backoff=smskit.Backoff(base=0.01, cap=0.05))
    if sys.argv[2] == "probe":
        try:
            smskit.Campaign.resume(sys.argv[1], client, progress=False)
        except smskit.CampaignBusy as busy:
            print("busy", busy.owner["pid"], flush=True)
    result = smskit.Campaign.resume(sys.argv[1], client, progress=False, wait=120)
    print("finished", result.complete, flush=True)
    """
)


def write_recipients(path: Path) -> list[str]:
    """3,000 recipients in FR, ES and BE (different prices), every third with a long name
    (2 segments); returns the numbers."""
    numbers = (
        [f"+3366{i:07d}" for i in range(1500)]
        + [f"+34622{i:06d}" for i in range(750)]
        + [f"+3248{i:07d}" for i in range(750)]
    )
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["phone_number", "first_name"])
        for i, number in enumerate(numbers):
            writer.writerow([number, LONG_NAME if i % 3 == 0 else "Ann"])
    return numbers


def environment(sandbox: Sandbox) -> dict[str, str]:
    """The SMSKIT_* settings that point a child's smskit.Client at ``sandbox``."""
    return {
        **os.environ,
        "SMSKIT_API_LOGIN": sandbox.login,
        "SMSKIT_API_KEY": sandbox.api_key,
        "SMSKIT_BASE_URL": sandbox.url,
    }


def spawn(script: str, *args: str, sandbox: Sandbox, cwd: Path) -> subprocess.Popen[bytes]:
    """A child python running ``script`` with ``args`` against ``sandbox``."""
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        env=environment(sandbox),
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def chunks_done(path: Path) -> int:
    """Chunks the journal records as accepted (0 while the child has not written it)."""
    try:
        with sqlite3.connect(path) as db:
            return int(
                db.execute(
                    "SELECT COUNT(*) FROM chunks WHERE state IN ('sent', 'already_accepted')"
                ).fetchone()[0]
            )
    except sqlite3.OperationalError:
        return 0


def kill_after(child: subprocess.Popen[bytes], path: Path, done: int) -> int:
    """SIGKILL ``child`` once the journal shows ``done`` accepted chunks; returns how many
    it shows after the kill."""
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and child.poll() is None:
            if chunks_done(path) >= done:
                break
            time.sleep(0.005)
    finally:
        child.send_signal(signal.SIGKILL)
        child.communicate(timeout=30)
    assert child.returncode == -signal.SIGKILL, "the child must die mid-campaign"
    return chunks_done(path)


def lease_log(path: Path) -> list[tuple[int, str]]:
    """(log id, detail) of every lease entry of the journal."""
    with sqlite3.connect(path) as db:
        return db.execute("SELECT id, detail FROM log WHERE state = 'lease' ORDER BY id").fetchall()


def test_three_kills_and_resumes_bill_exactly_what_the_gateway_recorded(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A campaign SIGKILLed three times (send, then two resumes, each in its own process)
    under 500s, drops after commit and latency, then resumed here: every recipient exactly
    once, and summary() SMS and cost equal the sandbox's record, per chunk and in total."""
    numbers = write_recipients(tmp_path / "people.csv")
    path = tmp_path / "exact.journal.sqlite"
    # Seed 4: the first 30 draws (there are at least 30 requests) hold 3 errors and 6 drops.
    fresh_sandbox.inject_faults(error_rate=0.1, drop_rate=0.1, latency=(0.05, 0.1), seed=4)
    child = spawn(SEND, str(path), "people.csv", TEXT, sandbox=fresh_sandbox, cwd=tmp_path)
    done = kill_after(child, path, 3)
    for _ in range(2):
        child = spawn(RESUME, str(path), "-", sandbox=fresh_sandbox, cwd=tmp_path)
        done = kill_after(child, path, done + 3)
    assert 9 <= done < 30
    client = smskit.Client(
        sandbox=fresh_sandbox, max_retries=10, backoff=Backoff(base=0.01, cap=0.05)
    )
    with client:
        result = Campaign.resume(path, client, progress=False)
        for _ in range(3):  # a chunk may exhaust its retries under faults: resume again
            if result.complete:
                break
            result = Campaign.resume(path, client, progress=False)
    counts = fresh_sandbox.faults()["counts"]
    fresh_sandbox.clear_faults()
    assert counts["errors"] >= 3 and counts["drops"] >= 6

    sent = fresh_sandbox.sent()
    assert sorted(sent["phone_number"]) == sorted(numbers)  # 0 lost, 0 duplicated
    assert result.complete
    chunks = result.chunks()
    assert set(chunks["state"].astype(str)) <= {"sent", "already_accepted"}
    accepted = chunks["state"] == "already_accepted"
    assert accepted.sum() >= 1  # duplicates refused, recorded as accepted
    # Their figures come from a simulation (the refusal carries none); the others as billed.
    assert chunks["cost_estimated"].tolist() == accepted.tolist()
    billed = sent.groupby("request_id").agg(sms=("segments", "sum"), cost=("cost", "sum"))
    recorded = chunks.set_index("request_id")
    assert sorted(billed.index) == sorted(recorded.index)
    for request_id, row in billed.iterrows():
        assert recorded.loc[request_id, "sms"] == row["sms"]
        assert recorded.loc[request_id, "cost"] == pytest.approx(row["cost"], abs=1e-9)
    summary = result.summary().iloc[0]
    gateway_cost = float(sent["cost"].sum())
    assert summary["sent"] + summary["already_accepted"] == 3000
    assert summary["sms"] == sent["segments"].sum() == 1000 * 2 + 2000
    assert round(summary["cost"], 2) == round(gateway_cost, 2)
    assert summary["cost"] == pytest.approx(gateway_cost, abs=1e-6)
    assert 1000.0 - fresh_sandbox.balance() == pytest.approx(gateway_cost, abs=1e-6)
    # Each resume took the lease over from the killed process at once.
    takeovers = [d for _, d in lease_log(path) if "its process has ended" in d]
    assert len(takeovers) == 3


def readline(stream: IO[bytes] | None) -> str:
    """The next line a child printed."""
    assert stream is not None
    return stream.readline().decode().strip()


def test_two_processes_one_sends_the_other_is_refused_then_waits(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """While one process sends a campaign, a second process (and this one) is refused with
    CampaignBusy naming the sender's pid; asked to wait, it gets the lease once the sender
    is done and has nothing left to send. Each recipient once."""
    numbers = write_recipients(tmp_path / "people.csv")
    path = tmp_path / "exact.journal.sqlite"
    fresh_sandbox.inject_faults(latency=(0.3, 0.3))  # the sender stays busy meanwhile
    sender = spawn(SEND, str(path), "people.csv", TEXT, sandbox=fresh_sandbox, cwd=tmp_path)
    try:
        while chunks_done(path) < 1:
            assert sender.poll() is None, sender.communicate()
            time.sleep(0.01)
        # Its chunks left, two at a time, now take ~15 s, until the faults are cleared below:
        # a loaded machine may take seconds to start the other process (at load 13, the
        # sender's ~4 s left at 0.3 s a request ran out first).
        fresh_sandbox.inject_faults(latency=(1.0, 1.0))
        other = spawn(RESUME, str(path), "probe", sandbox=fresh_sandbox, cwd=tmp_path)
        assert readline(other.stdout) == f"busy {sender.pid}"
        client = smskit.Client(sandbox=fresh_sandbox)
        with client, pytest.raises(smskit.CampaignBusy, match=f"pid {sender.pid}") as busy:
            Campaign.resume(path, client, progress=False)
        assert busy.value.owner["pid"] == sender.pid
        fresh_sandbox.clear_faults()
        out, err = sender.communicate(timeout=120)
        assert sender.returncode == 0, err.decode()
        assert out.decode().strip() == "finished"
        assert readline(other.stdout) == "finished True"
        assert other.wait(timeout=60) == 0
    finally:
        for process in (sender, locals().get("other")):
            if isinstance(process, subprocess.Popen) and process.poll() is None:
                process.kill()
                process.communicate()
    assert sorted(fresh_sandbox.sent()["phone_number"]) == sorted(numbers)
    entries = lease_log(path)
    owners = [detail.split(" on ")[0] for _, detail in entries]
    assert owners == [
        f"taken by pid {sender.pid}",
        f"released by pid {sender.pid}",
        f"taken by pid {other.pid}",
        f"released by pid {other.pid}",
    ]
    with sqlite3.connect(path) as db:
        last_send = db.execute("SELECT MAX(id) FROM log WHERE state = 'in_flight'").fetchone()[0]
    assert last_send < entries[2][0]  # the waiting process sent nothing


@pytest.mark.parametrize("shape", ["spec", "legacy"])
def test_a_re_run_is_recorded_as_accepted_and_costed_by_simulation(
    fresh_sandbox: Sandbox, tmp_path: Path, shape: str
) -> None:
    """A campaign re-run without its journal repeats its request_ids; the gateway refuses
    them as duplicates (the spec's errors.request_id, or the vendor's older code 120): every
    chunk is already_accepted, SMS and cost from a simulation of the same payload (equal to
    the first run's, flagged cost_estimated); nothing is sent or charged again."""
    numbers = [f"+3367{i:07d}" for i in range(250)]
    text = "Promo -20% ce week-end. STOP au 36173"

    async def run(journal: Path) -> Any:
        async with smskit.AsyncClient(sandbox=fresh_sandbox) as client:
            campaign = Campaign(client, numbers, text=text, sender="Shop", name="again")
            return await campaign.asend(chunk_size=100, progress=False, journal=journal)

    first = asyncio.run(run(tmp_path / "a.sqlite"))
    balance = fresh_sandbox.balance()
    fresh_sandbox.set_duplicate_answer(shape)  # type: ignore[arg-type]
    again = asyncio.run(run(tmp_path / "b.sqlite"))
    chunks = again.chunks()
    assert chunks["state"].astype(str).tolist() == ["already_accepted"] * 3
    assert chunks["cost_estimated"].all() and chunks["ticket"].isna().all()
    assert chunks["sms"].tolist() == first.chunks()["sms"].tolist()
    assert chunks["cost"].tolist() == pytest.approx(first.chunks()["cost"].tolist())
    assert again.summary().loc[0, "cost"] == pytest.approx(fresh_sandbox.sent()["cost"].sum())
    assert fresh_sandbox.balance() == pytest.approx(balance)
    assert len(fresh_sandbox.sent()) == 250


class LeaseThief(httpx.AsyncBaseTransport):
    """Real HTTP; as the first send reaches the wire, another runner takes the lease over
    (as it would if this one had looked dead)."""

    def __init__(self, journal: Path) -> None:
        self.journal = journal
        self.inner = httpx.AsyncHTTPTransport()
        self.sends = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sends += 1
        if self.sends == 1:
            with sqlite3.connect(self.journal) as db:
                db.execute(
                    "UPDATE lease SET token = 'thief', host = 'elsewhere', pid = 4242, "
                    "heartbeat = ?",
                    (time.time(),),
                )
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def test_a_campaign_whose_lease_is_taken_over_stops_before_its_next_chunk(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """The request in flight when the lease is lost finishes and is recorded; no other chunk
    is sent; the result says who took over; the new owner keeps the lease."""
    path = tmp_path / "j.sqlite"
    thief = LeaseThief(path)

    async def main() -> Any:
        async with smskit.AsyncClient(sandbox=fresh_sandbox, transport=thief) as client:
            campaign = Campaign(
                client, [f"+3368{i:07d}" for i in range(50)], text=TEXT, sender="Shop"
            )
            return await campaign.asend(chunk_size=10, concurrency=1, progress=False, journal=path)

    result = asyncio.run(main())
    assert thief.sends == 1
    assert result.chunks()["state"].astype(str).tolist() == ["sent"] + ["pending"] * 4
    assert "pid 4242 on 'elsewhere'" in (result.stopped or "")
    assert len(fresh_sandbox.sent()) == 10
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT host, pid FROM lease").fetchone() == ("elsewhere", 4242)


def test_async_resume_is_refused_waits_in_the_loop_and_can_be_cancelled(
    fresh_sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Campaign.aresume raises CampaignBusy while the journal is held; with wait= it waits
    in the event loop and resumes once the holder is done; a cancelled wait leaves no lease
    behind."""
    path = tmp_path / "j.sqlite"
    with smskit.Client(sandbox=fresh_sandbox) as client:
        Campaign(client, [f"+3361{i:07d}" for i in range(5)], text=TEXT, sender="Shop").send(
            progress=False, journal=path
        )
    refusals = 0
    take = lease_module._take

    def counted_take(*args: Any) -> Any:
        nonlocal refusals
        owner = take(*args)
        refusals += owner is not None
        return owner

    monkeypatch.setattr(lease_module, "_take", counted_take)

    async def resume(wait: float) -> Any:
        async with smskit.AsyncClient(sandbox=fresh_sandbox) as client:
            return await Campaign.aresume(path, client, progress=False, wait=wait)

    async def main() -> Any:
        holder = Journal(path, lease=0)
        with pytest.raises(smskit.CampaignBusy, match=f"pid {os.getpid()}"):
            await resume(0)
        cancelled = asyncio.create_task(resume(120))
        while refusals < 2:
            await asyncio.sleep(0.01)
        cancelled.cancel()
        waiting = asyncio.create_task(resume(120))
        while refusals < 3:  # refused once: it is waiting, and the loop runs meanwhile
            await asyncio.sleep(0.01)
        holder.close()
        return await waiting, cancelled.cancelled()

    result, was_cancelled = asyncio.run(main())
    assert result.complete and was_cancelled
    with Journal(path, lease=0) as journal:  # nothing left holding it
        assert journal.holds_lease
