"""Every button of the Composer, the HLR explorer and the dashboard, clicked in a real JupyterLab
(chromium, every request off the loopback aborted) after "Run all" of notebook 03: the widgets
keep working on the notebook's sandbox, and the test reads what the user sees.

Screenshots of each widget land in ``build/live-*.png``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from browser._chromium import ALL_EXECUTED, NOTEBOOK_READY
from browser._composer import block_and_restore_sender_and_send_at

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTEBOOK = "03-compose-personalised-campaign.ipynb"
REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "build"
WAIT_MS = 60_000  # a bound for a busy 2-core machine, not a timing check
# Marketing text without a STOP mention, with a curly apostrophe (UCS-2 until optimised).
TYPED = "Salut {first_name}, c’est la rentrée : -30 % sur les cartables jusqu'à dimanche."
EDITED = "Salut {first_name}, dernier jour : -30 % sur les cartables !"

# For each table of a widget: the columns whose header text is neither left- nor right-aligned
# with the text of the cells under it (2 px tolerance), as "<header>: <cell>".
_MISALIGNED = """(root) => {
  const extent = (el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const box = range.getBoundingClientRect();
    return box.width > 0 ? box : null;
  };
  return [...root.querySelectorAll('table')].flatMap(table => {
    const heads = [...table.querySelectorAll('thead tr')];
    if (heads.length !== 1) return [`${heads.length} header rows`];
    const rows = [...table.querySelectorAll('tbody tr')].slice(0, 5);
    return [...heads[0].children].flatMap((th, i) => {
      const top = extent(th);
      if (!top) return [];
      return rows.flatMap(row => {
        const cell = row.children[i], under = cell && extent(cell);
        if (!under) return [];
        const left = Math.abs(top.left - under.left) <= 2;
        const right = Math.abs(top.right - under.right) <= 2;
        return left || right ? [] : [`${th.innerText}: ${cell.innerText}`];
      });
    });
  });
}"""


@pytest.fixture
def notebook(lab: Any, browser: Any) -> Iterator[tuple[Any, list[str]]]:
    """Notebook 03 open in JupyterLab after "Run all"; the requests aborted (off loopback)."""
    session = lab.open_session(NOTEBOOK)
    context = browser.new_context(viewport={"width": 1400, "height": 1600})
    aborted: list[str] = []

    def loopback_only(route: Any) -> None:
        url = route.request.url
        if urlsplit(url).hostname in ("127.0.0.1", "localhost") or url.startswith(
            ("data:", "blob:")
        ):
            route.continue_()
        else:
            aborted.append(url)
            route.abort()

    context.route("**/*", loopback_only)
    page = context.new_page()
    try:
        page.goto(f"{lab.url}/lab/tree/{NOTEBOOK}?reset&token={lab.token}")
        page.wait_for_function(NOTEBOOK_READY, timeout=WAIT_MS)
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        page.wait_for_function(ALL_EXECUTED, timeout=120_000, polling=250)
        BUILD.mkdir(exist_ok=True)
        yield page, aborted
    finally:
        context.close()
        lab.api("DELETE", f"/api/sessions/{session['id']}")


def _send(composer: Any, says: str, journal: str) -> None:
    """Press "send"; the confirmation says ``says`` and names ``journal`` before anything is
    sent; Confirm; the result of that journal's campaign is shown: 11 sent, no error."""
    from playwright.sync_api import expect

    composer.get_by_role("button", name="send", exact=True).click()
    label = composer.locator(".smskit-confirm")
    expect(label).to_be_visible(timeout=WAIT_MS)
    expect(label).to_contain_text(says, timeout=WAIT_MS)
    expect(label).to_contain_text(journal)
    label.screenshot(path=BUILD / f"live-confirm-{journal.split('.')[0]}.png")
    label.get_by_role("button", name="Confirm").click()
    expect(label).to_be_hidden(timeout=WAIT_MS)
    # The result table names its journal: this send's, not an earlier one's still on show.
    expect(composer.locator("table", has_text=journal).first).to_be_visible(timeout=WAIT_MS)
    expect(composer).to_contain_text("sent: 11, already accepted: 0")
    expect(composer).not_to_contain_text("Error")


def test_every_widget_button_works_after_run_all(notebook: tuple[Any, list[str]], lab: Any) -> None:
    """After "Run all": the Composer types, optimises, adds STOP, estimates, sends with confirm,
    its sender and send_at boxes block the send with a bad value and say why,
    sends an edited text and the same text again (each said before Confirm); the explorer
    checks pasted numbers once each, filters and exports to an absolute path; the dashboard
    draws its map from the shipped shapes, refreshes, and its tables line up."""
    from playwright.sync_api import expect

    page, aborted = notebook

    # -- the Composer -------------------------------------------------------------------------
    composer = page.locator(".smskit-composer").first
    encoding = composer.locator(".smskit-encoding")
    segments = composer.locator(".smskit-segments")
    box = composer.get_by_label("message text")
    box.scroll_into_view_if_needed()
    box.fill("")
    box.press_sequentially(TYPED)
    expect(encoding).to_contain_text("UCS-2", timeout=WAIT_MS)
    expect(segments).to_have_text("2 segments")
    composer.get_by_role("button", name="optimise text").click()
    expect(encoding).to_contain_text("GSM-7", timeout=WAIT_MS)
    expect(box).to_have_value(TYPED.replace("’", "'"))
    send = composer.get_by_role("button", name="send", exact=True)
    expect(send).to_be_disabled()  # marketing without a STOP mention, and the page says so
    expect(composer.locator(".smskit-why")).to_contain_text("send is disabled: stop:")
    composer.get_by_role("button", name="add STOP mention").click()
    expect(box).to_have_value(TYPED.replace("’", "'") + "\nSTOP au 36173", timeout=WAIT_MS)
    expect(send).to_be_enabled(timeout=WAIT_MS)

    composer.get_by_role("button", name="estimate cost").click()
    expect(composer).to_contain_text("estimate: 11 SMS", timeout=WAIT_MS)
    expect(composer).to_contain_text("Campaign estimate")
    expect(composer.locator(".smskit-cost")).to_contain_text("EUR")  # the cost, always in view
    expect(composer).not_to_contain_text("Error")

    # Keyboard: send by Enter; Enter on Cancel sends nothing.
    send.focus()
    page.keyboard.press("Enter")
    confirmation = composer.locator(".smskit-confirm")
    expect(confirmation).to_be_visible(timeout=WAIT_MS)
    composer.get_by_role("button", name="Cancel").focus()
    page.keyboard.press("Enter")
    expect(confirmation).to_be_hidden(timeout=WAIT_MS)
    expect(send).to_be_enabled(timeout=WAIT_MS)
    # Every option control is labelled and drives the checks: an alert needs no STOP.
    purpose = composer.get_by_label("purpose")
    purpose.select_option("alert")
    expect(composer.locator(".sk-group-ok")).to_contain_text("not required", timeout=WAIT_MS)
    purpose.select_option("wholesale")
    replies = composer.get_by_label("with_replies")
    replies.check()
    replies.uncheck()
    composer.get_by_label("type").select_option("")
    expect(composer.locator(".sk-group-ok")).to_contain_text(
        "STOP mention present", timeout=WAIT_MS
    )
    block_and_restore_sender_and_send_at(composer, WAIT_MS)

    # The notebook sent its own text from code: this one is a new campaign, said beforehand.
    _send(composer, "as a new campaign", "summer-sale-2.journal.sqlite")
    box.fill(EDITED + "\nSTOP au 36173")
    expect(send).to_be_enabled(timeout=WAIT_MS)
    _send(composer, "as a new campaign", "summer-sale-3.journal.sqlite")
    _send(composer, "This text was already sent at", "summer-sale-4.journal.sqlite")
    composer.screenshot(path=BUILD / "live-composer.png")

    # -- the HLR explorer ---------------------------------------------------------------------
    _explore_and_export(page, lab.root)

    # -- the dashboard ------------------------------------------------------------------------
    dashboard = page.locator(".smskit-dashboard").first
    dashboard.scroll_into_view_if_needed()
    countries = dashboard.locator(".smskit-map path.sk-country")
    expect(countries.first).to_be_attached(timeout=WAIT_MS)
    assert countries.count() > 20
    assert page.evaluate(_MISALIGNED, dashboard.element_handle()) == []
    balance = dashboard.locator(".smskit-account-balance")
    before = balance.inner_text()
    dashboard.get_by_role("button", name="refresh").click()
    # The three sends above happened after the dashboard was made: refresh shows them.
    expect(balance).not_to_have_text(before, timeout=WAIT_MS)
    expect(countries.first).to_be_attached(timeout=WAIT_MS)
    dashboard.screenshot(path=BUILD / "live-dashboard.png")
    assert [url for url in aborted if "topojson" in url or "plot.ly" in url] == []


def _explore_and_export(page: Any, root: Path) -> None:
    """The explorer checks pasted numbers once each (the export disabled until then), both
    filters narrow its table and bars, and "export CSV" writes the filtered rows to an
    absolute path in ``root`` (the kernel's working directory); every control is reached by
    its label."""
    from playwright.sync_api import expect

    explorer = page.locator(".smskit-hlr-explorer").first
    numbers = explorer.get_by_label("numbers to check")
    numbers.scroll_into_view_if_needed()
    numbers.fill("+33612345678\n06 12 34 56 78\n0612345678\n+447400123456\n+4915123456789")
    export = explorer.get_by_role("button", name="export CSV")
    expect(export).to_be_disabled(timeout=WAIT_MS)  # the numbers changed: nothing to export
    explorer.get_by_role("button", name="check").click()
    expect(explorer).to_contain_text(
        "3 number(s) checked (2 entry(ies) repeat a number", timeout=WAIT_MS
    )
    expect(explorer.locator(".smskit-progress-label")).to_have_text("3/3 numbers")
    table = explorer.locator("table").first
    expect(table).to_be_visible()
    total_row = table.locator("tbody tr").last
    expect(total_row.locator("td").first).to_have_text("total")
    expect(total_row.locator("td").last).to_have_text("3")
    expect(explorer.locator(".smskit-chart")).to_have_count(2)
    explorer.get_by_label("country", exact=True).select_option("FR")
    expect(table.locator("tbody tr")).to_have_count(2, timeout=WAIT_MS)  # FR and the total
    expect(table.locator("tbody tr").last.locator("td").last).to_have_text("1")
    assert page.evaluate(_MISALIGNED, explorer.element_handle()) == []
    status = explorer.get_by_label("line_status", exact=True)
    status.select_option("dead")  # nobody in FR: an empty table, no chart
    expect(table.locator("tbody tr").last.locator("td").last).to_have_text("0", timeout=WAIT_MS)
    expect(explorer.locator(".smskit-chart")).to_have_count(0)
    status.select_option("(all)")
    expect(explorer.locator(".smskit-chart")).to_have_count(2, timeout=WAIT_MS)
    csv_name = explorer.get_by_label("CSV file")
    csv_name.fill("live-hlr.csv")
    export.click()
    written = root / "live-hlr.csv"
    expect(explorer).to_contain_text(f"3 row(s) written to {written}", timeout=WAIT_MS)
    assert written.read_text().count("\n") == 4  # the header and the three FR entries
    BUILD.mkdir(exist_ok=True)
    explorer.screenshot(path=BUILD / "live-hlr-explorer.png")
