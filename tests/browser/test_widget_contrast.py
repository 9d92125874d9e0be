"""Every text of the Composer, the HLR explorer and the dashboard is readable in JupyterLab's
and marimo's light and dark themes: WCAG AA contrast (4.5:1, 3:1 for large text) against the
background it is drawn on, read from the page after "Run all" of notebook 03 (the findings'
badges, the excluded recipients' notes, the explorer's table and bars, the dashboard's notes
on show) and from ``marimo run`` of ``notebooks/marimo_compose.py``.

Screenshots of each widget in the dark theme land in ``build/dark-*.png``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browser._chromium import ALL_EXECUTED, NOTEBOOK_READY
from browser.conftest import loopback_page, marimo_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTEBOOK = "03-compose-personalised-campaign.ipynb"
MARIMO = Path(__file__).resolve().parents[2] / "notebooks" / "marimo_compose.py"
COPY = "contrast-03.ipynb"
BUILD = Path(__file__).resolve().parents[2] / "build"
WAIT_MS = 60_000  # a bound for a busy 2-core machine, not a timing check
WIDGETS = (".smskit-composer", ".smskit-hlr-explorer", ".smskit-dashboard")

# The texts of a widget whose contrast with the background under them is below WCAG AA, as
# "text (ratio: colour on background)". The background is the nearest opaque one up the tree,
# with the translucent ones above it blended in; a translucent text colour is blended too.
# Left out: what is not drawn (hidden, transparent, aria-hidden), disabled controls (WCAG
# exempts them) and the options of a closed menu (the menu's own text is checked).
_LOW_CONTRAST = """(root) => {
  const rgba = (css) => {
    let m = css.match(/^rgba?\\(([^)]+)\\)$/);
    if (m) {
      const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
      return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
    }
    m = css.match(/^color\\(srgb ([^)]+)\\)$/);
    if (m) {
      const p = m[1].split(/[ \\/]+/).filter(Boolean).map(Number);
      return { r: p[0] * 255, g: p[1] * 255, b: p[2] * 255, a: p.length > 3 ? p[3] : 1 };
    }
    throw new Error(`unread colour ${css}`);
  };
  const over = (top, under) => ({
    r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a),
    b: top.b * top.a + under.b * (1 - top.a), a: 1,
  });
  const background = (node) => {
    const layers = [];
    for (let n = node; n; n = n.parentElement) {
      const c = rgba(getComputedStyle(n).backgroundColor);
      if (c.a > 0) layers.push(c);
      if (c.a >= 1) break;
    }
    let colour = { r: 255, g: 255, b: 255, a: 1 };
    if (layers.length && layers[layers.length - 1].a >= 1) colour = layers.pop();
    while (layers.length) colour = over(layers.pop(), colour);
    return colour;
  };
  const luminance = ({ r, g, b }) => {
    const f = (v) => (v /= 255) <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const low = [];
  const check = (node, text) => {
    const style = getComputedStyle(node);
    const fg = rgba(style.color);
    if (fg.a === 0 || style.visibility === "hidden") return;
    const bg = background(node);
    const [a, b] = [luminance(over(fg, bg)), luminance(bg)];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const size = parseFloat(style.fontSize), bold = Number(style.fontWeight) >= 700;
    const needed = size >= 24 || (size >= 18.66 && bold) ? 3 : 4.5;
    if (ratio < needed) {
      const rgb = `rgb(${[bg.r, bg.g, bg.b].map(Math.round).join(", ")})`;
      low.push(`${text.slice(0, 40)} (${ratio.toFixed(2)}: ${style.color} on ${rgb})`);
    }
  };
  const skipped = (el) => !el.offsetParent || el.closest("[aria-hidden=true], select, svg")
    || el.closest("button:disabled, input:disabled, select:disabled, textarea:disabled");
  const seen = new Set();
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const el = walker.currentNode.parentElement;
    if (!walker.currentNode.data.trim() || seen.has(el) || skipped(el)) continue;
    seen.add(el);
    check(el, walker.currentNode.data.trim());
  }
  for (const control of root.querySelectorAll("input, textarea, select")) {
    if (control.offsetParent && !control.disabled && control.type !== "checkbox") {
      check(control, control.value || control.getAttribute("aria-label") || control.id);
    }
  }
  return low;
}"""


@pytest.fixture
def notebook(lab: Any, browser: Any) -> Iterator[Any]:
    """Notebook 03 open in JupyterLab after "Run all", its explorer's check drawn. Opened
    without the widget state it was saved with: JupyterLab restores that state's models as the
    notebook opens, and one restored after "Run all" made the live ones puts its saved
    stylesheet back (one per widget class, the last loaded wins); this test is about the
    stylesheets of this checkout."""
    from playwright.sync_api import expect

    nb = json.loads((lab.root / NOTEBOOK).read_text(encoding="utf-8"))
    nb["metadata"].pop("widgets", None)
    (lab.root / COPY).write_text(json.dumps(nb), encoding="utf-8")
    session = lab.open_session(COPY)
    context, page, aborted = loopback_page(
        browser, f"{lab.url}/lab/tree/{COPY}?reset&token={lab.token}"
    )
    try:
        page.wait_for_function(NOTEBOOK_READY, timeout=WAIT_MS)
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        page.wait_for_function(ALL_EXECUTED, timeout=120_000, polling=250)
        # the explorer's view is drawn again when the next cell's check() ends
        charts = page.locator(".smskit-hlr-explorer .smskit-chart")
        expect(charts).to_have_count(2, timeout=WAIT_MS)
        yield page
        assert aborted == []
    finally:
        context.close()
        lab.api("DELETE", f"/api/sessions/{session['id']}")


def _theme(page: Any, theme: str, light: bool) -> None:
    """Switch JupyterLab to ``theme`` and wait until the widgets are drawn in it (the text
    colour of the Composer is dark in a light theme, light in a dark one)."""
    page.evaluate(
        "(theme) => window.jupyterapp.commands.execute('apputils:change-theme', {theme})", theme
    )
    page.wait_for_function(
        """(light) => {
          const composer = document.querySelector('.smskit-composer');
          const rgb = getComputedStyle(composer).color.match(/[0-9.]+/g).map(Number);
          return document.body.dataset.jpThemeLight === String(light)
            && (rgb[0] + rgb[1] + rgb[2] < 3 * 128) === light;
        }""",
        arg=light,
        timeout=WAIT_MS,
    )


@pytest.mark.parametrize(
    ("theme", "light"), [("JupyterLab Light", True), ("JupyterLab Dark", False)]
)
def test_every_widget_text_is_readable_in_light_and_dark_themes(
    notebook: Any, theme: str, light: bool
) -> None:
    """In JupyterLab's light and dark themes, no text of the three widgets (labels, figures,
    badges of each group of findings, excluded recipients' notes, the explorer's table and
    legend, the dashboard's notes, the inputs' values) is below WCAG AA contrast."""
    page = notebook
    _theme(page, theme, light)
    BUILD.mkdir(exist_ok=True)
    # what the walk must have reached, or the check would pass on an empty page
    composer = page.locator(".smskit-composer").last
    assert composer.locator(".sk-group-warning .sk-badge").count() >= 1
    assert composer.locator(".sk-excluded .sk-meta").count() >= 1
    for selector in WIDGETS:
        widget = page.locator(selector).last
        widget.scroll_into_view_if_needed()
        low = page.evaluate(_LOW_CONTRAST, widget.element_handle())
        if not light:
            widget.screenshot(path=BUILD / f"dark-{selector.removeprefix('.smskit-')}.png")
        assert low == [], f"{selector} in {theme}"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_composer_text_is_readable_in_marimo_light_and_dark(
    browser: Any, tmp_path: Path, theme: str
) -> None:
    """In ``marimo run`` with marimo's light and dark themes, the Composer takes the theme's
    colours and none of its texts (the bubbles and the send button on the accent colour
    included) is below WCAG AA contrast."""
    from playwright.sync_api import expect

    for url in marimo_server("run", MARIMO, tmp_path, theme=theme):
        context, page, aborted = loopback_page(browser, url)
        try:
            composer = page.locator(".smskit-composer")
            expect(composer.locator(".sk-bubble").first).to_be_visible(timeout=WAIT_MS)
            expect(composer.get_by_role("button", name="send", exact=True)).to_be_enabled()
            # drawn in marimo's theme: light text on a dark theme, dark text on a light one
            rgb = page.evaluate(
                "(el) => getComputedStyle(el).color.match(/[0-9.]+/g).map(Number)",
                composer.element_handle(),
            )
            assert (sum(rgb[:3]) > 3 * 128) == (theme == "dark")
            low = page.evaluate(_LOW_CONTRAST, composer.element_handle())
            assert low == [], f"marimo {theme}"
            assert aborted == []
        finally:
            context.close()
