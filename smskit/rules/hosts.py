"""Which hosts are this machine: the one answer to "is this host loopback?".

Asked wherever smskit keeps something on the machine: the client lets a plain ``http://``
base URL carry the API key only to loopback (``client/config.py``), the sandbox posts
callbacks only to loopback URLs (``sandbox/_callbacks.py``), and the reply inbox answers the
loopback ``Host`` names, and logs no exposure warning, only when bound to loopback
(``replies/receiver.py``, ``replies/inbox.py``).

:func:`http_url_parts` reads an ``http(s)://`` URL's scheme, host and port exactly (a port
past 65535 or not a number, or no host, is no URL), for the base URL, an opt-out list's
account and a link base.

Loopback is an IP literal in 127.0.0.0/8 or ``::1`` (an IPv4-mapped ``::ffff:127.x.y.z``
too, on every Python: ``ipaddress`` says no on 3.11 and yes from 3.13), or the name
``localhost`` in any case. Nothing else, and no name is resolved (a DNS answer can change):
names that only look local (``localhost.example.com``, ``127.0.0.1.nip.io``,
``app.localhost``) are not loopback, nor ``localhost.`` with a final dot (the C library's
resolver does not read it from ``/etc/hosts`` and asks DNS: ``getaddrinfo('localhost.')``
fails on a machine without DNS where ``localhost`` gives 127.0.0.1), nor the short IPv4
spellings (``127.1``) that ``ipaddress`` refuses. Each doubt falls on the safe side: a
plain-http URL refused, a callback URL refused, an inbox warned about.

May import: the standard library only. Pure functions over ``str``, no I/O.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

__all__ = ["http_url_parts", "is_loopback", "is_loopback_url"]


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine. ``host`` is bare, as a socket binds it or as a
    URL's ``hostname`` gives it: no ``[...]`` around an IPv6 address, no port."""
    if host.lower() == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def is_loopback_url(url: str) -> bool:
    """Whether ``url``'s host names this machine (``http://[::1]:8080/x`` does); a URL that
    cannot be read (an unclosed ``[``) or has no host does not."""
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return False
    return host is not None and is_loopback(host)


def http_url_parts(url: str) -> tuple[str, str, int | None] | None:
    """``(scheme, host, port)`` of an ``http(s)://`` URL read exactly (host bare, as
    :func:`is_loopback` takes it; port None when not written); None when the scheme is
    another, there is no host, the port is 0, past 65535 or not a number, or a ``[`` is
    unclosed: the one reading of a gateway's base URL, an account's key and a link base."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port  # port: ValueError when not 0..65535
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not host or port == 0:
        return None
    return parts.scheme, host, port
