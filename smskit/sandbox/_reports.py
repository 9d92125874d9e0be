"""Delivery reports and STOP callbacks for real sends: the vendor's behaviour, scripted.

An smskit extension that follows the vendor (docs/sandbox.md, "Delivery reports and STOP
callbacks"). For each message a real send puts on the network, :func:`script` decides from
the sandbox's own model of the number (:mod:`smskit.sandbox._hlr`, so a report agrees with
the HLR answer for the same number and seed) which reports it gets, with which status, at
which network time, and when each is posted. Every draw comes from
``blake2b(model seed, message_id, slot)``: the same send with the same seeds gives the same
callbacks, whatever order messages are scripted in. Pure: no I/O, no clock.

Network time (``delivery_date``, ``stop_date``) is the message's ``sent_at`` plus a delay;
a callback is posted ``time_scale`` real seconds per second of network time after the
moment it is scripted (an hour in a second by default; :meth:`DeliveryModel.fast` for tests).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

from smskit.errors import ValidationError
from smskit.rules.callbacks import DATE_FORMAT, report_message_id
from smskit.rules.content import is_marketing
from smskit.rules.ranges import checked_integer, checked_number, checked_share

__all__ = ["CallbackFaults", "DeliveryModel", "Outgoing", "SentMessage", "checked_model", "script"]

_HOUR: Final = 3600.0
EXPIRY: Final = 6 * _HOUR  # when a message nobody could take is given up (network time)
# Line status (HLR) -> final status and its delay range in network seconds.
_OUTCOME: Final = {
    "live": ("DELIVERED", 3.0, 60.0),
    "dead": ("NOT_DELIVERED", 5.0, 120.0),
    "no_teleservice_provisioned": ("NOT_ALLOWED", 2.0, 30.0),
    "no_coverage": ("NOT_DELIVERED", EXPIRY, EXPIRY + 60.0),
    "not_available_network_only": ("UNKNOWN_DELIVERY", 5.0, 120.0),
    "inconclusive": ("UNDEFINED", 5.0, 120.0),
}
# An absent subscriber: delivered when the phone comes back within the expiry, else unknown.
_ABSENT_DELIVERED: Final = ("DELIVERED", 0.5 * _HOUR, EXPIRY)
_ABSENT_UNKNOWN: Final = ("UNKNOWN_DELIVERY", EXPIRY, EXPIRY + 60.0)
_REFUSED_AT_ONCE: Final = (1.0, 5.0)  # bad destination, blacklisted: no operator involved
# SMPP-style spellings a garbled report carries instead of the vendor's status.
_FOREIGN_STATUS: Final = {"DELIVERED": "DELIVRD", "ACK": "ACCEPTD", "NOT_DELIVERED": "UNDELIV"}
_GARBLES: Final = {
    "delivery_report": ("unknown_status", "missing_status", "bad_date", "missing_number"),
    "stop": ("bad_date", "missing_number"),
}


@dataclass(frozen=True)
class DeliveryModel:
    """How delivery reports and STOPs are played: seed, speed, shares late, twice, STOP.

    ``late_share`` of the messages with an ACK get it after their final report (out of
    order); ``duplicate_share`` get their final report twice; ``stop_share`` of the
    marketing recipients whose message is delivered send a STOP. ``time_scale``: real
    seconds per second of network time.
    """

    seed: int = 0
    time_scale: float = 1 / 3600
    late_share: float = 0.05
    duplicate_share: float = 0.05
    stop_share: float = 0.02

    def __post_init__(self) -> None:
        object.__setattr__(self, "seed", checked_integer("seed", self.seed))
        for name in ("late_share", "duplicate_share", "stop_share"):
            object.__setattr__(self, name, checked_share(name, getattr(self, name)))
        scale = checked_number("time_scale", self.time_scale, high=1.0, above=True)
        object.__setattr__(self, "time_scale", scale)

    @classmethod
    def fast(cls, seed: int = 0, **shares: float) -> DeliveryModel:
        """The same outcomes with network time 100,000 times faster (6 h in 0.2 s): tests."""
        return cls(seed=seed, time_scale=1e-5, **shares)

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> DeliveryModel:
        """From a control request's fields (unknown fields refused by name)."""
        known = ("seed", "time_scale", "late_share", "duplicate_share", "stop_share")
        for name in body:
            if name not in known:
                raise ValidationError(name, f"unknown field; use {', '.join(known)}")
        return cls(**body)


def checked_model(name: str, value: Any) -> DeliveryModel:
    """``value`` if it is a :class:`DeliveryModel`; else a ValidationError naming ``name``."""
    if not isinstance(value, DeliveryModel):
        raise ValidationError(name, "must be a DeliveryModel", value=value)
    return value


@dataclass(frozen=True)
class CallbackFaults:
    """A seeded share of delivery reports and STOPs never posted, and one posted garbled."""

    withhold_rate: float = 0.0
    garble_rate: float = 0.0
    seed: int = 0

    def __post_init__(self) -> None:
        withhold = checked_share("withhold_rate", self.withhold_rate)
        garble = checked_share("garble_rate", self.garble_rate)
        object.__setattr__(self, "withhold_rate", withhold)
        object.__setattr__(self, "garble_rate", garble)
        object.__setattr__(self, "seed", checked_integer("seed", self.seed))
        if withhold + garble > 1 + 1e-9:
            raise ValidationError("withhold_rate", "withhold_rate + garble_rate must be <= 1")


@dataclass(frozen=True)
class SentMessage:
    """What the script needs of one message the gateway put on the network."""

    sms_ticket: str
    phone_number: str
    unit_price: float  # EUR per SMS
    sent_at: float  # Unix seconds, sandbox clock
    purpose: str
    blacklisted: bool  # on the account blacklist when sent (and not removed on request)
    line_status: str  # the sandbox's HLR answer for the number
    phone_number_type: str


@dataclass(frozen=True)
class Outgoing:
    """One scripted callback: its body (as posted), when, and how it was played."""

    kind: str  # delivery_report or stop
    message_id: str
    number: str
    status: str | None  # the status decided (a garbled body may carry another)
    at: float  # network time, Unix seconds
    post_in: float  # real seconds after scripting
    copy: str | None  # None, "late" (an ACK after the final) or "duplicate"
    fault: str | None  # None, "withheld" or "garbled:<how>"
    body: dict[str, Any]

    def record(self) -> dict[str, Any]:
        """JSON-ready, for ``Sandbox.reports()``."""
        return {
            "kind": self.kind, "message_id": self.message_id, "number": self.number,
            "status": self.status, "at": _stamp(self.at), "post_in": self.post_in,
            "copy": self.copy, "fault": self.fault,
        }  # fmt: skip


def _units(*parts: object) -> list[float]:
    """Sixteen independent uniform draws in [0, 1) from the parts' hash."""
    digest = hashlib.blake2b("\x1f".join(map(str, parts)).encode(), digest_size=64).digest()
    return [int.from_bytes(digest[i : i + 4], "big") / 4294967296.0 for i in range(0, 64, 4)]


def _stamp(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime(DATE_FORMAT)


def _between(u: float, low: float, high: float) -> float:
    return float(int(low + u * (high - low)))


def final_outcome(message: SentMessage, u: float) -> tuple[str, float, float, bool]:
    """(status, low, high delay, whether an operator ACKs first) of one message."""
    if message.blacklisted:
        return ("BLACKLISTED_NUMBER", *_REFUSED_AT_ONCE, False)
    if message.phone_number_type in ("bad_format", "stage_and_screen"):
        return ("BAD_DESTINATION", *_REFUSED_AT_ONCE, False)
    if message.line_status == "absent_subscriber":
        return (*(_ABSENT_DELIVERED if u < 0.5 else _ABSENT_UNKNOWN), True)
    status, low, high = _OUTCOME.get(message.line_status, ("UNDEFINED", 5.0, 120.0))
    return status, low, high, True


def script(
    messages: Iterable[SentMessage],
    model: DeliveryModel,
    faults: CallbackFaults,
    *,
    now: float,
    reports: bool,
    stops: bool,
) -> list[Outgoing]:
    """Every callback these messages get (delivery reports if ``reports``, STOPs if
    ``stops``: a kind with no URL registered gets none), soonest posted first."""
    out: list[Outgoing] = []
    for message in messages:
        message_id = report_message_id(message.sms_ticket, message.phone_number)
        u = _units(model.seed, message_id)
        status, low, high, acked = final_outcome(message, u[0])
        final_at = message.sent_at + _between(u[2], low, high)
        plays: list[tuple[str, str | None, float, float, str | None]] = []  # kind, status,...
        if reports:
            if acked:
                ack_at = message.sent_at + _between(u[1], 1.0, min(5.0, final_at - message.sent_at))
                late = u[3] < model.late_share
                posted = final_at + _between(u[7], 1.0, 60.0) if late else ack_at
                plays.append(("delivery_report", "ACK", ack_at, posted, "late" if late else None))
            plays.append(("delivery_report", status, final_at, final_at, None))
            if u[4] < model.duplicate_share:
                again = final_at + _between(u[8], 1.0, 300.0)
                plays.append(("delivery_report", status, final_at, again, "duplicate"))
        marketing = is_marketing(message.purpose)
        if stops and status == "DELIVERED" and marketing and u[5] < model.stop_share:
            stop_at = final_at + _between(u[6], 60.0, 2 * _HOUR)
            plays.append(("stop", None, stop_at, stop_at, None))
        for kind, play_status, at, posted, copy in plays:
            body = _body(kind, message, message_id, play_status, at)
            fault, body = _fault(faults, kind, message_id, play_status, copy, body)
            post_in = max(0.0, (posted - now) * model.time_scale)
            out.append(
                Outgoing(kind, message_id, message.phone_number, play_status, at, post_in,
                         copy, fault, body)
            )  # fmt: skip
    return sorted(out, key=lambda o: (o.post_in, o.message_id, o.kind))


def _body(
    kind: str, message: SentMessage, message_id: str, status: str | None, at: float
) -> dict[str, Any]:
    if kind == "stop":
        return {"message_id": message_id, "number": message.phone_number, "text": "STOP",
                "stop_date": _stamp(at)}  # fmt: skip
    return {
        "message_id": message_id, "number": message.phone_number, "status": status,
        "delivery_date": _stamp(at), "list_name": None, "unit_price": message.unit_price,
    }  # fmt: skip


def _fault(
    faults: CallbackFaults,
    kind: str,
    message_id: str,
    status: str | None,
    copy: str | None,
    body: dict[str, Any],
) -> tuple[str | None, dict[str, Any]]:
    if not (faults.withhold_rate or faults.garble_rate):
        return None, body
    u = _units("fault", faults.seed, kind, message_id, status, copy)
    if u[0] < faults.withhold_rate:
        return "withheld", body
    if u[0] >= faults.withhold_rate + faults.garble_rate:
        return None, body
    choices = _GARBLES[kind]
    how = choices[int(u[1] * len(choices))]
    garbled = dict(body)
    date_field = "stop_date" if kind == "stop" else "delivery_date"
    if how == "unknown_status":
        garbled["status"] = _FOREIGN_STATUS.get(str(status), "UNKNOWN")
    elif how == "missing_status":
        del garbled["status"]
    elif how == "missing_number":
        del garbled["number"]
    else:  # bad_date: day first, no seconds; no ISO reading takes it
        moment = datetime.strptime(body[date_field], DATE_FORMAT)
        garbled[date_field] = moment.strftime("%d/%m/%Y %Hh%M")
    return f"garbled:{how}", garbled
