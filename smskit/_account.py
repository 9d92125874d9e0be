"""Whose data this is: a gateway account, keyed by the gateway's base URL and the login.

What smskit keeps per account on disk (the bulk HLR answers, the opt-out list) is keyed by
this pair, so what one gateway said (a sandbox) is never taken for another (another
sandbox, the real account). A trailing slash does not make another gateway; nothing else
is rewritten (``http://127.0.0.1:8000`` and ``http://localhost:8000`` are two gateways).
"""

from __future__ import annotations

from typing import Any, Final
from urllib.parse import urlsplit

from smskit.errors import ConfigurationError

__all__ = [
    "EMBEDDED_SANDBOX",
    "Gateway",
    "Hidden",
    "account_of",
    "carries_secrets",
    "gateway_of",
    "held",
    "shown_url",
]

Gateway = tuple[str, str]  # (base URL, login): whose data this is


def gateway_of(base_url: str, api_login: str) -> Gateway:
    """The key of a gateway account (a trailing slash does not make another gateway). A URL
    that carries credentials (``https://login:KEY@host``) or a query is refused, never kept
    as a key on disk, and shown masked (:func:`shown_url`)."""
    if isinstance(base_url, Hidden) or carries_secrets(base_url):
        shown = base_url.shown() if isinstance(base_url, Hidden) else shown_url(base_url)
        del base_url  # a traceback with locals shows this frame's
        raise ConfigurationError(
            f"a gateway URL must not carry credentials, a query or a fragment (got {shown}): "
            "give the login and the key apart"
        )
    return base_url.rstrip("/"), api_login


class Hidden:
    """A text that may hold a credential (a URL with ``login:KEY@``), as a frame holds it
    until it is refused: no repr, str, traceback local or pickle shows it."""

    __slots__ = ("_text",)

    def __init__(self, text: str) -> None:
        self._text = text

    def shown(self) -> str:
        """The text as an error shows it (:func:`shown_url`)."""
        return shown_url(self._text)

    def __repr__(self) -> str:
        return f"Hidden({self.shown()})"

    __str__ = __repr__

    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError("a URL that carries credentials cannot be pickled")


def held(value: Any) -> Any:
    """``value``, or a :class:`Hidden` when it is a text that carries a secret
    (:func:`carries_secrets`): what an entry point rebinds its URL argument to first, so
    that its frame (and each below) never holds the secret in clear. A ``(base_url, login)``
    pair keeps its shape, its URL held."""
    if isinstance(value, tuple) and value and carries_secrets(value[0]):
        return (Hidden(value[0]), *value[1:])
    return Hidden(value) if carries_secrets(value) else value


def carries_secrets(url: object) -> bool:
    """Whether the text ``url`` may hold a credential where a base URL never does: user
    information (``login:KEY@``; any ``@``, even in a URL that does not read), a query or a
    fragment. Such a text is held as a ``Secret`` by whoever receives it, and refused."""
    if not isinstance(url, str):
        return False
    return "@" in url or "?" in url or "#" in url


def shown_url(url: str) -> str:
    """``url`` as an error may show it: user information and everything after ``?`` or
    ``#`` replaced by ``***`` (the scheme, host, port and path kept)."""
    text = url.strip()
    cut = min((i for i in (text.find("?"), text.find("#")) if i >= 0), default=len(text))
    head, tail = text[:cut], "***" if cut < len(text) else ""
    try:
        parts = urlsplit(head)
        netloc = parts.netloc
    except ValueError:
        return repr("***")
    if "@" in netloc:
        netloc = "***@" + netloc.rsplit("@", 1)[1]
        head = parts._replace(netloc=netloc).geturl()
    elif "@" in head:  # no readable host: the whole text may be a credential
        return repr("***")
    return repr(head + ("?" + tail if tail else ""))


# The base URL the embedded sandbox (started when nothing is configured) is keyed by: each
# process starts its own on another port, but every one answers alike (the same seed and
# rules: an HLR answer is drawn from the number alone), so what one answered, or the list a
# user kept on it, holds for the next command. An explicit ``Sandbox()`` keeps its own URL.
EMBEDDED_SANDBOX: Final = "embedded-sandbox:"


def account_of(client: Any) -> Gateway:
    """The key of a client's account: :data:`EMBEDDED_SANDBOX` for the embedded sandbox
    (``client.is_embedded_sandbox``), else its base URL; with its login."""
    if getattr(client, "is_embedded_sandbox", False) is True:
        return gateway_of(EMBEDDED_SANDBOX, client.api_login)
    return gateway_of(client.base_url, client.api_login)
