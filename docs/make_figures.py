"""Regenerate the README figure: line status by number type for 2,000 sandbox numbers.

    .venv/bin/python docs/make_figures.py          # writes docs/img/hlr-breakdown.png

Deterministic: a fresh sandbox (seed 0) answers a fixed list of numbers (HLR requests of 200
in simulation mode, so free). The PNG is drawn by kaleido, which drives a local
Chrome/Chromium: on Debian ``apt-get install chromium``; ``BROWSER_PATH`` points kaleido at
another browser. Nothing is downloaded.
"""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import smskit
from smskit import plots
from smskit.sandbox import Sandbox

OUTPUT = Path(__file__).with_name("img") / "hlr-breakdown.png"


def numbers(count: int = 2_000) -> list[str]:
    """A customer file's worth of numbers: French mobiles and landlines, a few abroad, typos."""
    rng = random.Random(2026)
    makers = [
        (0.72, lambda: f"+336{rng.randrange(89):02d}{rng.randrange(10**6):06d}"),
        (0.08, lambda: f"+337{rng.randrange(3, 9)}{rng.randrange(10**7):07d}"),
        (0.10, lambda: f"+33{rng.randrange(1, 6)}{rng.randrange(10**8):08d}"),
        (0.04, lambda: f"+447{rng.randrange(400, 999)}{rng.randrange(10**6):06d}"),
        (0.04, lambda: f"+49151{rng.randrange(10**8):08d}"),
        (0.02, lambda: f"+336{rng.randrange(10**6):06d}"),  # digits missing
    ]
    weights = [weight for weight, _ in makers]
    return [rng.choices(makers, weights)[0][1]() for _ in range(count)]


def main() -> None:
    """Check the numbers on a fresh sandbox and export the stacked bar chart as PNG."""
    if "BROWSER_PATH" not in os.environ and (chromium := shutil.which("chromium")):
        os.environ["BROWSER_PATH"] = chromium  # Debian's package; kaleido would find it too
    checked = numbers()
    with Sandbox(seed=0) as sandbox, smskit.Client(sandbox=sandbox) as client:
        # validate=False: the gateway itself answers the typos (bad_format, not_applicable).
        answers = [
            result
            for start in range(0, len(checked), 200)
            for result in client.contact.hlr_request(
                checked[start : start + 200], simulation_mode=True, validate=False
            )
        ]
    figure = plots.hlr_breakdown(answers)
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    figure.write_image(OUTPUT, width=900, height=520, scale=2)
    print(f"wrote {OUTPUT} ({len(answers):,} numbers)")


if __name__ == "__main__":
    main()
