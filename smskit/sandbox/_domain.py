"""Gateway rules that need no state: read each request leniently, validate it, price nothing.

Every ``parse_*`` function turns a raw JSON payload (or query) into a small frozen record,
or raises :class:`GatewayError` carrying the HTTP status and the spec's error body, with
every faulty field named at once. :func:`prepare_send` renders, optimises and counts the
segments of each recipient's text with :mod:`smskit.rules.text`, so the sandbox and the client
share one STOP rule and one segment count.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from smskit.errors import CODE_PAYLOAD_VALIDATION, CODE_STOP_MISSING, ValidationError
from smskit.rules import spec as _spec
from smskit.rules import text as textlib
from smskit.rules.content import has_stop_mention, is_marketing, sender_allows_spaces
from smskit.rules.fields import DYNAMIC_FIELDS, used_fields
from smskit.rules.personalize import render
from smskit.rules.phonecheck import region_of
from smskit.rules.sender import allowed_characters, clean_sender
from smskit.sandbox._casting import (
    BLANK,
    FORMAT,
    LENGTH,
    NOT_ALLOWED,
    PHONE_RULE,
    FieldErrors,
    as_bool,
    as_choice,
    as_list,
    as_text,
    is_email,
    normalize_phone,
    optional_name,
    parse_datetime,
    phone_list,
    required_text,
)

CONTACTS_MAX = 500  # "Maximum number of contacts in a contact creation request: not shown."
REQUEST_ID_MAX = _spec.REQUEST_ID_MAX
REPLY_SHORT_NUMBER = "38100"  # with_replies: the sender becomes this short number

VALIDATION_MESSAGE = "Payload validation error."


class GatewayError(Exception):
    """A refused request: HTTP status, JSON body in the spec's error shape, extra headers."""

    def __init__(self, status: int, body: dict[str, Any], headers: Mapping[str, str] | None = None):
        super().__init__(body.get("message", ""))
        self.status = status
        self.body = body
        self.headers = dict(headers or {})


def validation_error(errors: Mapping[str, Any], **extra: Any) -> GatewayError:
    """400 with ``{code: 400, message, errors: {field: {code, message}}}``."""
    body = {"code": CODE_PAYLOAD_VALIDATION, "message": VALIDATION_MESSAGE, "errors": dict(errors)}
    body.update(extra)
    return GatewayError(400, body)


def field_error(field_name: str, code: int, message: str) -> GatewayError:
    """A validation error on one field."""
    return validation_error({field_name: {"code": code, "message": message}})


def _raise_if(errors: FieldErrors) -> None:
    if errors:
        raise validation_error(errors.errors)


def as_object(payload: Any) -> Mapping[str, Any]:
    """Request bodies must be JSON objects; anything else is one clear field error."""
    if isinstance(payload, Mapping):
        return payload
    raise field_error("body", FORMAT, "The request body must be a JSON object.")


# --- Contacts and recipients -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Person:
    """A recipient or contact: number, its dynamic fields, its position in the request."""

    index: int
    phone_number: str
    fields: dict[str, str | None]
    email: str | None = None


@dataclass(frozen=True, slots=True)
class Dropped:
    """A recipient the gateway ignored (convention 3): its position, number as given, why."""

    index: int
    phone_number: str
    reason: str


def _read_person(
    item: Any,
    key: str,
    index: int,
    errors: FieldErrors,
    *,
    with_email: bool,
    dropped: list[Dropped] | None = None,
) -> Person | None:
    """One Contact object (a bare number is cast to ``{"phone_number": ...}``).

    With ``dropped`` (send recipients), a recipient without a usable number is not an
    error: it is ignored, as convention 3 says, and listed there with the reason.
    """
    if not isinstance(item, Mapping):
        if as_text(item) is None:
            if dropped is not None:
                dropped.append(Dropped(index, "", "not a contact object with a phone_number"))
                return None
            errors.add(key, FORMAT, f"{key} must be a contact object with a phone_number.")
            return None
        item = {"phone_number": item}
    raw_number = item.get("phone_number")
    number = normalize_phone(raw_number)
    ok = True
    if number is None:
        ok = False
        text = as_text(raw_number)
        blank = text is None or not text.strip()
        if dropped is not None:
            reason = "phone_number is blank" if blank else f"phone_number {PHONE_RULE}"
            dropped.append(Dropped(index, text or "", reason))
        elif blank:
            errors.add(f"{key}.phone_number", BLANK, f"{key}.phone_number must not be blank.")
        else:
            errors.add(f"{key}.phone_number", FORMAT, f"{key}.phone_number {PHONE_RULE}")
    values: dict[str, str | None] = {}
    for name in DYNAMIC_FIELDS:
        if name not in item:
            continue
        raw = item[name]
        if raw is None:
            values[name] = None
            continue
        text = as_text(raw)
        if text is None:
            ok = False
            errors.add(f"{key}.{name}", FORMAT, f"{key}.{name} must be a string or null.")
        elif len(text) > _spec.FIELD_MAX:
            ok = False
            errors.add(
                f"{key}.{name}",
                LENGTH,
                f"{key}.{name} must be at most {_spec.FIELD_MAX} characters (got {len(text)}).",
            )
        else:
            values[name] = text
    email: str | None = None
    if with_email and "email" in item:
        text = as_text(item["email"])
        email = "" if text is None else text.strip()
        if email and not is_email(email):
            ok = False
            errors.add(f"{key}.email", FORMAT, f"{key}.email must be an e-mail address.")
    if not ok or number is None:
        return None
    return Person(index, number, values, email)


def _read_people(
    payload: Mapping[str, Any],
    name: str,
    limit: int,
    errors: FieldErrors,
    *,
    with_email: bool,
    dropped: list[Dropped] | None = None,
) -> list[Person]:
    items = as_list(payload.get(name))
    if not items:
        errors.add(name, BLANK, f"{name} must not be blank: give 1 to {limit} contacts.")
        return []
    if len(items) > limit:
        errors.add(name, LENGTH, f"{name} must hold 1 to {limit} contacts (got {len(items)}).")
        return []
    people = []
    for index, item in enumerate(items):
        person = _read_person(
            item, f"{name}[{index}]", index, errors, with_email=with_email, dropped=dropped
        )
        if person is not None:
            people.append(person)
    return people


# --- 1. sms-campaign/send ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SendRequest:
    """A validated send: what the gateway will do, before pricing."""

    text: str
    recipients: tuple[Person, ...]
    sender: str
    sender_used: str
    type: str
    purpose: str
    send_at: datetime | None
    with_replies: bool
    simulation_mode: bool
    request_id: str | None
    auto_optimize_text: bool
    auto_remove_blacklisted_numbers: bool
    fields_used: tuple[str, ...] = field(default=())
    dropped: tuple[Dropped, ...] = field(default=())


def _read_sender(payload: Mapping[str, Any], spaces: bool, errors: FieldErrors) -> str | None:
    raw = required_text(payload, "sender", errors)
    if raw is None:
        return None
    cleaned = clean_sender(raw, spaces=spaces)
    if not _spec.SENDER_MIN <= len(cleaned) <= _spec.SENDER_MAX:
        allowed = allowed_characters(spaces=spaces)
        errors.add(
            "sender",
            LENGTH,
            f"sender must be {_spec.SENDER_MIN} to {_spec.SENDER_MAX} characters "
            f"({allowed}; others are removed): {cleaned!r} has {len(cleaned)}.",
        )
        return None
    return cleaned


def _text_fields(text: str, errors: FieldErrors) -> tuple[str, ...]:
    try:
        return used_fields(text)
    except ValidationError as exc:
        errors.add("text", NOT_ALLOWED, f"text: {exc.rule}")
        return ()


def parse_send(payload: Any, now: datetime) -> SendRequest:
    """Validate a send body (field errors first, then the STOP rule)."""
    body = as_object(payload)
    errors = FieldErrors()
    text = required_text(body, "text", errors, strip=False)
    fields_used: tuple[str, ...] = ()
    if text is not None:
        if len(text) > _spec.TEXT_MAX:
            errors.add(
                "text", LENGTH, f"text must be 1 to {_spec.TEXT_MAX} characters (got {len(text)})."
            )
        else:
            fields_used = _text_fields(text, errors)
    dropped: list[Dropped] = []
    recipients = _read_people(
        body, "recipients", _spec.RECIPIENTS_MAX, errors, with_email=False, dropped=dropped
    )
    purpose = as_choice(body.get("purpose"), _spec.PURPOSES, "wholesale")
    with_replies = as_bool(body.get("with_replies"), False)
    sender = _read_sender(body, sender_allows_spaces(purpose, with_replies), errors)
    sms_type = as_choice(body.get("type"), _spec.SMS_TYPES, "sms_premium")
    send_at = None
    if body.get("send_at") not in (None, ""):
        try:
            send_at = parse_datetime(body["send_at"])
        except ValueError as exc:
            errors.add("send_at", FORMAT, f"send_at {exc}")
    request_id = optional_name(body, "request_id", REQUEST_ID_MAX, errors)
    _raise_if(errors)
    assert text is not None and sender is not None
    if is_marketing(purpose) and not has_stop_mention(text):
        raise GatewayError(400, {"code": CODE_STOP_MISSING, "message": "Mention STOP is missing."})
    if send_at is not None and send_at <= now:
        send_at = None
    return SendRequest(
        text=text,
        recipients=tuple(_unique(recipients, dropped)),
        sender=sender,
        sender_used=REPLY_SHORT_NUMBER if with_replies else sender,
        type=sms_type,
        purpose=purpose,
        send_at=send_at,
        with_replies=with_replies,
        simulation_mode=as_bool(body.get("simulation_mode"), False),
        request_id=request_id,
        auto_optimize_text=as_bool(body.get("auto_optimize_text"), True),
        auto_remove_blacklisted_numbers=as_bool(body.get("auto_remove_blacklisted_numbers"), False),
        fields_used=fields_used,
        dropped=tuple(dropped),
    )


def _unique(people: Sequence[Person], dropped: list[Dropped]) -> list[Person]:
    """A number listed twice in one send is sent once (first occurrence kept)."""
    seen: set[str] = set()
    kept = []
    for person in people:
        if person.phone_number not in seen:
            seen.add(person.phone_number)
            kept.append(person)
        else:
            dropped.append(Dropped(person.index, person.phone_number, "listed twice, sent once"))
    return kept


@dataclass(frozen=True, slots=True)
class Message:
    """One recipient's message, ready to price: final text, segments, destination country."""

    index: int
    phone_number: str
    country_code: str
    text: str
    segments: int


@functools.lru_cache(maxsize=8192)
def final_text(text: str, optimize: bool) -> tuple[str, int]:
    """The text the handset receives and its segment count (``auto_optimize_text`` applied)."""
    if optimize:
        text = textlib.optimize_text(text)
    return text, textlib.analyze(text).segments


def prepare_send(request: SendRequest) -> tuple[list[Message], list[Dropped]]:
    """Personalise, optimise and count segments per recipient (no state involved).

    Returns the messages and every recipient ignored (those of the request, and numbers
    whose calling code belongs to no country), in request order.
    """
    messages = []
    dropped = list(request.dropped)
    errors = FieldErrors()
    for person in request.recipients:
        country = region_of(person.phone_number)
        if country is None:
            reason = "phone_number: no country has this international dialling code"
            dropped.append(Dropped(person.index, person.phone_number, reason))
            continue
        rendered = render(request.text, person.fields) if request.fields_used else request.text
        final, segments = final_text(rendered, request.auto_optimize_text)
        if segments == 0:
            key = f"recipients[{person.index}]"
            errors.add(key, BLANK, f"{key}: the text renders empty for this recipient.")
        messages.append(Message(person.index, person.phone_number, country, final, segments))
    _raise_if(errors)
    return messages, sorted(dropped, key=lambda d: d.index)


# --- 2, 3, 4. contacts and lists ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ContactCreate:
    """A validated contact/create body."""

    contacts: tuple[Person, ...]
    list_name: str | None
    tag_name: str | None
    auto_remove_blacklisted_numbers: bool
    do_not_overwrite: bool


def parse_contact_create(payload: Any) -> ContactCreate:
    """Validate contact/create: 1..500 contacts, list and tag name lengths."""
    body = as_object(payload)
    errors = FieldErrors()
    contacts = _read_people(body, "contacts", CONTACTS_MAX, errors, with_email=True)
    list_name = optional_name(body, "list_name", _spec.LIST_NAME_MAX, errors)
    tag_name = optional_name(body, "tag_name", _spec.TAG_NAME_MAX, errors)
    _raise_if(errors)
    return ContactCreate(
        contacts=tuple(contacts),
        list_name=list_name,
        tag_name=tag_name,
        auto_remove_blacklisted_numbers=as_bool(body.get("auto_remove_blacklisted_numbers"), False),
        do_not_overwrite=as_bool(body.get("do_not_overwrite"), False),
    )


@dataclass(frozen=True, slots=True)
class ContactDelete:
    """A validated contact/delete body."""

    phone_numbers: tuple[str, ...]
    list_name: str | None


def parse_contact_delete(payload: Any) -> ContactDelete:
    """Validate contact/delete: 1..200 numbers, optional list."""
    body = as_object(payload)
    errors = FieldErrors()
    numbers = phone_list(body, "phone_numbers", _spec.DELETE_MAX, errors)
    list_name = optional_name(body, "list_name", _spec.LIST_NAME_MAX, errors)
    _raise_if(errors)
    return ContactDelete(tuple(dict.fromkeys(numbers or ())), list_name)


def parse_list_empty(payload: Any) -> str:
    """Validate contact-list/empty: the list name."""
    body = as_object(payload)
    errors = FieldErrors()
    name = required_text(body, "list_name", errors, limit=_spec.LIST_NAME_MAX)
    _raise_if(errors)
    assert name is not None
    return name


# --- 5. HLR ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HLRRequest:
    """A validated hlr-request body."""

    phone_numbers: tuple[str, ...]
    simulation_mode: bool


def parse_hlr(payload: Any) -> HLRRequest:
    """Validate hlr-request: 1..200 non-blank numbers (malformed ones get ``bad_format``)."""
    body = as_object(payload)
    errors = FieldErrors()
    items = as_list(body.get("phone_numbers"))
    numbers: list[str] = []
    if not items:
        errors.add(
            "phone_numbers", BLANK, f"phone_numbers must not be blank: give 1 to {_spec.HLR_MAX}."
        )
    elif len(items) > _spec.HLR_MAX:
        errors.add(
            "phone_numbers",
            LENGTH,
            f"phone_numbers must hold 1 to {_spec.HLR_MAX} numbers (got {len(items)}).",
        )
    else:
        for index, item in enumerate(items):
            text = as_text(item)
            if text is None or not text.strip():
                key = f"phone_numbers[{index}]"
                errors.add(key, BLANK, f"{key} must not be blank.")
            else:
                numbers.append(text.strip())
    _raise_if(errors)
    return HLRRequest(tuple(numbers), as_bool(body.get("simulation_mode"), False))


# --- 6, 7. wallet ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BalanceQuery:
    """A validated check-balance query."""

    with_details: bool
    country_code: str | None
    product_name: str | None


def _country_code(value: Any) -> str | None:
    text = as_text(value)
    return text.strip().upper() if text is not None and text.strip() else None


def parse_balance_query(query: Mapping[str, Any]) -> BalanceQuery:
    """``country_code`` and ``product_name`` count only together and when recognised.

    Convention 3: a parameter that cannot be recognised is ignored, so one without the
    other, an unknown product or a code that is not 2 letters give the plain balance.
    """
    country = _country_code(query.get("country_code"))
    product = as_choice(query.get("product_name"), _spec.PRODUCTS, "")
    if country is None or not re.fullmatch(r"[A-Z]{2}", country) or not product:
        country, product = None, ""
    return BalanceQuery(as_bool(query.get("with_details"), False), country, product or None)


def parse_country_codes(values: Sequence[Any]) -> list[str] | None:
    """``country_codes[]`` (repeated, or comma-separated) upper-cased; none given -> None (all)."""
    codes: list[str] = []
    for value in values:
        text = as_text(value) or ""
        codes.extend(part.strip().upper() for part in text.split(",") if part.strip())
    return list(dict.fromkeys(codes)) or None


# --- 10. credit-transfer token -----------------------------------------------------------


def parse_token(payload: Any) -> str:
    """``email_to`` is required and must look like an e-mail address."""
    body = as_object(payload)
    errors = FieldErrors()
    email = required_text(body, "email_to", errors)
    if email is not None and not is_email(email):
        errors.add("email_to", FORMAT, f"email_to must be an e-mail address (got {email!r}).")
    _raise_if(errors)
    assert email is not None
    return email
