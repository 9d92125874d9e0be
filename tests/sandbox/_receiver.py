"""Test helper: a loopback HTTP receiver for the sandbox's callbacks (replies, delivery
reports, STOPs), served by ``smskit._server.BackgroundServer``."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


class Receiver:
    """A loopback HTTP receiver that records posted JSON and answers scripted statuses."""

    def __init__(
        self,
        statuses: list[int] | None = None,
        status_for: Callable[[dict[str, Any]], int] | None = None,
    ) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.statuses = list(statuses or [])
        self.status_for = status_for  # answers by body, once ``statuses`` are used up

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = json.loads(b"".join(chunks))
        self.bodies.append(body)
        if self.statuses:
            status = self.statuses.pop(0)
        else:
            status = self.status_for(body) if self.status_for else 200
        await send({"type": "http.response.start", "status": status, "headers": []})
        await send({"type": "http.response.body", "body": b""})
