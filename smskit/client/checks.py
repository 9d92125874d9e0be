"""The client's input checks, shared by every endpoint of :mod:`smskit.client.core`.

Two kinds: normalisation that always runs (recipients read by the rule book's reader, lists
of numbers, ISO date-times), and the ``check_*`` functions that run when ``validate=True``,
following the spec's Limits table and field rules: the gateway would otherwise "fix" bad
input silently (spec, general convention 3). Each refusal is a ``ValidationError`` naming
the field (and the position, for lists). The rules themselves live in :mod:`smskit.rules`;
this module only applies them to an endpoint's arguments.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from smskit.errors import ValidationError
from smskit.rules import spec as _spec
from smskit.rules.choices import checked_choice, checked_flag
from smskit.rules.content import (
    RULE_STOP_MISSING,
    has_stop_mention,
    is_marketing,
    sender_allows_spaces,
)
from smskit.rules.fields import used_fields
from smskit.rules.hours import check_country
from smskit.rules.missing import is_missing
from smskit.rules.once import loaded
from smskit.rules.recipients import arrow_recipients, check_collection, check_columns
from smskit.rules.sender import check_sender


def to_contacts(value: Any, field: str, *, strict: bool) -> Sequence[dict[str, Any]]:
    """Recipients as the list of Contact objects the gateway takes, read by THE reader
    (:mod:`smskit.rules.recipients`): numbers in E.164 (national ones read in the row's
    ``country``, else France), dynamic fields as text, missing values left out.

    A :class:`~smskit.rules.contacts.ContactChunk` (a campaign plan's chunk) is taken as it
    is unless ``strict``: reading it again would only redo preflight's work."""
    from smskit.rules.contacts import ContactChunk
    from smskit.rules.recipients import Recipients, contact_rows
    from smskit.rules.region import DEFAULT_REGION

    if isinstance(value, ContactChunk) and not strict:
        return value  # a plan's chunk: built from what preflight checked, already in form
    return contact_rows(
        Recipients(value, field=field), default_region=DEFAULT_REGION, strict=strict
    )


def _plain(value: Any) -> Any:
    # numpy scalars (from DataFrames) are not JSON serialisable; .item() gives the Python value.
    item = getattr(value, "item", None)
    return item() if callable(item) and type(value).__module__ == "numpy" else value


def as_list(value: Any, field: str) -> list[Any]:
    """One string, an iterable of values (list, Series, Arrow array ...) or a DataFrame's
    (pandas, pyarrow or polars) phone_number column."""
    if isinstance(value, str):
        return [value]
    check_collection(value, field)
    value = arrow_recipients(value, field)  # pyarrow / polars: a pandas frame, read through Arrow
    pandas = loaded("pandas")
    if pandas is not None and isinstance(value, pandas.DataFrame):
        if "phone_number" not in value.columns:
            raise ValidationError(field, "a DataFrame of numbers needs a 'phone_number' column")
        check_columns(value.columns, field)
        value = value["phone_number"]
    if isinstance(value, Mapping) or not isinstance(value, Iterable):
        raise ValidationError(field, "must be a list of values (or a single string)", value=value)
    return [_plain(item) for item in value]


def iso_datetime(value: datetime | str | None, field: str, *, strict: bool) -> str | None:
    """An aware datetime or an ISO 8601 string with offset, as the ISO string to send.

    None means "not given"; any other missing value (NaN, ``pd.NA``, ``pd.NaT``, numpy's
    NaT) is refused: it says "no date" where the caller meant one, and "now" would be a guess.
    """
    if value is None:
        return None
    if is_missing(value):
        raise ValidationError(
            field,
            "is a missing value (NaN/NA/NaT), not a date-time: leave it out (or None) to send "
            "now, or give an aware datetime",
            value=value,
        )
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
    rows: Sequence[dict[str, Any]],
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
    from smskit.rules.phonecheck import is_e164

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


def check_count(field: str, items: Sequence[Any], low: int, high: int | None) -> None:
    """Between ``low`` and ``high`` items (no upper bound when ``high`` is None)."""
    if len(items) < low or (high is not None and len(items) > high):
        bound = f"{low} to {high}" if high is not None else f"at least {low}"
        hint = " (smskit.Campaign splits larger batches)" if high and len(items) > high else ""
        raise ValidationError(field, f"needs {bound} items, got {len(items)}{hint}")


def check_choice(field: str, value: Any, choices: tuple[str, ...]) -> None:
    """None or one of ``choices``."""
    if value is not None:
        checked_choice(field, value, choices)


def check_flags(flags: Mapping[str, Any]) -> None:
    """Each flag is None or a bool (the gateway would cast anything, e.g. 'no' to true)."""
    for field, value in flags.items():
        checked_flag(field, value, optional=True)


def check_request_id(request_id: Any) -> None:
    """A non-empty string of at most ``REQUEST_ID_MAX`` characters.

    Checked on every send, ``validate=False`` too: the gateway then has no reason but a
    repeat to refuse the id, so an error naming ``request_id`` always means "already used".
    """
    if not isinstance(request_id, str) or not request_id.strip():
        raise ValidationError("request_id", "must be a non-empty string", value=request_id)
    if len(request_id.strip()) > _spec.REQUEST_ID_MAX:
        rule = f"must be at most {_spec.REQUEST_ID_MAX} characters (got {len(request_id)})"
        raise ValidationError("request_id", rule)


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
