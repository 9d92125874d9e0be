"""The HLR explorer and the dashboard in marimo (``notebooks/marimo_account.py``), served
headless by ``marimo run`` on 127.0.0.1 and driven in Debian's chromium with every request
off the loopback aborted: every control of both widgets, reached by its label.

Screenshots land in ``build/marimo-*.png``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browser._composer import block_and_restore_sender_and_send_at
from browser.conftest import loopback_page, marimo_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "build"
NOTEBOOK = REPO / "notebooks" / "marimo_account.py"
WAIT_MS = 60_000  # a bound for a busy 2-core machine, not a timing check


@pytest.fixture
def marimo_run(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """``marimo run`` of the notebook; its URL and working directory (where a CSV lands)."""
    for url in marimo_server("run", NOTEBOOK, tmp_path):
        yield url, tmp_path


def test_explorer_and_dashboard_in_marimo_run(browser: Any, marimo_run: tuple[str, Path]) -> None:
    """In ``marimo run``: the explorer checks its numbers (each once; the check read back by a
    Python cell), both filters narrow the table and bars (a filter read back too), "export
    CSV" writes the filtered rows; the dashboard draws its balance, credits and map, and
    refresh asks again."""
    from playwright.sync_api import expect

    url, workdir = marimo_run
    context, page, aborted = loopback_page(browser, url)
    try:
        explorer = page.locator(".smskit-hlr-explorer")
        expect(explorer).to_be_visible(timeout=WAIT_MS)
        numbers = explorer.get_by_label("numbers to check")
        expect(numbers).to_have_value("+33612345678\n06 12 34 56 78\n+447400123456\n+4915123456789")
        export = explorer.get_by_role("button", name="export CSV")
        expect(export).to_be_disabled()
        explorer.get_by_role("button", name="check").click()
        expect(explorer.locator(".smskit-message")).to_contain_text(
            "3 number(s) checked (1 entry(ies) repeat a number", timeout=WAIT_MS
        )
        expect(explorer.locator(".smskit-progress-label")).to_have_text("3/3 numbers")
        # The Python cell reading the explorer runs again after the press (it kept saying
        # "4 number(s) to check" until a filter changed).
        expect(page.get_by_text("HLRExplorer(3 checked: ")).to_be_visible(timeout=WAIT_MS)
        table = explorer.locator("table")
        expect(table.locator("tbody tr")).to_have_count(4)  # DE, FR, GB and the total
        expect(explorer.locator(".smskit-chart")).to_have_count(2)
        expect(export).to_be_enabled()

        explorer.get_by_label("country", exact=True).select_option("GB")
        expect(table.locator("tbody tr")).to_have_count(2, timeout=WAIT_MS)
        # The Python cell that reads the widget follows the filter the front end set.
        expect(page.get_by_text("filters: GB / (all)")).to_be_visible(timeout=WAIT_MS)
        status = explorer.get_by_label("line_status", exact=True)
        status.select_option("live")
        expect(table.locator("tbody tr").last.locator("td").last).to_have_text("1", timeout=WAIT_MS)
        explorer.get_by_label("CSV file").fill("gb.csv")
        export.click()
        written = workdir / "gb.csv"
        expect(explorer.locator(".smskit-message")).to_contain_text(
            f"1 row(s) written to {written}", timeout=WAIT_MS
        )
        assert written.read_text().count("\n") == 2  # the header and the GB number
        # Editing the numbers forgets the check: no table, export disabled.
        numbers.fill("+33612345678")
        expect(export).to_be_disabled(timeout=WAIT_MS)
        expect(table).to_have_count(0)
        BUILD.mkdir(exist_ok=True)
        explorer.screenshot(path=BUILD / "marimo-hlr-explorer.png")

        dashboard = page.locator(".smskit-dashboard")
        dashboard.scroll_into_view_if_needed()
        expect(dashboard.locator(".smskit-account-balance")).to_contain_text("EUR")
        assert dashboard.locator(".smskit-credits tbody tr").count() > 200
        countries = dashboard.locator(".smskit-map path.sk-country")
        assert countries.count() > 20
        expect(dashboard.locator(".smskit-map")).to_contain_text("credits by country in Europe")
        balance = dashboard.locator(".smskit-account-balance")
        before = balance.inner_text()
        dashboard.get_by_role("button", name="refresh").click()
        # The check above spent credits after the dashboard was drawn: refresh shows it.
        expect(balance).not_to_have_text(before, timeout=WAIT_MS)
        dashboard.screenshot(path=BUILD / "marimo-dashboard.png")
        assert aborted == []
    finally:
        context.close()


COMPOSER = REPO / "notebooks" / "marimo_compose.py"
TYPED = "Salut {first_name}, c’est la rentrée : -30 % sur les cartables jusqu'à dimanche."


@pytest.fixture
def marimo_edit(tmp_path: Path) -> Iterator[str]:
    """``marimo edit`` of the Composer's notebook (the editor runs it when it opens)."""
    yield from marimo_server("edit", COMPOSER, tmp_path)


def test_composer_in_marimo_edit_types_and_presses_every_button(
    browser: Any, marimo_edit: str
) -> None:
    """In the ``marimo edit`` editor: typing a curly quote makes the Composer UCS-2 and the
    Python cell follows, as it follows optimise and add STOP; optimise, add STOP, the options
    (a bad sender or send_at blocks the send, saying why), estimate (the cost in EUR), Cancel
    and Confirm work; the send's result is shown."""
    from playwright.sync_api import expect

    context, page, aborted = loopback_page(browser, marimo_edit)
    try:
        composer = page.locator(".smskit-composer")
        expect(composer).to_be_visible(timeout=2 * WAIT_MS)
        encoding = composer.locator(".smskit-encoding")
        expect(encoding).to_have_text("UCS-2", timeout=WAIT_MS)
        box = composer.get_by_label("message text")
        box.fill(TYPED)
        expect(composer.locator(".sk-backdrop mark")).to_have_text("’", timeout=WAIT_MS)
        expect(page.get_by_text("UCS-2 in 2 segment(s); ready to send: False")).to_be_visible(
            timeout=WAIT_MS
        )
        send = composer.get_by_role("button", name="send", exact=True)
        expect(send).to_be_disabled()
        composer.get_by_role("button", name="optimise text").click()
        expect(encoding).to_have_text("GSM-7", timeout=WAIT_MS)
        # A press changes the widget from Python; the cell reading it follows (it kept
        # saying UCS-2 until the next keystroke).
        expect(page.get_by_text("GSM-7 in 1 segment(s); ready to send: False")).to_be_visible(
            timeout=WAIT_MS
        )
        composer.get_by_role("button", name="add STOP mention").click()
        expect(box).to_have_value(TYPED.replace("’", "'") + "\nSTOP au 36173", timeout=WAIT_MS)
        expect(send).to_be_enabled(timeout=WAIT_MS)
        expect(page.get_by_text("GSM-7 in 1 segment(s); ready to send: True")).to_be_visible(
            timeout=WAIT_MS
        )
        composer.get_by_label("purpose").select_option("alert")
        expect(composer.get_by_role("button", name="add STOP mention")).to_be_disabled(
            timeout=WAIT_MS
        )
        composer.get_by_label("purpose").select_option("wholesale")
        composer.get_by_label("with_replies").check()
        composer.get_by_label("with_replies").uncheck()
        composer.get_by_label("type").select_option("")
        composer.get_by_label("sender").fill("MyShop")
        block_and_restore_sender_and_send_at(composer, WAIT_MS)
        composer.get_by_role("button", name="estimate cost").click()
        expect(composer.locator(".smskit-cost")).to_contain_text("EUR", timeout=WAIT_MS)
        send.click()
        confirmation = composer.locator(".smskit-confirm")
        expect(confirmation).to_contain_text("Send 7 message(s)", timeout=WAIT_MS)
        confirmation.get_by_role("button", name="Cancel").click()
        expect(confirmation).to_be_hidden(timeout=WAIT_MS)
        send.click()
        confirmation.get_by_role("button", name="Confirm").click()
        expect(composer.locator(".smskit-message")).to_contain_text(
            "sent: 7, already accepted: 0", timeout=WAIT_MS
        )
        BUILD.mkdir(exist_ok=True)
        composer.screenshot(path=BUILD / "marimo-edit-composer.png")
        assert aborted == []
    finally:
        context.close()
