"""The sandbox opens the links of the texts it sent, over HTTP, as people and as bots."""

from __future__ import annotations

import httpx
import pytest

from smskit import Sandbox
from smskit.errors import ValidationError
from smskit.replies import Inbox
from smskit.rules.links import new_tokens, short_link

NUMBERS = [f"+336123456{i:02d}" for i in range(60)]


def _send(sb: Sandbox, inbox: Inbox) -> tuple[str, dict[str, str]]:
    """A send whose {param5} is each recipient's short link, registered in the inbox."""
    tokens = new_tokens(len(NUMBERS))
    inbox.register_links(
        "demo",
        [
            (t, n, i, 0, "https://shop.example/")
            for i, (t, n) in enumerate(zip(tokens, NUMBERS, strict=True))
        ],
    )
    recipients = [
        {"phone_number": n, "param5": short_link(inbox.link_base, t)}
        for n, t in zip(NUMBERS, tokens, strict=True)
    ]
    with httpx.Client(base_url=sb.url, headers=sb.auth_headers(), trust_env=False) as client:
        answer = client.post(
            "/v1/public/sms-campaign/send",
            json={"text": "Soldes: {param5} STOP au 36173", "recipients": recipients,
                  "sender": "Boutique", "purpose": "alert"},
        )  # fmt: skip
    assert answer.status_code == 201
    return str(answer.json()["sms_ticket"]), dict(zip(tokens, NUMBERS, strict=True))


def test_simulated_clicks_reach_the_inbox_and_are_told_apart(fresh_sandbox: Sandbox) -> None:
    """Every planned request is answered 302 and stored; people are human, bots are not."""
    with Inbox() as inbox:
        ticket, _ = _send(fresh_sandbox, inbox)
        made = fresh_sandbox.simulate_clicks(ticket, rate=0.5, bot_share=0.5, seed=3)
        assert (made["status"] == 302).all()
        assert (made["who"] == "human").sum() == 30
        assert made.loc[made["who"] == "human", "phone_number"].is_unique
        clicks = inbox.clicks()
        assert len(clicks) == len(made)
        humans = clicks[~clicks["bot"]]
        expected = sorted(made.loc[made["who"] == "human", "phone_number"])
        assert sorted(humans["phone_number"]) == expected
        assert set(clicks.loc[clicks["bot"], "reason"]) <= {
            "agent:facebook", "agent:whatsapp", "agent:telegram", "head", "burst",
        }  # fmt: skip


def test_the_same_seed_plans_the_same_clicks(fresh_sandbox: Sandbox) -> None:
    """Two runs with one seed make the same requests (who, which number, method, agent), in
    any span of time (the span scales the delays, not the draws)."""
    with Inbox() as inbox:
        ticket, _ = _send(fresh_sandbox, inbox)
        columns = ["phone_number", "who", "method", "user_agent"]
        plan = {"rate": 0.2, "bot_share": 0.2, "seed": 7, "within_seconds": 0.3}
        first = fresh_sandbox.simulate_clicks(ticket, **plan)
        again = fresh_sandbox.simulate_clicks(ticket, **plan)
        assert len(first) > 0 and first[columns].equals(again[columns])


def test_simulate_clicks_refuses_by_name(fresh_sandbox: Sandbox) -> None:
    """An unknown ticket, a rate or share outside [0, 1] is refused naming it."""
    with pytest.raises(ValidationError, match="ticket"):
        fresh_sandbox.simulate_clicks("nope")
    with pytest.raises(ValidationError, match="rate"):
        fresh_sandbox.simulate_clicks("nope", rate=2)
    with pytest.raises(ValidationError, match="bot_share"):
        fresh_sandbox.simulate_clicks("nope", bot_share=-1)


def test_people_click_only_after_every_slow_bot_request_was_answered() -> None:
    """A bot request answered 1.5 s late (a loaded machine): the person planned 0.4 s after
    it clicks no sooner than 0.4 s after that answer, so the burst rule never sees the two
    as one burst (a 2,000-recipient test counted 439 human clicks of 440 at load 8)."""
    import threading
    import time
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from smskit.sandbox._clicks import PlannedClick, play

    seen: dict[str, float] = {}

    class Slow(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            agent = self.headers["User-Agent"]
            seen[f"{agent} in"] = time.monotonic()
            if agent == "bot":
                time.sleep(1.5)
            seen[f"{agent} out"] = time.monotonic()
            self.send_response(302)
            self.send_header("Location", "https://example.org/")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/x"
    try:
        records = play([
            PlannedClick("+33612345678", url, "whatsapp_preview", "GET", "bot", 0.0),
            PlannedClick("+33612345678", url, "human", "GET", "phone", 0.4),
        ])  # fmt: skip
    finally:
        server.shutdown()
    assert [r["status"] for r in records] == [302, 302]
    assert seen["phone in"] - seen["bot out"] >= 0.4 - 0.05
