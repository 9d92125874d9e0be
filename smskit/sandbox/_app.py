"""The sandbox's HTTP layer: Starlette routes over :class:`Gateway`, auth, JSON errors.

Gateway routes live under ``/v1/public/`` exactly as the spec lists them; control routes
for tests and demos under ``/_sandbox/`` take the same credentials. ``/openapi.json`` is
public so that tools can discover the API. Starlette is imported here only, and this
module only when a sandbox starts.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from email.utils import format_datetime
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from smskit._server import read_body
from smskit.errors import ValidationError
from smskit.sandbox._casting import FORMAT, NOT_ALLOWED
from smskit.sandbox._clock import Clock
from smskit.sandbox._domain import GatewayError, field_error, validation_error
from smskit.sandbox._faults import FaultMiddleware
from smskit.sandbox._gateway import Gateway
from smskit.sandbox._openapi import openapi_document
from smskit.sandbox._reports import DeliveryModel

Handler = Callable[[Request], Awaitable[Response]]
MAX_BODY = 4 * 1024 * 1024
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
UNAUTHORIZED = {
    "code": 401,
    "message": "Missing or wrong credentials: send the api-login and api-key headers "
    "(or HTTP Basic authentication with login:key).",
}


class Credentials:
    """Login and key of the sandbox account; compared in constant time, never shown."""

    def __init__(self, login: str, api_key: str) -> None:
        self.login = login
        self._key = api_key.encode()

    def __repr__(self) -> str:
        return f"Credentials(login={self.login!r}, api_key='***')"

    def check(self, request: Request) -> bool:
        login = request.headers.get("api-login")
        key = request.headers.get("api-key")
        if login is not None and key is not None and self._matches(login, key):
            return True
        scheme, _, encoded = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "basic":
            return False
        try:
            decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return False
        login, sep, key = decoded.partition(":")
        return bool(sep) and self._matches(login, key)

    def _matches(self, login: str, key: str) -> bool:
        same_login = hmac.compare_digest(login.encode(), self.login.encode())
        same_key = hmac.compare_digest(key.encode(), self._key)
        return same_login and same_key


def _error(exc: GatewayError) -> JSONResponse:
    return JSONResponse(exc.body, status_code=exc.status, headers=exc.headers)


async def _json_body(request: Request) -> Any:
    """The JSON body; an empty body reads as ``{}`` so that missing fields are named."""
    too_large = GatewayError(
        413, {"code": 413, "message": f"Request body too large (over {MAX_BODY} bytes)."}
    )
    raw, _size = await read_body(request, MAX_BODY)
    if raw is None:
        raise too_large
    if not raw.strip():
        return {}
    try:
        payload = json.loads(raw)
    except (ValueError, RecursionError):
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind in ("application/x-www-form-urlencoded", "multipart/form-data"):
            # The spec's bodies are JSON only; guessing field types from a form would be a
            # leniency the real gateway does not document.
            message = f"The request body must be JSON (Content-Type: application/json), not {kind}."
        else:
            message = "The request body must be valid JSON."
        raise field_error("body", FORMAT, message) from None
    if _SURROGATE_ESCAPE.search(raw):
        # JSON may escape a lone UTF-16 surrogate: no text can be sent or stored with one.
        try:
            json.dumps(payload, ensure_ascii=False).encode("utf-8")
        except (UnicodeEncodeError, RecursionError):
            raise field_error(
                "body", FORMAT, "The request body holds a lone UTF-16 surrogate (invalid text)."
            ) from None
    return payload


def build_app(gateway: Gateway, credentials: Credentials) -> Any:
    """The ASGI application of one sandbox."""
    faults = gateway.request_faults

    def guarded(handler: Handler, *, auth: bool = True) -> Handler:
        async def endpoint(request: Request) -> Response:
            if auth and not credentials.check(request):
                return JSONResponse(
                    UNAUTHORIZED,
                    status_code=401,
                    headers={"WWW-Authenticate": 'Basic realm="smskit sandbox"'},
                )
            try:
                return await handler(request)
            except GatewayError as exc:
                return _error(exc)
            except ValidationError as exc:
                return _error(field_error(exc.field, NOT_ALLOWED, str(exc)))

        return endpoint

    def route(path: str, handler: Handler, *methods: str, auth: bool = True) -> Route:
        return Route(path, guarded(handler, auth=auth), methods=list(methods))

    # --- gateway endpoints -------------------------------------------------------------------

    def answer(read: Callable[[], Any]) -> Handler:
        async def endpoint(request: Request) -> Response:
            return JSONResponse(read())

        return endpoint

    def posted(call: Callable[[Any], Any], status_code: int = 200) -> Handler:
        async def endpoint(request: Request) -> Response:
            return JSONResponse(call(await _json_body(request)), status_code=status_code)

        return endpoint

    async def contact_delete(request: Request) -> Response:
        payload = await _json_body(request)
        if payload == {} and request.query_params:
            # Some HTTP clients cannot send a DELETE body: accept the same fields as a query.
            payload = {
                "phone_numbers": request.query_params.getlist("phone_numbers[]")
                or request.query_params.getlist("phone_numbers"),
                "list_name": request.query_params.get("list_name"),
            }
        gateway.contact_delete(payload)
        return Response(status_code=204)

    async def balance(request: Request) -> Response:
        return JSONResponse(gateway.check_balance(request.query_params))

    async def credits(request: Request) -> Response:
        query = request.query_params
        codes = query.getlist("country_codes[]") + query.getlist("country_codes")
        return JSONResponse(gateway.check_credits(codes))

    # --- control endpoints -------------------------------------------------------------------

    async def control_body(request: Request) -> dict[str, Any]:
        payload = await _json_body(request)
        if not isinstance(payload, dict):
            raise field_error("body", FORMAT, "The request body must be a JSON object.")
        return payload

    def required(payload: dict[str, Any], name: str) -> Any:
        if name not in payload:
            raise validation_error({name: {"code": 410, "message": f"{name} must not be blank."}})
        return payload[name]

    async def state(request: Request) -> Response:
        return JSONResponse({**gateway.state(), "faults": faults.faults()})

    async def set_balance(request: Request) -> Response:
        gateway.set_balance(required(await control_body(request), "amount"))
        return JSONResponse({"amount": gateway.balance(), "unit": "EUR"})

    async def wallet_packs(request: Request) -> Response:
        if request.method == "POST":
            body = await control_body(request)
            gateway.add_wallet_pack(required(body, "amount"), required(body, "expires_in_days"))
        return JSONResponse(gateway.wallet_packs())

    async def prices(request: Request) -> Response:
        if request.method == "POST":
            body = await control_body(request)
            gateway.set_price(
                required(body, "country_code"),
                required(body, "product_name"),
                required(body, "price"),
            )
        return JSONResponse(gateway.prices())

    async def drafts(request: Request) -> Response:
        body = await control_body(request)
        gateway.set_drafts(sms=body.get("sms"), voice=body.get("voice"))
        return JSONResponse({"sms": gateway.sms_draft(), "voice": gateway.voice_draft()})

    async def callback(request: Request) -> Response:
        if request.method == "POST":
            body = await control_body(request)
            gateway.register_callback_url(required(body, "url"), body.get("kind"))
        return JSONResponse({"url": gateway.callback_url(), "urls": gateway.callback_urls()})

    async def delivery_model(request: Request) -> Response:
        if request.method == "POST":
            gateway.set_delivery_model(DeliveryModel.from_json(await control_body(request)))
        return JSONResponse(asdict(gateway.player.model))

    async def callback_faults(request: Request) -> Response:
        if request.method == "POST":
            body = await control_body(request)
            known = ("withhold_rate", "garble_rate", "seed")
            gateway.inject_callback_faults(**{k: body[k] for k in known if k in body})
        elif request.method == "DELETE":
            gateway.inject_callback_faults()
        return JSONResponse(asdict(gateway.player.faults))

    async def replies(request: Request) -> Response:
        if request.method == "GET":
            return JSONResponse(gateway.replies())
        body = await control_body(request)
        number, text = required(body, "number"), required(body, "text")
        sim, wait = body.get("sim_card_number"), body.get("wait", True)
        # Waiting for the delivery blocks: keep the event loop free meanwhile.
        result = await run_in_threadpool(
            lambda: gateway.simulate_reply(number, text, sim_card_number=sim, wait=wait)
        )
        return JSONResponse(result, status_code=201)

    async def campaign_replies(request: Request) -> Response:
        body = await control_body(request)
        ticket = required(body, "ticket")
        known = ("rate", "opt_out_share", "seed", "within_hours", "wait")
        options = {k: body[k] for k in known if k in body}
        result = await run_in_threadpool(
            lambda: gateway.simulate_campaign_replies(ticket, **options)
        )
        return JSONResponse(result, status_code=201)

    async def deliveries(request: Request) -> Response:
        return JSONResponse(
            {"pending": gateway.callback_queue.pending(), "attempts": gateway.deliveries()}
        )

    async def contacts(request: Request) -> Response:
        return JSONResponse({"contacts": gateway.contacts(), "lists": gateway.lists()})

    async def blacklist(request: Request) -> Response:
        if request.method == "POST":
            gateway.add_to_blacklist(required(await control_body(request), "phone_numbers"))
        return JSONResponse(gateway.blacklist())

    async def fault_settings(request: Request) -> Response:
        if request.method == "POST":
            body = await control_body(request)
            known = ("error_rate", "drop_rate", "rate_limit_rate", "latency", "seed")
            faults.inject_faults(**{k: body[k] for k in known if k in body})
        elif request.method == "DELETE":
            faults.clear_faults()
        return JSONResponse(faults.faults())

    async def duplicate_answer(request: Request) -> Response:
        if request.method == "POST":
            gateway.set_duplicate_answer(required(await control_body(request), "shape"))
        return JSONResponse({"shape": gateway.duplicate_answer()})

    async def clock(request: Request) -> Response:
        dispatched = 0
        if request.method == "POST":
            dispatched = gateway.advance(required(await control_body(request), "seconds"))
        return JSONResponse({"now": gateway.now(), "dispatched": dispatched})

    async def reset(request: Request) -> Response:
        gateway.reset()
        return JSONResponse(gateway.state())

    # --- public documents --------------------------------------------------------------------

    async def openapi(request: Request) -> Response:
        return JSONResponse(openapi_document(str(request.base_url).rstrip("/")))

    async def index(request: Request) -> Response:
        return JSONResponse({"service": "smskit sandbox gateway", "openapi": "/openapi.json"})

    public = "/v1/public"
    routes = [
        route(f"{public}/sms-campaign/send", posted(gateway.send, 201), "POST"),
        route(f"{public}/contact/create", posted(gateway.contact_create, 201), "POST"),
        route(f"{public}/contact/delete", contact_delete, "DELETE"),
        route(f"{public}/contact-list/empty", posted(gateway.contact_list_empty), "POST"),
        route(f"{public}/contact/hlr-request", posted(gateway.hlr_request), "POST"),
        route(f"{public}/wallet/check-balance", balance, "GET"),
        route(f"{public}/wallet/check-credits", credits, "GET"),
        route(f"{public}/sms-campaign/draft", answer(gateway.sms_draft), "GET"),
        route(f"{public}/voice-campaign/draft", answer(gateway.voice_draft), "GET"),
        route(
            f"{public}/subaccount/credit-transfer/token",
            posted(gateway.credit_transfer_token, 201),
            "POST",
        ),
        route("/_sandbox/state", state, "GET"),
        route("/_sandbox/balance", set_balance, "POST"),
        route("/_sandbox/wallet-packs", wallet_packs, "GET", "POST"),
        route("/_sandbox/prices", prices, "GET", "POST"),
        route("/_sandbox/drafts", drafts, "POST"),
        route("/_sandbox/callback", callback, "GET", "POST"),
        route("/_sandbox/delivery-model", delivery_model, "GET", "POST"),
        route("/_sandbox/callback-faults", callback_faults, "GET", "POST", "DELETE"),
        route("/_sandbox/reports", answer(gateway.reports), "GET"),
        route("/_sandbox/replies", replies, "GET", "POST"),
        route("/_sandbox/campaign-replies", campaign_replies, "POST"),
        route("/_sandbox/deliveries", deliveries, "GET"),
        route("/_sandbox/sent", answer(gateway.sent), "GET"),
        route("/_sandbox/dropped", answer(gateway.dropped), "GET"),
        route("/_sandbox/contacts", contacts, "GET"),
        route("/_sandbox/blacklist", blacklist, "GET", "POST"),
        route("/_sandbox/tokens", answer(gateway.tokens), "GET"),
        route("/_sandbox/faults", fault_settings, "GET", "POST", "DELETE"),
        route("/_sandbox/clock", clock, "GET", "POST"),
        route("/_sandbox/duplicate-answer", duplicate_answer, "GET", "POST"),
        route("/_sandbox/reset", reset, "POST"),
        route("/openapi.json", openapi, "GET", auth=False),
        route("/", index, "GET", auth=False),
    ]

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        messages = {404: "Not found.", 405: "Method not allowed."}
        message = messages.get(exc.status_code, exc.detail)
        return JSONResponse(
            {"code": exc.status_code, "message": message},
            status_code=exc.status_code,
            headers=exc.headers,
        )

    async def server_error(request: Request, exc: Exception) -> Response:
        return JSONResponse({"code": 500, "message": "Internal server error."}, status_code=500)

    app = Starlette(
        routes=routes, exception_handlers={HTTPException: http_error, Exception: server_error}
    )
    # A trailing slash is another path (404): a redirect here would make code that works
    # on the sandbox depend on a redirect the real gateway does not document.
    app.router.redirect_slashes = False
    return ClockDate(FaultMiddleware(app, faults), gateway.clock)


class ClockDate:
    """ASGI middleware: every answer's HTTP ``Date`` header is the sandbox's clock (moved by
    ``advance()``), as a real gateway dates its answers by its own clock (RFC 9110, 6.6.1).
    The server is started without uvicorn's wall-clock Date, so there is one."""

    def __init__(self, app: Any, clock: Clock) -> None:
        self.app = app
        self.clock = clock

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def dated(message: Any) -> None:
            if message["type"] == "http.response.start":
                stamp = format_datetime(self.clock.now(), usegmt=True).encode("latin-1")
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"date"]
                message = {**message, "headers": [*headers, (b"date", stamp)]}
            await send(message)

        await self.app(scope, receive, dated)
