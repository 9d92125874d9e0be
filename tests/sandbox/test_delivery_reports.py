"""Delivery reports and STOPs from the sandbox: outcomes, timing, registration, control."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from _receiver import Receiver

from smskit._server import BackgroundServer
from smskit.errors import ValidationError
from smskit.sandbox import DeliveryModel, Sandbox
from smskit.sandbox._reports import CallbackFaults, SentMessage, script

SEND = "/v1/public/sms-campaign/send"
TEXT = "Sale -20% today. STOP au 36173"
NUMBERS = [f"+3367400{n:04d}" for n in range(40)]
SENT_AT = datetime(2026, 3, 2, 10, 0, tzinfo=UTC).timestamp()


@pytest.fixture
def collector() -> Iterator[tuple[Receiver, str]]:
    """A running collector and its URL."""
    app = Receiver()
    with BackgroundServer(app, name="collector") as server:
        yield app, server.url + "/in"


@pytest.fixture
def fast_sandbox() -> Iterator[Sandbox]:
    """A fresh sandbox whose reports come fast (seeded), with many STOPs."""
    with Sandbox(seed=0, delivery_model=DeliveryModel.fast(seed=4, stop_share=0.5)) as sb:
        yield sb


def send(sb: Sandbox, **fields: Any) -> str:
    """A real send of TEXT to NUMBERS over HTTP; its ticket."""
    payload = {"text": TEXT, "recipients": [{"phone_number": n} for n in NUMBERS],
               "sender": "MyShop", **fields}  # fmt: skip
    answer = httpx.post(sb.url + SEND, json=payload, headers=sb.auth_headers(), trust_env=False)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["sms_ticket"])


def message(line_status: str = "live", **fields: Any) -> SentMessage:
    """A marketing message to one French mobile, sent at SENT_AT."""
    options: dict[str, Any] = {"sms_ticket": "t1", "phone_number": "+33612345678",
                               "unit_price": 0.065, "sent_at": SENT_AT, "purpose": "wholesale",
                               "blacklisted": False, "line_status": line_status,
                               "phone_number_type": "mobile", **fields}  # fmt: skip
    return SentMessage(**options)


def finals(line_status: str, **fields: Any) -> set[str]:
    """The final statuses of one message over 40 model seeds."""
    found = set()
    for seed in range(40):
        out = script([message(line_status, **fields)], DeliveryModel(seed=seed), CallbackFaults(),
                     now=SENT_AT, reports=True, stops=False)  # fmt: skip
        found |= {o.status for o in out if o.status != "ACK"}
    return {s for s in found if s is not None}


@pytest.mark.parametrize(
    ("line_status", "expected"),
    [("live", {"DELIVERED"}), ("dead", {"NOT_DELIVERED"}),
     ("absent_subscriber", {"DELIVERED", "UNKNOWN_DELIVERY"}),
     ("no_teleservice_provisioned", {"NOT_ALLOWED"}), ("no_coverage", {"NOT_DELIVERED"}),
     ("not_available_network_only", {"UNKNOWN_DELIVERY"}), ("inconclusive", {"UNDEFINED"})],
)  # fmt: skip
def test_final_status_follows_the_line_status(line_status: str, expected: set[str]) -> None:
    """The documented table: each HLR line status gives its final status (both for absent)."""
    assert finals(line_status) == expected


def test_blacklist_and_unallocated_numbers_are_refused_without_ack() -> None:
    """Blacklisted: BLACKLISTED_NUMBER; a drama or malformed number: BAD_DESTINATION; no ACK."""
    for fields, status in [
        ({"blacklisted": True, "line_status": "live"}, "BLACKLISTED_NUMBER"),
        ({"phone_number_type": "stage_and_screen", "line_status": "dead"}, "BAD_DESTINATION"),
        ({"phone_number_type": "bad_format", "line_status": "not_applicable"}, "BAD_DESTINATION"),
    ]:
        out = script([message(**fields)], DeliveryModel(), CallbackFaults(),
                     now=SENT_AT, reports=True, stops=True)  # fmt: skip
        assert [o.status for o in out] == [status]


def test_report_bodies_have_the_vendor_fields_and_timing() -> None:
    """ACK then final: the vendor's fields, dates `YYYY-MM-DD HH:MM:SS` of network time,
    posted time_scale real seconds per network second."""
    model = DeliveryModel(seed=1, time_scale=0.01, late_share=0.0, duplicate_share=0.0)
    out = script([message("live")], model, CallbackFaults(), now=SENT_AT, reports=True,
                 stops=False)  # fmt: skip
    assert [o.status for o in out] == ["ACK", "DELIVERED"]
    for item in out:
        assert set(item.body) == {"message_id", "number", "status", "delivery_date",
                                  "list_name", "unit_price"}  # fmt: skip
        assert item.body["message_id"] == "t1-33612345678"
        at = datetime.strptime(item.body["delivery_date"], "%Y-%m-%d %H:%M:%S")
        delay = at.replace(tzinfo=UTC).timestamp() - SENT_AT
        assert item.post_in == pytest.approx(delay * 0.01)
    ack, final = out
    assert 1 <= ack.at - SENT_AT <= 5 and 3 <= final.at - SENT_AT <= 60 and ack.at <= final.at


def test_same_seed_same_callbacks_in_any_order() -> None:
    """Draws hang on (seed, message_id): scripting messages in another order changes nothing."""
    messages = [message("live", phone_number=f"+3361234{n:04d}") for n in range(50)]
    model = DeliveryModel(seed=9, late_share=0.5, duplicate_share=0.5, stop_share=0.5)

    def played(items: list[SentMessage]) -> list[Any]:
        out = script(items, model, CallbackFaults(0.1, 0.2, 3), now=SENT_AT, reports=True,
                     stops=True)  # fmt: skip
        return sorted((o.kind, o.message_id, str(o.status), o.at, str(o.copy), str(o.fault))
                      for o in out)  # fmt: skip

    assert played(messages) == played(messages[::-1])
    other = DeliveryModel(seed=10, late_share=0.5, duplicate_share=0.5, stop_share=0.5)
    again = script(messages, other, CallbackFaults(), now=SENT_AT, reports=True, stops=True)
    assert sorted((o.kind, o.message_id, o.at) for o in again) != [
        (k, m, a) for k, m, _, a, _, _ in played(messages)
    ]


def test_send_posts_reports_and_stops_only_for_marketing(
    fast_sandbox: Sandbox, collector: tuple[Receiver, str]
) -> None:
    """A marketing send gets reports and STOPs; an alert send, reports only."""
    app, url = collector
    fast_sandbox.set_callback_url(url)
    send(fast_sandbox)
    fast_sandbox.wait_for_deliveries(timeout=30)
    stops = [b for b in app.bodies if "stop_date" in b]
    assert len(stops) >= 5 and {b["text"] for b in stops} == {"STOP"}
    app.bodies.clear()
    send(fast_sandbox, purpose="alert", text="Your parcel arrives today.")
    fast_sandbox.wait_for_deliveries(timeout=30)
    assert app.bodies and not [b for b in app.bodies if "stop_date" in b]
    assert {b["number"] for b in app.bodies} == set(NUMBERS)


def test_one_kind_per_url_and_none_before_registration(
    fast_sandbox: Sandbox, collector: tuple[Receiver, str]
) -> None:
    """A send before any URL gets nothing, even later; a report-only URL gets no STOP;
    a simulation gets nothing."""
    app, url = collector
    send(fast_sandbox)
    fast_sandbox.set_callback_url(url, kind="delivery_report")
    assert fast_sandbox.callback_urls() == {"reply": None, "delivery_report": url, "stop": None}
    fast_sandbox.wait_for_deliveries(timeout=30)
    assert app.bodies == []
    send(fast_sandbox, simulation_mode=True)
    fast_sandbox.wait_for_deliveries(timeout=30)
    assert app.bodies == []
    ticket = send(fast_sandbox)
    fast_sandbox.wait_for_deliveries(timeout=30)
    assert app.bodies and all("status" in b for b in app.bodies)
    assert {b["message_id"].rsplit("-", 1)[0] for b in app.bodies} == {ticket}
    assert set(fast_sandbox.deliveries()["kind"]) == {"delivery_report"}


def test_a_url_given_at_start_serves_every_kind(collector: tuple[Receiver, str]) -> None:
    """Sandbox(callback_url=...) registers the URL for replies, reports and STOPs."""
    app, url = collector
    model = DeliveryModel.fast(stop_share=1.0)
    with Sandbox(seed=0, callback_url=url, delivery_model=model) as sb:
        assert sb.callback_urls() == {"reply": url, "delivery_report": url, "stop": url}
        send(sb)
        sb.simulate_reply(NUMBERS[0], "OUI")
        sb.wait_for_deliveries(timeout=30)
        kinds = set(sb.deliveries()["kind"])
    assert kinds == {"reply", "delivery_report", "stop"}
    assert {"reception_date", "delivery_date", "stop_date"} <= {k for b in app.bodies for k in b}


def test_scheduled_send_reports_when_the_clock_reaches_it(
    fast_sandbox: Sandbox, collector: tuple[Receiver, str]
) -> None:
    """Nothing is posted for a scheduled send until advance() dispatches it; its dates
    then follow send_at."""
    app, url = collector
    fast_sandbox.set_callback_url(url)
    send_at = datetime.now(UTC) + timedelta(hours=2)
    send(fast_sandbox, send_at=send_at.strftime("%Y-%m-%dT%H:%M:%S+00:00"))
    time.sleep(0.2)
    fast_sandbox.wait_for_deliveries(timeout=30)
    assert app.bodies == []
    fast_sandbox.advance(3 * 3600)
    fast_sandbox.wait_for_deliveries(timeout=30)
    dates = [
        datetime.strptime(b["delivery_date"], "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
        for b in app.bodies
        if "delivery_date" in b
    ]
    assert len(dates) >= len(NUMBERS)
    assert min(dates) >= send_at.replace(microsecond=0)


def test_control_routes_mirror_the_python_methods(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client, collector: tuple[Receiver, str]
) -> None:
    """delivery-model, callback-faults, callback {kind} and reports over HTTP; bad values
    refused naming the field."""
    url = collector[1]
    model = {"seed": 2, "time_scale": 1e-5, "late_share": 0.0, "duplicate_share": 0.0,
             "stop_share": 0.0}  # fmt: skip
    assert fresh_api.post("/_sandbox/delivery-model", json=model).json() == model
    faults = {"withhold_rate": 1.0, "garble_rate": 0.0, "seed": 1}
    assert fresh_api.post("/_sandbox/callback-faults", json=faults).json() == faults
    fresh_api.post("/_sandbox/callback", json={"url": url, "kind": "delivery_report"})
    send(fresh_sandbox)
    fresh_sandbox.wait_for_deliveries(timeout=30)
    reports = fresh_api.get("/_sandbox/reports").json()
    assert len(reports) == 2 * len(NUMBERS) and {r["fault"] for r in reports} == {"withheld"}
    assert collector[0].bodies == []
    cleared = fresh_api.delete("/_sandbox/callback-faults").json()
    assert cleared == {"withhold_rate": 0.0, "garble_rate": 0.0, "seed": 0}
    for route, body, field in [
        ("/_sandbox/delivery-model", {"late_share": 2}, "late_share"),
        ("/_sandbox/delivery-model", {"time_scale": 0}, "time_scale"),
        ("/_sandbox/delivery-model", {"speed": 1}, "speed"),
        ("/_sandbox/callback-faults", {"withhold_rate": 0.6, "garble_rate": 0.6}, "withhold"),
        ("/_sandbox/callback", {"url": url, "kind": "voice"}, "kind"),
    ]:
        refused = fresh_api.post(route, json=body)
        assert refused.status_code == 400 and field in refused.text, (route, refused.text)


def test_python_control_refuses_bad_settings(fresh_sandbox: Sandbox) -> None:
    """A share outside [0, 1], a bad seed or a model of another type is refused by name."""
    with pytest.raises(ValidationError, match="stop_share"):
        DeliveryModel(stop_share=-0.1)
    with pytest.raises(ValidationError, match="seed"):
        fresh_sandbox.inject_callback_faults(seed="x")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="kind"):
        fresh_sandbox.set_callback_url("http://127.0.0.1:9/x", kind="sms")
    with pytest.raises(ValidationError, match="model"):
        fresh_sandbox.set_delivery_model({"seed": 1})  # type: ignore[arg-type]


def test_a_file_sandbox_opened_again_does_not_replay_old_sends(
    tmp_path: Any, collector: tuple[Receiver, str]
) -> None:
    """Reopened on its file (URLs kept), the sandbox posts nothing for messages it already
    held, and reports the next send."""
    app, url = collector
    path = str(tmp_path / "account.sqlite")
    with Sandbox(path, seed=0, callback_url=url, delivery_model=DeliveryModel.fast()) as sb:
        send(sb)
        sb.wait_for_deliveries(timeout=30)
    first = len(app.bodies)
    assert first >= len(NUMBERS)
    with Sandbox(path, seed=0, delivery_model=DeliveryModel.fast()) as sb:
        assert sb.callback_urls()["delivery_report"] == url
        sb.sent()
        sb.wait_for_deliveries(timeout=30)
        assert len(app.bodies) == first and sb.reports().empty
        ticket = send(sb)
        sb.wait_for_deliveries(timeout=30)
    assert {b["message_id"].rsplit("-", 1)[0] for b in app.bodies[first:]} == {ticket}
