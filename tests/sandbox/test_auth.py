"""Authentication over HTTP: api-login/api-key headers or Basic; 401 JSON otherwise."""

from __future__ import annotations

import base64

import httpx
import pytest

from smskit.sandbox import Sandbox

BALANCE = "/v1/public/wallet/check-balance"
UNAUTHORIZED_CASES = {
    "no credentials": {},
    "login only": {"api-login": "sandbox"},
    "wrong key": {"api-login": "sandbox", "api-key": "wrong"},
    "wrong login": {"api-login": "someone", "api-key": "<key>"},
    "basic wrong key": {"authorization": "Basic " + base64.b64encode(b"sandbox:wrong").decode()},
    "basic garbage": {"authorization": "Basic !!!"},
    "bearer": {"authorization": "Bearer <key>"},
}


def test_headers_authenticate(sandbox: Sandbox) -> None:
    """api-login + api-key headers give access."""
    response = httpx.get(sandbox.url + BALANCE, headers=sandbox.auth_headers())
    assert response.status_code == 200


def test_basic_auth_authenticates(sandbox: Sandbox) -> None:
    """HTTP Basic with login:key gives access to every endpoint."""
    response = httpx.get(sandbox.url + BALANCE, auth=(sandbox.login, sandbox.api_key))
    assert response.status_code == 200


@pytest.mark.parametrize("case", sorted(UNAUTHORIZED_CASES))
def test_anything_else_is_401_json(sandbox: Sandbox, case: str) -> None:
    """Missing or wrong credentials: 401 with a JSON {code, message} body."""
    headers = {k: v.replace("<key>", sandbox.api_key) for k, v in UNAUTHORIZED_CASES[case].items()}
    response = httpx.get(sandbox.url + BALANCE, headers=headers)
    assert response.status_code == 401
    body = response.json()
    assert body["code"] == 401
    assert "api-login" in body["message"]
    assert sandbox.api_key not in response.text


def test_control_routes_need_the_same_credentials(sandbox: Sandbox) -> None:
    """/_sandbox/ routes are authenticated like the gateway."""
    assert httpx.get(sandbox.url + "/_sandbox/state").status_code == 401
    ok = httpx.get(sandbox.url + "/_sandbox/state", headers=sandbox.auth_headers())
    assert ok.status_code == 200


def test_openapi_document_is_public(sandbox: Sandbox) -> None:
    """/openapi.json needs no credentials (tools discover the API with it)."""
    response = httpx.get(sandbox.url + "/openapi.json")
    assert response.status_code == 200
    assert response.json()["openapi"].startswith("3.1")


def test_custom_login_and_key() -> None:
    """A sandbox can be given its login and key; the defaults then stop working."""
    with Sandbox(login="acme", api_key="s3cret-key") as sb:
        good = httpx.get(sb.url + BALANCE, headers={"api-login": "acme", "api-key": "s3cret-key"})
        bad = httpx.get(sb.url + BALANCE, headers={"api-login": "sandbox", "api-key": "s3cret-key"})
    assert (good.status_code, bad.status_code) == (200, 401)


def test_key_never_in_repr() -> None:
    """repr() of a sandbox (running or not) never shows the API key."""
    sb = Sandbox(api_key="very-secret-value")
    assert "very-secret-value" not in repr(sb)
    with sb:
        assert "very-secret-value" not in repr(sb)
        assert sb.url in repr(sb)


def test_random_keys_differ() -> None:
    """Without api_key, each sandbox gets its own random key."""
    assert Sandbox().api_key != Sandbox().api_key


def test_unknown_path_and_wrong_method(api: httpx.Client) -> None:
    """Unknown path: 404 JSON; wrong method on a known path: 405 JSON."""
    missing = api.get("/v1/public/nothing")
    assert (missing.status_code, missing.json()["code"]) == (404, 404)
    wrong = api.get("/v1/public/sms-campaign/send")
    assert (wrong.status_code, wrong.json()["code"]) == (405, 405)
