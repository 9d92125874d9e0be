"""The Composer with a holdout: the recipients to send exclude the held-out ones (the
library's seeded selection), the panel's recipients check and summary say how many are held
out, and the send never reaches them."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

import smskit
from smskit import Client
from smskit.sandbox import Sandbox
from smskit.views.composer import Composer

TEXT = "Promo -20% ce week-end. STOP au 36173"
SEND_AT = "2030-06-04T10:00:00+02:00"  # a Tuesday morning: inside French marketing hours
NUMBERS = [f"+3361{i:07d}" for i in range(40)]


def test_composer_panel_counts_and_send_skips_the_holdout(
    client: Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """10 of 40 held out: to send 30, the recipients check and summary say 10 held out, and
    the send delivers to the other 30 only, the ones smskit.Campaign would send."""
    recipients = pd.DataFrame({"phone_number": NUMBERS})
    composer = Composer(
        client, recipients, text=TEXT, sender="Shop", send_at=SEND_AT, debounce=0,
        journal=tmp_path / "c.sqlite", holdout=0.25, seed=4,
    )  # fmt: skip
    assert composer.state["to_send"] == 30 and composer.state["held_out"] == 10
    assert composer.summary["held_out"] == 10 and composer.summary["to_send"] == 30
    check = next(c for c in composer.panel.checks if c.name == "recipients")
    assert check.ok and "30 to send" in check.message and "10 held out" in check.message
    composer.send()
    library = smskit.Campaign(None, NUMBERS, text=TEXT, sender="Shop", holdout=0.25, seed=4)
    frame = library.preflight(offline=True).frame
    held = set(frame.loc[frame["issue"] == "held_out", "phone_number"])
    assert set(fresh_sandbox.sent()["phone_number"]) == set(NUMBERS) - held
    assert composer.result is not None and composer.result.held_out == 10


def test_composer_without_holdout_shows_none() -> None:
    """No holdout: the summary has no held_out entry and the state says 0."""
    composer = Composer(None, NUMBERS[:3], text=TEXT, sender="Shop", debounce=0)
    assert "held_out" not in composer.summary and composer.state["held_out"] == 0


def test_composer_summary_counts_held_out_recipients_apart_from_excluded() -> None:
    """The summary's ``excluded`` (drawn as "of 41, 1 excluded") counted the holdout's 10 as
    excluded (11), where the recipients check says "10 held out"; now only the invalid one."""
    recipients = [*NUMBERS, "not a number"]
    composer = Composer(
        None, recipients, text=TEXT, sender="Shop", debounce=0, holdout=0.25, seed=4
    )
    summary = composer.summary
    assert (summary["recipients"], summary["to_send"], summary["held_out"]) == (41, 30, 10)
    assert summary["excluded"] == 1
