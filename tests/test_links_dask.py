"""Tracked links on a Dask campaign, over real HTTP on a 2-worker LocalCluster: each
partition's short links, registered before the send, priced exactly, clicked, resumed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dask.dataframe as dd
import httpx
import numpy as np
import pandas as pd
import pytest
from _gateway import reporting_gateway

import smskit
from smskit.dask import Campaign as DaskCampaign
from smskit.errors import ValidationError
from smskit.replies import Inbox
from smskit.rules.links import TOKEN_RE, find_links
from smskit.sandbox import DeliveryModel, Sandbox

TEXT = "Bonjour {first_name}, -30% ce week-end: https://shop.example/hiver?ref=sms STOP au 36173"
PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) Mobile/15E148 Safari/604.1"
FR_PREMIUM = 0.065  # EUR per segment (docs/sandbox.md)


def _base(rows: int, seed: int) -> pd.DataFrame:
    """French numbers, a few unreadable or repeated, names that make some texts UCS-2 or
    two segments long."""
    rng = np.random.default_rng(seed)
    numbers = [f"+3367{n:07d}" for n in rng.choice(10**7, rows, replace=False)]
    for at in rng.choice(np.arange(rows // 4, rows), rows // 20, replace=False):
        numbers[at] = numbers[int(rng.integers(0, rows // 4))] if at % 2 else "hello"
    names = ["Ann", "Zoë", "Jean-Baptiste-Alexandre", None]
    return pd.DataFrame(
        {"phone_number": numbers, "first_name": rng.choice(np.array(names, dtype=object), rows)}
    )


def _links(sent: pd.DataFrame) -> dict[str, str]:
    """Each sent number's short link, read from the text the gateway rendered."""
    pairs = zip(sent["phone_number"], sent["text"], strict=True)
    return {number: find_links(text)[0].url for number, text in pairs}


def test_a_dask_campaign_sends_each_recipient_its_own_link_and_clicks_land_on_them(
    dask_cluster: Any, tmp_path: Path
) -> None:
    """4 partitions: every text carries a distinct unguessable short link registered for its
    recipient before the send; the estimate equals the billed cost; clicks as phones and as a
    preview bot land on their recipients in the Dask outcomes."""
    base = _base(800, 0)
    gateway = reporting_gateway(DeliveryModel.fast(seed=1), tmp_path / "inbox.sqlite")
    with gateway as (sandbox, inbox, client):
        campaign = DaskCampaign(
            client, dd.from_pandas(base, npartitions=4), text=TEXT, sender="Shop",
            name="hiver-dask", track_links=inbox, purpose="alert",
        )  # fmt: skip
        estimate = campaign.estimate()
        assert inbox.links().empty  # an estimate registers nothing
        result = campaign.send(journal=tmp_path / "j.sqlite", chunk_size=150, progress=False)
        assert result.complete
        sent = sandbox.sent()
        assert len(sent) == result.summary()["sent"].iat[0] > 700
        assert estimate.cost == pytest.approx(sent["cost"].sum())
        links = _links(sent)
        tokens = {n: url.removeprefix(f"{inbox.link_base}/") for n, url in links.items()}
        assert all(TOKEN_RE.fullmatch(t) for t in tokens.values())
        assert len(set(tokens.values())) == len(tokens)  # no collision across partitions
        registered = inbox.links().set_index("token")
        assert len(registered) == len(sent)  # only the recipients sent to
        assert all(registered.loc[t, "phone_number"] == n for n, t in tokens.items())
        assert set(registered["destination"]) == {
            "https://shop.example/hiver?ref=sms&utm_source=sms&utm_campaign=hiver-dask"
        }
        assert result.wait_for_outcomes(inbox, timeout=60) == 0
        numbers = sorted(links)
        phones, previews = numbers[:25], numbers[25:35]
        for number in phones:
            answer = httpx.get(links[number], headers={"User-Agent": PHONE}, trust_env=False)
            assert answer.status_code == 302
            assert answer.headers["location"] == registered.loc[tokens[number], "destination"]
        for number in previews:
            httpx.get(links[number], headers={"User-Agent": "WhatsApp/2.23.20.0 A"})
        outcomes = result.outcomes(inbox).compute().set_index("phone_number")
        assert outcomes["clicks"].sum() == len(phones)
        assert (outcomes.loc[phones, "clicks"] == 1).all()
        assert outcomes.loc[previews, "bot_reasons"].str.contains("agent:whatsapp").all()
        assert outcomes.loc[previews, "bot_clicks"].sum() == len(previews)


def test_a_resumed_dask_send_reuses_its_tokens(
    dask_cluster: Any, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Credit runs out midway; after a top-up the resume sends the rest with the links
    registered before the first chunk went: no new token, each on its own recipient."""
    fresh_sandbox.set_balance(FR_PREMIUM * 300)
    numbers = [f"+3366{i:07d}" for i in range(1000)]
    journal = tmp_path / "j.sqlite"
    with Inbox(tmp_path / "inbox.sqlite") as inbox, smskit.Client(sandbox=fresh_sandbox) as client:
        campaign = DaskCampaign(
            client, dd.from_pandas(pd.DataFrame({"phone_number": numbers}), npartitions=3),
            text="Soldes https://shop.example/a", sender="Shop", name="cut",
            track_links=inbox, purpose="alert",
        )  # fmt: skip
        with pytest.warns(smskit.campaigns.IncompleteSendWarning, match="insufficient credit"):
            first = campaign.send(journal=journal, chunk_size=100, progress=False)
        assert first.stopped is not None and "insufficient credit" in first.stopped
        before = inbox.links()
        assert len(before) == 1000  # every link registered before the first chunk went
        early = set(fresh_sandbox.sent()["phone_number"])
        assert 0 < len(early) < 1000
        fresh_sandbox.set_balance(1000.0)
        again = DaskCampaign.resume(journal, client, progress=False)
        assert again.complete
        sent = fresh_sandbox.sent()
        assert sent["phone_number"].is_unique and len(sent) == 1000
        pd.testing.assert_frame_equal(inbox.links(), before)  # the resume made none
        owner = before.set_index("token")["phone_number"]
        for number, url in _links(sent).items():
            assert owner[url.rsplit("/", 1)[1]] == number
        late = sorted(set(numbers) - early)[0]
        assert httpx.get(_links(sent)[late], trust_env=False).status_code == 302
        assert inbox.clicks()["phone_number"].tolist() == [late]


@pytest.mark.parametrize("seed", [0, 1])
def test_pandas_and_dask_count_the_same_tracked_texts(
    dask_cluster: Any, sandbox: Sandbox, seed: int
) -> None:
    """The same audience with tracked links: each recipient's text has the same length,
    encoding, segments and cost both ways, and so has the estimate."""
    base = _base(600, seed)
    with Inbox() as inbox, smskit.Client(sandbox=sandbox) as client:
        common: dict[str, Any] = {
            "text": TEXT,
            "sender": "Shop",
            "name": "same",
            "track_links": inbox,
        }
        plain = smskit.Campaign(client, base, **common).preflight()
        dask_campaign = DaskCampaign(client, dd.from_pandas(base, npartitions=3), **common)
        lazy = dask_campaign.preflight()
        columns = ["row", "encoding", "characters", "segments", "cost", "issue", "send"]
        theirs = plain.to_frame()[columns].reset_index(drop=True)
        ours = lazy.frame.compute().sort_values("row")[columns].reset_index(drop=True)
        for frame in (theirs, ours):
            frame["encoding"] = frame["encoding"].astype(str)
            frame["issue"] = frame["issue"].astype(str)
        pd.testing.assert_frame_equal(ours, theirs, check_dtype=False)
        assert set(ours["encoding"]) == {"GSM-7", "UCS-2"}
        assert ours["segments"].max() >= 2
        prices = {"FR": FR_PREMIUM}
        offline = smskit.Campaign(client, base, **common).estimate(offline=True, unit_prices=prices)
        assert dask_campaign.estimate(offline=True, unit_prices=prices).cost == pytest.approx(
            offline.cost
        )


def test_a_dask_campaign_tracking_links_keeps_its_text(dask_cluster: Any) -> None:
    """A text given to a tracking Dask campaign after it was made is refused at preflight."""
    frame = dd.from_pandas(pd.DataFrame({"phone_number": ["+33612345678"]}), npartitions=1)
    with Inbox() as inbox:
        campaign = DaskCampaign(
            None, frame, text="Vite https://shop.example", sender="Shop", track_links=inbox
        )
        campaign.text = "Vite https://shop.example/autre"
        with pytest.raises(ValidationError, match="keeps the text it was made with"):
            campaign.preflight(offline=True)


def test_the_repeat_guard_counts_a_tracked_link_alike_in_pandas_and_dask(
    dask_cluster: Any, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """One rule for both executors: the same tracked send made again 5 minutes later (an
    unnamed campaign: new short links, a new utm_campaign) is a repeat, refused before any
    request; another destination, or one filled from another field value, is not. Pandas and
    Dask give the same verdicts, and count each row's link as the same destination."""
    from datetime import UTC, datetime, timedelta

    import dask

    now = datetime(2026, 3, 3, 10, 0, tzinfo=UTC)
    text = "Votre colis: https://track.example/c?id={param1} STOP au 36173"
    people = pd.DataFrame(
        {"phone_number": [f"+3361234{i:04d}" for i in range(6)], "param1": list("abcdef")}
    )
    moved = people.assign(param1=list("uvwxyz"))
    with Inbox(tmp_path / "inbox.sqlite") as inbox, smskit.Client(sandbox=fresh_sandbox) as client:

        def pandas_campaign(at: datetime, body: str, rows: pd.DataFrame) -> Any:
            return smskit.Campaign(client, rows, text=body, sender="Ops", purpose="alert",
                                   clock=lambda: at, repeat_window=timedelta(minutes=10),
                                   track_links=inbox)  # fmt: skip

        def dask_campaign(at: datetime, body: str, rows: pd.DataFrame) -> Any:
            return DaskCampaign(client, dd.from_pandas(rows, npartitions=2), text=body,
                                sender="Ops", purpose="alert", clock=lambda: at,
                                repeat_window=timedelta(minutes=10), track_links=inbox)  # fmt: skip

        verdicts = {}
        for kind, make in (("pandas", pandas_campaign), ("dask", dask_campaign)):
            body = f"{text} ({kind})"  # each executor's sends are its own
            make(now, body, people).send(progress=False, journal=tmp_path / f"{kind}-1.sqlite")
            sent = len(fresh_sandbox.sent())
            later = now + timedelta(minutes=5)
            again = make(later, body, people)
            verdict = [again.earlier_send() is not None]
            try:
                again.send(progress=False, journal=tmp_path / f"{kind}-2.sqlite")
                verdict.append(False)
            except smskit.RepeatedSend:
                verdict.append(True)
            verdict.append(len(fresh_sandbox.sent()) == sent)
            elsewhere = make(later, body.replace("track.", "suivi."), people)
            verdict.append(elsewhere.earlier_send() is not None)
            verdict.append(make(later, body, moved).earlier_send() is not None)
            verdicts[kind] = verdict
        assert verdicts["pandas"] == verdicts["dask"] == [True, True, True, False, False]

        # Row by row, the guard counts the same value for the link both ways.
        from smskit.dask.links import written_kept

        plain = pandas_campaign(now, text, people)
        lazy = dask_campaign(now, text, people)
        report = plain.preflight()
        field = plain.tracking.tracked.fields[0]
        rows = report.to_frame()["row"].astype(int).tolist()
        theirs = dict(zip(rows, plain.tracking.content_columns(rows)[field], strict=True))
        kept = lazy.preflight().kept()
        ours_parts = dask.compute(*written_kept(lazy.tracking, kept, lazy.recipients))
        ours = pd.concat(ours_parts)
        assert dict(zip(ours["row"].astype(int), ours[f"field:{field}"], strict=True)) == theirs
        assert set(theirs.values()) == {f"https://track.example/c?id={v}" for v in "abcdef"}


def test_two_dask_campaigns_of_one_name_count_their_own_clicks(
    dask_cluster: Any, tmp_path: Path
) -> None:
    """A daily Dask campaign of one name journaled on two days, each told its journal at
    send time (made for another): each recipient's links differ between the days, and each
    day's outcomes count that day's clicks only (joined by the tokens each partition's staged
    file sent, not by the name)."""
    base = _base(60, 5)
    (tmp_path / "mon").mkdir()
    (tmp_path / "tue").mkdir()
    gateway = reporting_gateway(DeliveryModel.fast(seed=2), tmp_path / "inbox.sqlite")
    with gateway as (sandbox, inbox, client):
        results, links = [], []
        # Each is told its journal at send time: its links are made again for it.
        for day in ("mon", "tue"):
            campaign = DaskCampaign(
                client, dd.from_pandas(base, npartitions=3), text=TEXT, sender="Shop",
                name="daily", track_links=inbox, purpose="alert",
                journal=tmp_path / "made.journal.sqlite",
            )  # fmt: skip
            before = len(sandbox.sent())
            journal = tmp_path / day / "daily.journal.sqlite"
            results.append(campaign.send(progress=False, journal=journal))
            links.append(_links(sandbox.sent().iloc[before:]))
        for result in results:
            assert result.wait_for_outcomes(inbox, timeout=60) == 0
        mon, tue = links
        numbers = sorted(mon)
        assert all(mon[n] != tue[n] for n in numbers)
        for url in (mon[numbers[0]], mon[numbers[1]], tue[numbers[5]]):
            answer = httpx.get(url, headers={"User-Agent": PHONE}, trust_env=False)
            assert answer.status_code == 302
        clicked = []
        for result in results:
            outcomes = result.outcomes(inbox).compute()
            clicked.append(set(outcomes.loc[outcomes["clicked"], "phone_number"]))
        assert clicked == [{numbers[0], numbers[1]}, {numbers[5]}]
