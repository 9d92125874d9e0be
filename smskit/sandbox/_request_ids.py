"""Duplicate protection, as the spec says it: a request_id seen in the last 24 h is refused.

"If the same request id is detected again, a validation error is returned" (spec, send
parameters); "A duplicated request_id returns a validation error (its code: not shown)"
(spec, Errors). The repeat sends and charges nothing, whatever its payload. Two shapes:

- ``"spec"`` (default): 400 ``{code: 400, message, errors: {request_id: {code: 420,
  message}}}``, the spec's validation error naming the field (420 is the sandbox's code for
  it, since the spec shows none);
- ``"legacy"``: 400 ``{code: 120, message: "A SMS with the same request_id has already been
  sent"}``, the vendor's older API (its documented error 120).

The client recognises both (:func:`smskit.rules.answers.is_duplicate_request_id`).
"""

from __future__ import annotations

import sqlite3
from typing import Final, Literal

from smskit.errors import ValidationError
from smskit.rules.answers import DUPLICATE_FIELD, LEGACY_DUPLICATE_CODE, LEGACY_DUPLICATE_MESSAGE
from smskit.sandbox._casting import DUPLICATE
from smskit.sandbox._domain import GatewayError, validation_error

__all__ = [
    "SCHEMA",
    "TABLES",
    "DuplicateAnswer",
    "check_shape",
    "check_unused",
    "duplicate_error",
    "remember",
]

SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS request_ids (
    request_id TEXT PRIMARY KEY, sms_ticket TEXT NOT NULL, created_at REAL NOT NULL);
"""
TABLES: Final = ("request_ids",)
DuplicateAnswer = Literal["spec", "legacy"]
_MESSAGE: Final = (
    "request_id was already used in the last 24 hours: this request was not sent (an earlier "
    "request with this id was accepted)."
)


def check_shape(shape: object) -> DuplicateAnswer:
    """``shape`` if it is a :data:`DuplicateAnswer`; a ValidationError otherwise."""
    if shape == "spec":
        return "spec"
    if shape == "legacy":
        return "legacy"
    raise ValidationError("duplicate_answer", "must be 'spec' or 'legacy'", value=shape)


def duplicate_error(shape: DuplicateAnswer) -> GatewayError:
    """The answer to a repeated request_id, in ``shape``."""
    if shape == "legacy":
        return GatewayError(
            400, {"code": LEGACY_DUPLICATE_CODE, "message": LEGACY_DUPLICATE_MESSAGE}
        )
    return validation_error({DUPLICATE_FIELD: {"code": DUPLICATE, "message": _MESSAGE}})


def check_unused(
    db: sqlite3.Connection, request_id: str, now: float, ttl: float, shape: DuplicateAnswer
) -> None:
    """Raise the duplicate answer when ``request_id`` was accepted less than ``ttl`` s ago."""
    db.execute("DELETE FROM request_ids WHERE created_at <= ?", (now - ttl,))
    row = db.execute("SELECT 1 FROM request_ids WHERE request_id = ?", (request_id,)).fetchone()
    if row is not None:
        raise duplicate_error(shape)


def remember(db: sqlite3.Connection, request_id: str, ticket: str, now: float) -> None:
    """Keep an accepted send's ``request_id`` (inside its transaction)."""
    db.execute(
        "INSERT INTO request_ids (request_id, sms_ticket, created_at) VALUES (?, ?, ?)",
        (request_id, ticket, now),
    )
