"""Keystroke to updated Composer panel, in a real JupyterLab and in marimo, in a real chromium
(issues #27 item 4 and #37).

A notebook made here holds a Composer on 100,000 recipients (distinct French mobiles, a first
name among 40) of an embedded sandbox, and, as the anchor, the cheapest live anywidget there
is: a text box whose Python observer sends back the character count (the same round trip
through the kernel, no work). JupyterLab serves it on 127.0.0.1 (``--host lab``), and
``marimo run`` serves the same two widgets as a marimo app (``--host marimo``); Debian's
chromium (Playwright, ``/usr/bin/chromium``) opens each, then types into each box:

- single keystrokes, each once the panel has settled;
- bursts: 6 characters typed 60 ms apart (a fast typist), timed from the last one.

A keystroke is timed in the page from its ``keydown`` event to the first animation frame after
the panel shows the new character count that Python computed (``state.meter.characters``;
the echo's ``count``), debounce included. marimo draws widgets in shadow roots: the page
script looks through them.

    .venv/bin/python benchmarks/bench_keystroke_browser.py
    .venv/bin/python benchmarks/bench_keystroke_browser.py --recipients 20 --keystrokes 10
    .venv/bin/python benchmarks/bench_keystroke_browser.py --host marimo
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from _common import cpu_model

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip
NOTEBOOK = "keystroke.ipynb"
TEXT = "Bonjour {first_name}, -20% ce week-end ! STOP au 36173"
SETUP = """\
import pandas as pd
import anywidget
import traitlets
import smskit

COUNT = {count}
NAMES = [f"Prénom{{i:02d}}" for i in range(40)]
recipients = pd.DataFrame({{
    "phone_number": [f"+336{{i:08d}}" for i in range(COUNT)],
    "first_name": [NAMES[i % 40] for i in range(COUNT)],
}})
sandbox = smskit.Sandbox(seed=1).start()
client = smskit.Client(sandbox=sandbox)
"""
COMPOSER = """\
composer = smskit.Composer(client, recipients, text={text!r}, sender="MyShop",
                           send_at="2030-06-04T10:00:00+02:00", debounce={debounce})
composer
"""
ECHO_ESM = """
export default { render({ model, el }) {
  const root = document.createElement("div");
  root.className = "bench-echo";
  const box = document.createElement("textarea");
  box.value = model.get("text");
  const shown = document.createElement("span");
  shown.className = "smskit-characters";
  const draw = () => { shown.textContent = `${model.get("count")} characters`; };
  box.addEventListener("input", () => { model.set("text", box.value); model.save_changes(); });
  model.on("change:count", draw);
  draw();
  root.append(box, shown);
  el.append(root);
} };
"""
ECHO = """\
class Echo(anywidget.AnyWidget):
    _esm = {esm!r}
    text = traitlets.Unicode({text!r}).tag(sync=True)
    count = traitlets.Int(0).tag(sync=True)

    @traitlets.observe("text")
    def _count(self, change):
        self.count = len(change["new"])

echo = Echo()
echo.count = len(echo.text)
echo
"""
MARIMO_APP = """\
import marimo

app = marimo.App(width="full")


@app.cell
def _():
    import marimo as mo
{setup}
{composer}
{echo}
    mo.vstack([composer, echo])
    return


if __name__ == "__main__":
    app.run()
"""
_ALL_EXECUTED = """() => {
  const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  if (!panel || !panel.content || !panel.sessionContext.session) return false;
  const cells = panel.content.widgets.filter(cell => cell.model.type === 'code');
  return cells.length > 0 && cells.every(cell => cell.model.executionCount !== null)
    && panel.sessionContext.session.kernel.status === 'idle';
}"""
_READY = """() => {
  const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  return Boolean(panel && panel.context && panel.context.isReady && panel.sessionContext
    && panel.sessionContext.isReady && panel.sessionContext.session
    && panel.sessionContext.session.kernel);
}"""
# Arm a measurement: the next time the panel of `root` shows `chars` characters, record the
# time since the last keydown, one animation frame later (the frame that paints it).
_DEEP = """(selector) => {
  const walk = (node) => {
    const found = node.querySelector(selector);
    if (found) return found;
    for (const element of node.querySelectorAll('*')) {
      if (element.shadowRoot) {
        const inner = walk(element.shadowRoot);
        if (inner) return inner;
      }
    }
    return null;
  };
  return walk(document);
}"""
_ARM = (
    """([root, chars]) => {
  window.__took = undefined;
  const box = ("""
    + _DEEP
    + """)(root);
  const shows = () => {
    const el = box.querySelector('.smskit-characters');
    return el && el.textContent.startsWith(chars + ' characters');
  };
  const observer = new MutationObserver(() => {
    if (!shows()) return;
    observer.disconnect();
    const done = performance.now();
    requestAnimationFrame(() => { window.__took = performance.now() - window.__lastKey; });
    window.__updated = done;
  });
  observer.observe(box, {subtree: true, childList: true, characterData: true});
}"""
)
_LISTEN = """() => document.addEventListener('keydown', () => {
  window.__lastKey = performance.now();
}, true)"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait(probe: Any, what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if probe():
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise TimeoutError(f"{what} not ready after {timeout} s")


def _indented(source: str) -> str:
    return "\n".join(f"    {line}" if line else "" for line in source.splitlines())


def write_marimo(root: Path, count: int, debounce: float | None) -> Path:
    """The same set-up, Composer and echo as one marimo cell (an app for ``marimo run``)."""
    app = MARIMO_APP.format(
        setup=_indented(SETUP.format(count=count)),
        composer=_indented(
            COMPOSER.format(text=TEXT, debounce=debounce).replace("\ncomposer\n", "\n")
        ),
        echo=_indented(ECHO.format(text=TEXT, esm=ECHO_ESM).replace("\necho\n", "\n")),
    )
    path = root / "keystroke_marimo.py"
    path.write_text(app)
    return path


def write_notebook(root: Path, count: int, debounce: float | None) -> None:
    def cell(source: str) -> dict[str, Any]:
        return {"cell_type": "code", "metadata": {}, "source": source, "outputs": [],
                "execution_count": None}  # fmt: skip

    cells = [cell(SETUP.format(count=count)), cell(COMPOSER.format(text=TEXT, debounce=debounce)),
             cell(ECHO.format(text=TEXT, esm=ECHO_ESM))]  # fmt: skip
    notebook = {"cells": cells, "metadata": {"kernelspec": {"name": "python3",
                "display_name": "Python 3", "language": "python"}}, "nbformat": 4,
                "nbformat_minor": 5}  # fmt: skip
    (root / NOTEBOOK).write_text(json.dumps(notebook))


def start_lab(base: Path) -> tuple[subprocess.Popen[bytes], str, str]:
    root = base / "root"
    root.mkdir()
    settings = base / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )
    port, token = free_port(), secrets.token_hex(24)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "JUPYTER_RUNTIME_DIR": str(base / "runtime"),
           "JUPYTERLAB_SETTINGS_DIR": str(base / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(base / "workspaces")}  # fmt: skip
    command = [sys.executable, "-m", "jupyter", "lab", "--no-browser",
               "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
               "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
               f"--ServerApp.root_dir={root}", "--LabApp.expose_app_in_browser=True",
               *(["--allow-root"] if os.geteuid() == 0 else [])]  # fmt: skip
    log = (base / "lab.log").open("wb")
    process = subprocess.Popen(
        command, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    url = f"http://127.0.0.1:{port}"
    wait(lambda: urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2).read(),
         "JupyterLab")  # fmt: skip
    return process, url, token


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


def keystroke(page: Any, root: str, box: Any, typed: str, delay_ms: int) -> float:
    """Type ``typed`` at the end of ``box``; ms from the last keydown to the updated panel."""
    chars = len(box.input_value()) + len(typed)
    page.evaluate(_ARM, [root, chars])
    box.press("End")
    box.type(typed, delay=delay_ms)
    page.wait_for_function("() => window.__took !== undefined", timeout=30_000, polling=10)
    took = float(page.evaluate("() => window.__took"))
    page.wait_for_timeout(300)  # settle: the next one starts from a quiet panel
    return took


def measure(page: Any, root: str, keystrokes: int) -> dict[str, list[float]]:
    box = page.locator(f"{root} textarea").first
    box.scroll_into_view_if_needed()
    box.click()
    box.press("End")
    single = [keystroke(page, root, box, "x", 0) for _ in range(keystrokes)]
    bursts = [keystroke(page, root, box, "abcdef", 60) for _ in range(max(3, keystrokes // 3))]
    box.fill(TEXT)
    page.wait_for_timeout(500)
    return {"single": single, "burst": bursts}


def summary(values: list[float]) -> str:
    ordered = sorted(values)
    return (f"min {ordered[0]:.0f} / median {statistics.median(ordered):.0f} / "
            f"max {ordered[-1]:.0f} ms (n={len(ordered)})")  # fmt: skip


def start_marimo(base: Path, count: int, debounce: float | None) -> tuple[Any, str]:
    """``marimo run`` of the app made here, headless on a free loopback port."""
    app = write_marimo(base, count, debounce)
    port = free_port()
    command = [sys.executable, "-m", "marimo", "run", str(app), "--headless", "--host",
               "127.0.0.1", "--port", str(port), "--no-token", "--no-sandbox"]  # fmt: skip
    log = (base / "marimo.log").open("wb")
    process = subprocess.Popen(
        command, cwd=base, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    url = f"http://127.0.0.1:{port}"
    wait(lambda: urllib.request.urlopen(url, timeout=2).status == 200, "marimo")
    return process, url


def run_host(host: str, playwright: Any, base: Path, args: Any) -> dict[str, Any]:
    """Both widgets timed in ``host`` ("lab" or "marimo"): {"composer": ..., "echo": ...}."""
    base.mkdir()
    if host == "lab":
        process, url, token = start_lab(base)
        write_notebook(base / "root", args.recipients, args.debounce)
        address = f"{url}/lab/tree/{NOTEBOOK}?reset&token={token}"
    else:
        process, url = start_marimo(base, args.recipients, args.debounce)
        address = url
    try:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1300, "height": 1400})
        page.route("**/*", lambda route: route.continue_()
                   if route.request.url.startswith(url) else route.abort())  # fmt: skip
        page.goto(address)
        if host == "lab":
            page.wait_for_function(_READY, timeout=120_000)
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
            page.wait_for_function(_ALL_EXECUTED, timeout=300_000, polling=250)
        page.wait_for_selector(".smskit-composer .smskit-characters", timeout=300_000)
        page.wait_for_selector(".bench-echo .smskit-characters", timeout=60_000)
        page.evaluate(_LISTEN)
        composer = measure(page, ".smskit-composer", args.keystrokes)
        echo = measure(page, ".bench-echo", args.keystrokes)
        if args.screenshot is not None:
            shot = args.screenshot.with_name(f"{args.screenshot.stem}-{host}.png")
            page.locator(".smskit-composer").first.screenshot(path=shot)
        browser.close()
    finally:
        stop(process)
    return {"composer": composer, "echo": echo}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recipients", type=int, default=100_000)
    parser.add_argument("--keystrokes", type=int, default=15, help="single keystrokes per box")
    parser.add_argument("--screenshot", type=Path, default=None)
    parser.add_argument("--host", choices=["lab", "marimo", "both"], default="both")
    parser.add_argument(
        "--debounce", type=float, default=None, help="the Composer's (default: its own)"
    )
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    before = os.getloadavg()[0]  # the machine's, before this run adds its servers and browser
    hosts = ["lab", "marimo"] if args.host == "both" else [args.host]
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        for host in hosts:
            results[host] = run_host(host, playwright, Path(folder) / host, args)
    load = os.getloadavg()[0]
    print(f"{cpu_model()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"load {before:.1f} before, {load:.1f} after; {args.recipients:,} recipients, "
          f"debounce {args.debounce}")  # fmt: skip
    for host, timed in results.items():
        composer, echo = timed["composer"], timed["echo"]
        for kind in ("single", "burst"):
            ratio = statistics.median(composer[kind]) / statistics.median(echo[kind])
            print(f"{host:6} {kind:6} composer: {summary(composer[kind])}")
            print(f"{host:6} {kind:6} echo    : {summary(echo[kind])}  -> "
                  f"composer/echo {ratio:.2f}x")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
