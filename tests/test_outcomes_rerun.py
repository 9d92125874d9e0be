"""A recipient whose message cannot be told apart (two sends to its number in the match
window, no ticket to tell them by) is flagged, never joined to another campaign's message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import smskit
from smskit.campaigns.analysis.outcomes import AMBIGUOUS
from smskit.sandbox import DeliveryModel, Sandbox

ALERT = "Votre colis arrive demain."
PROMO = "Promo -20% ce week-end. STOP au 36173"


def numbers(count: int) -> list[str]:
    """Distinct valid French mobile numbers."""
    return [f"+3361{i:07d}" for i in range(count)]


def test_a_rerun_after_the_journal_was_deleted_is_never_joined_to_another_send(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """An alert to 100 numbers, then a campaign to the same numbers; its journal deleted and
    the campaign sent again (chunks already_accepted, no ticket): no row is joined to the
    alert's messages (the sandbox's own ids say whose each is); every row is flagged
    ambiguous_match, and waiting for outcomes does not wait for them."""
    fresh_sandbox.set_delivery_model(DeliveryModel.fast(seed=2))
    inbox = smskit.Inbox().start()
    try:
        fresh_sandbox.set_callback_url(inbox.url)
        client = smskit.Client(sandbox=fresh_sandbox)
        alert = client.sms_campaign.send(
            text=ALERT, recipients=numbers(100), sender="Shop", purpose="alert"
        ).sms_ticket
        path = tmp_path / "promo.journal.sqlite"
        campaign = smskit.Campaign(client, numbers(100), text=PROMO, sender="Shop",
                                   name="promo", purpose="alert")  # fmt: skip
        first = campaign.send(progress=False, journal=path)
        assert first.wait_for_outcomes(inbox, timeout=60) == 0
        path.unlink()
        again = campaign.send(progress=False, journal=path)
        assert set(again.to_frame()["state"].astype(str)) == {"already_accepted"}
        assert again.wait_for_outcomes(inbox, timeout=30) == 0  # nothing left to wait for
        rows = again.outcomes(inbox)
    finally:
        inbox.stop()
    joined = rows["message_id"].dropna().astype(str)
    assert not joined.str.startswith(f"{alert}-").any()  # never another send's message
    assert (rows["flags"] == AMBIGUOUS).all() and rows["flagged"].all()
    assert (rows["status"].astype(str) == "pending").all() and not rows["final"].any()
    assert len(rows) == 100


def test_one_send_to_a_number_in_the_window_is_still_joined_by_number_and_time(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """With a single message per number in the window, matching by number and time (as on
    a real gateway) joins each recipient to its own message, flagged nothing."""
    fresh_sandbox.set_delivery_model(DeliveryModel.fast(seed=3))
    inbox = smskit.Inbox().start()
    try:
        fresh_sandbox.set_callback_url(inbox.url)
        client = smskit.Client(sandbox=fresh_sandbox)
        result = smskit.Campaign(client, numbers(30), text=PROMO, sender="Shop",
                                 purpose="alert").send(progress=False,
                                                       journal=tmp_path / "j.sqlite")  # fmt: skip
        assert result.wait_for_outcomes(inbox, timeout=60, match="number") == 0
        rows = result.outcomes(inbox, match="number")
    finally:
        inbox.stop()
    ticket = result.to_frame()["ticket"].iloc[0]
    assert rows["message_id"].astype(str).str.startswith(f"{ticket}-").all()
    assert not rows["flagged"].any()


def test_a_dask_result_does_not_wait_for_rows_it_cannot_match(
    dask_cluster: Any, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """An alert to 40 numbers, then a Dask campaign to the same numbers matched by number
    and time: every row is ambiguous_match (two messages per number in the window), and the
    Dask result's wait does not wait for them, as the pandas result's does not."""
    import dask.dataframe as dd
    import pandas as pd

    from smskit.dask import Campaign as DaskCampaign

    fresh_sandbox.set_delivery_model(DeliveryModel.fast(seed=4))
    inbox = smskit.Inbox().start()
    try:
        fresh_sandbox.set_callback_url(inbox.url)
        client = smskit.Client(sandbox=fresh_sandbox)
        client.sms_campaign.send(text=ALERT, recipients=numbers(40), sender="Shop",
                                 purpose="alert")  # fmt: skip
        lazy = dd.from_pandas(pd.DataFrame({"phone_number": numbers(40)}), npartitions=2)
        campaign = DaskCampaign(client, lazy, text=PROMO, sender="Shop", purpose="alert")
        result = campaign.send(progress=False, journal=tmp_path / "promo.journal.sqlite")
        assert result.wait_for_outcomes(inbox, timeout=30, match="number") == 0
        rows = result.outcomes(inbox, match="number").compute()
    finally:
        inbox.stop()
    assert len(rows) == 40
    assert (rows["flags"] == AMBIGUOUS).all() and not rows["final"].any()
