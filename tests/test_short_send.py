"""A send that did not reach everyone says so: a warning naming the count, the reason and
the resume call (the CLI: its own command), the repr and every summary, the stop reason kept
in the journal, and breakdowns that state the share of the audience they cover."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import dask.dataframe as dd
import pandas as pd
import pytest

import smskit
from smskit.campaigns import IncompleteSendWarning, cost_breakdown, delivery_breakdown
from smskit.dask import Campaign as DaskCampaign
from smskit.sandbox import DeliveryModel, Sandbox

TEXT = "Promo -20% ce week-end. STOP au 36173"
MONDAY_10H = "2031-06-03T10:00:00+02:00"
PRICE = 0.065  # the sandbox's French premium SMS


def fr_mobiles(count: int) -> list[str]:
    """Distinct valid French mobile numbers."""
    return [f"+3361{i:07d}" for i in range(count)]


def test_a_pandas_send_stopped_by_credit_warns_shows_and_keeps_why(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Credit for 2 chunks of 100 of 500: send() warns once (300 of 500, the credit reason,
    the exact resume call); repr, summary and the reloaded result say it; the resume
    finishes, and the reloaded result no longer says it stopped."""
    fresh_sandbox.set_balance(PRICE * 250)
    path = tmp_path / "june.journal.sqlite"
    client = smskit.Client(sandbox=fresh_sandbox)
    campaign = smskit.Campaign(client, fr_mobiles(500), text=TEXT, sender="Shop",
                               send_at=MONDAY_10H)  # fmt: skip
    with pytest.warns(IncompleteSendWarning) as caught:
        result = campaign.send(chunk_size=100, concurrency=1, progress=False, journal=path)
    # pytest.warns records every warning of the process meanwhile, any thread's (a background
    # thread of an earlier test, a finalizer): a second one was recorded once in a loaded full
    # run. This send's own are its IncompleteSendWarnings: exactly one.
    ours = [w for w in caught if issubclass(w.category, IncompleteSendWarning)]
    assert len(ours) == 1, [(w.category.__name__, str(w.message)[:200]) for w in caught]
    (warning,) = ours
    said = str(warning.message)
    assert said.startswith("300 of 500 recipient(s) not sent (insufficient credit")
    assert f"smskit.Campaign.resume({str(path)!r})" in said
    assert warning.filename == __file__  # at the caller's line, not inside smskit
    assert "300 of 500 NOT SENT: insufficient credit" in repr(result)
    summary = result.summary().iloc[0]
    assert (summary["sent"], summary["not_sent"], bool(summary["complete"])) == (200, 300, False)
    assert "insufficient credit" in result.to_html()
    loaded = smskit.CampaignResult.load(path)
    assert loaded.stopped == result.stopped and "NOT SENT" in repr(loaded)
    fresh_sandbox.set_balance(100.0)
    with warnings.catch_warnings(record=True) as none:
        warnings.simplefilter("always")
        finished = smskit.Campaign.resume(path, client, progress=False)
    assert not [w for w in none if w.category is IncompleteSendWarning]
    assert finished.complete and finished.stopped is None
    assert smskit.CampaignResult.load(path).stopped is None
    assert "NOT SENT" not in repr(finished) and finished.summary()["not_sent"].iat[0] == 0


def test_breakdowns_of_a_half_sent_campaign_state_the_share_of_the_audience(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """40 of 100 sent, every outcome in: the breakdowns' total covers 0.4 of the audience
    (final_rate 1.0 of what was sent, never read as the whole campaign)."""
    fresh_sandbox.set_balance(PRICE * 45)
    fresh_sandbox.set_delivery_model(DeliveryModel.fast(seed=1))
    inbox = smskit.Inbox().start()
    try:
        fresh_sandbox.set_callback_url(inbox.url)
        client = smskit.Client(sandbox=fresh_sandbox)
        campaign = smskit.Campaign(client, fr_mobiles(100), text=TEXT, sender="Shop",
                                   purpose="alert")  # delivered now, any hour  # fmt: skip
        with pytest.warns(IncompleteSendWarning, match="60 of 100"):
            result = campaign.send(
                chunk_size=20, concurrency=1, progress=False, journal=tmp_path / "j.sqlite"
            )
        assert result.wait_for_outcomes(inbox, timeout=60) == 0
        outcomes = result.outcomes(inbox)
    finally:
        inbox.stop()
    assert len(outcomes) == 40 and outcomes.attrs["audience"] == 100
    table = delivery_breakdown(outcomes, by="country")
    assert table.loc["total", "final_rate"] == 1.0
    assert table.loc["total", "audience_share"] == pytest.approx(0.4)
    assert table["audience_share"].iloc[:-1].sum() == pytest.approx(0.4)
    assert cost_breakdown(outcomes).loc["total", "audience_share"] == pytest.approx(0.4)
    plain = outcomes.copy()
    plain.attrs.clear()
    assert delivery_breakdown(plain, by="country")["audience_share"].isna().all()


def test_a_dask_send_stopped_by_credit_warns_with_the_dask_resume_call(
    dask_cluster: Any, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A streamed campaign that ran out of credit: the warning names smskit.dask's resume,
    the summary and repr say what was not sent and why, and the reloaded result too."""
    from smskit.dask.results import StreamedResult

    fresh_sandbox.set_balance(PRICE * 150)
    base = pd.DataFrame({"phone_number": fr_mobiles(400)})
    path = tmp_path / "d.journal.sqlite"
    campaign = DaskCampaign(smskit.Client(sandbox=fresh_sandbox),
                            dd.from_pandas(base, npartitions=2), text=TEXT, sender="Shop",
                            send_at=MONDAY_10H)  # fmt: skip
    with pytest.warns(IncompleteSendWarning) as caught:
        result = campaign.send(chunk_size=100, concurrency=1, progress=False, journal=path)
    # Only this send's warning: the recorder takes any thread's (a Dask worker's included).
    (said,) = [str(w.message) for w in caught if issubclass(w.category, IncompleteSendWarning)]
    assert said.startswith("300 of 400 recipient(s) not sent (insufficient credit")
    assert f"smskit.dask.Campaign.resume({str(path)!r})" in said
    assert "300 of 400 NOT SENT" in repr(result)
    assert StreamedResult.load(path).summary()["not_sent"].iat[0] == 300
    assert "insufficient credit" in str(StreamedResult.load(path).stopped)


def test_an_experiment_arm_that_ran_out_of_credit_warns(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """An experiment whose second arm meets no credit: the warning names the arm, the count
    and how to send the rest; the arm's summary says it."""
    fresh_sandbox.set_balance(PRICE * 60)
    experiment = smskit.Experiment(
        smskit.Client(sandbox=fresh_sandbox), fr_mobiles(100), sender="Shop", seed=3,
        variants={"A": TEXT, "B": "Ce week-end : -20% ! STOP au 36173"}, directory=tmp_path,
        send_at=MONDAY_10H,
    )  # fmt: skip
    with pytest.warns(IncompleteSendWarning) as caught:
        result = experiment.send(chunk_size=10, concurrency=1, progress=False)
    said = [str(w.message) for w in caught if w.category is IncompleteSendWarning]
    assert said and all("experiment.send() again" in s for s in said)
    assert any(s.startswith("arm 'B': ") and "insufficient credit" in s for s in said)
    assert int(result.summary()["not_sent"].sum()) == 40


def test_dask_and_experiment_breakdowns_state_the_share_of_the_audience(
    dask_cluster: Any, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A Dask send and an experiment stopped by credit: their outcomes say the audience
    (every recipient they were for, sent or not), so the breakdowns' audience_share is the
    share sent, as for a pandas campaign, never NA."""
    fresh_sandbox.set_balance(PRICE * 150)
    inbox = smskit.Inbox().start()
    try:
        fresh_sandbox.set_callback_url(inbox.url)
        client = smskit.Client(sandbox=fresh_sandbox)
        base = pd.DataFrame({"phone_number": fr_mobiles(400)})
        campaign = DaskCampaign(client, dd.from_pandas(base, npartitions=3), text=TEXT,
                                sender="Shop", send_at=MONDAY_10H)  # fmt: skip
        with pytest.warns(IncompleteSendWarning):
            streamed = campaign.send(chunk_size=100, concurrency=1, progress=False,
                                     journal=tmp_path / "d.sqlite")  # fmt: skip
        computed = streamed.outcomes(inbox).compute()
        fresh_sandbox.set_balance(PRICE * 60)
        experiment = smskit.Experiment(
            client, fr_mobiles(100), sender="Shop", seed=3, directory=tmp_path,
            variants={"A": TEXT, "B": "Ce week-end : -20% ! STOP au 36173"}, send_at=MONDAY_10H,
        )  # fmt: skip
        with pytest.warns(IncompleteSendWarning):
            arms = experiment.send(chunk_size=10, concurrency=1, progress=False)
        by_arm = arms.outcomes(inbox)
    finally:
        inbox.stop()
    sent = int(streamed.summary()["sent"].iat[0])
    assert 0 < sent < 400 and len(computed) == sent and computed.attrs["audience"] == 400
    share = delivery_breakdown(computed)["audience_share"]
    assert share.loc["total"] == pytest.approx(sent / 400)
    assert share.iloc[:-1].sum() == pytest.approx(sent / 400)
    assert cost_breakdown(computed)["audience_share"].loc["total"] == pytest.approx(sent / 400)
    assert len(by_arm) == 60 and by_arm.attrs["audience"] == 100
    table = delivery_breakdown(by_arm, by="arm")
    assert table.loc["total", "audience_share"] == pytest.approx(0.6)
    assert table["audience_share"].iloc[:-1].sum() == pytest.approx(0.6)


def test_the_cli_says_a_short_send_with_its_own_command(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """`smskit send` (a real process) stopped by credit: exit 7, one stderr line with the
    count, the reason and `smskit campaign resume JOURNAL` (no Python); `campaign status`
    then shows the reason (--json summary's stopped) and says the same line."""
    fresh_sandbox.set_balance(0.01)
    numbers = tmp_path / "numbers.csv"
    numbers.write_text("phone_number\n" + "\n".join(fr_mobiles(5)) + "\n")
    path = tmp_path / "cli.journal.sqlite"
    env = {**os.environ, "SMSKIT_BASE_URL": fresh_sandbox.url,
           "SMSKIT_API_LOGIN": fresh_sandbox.login, "SMSKIT_API_KEY": fresh_sandbox.api_key,
           "SMSKIT_NOW": "2026-03-10T10:00:00+01:00"}  # fmt: skip

    def smskit_cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "smskit", "--quiet", *args], env=env, capture_output=True,
            text=True, timeout=120, check=False,
        )  # fmt: skip

    sent = smskit_cli("send", "--csv", str(numbers), "--text", TEXT, "--sender", "Shop",
                      "--journal", str(path), "--yes")  # fmt: skip
    assert sent.returncode == 7, sent.stderr
    (line,) = [s for s in sent.stderr.splitlines() if "not sent" in s]
    assert line.startswith("smskit: 5 of 5 recipient(s) not sent (insufficient credit")
    assert f"`smskit campaign resume {path}`" in line
    assert "Campaign.resume" not in sent.stderr and "Warning" not in sent.stderr
    status = smskit_cli("campaign", "status", str(path), "--json")
    assert status.returncode == 7
    assert "insufficient credit" in json.loads(status.stdout)["summary"]["stopped"]
    assert json.loads(status.stdout)["summary"]["not_sent"] == 5
    assert f"`smskit campaign resume {path}`" in status.stderr
