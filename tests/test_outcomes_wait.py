"""result.wait_for_outcomes(inbox): wait until every accepted recipient has a final delivery
status, on the sandbox over real HTTP (pandas and Dask results share one loop)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pandas as pd
import pytest
from _gateway import callback_gateway

import smskit
from smskit.campaigns.analysis.outcomes import READ_SHARE_PAUSE
from smskit.errors import ValidationError
from smskit.replies.inbox import Inbox
from smskit.sandbox import DeliveryModel, Sandbox

NUMBERS = [f"+3367322{n:04d}" for n in range(80)]
TEXT = "Votre colis arrive demain"


def unfinished(sb: Sandbox, numbers: list[str]) -> int:
    """How many of ``numbers`` the sandbox posted no final report for (each withheld)."""
    reports = sb.reports()
    finals = reports[(reports["kind"] == "delivery_report") & (reports["status"] != "ACK")]
    posted = finals[finals["fault"].ne("withheld")]
    return len(set(numbers) - set(posted["number"]))


def test_it_returns_once_every_recipient_has_a_final_status(tmp_path: Path) -> None:
    """Called right after the send (reports still coming, up to ~2 s of real time): it
    returns 0, and the outcomes read then have no pending row and every row final."""
    model = DeliveryModel(seed=3, time_scale=1e-4)  # 6 h of network time in ~2 s
    gateway = callback_gateway(None, seed=5, delivery_model=model)
    with gateway as (_, inbox, client):
        campaign = smskit.Campaign(client, NUMBERS, text=TEXT, sender="Shop", purpose="alert")
        result = campaign.send(journal=tmp_path / "j.sqlite", chunk_size=40, progress=False)
        started = time.monotonic()
        assert result.wait_for_outcomes(inbox, timeout=60) == 0
        waited = time.monotonic() - started
        outcomes = result.outcomes(inbox, time_zone="UTC")
    assert len(outcomes) == len(NUMBERS)
    assert outcomes["final"].all() and not outcomes["status"].eq("pending").any()
    assert waited < 30


@pytest.fixture
def withheld(tmp_path: Path) -> Iterator[tuple[Sandbox, Inbox, smskit.Client, Path]]:
    """A sandbox that withholds 30 % of its callbacks (so some messages never get a final
    report), an inbox, a client; closed after the test."""
    model = DeliveryModel.fast(seed=9)
    inbox = Inbox().start()
    sb = Sandbox(seed=2, delivery_model=model).start()
    client = smskit.Client(sandbox=sb)
    sb.set_callback_url(inbox.url)
    sb.inject_callback_faults(withhold_rate=0.3, seed=4)
    yield sb, inbox, client, tmp_path
    client.close()
    sb.stop()
    inbox.stop()


def test_a_timeout_returns_the_count_still_waiting_and_warns(
    withheld: tuple[Sandbox, Inbox, smskit.Client, Path],
) -> None:
    """Reports withheld never come: after the timeout it returns how many recipients have no
    final status (those whose final report the sandbox withheld), a UserWarning names that
    count, nothing is raised, and outcomes() shows exactly those rows not final."""
    sb, inbox, client, home = withheld
    campaign = smskit.Campaign(client, NUMBERS, text=TEXT, sender="Shop", purpose="alert")
    result = campaign.send(journal=home / "j.sqlite", chunk_size=40, progress=False)
    sb.wait_for_deliveries(timeout=30)
    want = unfinished(sb, NUMBERS)
    assert want > 5
    with pytest.warns(UserWarning, match=rf"^{want} accepted recipient\(s\) still have no final"):
        assert result.wait_for_outcomes(inbox, timeout=0.5) == want
    outcomes = result.outcomes(inbox, time_zone="UTC")
    assert int((~outcomes["final"]).sum()) == want
    assert outcomes.loc[~outcomes["final"], "status"].isin(["pending", "ACK"]).all()


def test_the_dask_result_waits_the_same_way(
    withheld: tuple[Sandbox, Inbox, smskit.Client, Path], dask_cluster: object
) -> None:
    """A streamed campaign's wait counts the same recipients still waiting as the pandas
    result of the same journal, and warns the same way."""
    import dask.dataframe as dd

    from smskit.campaigns.analysis.results import CampaignResult
    from smskit.dask import Campaign as DaskCampaign

    sb, inbox, client, home = withheld
    frame = dd.from_pandas(pd.DataFrame({"phone_number": NUMBERS}), npartitions=2)
    campaign = DaskCampaign(client, frame, text=TEXT, sender="Shop", purpose="alert")
    result = campaign.send(journal=home / "streamed.sqlite", chunk_size=30, progress=False)
    sb.wait_for_deliveries(timeout=30)
    want = unfinished(sb, NUMBERS)
    with pytest.warns(UserWarning, match=rf"^{want} accepted"):
        assert result.wait_for_outcomes(inbox, timeout=0.2) == want
    with pytest.warns(UserWarning, match=rf"^{want} accepted"):
        assert (
            CampaignResult.load(home / "streamed.sqlite").wait_for_outcomes(inbox, timeout=0.2)
            == want
        )


def test_a_timeout_that_is_not_seconds_is_refused_by_name(
    withheld: tuple[Sandbox, Inbox, smskit.Client, Path],
) -> None:
    """timeout must be a number of seconds >= 0: refused naming it, before any wait."""
    _, inbox, client, home = withheld
    campaign = smskit.Campaign(client, NUMBERS[:3], text=TEXT, sender="Shop", purpose="alert")
    result = campaign.send(journal=home / "j.sqlite", progress=False)
    for bad in (-1, "10", True, float("nan")):
        with pytest.raises(ValidationError, match="timeout"):
            result.wait_for_outcomes(inbox, timeout=bad)  # type: ignore[arg-type]


def test_a_slow_read_is_followed_by_a_pause_four_times_as_long(tmp_path: Path) -> None:
    """Reading the callbacks (the whole outcomes frame: a big campaign's takes a while) takes
    at most a fifth of the wait after the first pause (POLL_S: nothing is known of the reads
    yet): reads of 0.2 s over a 3 s wait are made at most 5 times (every POLL_S after each
    read, 7 times), and the count still waiting is returned."""
    from smskit.campaigns.analysis.outcomes import wait_for_final

    reads: list[float] = []

    def pending(_callbacks: object) -> int:
        reads.append(time.monotonic())
        time.sleep(0.2)
        return 3

    with Inbox(tmp_path / "inbox.sqlite") as inbox, pytest.warns(UserWarning, match="^3 "):
        assert wait_for_final(inbox, 3, pending) == 3
    assert 3 <= len(reads) <= 5, reads
    gaps = [b - a for a, b in pairwise(reads)]
    assert gaps[0] < 0.2 * 5, gaps  # the first pause: POLL_S
    assert all(gap >= 0.2 * 5 for gap in gaps[1:-1]), gaps  # the last one cut by the timeout


def test_a_slow_first_read_does_not_delay_the_next(tmp_path: Path) -> None:
    """The first read pays one-time costs (imports, the store's first open: 0.5 s in a fresh
    process for 40 recipients): the read after it comes a POLL_S later, not four times that
    read later, so the wait ends soon after the last report came (2 s more before)."""
    from smskit.campaigns.analysis.outcomes import POLL_S, wait_for_final

    reads: list[float] = []

    def pending(_callbacks: object) -> int:
        reads.append(time.monotonic())
        if len(reads) == 1:
            time.sleep(0.5)
            return 3
        return 0

    with Inbox(tmp_path / "inbox.sqlite") as inbox:
        assert wait_for_final(inbox, 30, pending) == 0
    assert len(reads) == 2
    assert 0.5 + POLL_S <= reads[1] - reads[0] < 0.5 * READ_SHARE_PAUSE, reads
