"""Client unit tests over httpx.MockTransport: request building, checks, retries, errors, secrets.

The end-to-end behaviour against the real sandbox is in test_client_e2e.py; here are the
request shapes and the faults a sandbox cannot produce (timeouts, malformed answers).
"""

from __future__ import annotations

import base64
import inspect
import json
import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import httpx
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import smskit
from smskit import Backoff, Client, errors
from smskit.client.models import SendResult
from smskit.rules.contacts import chunk_contacts

LOGIN = "acme"
KEY = "k3y-Sup3rSecret-9f8e7d"
BASE = "https://gateway.example"
STOP_TEXT = "Hello {first_name}, -20% today. STOP au 36173"
SEND_OK = {"sms_ticket": "T-1", "number_of_contacts": 1, "total_cost": 0.065}

Reply = httpx.Response | Exception | Callable[[httpx.Request], httpx.Response]


class Gateway:
    """A scripted gateway: answers requests with the given replies, in order; records requests."""

    def __init__(self, *replies: Reply) -> None:
        self.replies = list(replies)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        if isinstance(reply, Exception):
            raise reply
        if callable(reply):
            return reply(request)
        return reply

    def body(self, index: int = -1) -> Any:
        return json.loads(self.requests[index].content)


def answer(status: int, body: Any = None, **headers: str) -> httpx.Response:
    """A JSON response (or an empty one when ``body`` is None)."""
    if body is None:
        return httpx.Response(status, headers=headers)
    return httpx.Response(status, json=body, headers=headers)


def make(gateway: Gateway, sleeps: list[float] | None = None, **options: Any) -> Client:
    """A client on the scripted gateway; backoff sleeps are recorded instead of waited."""
    backoff = Backoff(random=lambda: 0.5, sleep=(sleeps if sleeps is not None else []).append)
    options.setdefault("backoff", backoff)
    return Client(LOGIN, KEY, BASE, transport=httpx.MockTransport(gateway), **options)


def send(client: Client, **overrides: Any) -> SendResult:
    """A valid marketing send with ``overrides`` applied."""
    fields: dict[str, Any] = {
        "text": STOP_TEXT,
        "recipients": ["+33612345678"],
        "sender": "MyShop",
    }
    return client.sms_campaign.send(**{**fields, **overrides})


# -- requests ---------------------------------------------------------------------------------


def test_send_posts_the_body_with_auth_headers_and_a_generated_request_id() -> None:
    """A send is a POST to the spec path, JSON body, api-login/api-key headers, fresh request_id."""
    gateway = Gateway(answer(201, SEND_OK))
    result = send(make(gateway), simulation_mode=True)
    request = gateway.requests[0]
    assert request.method == "POST"
    assert str(request.url) == f"{BASE}/v1/public/sms-campaign/send"
    assert request.headers["api-login"] == LOGIN
    assert request.headers["api-key"] == KEY
    assert request.headers["content-type"] == "application/json"
    body = gateway.body()
    assert body["text"] == STOP_TEXT
    assert body["recipients"] == [{"phone_number": "+33612345678"}]
    assert body["sender"] == "MyShop"
    assert body["simulation_mode"] is True
    assert len(body["request_id"]) == 32 and int(body["request_id"], 16) >= 0
    assert set(body) == {"text", "recipients", "sender", "simulation_mode", "request_id"}
    assert result.request_id == body["request_id"]
    assert result.sms_ticket == "T-1"


def test_bodies_are_posted_in_canonical_json() -> None:
    """Every body is posted as its canonical JSON (sorted keys, no spaces, UTF-8 text)."""
    gateway = Gateway(answer(201, SEND_OK))
    send(make(gateway), recipients=[{"phone_number": "+33612345678", "first_name": "Zoé"}])
    posted = gateway.requests[0].content
    assert (
        posted
        == json.dumps(
            json.loads(posted), sort_keys=True, separators=(",", ":"), ensure_ascii=False
        ).encode()
    )
    assert posted.startswith(b'{"recipients":[{"first_name":"Zo\xc3\xa9","phone_number":')


def test_a_planned_chunk_is_posted_as_the_bytes_it_was_encoded_to() -> None:
    """A ContactChunk is encoded once: the body holds its ``encoded`` bytes as they are (the
    bytes its request_id was derived from), not a second encoding of its contacts."""
    chunk = chunk_contacts(["+33612345678"], {"first_name": ["Ann"]}, range(1))
    assert chunk.encoded == b'[{"first_name":"Ann","phone_number":"+33612345678"}]'
    gateway = Gateway(answer(201, SEND_OK))
    send(make(gateway), recipients=chunk, validate=False)
    assert b'"recipients":' + chunk.encoded + b"," in gateway.requests[0].content
    probe = chunk.pick([0])
    probe.__dict__["encoded"] = b'[{"phone_number":"+33600000000"}]'  # not its contacts
    send(make(gateway), recipients=probe, validate=False)
    assert gateway.body()["recipients"] == [{"phone_number": "+33600000000"}]


def test_each_send_gets_its_own_request_id_unless_given() -> None:
    """Two sends carry different generated ids; a given request_id is sent unchanged."""
    gateway = Gateway(answer(201, SEND_OK))
    client = make(gateway)
    send(client)
    send(client)
    send(client, request_id="order-42")
    ids = [json.loads(r.content)["request_id"] for r in gateway.requests]
    assert ids[0] != ids[1]
    assert ids[2] == "order-42"


def test_basic_auth_sends_login_colon_key_and_no_key_header() -> None:
    """auth='basic' sends Authorization: Basic base64(login:key) instead of the two headers."""
    gateway = Gateway(answer(200, {"amount": 1.0, "unit": "EUR"}))
    make(gateway, auth="basic").wallet.check_balance()
    headers = gateway.requests[0].headers
    expected = base64.b64encode(f"{LOGIN}:{KEY}".encode()).decode()
    assert headers["authorization"] == f"Basic {expected}"
    assert "api-key" not in headers and "api-login" not in headers


@pytest.mark.parametrize(
    ("call", "method", "path", "query", "body"),
    [
        (lambda c: c.sms_campaign.draft(), "GET", "sms-campaign/draft", "", None),
        (lambda c: c.voice_campaign.draft(), "GET", "voice-campaign/draft", "", None),
        (
            lambda c: c.wallet.check_balance(country_code="FR", product_name="hlr"),
            "GET",
            "wallet/check-balance",
            "country_code=FR&product_name=hlr",
            None,
        ),
        (
            lambda c: c.wallet.check_balance(with_details=True),
            "GET",
            "wallet/check-balance",
            "with_details=true",
            None,
        ),
        (
            lambda c: c.wallet.check_credits(["FR", "GB"]),
            "GET",
            "wallet/check-credits",
            "country_codes%5B%5D=FR&country_codes%5B%5D=GB",
            None,
        ),
        (
            lambda c: c.contact.delete(["+33612345678"], list_name="vip"),
            "DELETE",
            "contact/delete",
            "",
            {"phone_numbers": ["+33612345678"], "list_name": "vip"},
        ),
        (
            lambda c: c.contact.hlr_request("+33612345678", simulation_mode=True),
            "POST",
            "contact/hlr-request",
            "",
            {"phone_numbers": ["+33612345678"], "simulation_mode": True},
        ),
        (
            lambda c: c.contact_list.empty("vip"),
            "POST",
            "contact-list/empty",
            "",
            {"list_name": "vip"},
        ),
        (
            lambda c: c.contact.create(["+33612345678"], tag_name="2025", do_not_overwrite=True),
            "POST",
            "contact/create",
            "",
            {
                "contacts": [{"phone_number": "+33612345678"}],
                "tag_name": "2025",
                "do_not_overwrite": True,
            },
        ),
        (
            lambda c: c.subaccount.credit_transfer_token("shop@example.com"),
            "POST",
            "subaccount/credit-transfer/token",
            "",
            {"email_to": "shop@example.com"},
        ),
    ],
)
def test_every_endpoint_uses_its_spec_method_path_and_fields(
    call: Callable[[Client], Any], method: str, path: str, query: str, body: Any
) -> None:
    """Each endpoint method sends the spec's method and path with only the fields given."""
    gateway = Gateway(answer(500, {"code": 500, "message": "stop here"}))
    with pytest.raises(errors.ServerError):
        call(make(gateway, max_retries=0))
    request = gateway.requests[0]
    assert request.method == method
    assert request.url.path == f"/v1/public/{path}"
    assert request.url.query.decode() == query
    assert (json.loads(request.content) if request.content else None) == body


def test_base_url_path_prefix_is_kept() -> None:
    """A base URL with a path prefix puts /v1/public/... under that prefix."""
    gateway = Gateway(answer(200, {"amount": 1.0, "unit": "EUR"}))
    client = Client(LOGIN, KEY, BASE + "/gw/", transport=httpx.MockTransport(gateway))
    client.wallet.check_balance()
    assert gateway.requests[0].url.path == "/gw/v1/public/wallet/check-balance"


# -- recipients and send_at ---------------------------------------------------------------------


def test_recipients_accept_numbers_dicts_and_dataframes() -> None:
    """Numbers, dicts and DataFrames become Contact objects; NaN and other columns left out."""
    gateway = Gateway(answer(201, SEND_OK))
    client = make(gateway)
    send(client, recipients=["+33612345678", "+33698765432"])
    send(client, recipients=[{"phone_number": "+33612345678", "first_name": "Ada"}])
    frame = pd.DataFrame(
        {
            "phone_number": ["+33612345678", "+33698765432"],
            "first_name": ["Ada", None],
            "param1": ["A1", float("nan")],
            "segment": ["gold", "silver"],  # not a Contact field: not sent
        }
    )
    send(client, recipients=frame)
    bodies = [json.loads(r.content)["recipients"] for r in gateway.requests]
    assert bodies[0] == [{"phone_number": "+33612345678"}, {"phone_number": "+33698765432"}]
    assert bodies[1] == [{"phone_number": "+33612345678", "first_name": "Ada"}]
    assert bodies[2] == [
        {"phone_number": "+33612345678", "first_name": "Ada", "param1": "A1"},
        {"phone_number": "+33698765432"},
    ]


def test_dataframe_without_phone_number_column_is_refused() -> None:
    """A DataFrame of recipients must have a phone_number column, even with validate=False."""
    gateway = Gateway(answer(201, SEND_OK))
    with pytest.raises(errors.ValidationError, match="phone_number' column"):
        send(make(gateway), recipients=pd.DataFrame({"tel": ["+33612345678"]}), validate=False)
    assert gateway.requests == []


def test_send_at_accepts_aware_datetimes_and_iso_strings_with_offset() -> None:
    """send_at goes out as ISO 8601 with its offset, from a datetime or a string."""
    gateway = Gateway(answer(201, SEND_OK))
    client = make(gateway)
    paris_summer = timezone(timedelta(hours=2))
    send(client, send_at=datetime(2030, 6, 1, 9, 30, tzinfo=paris_summer))
    send(client, send_at="2030-06-01T09:30:00Z")
    assert gateway.body(0)["send_at"] == "2030-06-01T09:30:00+02:00"
    assert gateway.body(1)["send_at"] == "2030-06-01T09:30:00Z"


@pytest.mark.parametrize("value", [datetime(2030, 6, 1, 9, 30), "2030-06-01 09:30", "tomorrow"])
def test_send_at_without_offset_is_refused(value: Any) -> None:
    """A naive datetime or a string without offset would be read in an unknown zone: refused."""
    gateway = Gateway(answer(201, SEND_OK))
    with pytest.raises(errors.ValidationError) as caught:
        send(make(gateway), send_at=value)
    assert caught.value.field == "send_at"
    assert gateway.requests == []


# -- checks before sending ------------------------------------------------------------------------

RECIPIENT = {"phone_number": "+33612345678"}


@pytest.mark.parametrize(
    ("overrides", "field", "position"),
    [
        ({"text": ""}, "text", None),
        ({"text": "STOP " + "x" * 1220}, "text", None),  # 1225 characters
        ({"text": "Hi {firstname} STOP"}, "text", 3),  # unknown dynamic field at index 3
        ({"text": "Big sale today, stop by!"}, "text", None),  # wholesale needs the word STOP
        ({"recipients": []}, "recipients", None),
        ({"recipients": [RECIPIENT] * 501}, "recipients", None),
        ({"recipients": [RECIPIENT, {"phone_number": "0612"}]}, "recipients.phone_number", 1),
        ({"recipients": [RECIPIENT, {"first_name": "Ada"}]}, "recipients.phone_number", 1),
        ({"recipients": [{**RECIPIENT, "param1": "x" * 51}]}, "recipients.param1", 0),
        ({"recipients": [{**RECIPIENT, "firstname": "Ada"}]}, "recipients.firstname", 0),
        ({"recipients": [{**RECIPIENT, "param2": ["a", "b"]}]}, "recipients.param2", 0),
        ({"recipients": [None]}, "recipients", 0),
        ({"sender": "AB"}, "sender", None),
        ({"sender": "ABCDEFGHIJKL"}, "sender", None),  # 12 characters
        ({"sender": "My Shop"}, "sender", None),  # spaces: alert or with_replies only
        ({"sender": "Café"}, "sender", None),
        ({"type": "sms_standard"}, "type", None),
        ({"purpose": "marketing"}, "purpose", None),
        ({"simulation_mode": "yes"}, "simulation_mode", None),
        ({"request_id": ""}, "request_id", None),
    ],
)
def test_send_checks_every_spec_rule_before_any_request(
    overrides: dict[str, Any], field: str, position: int | None
) -> None:
    """Each broken rule of the send endpoint raises ValidationError naming field and position."""
    gateway = Gateway(answer(201, SEND_OK))
    with pytest.raises(errors.ValidationError) as caught:
        send(make(gateway), **overrides)
    assert (caught.value.field, caught.value.position) == (field, position)
    assert isinstance(caught.value, ValueError)
    assert gateway.requests == []


@pytest.mark.parametrize(
    "overrides",
    [
        {"text": "STOP " + "x" * 1219},  # exactly 1224 characters
        {"text": "Your code is 1234", "purpose": "alert"},  # alerts need no STOP mention
        {"recipients": [RECIPIENT] * 500},
        {"recipients": [{**RECIPIENT, "param5": "x" * 50, "last_name": None}]},
        {"sender": "ABC"},
        {"sender": "ABCDEFGHIJK"},
        {"sender": "My Shop", "purpose": "alert", "text": "Parcel shipped"},
        {"sender": "My Shop", "with_replies": True},
        {"type": "sms_low_cost", "purpose": "wholesale"},
    ],
)
def test_send_accepts_values_on_the_spec_limits(overrides: dict[str, Any]) -> None:
    """Values at the spec's limits (and the spaces/STOP exceptions) are sent."""
    gateway = Gateway(answer(201, SEND_OK))
    send(make(gateway), **overrides)
    assert len(gateway.requests) == 1


@pytest.mark.parametrize(
    ("call", "field", "position"),
    [
        (lambda c: c.contact.hlr_request([]), "phone_numbers", None),
        (lambda c: c.contact.hlr_request(["+33612345678"] * 201), "phone_numbers", None),
        (lambda c: c.contact.hlr_request(["+33612345678", "33 6 12"]), "phone_numbers", 1),
        (lambda c: c.contact.hlr_request(None), "phone_numbers", None),
        (lambda c: c.contact.delete([]), "phone_numbers", None),
        (lambda c: c.contact.delete(["+33612345678"] * 201), "phone_numbers", None),
        (lambda c: c.contact.delete(["+33612345678"], list_name="L" * 31), "list_name", None),
        (lambda c: c.contact.create([]), "contacts", None),
        (lambda c: c.contact.create(["+336"]), "contacts.phone_number", 0),
        (lambda c: c.contact.create(["+33612345678"], list_name="L" * 31), "list_name", None),
        (lambda c: c.contact.create(["+33612345678"], tag_name="T" * 21), "tag_name", None),
        (lambda c: c.contact_list.empty(""), "list_name", None),
        (lambda c: c.wallet.check_balance(country_code="FR"), "product_name", None),
        (lambda c: c.wallet.check_balance(product_name="hlr"), "country_code", None),
        (
            lambda c: c.wallet.check_balance(country_code="FR", product_name="sms"),
            "product_name",
            None,
        ),
        (lambda c: c.wallet.check_credits(["FR", "France"]), "country_codes", 1),
        (lambda c: c.subaccount.credit_transfer_token("not-an-email"), "email_to", None),
    ],
)
def test_other_endpoints_check_their_limits(
    call: Callable[[Client], Any], field: str, position: int | None
) -> None:
    """HLR/delete counts, names, products, countries and e-mails are checked before sending."""
    gateway = Gateway(answer(500, {}))
    with pytest.raises(errors.ValidationError) as caught:
        call(make(gateway))
    assert (caught.value.field, caught.value.position) == (field, position)
    assert gateway.requests == []


def test_limits_accept_200_numbers_and_full_length_names() -> None:
    """200 numbers per HLR/delete and names of 30 (list) / 20 (tag) characters are sent."""
    gateway = Gateway(answer(200, []), httpx.Response(204), answer(201, {"items": []}))
    client = make(gateway)
    client.contact.hlr_request(["+33612345678"] * 200)
    client.contact.delete(["+33612345678"] * 200, list_name="L" * 30)
    client.contact.create(["+33612345678"], list_name="L" * 30, tag_name="T" * 20)
    assert len(gateway.requests) == 3


def test_validation_error_message_names_field_position_and_rule() -> None:
    """The message reads recipients[2].phone_number, then the rule and the offending value."""
    gateway = Gateway(answer(201, SEND_OK))
    numbers = ["+33612345678", "+33698765432", "06 12"]
    with pytest.raises(errors.ValidationError) as caught:
        send(make(gateway), recipients=numbers)
    message = str(caught.value)
    assert message.startswith("recipients[2].phone_number: is not a valid phone number (too_short)")
    assert "'06 12'" in message


def test_validate_false_sends_as_is_and_per_call_flag_wins() -> None:
    """validate=False (client or call) skips the checks; validate=True on a call re-enables them."""
    gateway = Gateway(answer(201, SEND_OK))
    lax = make(gateway, validate=False)
    send(lax, sender="AB", text="no mention")
    assert gateway.body()["sender"] == "AB"
    with pytest.raises(errors.ValidationError):
        send(lax, sender="AB", validate=True)
    send(make(gateway), type="sms_standard", validate=False)
    assert gateway.body()["type"] == "sms_standard"
    assert len(gateway.requests) == 2


# -- answers ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "body", "headers", "expected", "code"),
    [
        (401, {"code": 401, "message": "Bad credentials."}, {}, errors.AuthenticationError, 401),
        (403, {"message": "Forbidden."}, {}, errors.AuthenticationError, None),
        (400, {"code": 121, "message": "Mention STOP is missing."}, {},
         errors.StopMentionMissingError, 121),
        (400, {"code": 122, "message": "Insufficient credit: 0.01 EUR left."}, {},
         errors.InsufficientCreditError, 122),
        (400, {"code": 400, "message": "Payload validation error.",
               "errors": {"sender": {"code": 411, "message": "too long"}}}, {},
         errors.PayloadValidationError, 400),
        (400, {"code": 400, "message": "Payload validation error.",
               "errors": {"request_id": {"code": 420, "message": "already used"}}}, {},
         errors.DuplicateRequestError, 400),
        (404, {"code": 404, "message": "Not found."}, {}, errors.NotFoundError, 404),
        (405, {"code": 405, "message": "Method not allowed."}, {}, errors.APIError, 405),
        (500, {"code": 500, "message": "Internal server error."}, {}, errors.ServerError, 500),
        (503, None, {}, errors.ServerError, None),
    ],
)  # fmt: skip
def test_error_answers_map_to_the_error_tree(
    status: int, body: Any, headers: dict[str, str], expected: type[Exception], code: int | None
) -> None:
    """Each status/code pair of the spec and the contracts raises its own APIError subclass."""
    gateway = Gateway(answer(status, body, **headers))
    with pytest.raises(errors.APIError) as caught:
        send(make(gateway, max_retries=0))
    assert type(caught.value) is expected
    assert caught.value.status_code == status
    assert caught.value.code == code
    assert caught.value.message == (body or {}).get("message", "Service Unavailable")
    assert caught.value.errors == (body or {}).get("errors", {})


def test_payload_validation_error_lists_the_gateway_field_errors() -> None:
    """The per-field errors of a 400 are kept in .errors and shown in the message."""
    body = {
        "code": 400,
        "message": "Payload validation error.",
        "errors": {"phone_numbers": {"code": 410, "message": "must not be blank"}},
    }
    gateway = Gateway(answer(400, body))
    with pytest.raises(errors.PayloadValidationError) as caught:
        make(gateway).contact.hlr_request(["+33612345678"], validate=False)
    assert caught.value.errors == body["errors"]
    assert "phone_numbers: must not be blank (code 410)" in str(caught.value)


def test_html_error_page_becomes_server_error_with_its_text() -> None:
    """A non-JSON 502 from a proxy is a ServerError quoting the start of the page."""
    gateway = Gateway(httpx.Response(502, text="<html>Bad gateway upstream</html>"))
    with pytest.raises(errors.ServerError) as caught:
        make(gateway, max_retries=0).wallet.check_balance()
    assert "Bad gateway upstream" in str(caught.value)


@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(201, text="{not json"),
        httpx.Response(201, json=["a", "list"]),
        httpx.Response(201, json={"sms_ticket": "T", "total_cost": "a lot"}),
        httpx.Response(201),
    ],
)
def test_malformed_success_is_an_api_error_and_not_retried(response: httpx.Response) -> None:
    """A 2xx whose body is not the spec's shape raises APIError once: the gateway did act."""
    gateway = Gateway(response)
    with pytest.raises(errors.APIError, match="malformed response to POST") as caught:
        send(make(gateway))
    assert type(caught.value) is errors.APIError
    assert caught.value.status_code == 201
    assert len(gateway.requests) == 1


def test_delete_returns_none_on_204() -> None:
    """contact/delete answers 204 without a body: the method returns None."""
    gateway = Gateway(httpx.Response(204))
    assert make(gateway).contact.delete("+33612345678") is None


# -- retries --------------------------------------------------------------------------------------


def test_backoff_is_exponential_with_full_jitter_and_a_cap() -> None:
    """delay = random() * min(cap, base * 2**(attempt-1)); Retry-After is used as given."""
    top = Backoff(base=0.2, cap=5.0, random=lambda: 1.0)
    assert [top.delay(n) for n in (1, 2, 3, 4, 5, 6, 7)] == [0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0]
    half = Backoff(base=0.2, cap=5.0, random=lambda: 0.5)
    assert half.delay(3) == pytest.approx(0.4)
    assert half.delay(3, retry_after=7.0) == 7.0


def test_server_errors_are_retried_with_backoff_until_success() -> None:
    """Two 503s then 201: three attempts, sleeps follow the backoff, the result comes back."""
    sleeps: list[float] = []
    gateway = Gateway(answer(503, {}), answer(503, {}), answer(201, SEND_OK))
    result = send(make(gateway, sleeps), request_id="r-1")
    assert result.sms_ticket == "T-1" and result.duplicate is False
    assert sleeps == pytest.approx([0.5 * 0.2, 0.5 * 0.4])
    assert [json.loads(r.content)["request_id"] for r in gateway.requests] == ["r-1"] * 3


def test_retries_stop_after_max_retries() -> None:
    """With max_retries=2 a gateway that keeps failing sees 3 attempts, then ServerError."""
    sleeps: list[float] = []
    gateway = Gateway(answer(500, {"code": 500, "message": "down"}))
    with pytest.raises(errors.ServerError, match="down"):
        make(gateway, sleeps, max_retries=2).wallet.check_balance()
    assert len(gateway.requests) == 3
    assert len(sleeps) == 2


def test_rate_limit_waits_for_retry_after() -> None:
    """A 429 with Retry-After: 3 sleeps 3 s (not the backoff) before the next attempt."""
    sleeps: list[float] = []
    gateway = Gateway(
        answer(429, {"code": 429, "message": "slow down"}, **{"Retry-After": "3"}),
        answer(200, {"amount": 5.0, "unit": "EUR"}),
    )
    balance = make(gateway, sleeps).wallet.check_balance()
    assert balance.amount == 5.0
    assert sleeps == [3.0]


def test_rate_limit_beyond_max_retry_after_raises_at_once() -> None:
    """A Retry-After longer than Backoff.max_retry_after raises RateLimitError with it."""
    gateway = Gateway(answer(429, {"code": 429, "message": "later"}, **{"Retry-After": "120"}))
    with pytest.raises(errors.RateLimitError) as caught:
        make(gateway).wallet.check_balance()
    assert caught.value.retry_after == 120.0
    assert len(gateway.requests) == 1


def test_client_errors_are_not_retried() -> None:
    """A 400 is the caller's problem: one attempt, no sleep."""
    sleeps: list[float] = []
    gateway = Gateway(answer(400, {"code": 121, "message": "Mention STOP is missing."}))
    with pytest.raises(errors.StopMentionMissingError):
        send(make(gateway, sleeps))
    assert len(gateway.requests) == 1 and sleeps == []


def test_network_errors_are_retried_then_wrapped() -> None:
    """ConnectError is retried; when retries run out a TransportError wraps it."""
    failure = httpx.ConnectError("connection refused")
    gateway = Gateway(failure)
    with pytest.raises(errors.TransportError) as caught:
        make(gateway, max_retries=1).wallet.check_balance()
    assert not isinstance(caught.value, errors.TimeoutError)
    assert caught.value.__cause__ is failure
    assert "ConnectError: connection refused" in str(caught.value)
    assert len(gateway.requests) == 2


def test_timeouts_raise_timeout_error_naming_the_request_id() -> None:
    """A read timeout on a send is smskit.TimeoutError saying its request_id is safe to reuse."""
    gateway = Gateway(httpx.ReadTimeout("timed out"))
    with pytest.raises(errors.TimeoutError) as caught:
        send(make(gateway, max_retries=0), request_id="order-7")
    assert "request_id='order-7'" in str(caught.value)
    assert caught.value.request is not None
    assert caught.value.request.url.path == "/v1/public/sms-campaign/send"


def test_duplicate_after_a_lost_answer_returns_the_accepted_send() -> None:
    """Attempt 1 lost, attempt 2 refused as duplicate: SendResult(duplicate=True), same ticket."""
    duplicate = {
        "code": 400,
        "message": "Payload validation error.",
        "errors": {"request_id": {"code": 420, "message": "request_id already used"}},
        "sms_ticket": "T-first",
    }
    gateway = Gateway(httpx.RemoteProtocolError("peer closed connection"), answer(400, duplicate))
    result = send(make(gateway), request_id="order-9")
    assert result.duplicate is True
    assert result.sms_ticket == "T-first"
    assert result.request_id == "order-9"
    assert result.total_cost is None
    assert len(gateway.requests) == 2


def test_duplicate_on_the_first_attempt_raises() -> None:
    """Re-using an accepted request_id on purpose is refused: DuplicateRequestError, no retry."""
    duplicate = {
        "code": 400,
        "message": "Payload validation error.",
        "errors": {"request_id": {"code": 420, "message": "request_id already used"}},
    }
    gateway = Gateway(answer(400, duplicate))
    with pytest.raises(errors.DuplicateRequestError):
        send(make(gateway), request_id="order-9")
    assert len(gateway.requests) == 1


@pytest.mark.anyio
async def test_async_client_retries_and_reports_duplicates_the_same_way() -> None:
    """AsyncClient runs the same retry flow: a lost answer then duplicate gives duplicate=True."""
    sleeps: list[float] = []

    async def record(seconds: float) -> None:
        sleeps.append(seconds)

    duplicate = {
        "code": 400,
        "message": "Payload validation error.",
        "errors": {"request_id": {"code": 420, "message": "used"}},
        "sms_ticket": "T-async",
    }
    gateway = Gateway(httpx.ReadError("reset"), answer(503, {}), answer(400, duplicate))
    backoff = Backoff(random=lambda: 1.0, sleep=record)
    transport = httpx.MockTransport(gateway)
    async with smskit.AsyncClient(LOGIN, KEY, BASE, transport=transport, backoff=backoff) as c:
        result = await c.sms_campaign.send(text=STOP_TEXT, recipients="+33612345678", sender="Shop")
    assert (result.duplicate, result.sms_ticket) == (True, "T-async")
    assert sleeps == pytest.approx([0.2, 0.4])


@pytest.mark.anyio
async def test_async_validation_errors_surface_on_await() -> None:
    """An async endpoint is a coroutine function; bad input raises when awaited, before I/O."""
    gateway = Gateway(answer(201, SEND_OK))
    async with smskit.AsyncClient(LOGIN, KEY, BASE, transport=httpx.MockTransport(gateway)) as c:
        assert inspect.iscoroutinefunction(c.sms_campaign.send)
        pending = c.contact.hlr_request(["12"])
        with pytest.raises(errors.ValidationError):
            await pending
    assert gateway.requests == []


def test_endpoint_signatures_show_the_result_type() -> None:
    """help()/Jupyter see the keyword arguments and the result type of each endpoint."""
    client = make(Gateway(answer(200, {})))
    signature = inspect.signature(client.sms_campaign.send)
    assert signature.return_annotation is SendResult
    assert list(signature.parameters)[:3] == ["text", "recipients", "sender"]
    assert inspect.signature(client.contact.hlr_request).return_annotation is smskit.HLRResults
    assert "request_id" in (client.sms_campaign.send.__doc__ or "")


# -- secrets --------------------------------------------------------------------------------------


def _all_text(exc: BaseException) -> str:
    """Everything an exception shows, including its chained causes and attached request."""
    parts = []
    while exc is not None:
        parts += [str(exc), repr(exc)]
        request = getattr(exc, "_request", None) or getattr(exc, "request", None)
        if request is not None:
            parts += [repr(request), repr(dict(request.headers)), repr(request.headers)]
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return "\n".join(parts)


@pytest.mark.parametrize(
    "reply",
    [
        answer(401, {"code": 401, "message": "Missing or wrong credentials."}),
        answer(400, {"code": 400, "message": "Payload validation error.",
                     "errors": {"text": {"code": 410, "message": "blank"}}}),
        httpx.ConnectError("refused"),
        httpx.ReadTimeout("slow"),
        httpx.Response(201, text="garbage"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("auth", ["headers", "basic"])
def test_key_never_appears_in_exceptions(reply: Reply, auth: str) -> None:
    """str/repr of every error, its cause and its attached request hide the key (masked headers)."""
    gateway = Gateway(reply)
    with pytest.raises(smskit.SmskitError) as caught:
        send(make(gateway, max_retries=0, auth=auth))
    shown = _all_text(caught.value)
    encoded = base64.b64encode(f"{LOGIN}:{KEY}".encode()).decode()
    assert KEY not in shown and encoded not in shown
    request = caught.value.request  # type: ignore[attr-defined]
    credential = "api-key" if auth == "headers" else "authorization"
    assert request.headers[credential] == "********"


def test_key_never_appears_in_reprs_or_html() -> None:
    """repr, str and the notebook HTML of the client and its resources hide the key."""
    client = make(Gateway(answer(200, {})))
    shown = [repr(client), str(client), client._repr_html_(), repr(client._settings)]
    shown += [repr(getattr(client, name)) for name in ("sms_campaign", "contact", "wallet")]
    assert all(KEY not in text for text in shown)
    assert "********" in client._repr_html_()


def test_key_never_appears_in_log_records(caplog: pytest.LogCaptureFixture) -> None:
    """At DEBUG every logger (smskit, httpx, httpcore) logs requests and retries, never the key."""
    gateway = Gateway(answer(503, {}), answer(201, SEND_OK))
    with caplog.at_level(logging.DEBUG):
        send(make(gateway))
    smskit_lines = [r.getMessage() for r in caplog.records if r.name == "smskit"]
    assert any("POST /v1/public/sms-campaign/send -> 503" in line for line in smskit_lines)
    assert any("retry 1/3" in line for line in smskit_lines)
    everything = "\n".join(f"{r.getMessage()} {r.args!r}" for r in caplog.records)
    assert KEY not in everything


def test_default_timeout_and_custom_timeout_reach_httpx() -> None:
    """timeout= is handed to httpx; the default is 10 s."""
    assert make(Gateway(answer(200, {})))._http.timeout == httpx.Timeout(10.0)
    assert make(Gateway(answer(200, {})), timeout=2.5)._http.timeout == httpx.Timeout(2.5)


def test_retry_after_reads_seconds_and_http_dates() -> None:
    """Retry-After in seconds is used as is; a past HTTP date means 0 s; junk means unknown."""
    from smskit.client.error_map import retry_after_seconds

    past = (datetime.now(UTC) - timedelta(minutes=5)).strftime("%a, %d %b %Y %H:%M:%S GMT")
    assert retry_after_seconds(past) == 0.0
    assert retry_after_seconds("2.5") == 2.5
    assert retry_after_seconds("soon") is None


@pytest.mark.anyio
@pytest.mark.parametrize("client_class", [Client, smskit.AsyncClient])
async def test_default_sleep_is_used_when_none_is_injected(client_class: Any) -> None:
    """Without Backoff.sleep, Client uses time.sleep and AsyncClient anyio.sleep (here 0 s)."""
    gateway = Gateway(answer(503, {}), answer(200, {"amount": 2.0, "unit": "EUR"}))
    client = client_class(
        LOGIN, KEY, BASE, transport=httpx.MockTransport(gateway), backoff=Backoff(base=0.0)
    )
    balance = client.wallet.check_balance()
    if inspect.isawaitable(balance):
        balance = await balance
    assert balance.amount == 2.0 and len(gateway.requests) == 2


def test_phone_numbers_accept_a_series_or_a_dataframe_column() -> None:
    """hlr_request takes a Series, or a DataFrame's phone_number column (not its column names)."""
    gateway = Gateway(answer(200, []))
    client = make(gateway)
    client.contact.hlr_request(pd.Series(["+33612345678", "+33698765432"]))
    client.contact.hlr_request(pd.DataFrame({"name": ["Ada"], "phone_number": ["+33612345678"]}))
    assert gateway.body(0)["phone_numbers"] == ["+33612345678", "+33698765432"]
    assert gateway.body(1)["phone_numbers"] == ["+33612345678"]
    with pytest.raises(errors.ValidationError, match="'phone_number' column"):
        client.contact.hlr_request(pd.DataFrame({"tel": ["+33612345678"]}))


def test_a_client_built_from_settings_keeps_them_and_refuses_credentials_besides() -> None:
    """settings= (what to_async passes) is taken as is; with credentials too it is refused."""
    from smskit.client.config import Secret, Settings

    settings = Settings("https://gw.example", "me", Secret("k-secret-1"))
    with Client(settings=settings) as client:
        assert (client.base_url, client.api_login, client.is_sandbox) == (
            "https://gw.example",
            "me",
            False,
        )
        assert "k-secret-1" not in repr(client)
    with pytest.raises(errors.ConfigurationError, match="settings="):
        Client(api_login="other", settings=settings)


# -- duplicates and sends that reach nobody (issue #26) -----------------------------------------

_CODES = st.integers(min_value=-(2**31), max_value=2**31)
_FIELDS = st.text(min_size=1, max_size=20).filter(lambda name: name != "request_id")


def mapped(body: dict[str, Any], status: int = 400) -> errors.APIError:
    """The error the client maps an answer of ``status`` with ``body`` to."""
    from smskit.client.error_map import error_from_response

    request = httpx.Request("POST", f"{BASE}/v1/public/sms-campaign/send")
    return error_from_response(httpx.Response(status, json=body, request=request), request)


@given(code=_CODES, field_code=_CODES, message=st.text(max_size=40), other=_FIELDS)
def test_a_duplicate_is_known_by_its_field_or_code_120_never_by_420(
    code: int, field_code: int, message: str, other: str
) -> None:
    """errors.request_id with any code (beside other field errors or not) is a duplicate; so
    is the vendor's code 120 without errors; a 420 on another field, or any other code
    without errors, is not."""
    named = {"request_id": {"code": field_code, "message": message}}
    assert isinstance(mapped({"code": code, "errors": named}), errors.DuplicateRequestError)
    both = {other: {"code": 410, "message": "blank"}, **named}
    assert isinstance(mapped({"code": 400, "errors": both}), errors.DuplicateRequestError)
    legacy = mapped(
        {"code": 120, "message": "A SMS with the same request_id has already been sent"}
    )
    assert isinstance(legacy, errors.DuplicateRequestError) and legacy.code == 120
    elsewhere = mapped({"code": 400, "errors": {other: {"code": 420, "message": message}}})
    assert not isinstance(elsewhere, errors.DuplicateRequestError)
    assert isinstance(elsewhere, errors.PayloadValidationError)
    if code != 120:
        assert not isinstance(
            mapped({"code": code, "message": message}), errors.DuplicateRequestError
        )


def test_the_vendor_code_120_after_a_lost_answer_reports_the_accepted_send() -> None:
    """Attempt 1 lost, attempt 2 answered the vendor's older way (code 120, no errors):
    SendResult(duplicate=True), no figures invented."""
    legacy = {"code": 120, "message": "A SMS with the same request_id has already been sent"}
    gateway = Gateway(httpx.RemoteProtocolError("peer closed connection"), answer(400, legacy))
    result = send(make(gateway), request_id="order-120")
    assert (result.duplicate, result.request_id, result.total_cost) == (True, "order-120", None)


def test_a_request_id_the_gateway_would_refuse_is_never_posted() -> None:
    """A request_id over 255 characters is refused before any request, validate=False too:
    an error naming request_id can then only mean "already used"."""
    gateway = Gateway(answer(201, SEND_OK))
    for validate in (True, False):
        with pytest.raises(errors.ValidationError, match="request_id"):
            send(make(gateway), request_id="x" * 256, validate=validate)
    assert gateway.requests == []


def test_a_201_that_kept_nobody_raises_no_recipient_error() -> None:
    """A gateway that accepts a send but keeps 0 of its recipients (201, number_of_contacts
    0): NoRecipientError carrying that answer, never a SendResult; not retried."""
    kept_none = {"sms_ticket": "T-0", "number_of_contacts": 0, "total_cost": 0.01}
    gateway = Gateway(answer(201, kept_none))
    with pytest.raises(errors.NoRecipientError, match="kept none of its 2 recipients") as caught:
        send(make(gateway), recipients=["+33612345678", "+33612345679"])
    assert caught.value.status_code == 201
    assert caught.value.response is not None and caught.value.response.json() == kept_none
    assert len(gateway.requests) == 1


def test_a_blank_recipients_error_is_no_recipient_error() -> None:
    """The gateway's 400 naming recipients with the blank code 410 is NoRecipientError (a
    PayloadValidationError); other recipient errors are not."""
    blank = {"recipients": {"code": 410, "message": "recipients must not be blank"}}
    assert isinstance(mapped({"code": 400, "errors": blank}), errors.NoRecipientError)
    one = {"recipients[0].phone_number": {"code": 413, "message": "not served"}}
    assert not isinstance(mapped({"code": 400, "errors": one}), errors.NoRecipientError)


@pytest.mark.parametrize("validate", ["no", 0, 1, "False"])
def test_a_validate_flag_that_is_not_a_bool_is_refused_before_any_request(
    validate: object,
) -> None:
    """validate= on a call is True, False or None: 0 or "False" (which reads as true) is
    refused naming validate and the value, nothing requested."""
    gateway = Gateway(answer(200, {"list_name": "vip"}))
    with pytest.raises(errors.ValidationError) as caught:
        make(gateway).contact_list.empty("vip", validate=validate)  # type: ignore[arg-type]
    assert caught.value.field == "validate" and caught.value.value == validate
    assert caught.value.rule == "must be True, False or None"
    assert gateway.requests == []


@pytest.mark.parametrize(
    ("value", "kind"), [(object(), "TypeError"), (float("nan"), "ValueError"), ({1j}, "TypeError")]
)
def test_a_value_json_cannot_carry_is_named_not_posted(value: object, kind: str) -> None:
    """With validate=False nothing checks list_name; a value JSON cannot carry (an object,
    NaN, a set) is still refused naming the field and the encoder's error, nothing posted."""
    gateway = Gateway(answer(200, {"list_name": "vip"}))
    with pytest.raises(errors.ValidationError) as caught:
        make(gateway).contact_list.empty(value, validate=False)  # type: ignore[arg-type]
    assert caught.value.field == "list_name"
    assert caught.value.rule == f"cannot be sent as JSON: {kind}"
    assert gateway.requests == []
