"""The HTTP side of the inbox: the Starlette app that answers the gateway's callbacks.

One route, ``/callbacks/<token>/inbound``; empty bodies in every answer, details only in the
log. Checks run cheapest first and each refusal stores nothing in the replies table:

1. ``Host`` must be one of the allowed names (400): a DNS-rebinding page or a scanner that
   reached the port by address is not talking to *this* inbox.
2. The token in the path must match (404), compared in constant time.
3. The body is read up to ``max_body`` bytes, within the server's request timeout.
4. With a signing secret, the signature must verify (401, see :mod:`smskit.replies.signing`).
5. The body is told apart by its fields (:func:`smskit.rules.callbacks.callback_kind`): a
   delivery report or a STOP is always stored, read tolerantly (:mod:`smskit.replies.reports`:
   what cannot be read is kept as it came and flagged); anything else must be a reply in the
   spec's shape. A body that is not a JSON object, or a reply that is not, is kept in
   ``rejects``. Either way the answer is 200, as spec rule 1 asks of a receiver that ignores
   a reply or hits an error; it is sent once the callback is stored.

Why 401 for a bad signature, when rule 1 asks for 200 "even on error": rule 1 is about
callbacks *from the gateway*, which must not be retried forever because of the receiver's own
trouble. A request whose signature fails is not the gateway's callback, so it is stored
nowhere (not even in ``rejects``: a forger could fill the disk) and answered 401. When the
sender really is the gateway with the wrong secret, the 401 shows in its delivery log and it
retries, instead of every reply being dropped behind a silent 200.
"""

from __future__ import annotations

import hmac
import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol
from urllib.parse import urlsplit

from smskit._server import host_header, read_body
from smskit.errors import ValidationError
from smskit.replies.reports import Report, micros, parse_report
from smskit.replies.signing import SignatureError, verify
from smskit.rules.callbacks import callback_kind
from smskit.rules.hosts import is_loopback
from smskit.rules.once import once

logger = logging.getLogger("smskit.replies.inbox")

TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{16,128}")
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")  # as a Host header names them
_TOKEN_IN_PATH = re.compile(r"/callbacks/[^/\s]+/")


class Store(Protocol):
    """Where the receiver puts what it reads: the inbox's SQLite store (which imports this)."""

    refused: int

    def add(self, item: Reply | Report) -> bool: ...
    def reject(self, reason: str, size: int, body: bytes | None) -> None: ...


# --------------------------------------------------------------------------- callback bodies


class Malformed(ValueError):
    """A callback body that cannot be stored as a reply; the message names field and rule."""


@dataclass(frozen=True)
class Reply:
    message_id: str
    number: str
    text: str
    sim_card_number: str | None
    reception_us: int
    reception_raw: str


def parse_callback(raw: bytes) -> Reply | Report:
    """A callback body -> a reply (the spec's shape, else ``Malformed`` naming the field and
    the rule), or a delivery report or STOP (read tolerantly, never ``Malformed``)."""
    try:
        body = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise Malformed("body: must be JSON (UTF-8)") from None
    if not isinstance(body, dict):
        raise Malformed("body: must be a JSON object")
    kind = callback_kind(body)
    if kind in ("delivery_report", "stop"):
        return parse_report(kind, body, raw)
    text = body.get("text")
    if not isinstance(text, str):
        raise Malformed("text: must be a string")
    sim = body.get("sim_card_number")
    return Reply(
        message_id=identifier(body, "message_id"),
        number=identifier(body, "number"),
        text=text,
        sim_card_number=None if sim is None else identifier(body, "sim_card_number"),
        reception_us=reception_us(body.get("reception_date")),
        reception_raw=str(body.get("reception_date")),
    )


def identifier(body: dict[str, Any], field: str) -> str:
    value = body.get(field)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or not value.strip():
        raise Malformed(f"{field}: must be a non-blank string or an integer")
    return value.strip()


def reception_us(value: Any) -> int:
    """ISO 8601 (``T`` or space, offset or ``Z``; none means UTC) or Unix seconds -> µs."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            moment = datetime.fromtimestamp(value, UTC)
        except (OverflowError, OSError, ValueError):  # NaN, infinity, year past 9999
            raise Malformed("reception_date: must be a Unix timestamp in years 1..9999") from None
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip())
        except ValueError:
            raise Malformed("reception_date: must be an ISO 8601 date and time") from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
    else:
        raise Malformed("reception_date: must be an ISO 8601 string or a Unix timestamp")
    return micros(moment)


# ----------------------------------------------------------------------------------- the app


class _MaskTokens(logging.Filter):
    """uvicorn's access log (on whenever the notebook configures logging) shows the path."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(
                _TOKEN_IN_PATH.sub("/callbacks/***/", a) if isinstance(a, str) else a
                for a in record.args
            )
        return True


@once
def mask_tokens_in_access_log() -> None:
    """Install the token-masking filter on uvicorn's access logger (once per process)."""
    logging.getLogger("uvicorn.access").addFilter(_MaskTokens())


def build_app(
    token: str,
    store: Store,
    max_body: int,
    *,
    allowed_hosts: Sequence[str],
    secret: bytes | None,
    tolerance: float,
    links: Any = None,
    link_path: str = "",
) -> Any:
    """The receiver app for one inbox (see the module docstring for the order of checks);
    with ``links`` (an endpoint of :mod:`smskit.replies.clicks`) it serves
    ``{link_path}/{token}`` too."""
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.requests import ClientDisconnect, Request
    from starlette.responses import Response
    from starlette.routing import Route

    expected = token.encode()

    async def inbound(request: Request) -> Response:
        if not hmac.compare_digest(request.path_params["token"].encode(), expected):
            logger.warning("inbound callback refused: wrong token in the URL (404)")
            return Response(status_code=404)
        if request.method != "POST":
            return Response(status_code=405, headers={"Allow": "POST"})
        try:
            raw, size = await read_body(request, max_body)
        except ClientDisconnect:
            logger.info("inbound callback abandoned by its sender before the body ended")
            return Response(status_code=400)
        if secret is not None:
            try:
                if raw is None:
                    raise SignatureError(f"body over {max_body} bytes cannot be verified")
                verify(secret, raw, request.headers, tolerance=tolerance)
            except SignatureError as exc:
                store.refused += 1
                logger.warning("inbound callback refused, stored nowhere (401): %s", exc)
                return Response(status_code=401)
        # Spec rule 1: the receiver answers 200 even when it ignores the reply or fails.
        if raw is None:
            store.reject(f"body over {max_body} bytes", size, None)
            logger.warning(
                "inbound callback refused: body over %d bytes (kept in rejects)", max_body
            )
            return Response(status_code=200)
        try:
            item = parse_callback(raw)
        except Malformed as exc:
            store.reject(str(exc), size, raw)
            logger.error("inbound callback rejected (kept in rejects): %s", exc)
            return Response(status_code=200)
        if not store.add(item):
            logger.info("inbound callback %s received again: ignored", item.message_id)
        return Response(status_code=200)

    async def http_error(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        return Response(status_code=status)

    async def server_error(request: Request, exc: Exception) -> Response:
        logger.error("inbound callback failed", exc_info=exc)
        return Response(status_code=500)

    methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
    routes = [Route("/callbacks/{token}/inbound", inbound, methods=methods)]
    if links is not None:
        routes.append(Route(f"{link_path}/{{token}}", links, methods=["GET", "HEAD"]))
    return Starlette(
        routes=routes,
        middleware=[
            Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts), www_redirect=False)
        ],
        exception_handlers={HTTPException: http_error, Exception: server_error},
    )


def checked_token(token: object) -> str:
    """An inbox's ``token=``: 16 to 128 URL-safe characters, or "" for None (one is made)."""
    if token is None:
        return ""
    if not isinstance(token, str) or not TOKEN_RE.fullmatch(token):
        raise ValidationError("token", "must be 16 to 128 characters A-Z a-z 0-9 _ -")
    return token


def allowed_hosts(
    host: str, given: Sequence[str] | None, link_base: str | None = None
) -> tuple[str, ...]:
    """The Host header values to answer: loopback names, the bound name, ``given``, and the
    host of ``link_base`` (the public domain in front of the inbox); each as the header names
    it (``[::1]``: a bare ``::1`` matched no request, so an inbox bound to IPv6 loopback
    answered every callback and click 400)."""
    if given is not None:
        if not isinstance(given, list | tuple) or not all(isinstance(h, str) and h for h in given):
            raise ValidationError("allowed_hosts", "must be a list of host names", value=given)
        if any("*" in h[1:] or (h.startswith("*") and not h.startswith("*.")) for h in given):
            raise ValidationError("allowed_hosts", "wildcards must look like '*.example.com'")
        names = [host_header(h) for h in given]
    elif host in ("0.0.0.0", "::"):
        raise ValidationError(
            "allowed_hosts",
            f"must be given when host={host!r} (every address): name the host the gateway "
            "calls, e.g. allowed_hosts=['replies.example.com']",
        )
    else:
        names = []
    if is_loopback(host):
        names = [*LOOPBACK_HOSTS, *names]
    if host not in ("0.0.0.0", "::"):
        names.append(host_header(host))
    if link_base is not None and (public := urlsplit(link_base).hostname):
        names.append(host_header(public))
    return tuple(dict.fromkeys(names))
