"""The sandbox's clock: wall time plus an offset that tests and demos can move forward.

Scheduled sends and the 24-hour ``request_id`` window read this clock, so a test can
check both without sleeping.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from smskit.rules.ranges import checked_number


class Clock:
    """UTC wall clock with an adjustable forward offset (never goes back)."""

    def __init__(self) -> None:
        self._offset = 0.0
        self._lock = threading.Lock()

    def now(self) -> datetime:
        """Current sandbox time, timezone-aware UTC."""
        return datetime.now(UTC) + timedelta(seconds=self._offset)

    def timestamp(self) -> float:
        """Current sandbox time as a Unix timestamp."""
        return self.now().timestamp()

    def advance(self, seconds: float) -> datetime:
        """Move time forward by ``seconds`` (a finite number >= 0) and return the new time."""
        seconds = checked_number("seconds", seconds)
        with self._lock:
            self._offset += seconds
        return self.now()

    def reset(self) -> None:
        """Back to wall time."""
        with self._lock:
            self._offset = 0.0
