"""``Sandbox``: a whole gateway on loopback, with control methods for tests and demos.

The state lives in SQLite (in memory, or in the file ``path``); the HTTP app and uvicorn
are created only by ``start()``. The sandbox never imports the client: the client imports
the sandbox (lazily) to start one when no credentials are configured.
"""

from __future__ import annotations

import atexit
import math
import secrets
import threading
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any

from smskit.errors import ValidationError
from smskit.sandbox._clock import Clock
from smskit.sandbox._faults import Faults
from smskit.sandbox._gateway import Gateway
from smskit.sandbox._prices import DEFAULT_BALANCE_EUR
from smskit.sandbox._store import SENT_COLUMNS, Store

if TYPE_CHECKING:
    import pandas

    from smskit._server import BackgroundServer

__all__ = ["Sandbox", "shared"]

_TIME_COLUMNS = ("send_at", "sent_at", "created_at")


class Sandbox:
    """An embedded gateway: ``with Sandbox() as sb: ...`` or ``sb.start()`` / ``sb.stop()``."""

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
    ) -> None:
        if not login:
            raise ValueError("login: must not be blank")
        if api_key is not None and not api_key:
            raise ValueError("api_key: must not be blank (omit it for a random key)")
        if isinstance(balance, bool) or not isinstance(balance, int | float):
            raise ValidationError("balance", "must be a number of EUR", value=balance)
        if not math.isfinite(balance) or balance < 0:
            raise ValidationError("balance", "must be a finite number >= 0", value=balance)
        self.path = path
        self.seed = seed
        self.host = host
        self.port = port
        self.login = login
        self._api_key = api_key or secrets.token_urlsafe(24)
        self._clock = Clock()
        self._store = Store(path, seed=seed, balance=balance)
        self._gateway = Gateway(
            self._store, self._clock, seed=seed, hlr_distribution=hlr_distribution
        )
        self._faults = Faults()
        self._server: BackgroundServer | None = None
        self._lock = threading.Lock()

    # --- lifecycle -------------------------------------------------------------------------

    @property
    def api_key(self) -> str:
        """The API key clients must send (never shown by repr)."""
        return self._api_key

    @property
    def running(self) -> bool:
        """Whether the HTTP server is up."""
        return self._server is not None and self._server.running

    @property
    def url(self) -> str:
        """Base URL, e.g. ``http://127.0.0.1:53211`` (no trailing slash)."""
        if self._server is None:
            raise RuntimeError("Sandbox is not started: call start() or use `with Sandbox() as sb`")
        return self._server.url

    def start(self) -> Sandbox:
        """Serve the gateway on ``host:port`` (an ephemeral port by default); returns self."""
        with self._lock:
            if self.running:
                return self
            from smskit._server import BackgroundServer
            from smskit.sandbox._app import Credentials, build_app

            app = build_app(self._gateway, self._faults, Credentials(self.login, self._api_key))
            server = BackgroundServer(app, host=self.host, port=self.port, name="smskit-sandbox")
            server.start()
            self._server = server
            return self

    def stop(self) -> None:
        """Stop serving (the state stays; ``start()`` serves it again)."""
        with self._lock:
            if self._server is not None:
                self._server.stop()
                self._server = None

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

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
        """Set the balance in EUR."""
        self._gateway.set_balance(amount)

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

    def set_callback_url(self, url: str | None) -> None:
        """Register the inbound-SMS callback URL (loopback only); None removes it."""
        self._gateway.set_callback_url(url)

    def simulate_reply(
        self, number: str, text: str, *, sim_card_number: str | None = None
    ) -> dict[str, Any]:
        """A recipient replies: stored, POSTed to the callback URL; "STOP" blacklists."""
        return self._gateway.simulate_reply(number, text, sim_card_number=sim_card_number)

    def replies(self) -> pandas.DataFrame:
        """Every simulated reply with its delivery outcome."""
        columns = (
            "message_id", "number", "text", "sim_card_number", "reception_date",
            "callback_url", "delivered", "attempts", "last_status",
        )  # fmt: skip
        return _frame(self._gateway.replies(), columns)

    # --- what happened ---------------------------------------------------------------------

    def sent(self) -> pandas.DataFrame:
        """One row per accepted recipient per send (scheduled ones until due, then sent)."""
        import pandas as pd

        frame = _frame(self._gateway.sent(), SENT_COLUMNS)
        for column in _TIME_COLUMNS:
            frame[column] = pd.to_datetime(frame[column], utc=True, format="ISO8601")
        return frame

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
