"""Streaming sends from Dask partitions into the journaled sender, on a 2-worker LocalCluster
against the sandbox over real HTTP: each recipient once, at most two partitions on the
client, a resume after an interrupt sends exactly the remainder."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from distributed import Client as DaskClient

import smskit
from smskit.campaigns.analysis.results import EXCLUDED_COLUMNS
from smskit.campaigns.sending.journal import Journal
from smskit.dask import Campaign as DaskCampaign
from smskit.dask.generate import contact_partition
from smskit.dask.sending import parts_dir, resume, send_kept
from smskit.dask.stream import Materialised
from smskit.errors import ConfigurationError
from smskit.sandbox import Sandbox

TEXT = "Bonjour {first_name} STOP au 36173"
HEADER = {"name": "streamed", "text": TEXT, "sender": "Shop", "options": {}}
FR_PREMIUM = 0.065  # EUR per segment (docs/sandbox.md)


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
    alone: each recipient accepted exactly once, the chunks in flight refused as duplicates."""
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
    ours = got.to_frame().compute().reset_index(drop=True)
    theirs = want.to_frame()
    shown = ["row", "phone_number", "state", "segments", "error"]
    pd.testing.assert_frame_equal(ours[shown], theirs[shown])


def french_base(rows: int, seed: int) -> pd.DataFrame:
    """French numbers only (one price per segment), some unreadable, some repeated from
    earlier rows, names that turn a text into UCS-2 and two segments."""
    rng = np.random.default_rng(seed)
    numbers = [f"+3367{n:07d}" for n in rng.choice(10**7, rows, replace=False)]
    for at in rng.choice(np.arange(rows // 4, rows), rows // 20, replace=False):
        numbers[at] = numbers[int(rng.integers(0, rows // 4))] if at % 2 else "hello"
    names = rng.choice(np.array(["Ann", "Zoë", "Bob", None], dtype=object), rows)
    return pd.DataFrame({"phone_number": numbers, "first_name": names})


LONG = "Bonjour {first_name}, -20% sur toute la boutique ce week-end, venez vite. STOP au 36173"
RESULT = ["row", "phone_number", "state", "segments", "cost", "error"]


@pytest.mark.parametrize("seed", [0, 1])
def test_streamed_result_equals_the_pandas_result(
    dask_cluster: DaskClient, client: smskit.Client, tmp_path: Path, seed: int
) -> None:
    """The same base sent both ways: per recipient the same state, segments, cost (one price
    per segment: chunking does not change a recipient's share) and error, the recipients the
    gateway refused (North Korean mobiles an offline preflight let through) too; the same
    totals."""
    base = french_base(1800, seed)
    base.loc[[5, 700, 1500], "phone_number"] = [
        "+8501921234567",
        "+8501921234568",
        "+8501921234569",
    ]
    lazy = dd.from_pandas(base, npartitions=4)
    streamed = DaskCampaign(client, lazy, text=LONG, sender="Shop")
    report = streamed.preflight(offline=True)  # held: send() uses it, as pandas' send does
    got = streamed.send(journal=tmp_path / "dask.sqlite", progress=False, chunk_size=200)
    assert got.summary()["recipients"].iloc[0] == report.recipients
    with Sandbox(seed=0) as other, smskit.Client(sandbox=other) as second:
        plain = smskit.Campaign(second, base, text=LONG, sender="Shop")
        plain.preflight(offline=True)
        want = plain.send(journal=tmp_path / "pandas.sqlite", progress=False, chunk_size=200)
    ours = got.to_frame()
    assert dict(ours.dtypes) == dict(want.to_frame().dtypes)

    def same_words(frame: pd.DataFrame) -> pd.DataFrame:
        # the gateway names a refused recipient by its place in its request: chunks differ
        return frame.assign(error=frame["error"].str.replace(r"recipients\[\d+\]", "", regex=True))

    pd.testing.assert_frame_equal(
        same_words(ours.compute()[RESULT]),  # indexed as pandas indexes it, too
        same_words(want.to_frame()[RESULT]),
    )
    assert set(want.to_frame()["segments"].dropna()) == {1, 2}
    summary = ["recipients", "sent", "pending", "failed", "rejected", "excluded", "sms"]
    pd.testing.assert_frame_equal(got.summary()[summary], want.summary()[summary])
    assert got.summary()["cost"].iat[0] == pytest.approx(want.summary()["cost"].iat[0])
    assert got.summary()["rejected"].iat[0] == 3
    assert got.chunks()["recipients"].sum() == want.chunks()["recipients"].sum()
    assert got.complete and repr(got).startswith("StreamedResult('")
    not_sent = got.not_sent.compute().reset_index(drop=True)
    shown = ["row", "phone_number", "state"]
    pd.testing.assert_frame_equal(not_sent[shown], want.not_sent[shown])


def test_a_stopped_send_reads_the_same_as_pandas_and_so_does_its_resume(
    dask_cluster: DaskClient, tmp_path: Path
) -> None:
    """Credit for 700 of 2,000, chunks that fall alike both ways: the same chunks sent,
    failed and pending (those the stream never reached too), per recipient and per chunk;
    after a top-up both resumes read the same again, complete."""
    base = french_base(2000, 2).assign(phone_number=[f"+3366{i:07d}" for i in range(2000)])
    results = []
    for streamed in (True, False):
        with Sandbox(seed=0) as box, smskit.Client(sandbox=box) as gateway:
            box.set_balance(FR_PREMIUM * 700)
            journal = tmp_path / f"{streamed}.sqlite"
            if streamed:
                lazy = dd.from_pandas(base, npartitions=4)
                campaign: Any = DaskCampaign(gateway, lazy, text=TEXT, sender="Shop")
            else:
                campaign = smskit.Campaign(gateway, base, text=TEXT, sender="Shop")
            first = campaign.send(journal=journal, chunk_size=250, concurrency=1, progress=False)
            box.set_balance(1000.0)
            if streamed:  # the pandas resume would send only the chunks the journal met
                with pytest.raises(ConfigurationError, match=r"smskit\.dask\.Campaign\.resume"):
                    smskit.Campaign.resume(journal, gateway, progress=False)
            again = campaign.resume(journal, gateway, progress=False)
            results.append((first, again))
    (first, again), (plain_first, plain_again) = results
    assert not first.complete and first.stopped == plain_first.stopped
    for ours, theirs in ((first, plain_first), (again, plain_again)):
        frame = ours.to_frame().compute().reset_index(drop=True)
        shown = [*RESULT, "chunk"]
        pd.testing.assert_frame_equal(frame[shown], theirs.to_frame()[shown])
        kept = ["chunk", "state", "recipients", "attempts", "kept", "sms", "cost", "error"]
        pd.testing.assert_frame_equal(ours.chunks()[kept], theirs.chunks()[kept])
        pd.testing.assert_frame_equal(
            ours.summary().drop(columns=["campaign", "journal"]),
            theirs.summary().drop(columns=["campaign", "journal"]),
        )
    assert first.summary()["pending"].iat[0] == 2000 - 500  # the chunk refused for credit too
    assert again.complete


def test_the_end_of_a_send_reads_no_recipient_back_on_the_client(
    dask_cluster: DaskClient,
    client: smskit.Client,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Send, result, summary, chunks, repr and counts: the journal's readers of every
    recipient (plan, chunks, exclusions) are never called, the client holds at most two
    partitions, and the result keeps one row per chunk; the recipients' rows are counted on
    the cluster."""
    read: list[tuple[str, int]] = []
    for name in ("plan", "chunks", "excluded"):
        method = getattr(Journal, name)

        def spy(
            self: Journal, *args: Any, _name: str = name, _method: Any = method, **kw: Any
        ) -> Any:
            found = _method(self, *args, **kw)
            read.append((_name, len(found)))
            return found

        monkeypatch.setattr(Journal, name, spy)
    base = french_base(3000, 3)
    counter = Materialised()
    kept = DaskCampaign(client, dd.from_pandas(base, npartitions=6), text=LONG, sender="Shop")
    report = kept.preflight()
    result = send_kept(
        client, report.kept(), report.frame.loc[~report.frame["send"], list(EXCLUDED_COLUMNS)],
        HEADER, journal=tmp_path / "j.sqlite", recipients=3000, default_region="FR",
        source="test", chunk_size=100, progress=False, counter=counter,
    )  # fmt: skip
    summary = result.summary()
    chunks = result.chunks()
    shown = repr(result) + result.to_html()
    assert read == []
    assert counter.peak <= 2 and counter.now == 0
    to_send = int(report.summary()["to_send"].iat[0])
    assert len(result.chunk_states) == len(chunks) < to_send / 50
    assert int(summary["sent"].iat[0]) == to_send and bool(summary["complete"].iat[0])
    assert int(summary["excluded"].iat[0]) == 3000 - to_send > 0
    assert len(result.to_frame()) == 3000  # counted by the workers
    assert f"sent={to_send}" in shown


def test_the_repeat_guard_is_the_dask_campaign_s_too(
    dask_cluster: DaskClient, client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """smskit.dask.Campaign(repeat_window=) refuses the same send within the window before
    any request (RepeatedSend), and sends it with again=True: one option, both campaigns."""
    from datetime import timedelta

    base = french_base(300, 3)

    def make() -> DaskCampaign:
        return DaskCampaign(client, dd.from_pandas(base, npartitions=3), text=LONG,
                            sender="Shop", repeat_window=timedelta(minutes=10))  # fmt: skip

    make().send(progress=False, journal=tmp_path / "a.sqlite")
    sent = len(fresh_sandbox.sent())
    second = make()
    assert second.earlier_send() is not None
    with pytest.raises(smskit.RepeatedSend):
        second.send(progress=False, journal=tmp_path / "b.sqlite")
    assert len(fresh_sandbox.sent()) == sent
    second.send(progress=False, journal=tmp_path / "b.sqlite", again=True)
    assert len(fresh_sandbox.sent()) == 2 * sent
