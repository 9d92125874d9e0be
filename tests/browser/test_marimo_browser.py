"""The Composer in marimo (``notebooks/marimo_compose.py``), served headless by ``marimo run``
on 127.0.0.1 and driven in Debian's chromium with every request off the
loopback aborted: typing, every button, the confirmation by keyboard and a real send to the
notebook's sandbox; the cells that read the widget follow it.

Screenshots land in ``build/marimo-*.png``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browser.conftest import loopback_page, marimo_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "build"
NOTEBOOK = REPO / "notebooks" / "marimo_compose.py"
WAIT_MS = 60_000  # a bound for a busy 2-core machine, not a timing check
TYPED = "Salut {first_name}, c’est la rentrée : -30 % sur les cartables jusqu'à dimanche."


@pytest.fixture
def marimo_run(tmp_path: Path) -> Iterator[str]:
    """``marimo run`` of the notebook (an app: its cells run for each page)."""
    yield from marimo_server("run", NOTEBOOK, tmp_path)


def test_composer_in_marimo_run_types_estimates_and_sends(browser: Any, marimo_run: str) -> None:
    """In ``marimo run``: a curly quote makes it UCS-2 (marked in place), optimise brings GSM-7,
    the STOP button and purpose follow the rules, estimate shows the cost in EUR, Cancel by
    keyboard sends nothing, Confirm sends to 7 recipients and the Python cells follow."""
    from playwright.sync_api import expect

    context, page, aborted = loopback_page(browser, marimo_run)
    try:
        composer = page.locator(".smskit-composer")
        expect(composer).to_be_visible(timeout=WAIT_MS)
        encoding = composer.locator(".smskit-encoding")
        expect(encoding).to_have_text("UCS-2", timeout=WAIT_MS)
        box = composer.get_by_label("message text")
        box.fill("")
        box.press_sequentially(TYPED)
        expect(composer.locator(".smskit-characters")).to_have_text(
            f"{len(TYPED)} characters", timeout=WAIT_MS
        )
        expect(composer.locator(".sk-backdrop mark")).to_have_text("’")
        # The cell that reads composer.value re-runs when the front end changes it (typing).
        expect(page.get_by_text("UCS-2 in 2 segment(s); ready to send: False")).to_be_visible(
            timeout=WAIT_MS
        )
        send = composer.get_by_role("button", name="send", exact=True)
        expect(send).to_be_disabled()
        expect(composer.locator(".smskit-why")).to_contain_text("stop:")
        BUILD.mkdir(exist_ok=True)
        composer.screenshot(path=BUILD / "marimo-composer-ucs2.png")

        composer.get_by_role("button", name="optimise text").click()
        expect(encoding).to_have_text("GSM-7", timeout=WAIT_MS)
        expect(box).to_have_value(TYPED.replace("’", "'"))
        composer.get_by_role("button", name="add STOP mention").click()
        expect(box).to_have_value(TYPED.replace("’", "'") + "\nSTOP au 36173", timeout=WAIT_MS)
        expect(send).to_be_enabled(timeout=WAIT_MS)

        composer.get_by_label("purpose").select_option("alert")
        expect(composer.get_by_role("button", name="add STOP mention")).to_be_disabled(
            timeout=WAIT_MS
        )
        composer.get_by_label("purpose").select_option("wholesale")
        composer.get_by_label("with_replies").check()
        composer.get_by_label("with_replies").uncheck()
        composer.get_by_label("type").select_option("")

        composer.get_by_role("button", name="estimate cost").click()
        expect(composer.locator(".smskit-message")).to_contain_text(
            "estimate: 7 SMS", timeout=WAIT_MS
        )
        expect(composer.locator(".smskit-cost")).to_contain_text("EUR")

        send.click()
        confirmation = composer.locator(".smskit-confirm")
        expect(confirmation).to_contain_text("Send 7 message(s), 7 SMS", timeout=WAIT_MS)
        confirmation.get_by_role("button", name="Confirm").focus()
        page.keyboard.press("Escape")  # Escape in the confirmation: nothing sent
        expect(confirmation).to_be_hidden(timeout=WAIT_MS)
        send.click()
        expect(confirmation).to_be_visible(timeout=WAIT_MS)
        composer.get_by_role("button", name="Cancel").click()
        expect(confirmation).to_be_hidden(timeout=WAIT_MS)
        send.click()
        composer.get_by_role("button", name="Confirm").click()
        expect(composer.locator(".smskit-message")).to_contain_text(
            "sent: 7, already accepted: 0", timeout=WAIT_MS
        )
        expect(composer.locator(".smskit-cost")).to_contain_text("EUR")
        expect(page.get_by_text("marimo-sale.journal.sqlite").first).to_be_visible(timeout=WAIT_MS)
        composer.screenshot(path=BUILD / "marimo-composer.png")
        assert aborted == []
    finally:
        context.close()
