"""Which certificates a client trusts: the CA bundle for an https gateway, none over plain
HTTP (the embedded sandbox), where TLS is never negotiated and fails closed if asked."""

from __future__ import annotations

import ssl

import pytest

import smskit


def _context(client: smskit.Client) -> ssl.SSLContext:
    """The SSL context of the client's connection pool (httpx's transport)."""
    return client._http._transport._pool._ssl_context  # type: ignore[attr-defined]


def test_https_gateway_verifies_with_the_ca_bundle() -> None:
    """A client of an https gateway checks certificates and host names against real CAs."""
    with smskit.Client("login", "k" * 32, "https://api.example.com") as client:
        context = _context(client)
        assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
        assert context.cert_store_stats()["x509_ca"] > 0


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000", "http://localhost:9"])
def test_plain_http_gateway_trusts_no_certificate(url: str) -> None:
    """Over plain HTTP the client loads no CA (no TLS is negotiated); its context still
    requires a certificate and the host name, so any TLS it were asked for would fail."""
    with smskit.Client("login", "k" * 32, url) as client:
        context = _context(client)
        assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
        assert context.cert_store_stats()["x509_ca"] == 0
