"""One sender per campaign: the journal's lease, without a gateway.

Two runners of one campaign are two ``Journal(path, lease=...)``: the second is refused with
``CampaignBusy`` naming the first, takes over at once when the first's process has ended
(the kernel freed its lock), and a runner whose lease was taken over sends nothing more.
The two-process cases over real HTTP are in ``test_campaign_exactly.py``.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import smskit
from smskit.campaigns.analysis.ledger import journal_files
from smskit.campaigns.sending import lease as lease_module
from smskit.campaigns.sending.journal import Journal

META = {"campaign_id": "c1", "name": "t", "text": "x STOP", "sender": "Shop", "options": {}}
PLAN = {"phone_number": ["+33611", "+33612"], "row": [0, 1], "segments": [1, 1]}


def new_journal(path: Path) -> None:
    """A two-chunk campaign journal at ``path``, no lease left behind."""
    with Journal(path, mode="create") as journal:
        journal.initialise(META, PLAN, [(0, 1), (1, 2)], [])


def plant_owner(path: Path, *, host: str, pid: int, heartbeat: float) -> None:
    """Write a lease row as another runner would have left it."""
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT OR REPLACE INTO lease VALUES (1, 'someone-else', ?, ?, ?, ?)",
            (host, pid, heartbeat, heartbeat),
        )


def lease_log(path: Path) -> list[str]:
    """The lease entries of the journal's log, oldest first."""
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT detail FROM log WHERE state = 'lease' ORDER BY id").fetchall()
    return [detail for (detail,) in rows]


def test_a_second_runner_is_refused_naming_the_owner(tmp_path: Path) -> None:
    """While one journal object holds the lease, another gets CampaignBusy with the owner's
    host and pid (in .owner and in the message); once released, the other takes it."""
    path = tmp_path / "j.sqlite"
    new_journal(path)
    first = Journal(path, lease=0)
    with pytest.raises(smskit.CampaignBusy) as busy:
        Journal(path, lease=0)
    assert busy.value.owner["pid"] == os.getpid()
    assert busy.value.owner["host"] == socket.gethostname()
    assert f"pid {os.getpid()}" in str(busy.value) and str(path) in str(busy.value)
    assert isinstance(busy.value, smskit.SmskitError)
    first.close()
    with Journal(path, lease=0) as second:
        assert second.holds_lease
        assert second.owner() is not None and second.owner()["pid"] == os.getpid()
    assert Journal(path).owner() is None  # released on close


def test_a_waiting_runner_takes_the_lease_once_the_owner_releases_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """lease=seconds waits: a runner refused while the lease is held gets it after release."""
    path = tmp_path / "j.sqlite"
    new_journal(path)
    holder = Journal(path, lease=0)
    refused = threading.Event()
    take = lease_module._take

    def watched_take(*args: Any) -> dict[str, Any] | None:
        owner = take(*args)
        if owner is not None:
            refused.set()
        return owner

    monkeypatch.setattr(lease_module, "_take", watched_take)
    got: list[Journal] = []
    waiter = threading.Thread(target=lambda: got.append(Journal(path, lease=120)))
    waiter.start()
    refused.wait()  # the waiter has found the lease held and is waiting
    holder.close()
    waiter.join()
    assert got and got[0].holds_lease
    got[0].close()
    assert [d.split(" on ")[0] for d in lease_log(path)] == [
        f"taken by pid {os.getpid()}",
        f"released by pid {os.getpid()}",
        f"taken by pid {os.getpid()}",
        f"released by pid {os.getpid()}",
    ]


def test_the_lease_of_an_ended_process_on_this_host_is_taken_over_at_once(
    tmp_path: Path,
) -> None:
    """Owner on this host whose process has ended (fresh heartbeat or not): taken over at
    once, and the log says from whom and why."""
    path = tmp_path / "j.sqlite"
    new_journal(path)
    dead_pid = subprocess.Popen([sys.executable, "-c", "pass"])
    dead_pid.wait()
    plant_owner(path, host=socket.gethostname(), pid=dead_pid.pid, heartbeat=time.time())
    with Journal(path, lease=0) as journal:
        assert journal.owner()["pid"] == os.getpid()  # type: ignore[index]
    assert f"over from pid {dead_pid.pid}" in lease_log(path)[0]
    assert "its process has ended" in lease_log(path)[0]


HOLD = """
import sys, time
from smskit.campaigns.sending.journal import Journal
journal = Journal(sys.argv[1], lease=0)
print("held", flush=True)
time.sleep(600)
"""


def test_a_runner_in_another_process_is_busy_until_it_is_killed(tmp_path: Path) -> None:
    """While another process holds the lease it is busy (named in the error); once that
    process is SIGKILLed the kernel has freed the lock: taken over at once, logged."""
    path = tmp_path / "j.sqlite"
    new_journal(path)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE, cwd=tmp_path
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        with pytest.raises(smskit.CampaignBusy, match=f"pid {holder.pid} ") as busy:
            Journal(path, lease=0)
        assert busy.value.owner["host"] == socket.gethostname()
        assert Path(f"{path}-lease").exists()
    finally:
        holder.kill()
        holder.communicate()
    with Journal(path, lease=0) as journal:
        assert journal.owner()["pid"] == os.getpid()  # type: ignore[index]
    assert f"over from pid {holder.pid}" in lease_log(path)[-2]
    assert "its process has ended" in lease_log(path)[-2]


def test_a_runner_whose_lease_was_taken_over_sends_nothing_more(tmp_path: Path) -> None:
    """If another runner took the lease over (this one looked dead), mark_in_flight refuses
    with CampaignBusy naming the new owner, and the chunk stays as it was."""
    path = tmp_path / "j.sqlite"
    new_journal(path)
    with Journal(path, lease=0) as journal:
        journal.mark_in_flight(journal.chunk(0))
        plant_owner(path, host="elsewhere", pid=77, heartbeat=time.time())
        with pytest.raises(smskit.CampaignBusy, match="pid 77"):
            journal.mark_in_flight(journal.chunk(1))
        assert journal.chunk(1).state == "pending"
    assert Journal(path).owner()["pid"] == 77  # type: ignore[index]  # not released by us


def test_sending_needs_the_lease(tmp_path: Path) -> None:
    """A journal opened for reading cannot put a chunk in flight."""
    path = tmp_path / "j.sqlite"
    new_journal(path)
    with Journal(path) as journal, pytest.raises(smskit.ConfigurationError, match="lease"):
        journal.mark_in_flight(journal.chunk(0))


def test_the_lock_file_is_private_while_held_and_gone_once_released(tmp_path: Path) -> None:
    """The lease's lock file beside the journal is 0600 while held and removed on release;
    one a killed runner left is no journal to the ledger."""
    path = tmp_path / "j.sqlite"
    new_journal(path)
    lock = Path(f"{path}-lease")
    with Journal(path, lease=0):
        assert stat.S_IMODE(lock.stat().st_mode) == 0o600
    assert not lock.exists()
    lock.touch()  # what a SIGKILLed runner leaves
    assert journal_files(tmp_path) == [path]


@pytest.mark.parametrize("wait", [-1, "10", True, float("nan")])
def test_wait_must_be_seconds(tmp_path: Path, wait: object) -> None:
    """lease= takes a number of seconds >= 0; anything else is a ValidationError."""
    with pytest.raises(smskit.ValidationError, match="wait"):
        Journal(tmp_path / "j.sqlite", mode="any", lease=wait)  # type: ignore[arg-type]


def test_journal_files_are_private(tmp_path: Path) -> None:
    """A new journal and its WAL and shared-memory files are created 0600."""
    path = tmp_path / "j.sqlite"
    with Journal(path, mode="create", lease=0) as journal:
        journal.initialise(META, PLAN, [(0, 2)], [])
        journal.mark_in_flight(journal.chunk(0))
        files = [path, Path(f"{path}-wal"), Path(f"{path}-shm")]
        modes = {f.name: stat.S_IMODE(f.stat().st_mode) for f in files}
    assert modes == {f.name: 0o600 for f in files}
