"""Keystroke to updated Composer panel, in a real JupyterLab and in marimo, in a real chromium
(issues #27 item 4 and #37).

A notebook made here holds a Composer on 100,000 recipients (distinct French mobiles, a first
name among 40) of an embedded sandbox, and, as the anchor, the cheapest live anywidget there
is: a text box whose Python observer sends back the character count (the same round trip
through the kernel, no work). JupyterLab serves it on 127.0.0.1 (``--host lab``), and
``marimo run`` serves the same two widgets as a marimo app (``--host marimo``); Debian's
chromium (Playwright, ``/usr/bin/chromium``) opens each, then types into the two boxes in
turn (one key in one, the next in the other, the first box alternating), so both see the
same machine moment by moment:

- single keystrokes (default 60 a box): "x", then Backspace, and so on (the text keeps its
  length), each after 150-250 ms of quiet (a random wait: a random phase of the frames);
- bursts (default 5 a box): 6 characters typed 60 ms apart, timed from the last one.

A keystroke is timed in the page from its ``keydown`` event to the panel showing the new
character count that Python computed (``state.meter.characters``; the echo's ``count``)
rendered: the next animation frame, and that frame's style, layout and paint done (a message
posted from the frame's callback is handled after them). Each keystroke is also cut in legs
on the page's clock: the first WebSocket frame or fetch sent after the keydown, the last frame
received before the panel was drawn, the panel drawn, the frame, rendered. marimo draws
widgets in shadow roots: the page script looks through them.

Where JupyterLab's round trip goes: ``--split`` adds a JupyterLab whose server stamps, on the
wall clock the page's stamps share, each frame it receives and each message it writes (a
probe, never the product): page -> server, server -> kernel -> server (the kernel and the
server's relay), server -> page. ``--relay N`` sends N text changes a widget from a Python
client to a kernel of the same JupyterLab, over the server's kernel WebSocket and straight
over ZMQ in turn (no browser): the server's relay is their difference.

The first lines printed, one a host: the Composer's median and 90th percentile, the echo's,
the ratio of medians and the machine's 1-min load average before and after the host's run.

    .venv/bin/python benchmarks/bench_keystroke_browser.py
    .venv/bin/python benchmarks/bench_keystroke_browser.py --recipients 20 --keystrokes 10
    .venv/bin/python benchmarks/bench_keystroke_browser.py --host marimo --json legs.json
    .venv/bin/python benchmarks/bench_keystroke_browser.py --host lab --split --relay 60
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
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
# The first element matching a selector, looking through shadow roots (marimo draws widgets in
# them).
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
# Stamps on the page's clock, installed before the host's own scripts: each WebSocket frame
# and fetch the page sends, each WebSocket frame it receives, each keydown.
_STAMPS = """(() => {
  const log = window.__stamps = { sent: [], received: [], key: 0 };
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    log.sent.push(performance.now());
    return send.call(this, data);
  };
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', () => log.received.push(performance.now()));
    }
  };
  const nativeFetch = window.fetch;
  window.fetch = function (...args) {
    log.sent.push(performance.now());
    return nativeFetch.apply(this, args);
  };
  document.addEventListener('keydown', () => { log.key = performance.now(); }, true);
})();"""
# Arm a measurement: the next time the panel of `root` shows `chars` characters, record the
# legs of the last keystroke (ms from its keydown): the first frame or request sent after it,
# the last frame received before the panel showed the count, the panel drawn, the next
# animation frame, and that frame rendered (style, layout and paint done on the main thread).
_ARM = (
    """([root, chars]) => {
  const log = window.__stamps;
  log.sent.length = 0;
  log.received.length = 0;
  window.__legs = undefined;
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
    const drawn = performance.now();
    const key = log.key;
    const sent = log.sent.find((t) => t >= key);
    const received = log.received.filter((t) => t >= key && t <= drawn).pop();
    // the frame: its animation-frame callbacks run, then the page's style, layout and paint;
    // a message posted from the callback is handled once that rendering is done
    requestAnimationFrame(() => {
      const frame = performance.now();
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        const end = performance.now();
        window.__legs = {
          // the keydown on the wall clock (ms since the epoch): the server's stamps match it
          key_at: performance.timeOrigin + key,
          // messages: frames and requests sent after the keydown, frames received until now
          messages_sent: log.sent.filter((t) => t >= key).length,
          messages_received: log.received.filter((t) => t >= key && t <= end).length,
          sent: sent === undefined ? null : sent - key,
          received: received === undefined ? null : received - key,
          drawn: drawn - key,
          frame: frame - key,
          painted: end - key,
        };
      };
      channel.port2.postMessage(null);
    });
  });
  observer.observe(box, {subtree: true, childList: true, characterData: true});
}"""
)


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


# A probe, never the product: the kernel WebSocket of the bench's own JupyterLab with
# TCP_NODELAY set (tornado leaves it unset, so a small message written while an earlier one is
# unacknowledged waits for that acknowledgement: Nagle's algorithm against delayed ACKs).
NODELAY_PROBE = """\
from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection


class NoDelay(ZMQChannelsWebsocketConnection):
    def connect(self):
        self.websocket_handler.set_nodelay(True)
        return super().connect()
"""


# A probe, never the product: the kernel WebSocket of the bench's own JupyterLab, stamping on
# the wall clock each frame it receives from the page and each message it writes to the page
# (``--split``: where the page's round trip goes, page -> server -> kernel -> server -> page).
SPLIT_PROBE = """\
import json, os, time
from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection

LOG = open(os.environ["BENCH_SPLIT_LOG"], "a", buffering=1)


class Stamped(ZMQChannelsWebsocketConnection):
    def handle_incoming_message(self, incoming_msg):
        received = time.time()
        super().handle_incoming_message(incoming_msg)
        LOG.write(f"in {received:.6f} {time.time():.6f}\\n")

    def _on_zmq_reply(self, stream, msg_list):
        started = time.time()
        kind = json.loads(msg_list[0]).get("msg_type", "?")
        super()._on_zmq_reply(stream, msg_list)
        LOG.write(f"out {started:.6f} {time.time():.6f} {stream.channel} {kind}\\n")
"""


def start_lab(
    base: Path, nodelay: bool = False, split: bool = False
) -> tuple[subprocess.Popen[bytes], str, str]:
    """JupyterLab as installed on a free loopback port (``nodelay``, ``split``: the probes
    above; ``split`` logs to ``base / "split.log"``)."""
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
    probe: list[str] = []
    if nodelay or split:
        (base / "bench_probe.py").write_text(NODELAY_PROBE if nodelay else SPLIT_PROBE)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(base), env.get("PYTHONPATH")]))
        env["BENCH_SPLIT_LOG"] = str(base / "split.log")
        name = "NoDelay" if nodelay else "Stamped"
        probe = [f"--ServerApp.kernel_websocket_connection_class=bench_probe.{name}"]
    command = [sys.executable, "-m", "jupyter", "lab", "--no-browser",
               "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
               "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
               f"--ServerApp.root_dir={root}", "--LabApp.expose_app_in_browser=True",
               *(["--allow-root"] if os.geteuid() == 0 else []), *probe]  # fmt: skip
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


def keystroke(page: Any, root: str, box: Any, keys: list[str], delay_ms: int) -> dict[str, Any]:
    """Press ``keys`` in ``box`` (focused, caret at the end), ``delay_ms`` apart: the legs of
    the last one, ms from its keydown (``painted``: the panel showing Python's count painted)."""
    chars = len(box.input_value())
    chars += sum(-1 if key == "Backspace" else len(key) for key in keys)
    page.evaluate(_ARM, [root, chars])
    for i, key in enumerate(keys):
        if i:
            page.wait_for_timeout(delay_ms)
        page.keyboard.press(key)
    page.wait_for_function("() => window.__legs !== undefined", timeout=30_000, polling=5)
    return dict(page.evaluate("() => window.__legs"))


def focus(page: Any, box: Any) -> None:
    """Focus ``box`` with its caret at the end, then let the host settle (a focused cell may
    redraw) for a random 150-250 ms: each timed key starts from a quiet page, at a random
    phase of the display's frames."""
    box.focus()
    page.keyboard.press("Control+End")
    page.wait_for_timeout(random.randint(150, 250))


def measure(
    page: Any, roots: dict[str, str], keystrokes: int, bursts: int
) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """Single keystrokes and bursts, the widgets taking turns (one key in one box, then one in
    the other, the first box alternating): both see the same machine, moment by moment. A
    single keystroke types "x" or erases it (Backspace), in turn, so the text keeps its
    length; a burst types 6 characters 60 ms apart and is timed from the last one."""
    boxes = {name: page.locator(f"{root} textarea").first for name, root in roots.items()}
    for box in boxes.values():
        box.scroll_into_view_if_needed()
    timed: dict[str, dict[str, list[dict[str, Any]]]] = {
        name: {"single": [], "burst": []} for name in roots
    }
    names = list(roots)
    for i in range(keystrokes):
        for name in names if i % 2 == 0 else names[::-1]:
            focus(page, boxes[name])
            key = "x" if i % 2 == 0 else "Backspace"
            timed[name]["single"].append(keystroke(page, roots[name], boxes[name], [key], 0))
    for i in range(bursts):
        for name in names if i % 2 == 0 else names[::-1]:
            focus(page, boxes[name])
            legs = keystroke(page, roots[name], boxes[name], list("abcdef"), 60)
            timed[name]["burst"].append(legs)
    for box in boxes.values():
        box.fill(TEXT)
    page.wait_for_timeout(500)
    return timed


def percentile(values: list[float], q: int) -> float:
    """The ``q``-th percentile (``statistics.quantiles``' default, exclusive method)."""
    if len(values) < 2:
        return values[0]
    return statistics.quantiles(values, n=100)[q - 1]


def painted(samples: list[dict[str, Any]]) -> list[float]:
    return [float(sample["painted"]) for sample in samples]


def legs_line(samples: list[dict[str, Any]]) -> str:
    """The median of each leg of the keystrokes: keydown -> first frame or request sent ->
    last frame received before the panel was drawn (the host's server and the kernel, the
    refresh included) -> panel drawn (the page: message handling, the widget's drawing) ->
    next animation frame -> that frame's style, layout and paint done. Each leg's median is
    taken on its own: they need not add up."""

    def leg(start: str | None, end: str) -> str:
        values = [float(s[end]) - (0.0 if start is None else float(s[start])) for s in samples
                  if s[end] is not None and (start is None or s[start] is not None)]  # fmt: skip
        return f"{statistics.median(values):.1f}" if values else "?"

    def count(name: str) -> str:
        return f"{statistics.median(int(s[name]) for s in samples):g}"

    return (f"messages sent {count('messages_sent')}, received {count('messages_received')}; "
            f"key->sent {leg(None, 'sent')}, sent->received {leg('sent', 'received')}, "
            f"received->drawn {leg('received', 'drawn')}, drawn->frame {leg('drawn', 'frame')}, "
            f"frame->rendered {leg('frame', 'painted')}")  # fmt: skip


def host_line(host: str, timed: dict[str, Any], load: tuple[float, float]) -> str:
    """One line: the Composer's median and p90, the echo's, their ratio, the load."""
    composer, echo = painted(timed["composer"]["single"]), painted(timed["echo"]["single"])
    ratio = statistics.median(composer) / statistics.median(echo)
    return (f"{host:11}  composer median {statistics.median(composer):3.0f} ms, "
            f"p90 {percentile(composer, 90):3.0f} | echo median {statistics.median(echo):3.0f} ms, "
            f"p90 {percentile(echo, 90):3.0f} | ratio {ratio:.2f}x | n={len(composer)} each | "
            f"load {load[0]:.1f} -> {load[1]:.1f}")  # fmt: skip


def detail_lines(host: str, timed: dict[str, Any]) -> list[str]:
    """The paired difference, each widget's legs, the bursts."""
    composer, echo = timed["composer"]["single"], timed["echo"]["single"]
    pairs = [c - e for c, e in zip(painted(composer), painted(echo), strict=True)]
    gap = statistics.median(pairs)
    framed = [statistics.median(float(s["frame"]) for s in samples) for samples in (composer, echo)]
    lines = [f"{host:11}  composer - echo, keystroke by keystroke: median {gap:+.1f} ms; to the "
             f"frame only (not rendered, as timed before 2026-11-28 13:00): composer "
             f"{framed[0]:.0f}, echo {framed[1]:.0f} ms"]  # fmt: skip
    for name in ("composer", "echo"):
        lines.append(f"{host:11}  {name:8} legs (median ms): {legs_line(timed[name]['single'])}")
    for name in ("composer", "echo"):
        burst = painted(timed[name]["burst"])
        if burst:
            lines.append(f"{host:11}  {name:8} burst (6 keys 60 ms apart, from the last): "
                         f"median {statistics.median(burst):.0f}, max {max(burst):.0f} ms "
                         f"(n={len(burst)})")  # fmt: skip
    return lines


def split_lines(host: str, timed: dict[str, Any]) -> list[str]:
    """Where the page's round trip goes, keystroke by keystroke (``--split``): the page's
    first frame sent -> the server receiving it -> the server writing the widget's update
    (the kernel and the server's own relay, both ways) -> the page receiving it (the last
    frame before the panel was drawn). Page and server stamp the same wall clock."""
    stamps = [line.split() for line in timed["server"] if line]
    frames_in = [float(line[1]) * 1e3 for line in stamps if line[0] == "in"]
    updates = [(float(line[1]) * 1e3, float(line[2]) * 1e3) for line in stamps
               if line[0] == "out" and line[3] == "iopub" and line[4] == "comm_msg"]  # fmt: skip
    lines = []
    for name in ("composer", "echo"):
        legs: dict[str, list[float]] = {"page -> server": [], "server -> kernel -> server": [],
                                        "server -> page": []}  # fmt: skip
        for sample in timed[name]["single"]:
            if sample["sent"] is None or sample["received"] is None:
                continue
            sent = sample["key_at"] + sample["sent"]
            received = sample["key_at"] + sample["received"]
            arrived = next((t for t in frames_in if t >= sent - 2), None)
            written = [end for start, end in updates if arrived is not None
                       and arrived <= start and end <= received + 2]  # fmt: skip
            if arrived is None or not written:
                continue
            legs["page -> server"].append(arrived - sent)
            legs["server -> kernel -> server"].append(written[-1] - arrived)
            legs["server -> page"].append(received - written[-1])
        shown = ", ".join(f"{leg} {statistics.median(v):.1f}" for leg, v in legs.items() if v)
        count = len(legs["page -> server"])
        lines.append(f"{host:11}  {name:8} split (median ms, n={count}): {shown}")
    return lines


def relay(base: Path, count: int, rounds: int) -> list[str]:
    """No browser: the same Composer and echo in a kernel of the bench's JupyterLab, each
    text change sent by a Python client over the server's kernel WebSocket (the page's
    protocol, ``v1.kernel.websocket.jupyter.org``) and, in turn, straight to the kernel over
    ZMQ (jupyter_client, the kernel's connection file): the server's relay is the difference.
    Timed from the send to the widget's update received, and to the kernel's idle status."""
    import queue
    import threading
    import uuid

    from jupyter_client import BlockingKernelClient
    from jupyter_client.session import Session
    from jupyter_server.services.kernels.connection.base import (
        deserialize_msg_from_ws_v1,
        serialize_msg_to_ws_v1,
    )
    from websockets.sync.client import connect

    base.mkdir()
    process, url, token = start_lab(base)
    try:
        request = urllib.request.Request(f"{url}/api/kernels?token={token}", method="POST",
                                         data=b'{"name": "python3"}')  # fmt: skip
        kernel = json.loads(urllib.request.urlopen(request).read())["id"]
        session = Session(key=b"", username="bench")  # the server signs for its clients
        address = url.replace("http://", "ws://")
        socket_ = connect(f"{address}/api/kernels/{kernel}/channels?session_id="
                          f"{uuid.uuid4().hex}&token={token}", max_size=None, compression=None,
                          subprotocols=["v1.kernel.websocket.jupyter.org"])  # fmt: skip
        frames: queue.Queue[tuple[float, bytes]] = queue.Queue()

        def read() -> None:
            for frame in socket_:
                frames.put((time.perf_counter(), frame if isinstance(frame, bytes) else b""))

        threading.Thread(target=read, daemon=True).start()

        def over_ws(msg_type: str, content: dict[str, Any]) -> tuple[str, float]:
            header = session.msg_header(msg_type)
            parts = [json.dumps(part, default=str).encode() for part in (header, {}, {}, content)]
            started = time.perf_counter()
            socket_.send(serialize_msg_to_ws_v1(parts, "shell"))
            return str(header["msg_id"]), started

        def decoded(frame: bytes) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
            _channel, parts = deserialize_msg_from_ws_v1(frame)
            return json.loads(parts[0]), json.loads(parts[1]), json.loads(parts[3])

        code = (SETUP.format(count=count) + COMPOSER.format(text=TEXT, debounce=None)
                + ECHO.format(text=TEXT, esm=ECHO_ESM) + "print(composer.comm.comm_id, "
                "echo.comm.comm_id)\n")  # fmt: skip
        request_content = {"code": code, "silent": False, "store_history": False,
                           "user_expressions": {}, "allow_stdin": False}  # fmt: skip
        made, _ = over_ws("execute_request", request_content)
        ids: list[str] = []
        while True:
            header, parent, content = decoded(frames.get(timeout=300)[1])
            if parent.get("msg_id") != made:
                continue
            if header["msg_type"] == "stream":
                ids = content["text"].split()
            if header["msg_type"] == "error":
                raise RuntimeError(content["evalue"])
            if header["msg_type"] == "status" and content["execution_state"] == "idle":
                break
        connection = base / "runtime" / f"kernel-{kernel}.json"
        direct = BlockingKernelClient(connection_file=str(connection))
        direct.load_connection_file()
        direct.start_channels()
        time.sleep(1)
        texts = [TEXT + "x", TEXT]
        widgets = {"composer": (ids[0], "state"), "echo": (ids[1], "count")}
        timed: dict[str, list[tuple[float, float]]] = {
            f"{way} {name}": [] for way in ("websocket", "zmq") for name in widgets
        }
        for i in range(rounds):
            for name, (comm, shows) in widgets.items():
                for way in ("websocket", "zmq") if i % 2 == 0 else ("zmq", "websocket"):
                    text = texts[len(timed[f"websocket {name}"]) % 2 if way == "websocket" else
                                 (len(timed[f"zmq {name}"]) + 1) % 2]  # fmt: skip
                    data = {"method": "update", "state": {"text": text}, "buffer_paths": []}
                    update = None
                    if way == "websocket":
                        while not frames.empty():
                            frames.get()
                        sent, started = over_ws("comm_msg", {"comm_id": comm, "data": data})
                        while True:
                            at, frame = frames.get(timeout=30)
                            header, parent, content = decoded(frame)
                            if parent.get("msg_id") != sent:
                                continue
                            if header["msg_type"] == "comm_msg" and shows in content["data"].get(
                                "state", {}
                            ):
                                update = at
                            if header["msg_type"] == "status" and (
                                content["execution_state"] == "idle"
                            ):
                                break
                    else:
                        message = direct.session.msg("comm_msg", {"comm_id": comm, "data": data})
                        started = time.perf_counter()
                        direct.shell_channel.send(message)
                        while True:
                            reply = direct.get_iopub_msg(timeout=30)
                            at = time.perf_counter()
                            if reply["parent_header"].get("msg_id") != message["header"]["msg_id"]:
                                continue
                            if reply["msg_type"] == "comm_msg" and shows in reply["content"][
                                "data"
                            ].get("state", {}):
                                update = at
                            if reply["msg_type"] == "status" and (
                                reply["content"]["execution_state"] == "idle"
                            ):
                                break
                    assert update is not None, f"{name} sent no update over {way}"
                    timed[f"{way} {name}"].append(((update - started) * 1e3, (at - started) * 1e3))
                    time.sleep(random.uniform(0.1, 0.2))
        direct.stop_channels()
        socket_.close()
    finally:
        stop(process)
    lines = []
    for what, values in timed.items():
        updates, idles = [u for u, _ in values], [i for _, i in values]
        lines.append(f"relay        {what:18} send -> update received: median "
                     f"{statistics.median(updates):5.1f} ms (p90 {percentile(updates, 90):5.1f}); "
                     f"-> idle {statistics.median(idles):5.1f} ms (n={len(values)})")  # fmt: skip
    return lines


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
    """Both widgets timed in ``host`` ("lab", "lab-nodelay", "lab-split" or "marimo"), taking
    turns: {"composer": ..., "echo": ...}, each {"single": [legs ...], "burst": [legs ...]}
    ("lab-split" adds "server": its probe's log lines)."""
    base.mkdir()
    lab = host.startswith("lab")
    if lab:
        process, url, token = start_lab(
            base, nodelay=host == "lab-nodelay", split=host == "lab-split"
        )
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
        page.add_init_script(_STAMPS)
        page.goto(address)
        if lab:
            page.wait_for_function(_READY, timeout=120_000)
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
            page.wait_for_function(_ALL_EXECUTED, timeout=300_000, polling=250)
        page.wait_for_selector(".smskit-composer .smskit-characters", timeout=300_000)
        page.wait_for_selector(".bench-echo .smskit-characters", timeout=60_000)
        page.wait_for_timeout(1000)  # the first paints and the kernel's last messages
        roots = {"composer": ".smskit-composer", "echo": ".bench-echo"}
        timed = measure(page, roots, args.keystrokes, args.bursts)
        if args.screenshot is not None:
            shot = args.screenshot.with_name(f"{args.screenshot.stem}-{host}.png")
            page.locator(".smskit-composer").first.screenshot(path=shot)
        browser.close()
    finally:
        stop(process)
    if host == "lab-split":
        timed["server"] = (base / "split.log").read_text().split("\n")
    return timed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recipients", type=int, default=100_000)
    parser.add_argument("--keystrokes", type=int, default=60, help="single keystrokes per box")
    parser.add_argument("--bursts", type=int, default=5, help="bursts per box")
    parser.add_argument("--screenshot", type=Path, default=None)
    parser.add_argument("--host", choices=["lab", "marimo", "both"], default="both")
    parser.add_argument(
        "--debounce", type=float, default=None, help="the Composer's (default: its own)"
    )
    parser.add_argument(
        "--nodelay-probe", action="store_true",
        help="also a JupyterLab with TCP_NODELAY on its kernel WebSocket (a probe)",
    )  # fmt: skip
    parser.add_argument(
        "--split", action="store_true",
        help="also a JupyterLab whose server stamps each frame (a probe): the round trip split",
    )  # fmt: skip
    parser.add_argument(
        "--relay", type=int, default=0, metavar="N",
        help="also N text changes a widget from a Python client, over the server's WebSocket "
        "and straight over ZMQ, to the same kernel (no browser)",
    )  # fmt: skip
    parser.add_argument("--json", type=Path, default=None, help="write every keystroke's legs")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    hosts = ["lab", "marimo"] if args.host == "both" else [args.host]
    if args.nodelay_probe:
        hosts.insert(hosts.index("lab") + 1 if "lab" in hosts else 0, "lab-nodelay")
    if args.split:
        hosts.insert(hosts.index("lab") + 1 if "lab" in hosts else 0, "lab-split")
    results: dict[str, dict[str, Any]] = {}
    loads: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        for host in hosts:
            # the machine's load before this host's servers and browser start, and after
            before = os.getloadavg()[0]
            results[host] = run_host(host, playwright, Path(folder) / host, args)
            loads[host] = (before, os.getloadavg()[0])
        if args.relay:
            before = os.getloadavg()[0]
            relayed = relay(Path(folder) / "relay", args.recipients, args.relay)
            relay_load = (before, os.getloadavg()[0])
    print(f"# {cpu_model()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
          f"{args.recipients:,} recipients, debounce {args.debounce}; keydown to the panel "
          f"showing Python's count painted, {args.keystrokes} single keystrokes per box, the "
          f"Composer and the echo taking turns; load: 1-min average before / after each "
          "host")  # fmt: skip
    for host, timed in results.items():
        print(host_line(host, timed, loads[host]))
    for host, timed in results.items():
        for line in detail_lines(host, timed):
            print(line)
        if host == "lab-split":
            for line in split_lines(host, timed):
                print(line)
    if args.relay:
        print(f"relay        load {relay_load[0]:.1f} -> {relay_load[1]:.1f}")
        for line in relayed:
            print(line)
    if args.json is not None:
        args.json.write_text(json.dumps({"loads": loads, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
