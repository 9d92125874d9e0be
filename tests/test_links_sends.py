"""Two sends of one campaign name have their own short links and their own clicks, over
real HTTP: a daily ``--name`` in two journals, a send given ``journal=``, a re-run that
continues its journal, and a journal whose tokens were derived from the name alone."""

from __future__ import annotations

from pathlib import Path

import httpx
import pandas as pd
import pytest
from _gateway import reporting_gateway

import smskit
from smskit.campaigns.campaign import Campaign, journal_check
from smskit.campaigns.planning import links as planning_links
from smskit.campaigns.send import JournalFit
from smskit.replies import Inbox
from smskit.rules.links import find_links
from smskit.sandbox import DeliveryModel, Sandbox

TEXT = "Soldes du jour {first_name}: https://shop.example/soldes STOP au 36173"
PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) Mobile/15E148 Safari/604.1"
RECIPIENTS = pd.DataFrame(
    {"phone_number": [f"+3361200{i:04d}" for i in range(6)], "first_name": ["Léa"] * 6}
)


def _links(sandbox: Sandbox, ticket: str) -> dict[str, str]:
    """Each number's short link in the send ``ticket`` as the gateway rendered it."""
    sent = sandbox.sent()
    sent = sent[sent["sms_ticket"] == ticket]
    return {
        n: find_links(t)[0].url for n, t in zip(sent["phone_number"], sent["text"], strict=True)
    }


def _click(url: str) -> None:
    answer = httpx.get(url, headers={"User-Agent": PHONE}, trust_env=False)
    assert answer.status_code == 302
    assert answer.headers["location"].startswith("https://shop.example/soldes?")


def _campaign(client: smskit.Client, inbox: Inbox, journal: Path) -> Campaign:
    return Campaign(
        client, RECIPIENTS, text=TEXT, sender="Shop", name="daily", track_links=inbox,
        purpose="alert", journal=journal,
    )  # fmt: skip


def _clicked(result: smskit.CampaignResult, inbox: Inbox) -> set[str]:
    outcomes = result.outcomes(inbox)
    return set(outcomes.loc[outcomes["clicked"], "phone_number"])


def test_two_campaigns_of_one_name_have_their_own_links_and_clicks(tmp_path: Path) -> None:
    """A daily campaign of one name, sent on two days in two journals (and the second one
    told its journal at send time): each recipient's links differ between the days, each
    redirects, and each day's outcomes count that day's clicks only. Planned again for its
    journal, the first day's campaign is the very campaign its journal holds."""
    (tmp_path / "mon").mkdir()
    (tmp_path / "tue").mkdir()
    gateway = reporting_gateway(DeliveryModel.fast(seed=3), tmp_path / "inbox.sqlite")
    with gateway as (sandbox, inbox, client):
        monday = _campaign(client, inbox, tmp_path / "mon" / "daily.journal.sqlite")
        first = monday.send(progress=False)
        tuesday = _campaign(client, inbox, tmp_path / "elsewhere.journal.sqlite")
        second = tuesday.send(progress=False, journal=tmp_path / "tue" / "daily.journal.sqlite")
        assert first.wait_for_outcomes(inbox, timeout=60) == 0
        assert second.wait_for_outcomes(inbox, timeout=60) == 0

        tickets = sandbox.sent()["sms_ticket"].drop_duplicates().tolist()
        assert len(tickets) == 2
        mon, tue = (_links(sandbox, ticket) for ticket in tickets)
        numbers = sorted(mon)
        assert all(mon[n] != tue[n] for n in numbers)
        for n in numbers[:2]:
            _click(mon[n])
        _click(tue[numbers[4]])

        assert _clicked(first, inbox) == set(numbers[:2])
        assert _clicked(second, inbox) == {numbers[4]}
        registered = inbox.links()
        assert len(registered) == 12
        assert set(registered["campaign"]) == {"daily"}

        again = _campaign(client, inbox, tmp_path / "mon" / "daily.journal.sqlite")
        assert journal_check(again).fit is JournalFit.COMPLETE


def test_a_journal_whose_tokens_came_from_the_name_alone_still_gives_its_clicks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A journal sent with tokens derived from the campaign's name alone (as smskit made
    them before a send's tokens depended on its journal) still gives its clicks: the
    outcomes join the tokens its journal holds."""
    gateway = reporting_gateway(DeliveryModel.fast(seed=4), tmp_path / "inbox.sqlite")
    with gateway as (sandbox, inbox, client):
        with monkeypatch.context() as patched:
            patched.setattr(planning_links, "token_scope", lambda campaign, journal: campaign)
            campaign = _campaign(client, inbox, tmp_path / "daily.journal.sqlite")
            result = campaign.send(progress=False)
        assert result.wait_for_outcomes(inbox, timeout=60) == 0
        links = _links(sandbox, sandbox.sent()["sms_ticket"].iloc[0])
        numbers = sorted(links)
        old = inbox.link_tokens("daily", [0], 0)[0]
        assert any(url.endswith(f"/{old}") for url in links.values())
        _click(links[numbers[1]])
        assert _clicked(result, inbox) == {numbers[1]}


def test_a_named_campaign_sent_again_in_its_numbered_journal_has_links_of_its_own(
    tmp_path: Path,
) -> None:
    """A named tracked campaign sent again after its embedded sandbox ended goes to
    ``<name>-2``: made in the new session (the journal found at creation) it has links of
    its own, every one redirecting; the inbox holds both sends' links, none shared."""
    path = tmp_path / "daily.journal.sqlite"
    sent: list[dict[str, str]] = []
    with Inbox(tmp_path / "inbox.sqlite") as inbox:
        for seed in (1, 2):
            with Sandbox(seed=seed) as box, smskit.Client(sandbox=box) as client:
                campaign = _campaign(client, inbox, path)
                if seed == 2:
                    with pytest.warns(UserWarning, match=r"daily-2\.journal\.sqlite"):
                        result = campaign.send(progress=False)
                    assert result.journal == tmp_path / "daily-2.journal.sqlite"
                else:
                    campaign.send(progress=False)
                sent.append(_links(box, box.sent()["sms_ticket"].iloc[0]))
        first, second = sent
        assert sorted(first) == sorted(second)
        assert all(first[n] != second[n] for n in first)
        for url in [*first.values(), *second.values()]:
            _click(url)
        assert len(inbox.links()) == 12
