"""The one rule of which hosts are this machine (``smskit.rules.hosts``).

The expected answers are written here by hand or computed with integer arithmetic on the
address (127.0.0.0/8 is every address whose first byte is 127), never by ``ipaddress``.
"""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from smskit.rules.hosts import is_loopback, is_loopback_url

HOSTS = [
    ("127.0.0.1", True),
    ("127.255.255.254", True),
    ("127.5.0.1", True),
    ("::1", True),
    ("0:0:0:0:0:0:0:1", True),
    ("::1%lo", True),  # a scoped ::1 is still ::1
    ("::ffff:127.0.0.1", True),  # IPv4-mapped: 127.0.0.1 over an IPv6 socket
    ("localhost", True),
    ("LOCALHOST", True),
    ("LocalHost", True),
    ("localhost.", False),  # resolved through DNS, not /etc/hosts
    ("LOCALHOST.", False),
    ("localhost.example.com", False),
    ("app.localhost", False),
    ("127.0.0.1.nip.io", False),
    ("127.0.0.1.example.com", False),
    ("localhost1", False),
    ("127.1", False),  # a short spelling: refused rather than guessed
    ("0x7f.0.0.1", False),
    ("[::1]", False),  # a bare host has no brackets: a URL's do (is_loopback_url)
    ("128.0.0.1", False),
    ("126.255.255.255", False),
    ("10.0.0.1", False),
    ("0.0.0.0", False),
    ("::", False),
    ("::2", False),
    ("::ffff:10.0.0.1", False),
    ("192.0.2.10", False),
    ("", False),
    (" localhost", False),
]


@pytest.mark.parametrize(("host", "expected"), HOSTS)
def test_host_table(host: str, expected: bool) -> None:
    """Each row: loopback literals and the name localhost count; look-alikes do not."""
    assert is_loopback(host) is expected


URLS = [
    ("http://127.0.0.1:8765/x", True),
    ("http://[::1]:8765/x", True),
    ("https://[::1]/", True),
    ("http://LOCALHOST:1", True),
    ("http://user:pw@localhost/cb", True),
    ("http://[::ffff:127.0.0.1]:9/", True),
    ("http://localhost@gateway.example/", False),  # userinfo, then the real host
    ("http://LOCALHOST.:8765", False),
    ("http://localhost.example.com/", False),
    ("http://127.0.0.1.nip.io/", False),
    ("http://[::1/x", False),  # an unclosed bracket: unreadable
    ("http:///x", False),  # no host
    ("/callbacks/x", False),
    ("http://10.0.0.8:8080", False),
]


@pytest.mark.parametrize(("url", "expected"), URLS)
def test_url_table(url: str, expected: bool) -> None:
    """A URL's host as the URL names it: [::1] in brackets, userinfo and port skipped."""
    assert is_loopback_url(url) is expected


@given(st.ip_addresses(v=4))
def test_ipv4_loopback_is_127_slash_8(address: ipaddress.IPv4Address) -> None:
    """Any IPv4 address, bare, IPv4-mapped and in a URL: loopback iff its first byte is 127."""
    expected = int(address) >> 24 == 127
    assert is_loopback(str(address)) is expected
    assert is_loopback(f"::ffff:{address}") is expected
    assert is_loopback_url(f"http://{address}:8080/x") is expected
    assert is_loopback_url(f"http://[::ffff:{address}]/x") is expected


@given(st.ip_addresses(v=6))
def test_ipv6_loopback_is_only_1(address: ipaddress.IPv6Address) -> None:
    """Any IPv6 address: loopback iff it is ::1 or maps an IPv4 address in 127.0.0.0/8."""
    value = int(address)
    expected = value == 1 or (value >> 32 == 0xFFFF and (value >> 24) & 0xFF == 127)
    assert is_loopback(str(address)) is expected
    assert is_loopback(address.exploded) is expected
    assert is_loopback_url(f"https://[{address}]:443/") is expected


@given(st.lists(st.booleans(), min_size=9, max_size=9))
def test_localhost_in_any_case(upper: list[bool]) -> None:
    """Host names are case-insensitive: every spelling of localhost's case counts."""
    name = "".join(c.upper() if u else c for c, u in zip("localhost", upper, strict=True))
    assert is_loopback(name)
    assert is_loopback_url(f"http://{name}:8765/")


LABEL = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?", fullmatch=True)


@given(LABEL, st.sampled_from(["localhost", "LOCALHOST", "127.0.0.1", "::1"]))
def test_names_that_only_look_local(label: str, local: str) -> None:
    """A loopback name or address with a label before or after it names some other host."""
    looks_local = [f"{local}.{label}", f"{local}-{label}", f"{label}.{local}", f"{local}."]
    for host in looks_local:
        assert not is_loopback(host), host
        if ":" not in local:
            assert not is_loopback_url(f"http://{host}:8080/"), host
