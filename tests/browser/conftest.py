"""A real JupyterLab and a real headless chromium for browser tests, both started here and
stopped by PID (their whole process group) in teardown, even when a test fails.

JupyterLab serves a temporary copy of ``notebooks/`` on 127.0.0.1 with a random token and
a free port; its kernel is this interpreter's (ipykernel in the same venv). Chromium is
Debian's (``/usr/bin/chromium``), driven by Playwright over the DevTools protocol; requests
to anything but the loopback server are aborted.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from browser._chromium import CHROMIUM, CHROMIUM_FLAGS

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 60.0
# The kernels and marimo import smskit from this checkout (its widgets' modules and
# stylesheets included), whichever checkout the venv installed in editable mode.
CHECKOUT = {"PYTHONPATH": os.pathsep.join(filter(None, (str(REPO), os.environ.get("PYTHONPATH"))))}


def free_port() -> int:
    """A TCP port nobody listens on right now (on the loopback interface)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class _Exited(Exception):
    """The process being waited for is gone."""


def alive(process: subprocess.Popen[bytes]) -> bool:
    """True while ``process`` runs; raises once it has exited (no point waiting longer)."""
    if process.poll() is not None:
        raise _Exited(process.returncode)
    return True


def wait_for(probe: Callable[[], Any], what: str, timeout: float = START_TIMEOUT_S) -> Any:
    """Call ``probe`` until it returns something truthy without raising; fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    last: BaseException | None = None
    while time.monotonic() < deadline:
        try:
            value = probe()
        except (OSError, urllib.error.URLError, ValueError) as exc:
            last = exc
        except _Exited as exc:
            raise RuntimeError(f"{what} exited before it was ready") from exc
        else:
            if value:
                return value
        time.sleep(0.2)
    raise TimeoutError(f"{what} not ready after {timeout:.0f} s (last error: {last!r})")


def stop_group(process: subprocess.Popen[bytes]) -> None:
    """Stop a process started in its own session, and its children (kernels, renderers)."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=15)
        except ProcessLookupError:
            pass
    # children that outlived their leader (same process group id as the leader's pid)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


@dataclass
class Lab:
    """A running JupyterLab: where it is, its token, the notebooks' copy it serves."""

    url: str
    token: str
    root: Path
    process: subprocess.Popen[bytes]

    def api(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """Call the Jupyter server REST API with the token; the decoded JSON answer."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            f"{self.url}{path}",
            data=data,
            method=method,
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            raw = answer.read()
        return json.loads(raw) if raw else None

    def open_session(self, notebook: str) -> dict[str, Any]:
        """Start the notebook's kernel (python3) before the page opens: no kernel dialog."""
        return self.api(
            "POST",
            "/api/sessions",
            {"path": notebook, "name": notebook, "type": "notebook", "kernel": {"name": "python3"}},
        )

    def kernel_state(self, kernel_id: str) -> str:
        return str(self.api("GET", f"/api/kernels/{kernel_id}")["execution_state"])


def _jupyter(app: str, base: Path) -> Iterator[Lab]:
    """``jupyter <app>`` (``lab`` or ``notebook``: Notebook 7) on 127.0.0.1 (free port, random
    token) over a copy of notebooks/ in ``base``; stopped by its process group afterwards."""
    root = base / "root"
    # node_modules (the exported pages' renderers) is no notebook: copying it took minutes.
    shutil.copytree(REPO / "notebooks", root, ignore=shutil.ignore_patterns("node_modules"))
    port, token = free_port(), secrets.token_hex(24)
    # no "Jupyter news?" toast over the widgets (and no request for news)
    notification = base / "settings" / "@jupyterlab" / "apputils-extension"
    notification.mkdir(parents=True)
    (notification / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )
    env = {
        **os.environ,
        # the kernelspec says "python": this venv's interpreter, found first on PATH
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "JUPYTER_RUNTIME_DIR": str(base / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(base / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(base / "workspaces"),
        "SMSKIT_API_LOGIN": "",
        "SMSKIT_API_KEY": "",
        **CHECKOUT,
    }
    application = "LabApp" if app == "lab" else "JupyterNotebookApp"
    command = [
        sys.executable, "-m", "jupyter", app, "--no-browser",
        "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
        f"--{application}.expose_app_in_browser=True",
        f"--{application}.extension_manager=readonly",
        *(["--allow-root"] if os.geteuid() == 0 else []),  # containers often run as root
    ]  # fmt: skip
    log = (base / f"{app}.log").open("wb")
    process = subprocess.Popen(
        command, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    server = Lab(f"http://127.0.0.1:{port}", token, root, process)
    try:
        wait_for(lambda: alive(process) and server.api("GET", "/api/status"), f"jupyter {app}")
        yield server
    finally:
        stop_group(process)
        log.close()


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """JupyterLab on 127.0.0.1 (free port, random token) over a temporary copy of notebooks/."""
    yield from _jupyter("lab", tmp_path_factory.mktemp("lab"))


@pytest.fixture(scope="module")
def notebook7(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """Notebook 7 (``jupyter notebook``) as :func:`lab` starts JupyterLab."""
    yield from _jupyter("notebook", tmp_path_factory.mktemp("notebook7"))


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Debian's headless chromium, started here, driven by Playwright over CDP."""
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs it (apt-get install chromium)")
    profile = tmp_path_factory.mktemp("chromium")
    port = free_port()
    process = subprocess.Popen(
        [str(CHROMIUM), "--headless=new", f"--remote-debugging-port={port}",
         "--remote-debugging-address=127.0.0.1", f"--user-data-dir={profile}",
         *CHROMIUM_FLAGS, "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    endpoint = f"http://127.0.0.1:{port}"
    try:
        wait_for(
            lambda: (
                alive(process)
                and urllib.request.urlopen(f"{endpoint}/json/version", timeout=2).read()
            ),
            "chromium",
        )
        with sync_playwright() as playwright:
            connected = playwright.chromium.connect_over_cdp(endpoint)
            try:
                yield connected
            finally:
                connected.close()
    finally:
        stop_group(process)


def marimo_server(mode: str, source: Path, tmp: Path, theme: str | None = None) -> Iterator[str]:
    """``marimo <mode>`` (run or edit) of a copy of the marimo notebook ``source`` in ``tmp``,
    headless on a free loopback port, with no token, in marimo's ``theme`` ("light" or
    "dark"; None: marimo's default); yields its URL, stops its process group."""
    notebook = tmp / source.name
    shutil.copyfile(source, notebook)
    port = free_port()
    env = {**os.environ, "SMSKIT_API_LOGIN": "", "SMSKIT_API_KEY": "", **CHECKOUT}
    settings = ""
    if mode == "edit":
        # marimo's default: the editor runs the notebook when it opens (a user's own
        # marimo.toml may turn that off; this machine's does).
        settings += "[runtime]\nauto_instantiate = true\n"
    if theme is not None:
        settings += f'[display]\ntheme = "{theme}"\n'
    if settings:
        config = tmp / "config" / "marimo"
        config.mkdir(parents=True, exist_ok=True)
        (config / "marimo.toml").write_text(settings)
        env["XDG_CONFIG_HOME"] = str(tmp / "config")
    command = [
        sys.executable, "-m", "marimo", mode, str(notebook), "--headless", "--host", "127.0.0.1",
        "--port", str(port), "--no-token", "--no-sandbox",
        *(["--skip-update-check"] if mode == "edit" else []),
    ]  # fmt: skip
    log = (tmp / f"marimo-{mode}.log").open("wb")
    process = subprocess.Popen(
        command, cwd=tmp, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(
            lambda: alive(process) and urllib.request.urlopen(url, timeout=2).status == 200,
            f"marimo {mode}",
        )
        yield url
    finally:
        stop_group(process)
        log.close()


def loopback_page(browser: Any, url: str) -> tuple[Any, Any, list[str]]:
    """A page on ``url`` (loopback only; the remote requests it tried are listed)."""
    context = browser.new_context(viewport={"width": 1300, "height": 1500})
    aborted: list[str] = []

    def loopback_only(route: Any) -> None:
        address = route.request.url
        if urlsplit(address).hostname in ("127.0.0.1", "localhost") or address.startswith(
            ("data:", "blob:")
        ):
            route.continue_()
        else:
            aborted.append(address)
            route.abort()

    context.route("**/*", loopback_only)
    page = context.new_page()
    page.goto(url)
    return context, page, aborted
