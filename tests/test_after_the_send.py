"""Where notebook 07's features meet: a campaign's outcomes, the ledger and an experiment's
comparison count the same replies, on the sandbox over real HTTP."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

import smskit
from smskit.replies.inbox import Inbox
from smskit.sandbox import DeliveryModel, Sandbox

NUMBERS = [f"+3367400{n:04d}" for n in range(60)]


def test_a_send_without_replies_gets_none_of_a_later_sends_replies(tmp_path: Path) -> None:
    """Replies to a later with_replies send are not linked to an earlier send that was not
    with_replies (nobody can answer it, spec Events): its outcomes and ledger row count 0,
    the later one counts them all, and the ledger's replies add up to the inbox's."""
    model = DeliveryModel.fast(seed=3, stop_share=0.0)
    with (
        Inbox() as inbox,
        Sandbox(seed=3, delivery_model=model) as sb,
        smskit.Client(sandbox=sb) as client,
    ):
        sb.set_callback_url(inbox.url)
        text = "Soldes -20% ce week-end ! STOP au 36173"
        first = smskit.Campaign(client, NUMBERS, text=text, sender="Shop", name="plain")
        plain = first.send(journal=tmp_path / "plain.journal.sqlite", progress=False)
        second = smskit.Campaign(
            client, NUMBERS, text=text, sender="Shop", name="asks", with_replies=True
        )
        asks = second.send(journal=tmp_path / "asks.journal.sqlite", progress=False)
        sb.wait_for_deliveries(timeout=30)
        (ticket,) = asks.to_frame()["ticket"].dropna().unique()
        replies = sb.simulate_campaign_replies(ticket, rate=0.5, opt_out_share=0, seed=2)
        inbox.wait(len(replies), timeout=30)
        repliers = set(replies["number"])
        assert len(repliers) > 10

        plain_out = plain.outcomes(inbox)
        asks_out = asks.outcomes(inbox)
        ledger = smskit.campaigns.history(tmp_path, inbox=inbox).set_index("name")

    assert not plain_out["replied"].any()
    assert int(plain_out["replies"].sum()) == 0
    assert set(asks_out.loc[asks_out["replied"], "phone_number"]) == repliers
    assert ledger.loc["plain", "replies"] == 0
    assert ledger.loc["asks", "replies"] == len(repliers)
    assert int(ledger["replies"].sum()) == pd.Series(list(repliers)).nunique()
