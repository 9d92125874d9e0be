"""``Sandbox``: a whole gateway on loopback, with control methods for tests and demos.

The state lives in SQLite (in memory, or in the file ``path``); the HTTP app and uvicorn
are created only by ``start()``. The sandbox never imports the client: the client imports
the sandbox (lazily) to start one when no credentials are configured.
"""

from __future__ import annotations

import atexit
import secrets
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from smskit._server import Served
from smskit.errors import ValidationError
from smskit.sandbox._clock import Clock
from smskit.sandbox._faults import Faults
from smskit.sandbox._gateway import Gateway
from smskit.sandbox._numbers import checked_number
from smskit.sandbox._prices import DEFAULT_BALANCE_EUR
from smskit.sandbox._reports import CallbackFaults, DeliveryModel
from smskit.sandbox._request_ids import DuplicateAnswer
from smskit.sandbox._store import SENT_COLUMNS, Store

if TYPE_CHECKING:
    import pandas


__all__ = ["Sandbox", "shared"]

_TIME_COLUMNS = ("send_at", "sent_at", "created_at")
_REPLY_COLUMNS = ("message_id", "number", "text", "sim_card_number", "reception_date")


class Sandbox(Served):
    """An embedded gateway: ``with Sandbox() as sb: ...`` or ``sb.start()`` / ``sb.stop()``."""

    _server_name = "smskit-sandbox"

    def __init__(
        self,
        path: str | None = None,
        *,
        seed: int = 0,
        host: str = "127.0.0.1",
        port: int = 0,
        login: str = "sandbox",
        api_key: str | None = None,
        balance: float = DEFAULT_BALANCE_EUR,
        hlr_distribution: Any = None,
        callback_url: str | None = None,
        delivery_model: DeliveryModel | None = None,
        duplicate_answer: DuplicateAnswer = "spec",
    ) -> None:
        if not login:
            raise ValueError("login: must not be blank")
        if api_key is not None and not api_key:
            raise ValueError("api_key: must not be blank (omit it for a random key)")
        checked_number("balance", balance, unit=" of EUR")
        self.path = path
        self.seed = seed
        self._init_served(host, port)
        self.login = login
        self._api_key = api_key or secrets.token_urlsafe(24)
        self._clock = Clock()
        self._store = Store(path, seed=seed, balance=balance, now=self._clock.timestamp())
        if delivery_model is not None and not isinstance(delivery_model, DeliveryModel):
            raise ValidationError("delivery_model", "must be a DeliveryModel", value=delivery_model)
        self._gateway = Gateway(
            self._store, self._clock, seed=seed, hlr_distribution=hlr_distribution,
            delivery_model=delivery_model, duplicate_answer=duplicate_answer,
        )  # fmt: skip
        if callback_url is not None:
            self._gateway.set_callback_url(callback_url)
        self._faults = Faults()

    # --- lifecycle -------------------------------------------------------------------------

    @property
    def api_key(self) -> str:
        """The API key clients must send (never shown by repr)."""
        return self._api_key

    @property
    def url(self) -> str:
        """Base URL, e.g. ``http://127.0.0.1:53211`` (no trailing slash)."""
        return self._served_url()

    def _app(self) -> Any:
        from smskit.sandbox._app import Credentials, build_app

        return build_app(self._gateway, self._faults, Credentials(self.login, self._api_key))

    def __repr__(self) -> str:
        where = self._server.url if self._server is not None else "stopped"
        return f"Sandbox({where}, login={self.login!r}, seed={self.seed})"

    def auth_headers(self) -> dict[str, str]:
        """The ``api-login`` / ``api-key`` headers for raw HTTP calls."""
        return {"api-login": self.login, "api-key": self._api_key}

    # --- wallet and prices -----------------------------------------------------------------

    def balance(self) -> float:
        """Current balance in EUR."""
        return self._gateway.balance()

    def set_balance(self, amount: float) -> None:
        """Set the balance in EUR: every wallet pack replaced by one valid 365 days."""
        self._gateway.set_balance(amount)

    def add_wallet_pack(self, amount: float, expires_in_days: float) -> str:
        """Add a pack of ``amount`` EUR expiring ``expires_in_days`` from now; returns its id."""
        return self._gateway.add_wallet_pack(amount, expires_in_days)

    def wallet_packs(self) -> pandas.DataFrame:
        """Packs with credit left (EUR), the first to expire (Paris time) first."""
        frame = _frame(self._gateway.wallet_packs(), ("id", "credit", "expiration_date"))
        import pandas as pd

        frame["expiration_date"] = pd.to_datetime(frame["expiration_date"]).dt.tz_localize(
            "Europe/Paris"
        )
        return frame

    def set_price(self, country_code: str, product_name: str, price: float) -> None:
        """Set a unit price in EUR (``product_name``: sms_premium, sms_low_cost, vocal_sms, hlr)."""
        self._gateway.set_price(country_code, product_name, price)

    def prices(self) -> pandas.DataFrame:
        """Unit prices: one row per country and product."""
        return _frame(self._gateway.prices(), ("country_code", "product_name", "price"))

    # --- drafts, callbacks, replies --------------------------------------------------------

    def set_drafts(
        self, sms: Mapping[str, Any] | None = None, voice: Mapping[str, Any] | None = None
    ) -> None:
        """Set fields of the SMS and/or voice draft the draft endpoints return."""
        self._gateway.set_drafts(sms=sms, voice=voice)

    def set_callback_url(
        self,
        url: str | None,
        *,
        kind: str | None = None,
        signing_secret: str | bytes | None = None,
    ) -> None:
        """Register a callback URL (loopback only) for every kind, or for one ``kind``
        (``reply``, ``delivery_report`` or ``stop``); None removes it.

        With ``signing_secret`` every callback is signed (an smskit extension, see
        docs/reliability.md) for an ``Inbox(signing_secret=...)``; the secret is kept in memory.
        """
        self._gateway.set_callback_url(url, kind)
        self._gateway.deliveries.sign_with(signing_secret)

    def callback_urls(self) -> dict[str, str | None]:
        """The URL registered for each callback kind (None: that kind is not posted)."""
        return self._gateway.callback_urls()

    def set_delivery_model(self, model: DeliveryModel) -> None:
        """How messages sent from now on get their delivery reports and STOPs (see
        :class:`DeliveryModel`; ``DeliveryModel.fast()`` for tests)."""
        self._gateway.set_delivery_model(model)

    def inject_callback_faults(
        self, withhold_rate: float = 0.0, garble_rate: float = 0.0, seed: int = 0
    ) -> None:
        """Never post a seeded share of later delivery reports and STOPs, and garble another
        (a missing field, a foreign status, an unreadable date); zeros stop it."""
        self._gateway.inject_callback_faults(CallbackFaults(withhold_rate, garble_rate, seed))

    def reports(self) -> pandas.DataFrame:
        """Every delivery report and STOP scripted: kind, message_id, number, status, network
        time ``at``, ``post_in`` (real seconds), ``copy`` (late/duplicate), ``fault``, and
        its delivery (``delivered``, ``attempts``, ``last_status``)."""
        columns = ("kind", "message_id", "number", "status", "at", "post_in", "copy", "fault",
                   "key", "delivered", "attempts", "last_status")  # fmt: skip
        return _frame(self._gateway.reports(), columns)

    def simulate_reply(
        self, number: str, text: str, *, sim_card_number: str | None = None, wait: bool = True
    ) -> dict[str, Any]:
        """A recipient replies: stored, POSTed to the callback URL (retried); "STOP" blacklists.

        ``wait=False`` returns at once; ``wait_for_deliveries()`` waits for the callbacks.
        """
        return self._gateway.simulate_reply(
            number, text, sim_card_number=sim_card_number, wait=wait
        )

    def simulate_campaign_replies(
        self,
        ticket: str,
        *,
        rate: float = 0.2,
        opt_out_share: float = 0.1,
        seed: int = 0,
        within_hours: float = 48.0,
        wait: bool = True,
    ) -> pandas.DataFrame:
        """Seeded replies from ``round(rate * recipients)`` recipients of a with_replies send.

        ``round(opt_out_share * repliers)`` of them opt out (STOP and variants); replies
        arrive over ``within_hours`` after the send and the clock moves to the last one.
        """
        replies = self._gateway.simulate_campaign_replies(
            ticket, rate=rate, opt_out_share=opt_out_share, seed=seed,
            within_hours=within_hours, wait=wait,
        )  # fmt: skip
        frame = _frame(replies, (*_REPLY_COLUMNS, "delivered", "attempts", "last_status"))
        return _with_times(frame, ("reception_date",))

    def replies(self) -> pandas.DataFrame:
        """Every simulated reply with its delivery outcome (``callback_url`` holds its token)."""
        columns = (*_REPLY_COLUMNS, "callback_url", "delivered", "attempts", "last_status")
        return _frame(self._gateway.replies(), columns)

    def deliveries(self) -> pandas.DataFrame:
        """Every callback delivery attempt: message_id, attempt number, time, status, next
        retry, ``kind`` (reply, delivery_report, stop) and ``key`` (a reply's message_id, a
        report's key in ``reports()``)."""
        columns = ("message_id", "attempt", "attempted_at", "status", "delivered", "retry_in",
                   "kind", "key")  # fmt: skip
        return _with_times(_frame(self._gateway.deliveries_log(), columns), ("attempted_at",))

    def wait_for_deliveries(self, timeout: float | None = 10.0) -> None:
        """Block until every queued callback has its final outcome; TimeoutError otherwise."""
        self._gateway.wait_for_deliveries(timeout)

    # --- what happened ---------------------------------------------------------------------

    def sent(self) -> pandas.DataFrame:
        """One row per accepted recipient per send (scheduled ones until due, then sent)."""
        import pandas as pd

        frame = _frame(self._gateway.sent(), SENT_COLUMNS)
        for column in _TIME_COLUMNS:
            frame[column] = pd.to_datetime(frame[column], utc=True, format="ISO8601")
        return frame

    def dropped(self) -> pandas.DataFrame:
        """Every recipient a send ignored (spec convention 3): ticket, position, number, why."""
        frame = _frame(
            self._gateway.dropped(),
            ("sms_ticket", "position", "phone_number", "reason", "created_at"),
        )
        return _with_times(frame, ("created_at",))

    def contacts(self) -> pandas.DataFrame:
        """Every contact with its lists and tags."""
        from smskit.sandbox._domain import DYNAMIC_FIELDS

        columns = ("phone_number", "email", *DYNAMIC_FIELDS, "lists", "tags")
        return _frame(self._gateway.contacts(), columns)

    def lists(self) -> dict[str, int]:
        """Contact lists and their sizes."""
        return self._gateway.lists()

    def blacklist(self) -> list[str]:
        """Blacklisted numbers."""
        return self._gateway.blacklist()

    def add_to_blacklist(self, phone_numbers: Sequence[str] | str) -> list[str]:
        """Blacklist numbers; returns them normalised."""
        return self._gateway.add_to_blacklist(phone_numbers)

    def tokens(self) -> pandas.DataFrame:
        """Credit-transfer tokens issued, with their sub-account e-mail."""
        return _frame(self._gateway.tokens(), ("token", "email_to", "created_at"))

    # --- time, faults, reset ---------------------------------------------------------------

    def now(self) -> str:
        """Sandbox time (ISO 8601 UTC)."""
        return self._gateway.now()

    def advance(self, seconds: float) -> int:
        """Move the sandbox clock forward; returns how many scheduled messages became sent."""
        return self._gateway.advance(seconds)

    def inject_faults(
        self,
        error_rate: float = 0.0,
        drop_rate: float = 0.0,
        rate_limit_rate: float = 0.0,
        latency: float | Sequence[float] = (0.0, 0.0),
        seed: int = 0,
    ) -> None:
        """Fail a seeded share of gateway requests: 500, dropped after commit, 429; add latency."""
        self._faults.configure(error_rate, drop_rate, rate_limit_rate, latency, seed)

    def set_duplicate_answer(self, shape: DuplicateAnswer) -> None:
        """How a repeated request_id is refused (both 400, nothing sent or charged):
        ``"spec"``, the spec's validation error naming ``request_id`` (the default), or
        ``"legacy"``, the vendor's older ``{code: 120, message: "A SMS with the same
        request_id has already been sent"}``."""
        self._gateway.set_duplicate_answer(shape)

    def duplicate_answer(self) -> DuplicateAnswer:
        """The shape a repeated request_id is refused in (see :meth:`set_duplicate_answer`)."""
        return self._gateway.duplicate_answer

    def clear_faults(self) -> None:
        """Stop injecting faults."""
        self._faults.clear()

    def faults(self) -> dict[str, Any]:
        """Current fault settings and how many of each were injected."""
        return self._faults.state()

    def reset(self) -> None:
        """Fresh account: default balance and prices; no contacts, sends, tokens, faults."""
        self._gateway.reset()
        self._faults.clear()


def _frame(records: list[dict[str, Any]], columns: Sequence[str]) -> pandas.DataFrame:
    import pandas as pd

    return pd.DataFrame.from_records(records, columns=list(columns))


def _with_times(frame: pandas.DataFrame, columns: Sequence[str]) -> pandas.DataFrame:
    import pandas as pd

    for column in columns:
        frame[column] = pd.to_datetime(frame[column], utc=True, format="ISO8601")
    return frame


_shared: Sandbox | None = None
_shared_lock = threading.Lock()


def shared() -> Sandbox:
    """The process-wide sandbox, started on first use (thread-safe), stopped at exit."""
    global _shared
    with _shared_lock:
        if _shared is None or not _shared.running:
            sandbox = Sandbox().start()
            atexit.register(sandbox.stop)
            _shared = sandbox
        return _shared
