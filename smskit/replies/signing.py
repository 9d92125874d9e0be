"""Signed inbound callbacks: an smskit extension, off unless a secret is given.

The spec gives the reply callback no authentication ("the callback request's
authentication: not shown"). When the sender and the :class:`~smskit.replies.Inbox` share a
secret, the sender signs each callback the way widely used webhook senders do:

- ``X-Smskit-Timestamp``: the Unix time of sending, in whole seconds;
- ``X-Smskit-Signature``: ``v1=`` and the lower-case hex HMAC-SHA256, keyed with the secret,
  of ``<timestamp>.`` followed by the raw body bytes exactly as sent. Several ``v1=`` values
  separated by commas are accepted (one per secret while a secret is rotated).

The receiver accepts a callback when one value matches (compared in constant time) and the
timestamp is within ``tolerance`` seconds of its clock; the timestamp is signed too, so an
old captured callback cannot be replayed with a new one. A replay inside the window repeats
a ``message_id`` the inbox already holds, and is ignored as a duplicate.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Mapping

__all__ = ["SIGNATURE_HEADER", "TIMESTAMP_HEADER", "SignatureError", "sign", "verify"]

TIMESTAMP_HEADER = "x-smskit-timestamp"
SIGNATURE_HEADER = "x-smskit-signature"
DEFAULT_TOLERANCE = 300.0  # seconds either way: clocks of sender and receiver drift


class SignatureError(Exception):
    """A callback's signature is missing, malformed, wrong or stale (caught by the receiver)."""


def secret_bytes(field: str, secret: str | bytes) -> bytes:
    """The secret as bytes; at least 16 bytes, so it cannot be guessed by trying."""
    from smskit.errors import ValidationError

    if isinstance(secret, str):
        try:
            secret = secret.encode("utf-8")
        except UnicodeEncodeError:  # the secret itself is never shown
            raise ValidationError(field, "must be text without a lone surrogate") from None
    if not isinstance(secret, bytes):
        raise ValidationError(field, "must be a str or bytes")
    if len(secret) < 16:  # the secret itself is never shown
        raise ValidationError(field, "must be at least 16 bytes long (in UTF-8)")
    return secret


def _digest(secret: bytes, timestamp: str, body: bytes) -> str:
    return hmac.new(secret, timestamp.encode("ascii") + b"." + body, hashlib.sha256).hexdigest()


def sign(secret: bytes, body: bytes, timestamp: int) -> dict[str, str]:
    """The two headers that sign ``body`` sent at ``timestamp`` (Unix seconds)."""
    stamp = str(int(timestamp))
    return {TIMESTAMP_HEADER: stamp, SIGNATURE_HEADER: f"v1={_digest(secret, stamp, body)}"}


def verify(
    secret: bytes,
    body: bytes,
    headers: Mapping[str, str],
    *,
    tolerance: float = DEFAULT_TOLERANCE,
) -> None:
    """Return if ``body`` carries a valid, fresh signature; raise :class:`SignatureError`."""
    stamp = headers.get(TIMESTAMP_HEADER)
    given = headers.get(SIGNATURE_HEADER)
    if stamp is None or given is None:
        raise SignatureError(f"no {TIMESTAMP_HEADER} or {SIGNATURE_HEADER} header")
    if not (stamp.isascii() and stamp.isdigit() and len(stamp) <= 12):
        raise SignatureError(f"{TIMESTAMP_HEADER} is not Unix seconds")
    age = time.time() - int(stamp)
    if abs(age) > tolerance:
        raise SignatureError(f"timestamp {age:.0f} s away from now (window {tolerance:g} s)")
    expected = _digest(secret, stamp, body)
    candidates = [part.strip()[3:] for part in given.split(",") if part.strip().startswith("v1=")]
    # Every candidate is compared, so the time taken does not tell which one matched.
    matches = [
        hmac.compare_digest(c.encode("ascii", "replace"), expected.encode()) for c in candidates
    ]
    if not any(matches):
        raise SignatureError("signature does not match the body and timestamp")
