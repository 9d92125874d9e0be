"""Play delivery reports and STOPs of messages as they leave: scripted once each, then queued.

The gateway calls :meth:`Player.play` after every operation that can put messages on the
network (a send, a clock move that dispatches scheduled ones, a read of ``sent()``). Each
message sent while a delivery-report or STOP URL is registered is scripted exactly once
(:func:`smskit.sandbox._reports.script`) and its callbacks queued on the sandbox's delivery
worker, each at its own time; messages sent while no such URL was registered get none,
as the vendor posts only to registered URLs. The record of what was scripted lives in
memory, like the delivery log: a file sandbox opened again treats the messages it already
holds as played.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any

from smskit.sandbox._callbacks import Deliveries
from smskit.sandbox._reports import CallbackFaults, DeliveryModel, Outgoing, SentMessage, script

# The HLR answer the sandbox gives a number: (line_status, phone_number_type).
LineOf = Callable[[str], tuple[str, str]]


class Player:
    """What was scripted, the model and faults it was scripted with, and the queueing."""

    def __init__(self, deliveries: Deliveries, model: DeliveryModel | None = None) -> None:
        self.deliveries = deliveries
        self.model = model or DeliveryModel()
        self.faults = CallbackFaults()
        self._lock = threading.Lock()
        self._played: set[tuple[str, str]] = set()
        self._log: list[Outgoing] = []

    def skip(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Take these sent messages as played: no callback will ever be scripted for them."""
        with self._lock:
            self._played.update(_key(r) for r in rows if r["status"] == "sent")

    def play(
        self,
        rows: Iterable[Mapping[str, Any]],
        *,
        urls: Mapping[str, str | None],
        line_of: LineOf,
        blacklist: set[str],
        now: float,
    ) -> list[Outgoing]:
        """Script and queue the callbacks of every sent message not played yet."""
        report_url, stop_url = urls.get("delivery_report"), urls.get("stop")
        with self._lock:
            fresh = [r for r in rows if r["status"] == "sent" and _key(r) not in self._played]
            self._played.update(_key(r) for r in fresh)
            if not fresh or (report_url is None and stop_url is None):
                return []
            messages = [_message(r, line_of, blacklist) for r in fresh]
            outgoing = script(
                messages, self.model, self.faults, now=now,
                reports=report_url is not None, stops=stop_url is not None,
            )  # fmt: skip
            start = len(self._log)
            self._log.extend(outgoing)
        for index, item in enumerate(outgoing, start):
            if item.fault == "withheld":
                continue
            url = report_url if item.kind == "delivery_report" else stop_url
            assert url is not None
            self.deliveries.submit_later(
                url, item.body, key=f"{item.kind}#{index}", kind=item.kind, delay=item.post_in
            )
        return outgoing

    def records(self) -> list[dict[str, Any]]:
        """Every scripted callback, in the order scripted (each with its delivery key)."""
        with self._lock:
            log = list(self._log)
        return [{**o.record(), "key": f"{o.kind}#{i}"} for i, o in enumerate(log)]

    def clear(self) -> None:
        """Forget what was scripted (sandbox reset; the queue is cleared by its owner)."""
        with self._lock:
            self._played.clear()
            self._log.clear()


def _key(row: Mapping[str, Any]) -> tuple[str, str]:
    return str(row["sms_ticket"]), str(row["phone_number"])


def _message(row: Mapping[str, Any], line_of: LineOf, blacklist: set[str]) -> SentMessage:
    number = str(row["phone_number"])
    line_status, kind = line_of(number)
    return SentMessage(
        sms_ticket=str(row["sms_ticket"]),
        phone_number=number,
        unit_price=float(row["unit_price"]),
        sent_at=datetime.fromisoformat(str(row["sent_at"])).timestamp(),
        purpose=str(row["purpose"]),
        blacklisted=number in blacklist,
        line_status=line_status,
        phone_number_type=kind,
    )
