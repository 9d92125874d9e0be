"""OpenAPI 3.1 description of the gateway as the sandbox implements it (served at /openapi.json).

Request schemas describe *valid* input: the sandbox is more lenient than them (convention
3: casts, reformatting, defaults), and everything it refuses is a documented 400.
Response schemas are exactly what the sandbox sends; the schemathesis test holds it to them.
"""

from __future__ import annotations

import json
from typing import Any

from smskit.rules import spec as _spec
from smskit.rules.answers import HLR_PLACEHOLDERS
from smskit.sandbox._openapi_requests import lenient_bool, request_schemas
from smskit.sandbox._prices import CURRENCY


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*statuses: int) -> dict[str, Any]:
    texts = {
        "400": "Refused: validation error (`errors` names each field; a request_id used in "
        "the last 24 h: `errors.request_id`, or code 120 with `duplicate_answer` 'legacy'; no "
        "recipient left: `errors.recipients`, code 410), code 121 (STOP missing) or code 122 "
        "(insufficient credit).",
        "401": "Missing or wrong credentials.",
        "429": "Too many requests (injected fault); see `Retry-After`.",
        "500": "Server error (injected fault).",
    }
    result = {}
    for status in (*statuses, 401, 429, 500):
        response = _json({"$ref": "#/components/schemas/Error"}, texts[str(status)])
        if status == 429:
            response["headers"] = {
                "Retry-After": {"description": "Seconds to wait.", "schema": {"type": "string"}}
            }
        result[str(status)] = response
    return result


def _record(properties: dict[str, Any]) -> dict[str, Any]:
    """An object whose every property is required: an answer the sandbox always sends whole."""
    return {"type": "object", "required": list(properties), "properties": properties}


def _body(name: str) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": _ref(name)}}}


def _schemas() -> dict[str, Any]:
    # The spec's types; what cannot be known is "" or 0 (smskit.rules.answers).
    network = {
        name: {
            "type": "integer" if isinstance(blank, int) else "string",
            "description": f"{json.dumps(blank)} when it cannot be known.",
        }
        for name, blank in HLR_PLACEHOLDERS.items()
    }
    draft = {  # the fields both drafts have
        "ticket_number": {"type": "string"},
        "status": {"type": "string"},
        "code": {"type": "integer"},
        "message": {"type": "string"},
        "number_of_contacts": {"type": "integer"},
        "residual_credit": {"type": "number"},
        "total_cost": {"type": "number"},
    }
    return {
        **request_schemas(),
        "Error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": {"type": "integer"},
                "message": {"type": "string"},
                "errors": {
                    "type": "object",
                    "additionalProperties": _record(
                        {"code": {"type": "integer"}, "message": {"type": "string"}}
                    ),
                },
            },
        },
        "SendResult": _record(
            {
                "sms_ticket": {"type": "string"},
                "number_of_contacts": {"type": "integer", "minimum": 0},
                "number_of_sms_needed": {"type": "integer", "minimum": 0},
                "residual_credit": {"type": "number", "minimum": 0},
                "total_cost": {"type": "number", "minimum": 0},
            }
        ),
        "ContactCreateResult": _record(
            {
                "items": {
                    "type": "array",
                    "items": _record(
                        {
                            "phone_number": {"type": "string"},
                            "email": {"type": "string"},
                            "status": {"type": "string", "enum": list(_spec.CONTACT_ITEM_STATUS)},
                        }
                    ),
                }
            }
        ),
        "ListEmptyResult": _record(
            {
                "list_name": {"type": "string"},
                "number_of_contacts_removed": {"type": "integer", "minimum": 0},
            }
        ),
        "HLRResult": _record(
            {
                **network,
                "status": {"type": "string", "enum": list(_spec.HLR_STATUS)},
                "phone_number": {"type": "string"},
                "phone_number_type": {"type": "string", "enum": list(_spec.PHONE_NUMBER_TYPE)},
                "line_status": {"type": "string", "enum": list(_spec.LINE_STATUS)},
                "is_ported": {"type": "boolean"},
                "ported_date": {
                    "type": ["string", "null"],
                    "pattern": r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$",
                },
                "original_network_details": {"oneOf": [{"type": "null"}, _record(network)]},
            }
        ),
        "Balance": {
            "type": "object",
            "required": ["amount", "unit"],
            "description": "No product: amount in the account's currency. product_name and "
            "country_code (both recognised): amount in that product's credits there, unit the "
            "product (0 where it is not served).",
            "properties": {
                "amount": {"type": "number", "minimum": 0},
                "unit": {"type": "string", "enum": [CURRENCY, *_spec.PRODUCTS]},
                "wallet_packs": {
                    "type": "array",
                    "description": "with_details=true: packs with credit left, the first to "
                    "expire first; credit in the unit of amount.",
                    "items": _record(
                        {
                            "id": {"type": "string"},
                            "credit": {"type": "number", "minimum": 0},
                            "expiration_date": {
                                "type": "string",
                                "description": "Europe/Paris time.",
                                "pattern": r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$",
                            },
                        }
                    ),
                },
            },
        },
        "Credits": {
            "type": "object",
            "description": "Keyed by 2-letter country code.",
            "additionalProperties": _record(
                {
                    key: {"type": "integer", "minimum": 0}
                    for key in ("premium_sms", "vocal_sms", "low_cost_sms", "hlr")
                }
            ),
        },
        "SmsDraft": _record({**draft, "number_of_sms_needed": {"type": "integer"}}),
        "VoiceDraft": _record(
            {**draft, "estimated_duration": {"type": "integer", "description": "Seconds."}}
        ),
        "Token": _record({"token": {"type": "string", "minLength": 1}}),
    }


def openapi_document(base_url: str = "") -> dict[str, Any]:
    """The whole document; ``base_url`` becomes the single server entry."""
    public = "/v1/public"
    paths: dict[str, Any] = {
        f"{public}/sms-campaign/send": {
            "post": {
                "operationId": "sms_campaign_send",
                "summary": "Send an SMS or a campaign (all send variants).",
                "requestBody": _body("SendRequest"),
                "responses": {
                    "201": _json(_ref("SendResult"), "Accepted: sent, or scheduled for `send_at`."),
                    **_errors(400),
                },
            }
        },
        f"{public}/contact/create": {
            "post": {
                "operationId": "contact_create",
                "summary": "Add or update contacts, optionally in a list and with a tag.",
                "requestBody": _body("ContactCreateRequest"),
                "responses": {
                    "201": _json(_ref("ContactCreateResult"), "One item per contact."),
                    **_errors(400),
                },
            }
        },
        f"{public}/contact/delete": {
            "delete": {
                "operationId": "contact_delete",
                "summary": "Delete contacts from the account or from one list.",
                "requestBody": _body("ContactDeleteRequest"),
                "responses": {"204": {"description": "Deleted."}, **_errors(400)},
            }
        },
        f"{public}/contact-list/empty": {
            "post": {
                "operationId": "contact_list_empty",
                "summary": "Remove every contact from a list (the contacts stay in the account).",
                "requestBody": _body("ListEmptyRequest"),
                "responses": {"200": _json(_ref("ListEmptyResult"), "Emptied."), **_errors(400)},
            }
        },
        f"{public}/contact/hlr-request": {
            "post": {
                "operationId": "contact_hlr_request",
                "summary": "Check lines (one result per number, in request order).",
                "requestBody": _body("HLRRequest"),
                "responses": {
                    "200": _json({"type": "array", "items": _ref("HLRResult")}, "Results."),
                    **_errors(400),
                },
            }
        },
        f"{public}/wallet/check-balance": {
            "get": {
                "operationId": "wallet_check_balance",
                "summary": "Balance in EUR, or in a product's credits in a country; wallet packs.",
                "parameters": [
                    {
                        "name": "with_details",
                        "in": "query",
                        "schema": lenient_bool("Add wallet_packs."),
                    },
                    {
                        "name": "country_code",
                        "in": "query",
                        "description": "2 letters, with product_name; otherwise ignored.",
                        "schema": {"type": "string"},
                    },
                    {
                        "name": "product_name",
                        "in": "query",
                        "description": f"One of {', '.join(_spec.PRODUCTS)}, with country_code; "
                        "otherwise ignored.",
                        "schema": {"type": "string"},
                    },
                ],
                "responses": {"200": _json(_ref("Balance"), "Balance."), **_errors(400)},
            }
        },
        f"{public}/wallet/check-credits": {
            "get": {
                "operationId": "wallet_check_credits",
                "summary": "Credits per product for every served country (or those asked).",
                "parameters": [
                    {
                        "name": "country_codes[]",
                        "in": "query",
                        "style": "form",
                        "explode": True,
                        "schema": {"type": "array", "items": {"type": "string"}},
                    }
                ],
                "responses": {"200": _json(_ref("Credits"), "Credits."), **_errors()},
            }
        },
        f"{public}/sms-campaign/draft": {
            "get": {
                "operationId": "sms_campaign_draft",
                "summary": "The SMS campaign draft.",
                "responses": {"200": _json(_ref("SmsDraft"), "Draft."), **_errors()},
            }
        },
        f"{public}/voice-campaign/draft": {
            "get": {
                "operationId": "voice_campaign_draft",
                "summary": "The voice campaign draft.",
                "responses": {"200": _json(_ref("VoiceDraft"), "Draft."), **_errors()},
            }
        },
        f"{public}/subaccount/credit-transfer/token": {
            "post": {
                "operationId": "subaccount_credit_transfer_token",
                "summary": "A token for a credit transfer to the sub-account `email_to`.",
                "requestBody": _body("TokenRequest"),
                "responses": {"201": _json(_ref("Token"), "Token."), **_errors(400)},
            }
        },
    }
    document: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {
            "title": "Messaging gateway (smskit sandbox)",
            "version": "1",
            "description": "The gateway API as the embedded sandbox implements it. "
            "Where the spec says 'not shown', see docs/sandbox.md.",
        },
        "security": [{"apiLogin": [], "apiKey": []}, {"basic": []}],
        "paths": paths,
        "components": {
            "schemas": _schemas(),
            "securitySchemes": {
                "apiLogin": {"type": "apiKey", "in": "header", "name": "api-login"},
                "apiKey": {"type": "apiKey", "in": "header", "name": "api-key"},
                "basic": {"type": "http", "scheme": "basic"},
            },
        },
    }
    if base_url:
        document["servers"] = [{"url": base_url}]
    return document
