"""Refresh the README's pictures of the Composer: docs/img/composer.png (JupyterLab) and
docs/img/composer-marimo.png (marimo).

Runs the real-browser tests (JupyterLab, ``marimo run`` and Debian's chromium, see
tests/browser/), which save build/composer-ucs2.png and build/marimo-composer-ucs2.png (the
Composer right after a curly quote was typed: the character marked in place, the meter in
UCS-2, the phone's bubbles, the send button saying why it is disabled), and copies them.

    .venv/bin/python docs/make_composer_screenshot.py
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PICTURES = {
    "composer-ucs2.png": "composer.png",
    "marimo-composer-ucs2.png": "composer-marimo.png",
}


def main() -> int:
    tests = [
        "tests/browser/test_composer_browser.py",
        "tests/browser/test_marimo_browser.py::test_composer_in_marimo_run_types_estimates_and_sends",
    ]
    command = [sys.executable, "-m", "pytest", *tests, "-q", "-p", "no:cacheprovider"]
    if subprocess.run(command, cwd=REPO, check=False).returncode:
        return 1
    for source, name in PICTURES.items():
        target = REPO / "docs" / "img" / name
        shutil.copyfile(REPO / "build" / source, target)
        print(f"wrote {target.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
