"""Inbound replies: callback registration, the spec's callback body, retries, STOP replies."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pandas as pd
import pytest
from _receiver import Receiver

from smskit._server import BackgroundServer
from smskit.errors import ValidationError
from smskit.sandbox import Sandbox, _callbacks
from smskit.sandbox._callbacks import MAX_ATTEMPTS, MAX_PAUSE, pause_after

FR = "+33612345678"


@pytest.fixture
def receiver() -> Iterator[tuple[Receiver, str]]:
    """A running receiver and its URL."""
    app = Receiver()
    with BackgroundServer(app, name="receiver") as server:
        yield app, server.url + "/inbound"


def test_reply_is_posted_with_the_spec_fields(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client, receiver: tuple[Receiver, str]
) -> None:
    """The callback body holds message_id, number, text, sim_card_number, reception_date."""
    app, url = receiver
    registered = fresh_api.post("/_sandbox/callback", json={"url": url, "kind": "reply"}).json()
    assert registered == {"url": url, "urls": {"reply": url, "delivery_report": None, "stop": None}}
    send = {"text": "Reply YES", "recipients": [FR], "sender": "Shop", "purpose": "alert",
            "with_replies": True}  # fmt: skip
    fresh_api.post("/v1/public/sms-campaign/send", json=send)
    result = fresh_api.post("/_sandbox/replies", json={"number": FR, "text": "YES"})
    assert result.status_code == 201
    assert result.json()["delivered"] is True
    assert len(app.bodies) == 1
    body = app.bodies[0]
    assert set(body) == {"message_id", "number", "text", "sim_card_number", "reception_date"}
    assert (body["number"], body["text"], body["sim_card_number"]) == (FR, "YES", "38100")
    assert body["reception_date"].endswith("+00:00")
    assert fresh_sandbox.replies()["message_id"].tolist() == [body["message_id"]]


def test_failed_delivery_is_retried(fresh_sandbox: Sandbox) -> None:
    """A receiver answering 500 then 200 gets the reply on the second attempt."""
    app = Receiver(statuses=[500])
    with BackgroundServer(app, name="receiver") as server:
        fresh_sandbox.set_callback_url(server.url + "/in")
        outcome = fresh_sandbox.simulate_reply(FR, "hello")
    assert (outcome["delivered"], outcome["attempts"]) == (True, 2)
    assert len(app.bodies) == 2
    assert app.bodies[0] == app.bodies[1]


def test_reply_without_callback_is_kept(fresh_sandbox: Sandbox) -> None:
    """With no callback URL the reply is stored, marked undelivered."""
    outcome = fresh_sandbox.simulate_reply(FR, "hello")
    assert outcome["delivered"] is False
    assert fresh_sandbox.replies()["text"].tolist() == ["hello"]


def test_stop_reply_blacklists_the_number(fresh_sandbox: Sandbox) -> None:
    """A reply starting with the word STOP (any case) puts the number on the blacklist."""
    fresh_sandbox.simulate_reply(FR, "ok thanks")
    assert fresh_sandbox.blacklist() == []
    fresh_sandbox.simulate_reply(FR, " Stop please")
    assert fresh_sandbox.blacklist() == [FR]


def test_callback_must_be_loopback(sandbox: Sandbox, api: httpx.Client) -> None:
    """A callback URL off this machine is refused: the sandbox never sends data out."""
    with pytest.raises(ValidationError, match="url"):
        sandbox.set_callback_url("http://example.com/inbound")
    for look_alike in ("http://localhost.example.com/x", "http://127.0.0.1.nip.io/x"):
        with pytest.raises(ValidationError, match="must point to this machine"):
            sandbox.set_callback_url(look_alike)
    with pytest.raises(ValidationError, match="must be an http:// or https:// URL"):
        sandbox.set_callback_url("http://[::1/inbound")  # unreadable: an unclosed bracket
    for port in ("0", "65536", "x"):  # no port a callback could be posted to
        with pytest.raises(ValidationError, match="must be an http:// or https:// URL"):
            sandbox.set_callback_url(f"http://127.0.0.1:{port}/inbound")
    unreadable = api.post("/_sandbox/callback", json={"url": "http://[::1/x"})
    assert unreadable.status_code == 400
    assert "url" in unreadable.json()["errors"]
    refused = api.post("/_sandbox/callback", json={"url": "ftp://127.0.0.1/x"})
    assert refused.status_code == 400
    assert "url" in refused.json()["errors"]


def test_simulated_reply_needs_a_number_and_text(sandbox: Sandbox) -> None:
    """A reply from a malformed number, or with blank text, is refused naming the field."""
    with pytest.raises(ValidationError, match="number"):
        sandbox.simulate_reply("0612", "hi")
    with pytest.raises(ValidationError, match="text"):
        sandbox.simulate_reply(FR, "  ")


# --- retry policy, background delivery, attempt log ------------------------------------------

CAMPAIGN = [f"+3361111{n:04d}" for n in range(40)]


def test_retry_pauses_double_from_50_ms_and_are_bounded() -> None:
    """Backoff: 0.05 s after the 1st failure, doubling, never more than MAX_PAUSE (1 s)."""
    assert [pause_after(n) for n in range(1, 6)] == [0.05, 0.1, 0.2, 0.4, 0.8]
    assert pause_after(6) == pause_after(30) == 1.0 == MAX_PAUSE


def test_delivery_gives_up_after_six_attempts_and_logs_each(fresh_sandbox: Sandbox) -> None:
    """A receiver that always answers 503 gets 6 attempts, each logged with the next pause."""
    app = Receiver(statuses=[503] * 10)
    with BackgroundServer(app, name="receiver") as server:
        fresh_sandbox.set_callback_url(server.url + "/in")
        outcome = fresh_sandbox.simulate_reply(FR, "hello")
    assert (outcome["delivered"], outcome["attempts"], outcome["last_status"]) == (
        False, MAX_ATTEMPTS, "503"
    )  # fmt: skip
    assert MAX_ATTEMPTS == 6 and len(app.bodies) == 6
    log = fresh_sandbox.deliveries()
    assert log["attempt"].tolist() == [1, 2, 3, 4, 5, 6]
    assert set(log["status"]) == {"503"} and not log["delivered"].any()
    assert log["retry_in"].tolist()[:5] == [0.05, 0.1, 0.2, 0.4, 0.8]
    assert log["retry_in"].isna().tolist()[5]
    gaps = log["attempted_at"].diff().dt.total_seconds().tolist()[1:]
    # Lower bounds only: an attempt never comes before its pause (times have ms precision).
    assert all(gap >= pause - 0.001 for gap, pause in zip(gaps, log["retry_in"], strict=False))
    stored = fresh_sandbox.replies().iloc[0]
    assert (stored["delivered"], stored["attempts"], stored["last_status"]) == (False, 6, "503")


def test_unreachable_receiver_is_retried_then_given_up(
    fresh_sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nobody listening: every attempt is a connection error; the reply stays undelivered."""
    monkeypatch.setattr(_callbacks, "FIRST_PAUSE", 0.001)  # the count matters here, not pauses
    server = BackgroundServer(Receiver(), name="gone")
    server.start()
    url = server.url + "/in"
    server.stop()
    fresh_sandbox.set_callback_url(url)
    outcome = fresh_sandbox.simulate_reply(FR, "hello")
    assert (outcome["delivered"], outcome["attempts"]) == (False, MAX_ATTEMPTS)
    assert set(fresh_sandbox.deliveries()["status"]) == {"ConnectError"}


class GatedReceiver(Receiver):
    """Holds every request until ``gate`` is set: proves the sender does not wait for it."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await asyncio.to_thread(self.gate.wait, 10)
        await super().__call__(scope, receive, send)


def test_reply_without_wait_returns_before_delivery(fresh_sandbox: Sandbox) -> None:
    """wait=False returns "pending" at once; wait_for_deliveries blocks until the answer."""
    app = GatedReceiver()
    with BackgroundServer(app, name="receiver") as server:
        fresh_sandbox.set_callback_url(server.url + "/in")
        outcome = fresh_sandbox.simulate_reply(FR, "hello", wait=False)
        assert (outcome["delivered"], outcome["last_status"]) == (False, "pending")
        assert fresh_sandbox.replies()["last_status"].tolist() == ["pending"]
        with pytest.raises(TimeoutError, match="1 callback deliveries still pending"):
            fresh_sandbox.wait_for_deliveries(timeout=0.1)
        app.gate.set()
        fresh_sandbox.wait_for_deliveries(timeout=5)
    assert fresh_sandbox.replies()[["delivered", "attempts"]].values.tolist() == [[True, 1]]


def test_a_failing_reply_does_not_hold_up_the_next(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """Retries are scheduled, not slept: a later reply is delivered while an earlier one waits."""
    app = Receiver(status_for=lambda body: 500 if body["text"] == "first" else 200)
    with BackgroundServer(app, name="receiver") as server:
        fresh_sandbox.set_callback_url(server.url + "/in")
        first = fresh_sandbox.simulate_reply(FR, "first", wait=False)
        second = fresh_sandbox.simulate_reply("+33698765432", "second")
        assert (second["delivered"], second["attempts"]) == (True, 1)
        # The first needs at least 1.55 s of pauses before giving up: it is still pending.
        assert fresh_api.get("/_sandbox/deliveries").json()["pending"] == 1
        fresh_sandbox.wait_for_deliveries(timeout=10)
    assert fresh_api.get("/_sandbox/deliveries").json()["pending"] == 0
    replies = fresh_sandbox.replies().set_index("message_id")
    assert replies.loc[first["message_id"], "attempts"] == MAX_ATTEMPTS
    assert not replies.loc[first["message_id"], "delivered"]


# --- scripted replies to a campaign -----------------------------------------------------------


def send_campaign(sb: Sandbox, *, with_replies: bool = True) -> str:
    """A marketing send to CAMPAIGN through the gateway endpoint; returns its ticket."""
    with httpx.Client(base_url=sb.url, headers=sb.auth_headers(), trust_env=False) as client:
        answer = client.post(
            "/v1/public/sms-campaign/send",
            json={"text": "Soldes -20% ce week-end. STOP au 36173", "recipients": CAMPAIGN,
                  "sender": "Boutique", "with_replies": with_replies},
        )  # fmt: skip
    assert answer.status_code == 201
    return str(answer.json()["sms_ticket"])


def scripted(sb: Sandbox, ticket: str, **options: Any) -> list[tuple[str, str, float]]:
    """(number, text, seconds after the send) of the scripted replies."""
    frame = sb.simulate_campaign_replies(ticket, **options)
    sent = sb.sent()
    sent_at = sent[sent["sms_ticket"] == ticket].set_index("phone_number")["sent_at"]
    delays = (frame["reception_date"] - frame["number"].map(sent_at)).dt.total_seconds()
    return list(zip(frame["number"], frame["text"], delays, strict=True))


def test_campaign_replies_pick_recipients_and_texts_from_the_seed() -> None:
    """round(rate*40) distinct recipients reply, round(share*repliers) opt out; same seed, same."""
    with Sandbox(seed=0) as one, Sandbox(seed=0) as two:
        first = scripted(one, send_campaign(one), rate=0.25, opt_out_share=0.3, seed=7)
        again = scripted(two, send_campaign(two), rate=0.25, opt_out_share=0.3, seed=7)
        other = scripted(two, send_campaign(two), rate=0.25, opt_out_share=0.3, seed=8)
    assert first == again
    assert [n for n, _, _ in other] != [n for n, _, _ in first]
    numbers = [n for n, _, _ in first]
    assert len(numbers) == len(set(numbers)) == 10  # 0.25 * 40
    assert set(numbers) <= set(CAMPAIGN)
    assert sum(text in _callbacks.OPT_OUT_TEXTS for _, text, _ in first) == 3  # round(0.3 * 10)
    assert all(0 < delay <= 48 * 3600 for _, _, delay in first)
    assert [d for _, _, d in first] == sorted(d for _, _, d in first)


def test_campaign_replies_are_delivered_and_move_the_clock(
    fresh_sandbox: Sandbox, receiver: tuple[Receiver, str]
) -> None:
    """Each scripted reply is POSTed once, from the short number; the clock reaches the last one."""
    app, url = receiver
    fresh_sandbox.set_callback_url(url, kind="reply")  # no delivery reports in app.bodies
    frame = fresh_sandbox.simulate_campaign_replies(send_campaign(fresh_sandbox), rate=0.5)
    assert frame["delivered"].all() and (frame["attempts"] == 1).all()
    assert sorted(b["message_id"] for b in app.bodies) == sorted(frame["message_id"])
    assert {b["sim_card_number"] for b in app.bodies} == {"38100"}
    now = pd.Timestamp(fresh_sandbox.now())
    assert now >= frame["reception_date"].max()


def test_campaign_replies_need_a_with_replies_ticket(fresh_sandbox: Sandbox) -> None:
    """An unknown ticket, a send without with_replies, or a rate outside [0, 1] is refused."""
    with pytest.raises(ValidationError, match="ticket"):
        fresh_sandbox.simulate_campaign_replies("nope")
    plain = send_campaign(fresh_sandbox, with_replies=False)
    with pytest.raises(ValidationError, match=r"ticket.*with_replies"):
        fresh_sandbox.simulate_campaign_replies(plain)
    ticket = send_campaign(fresh_sandbox)
    with pytest.raises(ValidationError, match="rate"):
        fresh_sandbox.simulate_campaign_replies(ticket, rate=1.5)
    with pytest.raises(ValidationError, match="opt_out_share"):
        fresh_sandbox.simulate_campaign_replies(ticket, opt_out_share=-0.1)
    assert fresh_sandbox.replies().empty


def test_reply_and_delivery_settings_are_finite_numbers_in_range(fresh_sandbox: Sandbox) -> None:
    """within_hours outside (0, 720] or not finite, and a wait for deliveries of an infinite
    or negative timeout, are refused naming the setting (the sandbox's one numeric check)."""
    ticket = send_campaign(fresh_sandbox)
    for hours in (0, 721, float("nan"), float("inf"), True):
        with pytest.raises(ValidationError) as info:
            fresh_sandbox.simulate_campaign_replies(ticket, within_hours=hours)
        assert info.value.field == "within_hours"
    for timeout in (-1, float("inf"), float("nan"), "1"):
        with pytest.raises(ValidationError) as info:
            fresh_sandbox.wait_for_deliveries(timeout=timeout)  # type: ignore[arg-type]
        assert info.value.field == "timeout"
    assert fresh_sandbox.replies().empty


def test_control_routes_for_campaign_replies_and_deliveries(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client, receiver: tuple[Receiver, str]
) -> None:
    """POST /_sandbox/campaign-replies and GET /_sandbox/deliveries mirror the Python methods."""
    url = receiver[1]
    fresh_api.post("/_sandbox/callback", json={"url": url, "kind": "reply"})
    ticket = send_campaign(fresh_sandbox)
    made = fresh_api.post(
        "/_sandbox/campaign-replies", json={"ticket": ticket, "rate": 0.1, "seed": 3}
    )
    assert made.status_code == 201
    assert len(made.json()) == 4  # 0.1 * 40
    deliveries = fresh_api.get("/_sandbox/deliveries").json()
    assert deliveries["pending"] == 0
    assert sorted(a["message_id"] for a in deliveries["attempts"]) == sorted(
        r["message_id"] for r in made.json()
    )
    refused = fresh_api.post("/_sandbox/replies", json={"number": FR, "text": "x", "wait": "no"})
    assert refused.status_code == 400 and "wait" in refused.json()["errors"]


def test_reset_forgets_the_delivery_log(
    fresh_sandbox: Sandbox, receiver: tuple[Receiver, str]
) -> None:
    """After reset() the attempt log is empty, like the replies table."""
    fresh_sandbox.set_callback_url(receiver[1])
    fresh_sandbox.simulate_reply(FR, "hello")
    assert len(fresh_sandbox.deliveries()) == 1
    fresh_sandbox.reset()
    assert fresh_sandbox.deliveries().empty and fresh_sandbox.replies().empty
