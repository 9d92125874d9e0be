"""Eight clients sending at once lose no balance update and no recipient."""

from __future__ import annotations

import threading

import httpx
import pytest

from smskit.sandbox import Sandbox

SEND = "/v1/public/sms-campaign/send"
CLIENTS, SENDS_EACH, RECIPIENTS = 8, 5, 50
FR_PREMIUM = 0.065


def test_concurrent_sends_lose_nothing(fresh_sandbox: Sandbox) -> None:
    """8 threads x 5 sends x 50 French recipients: every recipient recorded once, cost exact."""
    barrier = threading.Barrier(CLIENTS)
    failures: list[str] = []

    def client(worker: int) -> None:
        with httpx.Client(base_url=fresh_sandbox.url, headers=fresh_sandbox.auth_headers()) as c:
            barrier.wait()
            for send in range(SENDS_EACH):
                first = (worker * SENDS_EACH + send) * RECIPIENTS
                numbers = [f"+336{n:08d}" for n in range(first, first + RECIPIENTS)]
                body = {"text": "Hi STOP au 36173", "recipients": numbers, "sender": "MyShop"}
                response = c.post(SEND, json=body)
                if response.status_code != 201:
                    failures.append(response.text)

    threads = [threading.Thread(target=client, args=(w,)) for w in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    total = CLIENTS * SENDS_EACH * RECIPIENTS
    sent = fresh_sandbox.sent()
    assert len(sent) == total
    assert sent["phone_number"].is_unique
    assert sent["sms_ticket"].nunique() == CLIENTS * SENDS_EACH
    assert fresh_sandbox.balance() == pytest.approx(1000 - total * FR_PREMIUM)
