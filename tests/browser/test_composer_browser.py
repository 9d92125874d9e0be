"""The composer in a real JupyterLab and a real chromium: the live panel follows the keyboard."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from browser._chromium import ALL_EXECUTED, NOTEBOOK_READY

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTEBOOK = "03-compose-personalised-campaign.ipynb"
REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "build"
# 94 characters with one curly apostrophe: UCS-2 needs 2 segments (70 units at most), GSM-7 one.
TYPED = (
    "Salut {first_name}, c’est la rentrée : -30 % sur les cartables jusqu'à dimanche. STOP au 36173"
)
WAIT_MS = 30_000


def _loopback_only(route: Any) -> None:
    """Let the page reach the local JupyterLab only (no fonts, news or CDN from outside)."""
    host = urlsplit(route.request.url).hostname
    if host in ("127.0.0.1", "localhost") or route.request.url.startswith(("data:", "blob:")):
        route.continue_()
    else:
        route.abort()


@pytest.fixture
def notebook_page(lab: Any, browser: Any) -> Iterator[Any]:
    """The composer notebook open in JupyterLab, its kernel session created through the API."""
    session = lab.open_session(NOTEBOOK)
    context = browser.new_context(viewport={"width": 1300, "height": 1600})
    context.route("**/*", _loopback_only)
    page = context.new_page()
    try:
        page.goto(f"{lab.url}/lab/tree/{NOTEBOOK}?reset&token={lab.token}")
        page.wait_for_function(NOTEBOOK_READY, timeout=WAIT_MS)
        yield page
    finally:
        context.close()
        lab.api("DELETE", f"/api/sessions/{session['id']}")


def test_composer_switches_to_ucs2_and_back_in_the_browser(notebook_page: Any) -> None:
    """Run all cells; typing a curly quote makes the panel say UCS-2 with 2 segments, and the
    "optimise text" button brings it back to GSM-7 with 1 segment (screenshots in build/)."""
    from playwright.sync_api import expect

    page = notebook_page
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_function(ALL_EXECUTED, timeout=60_000, polling=250)

    composer = page.locator(".smskit-composer").first
    encoding = composer.locator(".smskit-encoding")
    segments = composer.locator(".smskit-segments")
    # the notebook's own cells optimised the text: GSM-7, one segment
    expect(encoding).to_contain_text("GSM-7", timeout=WAIT_MS)
    expect(segments).to_have_text("1 segment")
    expect(composer.get_by_role("button", name="send")).to_be_enabled()

    box = composer.get_by_label("message text")
    box.scroll_into_view_if_needed()
    box.fill("")
    # an empty text sends nobody: no one to send, no SMS, no one counted excluded
    expect(composer.locator(".smskit-to-send")).to_have_text("—", timeout=WAIT_MS)
    expect(composer.locator(".smskit-sms")).to_have_text("—")
    expect(composer.locator(".sk-summary small").first).not_to_contain_text("excluded")
    box.press_sequentially(TYPED)
    expect(box).to_have_value(TYPED)
    expect(encoding).to_contain_text("UCS-2", timeout=WAIT_MS)
    expect(segments).to_have_text("2 segments")
    expect(composer.locator(".smskit-forcing")).to_contain_text("U+2019")
    # the curly apostrophe is marked in place, behind the editor's text
    expect(composer.locator(".sk-backdrop mark")).to_have_text("’")
    BUILD.mkdir(exist_ok=True)
    composer.screenshot(path=BUILD / "composer-ucs2.png")

    optimise = composer.get_by_role("button", name="optimise text")
    expect(optimise).to_be_enabled()
    optimise.click()
    expect(encoding).to_contain_text("GSM-7", timeout=WAIT_MS)
    expect(segments).to_have_text("1 segment")
    expect(box).to_have_value(TYPED.replace("’", "'"))
    expect(optimise).to_be_disabled()
    composer.screenshot(path=BUILD / "composer.png")

    # the editor grows with its text, all of it in view, and shrinks back when it is erased
    area = box.element_handle()
    short = area.evaluate("a => a.offsetHeight")
    box.fill(TYPED + "\n" * 12 + "fin")
    page.wait_for_function(
        "([a, h]) => a.offsetHeight > h + 100 && a.scrollHeight <= a.clientHeight",
        arg=[area, short], timeout=WAIT_MS,
    )  # fmt: skip
    box.fill(TYPED)
    page.wait_for_function("([a, h]) => a.offsetHeight === h", arg=[area, short], timeout=WAIT_MS)
    assert (BUILD / "composer.png").stat().st_size > 10_000
