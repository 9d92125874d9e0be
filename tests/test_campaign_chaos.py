"""Exactly-once under faults and crashes, judged by the sandbox's own record.

Chaos: 20,000 recipients in 40 chunks while the sandbox fails 10 % of requests with a 500,
drops the connection of 5 % after committing the send, and adds random latency.
Crash: a campaign in another process is killed with SIGKILL midway; resume finishes it.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import smskit
from smskit.campaigns.campaign import Campaign
from smskit.client.clients import Backoff
from smskit.sandbox import Sandbox

TEXT = "Promo -20% ce week-end. STOP au 36173"  # 1 GSM-7 segment
# Unit prices (EUR per segment, sms_premium) from docs/sandbox.md.
PRICES = {"FR": 0.065, "ES": 0.072, "BE": 0.079}


def recipients_20k() -> list[str]:
    """20,000 distinct valid mobiles: 10,000 French, 5,000 Spanish, 5,000 Belgian."""
    french = [f"+3361{i:07d}" for i in range(10_000)]
    spanish = [f"+34612{i:06d}" for i in range(5_000)]
    belgian = [f"+3247{i:07d}" for i in range(5_000)]
    return french + spanish + belgian


def test_chaos_20000_recipients_each_accepted_exactly_once(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """With 500s, dropped connections after commit and latency, the sandbox ends with every
    recipient exactly once: 0 lost, 0 duplicated; costs and balance agree."""
    numbers = recipients_20k()
    expected_cost = 10_000 * PRICES["FR"] + 5_000 * PRICES["ES"] + 5_000 * PRICES["BE"]
    fresh_sandbox.set_balance(5_000.0)
    client = smskit.Client(
        sandbox=fresh_sandbox, max_retries=10, backoff=Backoff(base=0.01, cap=0.05)
    )
    campaign = Campaign(client, numbers, text=TEXT, sender="Shop", name="chaos")
    assert campaign.preflight().to_send == 20_000
    # Seed 5: the first 40 draws hold 4 errors and 3 drops, and every run makes >= 40 requests.
    fresh_sandbox.inject_faults(error_rate=0.10, drop_rate=0.05, latency=(0.0, 0.02), seed=5)
    result = campaign.send(
        chunk_size=500, concurrency=4, progress=False, journal=tmp_path / "chaos.sqlite"
    )
    counts = fresh_sandbox.faults()["counts"]
    fresh_sandbox.clear_faults()
    assert counts["errors"] >= 4
    assert counts["drops"] >= 3

    sent = fresh_sandbox.sent()
    per_number = sent["phone_number"].value_counts()
    assert set(per_number.index) == set(numbers)  # 0 lost
    assert per_number.max() == 1  # 0 duplicated
    assert len(sent) == 20_000

    chunks = result.chunks()
    assert len(chunks) == 40
    states = chunks["state"].astype(str)
    assert set(states) <= {"sent", "already_accepted"}
    # A drop commits the send, so its retry is refused as a duplicate: already accepted.
    assert (states == "already_accepted").sum() >= 1
    sizes = sent.groupby("request_id").size()
    assert sizes.to_dict() == dict(zip(chunks["request_id"], chunks["recipients"], strict=True))
    assert result.complete
    summary = result.summary()
    assert summary.loc[0, "sent"] + summary.loc[0, "already_accepted"] == 20_000
    assert sent["cost"].sum() == pytest.approx(expected_cost)
    assert summary.loc[0, "cost"] == pytest.approx(expected_cost)
    assert fresh_sandbox.balance() == pytest.approx(5_000.0 - expected_cost)


CHILD = textwrap.dedent(
    """
    import sys
    import smskit
    from smskit.client.clients import Backoff

    client = smskit.Client(max_retries=5, backoff=Backoff(base=0.01, cap=0.05))
    numbers = [f"+3362{i:07d}" for i in range(3000)]
    campaign = smskit.Campaign(client, numbers, text=sys.argv[2], sender="Shop", name="crash")
    campaign.send(journal=sys.argv[1], chunk_size=100, concurrency=2, progress=False)
    print("finished", flush=True)
    """
)


def chunks_done(path: Path) -> int | None:
    """Chunks the journal records as sent, or None while the child has not created it."""
    try:
        with sqlite3.connect(path) as db:
            return db.execute(
                "SELECT COUNT(*) FROM chunks WHERE state IN ('sent', 'already_accepted')"
            ).fetchone()[0]
    except sqlite3.OperationalError:
        return None


def test_crash_midway_then_resume_sends_each_recipient_exactly_once(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A campaign process is SIGKILLed after some chunks went out; resume (here, in another
    process with no DataFrame) finishes it: every recipient exactly once."""
    path = tmp_path / "crash.journal.sqlite"
    fresh_sandbox.inject_faults(latency=(0.1, 0.2))  # slow enough to be caught midway
    env = {
        **os.environ,
        "SMSKIT_API_LOGIN": fresh_sandbox.login,
        "SMSKIT_API_KEY": fresh_sandbox.api_key,
        "SMSKIT_BASE_URL": fresh_sandbox.url,
    }
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), TEXT],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    done = None
    try:
        while time.monotonic() < deadline:
            done = chunks_done(path)
            if done is not None and done >= 4:
                break
            time.sleep(0.02)
    finally:
        child.send_signal(signal.SIGKILL)
        out, _ = child.communicate(timeout=10)
    assert child.returncode == -signal.SIGKILL
    assert b"finished" not in out
    done_at_kill = chunks_done(path)
    assert done_at_kill is not None and 4 <= done_at_kill < 30
    before = fresh_sandbox.sent()
    assert 400 <= len(before) < 3000
    assert before["phone_number"].is_unique

    fresh_sandbox.clear_faults()
    with smskit.Client(sandbox=fresh_sandbox) as client:
        result = Campaign.resume(path, client, progress=False)
    sent = fresh_sandbox.sent()
    numbers = [f"+3362{i:07d}" for i in range(3000)]
    assert sorted(sent["phone_number"]) == numbers  # 0 lost, 0 duplicated
    assert result.complete
    assert result.summary().loc[0, "sent"] + result.summary().loc[0, "already_accepted"] == 3000
