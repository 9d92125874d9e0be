"""Seeded fault injection for the gateway routes: 500s, 429s, lost responses, latency.

A *drop* does the work, commits it, then breaks the connection after the status line:
the client sees a protocol error and cannot tell whether the request went through, which
is exactly the case ``request_id`` exists for. Only ``/v1/public/`` routes are affected;
control routes under ``/_sandbox/`` always answer.
"""

from __future__ import annotations

import asyncio
import json
import logging
import numbers
import random
import threading
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from smskit.errors import ValidationError
from smskit.rules.once import once
from smskit.rules.ranges import checked_integer, checked_number, checked_share

GATEWAY_PREFIX = "/v1/public/"


class InjectedDrop(Exception):
    """Raised inside the ASGI app to make uvicorn close the connection mid-response."""


class _HideInjectedDrops(logging.Filter):
    """uvicorn logs every app exception; an injected drop is intended, not worth a traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], InjectedDrop))


@once  # one filter, however many sandboxes start at once
def _install_log_filter() -> None:
    logging.getLogger("uvicorn.error").addFilter(_HideInjectedDrops())


@dataclass(frozen=True)
class FaultSettings:
    """Shares of gateway requests to fail, and the added latency range in seconds."""

    error_rate: float = 0.0
    drop_rate: float = 0.0
    rate_limit_rate: float = 0.0
    latency: tuple[float, float] = (0.0, 0.0)
    seed: int = 0


def _latency(value: Any) -> tuple[float, float]:
    if isinstance(value, numbers.Real):  # one number of seconds: the same at both ends
        value = (value, value)
    if not isinstance(value, Sequence) or isinstance(value, str) or len(value) != 2:
        raise ValidationError("latency", "must be seconds or a (low, high) pair", value=value)
    low, high = (checked_number("latency", b, high=30.0, unit=" of seconds") for b in value)
    if low > high:
        raise ValidationError("latency", "low must not exceed high", value=value)
    return low, high


class Faults:
    """Current fault settings, the seeded draw, and counts of what was injected."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.settings = FaultSettings()
        self._rng = random.Random(0)
        self.counts = {"requests": 0, "errors": 0, "drops": 0, "rate_limited": 0}

    def inject_faults(
        self,
        error_rate: float = 0.0,
        drop_rate: float = 0.0,
        rate_limit_rate: float = 0.0,
        latency: float | Sequence[float] = (0.0, 0.0),
        seed: int = 0,
    ) -> None:
        """Fail a seeded share of gateway requests: 500, dropped after commit, 429; add latency.

        Replaces the settings and restarts the seeded draw."""
        rates = (
            checked_share("error_rate", error_rate),
            checked_share("drop_rate", drop_rate),
            checked_share("rate_limit_rate", rate_limit_rate),
        )
        if sum(rates) > 1.0 + 1e-9:
            raise ValidationError(
                "error_rate", "error_rate + drop_rate + rate_limit_rate must be <= 1"
            )
        seed = checked_integer("seed", seed)
        settings = FaultSettings(*rates, _latency(latency), seed)
        with self._lock:
            self.settings = settings
            self._rng = random.Random(seed)
            self.counts = dict.fromkeys(self.counts, 0)

    def clear_faults(self) -> None:
        """Stop injecting faults."""
        self.inject_faults()

    def draw(self) -> tuple[float, str | None]:
        """Latency to add and the fault to inject (``error``, ``drop``, ``rate_limit`` or None)."""
        with self._lock:
            s = self.settings
            self.counts["requests"] += 1
            low, high = s.latency
            delay = self._rng.uniform(low, high) if high > 0 else 0.0
            if not (s.error_rate or s.drop_rate or s.rate_limit_rate):
                return delay, None
            roll = self._rng.random()
            for kind, rate, counter in (
                ("rate_limit", s.rate_limit_rate, "rate_limited"),
                ("error", s.error_rate, "errors"),
                ("drop", s.drop_rate, "drops"),
            ):
                if roll < rate:
                    self.counts[counter] += 1
                    return delay, kind
                roll -= rate
            return delay, None

    def faults(self) -> dict[str, Any]:
        """Current fault settings and how many of each were injected (JSON-ready)."""
        with self._lock:
            return {**asdict(self.settings), "counts": dict(self.counts)}


def _json(status: int, body: dict[str, Any], extra: list[tuple[bytes, bytes]]) -> tuple[Any, Any]:
    payload = json.dumps(body).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
        *extra,
    ]
    return (
        {"type": "http.response.start", "status": status, "headers": headers},
        {"type": "http.response.body", "body": payload},
    )


class FaultMiddleware:
    """ASGI middleware applying :class:`Faults` to gateway routes only."""

    def __init__(self, app: Any, faults: Faults) -> None:
        self.app = app
        self.faults = faults
        _install_log_filter()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(GATEWAY_PREFIX):
            await self.app(scope, receive, send)
            return
        delay, kind = self.faults.draw()
        if delay:
            await asyncio.sleep(delay)
        if kind == "rate_limit":
            body = {"code": 429, "message": "Too many requests (injected): retry after 1 s."}
            for message in _json(429, body, [(b"retry-after", b"1")]):
                await send(message)
            return
        if kind == "error":
            body = {"code": 500, "message": "Internal server error (injected)."}
            for message in _json(500, body, []):
                await send(message)
            return
        if kind != "drop":
            await self.app(scope, receive, send)
            return
        started: dict[str, Any] = {}
        body_size = 0

        async def hold(message: Any) -> None:
            nonlocal body_size
            if message["type"] == "http.response.start":
                started.update(message)
            elif message["type"] == "http.response.body":
                body_size += len(message.get("body", b""))

        await self.app(scope, receive, hold)
        # The work is committed: send a status line announcing a body, then break the
        # connection before it. A bodiless answer (204) would be complete with its headers
        # alone, so it is announced as a 200 with one byte to come.
        if not started or body_size == 0:
            started = {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-length", b"1")],
            }
        await send(started)
        raise InjectedDrop("connection dropped after the work was committed (injected fault)")
