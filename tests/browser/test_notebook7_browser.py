"""The Composer in Notebook 7 (``jupyter notebook``, the classic notebook interface on
JupyterLab's components) and a real chromium, every request off the loopback aborted: the
anywidget renders from the package's ES module, typing is followed, a button works.

A screenshot lands in ``build/notebook7-composer.png``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest

from browser.conftest import loopback_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "build"
WAIT_MS = 60_000  # a bound for a busy 2-core machine, not a timing check
NAME = "notebook7-composer.ipynb"
CELLS = (
    "import smskit\n"
    "sandbox = smskit.Sandbox(seed=5).start()\n"
    "client = smskit.Client(sandbox=sandbox)",
    "composer = smskit.Composer(client, ['+33612345678', '+33612345679'], sender='MyShop',\n"
    "                           text='Bonjour, -20 % ce week-end ! STOP au 36173')\n"
    "composer",
    "smskit.Composer(client, [], sender='MyShop', text='Bonjour ! STOP au 36173')",
)
TYPED = "Bonjour, l’été arrive ! STOP au 36173"


def test_composer_renders_types_and_optimises_in_notebook7(notebook7: Any, browser: Any) -> None:
    """In Notebook 7: the Composer draws (meter, phone bubbles, labelled buttons); a curly
    apostrophe typed makes it UCS-2, marked in place; "optimise text" brings GSM-7 back, then
    says why it is disabled (as "add STOP mention" does); a
    Composer given no recipient says so in its phone and its disabled send."""
    from playwright.sync_api import expect

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    nbformat.write(notebook, notebook7.root / NAME)
    session = notebook7.open_session(NAME)
    context, page, aborted = loopback_page(
        browser, f"{notebook7.url}/notebooks/{NAME}?token={notebook7.token}"
    )
    try:
        # As a user runs it: Shift+Enter in each cell (the kernel was started with the session).
        cells = page.locator(".jp-Notebook .jp-CodeCell")
        expect(cells).to_have_count(len(CELLS), timeout=2 * WAIT_MS)
        # As a user waits for the toolbar to name the kernel: Shift+Enter pressed while it
        # still said "No Kernel" ran nothing (the prompt stayed "[ ]" on a loaded machine).
        expect(page.locator(".jp-KernelName")).to_have_text(
            "Python 3 (ipykernel)", timeout=2 * WAIT_MS
        )
        expect(page.locator(".jp-Notebook-ExecutionIndicator")).to_have_attribute(
            "data-status", "idle", timeout=2 * WAIT_MS
        )
        cells.first.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        expect(cells.first.locator(".jp-InputPrompt")).to_contain_text("[1]", timeout=2 * WAIT_MS)
        page.keyboard.press("Shift+Enter")
        composer = page.locator(".smskit-composer").first
        expect(composer).to_be_visible(timeout=WAIT_MS)
        encoding = composer.locator(".smskit-encoding")
        expect(encoding).to_have_text("GSM-7", timeout=WAIT_MS)
        expect(composer.locator(".sk-bubble")).to_have_count(2)
        box = composer.get_by_label("message text")
        box.fill(TYPED)
        expect(encoding).to_have_text("UCS-2", timeout=WAIT_MS)
        expect(composer.locator(".sk-backdrop mark").first).to_be_visible()
        optimise = composer.get_by_role("button", name="optimise text")
        expect(optimise).to_have_accessible_description(
            "Replace look-alike characters and useless spacing"
        )
        optimise.click()
        expect(encoding).to_have_text("GSM-7", timeout=WAIT_MS)
        expect(box).to_have_value(TYPED.replace("’", "'"))
        # Disabled now: the button itself says why (its title, its accessible description).
        expect(optimise).to_be_disabled()
        expect(optimise).to_have_accessible_description(
            "optimise text is disabled: nothing to optimise: no look-alike character or useless"
            " spacing"
        )
        expect(
            composer.get_by_role("button", name="add STOP mention")
        ).to_have_accessible_description(
            "add STOP mention is disabled: the text has a STOP mention"
        )
        BUILD.mkdir(exist_ok=True)
        composer.screenshot(path=BUILD / "notebook7-composer.png")
        # A table of no row: the phone and the send button say there is nobody to send to.
        cells.nth(2).locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        nobody = page.locator(".smskit-composer").nth(1)
        expect(nobody.locator(".sk-phone h3")).to_have_text("no recipients", timeout=WAIT_MS)
        expect(nobody.locator(".smskit-why")).to_have_text(
            "send is disabled: recipients: no recipients: the recipients given have no row"
        )
        expect(nobody.get_by_role("button", name="send", exact=True)).to_be_disabled()
        assert aborted == []
    finally:
        context.close()
        notebook7.api("DELETE", f"/api/sessions/{session['id']}")
