"""The Inbox as receiver of every callback kind: tolerant reading, idempotent storage, the
standing status of a message, signatures, files, bursts and stalls."""

from __future__ import annotations

import json
import socket
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from _posting import post_concurrently
from hypothesis import given, settings
from hypothesis import strategies as st

from smskit.replies.inbox import Inbox
from smskit.replies.reports import SCHEMA, parse_report, write
from smskit.sandbox import DeliveryModel, Sandbox

SECRET = "whsec-0123456789abcdef"
FR = "+33612345678"
VENDOR = ["ACK", "DELIVERED", "NOT_DELIVERED", "NOT_ALLOWED", "UNKNOWN_DELIVERY",
          "BAD_DESTINATION", "BLACKLISTED_NUMBER", "UNDEFINED"]  # fmt: skip
# The documented order (docs/callbacks.md), written out independently of smskit's table.
TIER = {"ACK": 1, "UNKNOWN_DELIVERY": 2, "UNDEFINED": 2, "DELIVERED": 3, "NOT_DELIVERED": 3,
        "NOT_ALLOWED": 3, "BAD_DESTINATION": 3, "BLACKLISTED_NUMBER": 3}  # fmt: skip


def report(status: str = "DELIVERED", at: str = "2026-03-02 10:00:30", **fields: Any) -> dict:
    """A vendor delivery report for message m1."""
    body = {"message_id": "m1", "number": FR, "status": status, "delivery_date": at,
            "list_name": None, "unit_price": 0.065}  # fmt: skip
    return {**body, **fields}


@pytest.fixture
def inbox() -> Iterator[Inbox]:
    """A running in-memory inbox."""
    with Inbox() as box:
        yield box


def post(inbox: Inbox, body: Any, headers: dict[str, str] | None = None) -> int:
    """POST a JSON body (or raw bytes) to the inbox; the HTTP status."""
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    answer = httpx.post(inbox.url, content=raw, headers=headers or {}, trust_env=False)
    assert answer.content == b""
    return answer.status_code


def standing(inbox: Inbox) -> str:
    """The standing status text of m1."""
    frame = inbox.delivery_status().set_index("message_id")
    return str(frame.loc["m1", "status_raw"])


# --- which status stands -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arrivals", "expected"),
    [
        ([("DELIVERED", "10:00:30"), ("ACK", "10:00:02")], "DELIVERED"),  # ACK late
        ([("ACK", "10:00:02"), ("DELIVERED", "10:00:30")], "DELIVERED"),
        ([("UNKNOWN_DELIVERY", "16:00:00"), ("DELIVERED", "11:00:00")], "DELIVERED"),
        ([("DELIVERED", "11:00:00"), ("UNKNOWN_DELIVERY", "16:00:00")], "DELIVERED"),
        ([("NOT_DELIVERED", "10:01:00"), ("DELIVERED", "10:00:30")], "NOT_DELIVERED"),
        ([("DELIVRD", "10:00:40"), ("ACK", "10:00:02")], "ACK"),  # unknown never stands
        ([("DELIVRD", "10:00:40")], "DELIVRD"),  # ... unless nothing else came
    ],
)
def test_a_final_status_is_never_replaced_by_an_earlier_report(
    inbox: Inbox, arrivals: list[tuple[str, str]], expected: str
) -> None:
    """Higher tier wins whatever the order; within a tier the later delivery_date."""
    for status, clock in arrivals:
        assert post(inbox, report(status, f"2026-03-02 {clock}")) == 200
    assert standing(inbox) == expected
    row = inbox.delivery_status().iloc[0]
    assert row["reports"] == len(arrivals)
    assert bool(row["final"]) == (expected in TIER and expected != "ACK")


reports_of_one_message = st.lists(
    st.tuples(st.sampled_from([*VENDOR, "DELIVRD"]), st.integers(0, 600)), min_size=1, max_size=6
)


@given(reports_of_one_message, st.randoms(use_true_random=False))
@settings(max_examples=200, deadline=None)
def test_standing_report_does_not_depend_on_arrival_order(
    plays: list[tuple[str, int]], rng: Any
) -> None:
    """Any arrival order, with any report repeated: the same standing report, the one of
    highest tier then latest date (ties between distinct reports aside)."""
    bodies = [report(s, f"2026-03-02 10:{t // 60:02d}:{t % 60:02d}") for s, t in plays]
    best = max(TIER.get(s, 0) for s, _ in plays)
    latest = max(t for s, t in plays if TIER.get(s, 0) == best)
    winners = {(s, t) for s, t in plays if TIER.get(s, 0) == best and t == latest}
    arrivals = bodies + [rng.choice(bodies) for _ in range(3)]
    rng.shuffle(arrivals)
    db = sqlite3.connect(":memory:")
    db.executescript(SCHEMA)
    for body in arrivals:
        raw = json.dumps(body).encode()
        write(db, [parse_report("delivery_report", body, raw)], 0)
    status, date = db.execute(
        "SELECT r.status, r.delivery_date_raw FROM delivery_status s "
        "JOIN delivery_reports r ON r.key = s.report_key"
    ).fetchone()
    minutes, seconds = map(int, date[-5:].split(":"))
    assert len(winners) > 1 or (status, 60 * minutes + seconds) in winners
    assert db.execute("SELECT COUNT(*) FROM delivery_reports").fetchone()[0] == len(
        {json.dumps(b, sort_keys=True) for b in bodies}
    )


# --- tolerant reading ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "flags"),
    [
        (report(), ""),
        (report(message_id=41), ""),  # a numeric id is read as text
        ({k: v for k, v in report().items() if k != "status"}, "missing:status"),
        (report(number=None), "missing:number"),
        (report(number=""), "missing:number"),
        (report(status="delivered"), "unknown_status"),
        (report(at="25/11/2026 00h44"), "unreadable:delivery_date"),
        (report(number=["+33612345678"]), "unreadable:number"),
        (report(unit_price="cheap"), "unreadable:unit_price"),
        (report(unit_price=10**400), "unreadable:unit_price"),
        (report(at=10**400), "unreadable:delivery_date"),
        (report(status="DELIVRD", number=None), "missing:number,unknown_status"),
        ({"status": "ACK"}, "missing:message_id,missing:number,missing:delivery_date"),
    ],
)
def test_reports_are_kept_as_they_came_and_flagged(
    inbox: Inbox, body: dict[str, Any], flags: str
) -> None:
    """Nothing a report holds is refused: what cannot be read is kept and named in flags."""
    assert post(inbox, body) == 200
    frame = inbox.delivery_reports()
    assert len(frame) == 1 and inbox.rejects().empty
    row = frame.iloc[0]
    assert row["flags"] == flags and bool(row["flagged"]) == bool(flags)
    if "status" in body and isinstance(body["status"], str):
        assert row["status_raw"] == body["status"]
    if isinstance(body.get("delivery_date"), str):
        assert row["delivery_date_raw"] == body["delivery_date"]


def test_numbers_as_strings_and_unix_dates_are_read(inbox: Inbox) -> None:
    """unit_price "0.065" and a Unix-seconds date are read without a flag."""
    assert post(inbox, report(unit_price="0.065", delivery_date=1772445630)) == 200
    row = inbox.delivery_reports("UTC").iloc[0]
    assert row["unit_price"] == 0.065 and row["flags"] == ""
    assert row["delivery_date"].isoformat() == "2026-03-02T10:00:30+00:00"


@given(
    st.dictionaries(
        st.sampled_from(
            [
                "message_id",
                "number",
                "status",
                "delivery_date",
                "unit_price",
                "list_name",
                "text",
                "stop_date",
                "extra",
            ]
        ),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner),
            max_leaves=5,
        ),
    ).filter(lambda d: {"status", "delivery_date", "stop_date"} & d.keys())
)
@settings(max_examples=300, deadline=None)
def test_any_report_or_stop_object_is_read_and_stored(body: dict[str, Any]) -> None:
    """Any JSON object marked as a report or STOP is read and stored, never an error."""
    raw = json.dumps(body).encode()
    kind = "delivery_report" if {"status", "delivery_date"} & body.keys() else "stop"
    parsed = parse_report(kind, body, raw)
    db = sqlite3.connect(":memory:")
    db.executescript(SCHEMA)
    assert write(db, [parsed, parsed], 0) == {parsed.key}  # the second is a duplicate


def test_lone_surrogates_and_nan_are_kept(inbox: Inbox) -> None:
    """A lone surrogate in a field and a NaN price: stored, flagged, answered 200."""
    raw = b'{"message_id": "\\ud800", "number": "+33612345678", "status": "ACK", ' \
          b'"delivery_date": "2026-03-02 10:00:02", "unit_price": NaN}'  # fmt: skip
    assert post(inbox, raw) == 200
    row = inbox.delivery_reports().iloc[0]
    assert row["flags"] == "unreadable:message_id,unreadable:unit_price"


# --- stops, idempotency, signatures, files ---------------------------------------------------


def test_stops_are_stored_once_and_listed_as_opt_outs(inbox: Inbox) -> None:
    """A STOP and its retry: one row; opt_outs() names its number beside reply opt-outs."""
    stop = {"message_id": "t1-33612345678", "number": FR, "text": "STOP",
            "stop_date": "2026-03-02 11:00:00"}  # fmt: skip
    reply = {"message_id": "r1", "number": "+33699999999", "text": "ARRET",
             "sim_card_number": "38100", "reception_date": "2026-03-02T10:00:00Z"}  # fmt: skip
    assert [post(inbox, b) for b in (stop, stop, reply)] == [200, 200, 200]
    stops = inbox.stops()
    assert stops["message_id"].tolist() == ["t1-33612345678"] and stops["text"].tolist() == ["STOP"]
    assert inbox.stats()["report_duplicates"] == 1 and inbox.stats()["stops"] == 1
    assert inbox.opt_outs() == ["+33699999999", FR]  # first asker first
    assert inbox.wait(1, timeout=1, kind="stop") == 1


def test_signed_inbox_refuses_unsigned_reports_and_takes_the_sandboxs() -> None:
    """Signatures as for replies: an unsigned report is refused 401 and stored nowhere;
    the sandbox's signed reports are all stored."""
    with Inbox(signing_secret=SECRET) as inbox:
        assert post(inbox, report()) == 401
        assert inbox.delivery_reports().empty and inbox.refused == 1
        model = DeliveryModel.fast(seed=1, duplicate_share=0.0)
        with Sandbox(seed=0, delivery_model=model) as sb:
            sb.set_callback_url(inbox.url, signing_secret=SECRET)
            numbers = [f"+3367500{n:04d}" for n in range(20)]
            sb_send(sb, numbers)
            sb.wait_for_deliveries(timeout=30)
            assert sb.reports()["delivered"].all()
        assert set(inbox.delivery_status()["number"]) == set(numbers)


def sb_send(sb: Sandbox, numbers: list[str]) -> None:
    """A real marketing send over HTTP."""
    payload = {"text": "Promo STOP au 36173", "sender": "Shop",
               "recipients": [{"phone_number": n} for n in numbers]}  # fmt: skip
    answer = httpx.post(
        sb.url + "/v1/public/sms-campaign/send", json=payload, headers=sb.auth_headers(),
        trust_env=False,
    )  # fmt: skip
    assert answer.status_code == 201


def test_a_file_inbox_keeps_reports_across_restarts(tmp_path: Path) -> None:
    """Reports, standing statuses and STOPs survive a restart; a retry after it is known."""
    path = tmp_path / "callbacks.sqlite"
    with Inbox(path) as first:
        post(first, report("ACK", "2026-03-02 10:00:02"))
        post(first, report("DELIVERED"))
    with Inbox(path) as second:
        assert second.stats()["delivery_reports"] == 2
        post(second, report("ACK", "2026-03-02 10:00:02"))
        assert second.stats()["report_duplicates"] == 1
        assert standing(second) == "DELIVERED"


# --- bursts and stalls, for every kind --------------------------------------------------------


def test_burst_of_mixed_kinds_from_8_senders_loses_and_duplicates_nothing() -> None:
    """1,500 reports, 300 STOPs and 300 replies (plus re-deliveries) on 8 connections."""

    def bodies(i: int) -> list[bytes]:
        number = f"+3361{i:07d}"
        items = [report("ACK", "2026-03-02 10:00:02", message_id=f"m{i}", number=number),
                 report("DELIVERED", message_id=f"m{i}", number=number)]  # fmt: skip
        if i % 5 == 0:
            items.append({"message_id": f"m{i}", "number": number, "text": "STOP",
                          "stop_date": "2026-03-02 11:00:00"})  # fmt: skip
            items.append({"message_id": f"r{i}", "number": number, "text": "OUI",
                          "sim_card_number": "38100",
                          "reception_date": "2026-03-02T10:05:00Z"})  # fmt: skip
        return [json.dumps(b).encode() for b in items]

    count, senders = 750, 8
    jobs = [raw for i in range(count) for raw in bodies(i)]
    jobs += jobs[::7]  # re-deliveries, by another sender
    with Inbox() as inbox:
        statuses = post_concurrently(inbox.url, jobs, senders)
        status = inbox.delivery_status()
        stats = inbox.stats()
    assert statuses == [200] * len(jobs)
    assert len(status) == count and set(status["status"]) == {"DELIVERED"}
    assert (stats["delivery_reports"], stats["stops"], stats["stored"]) == (1500, 150, 150)
    assert stats["report_duplicates"] + stats["duplicates"] == len(jobs) - 1800


def test_stalled_connections_do_not_stop_delivery_reports() -> None:
    """300 stalled connections past the cap: the sandbox's reports are all stored meanwhile."""
    model = DeliveryModel.fast(seed=2)
    with (
        Inbox(request_timeout=2, max_connections=64) as inbox,
        Sandbox(seed=0, delivery_model=model) as sb,
    ):
        sb.set_callback_url(inbox.url)
        parts = urlsplit(inbox.url)
        socks = []
        try:
            for _ in range(300):
                sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
                sock.sendall(f"POST {parts.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode())
                socks.append(sock)
            numbers = [f"+3367600{n:04d}" for n in range(30)]
            started = time.monotonic()
            sb_send(sb, numbers)
            sb.wait_for_deliveries(timeout=60)
            assert time.monotonic() - started < 30
            assert sb.reports()["delivered"].all()
            assert set(inbox.delivery_status()["number"]) == set(numbers)
        finally:
            for sock in socks:
                sock.close()


def test_a_report_is_held_in_memory_while_sqlite_fails(
    inbox: Inbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite failing on a report: 200 all the same, the report held, written on the next read."""
    store = inbox._store

    class FailingOnce:
        """The store's connection, except that the first report insert fails like a full disk."""

        def __init__(self, db: sqlite3.Connection) -> None:
            self.db, self.failed = db, False

        def execute(self, sql: str, *args: Any) -> Any:
            if "INTO delivery_reports" in sql and not self.failed:
                self.failed = True
                raise sqlite3.OperationalError("disk I/O error")
            return self.db.execute(sql, *args)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.db, name)

    monkeypatch.setattr(store, "_db", FailingOnce(store._db))
    assert post(inbox, report("DELIVERED")) == 200
    assert len(store.unsaved) == 1 and store.kinds["delivery_report"] == 0
    assert standing(inbox) == "DELIVERED"  # the read writes it first
    assert inbox.stats()["delivery_reports"] == 1 and inbox.stats()["unsaved"] == 0


def test_a_message_s_reports_are_found_through_an_index_in_old_files_too(tmp_path: Path) -> None:
    """delivery_status() counts each message's reports through an index on message_id (a
    scan per message made 5,000 messages take seconds), added to a file made without it."""
    path = tmp_path / "older.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(SCHEMA.replace(
            "CREATE INDEX IF NOT EXISTS delivery_reports_by_message ON delivery_reports "
            "(message_id);", ""))  # fmt: skip
        assert not db.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND "
                              "name = 'delivery_reports_by_message'").fetchall()  # fmt: skip
    Inbox(path)
    with sqlite3.connect(path) as db:
        plan = db.execute(
            "EXPLAIN QUERY PLAN SELECT COUNT(*) FROM delivery_reports a WHERE a.message_id = ?",
            ("m",),
        ).fetchall()
    assert any("delivery_reports_by_message" in str(step) for step in plan), plan
