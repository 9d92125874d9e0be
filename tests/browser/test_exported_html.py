"""The exported demo pages: plots and widgets render offline in chromium, and no page or
stored notebook holds an API key.

One fixture notebook (a plotly figure, an ipywidgets slider, a sandbox client, a Composer)
goes through
``notebooks/_export/export_notebooks.py``, the code ``make demo`` runs; its page is served by
a stdlib HTTP server on 127.0.0.1 and opened in Debian's chromium with every other request aborted.
"""

from __future__ import annotations

import functools
import http.server
import json
import re
import socketserver
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from browser._chromium import CHROMIUM, CHROMIUM_FLAGS
from browser._exporter import exporter
from smskit import Sandbox

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
# What Sandbox() makes its keys of (secrets.token_urlsafe(24)): 32 URL-safe base64 characters.
KEY_LIKE = re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{32}(?![A-Za-z0-9_-])")
FIXTURE_CELLS = (
    "import ipywidgets\nimport plotly.graph_objects as go\nimport smskit",
    "client = smskit.Client()\nclient",
    "client.wallet.check_balance()",
    "go.Figure(go.Bar(x=['live', 'dead'], y=[3, 1]))",
    "go.Figure(go.Choropleth(locations=['FRA', 'DEU'], z=[1, 2]))",
    "ipywidgets.IntSlider(value=7, max=10, description='chunks')",
    "composer = smskit.Composer(client, ['+33612345678', '+33612345679'], sender='MyShop',"
    " text='Bonjour, l’été ! STOP au 36173', send_at='2030-06-04T10:00:00+02:00')\ncomposer",
    "composer.optimize();",  # after the composer's cell: that view keeps the state it showed
    "composer",  # its last view: its last state
)


def _write_notebook(path: Path, *sources: str) -> Path:
    nb = new_notebook(cells=[new_code_cell(source) for source in sources])
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, path)
    return path


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str], str]:
    """The fixture notebook executed and exported: (page, keys its kernel held, notebook JSON)."""
    work = tmp_path_factory.mktemp("export")
    notebook = _write_notebook(work / "fixture.ipynb", *FIXTURE_CELLS)
    nb = nbformat.read(notebook, as_version=4)
    keys = exporter.execute(nb, work)
    html = exporter.to_html(nb, "fixture")
    out = work / "site"
    out.mkdir()
    exporter.write_static(out)
    page = out / "fixture.html"
    page.write_text(html, encoding="utf-8")
    return page, keys, nbformat.writes(nb)


@pytest.fixture(scope="module")
def served(exported: tuple[Path, list[str], str]) -> Iterator[str]:
    """URL of the exported page on a stdlib HTTP server bound to 127.0.0.1."""
    page = exported[0]

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(page.parent))
    with socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        yield f"http://127.0.0.1:{server.server_address[1]}/{page.name}"
        server.shutdown()
        thread.join(timeout=10)


def test_exported_page_renders_plot_and_widget_without_leaving_loopback(served: str) -> None:
    """The page draws the bars, the map, the slider and the Composer from local files, asking
    nothing remote: the Composer's first view as its cell left it, its last view optimised."""
    from playwright.sync_api import sync_playwright

    remote: list[str] = []
    errors: list[str] = []

    def loopback_only(route: Any) -> None:
        if urlsplit(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            remote.append(route.request.url)
            route.abort()

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_FLAGS))
        try:
            page = browser.new_page()
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.route("**/*", loopback_only)
            page.goto(served)
            page.wait_for_selector(".js-plotly-plot .main-svg", timeout=30_000)
            slider = page.wait_for_selector(".jupyter-widgets .widget-slider", timeout=30_000)
            assert "chunks" in slider.inner_text()
            bars = page.locator(".js-plotly-plot .main-svg .bars path")
            assert bars.count() == 2
            # The map's countries come from the vendored topojson, not from cdn.plot.ly.
            page.wait_for_selector(".choroplethlayer path", timeout=30_000)
            assert page.locator(".choroplethlayer path").count() == 2
            # The Composer (anywidget) as its first cell left it: the ES module its state
            # carries draws the text, its UCS-2 mark, the meter, the bubbles and the checks.
            page.locator(".smskit-composer").last.wait_for(timeout=30_000)
            assert page.locator(".smskit-composer").count() == 2
            composer = page.locator(".smskit-composer").first
            assert composer.get_by_label("message text").input_value() == (
                "Bonjour, l’été ! STOP au 36173"
            )
            assert composer.locator(".smskit-encoding").inner_text() == "UCS-2"
            assert composer.locator(".sk-backdrop mark").inner_text() == "’"
            assert composer.locator(".sk-bubble").count() == 2
            assert composer.locator(".smskit-to-send").inner_text() == "2"
            # ... and its last view, its last state: optimised, GSM-7, nothing marked
            last = page.locator(".smskit-composer").last
            assert last.get_by_label("message text").input_value() == (
                "Bonjour, l'été ! STOP au 36173"
            )
            assert last.locator(".smskit-encoding").inner_text() == "GSM-7"
            assert last.locator(".sk-backdrop mark").count() == 0
        finally:
            browser.close()
    assert remote == []
    assert errors == []


def test_exported_page_loads_no_remote_script(exported: tuple[Path, list[str], str]) -> None:
    """Every script and the widget renderer of the page come from files beside it."""
    html = exported[0].read_text(encoding="utf-8")
    sources = re.findall(r"<script[^>]*\ssrc=\"([^\"]*)\"", html)
    assert sources and all(source.startswith("static/") for source in sources)
    assert f"var widgetRendererSrc = '{exporter.WIDGET_RENDERER}';" in html
    assert "unpkg.com" not in html and "cdn.plot.ly" not in html and "cdnjs" not in html
    for source in [*sources, exporter.WIDGET_RENDERER]:
        assert (exported[0].parent / source).is_file(), source


def test_exported_page_and_notebook_hold_no_api_key(exported: tuple[Path, list[str], str]) -> None:
    """The sandbox key the kernel used is in neither the executed notebook nor its page."""
    page, keys, notebook = exported
    html = page.read_text(encoding="utf-8")
    assert len(keys) == 1 and KEY_LIKE.fullmatch(keys[0])
    assert keys[0] not in html and keys[0] not in notebook
    # The client's settings table is on the page, its key row masked.
    masked = re.findall(r"api_key</th><td[^>]*>([^<]*)</td>", html)
    assert masked and all(set(value) == {"*"} for value in masked)


def test_export_refuses_a_notebook_that_shows_a_key(tmp_path: Path) -> None:
    """An output holding a sandbox key makes the export fail instead of writing the page."""
    notebook = _write_notebook(
        tmp_path / "leak.ipynb", "import smskit\nsandbox = smskit.Sandbox()\nprint(sandbox.api_key)"
    )
    with pytest.raises(exporter.SecretLeakError):
        exporter.export(notebook, tmp_path / "site")
    assert not (tmp_path / "site" / "leak.html").exists()


def _outputs_text(path: Path) -> str:
    nb = json.loads(path.read_text(encoding="utf-8"))
    outputs = [o for cell in nb["cells"] for o in cell.get("outputs", [])]
    return json.dumps(_without_arrays(outputs)) + json.dumps(_without_arrays(nb["metadata"]))


def _without_arrays(value: Any) -> Any:
    """``value`` without plotly's base64 number arrays (``{"dtype": ..., "bdata": ...}``):
    bytes of floats, whose base64 can hold a 32-character run of letters and digits that
    is no key (a figure of notebook 07's did)."""
    if isinstance(value, dict):
        if set(value) >= {"dtype", "bdata"}:
            return {key: item for key, item in value.items() if key != "bdata"}
        return {key: _without_arrays(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_without_arrays(item) for item in value]
    return value


def test_plotly_number_arrays_are_not_read_as_keys() -> None:
    """The scan skips a figure's base64 number array (bytes of floats) but still sees a key
    written anywhere else in the same output."""
    key = Sandbox().api_key
    array = {"dtype": "f8", "bdata": "mKtvbU59tj8AAAAAAAAoQAAAAAAAAG5A"}
    outputs = [{"data": {"y": array}}, {"text": f"key {key}"}]
    text = json.dumps(_without_arrays(outputs))
    assert [t for t in KEY_LIKE.findall(text) if _looks_like_key(t)] == [key]


def test_key_pattern_finds_a_sandbox_key() -> None:
    """The pattern the stored-notebook scan uses matches the keys a Sandbox makes."""
    keys = [Sandbox().api_key for _ in range(200)]
    assert all(KEY_LIKE.search(f"api-key: {key}.") for key in keys)
    assert all(_looks_like_key(key) for key in keys)


def _looks_like_key(token: str) -> bool:
    # Hex request ids and widget model ids share the length; keys mix upper and lower case
    # (a 32-character URL-safe key lacks a digit, '-' and '_' one time in 750: not asked).
    return (
        re.fullmatch(r"[0-9a-f]{32}", token) is None
        and any(c.isupper() for c in token)
        and any(c.islower() for c in token)
    )


@pytest.mark.parametrize(
    "notebook", sorted((REPO / "notebooks").glob("*.ipynb")), ids=lambda path: path.name
)
def test_stored_notebook_holds_no_api_key(notebook: Path) -> None:
    """No output or metadata of a committed notebook holds anything shaped like an API key."""
    text = _outputs_text(notebook)
    assert [t for t in KEY_LIKE.findall(text) if _looks_like_key(t)] == []
    assert re.search(r"api[-_]key['\"]?\s*[:=]\s*['\"]?(?!\*)[A-Za-z0-9_-]{8}", text) is None
