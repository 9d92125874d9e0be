"""Campaign sending end to end against the sandbox: chunks, request ids, journal, resume,
failures, results and estimates. The sandbox's own record (``sent()``) is the judge."""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import re
import sqlite3
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
import pandas as pd
import pytest

import smskit
from smskit.campaigns.analysis.results import CampaignResult
from smskit.campaigns.campaign import Campaign
from smskit.campaigns.sending.journal import Journal, derive_request_id
from smskit.client.clients import Backoff
from smskit.sandbox import Sandbox

TEXT = "Promo -20% ce week-end. STOP au 36173"  # 37 GSM-7 characters: 1 SMS each
FR_PREMIUM = 0.065  # docs/sandbox.md price table, EUR per segment
BE_PREMIUM = 0.079
FR_LOW_COST = 0.045
FAST = Backoff(base=0.0, cap=0.0)


def _planned_journal(campaign: Campaign, path: Path, chunk_size: int) -> Journal:
    """The journal a send of ``campaign`` would open, initialised with its plan, unsent."""
    book = Journal(path, mode="any", lease=0)
    return campaign._adopt(book, campaign._plan(chunk_size), chunk_size)


def fr_mobiles(count: int, start: int = 0) -> list[str]:
    """Distinct valid French mobile numbers (+33 6 1x xx xx xx)."""
    return [f"+3361{i:07d}" for i in range(start, start + count)]


@pytest.fixture
def client(fresh_sandbox: Sandbox) -> Iterator[smskit.Client]:
    with smskit.Client(sandbox=fresh_sandbox, max_retries=2, backoff=FAST) as c:
        yield c


def journal_states(path: Path) -> list[str]:
    with sqlite3.connect(path) as db:
        return [row[0] for row in db.execute("SELECT state FROM chunks ORDER BY idx")]


def test_chunks_of_at_most_500_each_recipient_accepted_once(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """1,203 recipients go in chunks of 500, 500 and 203; the sandbox holds each number once,
    under the request ids the journal recorded, and the result's tickets and costs match."""
    numbers = fr_mobiles(1203)
    result = Campaign(client, numbers, text=TEXT, sender="Shop").send(
        progress=False, journal=tmp_path / "j.sqlite"
    )
    chunks = result.chunks()
    assert chunks["recipients"].tolist() == [500, 500, 203]
    assert chunks["state"].astype(str).tolist() == ["sent", "sent", "sent"]
    sent = fresh_sandbox.sent()
    assert sorted(sent["phone_number"]) == sorted(numbers)
    assert set(sent["request_id"]) == set(chunks["request_id"])
    frame = result.to_frame()
    tickets = dict(zip(sent["phone_number"], sent["sms_ticket"], strict=True))
    assert frame["ticket"].tolist() == [tickets[n] for n in frame["phone_number"]]
    assert result.summary().loc[0, "cost"] == pytest.approx(1203 * FR_PREMIUM)
    assert frame["cost"].sum() == pytest.approx(sent["cost"].sum())
    assert result.complete
    assert result.not_sent.empty


def test_request_ids_derive_from_campaign_id_chunk_index_and_payload(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """request_id = BLAKE2b-128(campaign_id ':' index ':' canonical JSON of the chunk's
    Contact objects); each chunk's id is what the gateway received."""
    path = tmp_path / "j.sqlite"
    Campaign(client, fr_mobiles(30), text=TEXT, sender="Shop").send(
        chunk_size=10, progress=False, journal=path
    )
    with sqlite3.connect(path) as db:
        campaign_id = json.loads(
            db.execute("SELECT value FROM meta WHERE key = 'campaign_id'").fetchone()[0]
        )
        rows = db.execute("SELECT idx, request_id FROM chunks ORDER BY idx").fetchall()
    for idx, request_id in rows:
        contacts = [{"phone_number": n} for n in fr_mobiles(10, 10 * idx)]
        payload = json.dumps(contacts, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        expected = hashlib.blake2b(
            f"{campaign_id}:{idx}:{payload}".encode(), digest_size=16
        ).hexdigest()
        assert request_id == expected == derive_request_id(campaign_id, idx, payload)
    assert len(campaign_id) == 32
    sent = fresh_sandbox.sent()
    assert sent.groupby("request_id")["phone_number"].apply(sorted).to_dict() == {
        rid: fr_mobiles(10, 10 * idx) for idx, rid in rows
    }


def test_chunk_payload_is_canonical_json_of_the_contacts(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """The request id derives from json.dumps(sort_keys, no spaces, non-ASCII kept) of exactly
    the Contact objects sent: quotes, backslashes, accents and emoji survive; an empty field
    is left out; the gateway renders from them the very texts preflight showed."""
    names = ['Zoé "Z"', "back\\slash", "🙂 Ana", None]
    frame = pd.DataFrame(
        {"phone_number": fr_mobiles(4), "first_name": names, "param1": ["a", "b", "c", "d"]}
    )
    path = tmp_path / "j.sqlite"
    campaign = Campaign(client, frame, text="Hi {first_name} {param1} STOP", sender="Shop")
    report = campaign.preflight()
    campaign.send(progress=False, journal=path)
    with Journal(path) as journal:
        chunk = journal.chunk(0)
        contacts = journal.payload(chunk)
        payload = json.dumps(contacts, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert chunk.request_id == derive_request_id(journal.campaign_id, 0, payload)
    assert set(fresh_sandbox.sent()["request_id"]) == {chunk.request_id}
    assert contacts[0] == {"phone_number": "+33610000000", "first_name": 'Zoé "Z"', "param1": "a"}
    assert contacts[3] == {"phone_number": "+33610000003", "param1": "d"}
    texts = fresh_sandbox.sent().set_index("phone_number")["text"]
    assert texts["+33610000002"] == "Hi 🙂 Ana c STOP"
    assert texts["+33610000003"] == "Hi d STOP"  # optimised: the double space collapses
    # Preflight's text is the text as delivered, for every recipient.
    assert report.to_frame()["text"].tolist() == [texts[n] for n in fr_mobiles(4)]


class Recording(httpx.AsyncBaseTransport):
    """Passes every request to the sandbox and keeps the bytes of each send's body."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.sends: list[bytes] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/sms-campaign/send"):
            self.sends.append(request.content)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


# In a canonical body "recipients" is followed by "request_id"; `],"` cannot occur in a string.
POSTED_RECIPIENTS = re.compile(rb'"recipients":(\[.*?\]),"request_id":"([0-9a-f]{32})"')


def test_a_resume_derives_each_request_id_from_the_bytes_it_posts_as_older_journals_did(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A journal left by an earlier version (chunk 0 in flight under the id it stored, the
    others pending) resumes: chunk 0 goes again under its stored id, and every request_id is
    BLAKE2b(campaign_id:index: + the exact ``recipients`` bytes of its body), which is the
    id an earlier version derived (json.dumps, sorted keys) for the same chunk."""
    frame = pd.DataFrame({"phone_number": fr_mobiles(30), "first_name": ["Zoé", "Ann", ""] * 10})
    path = tmp_path / "j.sqlite"
    with smskit.Client(sandbox=fresh_sandbox) as client:
        campaign = Campaign(client, frame, text="Hi {first_name} STOP", sender="Shop")
        _planned_journal(campaign, path, 10).close()
    with Journal(path) as journal:
        campaign_id = journal.campaign_id
        payloads = [list(journal.payload(chunk)) for chunk in journal.chunks()]

    def earlier_id(idx: int) -> str:  # the derivation journals were written with so far
        text = json.dumps(payloads[idx], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.blake2b(f"{campaign_id}:{idx}:{text}".encode(), digest_size=16).hexdigest()

    with sqlite3.connect(path) as db:  # what an earlier version left when it was killed
        db.execute(
            "UPDATE chunks SET state = 'in_flight', request_id = ?, attempts = 1, "
            "first_attempt_at = ? WHERE idx = 0",
            (earlier_id(0), time.time()),
        )
    recording = Recording()

    async def resume() -> CampaignResult:
        async with smskit.AsyncClient(sandbox=fresh_sandbox, transport=recording) as runner:
            return await Campaign.aresume(path, runner, progress=False)

    result = asyncio.run(resume())
    assert result.complete
    posted = {}
    for body in recording.sends:
        found = POSTED_RECIPIENTS.search(body)
        assert found is not None, body
        recipients, request_id = found.groups()
        assert json.loads(recipients) == json.loads(body)["recipients"]
        index = payloads.index(json.loads(recipients))
        assert request_id.decode() == derive_request_id(campaign_id, index, recipients)
        posted[index] = request_id.decode()
    assert posted == {idx: earlier_id(idx) for idx in range(3)}
    assert result.chunks()["request_id"].tolist() == [earlier_id(idx) for idx in range(3)]
    assert sorted(fresh_sandbox.sent()["phone_number"]) == fr_mobiles(30)


def test_same_campaign_with_its_journal_lost_is_not_sent_twice(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Re-running the same campaign without its journal (within 24 h) repeats the same request
    ids: the gateway refuses them as duplicates, recorded as already accepted (no ticket: the
    refusal gives none) with SMS counts and costs from a simulation, equal to the first's."""
    numbers = fr_mobiles(250)
    first = Campaign(client, numbers, text=TEXT, sender="Shop", name="june").send(
        chunk_size=100, progress=False, journal=tmp_path / "a.sqlite"
    )
    balance = fresh_sandbox.balance()
    again = Campaign(client, numbers, text=TEXT, sender="Shop", name="june").send(
        chunk_size=100, progress=False, journal=tmp_path / "b.sqlite"
    )
    assert again.chunks()["state"].astype(str).tolist() == ["already_accepted"] * 3
    assert again.chunks()["ticket"].isna().all() and first.chunks()["ticket"].notna().all()
    assert len(fresh_sandbox.sent()) == 250
    assert fresh_sandbox.balance() == pytest.approx(balance)
    assert again.summary().loc[0, "cost"] == pytest.approx(250 * FR_PREMIUM)
    assert again.summary().loc[0, "sms"] == 250
    assert bool(again.summary().loc[0, "cost_estimated"]) is True


def test_send_again_with_the_same_journal_sends_nothing(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A second send() of a finished campaign makes no request and returns the same result."""
    path = tmp_path / "j.sqlite"
    campaign = Campaign(client, fr_mobiles(120), text=TEXT, sender="Shop")
    first = campaign.send(chunk_size=50, progress=False, journal=path)
    with sqlite3.connect(path) as db:
        logged = db.execute("SELECT COUNT(*) FROM log WHERE state != 'lease'").fetchone()[0]
    second = campaign.send(chunk_size=50, progress=False, journal=path)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(*) FROM log WHERE state != 'lease'").fetchone()[0] == logged
    assert len(fresh_sandbox.sent()) == 120
    pd.testing.assert_frame_equal(first.to_frame(), second.to_frame())


def test_recipients_are_taken_when_the_campaign_is_created(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Editing the DataFrame afterwards changes nothing (the campaign holds a snapshot); a CSV
    file edited after preflight is checked again at send time."""
    frame = pd.DataFrame({"phone_number": fr_mobiles(2)})
    campaign = Campaign(client, frame, text=TEXT, sender="Shop")
    frame.loc[0, "phone_number"] = "+33140000000"
    campaign.send(progress=False, journal=tmp_path / "a.sqlite")
    assert sorted(fresh_sandbox.sent()["phone_number"]) == fr_mobiles(2)

    path = tmp_path / "list.csv"
    path.write_text("phone_number\n" + "\n".join(fr_mobiles(2, 10)) + "\n")
    from_file = Campaign(client, path, text=TEXT, sender="Shop")
    assert from_file.preflight().to_send == 2
    path.write_text("phone_number\n" + "\n".join(fr_mobiles(3, 10)) + "\n")
    result = from_file.send(progress=False, journal=tmp_path / "b.sqlite")
    assert result.summary().loc[0, "sent"] == 3


def test_a_journal_of_another_campaign_is_refused(client: smskit.Client, tmp_path: Path) -> None:
    """Other recipients with the same journal file: refused before any request."""
    path = tmp_path / "j.sqlite"
    Campaign(client, fr_mobiles(5), text=TEXT, sender="Shop").send(progress=False, journal=path)
    other = Campaign(client, fr_mobiles(6), text=TEXT, sender="Shop")
    with pytest.raises(smskit.ConfigurationError, match="holds another campaign"):
        other.send(progress=False, journal=path)


def test_default_journal_is_named_after_the_campaign_in_the_per_user_data_directory(
    client: smskit.Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, user_dirs: Path
) -> None:
    """Without journal=, the file is <user data>/smskit/campaigns/<name>.journal.sqlite, and
    nothing is written to the working directory."""
    monkeypatch.chdir(tmp_path)
    result = Campaign(client, fr_mobiles(3), text=TEXT, sender="Shop", name="june-promo").send(
        progress=False
    )
    expected = user_dirs / "data" / "smskit" / "campaigns" / "june-promo.journal.sqlite"
    assert expected.is_file() and result.journal == expected
    assert list(tmp_path.iterdir()) == []


def test_send_options_pass_through(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """send_at, type and purpose reach the gateway: scheduled, low cost, alert."""
    send_at = datetime(2031, 1, 6, 9, 30, tzinfo=ZoneInfo("Europe/Paris"))
    result = Campaign(
        client,
        fr_mobiles(4),
        text="Votre rendez-vous est confirmé",
        sender="Clinic",
        send_at=send_at,
        type="sms_low_cost",
        purpose="alert",
    ).send(progress=False, journal=tmp_path / "j.sqlite")
    sent = fresh_sandbox.sent()
    assert set(sent["status"]) == {"scheduled"}
    assert set(sent["send_at"]) == {pd.Timestamp(send_at)}
    assert set(sent["type"]) == {"sms_low_cost"}
    assert set(sent["purpose"]) == {"alert"}
    assert result.summary().loc[0, "cost"] == pytest.approx(4 * FR_LOW_COST)


def test_recipients_the_gateway_refuses_are_rejected_and_the_rest_sent(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A North Korean mobile (unserved in the sandbox: 413) that an offline preflight let through is
    rejected with the gateway's message; the rest of its chunk goes out under a new request
    id, once."""
    numbers = [*fr_mobiles(3), "+8501921234567", *fr_mobiles(3, 3)]
    path = tmp_path / "j.sqlite"
    campaign = Campaign(client, numbers, text=TEXT, sender="Shop")
    assert campaign.preflight(offline=True).to_send == 7  # the gateway was not asked
    result = campaign.send(progress=False, journal=path)
    frame = result.to_frame()
    assert frame["state"].astype(str).tolist() == ["sent"] * 3 + ["rejected"] + ["sent"] * 3
    assert "destination not served" in frame.loc[3, "error"]
    assert "413" in frame.loc[3, "error"]
    sent = fresh_sandbox.sent()
    assert sorted(sent["phone_number"]) == sorted(numbers[:3] + numbers[4:])

    def request_id(kept: list[str]) -> str:
        contacts = [{"phone_number": n} for n in kept]
        return derive_request_id(result.campaign_id, 0, json.dumps(contacts, separators=(",", ":")))

    assert set(sent["request_id"]) == {request_id(numbers[:3] + numbers[4:])}
    assert request_id(numbers) not in set(sent["request_id"])
    assert result.complete
    assert result.not_sent["phone_number"].tolist() == ["+8501921234567"]


def test_preflight_excludes_a_destination_the_gateway_does_not_serve(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Preflight asks the gateway which countries it serves: the North Korean mobile is excluded
    (not_served, with the gateway's reason), and the send then has nothing refused."""
    numbers = [*fr_mobiles(3), "+8501921234567", *fr_mobiles(3, 3)]
    campaign = Campaign(client, numbers, text=TEXT, sender="Shop")
    report = campaign.preflight()
    frame = report.to_frame()
    assert frame["issue"].astype(str).tolist()[3] == "not_served"
    assert "KP" in frame.loc[3, "detail"]
    assert report.to_send == 6
    result = campaign.send(progress=False, journal=tmp_path / "j.sqlite")
    states = result.to_frame()["state"].astype(str).tolist()
    assert states == ["sent"] * 3 + ["excluded"] + ["sent"] * 3
    assert len(fresh_sandbox.sent()) == 6


def test_insufficient_credit_stops_and_resume_finishes_after_top_up(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """With credit for two chunks of 100 (2 x 6.50 EUR of 15 EUR), the third is refused (code
    122: nothing of it sent, so pending again, the refusal its error), sending stops, the rest
    stays pending; after a top-up, resume sends exactly the rest."""
    fresh_sandbox.set_balance(15.0)
    numbers = fr_mobiles(500)
    path = tmp_path / "j.sqlite"
    result = Campaign(client, numbers, text=TEXT, sender="Shop").send(
        chunk_size=100, concurrency=1, progress=False, journal=path
    )
    assert result.stopped is not None and "insufficient credit" in result.stopped
    assert journal_states(path) == ["sent", "sent", "pending", "pending", "pending"]
    assert "InsufficientCreditError" in result.chunks().loc[2, "error"]
    assert len(result.not_sent) == 300
    assert not result.complete
    fresh_sandbox.set_balance(100.0)
    resumed = Campaign.resume(path, client, progress=False)
    assert resumed.complete
    sent = fresh_sandbox.sent()
    assert sorted(sent["phone_number"]) == sorted(numbers)


class FailRequest(httpx.AsyncBaseTransport):
    """Answers 500 to every send that includes one number; passes the rest to the sandbox."""

    def __init__(self, number: str) -> None:
        self.number = number
        self.inner = httpx.AsyncHTTPTransport()
        self.refused = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content or b"{}")
        if any(r["phone_number"] == self.number for r in body.get("recipients", [])):
            self.refused += 1
            return httpx.Response(500, json={"code": 500, "message": "boom"})
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def test_a_chunk_failing_after_retries_is_failed_and_the_others_go_on(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A chunk the gateway keeps failing (500 on all 3 attempts) is marked failed with its
    error; the other chunks are sent; the result lists exactly its recipients as not sent;
    resume sends them once the gateway recovers. Runs through ``await campaign.asend()``."""
    numbers = fr_mobiles(40)
    path = tmp_path / "j.sqlite"
    sync = smskit.Client(sandbox=fresh_sandbox)
    transport = FailRequest(numbers[25])  # in the third chunk of 10

    async def main() -> CampaignResult:
        async with smskit.AsyncClient(
            sandbox=fresh_sandbox, transport=transport, max_retries=2, backoff=FAST
        ) as client:
            campaign = Campaign(client, numbers, text=TEXT, sender="Shop")
            return await campaign.asend(chunk_size=10, progress=False, journal=path)

    result = asyncio.run(main())
    assert transport.refused == 3
    assert result.chunks()["state"].astype(str).tolist() == ["sent", "sent", "failed", "sent"]
    assert "ServerError" in result.chunks().loc[2, "error"]
    assert result.not_sent["phone_number"].tolist() == numbers[20:30]
    assert sorted(fresh_sandbox.sent()["phone_number"]) == sorted(numbers[:20] + numbers[30:])
    resumed = Campaign.resume(path, sync, progress=False)
    assert resumed.complete
    assert sorted(fresh_sandbox.sent()["phone_number"]) == sorted(numbers)


class JournalSpy(httpx.AsyncBaseTransport):
    """Reads the journal (another connection) as each send reaches the wire."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.inner = httpx.AsyncHTTPTransport()
        self.seen: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        rid = json.loads(request.content)["request_id"]
        with sqlite3.connect(self.path) as db:
            self.seen.append(
                db.execute("SELECT state FROM chunks WHERE request_id = ?", (rid,)).fetchone()[0]
            )
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def test_journal_is_written_before_and_after_every_request(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """When a request leaves, its chunk is already committed as in_flight; afterwards the log
    holds in_flight then sent for every chunk."""
    path = tmp_path / "j.sqlite"
    spy = JournalSpy(path)

    async def main() -> None:
        async with smskit.AsyncClient(sandbox=fresh_sandbox, transport=spy) as client:
            await Campaign(client, fr_mobiles(30), text=TEXT, sender="Shop").asend(
                chunk_size=10, concurrency=2, progress=False, journal=path
            )

    asyncio.run(main())
    assert spy.seen == ["in_flight"] * 3
    with sqlite3.connect(path) as db:
        log = db.execute("SELECT chunk, state FROM log ORDER BY id").fetchall()
        mode = db.execute("PRAGMA journal_mode").fetchone()[0]
    for idx in range(3):
        assert [state for chunk, state in log if chunk == idx] == ["in_flight", "sent"]
    assert mode == "wal"


def test_resume_records_a_chunk_accepted_before_the_crash_as_already_accepted(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """The crash case: chunk 0 was in flight and the gateway had accepted it, but the answer
    never came back. Resume re-sends it with the same request_id: already accepted, once."""
    numbers = fr_mobiles(30)
    path = tmp_path / "j.sqlite"
    campaign = Campaign(client, numbers, text=TEXT, sender="Shop")
    journal = _planned_journal(campaign, path, 10)
    request_id, contacts = journal.mark_in_flight(journal.chunk(0))
    accepted = client.sms_campaign.send(
        text=TEXT, recipients=contacts, sender="Shop", request_id=request_id
    )
    journal.close()  # ... and the process died here
    result = Campaign.resume(path, client, progress=False)
    assert result.chunks()["state"].astype(str).tolist() == ["already_accepted", "sent", "sent"]
    assert result.chunks().loc[0, "cost"] == pytest.approx(accepted.total_cost)  # simulated
    assert bool(result.chunks().loc[0, "cost_estimated"]) is True
    assert sorted(fresh_sandbox.sent()["phone_number"]) == sorted(numbers)


def test_an_in_flight_chunk_older_than_the_request_id_lifetime_is_not_resent(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """After 24 h the gateway forgets the request_id: re-sending an unknown outcome could
    send twice, so that chunk is marked failed (not retryable) and the others go on."""
    path = tmp_path / "j.sqlite"
    campaign = Campaign(client, fr_mobiles(20), text=TEXT, sender="Shop")
    journal = _planned_journal(campaign, path, 10)
    journal.mark_in_flight(journal.chunk(0))
    journal.close()
    with sqlite3.connect(path) as db:
        db.execute(
            "UPDATE chunks SET first_attempt_at = ? WHERE idx = 0", (time.time() - 25 * 3600,)
        )
    result = Campaign.resume(path, client, progress=False)
    chunks = result.chunks()
    assert chunks["state"].astype(str).tolist() == ["failed", "sent"]
    assert "expired" in chunks.loc[0, "error"]
    assert len(fresh_sandbox.sent()) == 10
    again = Campaign.resume(path, client, progress=False)  # still not resent
    assert len(fresh_sandbox.sent()) == 10
    assert again.chunks()["state"].astype(str).tolist() == ["failed", "sent"]


def test_sync_send_works_inside_a_running_event_loop(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """In Jupyter a loop is already running: send() then runs its own loop in a thread."""
    campaign = Campaign(client, fr_mobiles(25), text=TEXT, sender="Shop")

    async def cell() -> CampaignResult:
        asyncio.get_running_loop()  # the situation of a notebook cell
        return campaign.send(chunk_size=10, progress=False, journal=tmp_path / "j.sqlite")

    result = asyncio.run(cell())
    assert result.complete
    assert len(fresh_sandbox.sent()) == 25


def test_progress_bar_counts_recipients_cost_and_failures(
    client: smskit.Client, tmp_path: Path
) -> None:
    """The bar ends at recipients done / total, with the cost so far and the failures."""
    stream = io.StringIO()
    Campaign(client, fr_mobiles(120), text=TEXT, sender="Shop").send(
        chunk_size=50,
        progress={"file": stream, "mininterval": 0, "ascii": True},
        journal=tmp_path / "j.sqlite",
    )
    last = stream.getvalue().strip().split("\r")[-1]
    assert "120/120" in last
    assert f"cost={120 * FR_PREMIUM:.2f}" in last
    assert "failed=0" in last


def test_result_frames_and_html(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """to_frame(): one row per input row, excluded ones included with their reason; cost
    shares add up to each chunk's cost; summary() is one row; the HTML states the counts."""
    numbers = [*fr_mobiles(4), "+33140000000", "nonsense"]
    path = tmp_path / "j.sqlite"
    Campaign(client, numbers, text=TEXT, sender="Shop").send(
        chunk_size=3, progress=False, journal=path
    )
    result = CampaignResult.load(path)
    frame = result.to_frame()
    assert frame["row"].tolist() == list(range(6))
    assert list(frame.columns) == [
        "row", "phone_number", "chunk", "request_id", "ticket", "state", "segments", "cost",
        "error",
    ]  # fmt: skip
    assert frame["state"].astype(str).tolist() == ["sent"] * 4 + ["excluded"] * 2
    assert frame.loc[4, "error"] == "cannot_receive_sms: line type landline"
    assert frame.loc[5, "error"] == "invalid_number: contains_letters"
    by_chunk = frame.dropna(subset=["cost"]).groupby("chunk")["cost"].sum()
    assert by_chunk.tolist() == pytest.approx([3 * FR_PREMIUM, 1 * FR_PREMIUM])
    summary = result.summary()
    assert summary.shape[0] == 1
    assert summary.loc[0, ["sent", "excluded", "chunks"]].tolist() == [4, 2, 2]
    assert result.not_sent["row"].tolist() == [4, 5]
    html = result._repr_html_()
    assert "4 of 6 recipients sent" in html
    assert "nonsense" in html


def test_estimate_from_the_gateway_and_offline(
    client: smskit.Client, fresh_sandbox: Sandbox
) -> None:
    """The gateway's figures (simulation_mode) for 30 French and 10 Belgian 1-SMS recipients
    cost 30 x 0.065 + 10 x 0.079 EUR; an unserved number is excluded by preflight; nothing is
    sent or charged. Offline with the same unit prices gives the same cost."""
    numbers = [*fr_mobiles(30), *[f"+3247{i:07d}" for i in range(10)], "+8501921234567"]
    campaign = Campaign(client, numbers, text=TEXT, sender="Shop")
    estimate = campaign.estimate(chunk_size=20)
    expected = 30 * FR_PREMIUM + 10 * BE_PREMIUM
    assert estimate.source == "gateway"
    assert estimate.cost == pytest.approx(expected)
    assert estimate.sms == 40
    assert estimate.balance == pytest.approx(1000.0)
    assert estimate.residual_credit == pytest.approx(1000.0 - expected)
    assert estimate.enough is True
    assert estimate.problems.empty  # preflight excluded the unserved number: nothing refused
    excluded = campaign.preflight().excluded
    assert excluded["phone_number"].tolist() == ["+8501921234567"]
    assert excluded["issue"].astype(str).tolist() == ["not_served"]
    assert fresh_sandbox.sent().empty
    assert fresh_sandbox.balance() == pytest.approx(1000.0)
    offline = campaign.estimate(offline=True, unit_prices={"FR": FR_PREMIUM, "BE": BE_PREMIUM})
    assert offline.source == "offline"
    assert offline.sms == 40
    assert offline.cost == pytest.approx(expected)
    unpriced = campaign.estimate(offline=True, unit_prices={"FR": FR_PREMIUM})
    assert "no unit price for BE" in unpriced.to_frame()["error"].dropna().iloc[0]
    fr_only = Campaign(client, fr_mobiles(30), text=TEXT, sender="Shop")
    assert fr_only.estimate(offline=True, unit_prices={"FR": FR_PREMIUM}).cost == pytest.approx(
        30 * FR_PREMIUM
    )
    assert fr_only.estimate(offline=True).cost is None
    assert "enough" in estimate._repr_html_()


def test_estimate_says_when_the_balance_is_short(
    client: smskit.Client, fresh_sandbox: Sandbox
) -> None:
    """100 French SMS cost 6.50 EUR: a 5 EUR balance is short. In chunks of 50 (3.25 EUR each)
    every simulation passes and the total says so; in one chunk of 100 the gateway refuses
    the simulation itself (code 122): cost unknown, not enough."""
    fresh_sandbox.set_balance(5.0)
    campaign = Campaign(client, fr_mobiles(100), text=TEXT, sender="Shop")
    halves = campaign.estimate(chunk_size=50)
    assert halves.cost == pytest.approx(100 * FR_PREMIUM)
    assert halves.residual_credit == pytest.approx(5.0 - 100 * FR_PREMIUM)
    assert halves.enough is False
    whole = campaign.estimate(chunk_size=100)
    assert whole.cost is None
    assert whole.enough is False
    assert "InsufficientCreditError" in whole.to_frame().loc[0, "error"]
    assert bool(whole.summary().loc[0, "enough"]) is False


def test_sending_parameters_are_checked(client: smskit.Client, tmp_path: Path) -> None:
    """Chunks hold 1 to 500 recipients (spec limit); concurrency is 1 to 64."""
    campaign = Campaign(client, fr_mobiles(3), text=TEXT, sender="Shop")
    with pytest.raises(
        smskit.ValidationError, match="chunk_size: must be an integer from 1 to 500"
    ):
        campaign.send(chunk_size=501, progress=False, journal=tmp_path / "j.sqlite")
    with pytest.raises(smskit.ValidationError, match="concurrency"):
        campaign.send(concurrency=0, progress=False, journal=tmp_path / "j.sqlite")
    assert not (tmp_path / "j.sqlite").exists()
    with pytest.raises(smskit.ConfigurationError, match="does not exist"):
        Campaign.resume(tmp_path / "missing.sqlite", client, progress=False)


def test_campaign_is_reachable_from_the_package(client: smskit.Client) -> None:
    """smskit.Campaign is the campaign module's; smskit.bulk_hlr and its twins the bulk
    module's, as smskit.campaigns gives them."""
    from smskit.campaigns import bulk, campaign

    assert smskit.Campaign is campaign.Campaign
    for name in ("bulk_hlr", "abulk_hlr", "create_contacts", "acreate_contacts"):
        assert getattr(smskit, name) is getattr(bulk, name) is getattr(smskit.campaigns, name)


def test_changing_the_text_after_preflight_is_checked_again(client: smskit.Client) -> None:
    """A report is reused only for the settings it checked: a longer text after preflight is
    counted at its own segments, and a text losing its STOP mention is refused."""
    campaign = Campaign(client, fr_mobiles(5), text=TEXT, sender="Shop")
    assert campaign.preflight().segments == 5
    campaign.text = "x" * 150 + " STOP au 36173"  # 164 GSM-7 characters: 2 SMS each
    assert campaign.estimate(offline=True).sms == 10
    campaign.text = "Promo -20% ce week-end"
    with pytest.raises(smskit.ValidationError, match="STOP"):
        campaign.estimate(offline=True)


def test_recipients_the_gateway_did_not_keep_are_reported(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A blacklisted number removed by the gateway (auto_remove_blacklisted_numbers) makes the
    chunk's number_of_contacts smaller than its size: the summary counts it, the chunk shows
    what was kept and its recipients carry the gateway_dropped note; nothing is hidden."""
    numbers = fr_mobiles(5)
    fresh_sandbox.add_to_blacklist([numbers[2]])
    result = Campaign(
        client, numbers, text=TEXT, sender="Shop", auto_remove_blacklisted_numbers=True
    ).send(progress=False, journal=tmp_path / "j.sqlite")
    assert sorted(fresh_sandbox.sent()["phone_number"]) == sorted(numbers[:2] + numbers[3:])
    assert result.summary().loc[0, "dropped_by_gateway"] == 1
    assert result.chunks()["kept"].tolist() == [4]
    notes = result.to_frame()["error"].tolist()
    assert all(
        n is not None and n.startswith("gateway_dropped: the gateway kept 4 of 5") for n in notes
    )


def test_a_chunk_kept_whole_has_no_dropped_note(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Without removals the gateway keeps every recipient: 0 dropped, no note."""
    result = Campaign(client, fr_mobiles(3), text=TEXT, sender="Shop").send(
        progress=False, journal=tmp_path / "j.sqlite"
    )
    assert result.summary().loc[0, "dropped_by_gateway"] == 0
    assert result.chunks()["kept"].tolist() == [3]
    assert result.to_frame()["error"].isna().all()


def test_there_is_no_former_name_hlr() -> None:
    """The package was never released: no shim keeps the name it had before bulk_hlr."""
    with pytest.raises(AttributeError, match="'hlr'"):
        smskit.hlr  # noqa: B018
    assert "hlr" not in dir(smskit) and "bulk_hlr" in dir(smskit)


def test_a_chunk_that_reaches_nobody_is_failed_not_sent(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """With auto_remove_blacklisted_numbers, a chunk whose every recipient is blacklisted
    leaves the gateway nobody to send to (400 on recipients): the chunk is failed, its
    recipients not counted as sent, nothing charged; the other chunk is sent."""
    blocked, kept = fr_mobiles(10), fr_mobiles(10, start=10)
    fresh_sandbox.add_to_blacklist(blocked)
    campaign = Campaign(
        client, blocked + kept, text=TEXT, sender="Shop", auto_remove_blacklisted_numbers=True
    )
    result = campaign.send(chunk_size=10, progress=False, journal=tmp_path / "j.sqlite")
    chunks = result.chunks()
    assert chunks["state"].astype(str).tolist() == ["failed", "sent"]
    assert "NoRecipientError" in chunks.loc[0, "error"]
    summary = result.summary().iloc[0]
    assert (summary["sent"], summary["failed"]) == (10, 10)
    assert sorted(fresh_sandbox.sent()["phone_number"]) == kept
    assert fresh_sandbox.balance() == pytest.approx(1000.0 - 10 * FR_PREMIUM - 0.01)
    assert summary["cost"] == pytest.approx(10 * FR_PREMIUM + 0.01)


def test_a_journal_is_never_sent_through_another_gateway(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A campaign stopped for credit on one gateway: resuming it, or sending it again, through
    another (another sandbox here; the real account in life) is refused naming both, and that
    gateway sends nothing; on its own gateway it finishes, each recipient once."""
    path = tmp_path / "j.sqlite"
    numbers = fr_mobiles(30)
    fresh_sandbox.set_balance(10 * FR_PREMIUM + 0.001)  # room for the first chunk only
    with smskit.Client(sandbox=fresh_sandbox, backoff=FAST) as home:
        first = Campaign(home, numbers, text=TEXT, sender="Shop", name="june").send(
            chunk_size=10, progress=False, journal=path, concurrency=1
        )
        assert not first.complete
        fresh_sandbox.set_balance(100.0)
        with Sandbox() as other, smskit.Client(sandbox=other) as elsewhere:
            with pytest.raises(smskit.ConfigurationError, match="was sent through") as refused:
                Campaign.resume(path, elsewhere, progress=False)
            assert other.url in str(refused.value) and fresh_sandbox.url in str(refused.value)
            again = Campaign(elsewhere, numbers, text=TEXT, sender="Shop", name="june")
            with pytest.raises(smskit.ConfigurationError, match="was sent through"):
                again.send(chunk_size=10, progress=False, journal=path)
            assert other.sent().empty
        finished = Campaign.resume(path, home, progress=False)
    assert finished.complete
    assert sorted(fresh_sandbox.sent()["phone_number"]) == numbers


@pytest.mark.parametrize("progress", ["yes", 1, ["desc"]])
def test_a_progress_that_is_no_option_is_refused_before_the_send_is_planned(
    progress: object, client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """send(progress=...) that is not True, False, a dict of tqdm options or an events
    object is refused naming progress and the value, before anything is done: no journal
    planned (it was, then refused), nothing sent; progress=False then sends."""
    campaign = Campaign(client, fr_mobiles(3), text=TEXT, sender="Shop")
    journal = tmp_path / "j.sqlite"
    with pytest.raises(smskit.ValidationError) as refused:
        campaign.send(progress=progress, journal=journal)  # type: ignore[arg-type]
    assert refused.value.field == "progress" and refused.value.value == progress
    assert refused.value.rule == "must be True, False or a dict of tqdm options"
    assert not journal.exists() and len(fresh_sandbox.sent()) == 0
    assert campaign.send(progress=False, journal=journal).summary()["sent"].sum() == 3
