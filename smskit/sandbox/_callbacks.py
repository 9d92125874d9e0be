"""Deliver callbacks to loopback URLs, and script replies.

Replies are the spec's "Events"; delivery reports and STOPs (the vendor's, scripted by
``_reports`` and queued by ``_player``, each due at its own time) share this queue, its
retries and its signatures. The spec requires the receiver to answer 200 and leaves retries
"not shown". The sandbox's policy (docs/sandbox.md, "Reply callbacks"): a background worker
POSTs each callback; any answer but 200, a connection error or a timeout is retried with
bounded exponential backoff, at most ``MAX_ATTEMPTS`` times; every attempt is logged.
Retries are scheduled, not slept, so one failing callback never holds up the others. Only
loopback URLs are accepted: the sandbox never sends anything off the machine.

Given a secret, every attempt is signed (an smskit extension; the spec defines no callback
authentication): ``X-Smskit-Timestamp`` holds the wall-clock Unix seconds of the attempt and
``X-Smskit-Signature`` ``v1=`` + hex HMAC-SHA256(secret, ``timestamp.`` + raw body). This is
written here from the documented scheme, independently of the receiver's check, so the
end-to-end test compares two implementations of docs/reliability.md.
"""

from __future__ import annotations

import hashlib
import heapq
import hmac
import itertools
import json
import random
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from smskit.errors import ValidationError
from smskit.rules.hosts import http_url_parts, is_loopback
from smskit.rules.ranges import checked_integer, checked_number, checked_share
from smskit.sandbox._posting import Poster, target

MAX_ATTEMPTS = 6
FIRST_PAUSE = 0.05  # seconds before the 2nd attempt; doubles after each failure
MAX_PAUSE = 1.0
TIMEOUT = 2.0  # per attempt (connect + read)
IDLE_EXIT = 1.0  # an idle worker thread ends; the next reply starts a new one

# Scripted campaign replies: realistic French/English answers. Every OPT_OUT_TEXTS item is
# an opt-out for smskit.replies.inbox.is_opt_out and no ANSWER_TEXTS item is (pinned by a test).
ANSWER_TEXTS = (
    "OUI", "Oui merci", "YES", "Yes please", "Merci !", "Thanks!", "Ok", "Combien ?",
    "C'est jusqu'à quand ?", "Info svp", "Is it still available?", "Je passe samedi",
    "Rappelez-moi svp", "Super 👍", "What time do you open?",
)  # fmt: skip
OPT_OUT_TEXTS = (
    "STOP", "stop", "Stop", "STOP SMS", "ARRET", "arrêt", "Unsubscribe", "Désabonner",
    "stop merci", "STOP please",
)  # fmt: skip
MEAN_DELAY = 3 * 3600.0  # replies come fast, then trail off over the window


def check_callback_url(url: str) -> None:
    """An http(s) URL whose host is loopback (127.0.0.0/8, ::1, localhost)."""
    if not isinstance(url, str):
        raise ValidationError("url", "must be a string", value=url)
    read = http_url_parts(url)  # the one reading of an http(s) URL (rules/hosts)
    if read is None:
        raise ValidationError("url", "must be an http:// or https:// URL", value=url)
    if not is_loopback(read[1]):
        raise ValidationError(
            "url", "must point to this machine (127.0.0.1, ::1 or localhost)", value=url
        )


def pause_after(attempt: int) -> float:
    """Seconds between failed attempt ``attempt`` (1-based) and the next one."""
    return min(FIRST_PAUSE * 2 ** (attempt - 1), MAX_PAUSE)


# (message_id, delivered, attempts so far, last status): how the store follows a delivery.
OnAttempt = Callable[[str, bool, int, str], None]


@dataclass
class _Job:
    key: str  # one delivery: a reply's message_id, or a report's own key
    message_id: str
    url: str
    body: dict[str, Any]
    kind: str = "reply"
    on_attempt: OnAttempt | None = None
    attempts: int = 0


class Deliveries:
    """A queue of callback POSTs served by one background thread, with an attempt log."""

    def __init__(self, on_attempt: OnAttempt) -> None:
        self._on_attempt = on_attempt
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, _Job]] = []  # (due, tie-break, job)
        self._order = itertools.count()
        self._pending: set[str] = set()
        self._outcomes: dict[str, dict[str, Any]] = {}
        self._log: list[dict[str, Any]] = []
        self._thread: threading.Thread | None = None
        self._generation = 0  # bumped by clear(): results of dropped jobs are ignored
        self._secret: bytes | None = None

    def sign_with(self, secret: str | bytes | None) -> None:
        """Sign every later attempt with ``secret`` (at least 16 bytes); None stops signing."""
        if isinstance(secret, str):
            secret = secret.encode("utf-8")
        if secret is not None and (not isinstance(secret, bytes) or len(secret) < 16):
            raise ValidationError("signing_secret", "must be a str or bytes of at least 16 bytes")
        with self._cond:
            self._secret = secret

    def submit(self, url: str, body: dict[str, Any]) -> None:
        """Queue one reply callback for delivery now; returns at once."""
        message_id = str(body["message_id"])
        self._queue(_Job(message_id, message_id, url, body, on_attempt=self._on_attempt), 0.0)

    def submit_later(
        self, url: str, body: dict[str, Any], *, key: str, kind: str, delay: float
    ) -> None:
        """Queue a delivery report or STOP, posted ``delay`` real seconds from now."""
        self._queue(_Job(key, str(body.get("message_id")), url, body, kind=kind), delay)

    def _queue(self, job: _Job, delay: float) -> None:
        with self._cond:
            self._pending.add(job.key)
            heapq.heappush(self._heap, (time.monotonic() + delay, next(self._order), job))
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="smskit-sandbox-callbacks", daemon=True
                )
                self._thread.start()
            self._cond.notify_all()

    def wait(self, message_ids: Iterable[str] | None = None, timeout: float | None = None) -> None:
        """Block until these replies (default: every callback) have a final outcome, or
        TimeoutError; callbacks scripted for later count as pending until posted."""
        wanted = None if message_ids is None else set(message_ids)

        def done() -> bool:
            return not (self._pending if wanted is None else self._pending & wanted)

        with self._cond:
            if not self._cond.wait_for(done, timeout):
                left = len(self._pending if wanted is None else self._pending & wanted)
                raise TimeoutError(
                    f"{left} callback deliveries still pending after {timeout} s "
                    "(see Sandbox.deliveries() for each attempt)"
                )

    def pending(self) -> int:
        """How many callbacks are queued (scripted for later included) or waiting for a retry."""
        with self._cond:
            return len(self._pending)

    def outcome(self, message_id: str) -> dict[str, Any] | None:
        """``{delivered, attempts, last_status}`` once final, else None."""
        with self._cond:
            return self._outcomes.get(message_id)

    def log(self) -> list[dict[str, Any]]:
        """One record per attempt, oldest first."""
        with self._cond:
            return [dict(entry) for entry in self._log]

    def clear(self) -> None:
        """Forget queued jobs, outcomes and the log (sandbox reset)."""
        with self._cond:
            self._generation += 1
            self._heap.clear()
            self._pending.clear()
            self._outcomes.clear()
            self._log.clear()
            self._cond.notify_all()

    # --- worker ----------------------------------------------------------------------------

    def _next_job(self) -> tuple[_Job, int] | None:
        with self._cond:
            while True:
                if not self._heap:
                    if not self._cond.wait(IDLE_EXIT) and not self._heap:
                        self._thread = None
                        return None
                    continue
                delay = self._heap[0][0] - time.monotonic()
                if delay <= 0:
                    return heapq.heappop(self._heap)[2], self._generation
                self._cond.wait(delay)

    def _run(self) -> None:
        # http.client, not httpx: see smskit.sandbox._posting (it also never logs the URL,
        # which carries the receiver's secret token).
        poster = Poster(TIMEOUT)
        try:
            while (taken := self._next_job()) is not None:
                job, generation = taken
                job.attempts += 1
                attempted_at = datetime.now(UTC).isoformat(timespec="milliseconds")
                body = json.dumps(job.body).encode("utf-8")
                status = poster.post(target(job.url), body, self._headers(body))
                self._finish_attempt(job, generation, attempted_at, status, status == "200")
        finally:
            poster.close()

    def _headers(self, body: bytes) -> dict[str, str]:
        headers = {"content-type": "application/json"}
        with self._cond:
            secret = self._secret
        if secret is not None:
            stamp = str(int(time.time()))
            mac = hmac.new(secret, f"{stamp}.".encode() + body, hashlib.sha256).hexdigest()
            headers |= {"x-smskit-timestamp": stamp, "x-smskit-signature": f"v1={mac}"}
        return headers

    def _finish_attempt(
        self, job: _Job, generation: int, attempted_at: str, status: str, delivered: bool
    ) -> None:
        final = delivered or job.attempts >= MAX_ATTEMPTS
        retry_in = None if final else pause_after(job.attempts)
        with self._cond:
            if generation != self._generation:
                return
            self._log.append(
                {"message_id": job.message_id, "attempt": job.attempts,
                 "attempted_at": attempted_at, "status": status, "delivered": delivered,
                 "retry_in": retry_in, "kind": job.kind, "key": job.key}
            )  # fmt: skip
        # The store has its own lock: never call it while holding ours.
        if job.on_attempt is not None:
            job.on_attempt(job.message_id, delivered, job.attempts, status)
        with self._cond:
            if generation != self._generation:
                return
            if final:
                self._outcomes[job.key] = {
                    "delivered": delivered,
                    "attempts": job.attempts,
                    "last_status": status,
                }
                self._pending.discard(job.key)
            else:
                due = time.monotonic() + (retry_in or 0.0)
                heapq.heappush(self._heap, (due, next(self._order), job))
            self._cond.notify_all()


# --- scripted replies to a campaign --------------------------------------------------------


@dataclass(frozen=True)
class ScriptedReply:
    """One reply the script decided: who, what, and when (Unix time)."""

    number: str
    text: str
    at: float


def script_campaign_replies(
    recipients: Sequence[tuple[str, float]],
    *,
    rate: float,
    opt_out_share: float,
    seed: int,
    within_hours: float,
) -> list[ScriptedReply]:
    """Pick ``round(rate * n)`` distinct recipients (number, sent_at) and give each a reply.

    ``round(opt_out_share * repliers)`` of them opt out. Each reply comes a seeded,
    exponentially distributed whole number of seconds after its message was sent (capped
    by the window), so the same seed gives the same replies at the same offsets.
    """
    rate = checked_share("rate", rate)
    opt_out_share = checked_share("opt_out_share", opt_out_share)
    seed = checked_integer("seed", seed)
    within_hours = checked_number(
        "within_hours", within_hours, high=24 * 30, above=True, unit=" of hours"
    )
    rng = random.Random(seed)
    repliers = rng.sample(list(recipients), round(rate * len(recipients)))
    opting_out = round(opt_out_share * len(repliers))
    window = max(1, int(within_hours * 3600))
    script = []
    for index, (number, sent_at) in enumerate(repliers):
        pool = OPT_OUT_TEXTS if index < opting_out else ANSWER_TEXTS
        delay = min(int(rng.expovariate(1 / MEAN_DELAY)) + 1, window)
        script.append(ScriptedReply(number, rng.choice(pool), float(int(sent_at)) + delay))
    return sorted(script, key=lambda reply: (reply.at, reply.number))
