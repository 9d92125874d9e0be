"""Configuration: arguments over SMSKIT_* variables, the sandbox fallback, URL and key safety."""

from __future__ import annotations

import pickle

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

import smskit
from smskit.client import config as _config
from smskit.client.config import Secret, check_base_url, mask_headers, resolve
from smskit.errors import ConfigurationError

KEY = "k3y-Sup3rSecret-9f8e7d"
ENV = {
    "SMSKIT_API_LOGIN": "env-login",
    "SMSKIT_API_KEY": "env-key",
    "SMSKIT_BASE_URL": "https://env.example",
}


def test_arguments_win_over_environment_variables() -> None:
    """Each argument given replaces its variable; the others still come from the environment."""
    settings = resolve("arg-login", None, "https://arg.example", environ=ENV)
    assert settings.api_login == "arg-login"
    assert settings.api_key.reveal() == "env-key"
    assert settings.base_url == "https://arg.example"
    assert settings.sandbox is False


def test_environment_alone_configures_the_client(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the three SMSKIT_* variables set, Client() uses them (no sandbox)."""
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json={}))
    with smskit.Client(transport=transport) as client:
        assert (client.base_url, client.api_login, client.is_sandbox) == (
            "https://env.example",
            "env-login",
            False,
        )


def test_empty_variables_count_as_unset() -> None:
    """An exported but empty variable does not count as a setting."""
    env = {**ENV, "SMSKIT_API_KEY": ""}
    with pytest.raises(ConfigurationError, match="api_key"):
        resolve(environ=env)


def test_credentials_without_base_url_name_smskit_base_url() -> None:
    """Login and key but no URL: ConfigurationError naming SMSKIT_BASE_URL."""
    with pytest.raises(ConfigurationError, match="SMSKIT_BASE_URL"):
        resolve("login", KEY, environ={})


@pytest.mark.parametrize(
    ("login", "key", "missing", "present"),
    [
        ("login", None, "SMSKIT_API_KEY", "SMSKIT_API_LOGIN"),
        (None, KEY, "SMSKIT_API_LOGIN", "SMSKIT_API_KEY"),
    ],
)
def test_half_credentials_name_the_missing_one(
    login: str | None, key: str | None, missing: str, present: str
) -> None:
    """Only one of login/key: the error names the missing one and not the other."""
    with pytest.raises(ConfigurationError) as caught:
        resolve(login, key, "https://gw.example", environ={})
    assert missing in str(caught.value)
    assert present not in str(caught.value)
    assert KEY not in str(caught.value)


def test_base_url_alone_names_both_credentials() -> None:
    """A URL without credentials names both missing settings."""
    with pytest.raises(ConfigurationError) as caught:
        resolve(base_url="https://gw.example", environ={})
    assert "SMSKIT_API_LOGIN" in str(caught.value) and "SMSKIT_API_KEY" in str(caught.value)


@pytest.mark.parametrize(
    "url",
    [
        "http://gateway.example",
        "http://10.0.0.8:8080",
        "http://127.0.0.1.example.com",
        "http://127.0.0.1.nip.io:8765",
        "http://localhost.example.com",
        "http://LOCALHOST.:8765",
    ],
)
def test_plain_http_to_another_host_is_refused(url: str) -> None:
    """The key would travel in clear: refused unless allow_insecure=True."""
    with pytest.raises(ConfigurationError, match="allow_insecure"):
        check_base_url(url)
    assert check_base_url(url, allow_insecure=True) == url


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8765",
        "http://localhost:8765",
        "http://LocalHost:8765",
        "http://[::1]:8765",
        "http://127.5.0.1",
        "http://[::ffff:127.0.0.1]:8765",
    ],
)
def test_plain_http_to_loopback_is_allowed(url: str) -> None:
    """Loopback traffic never leaves the machine (the sandbox case)."""
    assert check_base_url(url) == url


@pytest.mark.parametrize(
    ("url", "rule"),
    [
        ("gateway.example", "https://host"),
        ("ftp://gateway.example", "https://host"),
        ("https://user:pw@gateway.example", "must not carry credentials"),
        ("https://gateway.example/?x=1", "query"),
    ],
)
def test_unusable_base_urls_are_refused(url: str, rule: str) -> None:
    """No scheme, a non-HTTP scheme, credentials or a query in the URL: ConfigurationError."""
    with pytest.raises(ConfigurationError, match=rule):
        check_base_url(url)


@given(st.integers(min_value=-3, max_value=99_999), st.sampled_from(["gw.example", "[::1]"]))
def test_a_base_url_port_is_accepted_only_from_1_to_65535(port: int, host: str) -> None:
    """Any port is read exactly or refused naming the base URL's variable: 0, negative and
    past 65535 are refused (99999 was accepted, then every request "could not reach" it,
    exit 6, as if the gateway were down)."""
    url = f"https://{host}:{port}"
    if 1 <= port <= 65_535:
        assert check_base_url(url) == url
    else:
        with pytest.raises(ConfigurationError, match=r"SMSKIT_BASE_URL\) must look like .*65535"):
            check_base_url(url)


def test_trailing_slash_is_dropped() -> None:
    """https://gw.example/ and https://gw.example name the same gateway."""
    assert check_base_url("https://gw.example/api/") == "https://gw.example/api"


def test_secret_never_shows_its_value() -> None:
    """repr/str/format of a Secret are masked; only reveal() gives the value; no pickling."""
    secret = Secret(KEY)
    for shown in (repr(secret), str(secret), f"{secret}", repr([secret])):
        assert KEY not in shown
    assert secret.reveal() == KEY
    with pytest.raises(TypeError):
        pickle.dumps(secret)


def test_mask_headers_hides_every_credential_header() -> None:
    """api-key and Authorization values are masked, whatever their case; others kept."""
    masked = mask_headers({"API-Key": KEY, "Authorization": "Basic abc", "api-login": "shop"})
    assert masked == {"API-Key": "********", "Authorization": "********", "api-login": "shop"}


def test_sandbox_argument_excludes_credentials() -> None:
    """sandbox= with login/key/url too is ambiguous: ConfigurationError."""

    class Box:
        url, login, api_key = "http://127.0.0.1:1", "sandbox", KEY

    assert resolve(sandbox=Box(), environ=ENV).base_url == "http://127.0.0.1:1"
    with pytest.raises(ConfigurationError, match="sandbox="):
        resolve(api_key="other", sandbox=Box())


@pytest.mark.parametrize(
    ("option", "value"), [("auth", "digest"), ("max_retries", -1), ("max_retries", 1.5)]
)
def test_bad_client_options_are_refused(option: str, value: object) -> None:
    """auth must be headers/basic and max_retries a non-negative integer."""
    with pytest.raises(ConfigurationError, match=option):
        smskit.Client("login", KEY, "https://gw.example", **{option: value})


def test_no_configuration_uses_the_shared_sandbox_and_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without credentials, Client() runs on the shared sandbox and prints one secret-free line."""
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    with smskit.Client() as first, smskit.Client() as second:
        assert first.is_sandbox and first.base_url == second.base_url  # one sandbox per process
        balance = first.wallet.check_balance()
    lines = capsys.readouterr().out.splitlines()
    assert lines == [_config.SANDBOX_NOTICE, _config.SANDBOX_NOTICE]
    assert "no real SMS" in lines[0]
    assert first.base_url.rsplit(":", 1)[1] not in lines[0]  # no port: outputs stay stable
    assert balance.unit == "EUR"
    from smskit.sandbox import shared

    assert shared().api_key not in lines[0]
