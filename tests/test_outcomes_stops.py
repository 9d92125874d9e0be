"""Opt-outs and replies in a campaign's outcomes whatever else came: a STOP whose message has
no delivery report (withheld, or not come yet), a reply dated in the second of its send; on
the sandbox over real HTTP, the oracle the sandbox's own log of what it posted."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import smskit
from smskit.replies.analytics import link_replies
from smskit.replies.inbox import Inbox
from smskit.rules.callbacks import comparable_instants
from smskit.sandbox import DeliveryModel, HLRDistribution, Sandbox

TEXT = "Soldes -20% ce week-end ! STOP au 36173"
NUMBERS = [f"+3367500{n:04d}" for n in range(120)]
LIVE = HLRDistribution(line_status={"live": 1.0})


def test_a_stop_counts_whether_or_not_its_message_has_a_delivery_report(tmp_path: Path) -> None:
    """Every STOP the gateway posted is an opt_out in outcomes() (both ways of matching)
    and in the ledger, including those of messages whose every delivery report was withheld."""
    model = DeliveryModel.fast(seed=7, stop_share=1.0, late_share=0.0, duplicate_share=0.0)
    with (
        Inbox() as inbox,
        Sandbox(seed=7, hlr_distribution=LIVE, delivery_model=model) as sb,
        smskit.Client(sandbox=sb) as client,
    ):
        sb.set_callback_url(inbox.url)
        sb.inject_callback_faults(withhold_rate=0.5, seed=1)
        campaign = smskit.Campaign(client, NUMBERS, text=TEXT, sender="Shop", name="stops")
        result = campaign.send(journal=tmp_path / "stops.journal.sqlite", progress=False)
        sb.wait_for_deliveries(timeout=60)
        scripted = pd.DataFrame(sb.reports())
        by_id = result.outcomes(inbox, time_zone="UTC", match="message_id")
        by_number = result.outcomes(inbox, time_zone="UTC", match="number")
        ledger = smskit.campaigns.history(tmp_path, inbox=inbox).set_index("name")

    posted = scripted[scripted["fault"] != "withheld"]
    stopped = set(posted.loc[posted["kind"] == "stop", "number"])
    reported = set(posted.loc[posted["kind"] == "delivery_report", "number"])
    assert len(stopped - reported) >= 5  # the class is there: STOPs with no report at all
    for frame in (by_id, by_number):
        assert set(frame.loc[frame["opt_out"], "phone_number"]) == stopped
        assert frame.loc[frame["opt_out"], "opt_out_date"].notna().all()
    assert ledger.loc["stops", "opt_outs"] == len(stopped)


def test_a_reply_dated_in_the_second_of_its_send_answers_it(tmp_path: Path) -> None:
    """A STOP reply the gateway dates in the whole second its send was accepted (our send
    time has milliseconds) is replied and opt_out in outcomes(), for every recipient."""
    with (
        Inbox() as inbox,
        Sandbox(seed=2, delivery_model=DeliveryModel.fast(seed=2, stop_share=0.0)) as sb,
        smskit.Client(sandbox=sb) as client,
    ):
        sb.set_callback_url(inbox.url)
        sb.advance(3600)  # the gateway's clock an hour ahead: sends sit mid-second on it
        # Start just after a whole second, so the send and its replies share that second
        # even on a loaded machine (the class needs a reply dated before its send, to the ms).
        time.sleep(1.0 - datetime.now(UTC).microsecond / 1e6)
        numbers = NUMBERS[:20]
        campaign = smskit.Campaign(
            client, numbers, text=TEXT, sender="Shop", with_replies=True, name="fast"
        )
        result = campaign.send(journal=tmp_path / "fast.journal.sqlite", progress=False)
        for number in numbers:
            sb.simulate_reply(number, "STOP", wait=False)
        inbox.wait(len(numbers), timeout=30)
        frame = result.outcomes(inbox, time_zone="UTC")

    dated = frame["reply_date"].dt.floor("s")
    assert (dated.isna() | (dated >= frame["sent_at"].dt.floor("s"))).all()
    assert frame["replied"].all() and frame["opt_out"].all()
    assert (frame["reply_date"] < frame["sent_at"]).any()  # the class: dated before, to the ms


@settings(max_examples=200, deadline=None)
@given(
    sent_ms=st.integers(min_value=0, max_value=10**6),
    after_s=st.integers(min_value=0, max_value=5),
)
def test_link_replies_compares_at_the_vendors_whole_seconds(sent_ms: int, after_s: int) -> None:
    """A reply dated (whole seconds) at or after the second of its send is linked to it,
    whatever the send's milliseconds; one dated the second before is not."""
    base = datetime(2026, 11, 24, 9, 0, tzinfo=UTC)
    sent = pd.Timestamp(base + timedelta(milliseconds=sent_ms))
    sends = pd.DataFrame({"ticket": ["t"], "phone_number": ["+33612345678"], "sent_at": [sent]})
    on_time = sent.floor("s") + pd.Timedelta(seconds=after_s)
    early = sent.floor("s") - pd.Timedelta(seconds=1)
    replies = pd.DataFrame(
        {"number": ["+33612345678", "+33612345678"], "reception_date": [on_time, early]}
    )
    linked = link_replies(replies, sends)
    assert linked["ticket"].iloc[0] == "t" and pd.isna(linked["ticket"].iloc[1])
    moments = pd.Series([sent], dtype="datetime64[ns, UTC]")
    assert comparable_instants(moments)[0] <= on_time
