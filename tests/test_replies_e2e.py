"""Replies end to end over real HTTP: client send -> sandbox replies -> Inbox, and a burst."""

from __future__ import annotations

import http.client
import json
import sqlite3
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from _posting import post_concurrently

import smskit
from smskit.replies.analytics import opt_out_rate, reply_rate
from smskit.replies.inbox import Inbox
from smskit.sandbox import Sandbox

RECIPIENTS = [f"+3367000{n:04d}" for n in range(30)]
TEXT = "Soldes -20% ce week-end ! Répondez OUI pour réserver. STOP au 36173"


@pytest.fixture
def setup() -> Iterator[tuple[Sandbox, Inbox, smskit.Client]]:
    """A fresh sandbox whose callback URL is a running Inbox, and a client on the sandbox."""
    with Sandbox(seed=0) as sb, Inbox() as inbox, smskit.Client(sandbox=sb) as client:
        sb.set_callback_url(inbox.url)
        yield sb, inbox, client


def send_with_replies(client: smskit.Client) -> str:
    """A with_replies marketing send to RECIPIENTS through the client; returns its ticket."""
    result = client.sms_campaign.send(
        text=TEXT, recipients=RECIPIENTS, sender="Boutique", with_replies=True
    )
    assert result.sms_ticket is not None
    return result.sms_ticket


def test_send_with_replies_reaches_the_inbox_once_each(
    setup: tuple[Sandbox, Inbox, smskit.Client],
) -> None:
    """Send -> simulated campaign replies -> Inbox holds each once; a replay is ignored."""
    sb, inbox, client = setup
    ticket = send_with_replies(client)
    simulated = sb.simulate_campaign_replies(ticket, rate=0.5, opt_out_share=0.2, seed=1)
    assert len(simulated) == 15  # 0.5 * 30
    assert inbox.wait(15, timeout=10) == 15
    frame = inbox.to_frame()
    assert sorted(frame["message_id"]) == sorted(simulated["message_id"])
    assert set(frame["sim_card_number"]) == {"38100"}
    assert frame["reception_date"].tolist() == simulated["reception_date"].tolist()
    # The gateway may deliver the same reply again: the inbox keeps one copy.
    replay = sb.replies().iloc[0]
    body = {k: replay[k] for k in ("message_id", "number", "text", "sim_card_number")}
    conn_url = urlsplit(inbox.url)
    conn = http.client.HTTPConnection(conn_url.hostname, conn_url.port, timeout=10)
    conn.request("POST", conn_url.path, json.dumps({**body, "reception_date": "2025-01-01"}))
    assert conn.getresponse().status == 200
    conn.close()
    assert len(inbox.to_frame()) == 15 and inbox.stats()["duplicates"] == 1
    rates = reply_rate(frame, sb.sent())
    assert rates.loc[ticket, "reply_rate"] == 15 / 30
    assert rates.loc[ticket, "opt_outs"] == 3  # round(0.2 * 15)
    assert opt_out_rate(frame, sb.sent()) == 3 / 30


def test_opt_outs_feed_contact_delete(setup: tuple[Sandbox, Inbox, smskit.Client]) -> None:
    """Numbers returned by opt_outs() can be deleted from the account with the client."""
    sb, inbox, client = setup
    client.contact.create([{"phone_number": n} for n in RECIPIENTS], list_name="clients")
    ticket = send_with_replies(client)
    sb.simulate_campaign_replies(ticket, rate=0.4, opt_out_share=0.5, seed=2)
    opted = inbox.opt_outs()
    assert len(opted) == 6  # round(0.5 * round(0.4 * 30))
    client.contact.delete(opted)
    remaining = set(sb.contacts()["phone_number"])
    assert remaining == set(RECIPIENTS) - set(opted)


def test_storage_failure_answers_200_and_keeps_the_reply_until_sqlite_recovers(
    setup: tuple[Sandbox, Inbox, smskit.Client], monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite failing: 200 all the same (spec rule 1), the reply held in memory, then written."""
    sb, inbox, _ = setup
    store = inbox._store

    class FailingOnce:
        """The store's connection, except that the first reply insert fails like a full disk."""

        def __init__(self, db: sqlite3.Connection) -> None:
            self.db, self.failed = db, False

        def execute(self, sql: str, *args: Any) -> Any:
            if sql.startswith("INSERT OR IGNORE INTO replies") and not self.failed:
                self.failed = True
                raise sqlite3.OperationalError("disk I/O error")
            return self.db.execute(sql, *args)

    monkeypatch.setattr(store, "_db", FailingOnce(store._db))
    first = sb.simulate_reply(RECIPIENTS[0], "OUI")
    assert (first["delivered"], first["attempts"]) == (True, 1)
    assert sb.deliveries()["status"].tolist() == ["200"]
    assert len(store.unsaved) == 1 and store.count == 0  # not lost: waiting in memory
    assert inbox.stats()["unsaved"] == 0  # reading flushes once SQLite works again
    second = sb.simulate_reply(RECIPIENTS[1], "NON")
    frame = inbox.to_frame()
    assert sorted(frame["message_id"]) == sorted([first["message_id"], second["message_id"]])
    assert inbox.stats()["stored"] == 2


def test_burst_of_5000_callbacks_from_8_senders_loses_and_duplicates_nothing() -> None:
    """5,000 replies (plus 500 deliberate re-deliveries) from 8 concurrent connections."""
    count, senders = 5000, 8

    def body(i: int) -> bytes:
        return json.dumps(
            {"message_id": f"b{i:05d}", "number": f"+3361{i:07d}",
             "text": "STOP" if i % 7 == 0 else "OUI", "sim_card_number": "38100",
             "reception_date": f"2025-03-0{1 + i % 3}T10:{i % 60:02d}:00+00:00"}
        ).encode()  # fmt: skip

    # Every 10th reply is delivered twice, by another sender: a gateway retry.
    jobs = [body(i) for i in range(count)] + [body(i) for i in range(0, count, 10)]
    with Inbox() as inbox:
        statuses = post_concurrently(inbox.url, jobs, senders)
        frame = inbox.to_frame()
        stats = inbox.stats()
    assert statuses == [200] * len(jobs)
    assert sorted(frame["message_id"]) == [f"b{i:05d}" for i in range(count)]  # 0 lost, 0 dup
    assert stats == {"stored": count, "duplicates": count // 10, "rejected": 0, "unsaved": 0,
                     "delivery_reports": 0, "stops": 0, "report_duplicates": 0, "links": 0,
                     "clicks": 0, "clicks_unsaved": 0, "unknown_link_requests": 0}  # fmt: skip
    assert int(frame["is_opt_out"].sum()) == len(range(0, count, 7))


def test_callback_token_never_reaches_a_log_record(
    setup: tuple[Sandbox, Inbox, smskit.Client], caplog: pytest.LogCaptureFixture
) -> None:
    """Deliveries log nothing that holds the inbox token, even with every logger at DEBUG."""
    sb, inbox, _ = setup
    token = urlsplit(inbox.url).path.split("/")[2]
    with caplog.at_level("DEBUG"):
        sb.simulate_reply("+33670000001", "OUI")
        assert inbox.wait(1, timeout=10) == 1
        sb.set_callback_url(inbox.url.replace(token, "x" * len(token)))  # 404: retried
        sb.simulate_reply("+33670000002", "STOP", wait=False)
    assert caplog.records, "the delivery path logs nothing at all: the check would be empty"
    assert any(r.name == "uvicorn.access" for r in caplog.records)  # the path was logged...
    assert not [r for r in caplog.records if token in r.getMessage()]  # ...masked
