"""Sends the ``smskit send`` command made lately: an accidental repeat is refused.

A send's *fingerprint* is its content: text, sender, send options, region, recipients
(the ``--to`` numbers as given, or the bytes of the ``--csv`` file) and the gateway it goes
to (URL and login; the embedded sandbox counts as one). Each send that went out
is recorded (when, fingerprint, campaign name, journal) in ``cli-sends.jsonl`` in the
per-user data directory; a send whose fingerprint was recorded less than :data:`WINDOW`
before "now" is refused until ``--again`` says it is meant. Records older than a day are
dropped when a new one is written.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Final

from smskit._paths import data_dir
from smskit.rules.canonical import canonical_json

__all__ = ["WINDOW", "Earlier", "earlier_send", "fingerprint", "record_send"]

WINDOW: Final = timedelta(minutes=10)
_KEPT: Final = timedelta(days=1)


@dataclass(frozen=True, slots=True)
class Earlier:
    """A recorded send: when, its campaign's name and journal, whether it was complete."""

    at: datetime
    name: str
    journal: str
    complete: bool


def fingerprint(content: dict[str, Any], csv_file: Path | None) -> str:
    """BLAKE2b of the send's settings and recipients (a CSV file by its bytes)."""
    digest = hashlib.blake2b(canonical_json(content).encode(), digest_size=16)
    if csv_file is not None:
        digest.update(b"\ncsv\n")
        with csv_file.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def _log() -> Path:
    return data_dir() / "cli-sends.jsonl"


def _records() -> list[dict[str, Any]]:
    try:
        lines = _log().read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    found = []
    for line in lines:
        try:
            found.append(json.loads(line))
        except json.JSONDecodeError:  # a line cut by a crash: that record is lost, not the rest
            continue
    return found


def earlier_send(key: str, now: datetime) -> Earlier | None:
    """The latest recorded send of ``key`` less than :data:`WINDOW` before ``now``."""
    latest: Earlier | None = None
    for entry in _records():
        if entry.get("fingerprint") != key:
            continue
        at = datetime.fromisoformat(entry["at"])
        if timedelta(0) <= now - at < WINDOW and (latest is None or at > latest.at):
            latest = Earlier(
                at, str(entry.get("name")), str(entry.get("journal")), entry.get("complete", True)
            )
    return latest


def record_send(key: str, now: datetime, name: str, journal: Path, complete: bool) -> None:
    """Record a send made at ``now``; drop records older than a day."""
    path = _log()
    path.parent.mkdir(parents=True, exist_ok=True)
    kept = [entry for entry in _records() if abs(now - datetime.fromisoformat(entry["at"])) < _KEPT]
    kept.append(
        {"at": now.isoformat(), "fingerprint": key, "name": name, "journal": str(journal),
         "complete": complete}
    )  # fmt: skip
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    partial.write_text("".join(json.dumps(entry) + "\n" for entry in kept), encoding="utf-8")
    os.replace(partial, path)
