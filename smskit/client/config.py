"""Where the client's credentials and base URL come from, and how the API key is kept hidden.

Arguments win over the ``SMSKIT_*`` environment variables; with nothing configured the client
falls back to the local gateway named by :func:`use_local_gateway` (the embedded sandbox on
loopback, plugged in by ``smskit/__init__.py``: the client never imports the sandbox). The
key lives in a :class:`Secret` that never shows its value, from the moment it is read, and
reaches a request only through :class:`CredentialAuth`, the ``httpx.Auth`` that writes it into
the headers. No function of smskit holds the key, or the Basic token made of it, in a local
variable: a traceback printed with its frames' locals (IPython ``%xmode Verbose``,
``pytest -l``, error trackers) shows only masked reprs.
"""

from __future__ import annotations

import base64
import contextlib
import os
import threading
import weakref
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from typing import Literal, Protocol

import httpx

from smskit._account import Hidden, held
from smskit.errors import ConfigurationError, advised
from smskit.rules.caps import FrequencyCap, frequency_cap_setting
from smskit.rules.hosts import http_url_parts, is_loopback, is_loopback_url

ENV_LOGIN = "SMSKIT_API_LOGIN"
ENV_KEY = "SMSKIT_API_KEY"
ENV_BASE_URL = "SMSKIT_BASE_URL"

SANDBOX_NOTICE = (
    "smskit: no credentials configured: using the embedded sandbox on 127.0.0.1 "
    "(local only, no real SMS leave this machine)."
)

MASK = "********"
# Header names (lower case) whose values are credentials.
SECRET_HEADERS = frozenset({"api-key", "authorization", "proxy-authorization"})

AuthMode = Literal["headers", "basic"]


class Secret:
    """A credential that never shows its value in repr/str; call :meth:`reveal` to use it."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The actual value; only the code that builds the request headers should call this."""
        return self._value

    def __repr__(self) -> str:
        return f"Secret({MASK!r})"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __reduce__(self) -> tuple[object, ...]:
        # Pickling would write the key in clear to wherever the pickle goes.
        raise TypeError("smskit Secret values cannot be pickled")


def _secret(value: str | Secret | None) -> Secret | None:
    """``value`` wrapped (an empty string counts as not given)."""
    if value is None or isinstance(value, Secret):
        return value
    return Secret(value) if value else None


class CredentialAuth(httpx.Auth):
    """Puts the account's credentials on each request: ``api-login``/``api-key`` headers, or
    HTTP Basic (``auth="basic"``). Its repr is masked, and the secret header value is kept
    in a :class:`Secret` and written straight into the request, never into a local variable."""

    def __init__(self, settings: Settings, mode: AuthMode) -> None:
        self.mode: AuthMode = mode
        self.login = settings.api_login
        if mode == "basic":
            self._name = "authorization"
            self._value = Secret(
                "Basic "
                + base64.b64encode(
                    f"{settings.api_login}:{settings.api_key.reveal()}".encode()
                ).decode("ascii")
            )
        else:
            self._name = "api-key"
            self._value = settings.api_key

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        """Sets the credential headers on ``request`` (httpx calls it for every attempt)."""
        if self.mode == "headers":
            request.headers["api-login"] = self.login
        request.headers[self._name] = self._value.reveal()
        yield request

    def shown_headers(self) -> dict[str, str]:
        """The credential headers as an error's copy of the request shows them: masked."""
        if self.mode == "headers":
            return {"api-login": self.login, self._name: MASK}
        return {self._name: MASK}

    def __repr__(self) -> str:
        return f"CredentialAuth({self.mode!r}, login={self.login!r}, secret={MASK!r})"

    __str__ = __repr__

    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError("smskit credentials cannot be pickled")


class SandboxLike(Protocol):
    """What the client needs from a :class:`smskit.sandbox.Sandbox`."""

    @property
    def url(self) -> str: ...
    @property
    def login(self) -> str: ...
    @property
    def api_key(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Settings:
    """Resolved connection settings: where to send requests and as whom."""

    base_url: str
    api_login: str
    api_key: Secret
    sandbox: bool = False
    # The process's shared sandbox, started because nothing was configured: every process's
    # is the same gateway to the data smskit keeps per account (smskit._account).
    embedded: bool = False

    @property
    def loopback(self) -> bool:
        """Whether the gateway is on this machine (then environment proxies are skipped)."""
        return is_loopback_url(self.base_url)


def resolve(
    api_login: str | None = None,
    api_key: str | Secret | None = None,
    base_url: str | None = None,
    *,
    sandbox: SandboxLike | None = None,
    allow_insecure: bool = False,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Settings from arguments, else ``SMSKIT_*`` variables, else the shared embedded sandbox."""
    if sandbox is not None:
        if api_login or api_key or base_url:
            raise ConfigurationError("give either sandbox= or api_login/api_key/base_url, not both")
        _remember(sandbox)
        return Settings(sandbox.url, sandbox.login, Secret(sandbox.api_key), sandbox=True)
    # No local names the environment or the key in clear: a traceback with locals shows them
    # (a URL carrying a login and key is held as a Hidden, refused by check_base_url).
    base_url = held(base_url)
    login = api_login or _env(ENV_LOGIN, environ)
    key = _secret(api_key) or _secret(_env(ENV_KEY, environ))
    url = held(base_url or _env(ENV_BASE_URL, environ))
    if login is None and key is None and url is None:
        return _shared_sandbox()
    if login is None or key is None:
        missing = [name for name, value in (("api_login", login), ("api_key", key)) if not value]
        names = " and ".join(f"{name} (or SMSKIT_{name.upper()})" for name in missing)
        raise ConfigurationError(f"incomplete credentials: {names} not set")
    if url is None:
        fact = "credentials are set but no gateway URL"
        raise advised(
            ConfigurationError(f"{fact}: pass base_url= or set {ENV_BASE_URL}"), fact, "base_url"
        )
    return Settings(check_base_url(url, allow_insecure=allow_insecure), login, key)


def default_frequency_cap() -> FrequencyCap | None:
    """The account's default frequency cap for marketing campaigns: ``SMSKIT_FREQUENCY_CAP``
    (``"2/7D"``; unset or empty: none), read when a campaign is made; a value that does not
    read is refused naming the variable. A campaign's own ``frequency_cap=`` wins."""
    return frequency_cap_setting(os.environ)


def _env(name: str, environ: Mapping[str, str] | None) -> str | None:
    return (os.environ if environ is None else environ).get(name) or None


# One notice printed at a time: print() writes the line and its end separately.
_NOTICE_LOCK = threading.Lock()
# The gateway of a client with nothing configured. Client and sandbox stay independent, so
# the package above both (smskit/__init__.py) names it, and the sandbox starts on first use.
_local_gateway: Callable[[], SandboxLike] | None = None


def use_local_gateway(start: Callable[[], SandboxLike]) -> None:
    """Use ``start()`` (which returns a running gateway) when nothing is configured."""
    global _local_gateway
    _local_gateway = start


def _shared_sandbox() -> Settings:
    if _local_gateway is None:
        raise ConfigurationError(
            f"no credentials configured: pass api_login/api_key/base_url or set {ENV_LOGIN}, "
            f"{ENV_KEY} and {ENV_BASE_URL}"
        )
    box = _local_gateway()
    _remember(box)
    with _NOTICE_LOCK:  # clients made in many threads at once: whole lines, never interleaved
        print(SANDBOX_NOTICE, flush=True)
    return Settings(box.url, box.login, Secret(box.api_key), sandbox=True, embedded=True)


# Sandboxes clients of this process were made on, by URL: a resumed campaign finds the one it
# was sent to instead of starting a new one (which would know nothing of the first sends).
_sandboxes: weakref.WeakValueDictionary[str, SandboxLike] = weakref.WeakValueDictionary()


def _remember(box: SandboxLike) -> None:
    # An object without weak references (a test double) is simply not found later.
    with contextlib.suppress(TypeError):
        _sandboxes[box.url] = box


def running_sandbox(url: str) -> SandboxLike | None:
    """The sandbox serving ``url`` that a client of this process was made on, if still running."""
    box = _sandboxes.get(url)
    if box is None or not getattr(box, "running", True):
        return None
    return box


def check_base_url(url: str | Hidden, *, allow_insecure: bool = False) -> str:
    """The base URL without trailing slash; refuses what would leak the key or cannot work.
    A URL with user information, a query or a fragment (held as a :class:`Hidden`) is
    refused showing it masked."""
    url = held(url)
    if isinstance(url, Hidden):
        raise ConfigurationError(
            f"base URL must not carry credentials, a query or a fragment (got {url.shown()}); "
            f"give the login and key apart: api_login/api_key ({ENV_LOGIN}/{ENV_KEY})"
        )
    read = http_url_parts(url.strip())
    if read is None:
        raise ConfigurationError(
            f"base URL ({ENV_BASE_URL}) must look like https://host[:port][/prefix], the port "
            f"from 1 to 65535, got {url!r}"
        )
    scheme, hostname, _ = read
    if scheme == "http" and not is_loopback(hostname) and not allow_insecure:
        fact = f"refusing plain http:// to {hostname}: the API key would travel in clear"
        raise advised(
            ConfigurationError(f"{fact}; use https:// or pass allow_insecure=True"),
            fact,
            "allow_insecure",
        )
    return url.strip().rstrip("/")


def mask_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """A copy of ``headers`` with every credential value replaced by a mask."""
    return {
        name: MASK if name.lower() in SECRET_HEADERS else value for name, value in headers.items()
    }
