"""Every example notebook, exported as ``make demo`` exports it, opened from disk in chromium.

Each notebook is executed and written by ``notebooks/_export/export_notebooks.py`` into
``build/pages/`` (``build/pages/gw0/``... under pytest-xdist); its page is opened as a user
opens it (``file://``) in Debian's chromium with every non-file request aborted. A page
passes when no request failed, nothing was logged as an error, every plot and widget
rendered, and no output is cut off; a screenshot of each page (scrollbars shown) is kept in
``build/screenshots/``. Page-specific checks follow the notebooks' text: the composer shown
where the text says UCS-2 is UCS-2, shares read as percentages, the credits map shows
Europe, reply times carry the Paris offset.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from browser._chromium import CHROMIUM, CHROMIUM_FLAGS
from browser._exporter import exporter
from browser.conftest import CHECKOUT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
# Under pytest-xdist each worker exports into its own folder (build/pages/gw0/, ...): the
# first export writes the pages' shared scripts, which another worker's page may be loading.
PAGES = REPO / "build" / "pages" / os.environ.get("PYTEST_XDIST_WORKER", "")
SCREENSHOTS = REPO / "build" / "screenshots"
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
WAIT_MS = 120_000  # a bound for a heavy page on a busy 2-core machine, not a timing check

_RENDERED = """() => {
  const views = [...document.querySelectorAll(
    'script[type="application/vnd.jupyter.widget-view+json"]')];
  const widgets = views.every(view => view.parentElement.querySelector('.widget-subarea > *'));
  const plots = document.querySelectorAll('.js-plotly-plot .main-svg').length
    >= document.querySelectorAll('.jp-OutputArea-output .plotly-graph-div').length;
  return widgets && plots;
}"""
# Outputs wider than their box, and whether their right edge can be scrolled into view.
_CUT_OFF = """() => [...document.querySelectorAll('.jp-OutputArea-output')]
  .filter(output => output.scrollWidth > output.clientWidth + 1)
  .filter(output => {
    output.scrollLeft = output.scrollWidth;
    const reached = output.scrollLeft + output.clientWidth >= output.scrollWidth - 1;
    output.scrollLeft = 0;
    return !reached;
  })
  .map(output => output.innerText.slice(0, 80))"""


# Plots whose legend box covers a text of the plot (a tick label, an axis title): in JupyterLab
# the ledger's legend under the plot hid the date of its time axis, the send-time legend the
# right axis's title. Checked at the page's size, then at the size JupyterLab draws a figure
# in a notebook of a 1400-pixel window (950 x 360: the page's 450-pixel height left room).
_LEGEND_OVER_TEXT = """() => [...document.querySelectorAll('.js-plotly-plot')].flatMap(plot => {
  const box = element => element.getBoundingClientRect();
  const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom
    && b.top < a.bottom;
  const legends = [...plot.querySelectorAll('g.legend rect.bg')].map(box);
  const texts = [...plot.querySelectorAll('svg text')].filter(t => !t.closest('g.legend'))
    .filter(t => box(t).width > 0 && box(t).height > 0);
  const covered = texts.filter(t => legends.some(legend => meet(legend, box(t))));
  const title = (plot._fullLayout.title || {}).text || '(untitled)';
  return covered.map(t => `${title}: ${t.textContent}`);
})"""
_LAB_SIZE = """() => Promise.all([...document.querySelectorAll('.js-plotly-plot')]
  .map(plot => window.Plotly.relayout(plot, {width: 950, height: 360})))"""


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Debian's headless chromium through Playwright, scrollbars shown in screenshots."""
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs it (apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=list(CHROMIUM_FLAGS),
            ignore_default_args=["--hide-scrollbars"],
        )
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Page:
    """An exported page open in chromium, and what went wrong while it loaded."""

    name: str
    tab: Any
    problems: dict[str, list[str]] = field(
        default_factory=lambda: {"failed": [], "errors": [], "remote": []}
    )


def _open(chromium: Any, notebook: Path) -> tuple[Page, Any]:
    """Export ``notebook``, open its page from disk, wait until it rendered, screenshot it."""
    exporter.export(notebook, PAGES)
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = Page(notebook.stem, context.new_page())
    problems = page.problems

    def local_only(route: Any) -> None:
        if route.request.url.startswith(("file://", "data:", "blob:")):
            route.continue_()
        else:
            problems["remote"].append(route.request.url)
            route.abort()

    page.tab.route("**/*", local_only)
    page.tab.on("requestfailed", lambda r: problems["failed"].append(f"{r.url} {r.failure}"))
    page.tab.on(
        "console", lambda m: problems["errors"].append(m.text) if m.type == "error" else None
    )
    page.tab.on("pageerror", lambda error: problems["errors"].append(str(error)))
    page.tab.goto((PAGES / f"{notebook.stem}.html").as_uri())
    # "load", then the rendered check: a page whose widgets keep a connection open never
    # reaches "networkidle"; failed requests are collected by the listener all along.
    page.tab.wait_for_load_state("load", timeout=WAIT_MS)
    page.tab.wait_for_function(_RENDERED, timeout=WAIT_MS, polling=250)
    page.tab.evaluate("document.fonts.ready")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.tab.screenshot(path=SCREENSHOTS / f"{notebook.stem}.png", full_page=True)
    return page, context


@pytest.fixture(scope="module")
def pages(chromium: Any) -> Iterator[Callable[[Path], Page]]:
    """Opens each notebook's page once, whatever order the tests run in (pytest-randomly).
    The notebooks' kernels import smskit from this checkout (as JupyterLab's and marimo's do
    in the other browser tests), not the one the venv was installed from."""
    opened: dict[Path, tuple[Page, Any]] = {}
    checkout = pytest.MonkeyPatch()
    for name, value in CHECKOUT.items():
        checkout.setenv(name, value)

    def page(notebook: Path) -> Page:
        if notebook not in opened:
            opened[notebook] = _open(chromium, notebook)
        return opened[notebook][0]

    try:
        yield page
    finally:
        checkout.undo()
        for _, context in opened.values():
            context.close()


each_notebook = pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)


@each_notebook
def test_page_loads_with_no_failed_request_and_no_console_error(
    pages: Callable[[Path], Page], notebook: Path
) -> None:
    """Every file the page asks for exists, nothing remote is asked, no error is logged."""
    page = pages(notebook)
    assert page.problems == {"failed": [], "errors": [], "remote": []}
    assert (SCREENSHOTS / f"{page.name}.png").stat().st_size > 10_000


@each_notebook
def test_no_output_is_cut_off(pages: Callable[[Path], Page], notebook: Path) -> None:
    """An output wider than the page (a wide table) scrolls to its right edge."""
    assert pages(notebook).tab.evaluate(_CUT_OFF) == []


@each_notebook
def test_no_legend_covers_a_label(pages: Callable[[Path], Page], notebook: Path) -> None:
    """No plot's legend lies over one of its texts (tick labels, axis titles), at the page's
    size nor at JupyterLab's (the page is resized back after)."""
    tab = pages(notebook).tab
    assert tab.evaluate(_LEGEND_OVER_TEXT) == []
    try:
        tab.evaluate(_LAB_SIZE)
        assert tab.evaluate(_LEGEND_OVER_TEXT) == []
    finally:
        tab.evaluate(
            "() => Promise.all([...document.querySelectorAll('.js-plotly-plot')]"
            ".map(plot => window.Plotly.relayout(plot, {width: null, height: null})))"
        )


@each_notebook
def test_button_icons_use_a_loaded_icon_font(pages: Callable[[Path], Page], notebook: Path) -> None:
    """Widget buttons with an icon draw it with Font Awesome, and that font file loaded; 03's
    exported Composer draws its four action buttons."""
    page = pages(notebook)
    name, tab = page.name, page.tab
    icons = tab.locator(".widget-button i.fa")
    if name.startswith("03-"):  # the Composer (anywidget) draws labelled buttons, no icon font
        actions = tab.locator(".smskit-composer button[data-action]")
        drawn = {actions.nth(i).get_attribute("data-action") for i in range(actions.count())}
        assert {"optimize", "stop", "estimate", "send"} <= drawn
    fonts = tab.evaluate(
        "() => [...document.fonts].filter(f => f.family.includes('Font Awesome 5 Free'))"
        ".map(f => f.status)"
    )
    if icons.count():
        assert "loaded" in fonts
        assert "error" not in fonts


@each_notebook
def test_page_tells_what_its_text_says(pages: Callable[[Path], Page], notebook: Path) -> None:
    """03: the composer under "UCS-2" text shows UCS-2 and the one after the send its result,
    the explorer its numbers, the dashboard its balance, credits table and map (its last
    state, not a blank box);
    02 and 05: shares and rates as percentages; 04: the map shows Europe; 05: Paris times;
    07: each arm's reply rate with its interval as percentages, B's difference significant,
    the arms figure in three panels, the ledger equal to outcomes and compare()."""
    page = pages(notebook)
    name, tab = page.name, page.tab
    text = tab.locator("body").inner_text()
    if name.startswith(("02-", "05-")):
        assert re.search(r"\b[01]\.\d{6}\b", text) is None, "a share printed as a fraction"
    if name.startswith("03-"):
        composers = tab.locator(".smskit-composer")
        assert composers.count() >= 2
        first, last = composers.first, composers.last
        assert "UCS-2" in first.locator(".smskit-encoding").inner_text()
        assert "Campaign complete" not in first.inner_text()
        assert "GSM-7" in last.locator(".smskit-encoding").inner_text()
        assert "sent: 11" in last.inner_text()
        explorer = tab.locator(".smskit-hlr-explorer")
        assert "+33612345678" in explorer.get_by_label("numbers to check").input_value()
        assert explorer.get_by_role("button", name="check").is_visible()
        # The dashboard (anywidget) draws its saved state: balance, credits, the map's countries.
        dashboard = tab.locator(".smskit-dashboard")
        assert "EUR" in dashboard.locator(".smskit-account-balance").inner_text()
        assert dashboard.locator(".smskit-credits tbody tr").count() > 200
        assert dashboard.locator(".smskit-map path.sk-country").count() > 20
    if name.startswith("02-"):
        assert re.search(r"\b70\.4%", text)
    if name.startswith("04-"):
        scopes = tab.evaluate(
            "() => [...document.querySelectorAll('.js-plotly-plot')]"
            ".filter(plot => plot._fullLayout.geo).map(plot => plot._fullLayout.geo.scope)"
        )
        # The notebook maps the credits of every served country (244, all continents), so the
        # automatic scope is the account's continent (Europe/Paris), not the world.
        assert scopes == ["europe"]
    if name.startswith("05-"):
        times = re.findall(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}([+-]\d{2}:\d{2})", text)
        assert times and set(times) <= {"+01:00", "+02:00"}
    if name.startswith("07-"):
        # "the rate with its 95 % Wilson interval", as percentages (table cells: tabs)
        assert re.search(r"B\s+replied\s+53\s+240\s+22\.1%\s+17\.3%\s+27\.7%", text)
        assert re.search(r"B\s+A\s+replied\s+10\.1%\s+0\.003669\s+0\.003669\s+True", text)
        panels = tab.evaluate(
            "() => [...document.querySelectorAll('.js-plotly-plot')]"
            ".map(plot => (plot._fullLayout.annotations || []).map(a => a.text))"
            ".find(texts => texts.includes('Replied'))"
        )
        assert panels is not None and {"Delivered", "Replied", "Opted out"} <= set(panels)
        assert "arm B: sent 240 = 240, delivered 200 = 200, replies 53 = 53" in text
