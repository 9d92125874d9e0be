"""A resume leaves out of the chunks still ``pending`` the numbers on the account's opt-out
list now (excluded, issue ``opted_out``), and sends a chunk that may have left as journaled.
Real HTTP on the sandbox; its own record of sent messages (``sent()``) is the judge."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from distributed import Client as DaskClient

import smskit
from smskit.campaigns.campaign import Campaign
from smskit.campaigns.sending.journal import Journal, derive_request_id
from smskit.client.clients import Backoff
from smskit.dask.sending import resume as dask_resume
from smskit.dask.sending import send_kept
from smskit.sandbox import Sandbox

TEXT = "Promo -20% ce week-end. STOP au 36173"  # 1 SMS, 0.065 EUR in France
ALERT = "Votre code : 4821"
FAST = Backoff(base=0.0, cap=0.0)


def fr_mobiles(count: int) -> list[str]:
    """Distinct valid French mobile numbers, E.164."""
    return [f"+3361{i:07d}" for i in range(count)]


@pytest.fixture
def client(fresh_sandbox: Sandbox) -> Iterator[smskit.Client]:
    with smskit.Client(sandbox=fresh_sandbox, max_retries=2, backoff=FAST) as c:
        yield c


def sent_numbers(sandbox: Sandbox) -> list[str]:
    """Every number the sandbox accepted, once per acceptance, sorted."""
    return sorted(sandbox.sent()["phone_number"])


def stopped_after_first_chunk(client: smskit.Client, sandbox: Sandbox, path: Path) -> None:
    """A send of 30 numbers in chunks of 10 with credit for one chunk: chunk 0 sent, chunk 1
    refused for credit (the send stops; pending again, nothing of it sent), chunk 2 never
    tried."""
    sandbox.set_balance(1.0)
    first = Campaign(client, fr_mobiles(30), text=TEXT, sender="Shop").send(
        chunk_size=10, concurrency=1, progress=False, journal=path
    )
    assert first.stopped is not None and "insufficient credit" in first.stopped
    assert first.chunks()["state"].astype(str).tolist() == ["sent", "pending", "pending"]
    assert "InsufficientCreditError" in first.chunks().loc[1, "error"]
    sandbox.set_balance(100.0)


def test_a_number_that_opted_out_before_the_resume_is_never_sent(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Stopped after chunk 0, a number of pending chunk 2 opts out: the resume never sends it,
    sends the 29 others exactly once, re-keys chunk 2 and shows the number excluded."""
    numbers, path = fr_mobiles(30), tmp_path / "j.sqlite"
    stopped_after_first_chunk(client, fresh_sandbox, path)
    smskit.OptOuts(client).add([numbers[25]])
    result = Campaign.resume(path, client, progress=False)
    assert sent_numbers(fresh_sandbox) == sorted(set(numbers) - {numbers[25]})
    assert result.complete
    summary = result.summary().iloc[0]
    assert (summary["sent"], summary["excluded"]) == (29, 1)
    frame = result.to_frame().set_index("phone_number")
    assert frame.loc[numbers[25], "state"] == "excluded"
    assert str(frame.loc[numbers[25], "error"]).startswith("opted_out")
    chunk = result.chunks().loc[2]
    assert chunk["recipients"] == 9
    with Journal(path) as book:  # the id of the 9 sent, derived as a first plan would
        payload = book.payload(book.chunk(2))
        assert [c["phone_number"] for c in payload] == numbers[20:25] + numbers[26:30]
        assert chunk["request_id"] == derive_request_id(book.campaign_id, 2, payload.encoded)


def test_a_chunk_refused_for_credit_leaves_out_a_number_opted_out_before_the_resume(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Chunk 1 was refused for credit (code 122: nothing of it left): a number of it that
    opted out meanwhile is never sent at the resume; the chunk is re-keyed like a pending
    one and its other 9 numbers are sent once."""
    numbers, path = fr_mobiles(30), tmp_path / "j.sqlite"
    stopped_after_first_chunk(client, fresh_sandbox, path)
    with Journal(path) as book:
        refused_id = book.chunk(1).request_id
    smskit.OptOuts(client).add([numbers[12]])
    result = Campaign.resume(path, client, progress=False)
    assert sent_numbers(fresh_sandbox) == sorted(set(numbers) - {numbers[12]})
    frame = result.to_frame().set_index("phone_number")
    assert frame.loc[numbers[12], "state"] == "excluded"
    chunk = result.chunks().loc[1]
    assert chunk["recipients"] == 9 and chunk["request_id"] != refused_id
    assert result.complete


def test_a_pending_chunk_whose_every_number_opted_out_is_done_with_nothing_sent(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Every number of pending chunk 2 opted out: no request for it, the chunk is done (not
    failed), the campaign complete, its 10 recipients excluded and nothing charged for them."""
    numbers, path = fr_mobiles(30), tmp_path / "j.sqlite"
    stopped_after_first_chunk(client, fresh_sandbox, path)
    smskit.OptOuts(client).add(numbers[20:])
    result = Campaign.resume(path, client, progress=False)
    assert sent_numbers(fresh_sandbox) == numbers[:20]
    assert fresh_sandbox.balance() == pytest.approx(100.0 - 10 * 0.065)
    chunks = result.chunks()
    assert chunks["state"].astype(str).tolist() == ["sent", "sent", "sent"]
    assert (chunks.loc[2, "recipients"], chunks.loc[2, "cost"]) == (0, 0.0)
    assert pd.isna(chunks.loc[2, "request_id"]) and chunks.loc[2, "attempts"] == 0
    summary = result.summary().iloc[0]
    assert (summary["sent"], summary["excluded"], summary["failed"]) == (20, 10, 0)
    assert bool(summary["complete"])


def test_a_chunk_left_in_flight_is_sent_as_journaled_even_with_a_listed_number(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Chunk 0 was in flight when the process died (it may have been accepted): its listed
    number is sent with the chunk as journaled (exactly-once wins); the listed number of
    pending chunk 1 is not."""
    numbers, path = fr_mobiles(20), tmp_path / "j.sqlite"
    campaign = Campaign(client, numbers, text=TEXT, sender="Shop")
    book = Journal(path, mode="any", lease=0)
    book = campaign._adopt(book, campaign._plan(10), 10)
    journaled, _ = book.mark_in_flight(book.chunk(0))
    book.close()  # ... and the process died before the answer
    smskit.OptOuts(client).add([numbers[3], numbers[13]])
    result = Campaign.resume(path, client, progress=False)
    assert sent_numbers(fresh_sandbox) == sorted(set(numbers) - {numbers[13]})
    assert result.chunks().loc[0, "request_id"] == journaled
    assert result.summary().iloc[0]["excluded"] == 1


def test_a_transactional_campaign_including_opted_out_numbers_keeps_them_at_resume(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Journaled with include_opted_out=True (purpose alert): a number listed before the
    resume is still sent, nothing excluded; the option is read from the journal."""
    numbers, path = fr_mobiles(20), tmp_path / "j.sqlite"
    campaign = Campaign(
        client, numbers, text=ALERT, sender="Shop", purpose="alert", include_opted_out=True
    )
    campaign._adopt(Journal(path, mode="any", lease=0), campaign._plan(10), 10).close()
    with Journal(path) as book:
        assert book.meta()["include_opted_out"] is True
    smskit.OptOuts(client).add([numbers[15]])
    result = Campaign.resume(path, client, progress=False)
    assert sent_numbers(fresh_sandbox) == numbers
    assert result.summary().iloc[0]["excluded"] == 0


def test_a_dask_campaign_resume_leaves_out_a_number_that_opted_out(
    dask_cluster: DaskClient, client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A streamed campaign stopped by credit after its first chunk; a number of a chunk not
    yet journaled opts out: the Dask resume never sends it, sends the others once, and both
    the summary and the per-recipient frame show it excluded opted_out."""
    import dask.dataframe as dd

    count = 1200
    frame = pd.DataFrame(
        {
            "row": range(count),
            "phone_number": pd.array([f"+3366{i:07d}" for i in range(count)], dtype="string"),
            "segments": 1,
        }
    )
    kept = dd.from_pandas(frame, npartitions=2)  # chunks of 500, 100, 500, 100
    header = {"name": "streamed", "text": TEXT, "sender": "Shop", "options": {}}
    path = tmp_path / "j.sqlite"
    fresh_sandbox.set_balance(35.0)  # 500 x 0.065 = 32.50: the second chunk is refused
    first = send_kept(
        client, kept, None, header, journal=path, recipients=count, default_region="FR",
        source="test", progress=False, concurrency=1,
    )  # fmt: skip
    assert first.stopped is not None and len(fresh_sandbox.sent()) == 500
    listed = "+33660000700"  # row 700: the partition not read yet
    smskit.OptOuts(client).add([listed])
    fresh_sandbox.set_balance(1000.0)
    result = dask_resume(path, client, progress=False)
    sent = fresh_sandbox.sent()
    assert sorted(sent["phone_number"]) == sorted(set(frame["phone_number"]) - {listed})
    assert result.complete
    summary = result.summary().iloc[0]
    assert (summary["sent"], summary["excluded"]) == (count - 1, 1)
    rows = result.to_frame().compute().set_index("phone_number")
    assert len(rows) == count
    assert rows.loc[listed, "state"] == "excluded"
    assert str(rows.loc[listed, "error"]).startswith("opted_out")
    assert (rows["state"] == "sent").sum() == count - 1


def test_a_journal_that_does_not_record_the_option_leaves_listed_numbers_out(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A journal written before include_opted_out was recorded (no meta key), even of an
    alert, reads as False: the number listed before its resume is not sent."""
    numbers, path = fr_mobiles(20), tmp_path / "j.sqlite"
    campaign = Campaign(
        client, numbers, text=ALERT, sender="Shop", purpose="alert", include_opted_out=True
    )
    campaign._adopt(Journal(path, mode="any", lease=0), campaign._plan(10), 10).close()
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM meta WHERE key = 'include_opted_out'")
    smskit.OptOuts(client).add([numbers[15]])
    result = Campaign.resume(path, client, progress=False)
    assert sent_numbers(fresh_sandbox) == sorted(set(numbers) - {numbers[15]})
    assert result.summary().iloc[0]["excluded"] == 1


def test_a_runner_whose_lease_was_taken_over_leaves_a_pending_chunk_unchanged(
    client: smskit.Client, tmp_path: Path
) -> None:
    """withhold under a lease another runner took over raises CampaignBusy and writes
    nothing: the chunk keeps its recipients, nobody is recorded excluded."""
    numbers, path = fr_mobiles(10), tmp_path / "j.sqlite"
    campaign = Campaign(client, numbers, text=TEXT, sender="Shop")
    book = campaign._adopt(Journal(path, mode="any", lease=0), campaign._plan(10), 10)
    try:
        with sqlite3.connect(path) as db:
            db.execute("UPDATE lease SET token = 'thief', host = 'elsewhere', pid = 4242")
        with pytest.raises(smskit.CampaignBusy):
            book.withhold(book.chunk(0), [3], "opted_out", "test")
        assert tuple(book.chunk(0).positions) == tuple(range(10))
        assert book.excluded() == []
    finally:
        book.close()
