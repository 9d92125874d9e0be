"""Regenerate docs/outcomes.md's figures: a campaign's delivery by line status, and its time
to delivery, on the sandbox.

    .venv/bin/python docs/make_outcome_figures.py   # docs/img/outcomes-{delivery,times}.png

Deterministic: a fresh sandbox (seed 0) with a fast seeded delivery model; 1,500 French
mobiles checked by bulk HLR (a cache in a temporary directory), then sent as one named
campaign one chunk at a time, so every ticket and every draw is the same each run. PNGs are
drawn by kaleido on a local Chrome/Chromium, as docs/make_figures.py does.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import smskit
from smskit import plots
from smskit.sandbox import DeliveryModel, HLRDistribution, Sandbox

IMAGES = Path(__file__).with_name("img")
SPREAD = HLRDistribution(
    line_status={"live": 0.7, "dead": 0.08, "absent_subscriber": 0.1,
                 "no_teleservice_provisioned": 0.03, "not_available_network_only": 0.03,
                 "no_coverage": 0.03, "inconclusive": 0.03}
)  # fmt: skip


def main() -> None:
    """Send, wait for every callback, draw the two figures."""
    if "BROWSER_PATH" not in os.environ and (chromium := shutil.which("chromium")):
        os.environ["BROWSER_PATH"] = chromium
    numbers = [f"+3367500{n:04d}" for n in range(1500)]
    model = DeliveryModel.fast(seed=0, late_share=0.2, duplicate_share=0.1, stop_share=0.03)
    with (
        tempfile.TemporaryDirectory() as tmp,
        smskit.Inbox() as inbox,
        Sandbox(seed=0, hlr_distribution=SPREAD, delivery_model=model) as sandbox,
        smskit.Client(sandbox=sandbox) as client,
    ):
        sandbox.set_callback_url(inbox.url)
        cache = Path(tmp) / "hlr.sqlite"
        smskit.bulk_hlr(client, numbers, journal=cache, progress=False)
        campaign = smskit.Campaign(
            client, numbers, text="Soldes -20% ce week-end ! STOP au 36173", sender="Shop",
            name="figures",
        )  # fmt: skip
        result = campaign.send(journal=Path(tmp) / "j.sqlite", concurrency=1, progress=False)
        sandbox.wait_for_deliveries(timeout=120)
        outcomes = result.outcomes(inbox, hlr=cache, time_zone="UTC")
    IMAGES.mkdir(exist_ok=True)
    figures = {
        "outcomes-delivery.png": plots.delivery_breakdown(outcomes, by="line_status"),
        "outcomes-times.png": plots.delivery_times(outcomes, by="line_status"),
    }
    for name, figure in figures.items():
        figure.write_image(IMAGES / name, width=900, height=460, scale=2)
        print(f"wrote {IMAGES / name} ({len(outcomes):,} recipients)")


if __name__ == "__main__":
    main()
