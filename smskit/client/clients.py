"""The typed gateway client: :class:`Client` (blocking) and :class:`AsyncClient` (async).

``_BaseClient`` holds everything but I/O: settings, request building, the retry policy (as a
generator that yields "send this request" or "sleep this long" and receives the outcome),
response parsing and error mapping. The two public classes only run that generator, with
``httpx.Client`` or ``httpx.AsyncClient``. Endpoints are declared once in :mod:`smskit.client.core`.

Retries: network errors, timeouts, 429 (after ``Retry-After``) and 5xx are retried with
exponential backoff and full jitter. Every endpoint is retried: sends carry a ``request_id``,
so a retry of an accepted send is refused as a duplicate and reported as
``SendResult(duplicate=True)``; contact create/delete and list empty are idempotent; an HLR
request or a transfer token retried after a lost answer may be billed or issued twice (a
lookup costs one credit; an unused token is harmless).
"""

from __future__ import annotations

import inspect
import itertools
import logging
import random
import ssl
import time
from collections.abc import Callable, Coroutine, Generator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast
from urllib.parse import urlsplit

import httpx

from smskit._account import held
from smskit._version import __version__
from smskit.client import core as _core
from smskit.client.config import (
    MASK,
    AuthMode,
    CredentialAuth,
    SandboxLike,
    Secret,
    Settings,
    mask_headers,
    resolve,
)
from smskit.client.core import (
    Async,
    Call,
    Contact,
    ContactList,
    M,
    SmsCampaign,
    Subaccount,
    Sync,
    VoiceCampaign,
    Wallet,
)
from smskit.client.error_map import error_from_response
from smskit.errors import (
    APIError,
    ConfigurationError,
    DuplicateRequestError,
    RateLimitError,
    ResponseShapeError,
    ServerError,
    TimeoutError,
    TransportError,
)
from smskit.rules.ranges import exact_integer

__all__ = ["AsyncClient", "Backoff", "Client"]

logger = logging.getLogger("smskit")

T = TypeVar("T")
# What the retry generator asks for (a request to send, or seconds to sleep) and gets back.
Step = httpx.Request | float
Outcome = httpx.Response | httpx.TransportError | None
Flow = Generator[Step, Outcome, T]


@dataclass(frozen=True, slots=True)
class Backoff:
    """How long to wait between attempts: ``random() * min(cap, base * 2**(attempt-1))``.

    ``Retry-After`` is honoured as given, unless it exceeds ``max_retry_after``: then the
    :class:`~smskit.errors.RateLimitError` is raised at once rather than blocking a notebook.
    ``random`` and ``sleep`` are injectable so tests never wait; ``sleep`` may return an
    awaitable for the async client.
    """

    base: float = 0.2
    cap: float = 5.0
    max_retry_after: float = 60.0
    random: Callable[[], float] = random.random
    sleep: Callable[[float], Any] | None = None

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        if retry_after is not None:
            return retry_after
        return self.random() * min(self.cap, self.base * 2.0 ** (attempt - 1))


class _BaseClient(Generic[M]):
    """Settings, request building, retries, parsing and error mapping: everything but I/O."""

    sms_campaign: SmsCampaign[M]
    voice_campaign: VoiceCampaign[M]
    contact: Contact[M]
    contact_list: ContactList[M]
    wallet: Wallet[M]
    subaccount: Subaccount[M]

    def __init__(
        self,
        api_login: str | None = None,
        api_key: str | Secret | None = None,
        base_url: str | None = None,
        *,
        sandbox: SandboxLike | None = None,
        settings: Settings | None = None,
        auth: AuthMode = "headers",
        timeout: float | httpx.Timeout = 10.0,
        max_retries: int = 3,
        validate: bool = True,
        allow_insecure: bool = False,
        transport: httpx.BaseTransport | httpx.AsyncBaseTransport | None = None,
        backoff: Backoff | None = None,
    ) -> None:
        # From here on the key is a Secret, and a URL carrying one (login:KEY@host) a Hidden:
        # a traceback's locals show them masked.
        api_key = Secret(api_key) if isinstance(api_key, str) and api_key else api_key
        base_url = held(base_url)
        if auth not in ("headers", "basic"):
            raise ConfigurationError(f"auth must be 'headers' or 'basic', got {auth!r}")
        retries = exact_integer(max_retries)
        if retries is None or retries < 0:
            raise ConfigurationError(f"max_retries must be an integer >= 0, got {max_retries!r}")
        max_retries = retries
        if settings is None:
            settings = resolve(
                api_login, api_key, base_url, sandbox=sandbox, allow_insecure=allow_insecure
            )
        elif api_login or api_key or base_url or sandbox is not None:
            raise ConfigurationError(
                "give either settings= or api_login/api_key/base_url/sandbox, not both"
            )
        self._settings: Settings = settings
        self.auth: AuthMode = auth
        self._credentials = CredentialAuth(settings, auth)
        self.timeout = timeout
        self.max_retries = max_retries
        self.validate = validate
        self.backoff = backoff or Backoff()
        for name, resource in _core.RESOURCES.items():
            setattr(self, name, resource(self))
        # Remembered so an async twin (to_async) sends through it too, never around it.
        self._transport = transport
        self._http = self._open(transport, self._http_options())

    def to_async(self, *, transport: httpx.AsyncBaseTransport | None = None) -> AsyncClient:
        """A new AsyncClient on the same gateway, credentials and policies (for concurrent work).

        It may live in another event loop; close it after use. A ``transport`` given here is
        the twin's. Else a :class:`Client`'s own ``transport=`` is lent to it when it serves
        async requests (``httpx.MockTransport`` does; closing the twin leaves it open) and
        refused when it serves only blocking ones (``httpx.HTTPTransport``): the twin would
        send around it. An :class:`AsyncClient`'s ``httpx.MockTransport`` is lent too; its
        other transports hold connections of its own event loop, so the twin opens its own.
        """
        if transport is None:
            transport = self._lent()
        return AsyncClient(
            settings=self._settings,
            auth=self.auth,
            timeout=self.timeout,
            max_retries=self.max_retries,
            validate=self.validate,
            backoff=self.backoff,
            transport=transport,
        )

    def _lent(self) -> httpx.AsyncBaseTransport | None:
        """This client's transport for its async twin (None: the twin opens connections)."""
        if isinstance(self._transport, httpx.MockTransport):  # no connections, no event loop
            return _Borrowed(self._transport)
        return None

    def _open(self, transport: Any, options: dict[str, Any]) -> Any:
        raise NotImplementedError  # Client / AsyncClient: the httpx client of their kind

    def _bind(self, build: Callable[..., Call[Any]]) -> Callable[..., Any]:
        raise NotImplementedError  # Client / AsyncClient: how an endpoint call is run

    # -- what users see ------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """The gateway URL requests go to (without ``/v1/public``)."""
        return self._settings.base_url

    @property
    def api_login(self) -> str:
        """The account login (not a secret; the key never leaves the request headers)."""
        return self._settings.api_login

    @property
    def is_sandbox(self) -> bool:
        """Whether this client talks to an embedded sandbox (no real SMS)."""
        return self._settings.sandbox

    @property
    def is_embedded_sandbox(self) -> bool:
        """Whether this client talks to the sandbox started because nothing was configured
        (the same gateway, whatever its port, to the HLR cache and the opt-out list)."""
        return self._settings.embedded

    def __repr__(self) -> str:
        if not hasattr(self, "_settings"):  # shown by a traceback of __init__ refusing settings
            return f"<{type(self).__name__} (not configured)>"
        where = " sandbox" if self.is_sandbox else ""
        return f"<{type(self).__name__}{where} {self.base_url} login={self.api_login!r}>"

    def to_html(self) -> str:
        """Connection settings as HTML; the key is masked."""
        from smskit._html import render

        rows = [
            ("base_url", self.base_url),
            ("api_login", self.api_login),
            ("api_key", MASK),
            ("auth", self.auth),
            ("sandbox", self.is_sandbox),
            ("validate", self.validate),
            ("max_retries", self.max_retries),
        ]
        note = "Embedded sandbox: no real SMS leave this machine." if self.is_sandbox else None
        return render("record.html", title=type(self).__name__, rows=rows, note=note)

    def _repr_html_(self) -> str:
        return self.to_html()

    # -- pure request / response logic ----------------------------------------------------------

    def _http_options(self) -> dict[str, Any]:
        options: dict[str, Any] = {
            "base_url": self._settings.base_url,
            "auth": self._credentials,  # the only place the key enters a request
            "timeout": self.timeout,
            "headers": {"user-agent": f"smskit/{__version__}", "accept": "application/json"},
            # Proxy settings from the environment must not capture loopback traffic.
            "trust_env": not self._settings.loopback,
        }
        if urlsplit(self._settings.base_url).scheme == "http":
            # Plain HTTP (the embedded sandbox) never negotiates TLS, and requests go to the
            # base URL only (no redirect is followed): a context that trusts no certificate,
            # so TLS fails closed were it ever asked for, instead of httpx's default, which
            # loads the CA bundle (0.2-0.3 s of a fresh process's first sandbox answer here).
            options["verify"] = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        return options

    def _flow(self, http: httpx.Client | httpx.AsyncClient, call: Call[T]) -> Flow[T]:
        """Attempts of one call: yields requests and sleeps, returns the parsed result.

        The request carries no credentials here: the client's CredentialAuth adds them as it
        is sent, so no frame of this flow holds the key."""
        request = http.build_request(
            call.method,
            call.path,
            content=call.body,
            params=call.params or None,
            # the body is encoded by the endpoint (core), posted as it is
            headers=None if call.body is None else {"content-type": "application/json"},
        )
        masked: list[httpx.Request] = []

        def shown() -> httpx.Request:
            """The copy of the request errors carry, credentials masked: made once, and only
            when an error needs it (not for every request that succeeds)."""
            if not masked:
                masked.append(_masked(request, self._credentials))
            return masked[0]

        for attempt in itertools.count(1):
            started = time.perf_counter()
            outcome = yield request
            status = outcome.status_code if isinstance(outcome, httpx.Response) else outcome
            elapsed_ms = (time.perf_counter() - started) * 1000
            logger.debug("%s %s -> %s (%.0f ms)", call.method, call.path, status, elapsed_ms)
            if isinstance(outcome, httpx.Response) and outcome.is_success:
                return _parse(call, outcome, shown)
            failure = _failure(call, outcome, shown(), attempt)
            if isinstance(failure, DuplicateRequestError) and call.on_duplicate and attempt > 1:
                return call.on_duplicate(_json_or_none(failure.response))
            delay = self._retry_delay(failure, attempt)
            logger.info(
                "%s %s failed (%s); retry %d/%d in %.2f s",
                call.method,
                call.path,
                type(failure).__name__,
                attempt,
                self.max_retries,
                delay,
            )
            yield delay
        raise AssertionError("unreachable")  # pragma: no cover - itertools.count never ends

    def _retry_delay(self, failure: Exception, attempt: int) -> float:
        """Seconds before the next attempt; raises ``failure`` when it must not be retried."""
        if attempt > self.max_retries or not isinstance(
            failure, TransportError | RateLimitError | ServerError
        ):
            raise failure
        retry_after = failure.retry_after if isinstance(failure, RateLimitError) else None
        if retry_after is not None and retry_after > self.backoff.max_retry_after:
            raise failure
        return self.backoff.delay(attempt, retry_after)


def _parse(call: Call[T], response: httpx.Response, shown: Callable[[], httpx.Request]) -> T:
    """The call's result from a 2xx answer; an error carries ``shown()``, the masked request."""
    try:
        result = call.parse(None if response.status_code == 204 else _json(response))
        return result if call.dated is None else call.dated(result, response.headers.get("date"))
    except APIError as exc:  # a success that reports a failure (a send that kept nobody)
        request = shown()
        exc.request, exc.response = request, _detached(response, request)
        raise
    except (ValueError, ResponseShapeError) as exc:
        # A 2xx whose body we cannot read is not retried: the gateway did act on it.
        request = shown()
        raise APIError(
            f"malformed response to {call.method} {call.path}: {exc}",
            status_code=response.status_code,
            request=request,
            response=_detached(response, request),
        ) from exc


def _failure(
    call: Call[Any], outcome: Outcome, request: httpx.Request, attempt: int
) -> TransportError | APIError:
    """The error an unsuccessful attempt raises (unless it is retried)."""
    if isinstance(outcome, httpx.Response):
        return error_from_response(_detached(outcome, request), request)
    if outcome is None:  # pragma: no cover - the drivers send a response or an error back
        raise TypeError("an attempt must end in a response or an httpx.TransportError")
    return _transport_error(outcome, call, request, attempt)


def _json(response: httpx.Response) -> Any:
    return response.json() if response.content else None


def _json_or_none(response: httpx.Response | None) -> Any:
    if response is None:
        return None
    try:
        return _json(response)
    except ValueError:
        return None


def _masked(request: httpx.Request, credentials: CredentialAuth) -> httpx.Request:
    """A copy of ``request`` with its credential headers masked, for errors to carry."""
    return httpx.Request(
        request.method,
        request.url,
        headers={**mask_headers(request.headers), **credentials.shown_headers()},
        content=request.content,
    )


def _detached(response: httpx.Response, request: httpx.Request) -> httpx.Response:
    """Status, headers and body of an answer, bound to the masked request, for errors to carry.

    The original's stream, extensions and request lead to the connection pool and the sent
    request, whose headers hold the key.
    """
    return httpx.Response(
        response.status_code,
        headers=mask_headers(response.headers),
        content=response.content,
        request=request,
    )


def _transport_error(
    error: httpx.TransportError, call: Call[Any], request: httpx.Request, attempt: int
) -> TransportError:
    error.request = request  # the original carries the key in its headers
    kind = TimeoutError if isinstance(error, httpx.TimeoutException) else TransportError
    detail = str(error) or type(error).__name__
    message = (
        f"{call.method} {call.path}: could not reach {_origin(request.url)}: "
        f"{type(error).__name__}: {detail} (attempt {attempt})"
    )
    if call.request_id:
        message += (
            f"; request_id={call.request_id!r}: resending with the same request_id cannot "
            "send twice"
        )
    wrapped = kind(message, request=request)
    wrapped.__cause__ = error
    return wrapped


def _origin(url: httpx.URL) -> str:
    """``scheme://host:port`` of ``url`` (an IPv6 host in brackets): never its path, query
    or userinfo."""
    return str(httpx.URL(scheme=url.scheme, host=url.host, port=url.port))


class Client(_BaseClient[Sync]):
    """Blocking client: ``with smskit.Client() as client: client.wallet.check_balance()``.

    With no credentials given or set in ``SMSKIT_API_LOGIN`` / ``SMSKIT_API_KEY`` /
    ``SMSKIT_BASE_URL``, it uses the embedded sandbox (local only). ``settings``, resolved
    ones (another client's), replaces credentials and sandbox. ``transport`` is passed to
    ``httpx.Client`` (tests use ``httpx.MockTransport``).
    """

    _http: httpx.Client

    def _open(self, transport: Any, options: dict[str, Any]) -> httpx.Client:
        return httpx.Client(transport=transport, **options)

    def _lent(self) -> httpx.AsyncBaseTransport | None:
        own = self._transport
        if own is None:
            return None
        if not isinstance(own, httpx.AsyncBaseTransport):
            raise ConfigurationError(
                f"this client's transport ({type(own).__name__}) serves only blocking "
                "requests, and this work runs through an AsyncClient: give "
                "smskit.AsyncClient(..., transport=httpx.AsyncHTTPTransport(...)) with the "
                "same certificates/proxy, or to_async(transport=...) an async transport"
            )
        return _Borrowed(own)

    def _bind(self, build: Callable[..., Call[T]]) -> Callable[..., T]:
        def call(*args: Any, **kwargs: Any) -> T:
            return self._send(build(*args, **kwargs))

        return call

    def _send(self, call: Call[T]) -> T:
        flow = self._flow(self._http, call)
        outcome: Outcome = None
        try:
            while True:
                outcome = self._perform(flow.send(outcome))
        except StopIteration as done:
            return cast(T, done.value)

    def _perform(self, step: Step) -> Outcome:
        if isinstance(step, float | int):
            (self.backoff.sleep or time.sleep)(step)
            return None
        try:
            return self._http.send(step)
        except httpx.TransportError as error:
            return error

    def close(self) -> None:
        """Close the connections (the shared sandbox, if any, keeps running)."""
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class AsyncClient(_BaseClient[Async]):
    """Async client: ``async with smskit.AsyncClient() as client: await client.wallet...``.

    Same settings and endpoints as :class:`Client`; ``transport`` (an async transport) goes
    to ``httpx.AsyncClient``.
    """

    _http: httpx.AsyncClient

    def _open(self, transport: Any, options: dict[str, Any]) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=transport, **options)

    def _bind(self, build: Callable[..., Call[T]]) -> Callable[..., Coroutine[Any, Any, T]]:
        async def call(*args: Any, **kwargs: Any) -> T:
            return await self._send(build(*args, **kwargs))

        return call

    async def _send(self, call: Call[T]) -> T:
        flow = self._flow(self._http, call)
        outcome: Outcome = None
        try:
            while True:
                outcome = await self._perform(flow.send(outcome))
        except StopIteration as done:
            return cast(T, done.value)

    async def _perform(self, step: Step) -> Outcome:
        if isinstance(step, float | int):
            await _asleep(self.backoff, step)
            return None
        try:
            return await self._http.send(step)
        except httpx.TransportError as error:
            return error

    async def aclose(self) -> None:
        """Close the connections (the shared sandbox, if any, keeps running)."""
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class _Borrowed(httpx.AsyncBaseTransport):
    """Another client's async transport, lent to a twin: requests go through it, and closing
    the twin leaves it open for its owner."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        return None


async def _asleep(backoff: Backoff, seconds: float) -> None:
    if backoff.sleep is None:
        import anyio  # httpx's async stack runs on anyio: works under asyncio and trio

        await anyio.sleep(seconds)
        return
    waited = backoff.sleep(seconds)
    if inspect.isawaitable(waited):
        await waited
