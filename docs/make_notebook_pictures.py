"""Refresh the README's picture of each example notebook from its exported page.

    make pictures     # every picture in docs/img; this step alone:
    .venv/bin/python docs/make_notebook_pictures.py --pages build/pictures

Each picture is one element of a real exported page (``--pages``: the pages `make pictures`
exports from the notebooks' stored outputs, or build/notebooks/ as `make demo` writes them)
as Debian's chromium draws it: a repr table for the quickstart, a figure for the others.
Notebook 03's picture is the composer screenshot (docs/make_composer_screenshot.py).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parents[1]
PAGES = REPO / "build" / "notebooks"
IMAGES = REPO / "docs" / "img"
sys.path.insert(0, str(REPO / "tests"))  # the browser tests' one way of starting chromium
from browser._chromium import CHROMIUM, CHROMIUM_FLAGS  # noqa: E402

# page -> (CSS selector, which match, picture)
PICTURES = {
    "01-quickstart.html": (".smskit-hlr-results", 0, "notebook-01.png"),
    "02-hlr-line-quality.html": (".js-plotly-plot", 1, "notebook-02.png"),
    "04-credits-and-costs.html": (".js-plotly-plot", 1, "notebook-04.png"),
    "05-replies.html": (".js-plotly-plot", 0, "notebook-05.png"),
    "07-after-the-send.html": (".js-plotly-plot", 2, "notebook-07.png"),
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=Path, default=PAGES, help="the exported pages")
    pages = parser.parse_args(argv).pages.resolve()
    missing = [page for page in PICTURES if not (pages / page).exists()]
    if missing:
        print(f"export the notebooks first: {', '.join(missing)} missing", file=sys.stderr)
        return 1
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_FLAGS))
        page = browser.new_page(viewport={"width": 1100, "height": 900}, device_scale_factor=2)
        for name, (selector, index, picture) in PICTURES.items():
            page.goto((pages / name).as_uri())
            element = page.locator(selector).nth(index)
            element.wait_for(state="visible", timeout=30_000)
            if selector == ".js-plotly-plot":
                element.locator(".main-svg").first.wait_for(timeout=30_000)
            element.scroll_into_view_if_needed()
            element.screenshot(path=IMAGES / picture)
            print(f"wrote docs/img/{picture}")
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
