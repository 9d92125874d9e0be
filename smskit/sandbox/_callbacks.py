"""Deliver inbound-SMS callbacks (the spec's "Events") to a loopback URL.

The spec requires the receiver to answer 200; anything else, or no answer, is retried a
few times with a short pause. Only loopback URLs are accepted: the sandbox never sends
anything off the machine.
"""

from __future__ import annotations

import ipaddress
import time
from typing import Any
from urllib.parse import urlsplit

from smskit.errors import ValidationError

ATTEMPTS = 3
TIMEOUT = 2.0
PAUSES = (0.05, 0.2)


def check_callback_url(url: str) -> None:
    """An http(s) URL whose host is loopback (127.0.0.0/8, ::1, localhost)."""
    if not isinstance(url, str):
        raise ValidationError("url", "must be a string", value=url)
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValidationError("url", "must be an http:// or https:// URL", value=url)
    host = parts.hostname
    if host == "localhost":
        return
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise ValidationError(
            "url", "must point to this machine (127.0.0.1, ::1 or localhost)", value=url
        )


def deliver(url: str, body: dict[str, Any]) -> dict[str, Any]:
    """POST the callback body until the receiver answers 200 (at most ``ATTEMPTS`` tries)."""
    import httpx

    status = ""
    with httpx.Client(timeout=TIMEOUT, trust_env=False) as client:
        for attempt in range(1, ATTEMPTS + 1):
            try:
                response = client.post(url, json=body)
            except httpx.HTTPError as exc:
                status = f"{type(exc).__name__}"
            else:
                status = str(response.status_code)
                if response.status_code == 200:
                    return {"delivered": True, "attempts": attempt, "last_status": status}
            if attempt < ATTEMPTS:
                time.sleep(PAUSES[min(attempt - 1, len(PAUSES) - 1)])
    return {"delivered": False, "attempts": ATTEMPTS, "last_status": status}
