"""Request schemas of the OpenAPI document: exactly what the sandbox accepts, leniency included.

Each schema mirrors a reader of :mod:`smskit.sandbox._casting` (convention 3 of the spec):
a boolean accepts anything (an unreadable value keeps its default), a text field accepts a
string or an integer (its digits), an optional name is ignored when it is not text, a phone
number may carry separators or ``00``, an unusable send recipient is ignored. So a request
the document calls valid is accepted, and one it calls invalid is refused with a 400: the
schemathesis run in ``tests/sandbox/test_openapi.py`` holds the server to both directions.
"""

from __future__ import annotations

from typing import Any

import phonenumbers

from smskit.rules import spec as _spec
from smskit.rules.content import STOP_MENTION_PATTERN
from smskit.rules.fields import DYNAMIC_FIELDS
from smskit.rules.phonecheck import region_of
from smskit.sandbox._domain import CONTACTS_MAX, REQUEST_ID_MAX

_ALNUM = "A-Za-z0-9"
# Python's whitespace (what str.strip() and re's \s mean on the server), spelt out: the
# \s of JSON Schema patterns (ECMA 262) is another set (no U+0085, adds U+FEFF).
_WS = (
    r"\t\n\u000b\u000c\r\u001c-\u001f \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
)
_SPACE = f"[{_WS}]"
_NON_SPACE = f"[^{_WS}]"
# Separators a phone number may carry (removed), then "+" or "00", then 7 to 15 digits.
_SEP = rf"[{_WS}\-.()/]"
PHONE_LENIENT = rf"^{_SEP}*(?:\+|0{_SEP}*0){_SEP}*[1-9](?:{_SEP}*[0-9]){{6,14}}{_SEP}*$"


def _country_codes() -> str:
    """The calling codes a send recipient may start with (those of a country, as
    :func:`smskit.rules.phones.region_of` reads them), separators allowed between digits;
    as a trie of digits, so the pattern stays short."""
    codes = [
        str(code)
        for code in phonenumbers.COUNTRY_CODE_TO_REGION_CODE
        if region_of(f"+{code}{'2' * 8}") is not None
    ]

    def branch(prefix: str) -> str:
        heads = sorted(
            {code[len(prefix)] for code in codes if code.startswith(prefix) and code != prefix}
        )
        parts = []
        for digit in heads:
            rest = branch(prefix + digit)
            parts.append(digit if not rest else f"{digit}{_SEP}*{rest}")
        return "" if not parts else parts[0] if len(parts) == 1 else f"(?:{'|'.join(parts)})"

    return branch("")


# A number a send can use: the shape above, and a calling code of a country (codes are
# prefix-free, so the first digits decide); any other recipient is ignored (convention 3).
PHONE_OF_A_COUNTRY = rf"^{_SEP}*(?:\+|0{_SEP}*0){_SEP}*(?:{_country_codes()})"
# The sender after removing other characters: 3 to 11 letters/digits; with spaces kept
# (alerts, replies), spaces between the first and last letter or digit count too.
SENDER_STRICT = rf"^[^{_ALNUM}]*(?:[{_ALNUM}][^{_ALNUM}]*){{3,11}}$"
SENDER_SPACES = (
    rf"^[^{_ALNUM}]*[{_ALNUM}](?:[^{_ALNUM} ]*[{_ALNUM} ]){{1,9}}[^{_ALNUM} ]*[{_ALNUM}]"
    rf"[^{_ALNUM}]*$"
)
_EMAIL = rf"[^@{_WS}]+@[^@{_WS}.]+(?:\.[^@{_WS}.]+)+"
_TRUE_WORDS = rf"^{_SPACE}*(?:[Tt][Rr][Uu][Ee]|1|[Yy][Ee][Ss]|[Oo][Nn]|[Yy]|[Tt]){_SPACE}*$"


def lenient_bool(description: str) -> dict[str, Any]:
    """Any value: true/false, their spellings ("yes", "0", 1...); anything else the default."""
    return {
        "description": f"{description} Boolean; also read from 'true'/'false', 'yes'/'no', "
        "'on'/'off', '1'/'0', 1/0 (any case); any other value keeps the default."
    }


def _stripped_at_most(limit: int) -> str:
    """A string whose length without surrounding whitespace is at most ``limit``."""
    inner = rf"{_NON_SPACE}[\s\S]{{0,{limit - 2}}}{_NON_SPACE}|{_NON_SPACE}"
    return rf"^{_SPACE}*(?:{inner})?{_SPACE}*$"


def _integer_of_at_most(digits: int) -> dict[str, Any]:
    """An integer whose decimal text (sign included) has at most ``digits`` characters."""
    return {"type": "integer", "minimum": -(10 ** (digits - 1) - 1), "maximum": 10**digits - 1}


def optional_name(limit: int, description: str) -> dict[str, Any]:
    """An optional name: text up to ``limit`` characters once trimmed; other types ignored."""
    return {
        "description": f"{description} Up to {limit} characters once trimmed; an integer is "
        "read as its digits; empty or any other type counts as absent.",
        "anyOf": [
            {"type": "string", "pattern": _stripped_at_most(limit)},
            _integer_of_at_most(limit),
            {"not": {"type": ["string", "integer"]}},
        ],
    }


def required_text(description: str, **string: Any) -> dict[str, Any]:
    """A required text: a non-blank string (with ``string`` constraints) or an integer."""
    return {
        "description": f"{description} An integer is read as its digits.",
        "anyOf": [{"type": "string", "pattern": _NON_SPACE, **string}, {"type": "integer"}],
    }


def _one_or_many(item: dict[str, Any], limit: int) -> dict[str, Any]:
    """1..``limit`` items, or a single item given alone (cast to a one-item list)."""
    return {
        "anyOf": [
            {"type": "array", "minItems": 1, "maxItems": limit, "items": item},
            {"allOf": [{"not": {"type": ["array", "null"]}}, item]},
        ]
    }


def _dynamic_fields() -> dict[str, Any]:
    return {
        name: {
            "description": f"Dynamic field {{{name}}}: up to {_spec.FIELD_MAX} characters; "
            "an integer is read as its digits; null means absent.",
            "anyOf": [
                {"type": "string", "maxLength": _spec.FIELD_MAX},
                _integer_of_at_most(_spec.FIELD_MAX),
                {"type": "null"},
            ],
        }
        for name in DYNAMIC_FIELDS
    }


_PHONE = {
    "type": "string",
    "pattern": PHONE_LENIENT,
    "description": "International format: '+' (or '00') then 7 to 15 digits; spaces, '-', "
    "'.', '(', ')', '/' are removed.",
}
_TRUE = {"anyOf": [{"const": True}, {"const": 1}, {"type": "string", "pattern": _TRUE_WORDS}]}
_PURPOSE_ALERT = {
    "required": ["purpose"],
    "properties": {
        "purpose": {"type": "string", "pattern": rf"^{_SPACE}*[Aa][Ll][Ee][Rr][Tt]{_SPACE}*$"}
    },
}
_SPACES_ALLOWED = {
    "anyOf": [_PURPOSE_ALERT, {"required": ["with_replies"], "properties": {"with_replies": _TRUE}}]
}


def _send_request() -> dict[str, Any]:
    recipient = {
        "description": "A Contact, or a bare number. A recipient whose number cannot be "
        "used (blank, not international, no country with that dialling code) is ignored "
        "and the others are sent (convention 3); number_of_contacts counts those kept. "
        "When none is left, the required recipients is blank: 400, errors.recipients 410.",
        "properties": {"phone_number": {}, **_dynamic_fields()},
    }
    usable_number = {
        "type": "string",
        "allOf": [{"pattern": PHONE_LENIENT}, {"pattern": PHONE_OF_A_COUNTRY}],
    }
    usable = {
        "anyOf": [
            usable_number,
            {
                "type": "object",
                "required": ["phone_number"],
                "properties": {"phone_number": usable_number},
            },
        ]
    }
    return {
        "type": "object",
        "required": ["text", "recipients", "sender"],
        "properties": {
            "text": required_text(
                "1 to 1224 characters; dynamic fields {first_name} ... {param5}.",
                maxLength=_spec.TEXT_MAX,
            ),
            "recipients": {
                "allOf": [
                    _one_or_many(recipient, _spec.RECIPIENTS_MAX),
                    {
                        "anyOf": [
                            {"type": "array", "contains": usable},
                            {"not": {"type": "array"}, **usable},
                        ]
                    },
                ]
            },
            "sender": {
                "description": "3 to 11 letters and digits once other characters are "
                "removed (spaces kept for alert purpose or with_replies).",
                "anyOf": [
                    {"type": "string"},
                    {"type": "integer", "minimum": 100, "maximum": 99_999_999_999},
                    {"type": "integer", "minimum": -99_999_999_999, "maximum": -100},
                ],
            },
            "type": {"description": "sms_premium or sms_low_cost; any other value: sms_premium."},
            "send_at": {
                "description": "ISO 8601 date-time; without an offset, Europe/Paris time. A "
                "number is a Unix timestamp. Null or empty: now.",
                "anyOf": [
                    {"type": "null"},
                    {"const": ""},
                    {"type": "string", "format": "date-time"},
                    {"type": "number", "minimum": -62_135_596_800, "maximum": 253_402_300_799},
                ],
            },
            "purpose": {"description": "alert or wholesale; any other value: wholesale."},
            "with_replies": lenient_bool("Recipients may reply."),
            "simulation_mode": lenient_bool("Simulate: nothing sent or charged."),
            "request_id": optional_name(REQUEST_ID_MAX, "Duplicate protection for 24 hours."),
            "auto_optimize_text": lenient_bool("Optimise the text (default true)."),
            "auto_remove_blacklisted_numbers": lenient_bool("Remove blacklisted numbers."),
        },
        "allOf": [
            {
                "if": _PURPOSE_ALERT,
                "else": {
                    "properties": {"text": {"type": "string", "pattern": STOP_MENTION_PATTERN}},
                    "description": "A marketing (wholesale) text needs the word STOP (code 121).",
                },
            },
            {
                "if": _SPACES_ALLOWED,
                "then": {
                    "properties": {
                        "sender": {"anyOf": [{"pattern": SENDER_SPACES}, {"type": "integer"}]}
                    }
                },
                "else": {
                    "properties": {
                        "sender": {"anyOf": [{"pattern": SENDER_STRICT}, {"type": "integer"}]}
                    }
                },
            },
        ],
    }


def request_schemas() -> dict[str, Any]:
    """The request body schemas, by component name."""
    email = {"type": "string", "pattern": rf"^{_SPACE}*{_EMAIL}{_SPACE}*$"}
    contact = {
        "description": "A Contact, or a bare number.",
        "anyOf": [
            _PHONE,
            {
                "type": "object",
                "required": ["phone_number"],
                "properties": {
                    "phone_number": _PHONE,
                    **_dynamic_fields(),
                    "email": {
                        "description": "Optional; blank or any non-text value counts as absent.",
                        "anyOf": [
                            {
                                "type": "string",
                                "pattern": rf"^{_SPACE}*$|^{_SPACE}*{_EMAIL}{_SPACE}*$",
                            },
                            {"not": {"type": ["string", "integer"]}},
                        ],
                    },
                },
            },
        ],
    }
    return {
        "SendRequest": _send_request(),
        "ContactCreateRequest": {
            "type": "object",
            "required": ["contacts"],
            "properties": {
                "contacts": _one_or_many(contact, CONTACTS_MAX),
                "list_name": optional_name(_spec.LIST_NAME_MAX, "List to add to."),
                "tag_name": optional_name(_spec.TAG_NAME_MAX, "Tag for each contact."),
                "auto_remove_blacklisted_numbers": lenient_bool("Skip blacklisted numbers."),
                "do_not_overwrite": lenient_bool("Skip numbers already known."),
            },
        },
        "ContactDeleteRequest": {
            "type": "object",
            "required": ["phone_numbers"],
            "properties": {
                "phone_numbers": _one_or_many(_PHONE, _spec.DELETE_MAX),
                "list_name": optional_name(
                    _spec.LIST_NAME_MAX, "Delete from this list only (unknown: nothing to do)."
                ),
            },
        },
        "ListEmptyRequest": {
            "type": "object",
            "required": ["list_name"],
            "properties": {
                "list_name": {
                    "description": "A list never created is empty already (0 removed).",
                    "anyOf": [
                        {
                            "type": "string",
                            "allOf": [
                                {"pattern": _NON_SPACE},
                                {"pattern": _stripped_at_most(_spec.LIST_NAME_MAX)},
                            ],
                        },
                        _integer_of_at_most(_spec.LIST_NAME_MAX),
                    ],
                }
            },
        },
        "HLRRequest": {
            "type": "object",
            "required": ["phone_numbers"],
            "properties": {
                "phone_numbers": _one_or_many(
                    {
                        "description": "Any non-blank text: a number that cannot be "
                        "identified gets phone_number_type bad_format.",
                        "anyOf": [{"type": "string", "pattern": _NON_SPACE}, {"type": "integer"}],
                    },
                    _spec.HLR_MAX,
                ),
                "simulation_mode": lenient_bool("Simulate: not charged."),
            },
        },
        "TokenRequest": {
            "type": "object",
            "required": ["email_to"],
            "properties": {"email_to": email},
        },
    }
