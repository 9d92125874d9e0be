"""Idempotent sends, the way payment APIs make requests idempotent (not in the spec).

A send's ``request_id`` keeps, for 24 h, its first answer and a fingerprint of its payload.
The same payload again gets that answer back unchanged, flagged as a replay (header
``Idempotent-Replayed: true``), and nothing is sent or charged. Another payload under the
same id is refused with the spec's validation error on ``request_id`` (field code 421):
a silent second send, or an answer about a send the client did not ask for, would both be
wrong. An id stored before answers were kept only says "used" (420, with its ticket).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Mapping
from typing import Any

from smskit.sandbox._casting import DUPLICATE, REUSED
from smskit.sandbox._domain import validation_error

__all__ = ["add_replay_columns", "first_answer", "payload_fingerprint", "remember"]

_IGNORED = ("request_id", "simulation_mode")  # a simulation answers what the send would get


def payload_fingerprint(payload: Any) -> str | None:
    """SHA-256 of a send's JSON body in one spelling (sorted keys, no spaces), without
    ``request_id`` and ``simulation_mode``; None for a body that is not an object."""
    if not isinstance(payload, Mapping):
        return None
    rest = {key: value for key, value in payload.items() if key not in _IGNORED}
    spelled = json.dumps(rest, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(spelled.encode("utf-8", "surrogatepass")).hexdigest()


def first_answer(
    db: sqlite3.Connection, request_id: str, fingerprint: str | None
) -> dict[str, Any] | None:
    """The stored answer when ``request_id`` was used for this payload; None when unused.

    Raises the validation error on ``request_id`` when it was used for another payload.
    """
    row = db.execute(
        "SELECT sms_ticket, fingerprint, response FROM request_ids WHERE request_id = ?",
        (request_id,),
    ).fetchone()
    if row is None:
        return None
    ticket, first_print, response = row
    if response is None:
        message = (
            "request_id was already used in the last 24 hours: the first request was "
            "accepted, this one is ignored."
        )
        errors = {"request_id": {"code": DUPLICATE, "message": message}}
        raise validation_error(errors, sms_ticket=ticket)
    if fingerprint is not None and first_print == fingerprint:
        return dict(json.loads(response))
    message = (
        "request_id was already used in the last 24 hours for a different request (other "
        "text, recipients or options): nothing was sent; use a new request_id."
    )
    raise validation_error({"request_id": {"code": REUSED, "message": message}})


def remember(
    db: sqlite3.Connection,
    request_id: str,
    ticket: str,
    now: float,
    fingerprint: str | None,
    answer: Mapping[str, Any],
) -> None:
    """Keep an accepted send's answer under its ``request_id`` (inside its transaction)."""
    db.execute(
        "INSERT INTO request_ids VALUES (?, ?, ?, ?, ?)",
        (request_id, ticket, now, fingerprint, json.dumps(answer)),
    )


def add_replay_columns(db: sqlite3.Connection) -> None:
    """A sandbox file from before answers were kept gains their columns (rows keep NULL)."""
    present = {row[1] for row in db.execute("PRAGMA table_info(request_ids)")}
    for column in ("fingerprint", "response"):
        if column not in present:
            db.execute(f"ALTER TABLE request_ids ADD COLUMN {column} TEXT")
