"""Every endpoint declared once, as pure code: check the input, build the call, parse the answer.

A resource method (``SmsCampaign.send`` ...) returns a :class:`Call`, a description of one
HTTP exchange with the parser of its answer. The :class:`endpoint` descriptor hands that call
to the client's ``_send``; the sync client performs it and returns the result, the async client
returns a coroutine. So no endpoint is written twice, and nothing here does I/O.

Bodies are encoded here, once, in the canonical JSON of :mod:`smskit.rules.canonical`; a
campaign chunk (a :class:`~smskit.rules.contacts.ContactChunk`) goes in as the bytes it was
encoded to when its request_id was derived, so it is never encoded twice.

The input checks each method applies live in :mod:`smskit.client.checks`; the mapping of an
error answer to an exception in :mod:`smskit.client.error_map`.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, Protocol, TypeVar, overload

from smskit.client.checks import (
    as_list,
    check_balance_query,
    check_count,
    check_email,
    check_flags,
    check_name,
    check_numbers,
    check_request_id,
    check_send,
    iso_datetime,
    to_contacts,
)
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
from smskit.errors import NoRecipientError, ValidationError
from smskit.rules import spec as _spec
from smskit.rules.answers import nobody_left
from smskit.rules.canonical import canonical_bytes
from smskit.rules.contacts import ContactChunk
from smskit.rules.hours import check_country

if TYPE_CHECKING:
    import os
    from typing import Self, TypeAlias

    import pandas as pd

    Recipients: TypeAlias = (
        str
        | Mapping[str, Any]
        | Iterable[str | Mapping[str, Any]]
        | pd.DataFrame
        | os.PathLike[str]  # a CSV or Parquet file (rules/files)
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
    body: bytes | None = None  # JSON, as posted
    params: tuple[tuple[str, str], ...] = ()
    request_id: str | None = None
    # What a retry refused as a duplicate of an accepted earlier attempt returns.
    on_duplicate: Callable[[Any], T] | None = None
    # What the answer's HTTP Date header (its text, None if absent) adds to the result.
    dated: Callable[[T, str | None], T] | None = None


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


def endpoint(result: type[T]) -> Callable[[Callable[Concatenate[Any, P], Call[T]]], Endpoint[P, T]]:
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
        check_request_id(rid)
        if strict:
            check_send(text, rows, sender, type, purpose, with_replies)
            check_flags(flags)
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
            functools.partial(_send_result, request_id=rid, submitted=len(rows)),
            body=_encoded(body),
            request_id=rid,
            on_duplicate=functools.partial(SendResult.already_accepted, request_id=rid),
            dated=_gateway_dated,
        )

    @endpoint(SmsDraft)
    def draft(self) -> Call[SmsDraft]:
        """The SMS campaign draft (GET sms-campaign/draft)."""
        return Call("GET", f"{PREFIX}/sms-campaign/draft", SmsDraft.from_json)


def _send_result(data: Any, *, request_id: str, submitted: int) -> SendResult:
    """A send's 201 answer; :class:`smskit.NoRecipientError` when the gateway says it kept
    none of the ``submitted`` recipients (then it sent nothing: never reported as sent)."""
    result = SendResult.from_json(data, request_id=request_id, submitted=submitted)
    if result.number_of_contacts is not None and nobody_left(result.number_of_contacts):
        ticket = f" (ticket {result.sms_ticket})" if result.sms_ticket else ""
        raise NoRecipientError(
            f"the gateway accepted the send{ticket} but kept none of its {submitted} "
            "recipients: nothing was sent",
            status_code=201,
        )
    return result


def _gateway_dated(result: SendResult, date: str | None) -> SendResult:
    """``result`` with the gateway's time of its answer (the HTTP Date header, RFC 9110; a
    header that does not read as one leaves it unknown: the caller then has only its own)."""
    moment = None
    if date:
        with contextlib.suppress(TypeError, ValueError):
            moment = parsedate_to_datetime(date)
    if moment is not None and moment.tzinfo is None:
        moment = None  # "-0000": no time zone said
    return replace(result, gateway_date=moment)


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
        return Call("POST", f"{PREFIX}/contact/create", ContactItems.from_json, body=_encoded(body))

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
        body = _encoded({"phone_numbers": numbers, "list_name": list_name})
        return Call("DELETE", f"{PREFIX}/contact/delete", _nothing, body=body)

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
        body = _encoded({"phone_numbers": numbers, "simulation_mode": simulation_mode})
        return Call("POST", f"{PREFIX}/contact/hlr-request", HLRResults.from_json, body=body)


class ContactList(Resource[M]):
    """``/v1/public/contact-list/...``: empty a contact list."""

    __slots__ = ()

    @endpoint(ListEmptied)
    def empty(self, list_name: str, *, validate: bool | None = None) -> Call[ListEmptied]:
        """Remove every contact from ``list_name`` (POST contact-list/empty)."""
        if self._checking(validate):
            check_name("list_name", list_name, _spec.LIST_NAME_MAX, required=True)
        parse = functools.partial(ListEmptied.from_json, list_name=list_name)
        body = _encoded({"list_name": list_name})
        return Call("POST", f"{PREFIX}/contact-list/empty", parse, body=body)


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
        params = tuple((n, _query_value(n, v)) for n, v in query.items() if v is not None)
        return Call("GET", f"{PREFIX}/wallet/check-balance", Balance.from_json, params=params)

    @endpoint(Credits)
    def check_credits(
        self, country_codes: str | Iterable[str] | None = None, *, validate: bool | None = None
    ) -> Call[Credits]:
        """Credits per product for each country (GET wallet/check-credits); all when None."""
        codes = [] if country_codes is None else as_list(country_codes, "country_codes")
        for position, code in enumerate(codes):
            if not isinstance(code, str | int):  # even unchecked, a query value is text
                raise ValidationError("country_codes", "must be strings", position=position)
        if self._checking(validate):
            for position, code in enumerate(codes):
                check_country("country_codes", code, position=position)
        params = tuple(("country_codes[]", _query_value("country_codes", c)) for c in codes)
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
        return Call("POST", path, parse, body=_encoded({"email_to": email_to}))


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


def _encoded(body: Mapping[str, Any]) -> bytes:
    """``body`` as posted, without the optional fields left out by the caller (None): its
    canonical JSON, member by member, so a value JSON cannot carry (only reachable with
    validate=False) is named; a ContactChunk member goes in as its own encoding."""
    members = []
    for name in sorted(body):
        value = body[name]
        if value is None:
            continue
        try:
            raw = value.encoded if isinstance(value, ContactChunk) else canonical_bytes(value)
        except (TypeError, ValueError, RecursionError) as exc:
            raise ValidationError(
                name, f"cannot be sent as JSON: {type(exc).__name__}", value=value
            ) from exc
        members.append(canonical_bytes(name) + b":" + raw)
    return b"{" + b",".join(members) + b"}"


def _query_value(name: str, value: Any) -> str:
    """``value`` as the text of query parameter ``name``; text a URL cannot carry (a lone
    surrogate, a value too nested to print: only reachable with validate=False) is named."""
    if isinstance(value, bool):
        return "true" if value else "false"
    try:
        text = str(value)
        text.encode("utf-8")
    except (UnicodeEncodeError, RecursionError) as exc:
        raise ValidationError(
            name, f"cannot be sent in a URL query: {type(exc).__name__}", value=value
        ) from exc
    return text
