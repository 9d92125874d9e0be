"""Refresh docs/img/composer.png, the README's picture of the composer.

Runs the real-browser test (JupyterLab + Debian's chromium, see tests/browser/), which saves
build/composer-ucs2.png (the panel right after a curly quote was typed) and build/composer.png
(after "optimise text"), and copies the first: it shows the UCS-2 highlight and the checks.

    .venv/bin/python docs/make_composer_screenshot.py
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> int:
    test = "tests/browser/test_composer_browser.py"
    command = [sys.executable, "-m", "pytest", test, "-q", "-p", "no:cacheprovider"]
    if subprocess.run(command, cwd=REPO, check=False).returncode:
        return 1
    target = REPO / "docs" / "img" / "composer.png"
    shutil.copyfile(REPO / "build" / "composer-ucs2.png", target)
    print(f"wrote {target.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
