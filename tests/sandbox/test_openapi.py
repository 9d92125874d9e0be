"""/openapi.json describes the sandbox, leniency included: schemathesis finds nothing to report.

Every built-in schemathesis check runs (server errors, status codes, content types, headers,
response schemas, authentication, unsupported methods, and both directions of the request
schemas: "schema-valid request rejected" and "schema-violating request accepted"), on
positive and negative examples, 50 per operation, from a fixed seed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings

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
EXAMPLES = 50
# Operations without any input have a single possible request: hypothesis stops there.
NO_INPUT = {"GET /v1/public/sms-campaign/draft", "GET /v1/public/voice-campaign/draft"}
CASES: Counter[str] = Counter()


@pytest.fixture(scope="module")
def fuzzed_sandbox() -> Iterator[Sandbox]:
    """A sandbox rich enough that generated sends are not refused for credit.

    On teardown: each operation fuzzed above got its examples (the run was not vacuous).
    """
    with Sandbox(balance=1_000_000_000) as sb:
        yield sb
    for operation, cases in CASES.items():
        assert cases >= (1 if operation in NO_INPUT else EXAMPLES), (operation, cases)


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
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,  # the fixed seed: the same examples on every run
    database=None,
)
def test_gateway_conforms_to_its_document(case: Any, fuzzed_sandbox: Sandbox) -> None:
    """Generated requests, valid and invalid, get exactly the answers the document declares."""
    # A fresh account per example: a request_id drawn twice must not meet the duplicate
    # rule (pinned in test_send), which no schema can express.
    fuzzed_sandbox.reset()
    CASES[case.operation.label] += 1
    # No ``checks=``: every built-in check schemathesis has.
    case.call_and_validate(base_url=fuzzed_sandbox.url, headers=fuzzed_sandbox.auth_headers())
