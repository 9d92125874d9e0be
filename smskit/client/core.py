"""Every endpoint declared once, as pure code: check the input, build the call, parse the answer.

A resource method (``SmsCampaign.send`` ...) returns a :class:`Call`, a description of one
HTTP exchange with the parser of its answer. The :class:`endpoint` descriptor hands that call
to the client's ``_send``; the sync client performs it and returns the result, the async client
returns a coroutine. So no endpoint is written twice, and nothing here does I/O.

Checks before sending follow the spec's Limits table and field rules: the gateway would
otherwise "fix" bad input silently (spec, general convention 3).
"""

from __future__ import annotations

import functools
import inspect
import re
import sys
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, Protocol, TypeVar, overload

from smskit.client.models import (
    ContactItems,
    Credits,
    HLRResults,
    ListEmptied,
    SendResult,
    SmsDraft,
    TransferToken,
    VoiceDraft,
)
from smskit.client.wallet import Balance
from smskit.errors import (
    CODE_INSUFFICIENT_CREDIT,
    CODE_PAYLOAD_VALIDATION,
    CODE_STOP_MISSING,
    FIELD_CODE_DUPLICATE_REQUEST_ID,
    FIELD_CODE_REQUEST_ID_CONFLICT,
    APIError,
    AuthenticationError,
    DuplicateRequestError,
    InsufficientCreditError,
    NotFoundError,
    PayloadValidationError,
    RateLimitError,
    RequestIdConflictError,
    ServerError,
    StopMentionMissingError,
    ValidationError,
)
from smskit.rules import spec as _spec
from smskit.rules.content import (
    RULE_STOP_MISSING,
    has_stop_mention,
    is_marketing,
    sender_allows_spaces,
)
from smskit.rules.fields import used_fields
from smskit.rules.hours import check_country
from smskit.rules.sender import check_sender

if TYPE_CHECKING:
    from typing import Self, TypeAlias

    import httpx
    import pandas as pd

    Recipients: TypeAlias = (
        str | Mapping[str, Any] | Iterable[str | Mapping[str, Any]] | pd.DataFrame
    )
    PhoneNumbers: TypeAlias = str | Iterable[str]

T = TypeVar("T")
P = ParamSpec("P")

PREFIX = "/v1/public"


# -- the call ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Call(Generic[T]):
    """One HTTP exchange, fully described: request parts and how to read the answer."""

    method: str
    path: str
    parse: Callable[[Any], T]
    json: Any = None
    params: tuple[tuple[str, str], ...] = ()
    request_id: str | None = None
    # What a retry refused as a duplicate of an accepted earlier attempt returns.
    on_duplicate: Callable[[Any], T] | None = None


class Sync:
    """Marker: a resource whose endpoints return results."""


class Async:
    """Marker: a resource whose endpoints return awaitables of results."""


M = TypeVar("M", Sync, Async)


class Runner(Protocol):
    """What a resource needs from its client."""

    validate: bool

    def _bind(self, build: Callable[..., Call[Any]]) -> Callable[..., Any]: ...


class Resource(Generic[M]):
    """A group of endpoints (``client.contact`` ...) sharing its client's settings."""

    __slots__ = ("_client",)

    def __init__(self, client: Runner) -> None:
        self._client = client

    def _checking(self, validate: bool | None) -> bool:
        if validate is not None and not isinstance(validate, bool):
            raise ValidationError("validate", "must be True, False or None", value=validate)
        return self._client.validate if validate is None else validate

    def __repr__(self) -> str:
        names = [name for name, value in vars(type(self)).items() if isinstance(value, Endpoint)]
        return f"<{type(self).__name__} endpoints: {', '.join(names)}>"


class Endpoint(Generic[P, T]):
    """A method that builds a :class:`Call`, turned into the endpoint method users call; made
    by :func:`endpoint`, which names the result type the method's signature shows."""

    def __init__(self, build: Callable[Concatenate[Any, P], Call[T]], result: Any) -> None:
        self._build = build
        self._result = result
        self._shown_signature: inspect.Signature | None = None
        self.__doc__ = build.__doc__
        self.__name__ = build.__name__

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Self: ...
    @overload
    def __get__(self, obj: Resource[Sync], owner: type | None = None) -> Callable[P, T]: ...
    @overload
    def __get__(
        self, obj: Resource[Async], owner: type | None = None
    ) -> Callable[P, Awaitable[T]]: ...
    def __get__(self, obj: Resource[Any] | None, owner: type | None = None) -> Any:
        if obj is None:
            return self
        bound = self._build.__get__(obj, owner)
        method = obj._client._bind(bound)
        functools.update_wrapper(method, bound)
        method.__signature__ = self._signature()  # type: ignore[attr-defined]
        return method

    def _signature(self) -> inspect.Signature:
        # help() and Jupyter show the result type, not the Call that carries it.
        if self._shown_signature is None:
            full = inspect.signature(self._build)
            self._shown_signature = full.replace(
                parameters=list(full.parameters.values())[1:],  # without self
                return_annotation=self._result,
            )
        return self._shown_signature


def endpoint(
    result: type[T],
) -> Callable[[Callable[Concatenate[Any, P], Call[T]]], Endpoint[P, T]]:
    """Decorator: the method builds the endpoint's :class:`Call`; ``result`` is what users get."""

    def wrap(build: Callable[Concatenate[Any, P], Call[T]]) -> Endpoint[P, T]:
        return Endpoint(build, result)

    return wrap


# -- the endpoints ----------------------------------------------------------------------------


class SmsCampaign(Resource[M]):
    """``/v1/public/sms-campaign/...``: send SMS, read the campaign draft."""

    __slots__ = ()

    @endpoint(SendResult)
    def send(
        self,
        *,
        text: str,
        recipients: Recipients,
        sender: str,
        type: str | None = None,  # the spec's field name, shadowing the builtin here only
        send_at: datetime | str | None = None,
        purpose: str | None = None,
        with_replies: bool | None = None,
        simulation_mode: bool | None = None,
        request_id: str | None = None,
        auto_optimize_text: bool | None = None,
        auto_remove_blacklisted_numbers: bool | None = None,
        validate: bool | None = None,
    ) -> Call[SendResult]:
        """Send an SMS to 1..500 recipients (POST sms-campaign/send); returns a SendResult.

        A ``request_id`` is generated when none is given, so retries never send twice.
        """
        strict = self._checking(validate)
        rows = to_contacts(recipients, "recipients", strict=strict)
        rid = uuid.uuid4().hex if request_id is None else request_id
        flags = {
            "with_replies": with_replies,
            "simulation_mode": simulation_mode,
            "auto_optimize_text": auto_optimize_text,
            "auto_remove_blacklisted_numbers": auto_remove_blacklisted_numbers,
        }
        if strict:
            check_send(text, rows, sender, type, purpose, with_replies)
            check_flags(flags)
            check_request_id(rid)
        body = {
            "text": text,
            "recipients": rows,
            "sender": sender,
            "type": type,
            "send_at": iso_datetime(send_at, "send_at", strict=strict),
            "purpose": purpose,
            "request_id": rid,
            **flags,
        }
        return Call(
            "POST",
            f"{PREFIX}/sms-campaign/send",
            functools.partial(SendResult.from_json, request_id=rid, submitted=len(rows)),
            json=_present(body),
            request_id=rid,
            on_duplicate=functools.partial(SendResult.already_accepted, request_id=rid),
        )

    @endpoint(SmsDraft)
    def draft(self) -> Call[SmsDraft]:
        """The SMS campaign draft (GET sms-campaign/draft)."""
        return Call("GET", f"{PREFIX}/sms-campaign/draft", SmsDraft.from_json)


class VoiceCampaign(Resource[M]):
    """``/v1/public/voice-campaign/...``: read the voice campaign draft."""

    __slots__ = ()

    @endpoint(VoiceDraft)
    def draft(self) -> Call[VoiceDraft]:
        """The voice campaign draft (GET voice-campaign/draft)."""
        return Call("GET", f"{PREFIX}/voice-campaign/draft", VoiceDraft.from_json)


class Contact(Resource[M]):
    """``/v1/public/contact/...``: create and delete contacts, check lines (HLR)."""

    __slots__ = ()

    @endpoint(ContactItems)
    def create(
        self,
        contacts: Recipients,
        *,
        list_name: str | None = None,
        tag_name: str | None = None,
        auto_remove_blacklisted_numbers: bool | None = None,
        do_not_overwrite: bool | None = None,
        validate: bool | None = None,
    ) -> Call[ContactItems]:
        """Add or update contacts (POST contact/create); returns their items with a status."""
        strict = self._checking(validate)
        rows = to_contacts(contacts, "contacts", strict=strict)
        flags = {
            "auto_remove_blacklisted_numbers": auto_remove_blacklisted_numbers,
            "do_not_overwrite": do_not_overwrite,
        }
        if strict:
            check_count("contacts", rows, 1, None)
            check_name("list_name", list_name, _spec.LIST_NAME_MAX, required=False)
            check_name("tag_name", tag_name, _spec.TAG_NAME_MAX, required=False)
            check_flags(flags)
        body = {"contacts": rows, "list_name": list_name, "tag_name": tag_name, **flags}
        return Call("POST", f"{PREFIX}/contact/create", ContactItems.from_json, json=_present(body))

    @endpoint(type(None))
    def delete(
        self,
        phone_numbers: PhoneNumbers,
        *,
        list_name: str | None = None,
        validate: bool | None = None,
    ) -> Call[None]:
        """Delete 1..200 contacts (DELETE contact/delete), from one list or the whole account."""
        numbers = as_list(phone_numbers, "phone_numbers")
        if self._checking(validate):
            check_numbers("phone_numbers", numbers, _spec.DELETE_MAX)
            check_name("list_name", list_name, _spec.LIST_NAME_MAX, required=False)
        body = _present({"phone_numbers": numbers, "list_name": list_name})
        return Call("DELETE", f"{PREFIX}/contact/delete", _nothing, json=body)

    @endpoint(HLRResults)
    def hlr_request(
        self,
        phone_numbers: PhoneNumbers,
        *,
        simulation_mode: bool | None = None,
        validate: bool | None = None,
    ) -> Call[HLRResults]:
        """Check 1..200 lines (POST contact/hlr-request); returns one HLRResult per number."""
        numbers = as_list(phone_numbers, "phone_numbers")
        if self._checking(validate):
            check_numbers("phone_numbers", numbers, _spec.HLR_MAX)
            check_flags({"simulation_mode": simulation_mode})
        body = _present({"phone_numbers": numbers, "simulation_mode": simulation_mode})
        return Call("POST", f"{PREFIX}/contact/hlr-request", HLRResults.from_json, json=body)


class ContactList(Resource[M]):
    """``/v1/public/contact-list/...``: empty a contact list."""

    __slots__ = ()

    @endpoint(ListEmptied)
    def empty(self, list_name: str, *, validate: bool | None = None) -> Call[ListEmptied]:
        """Remove every contact from ``list_name`` (POST contact-list/empty)."""
        if self._checking(validate):
            check_name("list_name", list_name, _spec.LIST_NAME_MAX, required=True)
        parse = functools.partial(ListEmptied.from_json, list_name=list_name)
        body = {"list_name": list_name}
        return Call("POST", f"{PREFIX}/contact-list/empty", parse, json=body)


class Wallet(Resource[M]):
    """``/v1/public/wallet/...``: balance and credits per country."""

    __slots__ = ()

    @endpoint(Balance)
    def check_balance(
        self,
        *,
        with_details: bool | None = None,
        country_code: str | None = None,
        product_name: str | None = None,
        validate: bool | None = None,
    ) -> Call[Balance]:
        """The balance (GET wallet/check-balance); country_code and product_name go together."""
        if self._checking(validate):
            check_flags({"with_details": with_details})
            check_balance_query(country_code, product_name)
        query = {
            "with_details": with_details,
            "country_code": country_code,
            "product_name": product_name,
        }
        params = tuple((name, _query_value(v)) for name, v in query.items() if v is not None)
        return Call("GET", f"{PREFIX}/wallet/check-balance", Balance.from_json, params=params)

    @endpoint(Credits)
    def check_credits(
        self,
        country_codes: str | Iterable[str] | None = None,
        *,
        validate: bool | None = None,
    ) -> Call[Credits]:
        """Credits per product for each country (GET wallet/check-credits); all when None."""
        codes = [] if country_codes is None else as_list(country_codes, "country_codes")
        for position, code in enumerate(codes):
            if not isinstance(code, str | int):  # even unchecked, a query value is text
                raise ValidationError("country_codes", "must be strings", position=position)
        if self._checking(validate):
            for position, code in enumerate(codes):
                check_country("country_codes", code, position=position)
        params = tuple(("country_codes[]", str(code)) for code in codes)
        return Call("GET", f"{PREFIX}/wallet/check-credits", Credits.from_json, params=params)


class Subaccount(Resource[M]):
    """``/v1/public/subaccount/...``: credit-transfer tokens."""

    __slots__ = ()

    @endpoint(TransferToken)
    def credit_transfer_token(
        self, email_to: str, *, validate: bool | None = None
    ) -> Call[TransferToken]:
        """A token for a credit transfer to the sub-account ``email_to`` (POST ...token)."""
        if self._checking(validate):
            check_email("email_to", email_to)
        parse = functools.partial(TransferToken.from_json, email_to=email_to)
        path = f"{PREFIX}/subaccount/credit-transfer/token"
        return Call("POST", path, parse, json={"email_to": email_to})


RESOURCES: Mapping[str, type[Resource[Any]]] = {
    "sms_campaign": SmsCampaign,
    "voice_campaign": VoiceCampaign,
    "contact": Contact,
    "contact_list": ContactList,
    "wallet": Wallet,
    "subaccount": Subaccount,
}


def _nothing(body: Any) -> None:
    return None


def _present(body: Mapping[str, Any]) -> dict[str, Any]:
    """The body without the optional fields left out by the caller."""
    return {name: value for name, value in body.items() if value is not None}


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# -- input normalisation (always; with validate=False too) -----------------------------------


def to_contacts(value: Any, field: str, *, strict: bool) -> list[dict[str, Any]]:
    """Recipients as the list of Contact objects the gateway takes, read by THE reader
    (:mod:`smskit.rules.recipients`): numbers in E.164 (national ones read in the row's
    ``country``, else France), dynamic fields as text, missing values left out."""
    from smskit.rules.recipients import DEFAULT_REGION, Recipients, contact_rows

    return contact_rows(
        Recipients(value, field=field), default_region=DEFAULT_REGION, strict=strict
    )


def _plain(value: Any) -> Any:
    # numpy scalars (from DataFrames) are not JSON serialisable; .item() gives the Python value.
    item = getattr(value, "item", None)
    return item() if callable(item) and type(value).__module__ == "numpy" else value


def as_list(value: Any, field: str) -> list[Any]:
    """One string, an iterable of values (list, Series ...) or a DataFrame's phone_number column."""
    if isinstance(value, str):
        return [value]
    pandas = sys.modules.get("pandas")
    if pandas is not None and isinstance(value, pandas.DataFrame):
        if "phone_number" not in value.columns:
            raise ValidationError(field, "a DataFrame of numbers needs a 'phone_number' column")
        value = value["phone_number"]
    if isinstance(value, Mapping) or not isinstance(value, Iterable):
        raise ValidationError(field, "must be a list of values (or a single string)", value=value)
    return [_plain(item) for item in value]


def iso_datetime(value: datetime | str | None, field: str, *, strict: bool) -> str | None:
    """An aware datetime or an ISO 8601 string with offset, as the ISO string to send."""
    if value is None:
        return None
    if isinstance(value, datetime):
        if strict and value.utcoffset() is None:
            raise ValidationError(
                field, "needs a timezone (an aware datetime), e.g. tzinfo=ZoneInfo('Europe/Paris')"
            )
        return value.isoformat()
    if strict:
        try:
            parsed = datetime.fromisoformat(value)
        except (TypeError, ValueError):
            parsed = None
        if parsed is None or parsed.utcoffset() is None:
            raise ValidationError(
                field,
                "must be an ISO 8601 date-time with offset, e.g. '2025-06-01T09:30:00+02:00'",
                value=value,
            )
    return value


# -- checks (validate=True) -------------------------------------------------------------------


_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")


def check_send(
    text: Any,
    rows: list[dict[str, Any]],
    sender: Any,
    sms_type: Any,
    purpose: Any,
    with_replies: Any,
) -> None:
    """The send endpoint's rules: text, recipients, sender, type, purpose, STOP mention."""
    check_choice("type", sms_type, _spec.SMS_TYPES)
    check_choice("purpose", purpose, _spec.PURPOSES)
    check_text(text, marketing=is_marketing(purpose))
    check_count("recipients", rows, 1, _spec.RECIPIENTS_MAX)
    check_sender(sender, spaces=sender_allows_spaces(purpose, with_replies))


def check_text(text: Any, *, marketing: bool) -> None:
    """1..1224 characters, known dynamic fields only, a STOP mention for marketing texts."""
    from smskit.rules import text as engine

    engine.validate_text(text)
    used_fields(text)
    if marketing and not has_stop_mention(text):
        raise ValidationError("text", RULE_STOP_MISSING)


def check_number(field: str, value: Any, position: int | None = None) -> None:
    """International format: '+' then digits (E.164)."""
    from smskit.rules.phones import is_e164

    if not is_e164(value):
        raise ValidationError(
            field,
            "must be in international format, '+' then 7 to 15 digits, e.g. '+33612345678' "
            "(smskit.phones.to_e164 converts national numbers)",
            position=position,
            value=value,
        )


def check_numbers(field: str, numbers: list[Any], maximum: int) -> None:
    """1..maximum numbers, each in international format."""
    check_count(field, numbers, 1, maximum)
    for position, number in enumerate(numbers):
        check_number(field, number, position)


def check_count(field: str, items: list[Any], low: int, high: int | None) -> None:
    """Between ``low`` and ``high`` items (no upper bound when ``high`` is None)."""
    if len(items) < low or (high is not None and len(items) > high):
        bound = f"{low} to {high}" if high is not None else f"at least {low}"
        hint = " (smskit.Campaign splits larger batches)" if high and len(items) > high else ""
        raise ValidationError(field, f"needs {bound} items, got {len(items)}{hint}")


def check_choice(field: str, value: Any, choices: tuple[str, ...]) -> None:
    """None or one of ``choices``."""
    if value is not None and (not isinstance(value, str) or value not in choices):
        raise ValidationError(field, f"must be one of {', '.join(choices)}", value=value)


def check_flags(flags: Mapping[str, Any]) -> None:
    """Each flag is None or a bool (the gateway would cast anything, e.g. 'no' to true)."""
    for field, value in flags.items():
        if value is not None and not isinstance(value, bool):
            raise ValidationError(field, "must be True or False", value=value)


def check_request_id(request_id: Any) -> None:
    """A non-empty string."""
    if not isinstance(request_id, str) or not request_id.strip():
        raise ValidationError("request_id", "must be a non-empty string", value=request_id)


def check_name(field: str, value: Any, maximum: int, *, required: bool) -> None:
    """A list or tag name: a non-empty string of at most ``maximum`` characters."""
    if value is None and not required:
        return
    if not isinstance(value, str) or not 1 <= len(value) <= maximum:
        raise ValidationError(field, f"must be a string of 1 to {maximum} characters", value=value)


def check_balance_query(country_code: Any, product_name: Any) -> None:
    """``country_code`` and ``product_name`` come together; the product is a known one."""
    if (country_code is None) != (product_name is None):
        missing = "product_name" if product_name is None else "country_code"
        raise ValidationError(missing, "country_code and product_name must be given together")
    if country_code is not None:
        check_country("country_code", country_code)
    check_choice("product_name", product_name, _spec.PRODUCTS)


def check_email(field: str, value: Any) -> None:
    """Something that looks like an e-mail address."""
    if not isinstance(value, str) or not _EMAIL.fullmatch(value):
        raise ValidationError(field, "must be an e-mail address", value=value)


# -- answers ------------------------------------------------------------------------------------


def error_from_response(response: httpx.Response, request: httpx.Request) -> APIError:
    """The :class:`APIError` subclass for an error answer, with the gateway's code and message."""
    try:
        body = response.json()
    except ValueError:
        body = None
    info: Mapping[str, Any] = body if isinstance(body, Mapping) else {}
    code = info.get("code") if isinstance(info.get("code"), int) else None
    errors: Mapping[str, Any] = info.get("errors") or {}
    if not isinstance(errors, Mapping):
        errors = {}
    message = str(info.get("message") or response.reason_phrase or "error")
    if body is None and response.text.strip():
        message += f": {response.text.strip()[:200]}"
    status = response.status_code
    if status == 429:
        after = retry_after_seconds(response.headers.get("retry-after"))
        return RateLimitError(
            message,
            retry_after=after,
            status_code=status,
            code=code,
            errors=errors,
            request=request,
            response=response,
        )
    return _error_class(status, code, errors)(
        message, status_code=status, code=code, errors=errors, request=request, response=response
    )


def _error_class(status: int, code: int | None, errors: Mapping[str, Any]) -> type[APIError]:
    if status in (401, 403):
        return AuthenticationError
    if status == 404:
        return NotFoundError
    if status >= 500:
        return ServerError
    if status not in (400, 422):
        return APIError
    request_id = errors.get("request_id")
    code_of_id = request_id.get("code") if isinstance(request_id, Mapping) else None
    if code_of_id == FIELD_CODE_DUPLICATE_REQUEST_ID:
        return DuplicateRequestError
    if code_of_id == FIELD_CODE_REQUEST_ID_CONFLICT:
        return RequestIdConflictError
    by_code: dict[int | None, type[APIError]] = {
        CODE_STOP_MISSING: StopMentionMissingError,
        CODE_INSUFFICIENT_CREDIT: InsufficientCreditError,
        CODE_PAYLOAD_VALIDATION: PayloadValidationError,
    }
    return by_code.get(code, PayloadValidationError if errors else APIError)


def retry_after_seconds(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (seconds or an HTTP date)."""
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime  # rarely needed; the email package is slow

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max((when - datetime.now(when.tzinfo)).total_seconds(), 0.0)
