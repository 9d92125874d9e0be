"""``Sandbox``: a whole gateway on loopback, with control methods for tests and demos.

The state lives in SQLite (in memory, or in the file ``path``); the HTTP app and uvicorn
are created only by ``start()``. The sandbox never imports the client: the client imports
the sandbox (lazily) to start one when no credentials are configured.
"""

from __future__ import annotations

import atexit
import functools
import inspect
import secrets
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from smskit._repr import tolerant_repr
from smskit._server import Served
from smskit.errors import ValidationError
from smskit.rules.fields import DYNAMIC_FIELDS
from smskit.rules.ranges import checked_integer, checked_number
from smskit.sandbox._clock import Clock
from smskit.sandbox._faults import Faults
from smskit.sandbox._gateway import Gateway
from smskit.sandbox._prices import DEFAULT_BALANCE_EUR
from smskit.sandbox._reports import DeliveryModel
from smskit.sandbox._request_ids import DuplicateAnswer
from smskit.sandbox._sends import DROPPED_COLUMNS, SENT_COLUMNS
from smskit.sandbox._store import Store

if TYPE_CHECKING:
    import pandas


__all__ = ["Sandbox", "shared"]

_P = ParamSpec("_P")
_R = TypeVar("_R")
MAX_PORT = 65535
_REPLY_COLUMNS = ("message_id", "number", "text", "sim_card_number", "reception_date")
_REPORT_COLUMNS = ("kind", "message_id", "number", "status", "at", "post_in", "copy", "fault",
                   "key", "delivered", "attempts", "last_status")  # fmt: skip
_DELIVERY_COLUMNS = ("message_id", "attempt", "attempted_at", "status", "delivered", "retry_in",
                     "kind", "key")  # fmt: skip


def _forward(
    method: Callable[Concatenate[Any, _P], _R], *, faults: bool = False
) -> Callable[Concatenate[Sandbox, _P], _R]:
    """``Gateway.method`` (``faults``: ``Faults.method``, on the gateway's request faults) as
    a Sandbox method: its signature and docstring, called on the sandbox's gateway. The one
    place a control operation's signature is written is the Gateway or Faults (the HTTP
    control routes call the same methods)."""

    @functools.wraps(method)
    def forwarded(self: Sandbox, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        target = self._gateway.request_faults if faults else self._gateway
        return method(target, *args, **kwargs)

    return _named(forwarded)


def _forward_as_frame(
    method: Callable[Concatenate[Gateway, _P], list[dict[str, Any]]],
    columns: Sequence[str],
    times: Sequence[str] = (),
    finish: Callable[[pandas.DataFrame], pandas.DataFrame] | None = None,
) -> Callable[Concatenate[Sandbox, _P], pandas.DataFrame]:
    """``Gateway.method`` as a Sandbox method whose records come back as a pandas DataFrame
    of ``columns`` (``times`` read as UTC datetimes, then ``finish``): the gateway's parameters
    and docstring (pandas imported only when one is asked for)."""

    @functools.wraps(method)
    def forwarded(self: Sandbox, /, *args: _P.args, **kwargs: _P.kwargs) -> pandas.DataFrame:
        import pandas as pd

        records = method(self._gateway, *args, **kwargs)
        frame = pd.DataFrame.from_records(records, columns=list(columns))
        for column in times:
            frame[column] = pd.to_datetime(frame[column], utc=True, format="ISO8601")
        return frame if finish is None else finish(frame)

    returns = "pandas.DataFrame"
    forwarded.__signature__ = inspect.signature(method).replace(  # type: ignore[attr-defined]
        return_annotation=returns
    )
    forwarded.__annotations__ = {**method.__annotations__, "return": returns}
    return _named(forwarded)


def _named(forwarded: Callable[..., Any]) -> Any:
    """The forwarded method named as a Sandbox method (the same name as its target's)."""
    forwarded.__qualname__ = f"Sandbox.{forwarded.__name__}"
    forwarded.__module__ = __name__
    return forwarded


def _paris_expiry(frame: pandas.DataFrame) -> pandas.DataFrame:
    """Wallet packs' ``expiration_date`` in Europe/Paris (the vendor's time)."""
    import pandas as pd

    expiry = pd.to_datetime(frame["expiration_date"])
    frame["expiration_date"] = expiry.dt.tz_localize("Europe/Paris")
    return frame


class Sandbox(Served):
    """An embedded gateway: ``with Sandbox() as sb: ...`` or ``sb.start()`` / ``sb.stop()``."""

    _server_name = "smskit-sandbox"
    _date_header = False  # every answer is dated by the sandbox's own clock (_app.ClockDate)

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
        if api_key is not None and (not isinstance(api_key, str) or not api_key):
            raise ValidationError(  # never the value: it is the key
                "api_key", "must be a non-blank string (omit it for a random key)"
            )
        self._api_key = api_key or secrets.token_urlsafe(24)
        del api_key  # a later refusal's traceback, shown with its locals, would show the key
        if not isinstance(login, str) or not login.strip():
            raise ValidationError("login", "must be a non-blank string", value=login)
        seed = checked_integer("seed", seed)
        port = checked_integer("port", port, low=0, high=MAX_PORT)
        balance = checked_number("balance", balance, unit=" of EUR")
        self.path = path
        self.seed = seed
        self._init_served(host, port)
        self.login = login
        self._clock = Clock()
        self._store = Store(path, seed=seed, balance=balance, now=self._clock.timestamp())
        self._gateway = Gateway(
            self._store, self._clock, seed=seed, hlr_distribution=hlr_distribution,
            delivery_model=delivery_model, duplicate_answer=duplicate_answer,
        )  # fmt: skip
        if callback_url is not None:
            self._gateway.set_callback_url(callback_url)

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

        return build_app(self._gateway, Credentials(self.login, self._api_key))

    @tolerant_repr
    def __repr__(self) -> str:
        where = self._server.url if self._server is not None else "stopped"
        return f"Sandbox({where}, login={self.login!r}, seed={self.seed})"

    def auth_headers(self) -> dict[str, str]:
        """The ``api-login`` / ``api-key`` headers for raw HTTP calls."""
        return {"api-login": self.login, "api-key": self._api_key}

    # --- control: each the Gateway's (or its request Faults') method, its signature and
    # docstring written there once; records come back as DataFrames (_forward_as_frame).

    balance = _forward(Gateway.balance)
    set_balance = _forward(Gateway.set_balance)
    add_wallet_pack = _forward(Gateway.add_wallet_pack)
    wallet_packs = _forward_as_frame(
        Gateway.wallet_packs, ("id", "credit", "expiration_date"), finish=_paris_expiry
    )
    set_price = _forward(Gateway.set_price)
    prices = _forward_as_frame(Gateway.prices, ("country_code", "product_name", "price"))

    set_drafts = _forward(Gateway.set_drafts)
    set_callback_url = _forward(Gateway.set_callback_url)
    callback_urls = _forward(Gateway.callback_urls)
    set_delivery_model = _forward(Gateway.set_delivery_model)
    inject_callback_faults = _forward(Gateway.inject_callback_faults)
    reports = _forward_as_frame(Gateway.reports, _REPORT_COLUMNS)
    simulate_reply = _forward(Gateway.simulate_reply)
    simulate_campaign_replies = _forward_as_frame(
        Gateway.simulate_campaign_replies,
        (*_REPLY_COLUMNS, "delivered", "attempts", "last_status"),
        ("reception_date",),
    )
    replies = _forward_as_frame(
        Gateway.replies, (*_REPLY_COLUMNS, "callback_url", "delivered", "attempts", "last_status")
    )
    simulate_clicks = _forward_as_frame(
        Gateway.simulate_clicks,
        ("phone_number", "url", "who", "method", "user_agent", "delay", "status"),
    )
    deliveries = _forward_as_frame(Gateway.deliveries, _DELIVERY_COLUMNS, ("attempted_at",))
    wait_for_deliveries = _forward(Gateway.wait_for_deliveries)

    sent = _forward_as_frame(Gateway.sent, SENT_COLUMNS, ("send_at", "sent_at", "created_at"))
    dropped = _forward_as_frame(Gateway.dropped, DROPPED_COLUMNS, ("created_at",))
    contacts = _forward_as_frame(
        Gateway.contacts, ("phone_number", "email", *DYNAMIC_FIELDS, "lists", "tags")
    )
    lists = _forward(Gateway.lists)
    blacklist = _forward(Gateway.blacklist)
    add_to_blacklist = _forward(Gateway.add_to_blacklist)
    tokens = _forward_as_frame(Gateway.tokens, ("token", "email_to", "created_at"))

    now = _forward(Gateway.now)
    advance = _forward(Gateway.advance)
    set_duplicate_answer = _forward(Gateway.set_duplicate_answer)
    duplicate_answer = _forward(Gateway.duplicate_answer)
    inject_faults = _forward(Faults.inject_faults, faults=True)
    clear_faults = _forward(Faults.clear_faults, faults=True)
    faults = _forward(Faults.faults, faults=True)
    reset = _forward(Gateway.reset)


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
