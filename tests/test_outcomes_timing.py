"""Times to delivery measured on the gateway's clock: the sandbox dates its answers by its own
clock (HTTP Date), the journal keeps that time beside ours, and outcomes measure from it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path

import httpx
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import smskit
from smskit.campaigns.analysis.outcomes import SKEW_UNSEEN, gateway_times
from smskit.campaigns.analysis.results import CampaignResult
from smskit.campaigns.sending.journal import Journal
from smskit.replies.inbox import Inbox
from smskit.sandbox import DeliveryModel, Sandbox

DAY = 86400.0
NUMBERS = [f"+3367311{n:04d}" for n in range(60)]


@dataclass
class Advanced:
    """A campaign sent on a sandbox whose clock is a day ahead of ours."""

    sandbox: Sandbox
    inbox: Inbox
    result: CampaignResult
    outcomes: pd.DataFrame


@pytest.fixture(scope="module")
def advanced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Advanced]:
    """60 numbers in chunks of 20 on a fast model, the sandbox's clock advanced by a day."""
    home = tmp_path_factory.mktemp("timing")
    with (
        Inbox(home / "callbacks.sqlite") as inbox,
        Sandbox(seed=8, delivery_model=DeliveryModel.fast(seed=2)) as sb,
        smskit.Client(sandbox=sb) as client,
    ):
        sb.set_callback_url(inbox.url)
        sb.advance(DAY)
        campaign = smskit.Campaign(client, NUMBERS, text="Bonjour", sender="Shop", purpose="alert")
        result = campaign.send(journal=home / "journal.sqlite", chunk_size=20, progress=False)
        sb.wait_for_deliveries(timeout=60)
        outcomes = result.outcomes(inbox, time_zone="UTC")
        yield Advanced(sb, inbox, result, outcomes)


def scripted_delays(sb: Sandbox) -> pd.Series:
    """Each number's final report's network time minus its send, both on the sandbox's clock
    (what the sandbox scripted), in seconds."""
    reports = sb.reports()
    finals = reports[(reports["kind"] == "delivery_report") & (reports["status"] != "ACK")]
    final_at = pd.to_datetime(finals.groupby("number")["at"].min(), utc=True)
    sent = sb.sent().set_index("phone_number")["sent_at"]
    return (final_at - sent.reindex(final_at.index)).dt.total_seconds().dropna()


def test_the_sandbox_dates_its_answers_by_its_own_clock(fresh_sandbox: Sandbox) -> None:
    """The HTTP Date of a sandbox answer follows advance(), one header, as a send result
    carries it (gateway_date)."""
    fresh_sandbox.advance(DAY)
    with httpx.Client(base_url=fresh_sandbox.url) as http:
        answer = http.get("/")
    dates = answer.headers.get_list("date")
    assert len(dates) == 1
    ahead = parsedate_to_datetime(dates[0]) - datetime.now(UTC)
    assert abs(ahead.total_seconds() - DAY) < 5
    with smskit.Client(sandbox=fresh_sandbox) as client:
        sent = client.sms_campaign.send(
            text="Hi", recipients=["+33673110000"], sender="Shop", purpose="alert"
        )
    assert sent.gateway_date is not None
    assert abs((sent.gateway_date - datetime.now(UTC)).total_seconds() - DAY) < 5


def test_times_to_delivery_are_the_sandboxs_scripted_delays(advanced: Advanced) -> None:
    """With the sandbox's clock a day ahead, each time to delivery is the delay the sandbox
    scripted (within the reports' and the Date header's whole seconds), not a day off."""
    delays = scripted_delays(advanced.sandbox)
    frame = advanced.outcomes.set_index("phone_number")
    measured = frame["time_to_delivery"].dropna().dt.total_seconds()
    assert len(measured) >= 50
    gap = (measured - delays.reindex(measured.index)).abs()
    assert gap.notna().all() and gap.max() <= 2.0, gap.max()


def test_the_journal_keeps_the_gateways_time_beside_ours(advanced: Advanced) -> None:
    """Each chunk's accepting answer is recorded with the sandbox's time, a day after ours."""
    with Journal(advanced.result.journal) as book:
        answered = book.answered()
        local = book.sent_at()
    assert sorted(answered) == sorted(local) == [0, 1, 2]
    for theirs, ours in answered.values():
        assert abs(theirs - ours - DAY) < 3


def test_a_chunk_without_a_dated_answer_takes_the_others_offset(
    advanced: Advanced, tmp_path: Path
) -> None:
    """A chunk accepted by an earlier attempt (no dated answer of its own) is moved by the
    other chunks' offset, its times to delivery the same as before."""
    journal = tmp_path / "lost.sqlite"
    with sqlite3.connect(advanced.result.journal) as source, sqlite3.connect(journal) as copy:
        source.backup(copy)
    with sqlite3.connect(journal) as db:
        db.execute("DELETE FROM answered WHERE chunk = 1")
    got = CampaignResult.load(journal).outcomes(advanced.inbox, time_zone="UTC")
    gap = (got["time_to_delivery"] - advanced.outcomes["time_to_delivery"]).abs().dropna()
    assert len(gap) >= 50 and gap.max() <= pd.Timedelta(seconds=1)


def test_a_journal_from_before_dated_answers_measures_on_our_clock(
    advanced: Advanced, tmp_path: Path
) -> None:
    """A journal written before answers were dated (no ``answered`` table) still reads:
    times from our clock, as before (here a day short of the sandbox's)."""
    journal = tmp_path / "older.sqlite"
    with sqlite3.connect(advanced.result.journal) as source, sqlite3.connect(journal) as copy:
        source.backup(copy)
    with sqlite3.connect(journal) as db:
        db.execute("DROP TABLE answered")
    got = CampaignResult.load(journal).outcomes(advanced.inbox, time_zone="UTC")
    shift = (got["sent_at"] - advanced.outcomes["sent_at"]).dt.total_seconds()
    assert (shift.sub(-DAY).abs() < 3).all()
    pd.testing.assert_series_equal(got["status"], advanced.outcomes["status"])


@given(
    local=st.dictionaries(st.integers(0, 50), st.floats(1e9, 2e9), min_size=1, max_size=8),
    skew=st.floats(-3 * DAY, 3 * DAY),
    latency=st.floats(0.0, 0.5),
)
def test_gateway_times_are_within_a_second_of_the_skewed_clock(
    local: dict[int, float], skew: float, latency: float
) -> None:
    """Whatever the skew, each chunk's time lands within a second (or, for a skew too small
    to see in whole seconds, SKEW_UNSEEN + 1) of our time plus the skew; with no dated
    answer, our time is kept."""
    import math

    # Date stamped ``latency`` before our time, by a clock ``skew`` ahead, cut to seconds.
    answered = {c: (float(math.floor(at + skew - latency)), at) for c, at in local.items()}
    got = gateway_times(local, answered)
    bound = 1.0 if abs(skew) > SKEW_UNSEEN + 1 else SKEW_UNSEEN + 1.5
    assert all(abs(got[c] - (at + skew)) <= bound for c, at in local.items())
    assert gateway_times(local, {}) == local


def test_a_date_header_that_does_not_read_leaves_the_gateways_time_unknown() -> None:
    """A send answer whose Date is not an HTTP date (a fault the sandbox never makes) is
    still a send result, its gateway_date None (our clock is used), never guessed."""
    body = {"sms_ticket": "t-1", "number_of_contacts": 1, "number_of_sms_needed": 1,
            "total_cost": 0.05, "residual_credit": 9.95}  # fmt: skip

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(201, json=body, headers={"date": "yesterday-ish"})

    with smskit.Client(
        "me", "k" * 20, "http://127.0.0.1:9", max_retries=0, transport=httpx.MockTransport(answer)
    ) as client:
        sent = client.sms_campaign.send(
            text="Hi", recipients=["+33673110000"], sender="Shop", purpose="alert"
        )
    assert sent.sms_ticket == "t-1" and sent.gateway_date is None
