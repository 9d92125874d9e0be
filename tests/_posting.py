"""Test helper: callback bodies posted to one URL from several concurrent keep-alive
connections, as a gateway with many senders does."""

from __future__ import annotations

import http.client
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit


def post_concurrently(url: str, bodies: Sequence[bytes], senders: int) -> list[int]:
    """POST every body of ``bodies`` to ``url`` (JSON), spread over ``senders`` connections
    in threads (sender k posts bodies k, k + senders, ...); the HTTP statuses, sender by
    sender."""
    target = urlsplit(url)

    def sender(share: Sequence[bytes]) -> list[int]:
        conn = http.client.HTTPConnection(target.hostname, target.port, timeout=10)
        statuses = []
        for raw in share:
            conn.request("POST", target.path, raw, {"Content-Type": "application/json"})
            answer = conn.getresponse()
            answer.read()
            statuses.append(answer.status)
        conn.close()
        return statuses

    with ThreadPoolExecutor(senders) as pool:
        shares = [bodies[k::senders] for k in range(senders)]
        return [status for part in pool.map(sender, shares) for status in part]
