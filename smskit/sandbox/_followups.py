"""What follows a send, as the gateway's control: the clock moving (scheduled sends leave),
delivery reports and STOPs played to the callback URLs, simulated replies, and the callback
queue's log.

``FollowUps`` is mixed into ``_gateway.Gateway``, which sets the attributes declared here in
its ``__init__``; the methods are the Gateway's (and, forwarded, the ``Sandbox``'s), written
once here.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from smskit.errors import ValidationError
from smskit.rules.callbacks import CALLBACK_KINDS
from smskit.rules.choices import checked_choice
from smskit.rules.ranges import checked_integer, checked_number, checked_share
from smskit.sandbox import _clicks, _domain
from smskit.sandbox._callbacks import Deliveries, check_callback_url, script_campaign_replies
from smskit.sandbox._casting import PHONE_RULE, normalize_phone
from smskit.sandbox._clock import Clock
from smskit.sandbox._database import iso
from smskit.sandbox._player import Player
from smskit.sandbox._reports import CallbackFaults, DeliveryModel, checked_model
from smskit.sandbox._store import Store

__all__ = ["FollowUps"]

_STOP_REPLY = re.compile(r"\s*stop\b", re.IGNORECASE)
# Where each kind's URL is kept (the reply's key predates the other kinds).
_URL_KEYS = {"reply": "callback_url", "delivery_report": "callback_url:delivery_report",
             "stop": "callback_url:stop"}  # fmt: skip


class FollowUps:
    """The clock, callbacks and replies of one sandbox account (a part of ``Gateway``)."""

    # Set by Gateway.__init__.
    store: Store
    clock: Clock
    seed: int
    hlr_distribution: Any
    player: Player
    callback_queue: Deliveries

    def _hlr_options(self) -> dict[str, Any]:
        options: dict[str, Any] = {"seed": self.seed}
        if self.hlr_distribution is not None:
            options["distribution"] = self.hlr_distribution
        return options

    # --- time ------------------------------------------------------------------------------

    def now(self) -> str:
        """Sandbox time (ISO 8601 UTC)."""
        return iso(self.clock.timestamp()) or ""

    def advance(self, seconds: float) -> int:
        """Move the sandbox clock forward; returns how many scheduled messages became sent."""
        self.clock.advance(seconds)
        dispatched = self.store.sends.dispatch_due(self.clock.timestamp())
        self.play_callbacks()
        return dispatched

    # --- replies ---------------------------------------------------------------------------

    def callback_url(self, kind: str = "reply") -> str | None:
        """The callback URL registered for ``kind`` (reply, delivery_report or stop)."""
        return self.store.get_meta(_URL_KEYS[_check_kind(kind)])

    def callback_urls(self) -> dict[str, str | None]:
        """The URL registered for each callback kind (None: that kind is not posted)."""
        return {kind: self.callback_url(kind) for kind in CALLBACK_KINDS}

    def set_callback_url(
        self, url: str | None, *, kind: str | None = None, signing_secret: str | bytes | None = None
    ) -> None:
        """Register a callback URL (loopback only) for every kind, or for one ``kind``
        (``reply``, ``delivery_report`` or ``stop``); None removes it.

        With ``signing_secret`` every callback is signed (an smskit extension, see
        docs/reliability.md) for an ``Inbox(signing_secret=...)``; the secret is kept in memory.
        """
        self.register_callback_url(url, kind)
        self.callback_queue.sign_with(signing_secret)

    def register_callback_url(self, url: str | None, kind: str | None) -> None:
        """Register (or with None, remove) the URL of one callback kind, or of every kind
        when ``kind`` is None; loopback only. The signing secret is left as it is (the
        control route: a secret never travels over HTTP)."""
        if url is not None:
            check_callback_url(url)
        kinds = CALLBACK_KINDS if kind is None else (_check_kind(kind),)
        if any(k != "reply" for k in kinds):
            # What left before gets what the URLs registered then give it (maybe nothing).
            rows = self.store.sends.sent(self.clock.timestamp())
            self.play_callbacks(rows)
            self.player.skip(rows)
        for each in kinds:
            self.store.set_meta(_URL_KEYS[each], url)

    # --- delivery reports and STOPs --------------------------------------------------------

    def play_callbacks(self, rows: list[dict[str, Any]] | None = None) -> int:
        """Script and queue the reports and STOPs of messages sent since the last call."""
        from smskit.sandbox import _hlr

        urls = self.callback_urls()
        if urls["delivery_report"] is None and urls["stop"] is None:
            return 0  # what leaves meanwhile is skipped when a URL is registered
        now = self.clock.timestamp()
        options = self._hlr_options()

        def line_of(number: str) -> tuple[str, str]:
            answer = _hlr.lookup(number, **options)
            return answer["line_status"], answer["phone_number_type"]

        played = self.player.play(
            rows if rows is not None else self.store.sends.sent(now),
            urls=urls, line_of=line_of, blacklist=set(self.store.contacts.blacklist()), now=now,
        )  # fmt: skip
        for item in played:
            if item.kind == "stop":  # the vendor blacklists a number that sent STOP
                self.store.contacts.add_to_blacklist([item.number], item.at, "stop")
        return len(played)

    def set_delivery_model(self, model: DeliveryModel) -> None:
        """How messages sent from now on get their delivery reports and STOPs (see
        :class:`DeliveryModel`; ``DeliveryModel.fast()`` for tests)."""
        self.player.model = checked_model("model", model)

    def inject_callback_faults(
        self, withhold_rate: float = 0.0, garble_rate: float = 0.0, seed: int = 0
    ) -> None:
        """Never post a seeded share of later delivery reports and STOPs, and garble another
        (a missing field, a foreign status, an unreadable date); zeros stop it."""
        self.player.faults = CallbackFaults(withhold_rate, garble_rate, seed)

    def reports(self) -> list[dict[str, Any]]:
        """Every delivery report and STOP scripted: kind, message_id, number, status, network
        time ``at``, ``post_in`` (real seconds), ``copy`` (late/duplicate), ``fault``, and
        its delivery (``delivered``, ``attempts``, ``last_status``)."""
        records = self.player.records()
        for record in records:
            outcome = self.callback_queue.outcome(record["key"])
            if record["fault"] == "withheld":
                outcome = _undelivered("withheld")
            elif outcome is None:
                outcome = _undelivered("pending")
            record.update(outcome)
        return records

    def simulate_reply(
        self, number: str, text: str, *, sim_card_number: str | None = None, wait: bool = True
    ) -> dict[str, Any]:
        """A recipient replies: stored, POSTed to the callback URL (retried); "STOP" blacklists.

        With ``wait`` (default) return once the delivery has its final outcome (bounded by
        the retry policy); ``wait=False`` returns at once with ``last_status`` "pending" and
        ``wait_for_deliveries()`` waits for the callbacks.
        """
        normalized = normalize_phone(number)
        if normalized is None:
            raise ValidationError("number", PHONE_RULE, value=number)
        if not isinstance(text, str) or not text.strip():
            raise ValidationError("text", "must be a non-blank string", value=text)
        _check_wait(wait)
        sim = sim_card_number or _domain.REPLY_SHORT_NUMBER
        reply = self._reply(normalized, text, sim, self.clock.timestamp())
        return self._outcomes([reply], wait)[0]

    def simulate_campaign_replies(
        self,
        ticket: str,
        *,
        rate: float = 0.2,
        opt_out_share: float = 0.1,
        seed: int = 0,
        within_hours: float = 48.0,
        wait: bool = True,
    ) -> list[dict[str, Any]]:
        """Seeded replies from ``round(rate * recipients)`` recipients of a with_replies send.

        ``round(opt_out_share * repliers)`` of them opt out (STOP and variants); replies
        arrive over ``within_hours`` after the send (the send time plus seeded delays) and the
        sandbox clock moves forward to the last one, so the replies are in the past and a run
        is reproducible.
        """
        _check_wait(wait)
        rows = self._sent_rows(ticket)
        if not rows[0]["with_replies"]:
            raise ValidationError(
                "ticket", "was not sent with with_replies=true: nobody can reply", value=ticket
            )
        recipients = [
            (r["phone_number"], datetime.fromisoformat(r["sent_at"]).timestamp())
            for r in rows
            if r["status"] == "sent"
        ]
        script = script_campaign_replies(
            recipients, rate=rate, opt_out_share=opt_out_share, seed=seed,
            within_hours=within_hours,
        )  # fmt: skip
        replies = [self._reply(s.number, s.text, rows[0]["sender"], s.at) for s in script]
        if script:
            self.advance(max(0.0, script[-1].at - self.clock.timestamp()))
        return self._outcomes(replies, wait)

    def _sent_rows(self, ticket: Any) -> list[dict[str, Any]]:
        """The messages of the accepted send ``ticket`` (a non-blank string), or refused."""
        if not isinstance(ticket, str) or not ticket.strip():
            raise ValidationError("ticket", "must be a non-blank string", value=ticket)
        now = self.clock.timestamp()
        rows = [r for r in self.store.sends.sent(now) if r["sms_ticket"] == ticket]
        if not rows:
            raise ValidationError("ticket", "no accepted send has this ticket", value=ticket)
        return rows

    def simulate_clicks(
        self,
        ticket: str,
        *,
        rate: float = 0.3,
        bot_share: float = 0.2,
        seed: int = 0,
        within_seconds: float = 4.5,
    ) -> list[dict[str, Any]]:
        """Open the links of a send's texts over HTTP, as people and as preview bots.

        Among the ``n`` messages of ``ticket`` whose text holds a link, ``round(rate * n)``
        people click one link each (a phone's user agent, GET), drawn from the messages
        whose DELIVERED report was posted (all sent ones when no delivery-report URL is
        set), and ``round(bot_share * n)`` bot visits are made (link previews, a HEAD link
        checker, a scanner's burst). Seeded; bots in the first third of ``within_seconds``,
        people in the last (docs/links.md). Returns the requests made, with their status.
        """
        rate = checked_share("rate", rate)
        bot_share = checked_share("bot_share", bot_share)
        seed = checked_integer("seed", seed)
        within_seconds = checked_number("within_seconds", within_seconds, high=3600.0, above=True)
        rows = self._sent_rows(ticket)
        if self.callback_url("delivery_report") is None:
            delivered = {r["phone_number"] for r in rows}
        else:
            delivered = {
                r["number"] for r in self.reports()
                if r["kind"] == "delivery_report" and r["status"] == "DELIVERED"
                and r["delivered"] and r["message_id"].startswith(f"{ticket}-")
            }  # fmt: skip
        messages = [
            (r["phone_number"], r["text"], r["phone_number"] in delivered)
            for r in rows
            if r["status"] == "sent"
        ]
        planned = _clicks.script(
            messages, rate=rate, bot_share=bot_share, seed=seed, within_seconds=within_seconds
        )
        return _clicks.play(planned)

    def _reply(self, number: str, text: str, sim: str, at: float) -> dict[str, Any]:
        url = self.callback_url()
        body = self.store.replies.record(number, text, sim, at, url)
        if _STOP_REPLY.match(text):
            self.store.contacts.add_to_blacklist([number], at, "reply")
        status = "no callback URL" if url is None else "pending"
        self.store.replies.mark_delivery(body["message_id"], False, 0, status)
        if url is not None:
            self.callback_queue.submit(url, body)
        return body

    def _outcomes(self, bodies: list[dict[str, Any]], wait: bool) -> list[dict[str, Any]]:
        ids = [body["message_id"] for body in bodies]
        if wait:
            self.callback_queue.wait(ids)
        results = []
        for body in bodies:
            outcome = self.callback_queue.outcome(body["message_id"])
            if outcome is None:
                queued = self.callback_url() is not None
                status = "pending" if queued else "no callback URL"
                outcome = _undelivered(status)
            results.append({**body, **outcome})
        return results

    def deliveries(self) -> list[dict[str, Any]]:
        """Every callback delivery attempt: message_id, attempt number, time, status, next
        retry, ``kind`` (reply, delivery_report, stop) and ``key`` (a reply's message_id, a
        report's key in ``reports()``)."""
        return self.callback_queue.log()

    def wait_for_deliveries(self, timeout: float | None = 10.0) -> None:
        """Block until every queued callback has its final outcome; TimeoutError otherwise."""
        if timeout is not None:
            timeout = checked_number("timeout", timeout, unit=" of seconds")
        self.callback_queue.wait(timeout=timeout)

    def replies(self) -> list[dict[str, Any]]:
        """Every simulated reply with its delivery outcome (``callback_url`` holds its token)."""
        return self.store.replies.records()


def _check_kind(kind: str) -> str:
    return checked_choice("kind", kind, CALLBACK_KINDS)


def _check_wait(wait: bool) -> None:
    if not isinstance(wait, bool):
        raise ValidationError("wait", "must be true or false", value=wait)


def _undelivered(status: str) -> dict[str, Any]:
    """The delivery outcome of a callback never posted (yet): ``status`` says why."""
    return {"delivered": False, "attempts": 0, "last_status": status}
