"""Streaming sends from Dask partitions into the journaled sender, on a 2-worker LocalCluster
against the sandbox over real HTTP: each recipient once, at most two partitions on the
client, a resume after an interrupt sends exactly the remainder."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dask.dataframe as dd
import pandas as pd
import pytest
from distributed import Client as DaskClient

import smskit
from smskit.dask import Campaign as DaskCampaign
from smskit.dask.generate import contact_partition
from smskit.dask.sending import parts_dir, resume, send_kept
from smskit.dask.stream import Materialised
from smskit.errors import ConfigurationError
from smskit.sandbox import Sandbox

TEXT = "Bonjour {first_name} STOP au 36173"
HEADER = {"name": "streamed", "text": TEXT, "sender": "Shop", "options": {}}
FR_PREMIUM = 0.065  # EUR per segment (docs/sandbox.md)


@pytest.fixture
def client(fresh_sandbox: Sandbox) -> Iterator[smskit.Client]:
    with smskit.Client(sandbox=fresh_sandbox) as c:
        yield c


def kept_frame(count: int, partitions: int, name: str = "Ann") -> dd.DataFrame:
    """Recipients as a Dask preflight keeps them: row, E.164 number, segments, field texts."""
    frame = pd.DataFrame(
        {
            "row": range(count),
            "phone_number": pd.array([f"+3366{i:07d}" for i in range(count)], dtype="string"),
            "segments": 1,
            "field:first_name": pd.array([f"{name}{i % 7}" for i in range(count)], dtype="string"),
        }
    )
    return dd.from_pandas(frame, npartitions=partitions)


def send(client: smskit.Client, kept: dd.DataFrame, journal: Path, **options: Any) -> Any:
    options.setdefault("progress", False)
    return send_kept(
        client, kept, None, HEADER, journal=journal, recipients=len(kept),
        default_region="FR", source="test", **options,
    )  # fmt: skip


class InterruptAfter:
    """Progress events that press Ctrl-C once ``chunks`` chunks are reported."""

    def __init__(self, chunks: int) -> None:
        self.left = chunks

    def start(self, total: int, initial: int, unit: str) -> None:
        """Nothing to show."""

    def advance(self, count: int, **postfix: Any) -> None:
        """Interrupt at the chosen chunk, as "interrupt kernel" would."""
        self.left -= 1
        if self.left == 0:
            os.kill(os.getpid(), signal.SIGINT)  # what Ctrl-C does

    def finish(self) -> None:
        """Nothing to close."""


def test_streamed_send_sends_every_recipient_once_holding_two_partitions(
    dask_cluster: DaskClient, client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """7 partitions, chunks of 500: every recipient sent once with its own text, the cost
    billed is the cost recorded, and the client never held more than two partitions."""
    kept = kept_frame(4100, 7)
    counter = Materialised()
    result = send(client, kept, tmp_path / "j.sqlite", counter=counter)
    sent = fresh_sandbox.sent()
    assert sorted(sent["phone_number"]) == [f"+3366{i:07d}" for i in range(4100)]
    texts = dict(zip(sent["phone_number"], sent["text"], strict=True))
    assert texts["+33660000009"] == "Bonjour Ann2 STOP au 36173"
    summary = result.summary().iloc[0]
    assert summary["sent"] == 4100 and bool(summary["complete"])
    assert summary["cost"] == pytest.approx(float(sent["cost"].sum()))
    assert float(sent["cost"].sum()) == pytest.approx(4100 * FR_PREMIUM)
    assert counter.read == 7 and counter.peak <= 2 and counter.now == 0
    assert max(len(c) for c in sent.groupby("request_id")["phone_number"]) <= 500


def test_resume_after_an_interrupt_sends_exactly_the_remainder(
    dask_cluster: DaskClient,
    client: smskit.Client,
    fresh_sandbox: Sandbox,
    tmp_path: Path,
    ctrl_c: None,
) -> None:
    """Ctrl-C after the third chunk, then a resume from the journal and its staged files
    alone: each recipient accepted exactly once, the chunks in flight replayed, not re-sent."""
    kept = kept_frame(3300, 4)
    journal = tmp_path / "j.sqlite"
    with pytest.raises(KeyboardInterrupt):
        send(client, kept, journal, progress=InterruptAfter(3), concurrency=2)
    before = len(fresh_sandbox.sent())
    assert 0 < before < 3300
    counter = Materialised()
    result = resume(journal, client, progress=False, counter=counter)
    sent = fresh_sandbox.sent()
    assert sorted(sent["phone_number"]) == [f"+3366{i:07d}" for i in range(3300)]
    assert result.complete
    assert counter.peak <= 2
    again = send(client, kept, journal)  # the source again: nothing is left to send
    assert again.complete and len(fresh_sandbox.sent()) == 3300


def test_resume_after_credit_ran_out_sends_the_remainder(
    dask_cluster: DaskClient, client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Credit for 2,100 of 5,200: the send stops saying so; after a top-up the resume sends
    the 3,100 others and nothing twice."""
    fresh_sandbox.set_balance(FR_PREMIUM * 2100)
    journal = tmp_path / "j.sqlite"
    first = send(client, kept_frame(5200, 4), journal)
    assert first.stopped is not None and "insufficient credit" in first.stopped
    assert len(fresh_sandbox.sent()) == 2100
    fresh_sandbox.set_balance(1000.0)
    result = resume(journal, client, progress=False)
    assert result.complete
    assert fresh_sandbox.sent()["phone_number"].is_unique
    assert len(fresh_sandbox.sent()) == 5200


def test_a_journal_of_another_campaign_is_refused(
    dask_cluster: DaskClient, client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Same journal, other recipients (one name changed): refused before anything is sent."""
    journal = tmp_path / "j.sqlite"
    send(client, kept_frame(600, 2), journal)
    with pytest.raises(ConfigurationError, match="holds another campaign"):
        send(client, kept_frame(600, 2, name="Bob"), journal)
    assert len(fresh_sandbox.sent()) == 600


def test_a_changed_staged_file_stops_the_resume(
    dask_cluster: DaskClient, client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A staged file edited after the campaign began is not what the campaign id covers: the
    resume refuses to send from it."""
    journal = tmp_path / "j.sqlite"
    fresh_sandbox.set_balance(FR_PREMIUM * 500)
    send(client, kept_frame(1000, 2), journal, concurrency=1)
    second = sorted((parts_dir(journal) / "kept").glob("*.parquet"))[1]
    part = pd.read_parquet(second)
    part.loc[part.index[0], "phone_number"] = "+33699999999"
    part.to_parquet(second, index=False)
    fresh_sandbox.set_balance(1000.0)
    with pytest.raises(ConfigurationError, match="not the file the journal staged"):
        resume(journal, client, progress=False)
    assert "+33699999999" not in set(fresh_sandbox.sent()["phone_number"])


def test_dask_campaign_sends_what_the_pandas_campaign_sends(
    dask_cluster: DaskClient, client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A generated base with repeats across partitions and unreadable numbers: the Dask
    campaign's send and the pandas campaign's (each on its own sandbox) deliver the same texts
    to the same numbers at the same cost, and their summaries agree."""
    part = contact_partition(3, 0, 2400)
    base = pd.concat([part, part.iloc[::40]], ignore_index=True)  # repeats land in later partitions
    text = "Bonjour {first_name}, -20% ce week-end. STOP au 36173"
    streamed = DaskCampaign(client, dd.from_pandas(base, npartitions=4), text=text, sender="Shop")
    got = streamed.send(journal=tmp_path / "dask.sqlite", progress=False)
    with Sandbox(seed=0) as other, smskit.Client(sandbox=other) as second:
        plain = smskit.Campaign(second, base, text=text, sender="Shop")
        want = plain.send(journal=tmp_path / "pandas.sqlite", progress=False)
        want_sent = other.sent()
    columns = ["phone_number", "text", "segments", "cost"]

    def delivered(frame: pd.DataFrame) -> pd.DataFrame:
        return frame[columns].sort_values("phone_number", ignore_index=True)

    pd.testing.assert_frame_equal(delivered(fresh_sandbox.sent()), delivered(want_sent))
    compared = ["recipients", "sent", "failed", "rejected", "excluded", "sms", "complete"]
    assert got.summary()[compared].equals(want.summary()[compared])
    assert int(got.summary()["excluded"].iloc[0]) >= 60  # the repeats and unreadable numbers
    ours = got.to_frame().sort_values("row", ignore_index=True)
    theirs = want.to_frame().sort_values("row", ignore_index=True)
    pd.testing.assert_frame_equal(
        ours[["row", "phone_number", "state", "error"]],
        theirs[["row", "phone_number", "state", "error"]],
    )
