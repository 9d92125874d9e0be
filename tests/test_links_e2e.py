"""Tracked links end to end over real HTTP: send, price, click as phones and bots, outcomes."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import pandas as pd
import pytest
from _clicks import simulate_clicks_at_once
from _gateway import reporting_gateway

import smskit
from smskit.campaigns.campaign import Campaign
from smskit.replies import Inbox
from smskit.rules.links import find_links
from smskit.sandbox import DeliveryModel, Sandbox

TEXT = (
    "Bonjour {first_name}, -30% sur la collection d'hiver jusqu'à dimanche: "
    "https://shop.example/hiver?ref=sms STOP au 36173"
)
PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) Mobile/15E148 Safari/604.1"


def _click(url: str, agent: str = PHONE, method: str = "GET") -> int:
    answer = httpx.request(method, url, headers={"User-Agent": agent}, trust_env=False)
    return answer.status_code


def test_a_2000_recipient_campaign_counts_human_clicks_exactly(tmp_path: Path) -> None:
    """2,000 recipients: estimate = billed; phones, bots and the sandbox click; outcomes count
    exactly the human clicks and flag the bots with their reasons."""
    recipients = pd.DataFrame(
        {
            "phone_number": [f"+3361{i:07d}" for i in range(2000)],
            "first_name": [("Zoé", "Léa", "Jean-Baptiste", "Al")[i % 4] for i in range(2000)],
        }
    )
    gateway = reporting_gateway(DeliveryModel.fast(seed=1), tmp_path / "inbox.sqlite")
    with gateway as (sandbox, inbox, client):
        campaign = Campaign(
            client, recipients, text=TEXT, sender="Shop", name="hiver", track_links=inbox,
            purpose="alert", journal=tmp_path / "hiver.journal.sqlite",
        )  # fmt: skip
        report = campaign.preflight()
        texts = report.to_frame()["text"].astype(str)
        assert texts.str.contains(f"{inbox.link_base}/", regex=False).all()
        estimate = campaign.estimate()
        result = campaign.send(progress=False)
        sent = sandbox.sent()
        assert len(sent) == 2000
        assert estimate.cost == pytest.approx(sent["cost"].sum())
        # Each recipient's text as the gateway rendered it is the one preflight counted.
        by_number = sent.set_index("phone_number")
        frame = report.to_frame().set_index("phone_number")
        assert (by_number["text"] == frame.loc[by_number.index, "text"].astype(str)).all()
        assert (by_number["segments"] == frame.loc[by_number.index, "segments"]).all()
        assert result.wait_for_outcomes(inbox, timeout=60) == 0

        pairs = zip(sent["phone_number"], sent["text"], strict=True)
        link_of = {n: find_links(t)[0].url for n, t in pairs}
        numbers = sorted(link_of)
        phones, previews, checkers, scanners = (
            numbers[0:40], numbers[40:60], numbers[60:70], numbers[70:80],
        )  # fmt: skip
        assert {_click(link_of[n]) for n in phones} == {302}
        for n in previews:
            _click(link_of[n], "WhatsApp/2.23.20.0 A")
        for n in checkers:
            _click(link_of[n], method="HEAD")
        for n in scanners:
            for _ in range(3):
                _click(link_of[n], "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/124.0")
        time.sleep(1.2)  # the sandbox's bots come next: not within a second of ours
        # The four sends' clicks at once, as four analysts' cells would (each send's links
        # are its own recipients': no link is clicked by two of them).
        made = pd.concat(simulate_clicks_at_once(sandbox, [
            (ticket, {"rate": 0.2, "bot_share": 0.1, "seed": seed})
            for seed, ticket in enumerate(sorted(sent["sms_ticket"].unique()))
        ]))  # fmt: skip
        assert (made["status"] == 302).all()

        outcomes = result.outcomes(inbox)
        humans = made.loc[made["who"] == "human", "phone_number"].tolist() + phones
        expected = pd.Series(humans).value_counts()
        got = outcomes.set_index("phone_number")["clicks"]
        assert got.sum() == len(humans)
        assert (got[got > 0].sort_index() == expected.sort_index()).all()
        assert outcomes["clicked"].sum() == expected.size
        reasons = outcomes.set_index("phone_number")["bot_reasons"]
        assert reasons[previews].str.contains("agent:whatsapp").all()
        assert reasons[checkers].str.contains("head").all()
        assert reasons[scanners].str.contains("burst").all()
        assert outcomes["bot_clicks"].sum() == len(inbox.clicks()) - len(humans)
        ledger = smskit.campaigns.history(tmp_path / "hiver.journal.sqlite", inbox=inbox)
        assert ledger.loc[0, "clicked"] == expected.size


CHILD = textwrap.dedent(
    """
    import sys
    import smskit
    from smskit.client.clients import Backoff

    client = smskit.Client(max_retries=5, backoff=Backoff(base=0.01, cap=0.05))
    numbers = [f"+3362{i:07d}" for i in range(1500)]
    inbox = smskit.Inbox(sys.argv[3])
    campaign = smskit.Campaign(client, numbers, text=sys.argv[2], sender="Shop", name="crash",
                               track_links=inbox, purpose="alert")
    campaign.send(journal=sys.argv[1], chunk_size=100, concurrency=2, progress=False)
    print("finished", flush=True)
    """
)


def _chunks_done(path: Path) -> int | None:
    """Chunks the journal records as sent; None before the child made it (never created here)."""
    if not path.exists():
        return None
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            return int(
                db.execute(
                    "SELECT COUNT(*) FROM chunks WHERE state IN ('sent', 'already_accepted')"
                ).fetchone()[0]
            )
    except sqlite3.OperationalError:
        return None


def test_a_click_on_a_resumed_campaign_lands_on_its_recipient(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Killed midway and resumed: each text's link (before and after the kill) is its own
    recipient's, and a click on it counts for that recipient."""
    journal = tmp_path / "crash.journal.sqlite"
    inbox_path = tmp_path / "inbox.sqlite"
    fresh_sandbox.inject_faults(latency=(0.1, 0.2))
    env = {
        **os.environ,
        "SMSKIT_API_LOGIN": fresh_sandbox.login,
        "SMSKIT_API_KEY": fresh_sandbox.api_key,
        "SMSKIT_BASE_URL": fresh_sandbox.url,
    }
    with Inbox(inbox_path) as inbox:
        text = "Soldes https://shop.example/crash"
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(journal), text, str(inbox_path)],
            env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        try:
            while time.monotonic() < deadline:
                done = _chunks_done(journal)
                if done is not None and done >= 3:
                    break
                time.sleep(0.02)
        finally:
            child.send_signal(signal.SIGKILL)
            out, err = child.communicate(timeout=10)
        assert child.returncode == -signal.SIGKILL, err.decode()
        assert b"finished" not in out
        before = set(fresh_sandbox.sent()["phone_number"])
        assert 0 < len(before) < 1500
        fresh_sandbox.clear_faults()
        with smskit.Client(sandbox=fresh_sandbox) as client:
            result = Campaign.resume(journal, client, progress=False)
        assert result.complete
        sent = fresh_sandbox.sent()
        assert sent["phone_number"].is_unique and len(sent) == 1500
        registered = inbox.links().set_index("token")["phone_number"]
        pairs = zip(sent["phone_number"], sent["text"], strict=True)
        links = {n: find_links(t)[0].url for n, t in pairs}
        tokens = {n: url.rsplit("/", 1)[1] for n, url in links.items()}
        assert all(registered[tokens[n]] == n for n in links)
        early = sorted(before)[0]
        late = sorted(set(links) - before)[0]
        assert _click(links[early]) == 302 and _click(links[late]) == 302
        clicks = inbox.clicks()
        assert sorted(clicks["phone_number"]) == sorted([early, late])
        outcomes = result.outcomes(inbox).set_index("phone_number")
        assert outcomes.loc[[early, late], "clicks"].tolist() == [1, 1]
        assert outcomes["clicks"].sum() == 2


def test_an_experiment_tracks_each_arm_s_links_and_compares_clicked(tmp_path: Path) -> None:
    """Each arm's texts carry their own short links; compare() gains the clicked metric,
    counted from each arm's human clicks."""
    customers = [f"+3361{i:07d}" for i in range(200)]
    with reporting_gateway(DeliveryModel.fast(seed=2), None) as (sandbox, inbox, client):
        experiment = smskit.Experiment(
            client, customers, sender="Shop", name="ab-links", seed=3, purpose="alert",
            directory=tmp_path, track_links=inbox,
            variants={"A": "Soldes https://shop.example/a", "B": "-20% https://shop.example/b"},
        )  # fmt: skip
        sent = experiment.send(progress=False)
        rates = {"A": 0.1, "B": 0.4}
        for arm in rates:
            assert sent.arms[arm].wait_for_outcomes(inbox, timeout=60) == 0
        simulate_clicks_at_once(sandbox, [
            (ticket, {"rate": rate, "bot_share": 0.1, "seed": 1})
            for arm, rate in rates.items()
            for ticket in sent.arms[arm].to_frame()["ticket"].dropna().unique()
        ])  # fmt: skip
        destinations = inbox.links().groupby("campaign")["destination"].first()
        assert destinations["ab-links.A"].startswith("https://shop.example/a?utm_source=sms")
        comparison = experiment.compare(inbox)
        outcomes = sent.outcomes(inbox)
        clicked = comparison.counts.set_index("arm")["clicked"]
        per_arm = outcomes.groupby("arm", observed=True)["clicked"].sum()
        assert clicked.to_dict() == per_arm.to_dict()
        assert clicked["B"] > clicked["A"] > 0
        assert "clicked" in set(comparison.rates["metric"].astype(str))
        assert len(smskit.plots.experiment_arms(comparison).layout.annotations) >= 4


def test_a_click_before_its_message_was_delivered_is_a_bot_and_after_it_human(
    tmp_path: Path,
) -> None:
    """Phones' GETs made before the delivery report are flagged ``before_delivery``; the
    same links opened after delivery count as human clicks."""
    numbers = [f"+3361{i:07d}" for i in range(8)]
    # Network time twice as fast as real: a live phone's report comes 1.5 s to 30 s after.
    model = DeliveryModel(seed=3, time_scale=0.5)
    with reporting_gateway(model, tmp_path / "inbox.sqlite") as (sandbox, inbox, client):
        campaign = Campaign(
            client, numbers, text="Soldes https://shop.example/early", sender="Shop",
            name="early", track_links=inbox, purpose="alert",
        )  # fmt: skip
        result = campaign.send(journal=tmp_path / "early.sqlite", progress=False)
        sent = sandbox.sent()
        pairs = zip(sent["phone_number"], sent["text"], strict=True)
        links = {n: find_links(t)[0].url for n, t in pairs}
        assert {_click(links[n]) for n in numbers} == {302}
        deadline = time.monotonic() + 45  # some phones are off for hours: not waited for
        while time.monotonic() < deadline:
            outcomes = result.outcomes(inbox).set_index("phone_number")
            delivered = outcomes.index[outcomes["status"] == "DELIVERED"].tolist()
            if len(delivered) >= 3:
                break
            time.sleep(0.2)
        assert len(delivered) >= 3, outcomes["status"]
        # Which clicks came before the first sign of delivery, read from the inbox itself
        # (a loaded machine may click late): the earlier of the report's arrival and date.
        reports = inbox.delivery_reports(time_zone="UTC")
        reports = reports[reports["status"] == "DELIVERED"].set_index("number")
        sign = reports[["received_at", "delivery_date"]].min(axis=1)
        clicked_at = inbox.clicks(time_zone="UTC").set_index("phone_number")["at"]
        before = pd.Series({n: clicked_at[n] < sign[n] for n in delivered})
        assert before.sum() >= 2  # the rule is exercised, not only its absence
        early = outcomes.loc[delivered]
        expected = before.map({True: "before_delivery", False: ""})
        assert early["bot_reasons"].tolist() == expected[delivered].tolist()
        assert early["clicks"].tolist() == [1 - int(b) for b in before[delivered]]
        for number in delivered:
            assert _click(links[number]) == 302
        later = result.outcomes(inbox).set_index("phone_number").loc[delivered]
        assert later["clicks"].tolist() == [2 - int(b) for b in before[delivered]]
        assert later["first_click_date"].notna().all()
