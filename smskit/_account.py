"""Whose data this is: a gateway account, keyed by the gateway's base URL and the login.

What smskit keeps per account on disk (the bulk HLR answers, the opt-out list) is keyed by
this pair, so what one gateway said (a sandbox) is never taken for another (another
sandbox, the real account). A trailing slash does not make another gateway; nothing else
is rewritten (``http://127.0.0.1:8000`` and ``http://localhost:8000`` are two gateways).
"""

from __future__ import annotations

__all__ = ["Gateway", "gateway_of"]

Gateway = tuple[str, str]  # (base URL, login): whose data this is


def gateway_of(base_url: str, api_login: str) -> Gateway:
    """The key of a gateway account (a trailing slash does not make another gateway)."""
    return base_url.rstrip("/"), api_login
