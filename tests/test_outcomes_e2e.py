"""A 5,000-recipient campaign on the sandbox over real HTTP, its delivery reports late,
twice and out of order into a file Inbox: every recipient gets exactly one final outcome."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
from _gateway import callback_gateway

import smskit
from smskit.campaigns.analysis.results import CampaignResult
from smskit.replies.inbox import Inbox
from smskit.sandbox import DeliveryModel, Sandbox

RECIPIENTS = 5000
TEXT = "Soldes -20% ce week-end ! STOP au 36173"


@dataclass
class Sent:
    """The campaign's world once every callback was delivered."""

    sandbox: Sandbox
    inbox: Inbox
    result: CampaignResult
    outcomes: pd.DataFrame


@pytest.fixture(scope="module")
def sent(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sent]:
    """5,000 French mobiles (the sandbox's default mix of line statuses) in 10 chunks sent 4
    at a time; 30 % of ACKs posted after their final report, 30 % of finals posted twice."""
    home = tmp_path_factory.mktemp("e2e")
    model = DeliveryModel.fast(seed=21, late_share=0.3, duplicate_share=0.3, stop_share=0.05)
    numbers = [f"+3367400{n:04d}" for n in range(RECIPIENTS)]
    gateway = callback_gateway(home / "callbacks.sqlite", seed=8, delivery_model=model)
    with gateway as (sb, inbox, client):
        campaign = smskit.Campaign(client, numbers, text=TEXT, sender="Shop", name="e2e-5000")
        result = campaign.send(journal=home / "journal.sqlite", progress=False)
        sb.wait_for_deliveries(timeout=180)
        yield Sent(sb, inbox, result, result.outcomes(inbox, time_zone="UTC"))


def test_every_recipient_has_exactly_one_final_outcome_row(sent: Sent) -> None:
    """5,000 rows, one per number sent, each final, each the status the sandbox decided."""
    frame = sent.outcomes
    assert len(frame) == RECIPIENTS and frame["phone_number"].is_unique
    assert set(frame["phone_number"]) == set(sent.sandbox.sent()["phone_number"])
    assert frame["final"].all() and not frame["status"].isin(["ACK", "pending"]).any()
    scripted = sent.sandbox.reports()
    finals = scripted[(scripted["kind"] == "delivery_report") & (scripted["status"] != "ACK")]
    decided = finals.drop_duplicates("number").set_index("number")["status"]
    got = frame.set_index("phone_number")["status"].astype(str)
    assert got.sort_index().equals(decided.sort_index())
    assert (frame["message_id"] == frame["ticket"] + "-" + frame["phone_number"].str[1:]).all()


def test_the_reports_really_came_late_twice_and_out_of_order(sent: Sent) -> None:
    """Hundreds of ACKs were stored after their message's final report, hundreds of finals
    twice (kept once), and the outcome still shows the final one."""
    reports = sent.inbox.delivery_reports("UTC")
    first_final = reports[reports["status_raw"] != "ACK"].drop_duplicates("message_id")
    final_at = pd.Series(first_final.index, index=first_final["message_id"])
    acks = reports[reports["status_raw"] == "ACK"]
    late = pd.Series(acks.index, index=acks["message_id"]) > final_at.reindex(acks["message_id"])
    assert late.sum() >= 0.2 * len(acks)
    assert sent.inbox.stats()["report_duplicates"] >= 0.2 * RECIPIENTS
    assert (sent.outcomes["reports"] >= 1).all()


def test_breakdowns_account_for_every_recipient(sent: Sent) -> None:
    """The delivery breakdown by country counts the 5,000 once, in final statuses only."""
    table = smskit.campaigns.delivery_breakdown(sent.outcomes, "country")
    assert table.loc["total", "recipients"] == RECIPIENTS
    assert table.loc["total", "final"] == RECIPIENTS
    assert table.loc["total", ["ACK", "pending", "unreadable"]].sum() == 0
    assert table.loc["FR", "recipients"] == RECIPIENTS


def test_the_journal_alone_reads_the_same_outcomes(sent: Sent, tmp_path: Path) -> None:
    """A result loaded from the journal file (a new kernel) joins to the same outcomes."""
    loaded = CampaignResult.load(sent.result.journal)
    pd.testing.assert_frame_equal(loaded.outcomes(sent.inbox, time_zone="UTC"), sent.outcomes)
