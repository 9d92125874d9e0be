"""The loopback server helper and the standalone command ``smskit sandbox``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from typing import Any

import httpx
import pytest

from smskit._server import BackgroundServer
from smskit.cli import main


async def hello(scope: Any, receive: Any, send: Any) -> None:
    """A minimal ASGI app."""
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"hello"})


def test_background_server_serves_and_stops() -> None:
    """start() returns once serving on an ephemeral loopback port; stop() frees it."""
    server = BackgroundServer(hello)
    server.start()
    try:
        assert server.url == f"http://127.0.0.1:{server.port}"
        assert server.port > 0
        assert httpx.get(server.url).text == "hello"
    finally:
        server.stop()
    assert not server.running
    with pytest.raises(httpx.ConnectError):
        httpx.get(server.url)


def test_busy_port_raises_in_the_caller() -> None:
    """Binding a port already in use raises OSError from start(), not in a thread."""
    with BackgroundServer(hello) as first, pytest.raises(OSError):
        BackgroundServer(hello, port=first.port).start()


def test_main_reports_a_busy_port(capsys: pytest.CaptureFixture[str]) -> None:
    """The command exits 3 (configuration) with a readable message when the port is taken."""
    with BackgroundServer(hello) as first:
        assert main(["sandbox", "--port", str(first.port)]) == 3
    assert f"cannot listen on 127.0.0.1 port {first.port}:" in capsys.readouterr().err


def run_standalone(*args: str, key: str | None = None) -> tuple[str, list[str]]:
    """Start ``python -m smskit sandbox --port 0``, read its banner, return (url, lines)."""
    env = {k: v for k, v in os.environ.items() if k != "SMSKIT_API_KEY"}
    if key is not None:
        env["SMSKIT_API_KEY"] = key
    process = subprocess.Popen(
        [sys.executable, "-m", "smskit", "sandbox", "--port", "0", *args],
        env=env, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    lines = []
    try:
        while not (lines and lines[-1].startswith("Ctrl-C")):
            lines.append(process.stdout.readline().strip())
        url = lines[0].split(" on ", 1)[1].split(" ", 1)[0]
        headers = {"api-login": "sandbox", "api-key": key or "x"}
        status = httpx.get(url + "/v1/public/wallet/check-balance", headers=headers).status_code
        lines.append(f"status {status}")
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(10) == 0
    return url, lines


def test_standalone_uses_key_from_environment() -> None:
    """SMSKIT_API_KEY sets the key; the banner gives URL and login but never prints the key."""
    url, lines = run_standalone(key="env-key-123")
    assert url.startswith("http://127.0.0.1:")
    assert f"export SMSKIT_BASE_URL={url}" in lines
    assert "export SMSKIT_API_LOGIN=sandbox" in lines
    assert lines[-1] == "status 200"
    assert not any("env-key-123" in line for line in lines)


def test_standalone_shows_random_key_only_when_asked() -> None:
    """A random key is printed with --show-key only (stdout here is a pipe, not a terminal)."""
    _, hidden = run_standalone()
    assert not any(line.startswith("export SMSKIT_API_KEY") for line in hidden)
    _, shown = run_standalone("--show-key")
    assert any(line.startswith("export SMSKIT_API_KEY=") for line in shown)
