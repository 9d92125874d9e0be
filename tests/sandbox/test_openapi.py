"""/openapi.json describes the sandbox, and schemathesis finds no 5xx and no undocumented answer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from smskit.sandbox import Sandbox
from smskit.sandbox._openapi import openapi_document

SPEC_ENDPOINTS = {
    ("post", "/v1/public/sms-campaign/send"),
    ("post", "/v1/public/contact/create"),
    ("delete", "/v1/public/contact/delete"),
    ("post", "/v1/public/contact-list/empty"),
    ("post", "/v1/public/contact/hlr-request"),
    ("get", "/v1/public/wallet/check-balance"),
    ("get", "/v1/public/wallet/check-credits"),
    ("get", "/v1/public/sms-campaign/draft"),
    ("get", "/v1/public/voice-campaign/draft"),
    ("post", "/v1/public/subaccount/credit-transfer/token"),
}
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@pytest.fixture(scope="module")
def fuzzed_sandbox() -> Iterator[Sandbox]:
    """A sandbox rich enough that generated sends are not all refused for credit."""
    with Sandbox(balance=1_000_000_000) as sb:
        yield sb


def test_document_lists_every_spec_endpoint(api: httpx.Client) -> None:
    """OpenAPI 3.1, the ten spec endpoints (and no control route), both auth schemes."""
    document = api.get("/openapi.json").json()
    assert document["openapi"] == "3.1.0"
    operations = {(method, path) for path, item in document["paths"].items() for method in item}
    assert operations == SPEC_ENDPOINTS
    schemes = document["components"]["securitySchemes"]
    assert schemes["apiKey"] == {"type": "apiKey", "in": "header", "name": "api-key"}
    assert schemes["basic"] == {"type": "http", "scheme": "basic"}
    assert document["servers"] == [{"url": str(api.base_url).rstrip("/")}]


def test_served_document_is_the_fuzzed_one(api: httpx.Client) -> None:
    """What /openapi.json serves is exactly the document schemathesis runs against below."""
    served = api.get("/openapi.json").json()
    assert served == openapi_document(str(api.base_url).rstrip("/"))


# Loaded at import so that pytest can collect one test per operation; the base URL of the
# running sandbox is given at call time (schemathesis' fixture loader needs pytest < 9).
schema = schemathesis.openapi.from_dict(openapi_document())


@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_gateway_conforms_to_its_document(case: Any, fuzzed_sandbox: Sandbox) -> None:
    """Generated requests (valid and invalid) never get a 5xx or an answer outside the document."""
    case.call_and_validate(
        base_url=fuzzed_sandbox.url, headers=fuzzed_sandbox.auth_headers(), checks=CHECKS
    )


@pytest.mark.runs_last
def test_fuzzing_was_not_vacuous(fuzzed_sandbox: Sandbox) -> None:
    """The generated run above reached the gateway a few hundred times (runs after it)."""
    assert fuzzed_sandbox.faults()["counts"]["requests"] >= 200
