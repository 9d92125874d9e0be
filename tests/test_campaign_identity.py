"""A campaign's identity: its creation time unless the user names it. The same content
created on another day is sent again; a named campaign and a journal resume continue."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import smskit
from smskit.campaigns.campaign import Campaign
from smskit.sandbox import Sandbox

ALERT = "Alerte serveur: disque plein"
DAY_ONE = datetime(2026, 3, 2, 7, 0, tzinfo=UTC)


@pytest.fixture
def client(fresh_sandbox: Sandbox) -> Iterator[smskit.Client]:
    with smskit.Client(sandbox=fresh_sandbox) as c:
        yield c


def alert(client: smskit.Client, when: datetime, **options: object) -> Campaign:
    """The daily alert to one number, created at ``when``."""
    return Campaign(
        client, ["+33612345678"], text=ALERT, sender="Ops", purpose="alert",
        clock=lambda: when, **options,
    )  # fmt: skip


def test_unnamed_campaign_is_named_with_its_creation_time(client: smskit.Client) -> None:
    """The default name carries the creation instant (UTC, microseconds) and the content hash:
    the same content a day later differs only in the time part."""
    first = alert(client, DAY_ONE).name
    later = alert(client, DAY_ONE + timedelta(days=1)).name
    assert first.startswith("campaign-20260302T070000.000000Z-")
    assert later.startswith("campaign-20260303T070000.000000Z-")
    assert first.rsplit("-", 1)[1] == later.rsplit("-", 1)[1]


def test_same_alert_on_another_day_is_sent_again(
    client: smskit.Client, fresh_sandbox: Sandbox
) -> None:
    """The daily alert created on day one then on day two (default journals): two SMS are
    accepted and billed, not one sent and one answered "already sent"."""
    before = fresh_sandbox.balance()
    for when in (DAY_ONE, DAY_ONE + timedelta(days=1)):
        result = alert(client, when).send(progress=False)
        assert result.complete
    assert len(fresh_sandbox.sent()) == 2
    assert fresh_sandbox.balance() < before - 0.1  # two SMS billed (0.065 EUR each)


def test_named_campaign_created_again_continues_its_journal(
    client: smskit.Client, fresh_sandbox: Sandbox
) -> None:
    """A name is the user's identity: the same named campaign created again later finds its
    journal and sends nothing twice."""
    for when in (DAY_ONE, DAY_ONE + timedelta(days=1)):
        alert(client, when, name="server-alert").send(progress=False)
    assert len(fresh_sandbox.sent()) == 1


def test_resume_by_journal_still_finishes_an_unnamed_campaign(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """An unnamed campaign stopped by a lack of credit is finished by Campaign.resume(journal)
    after a top-up: its identity is in the journal, not recomputed from the clock."""
    fresh_sandbox.set_balance(0.0)
    journal = tmp_path / "j.sqlite"
    first = alert(client, DAY_ONE).send(progress=False, journal=journal)
    assert not first.complete and fresh_sandbox.sent().empty
    fresh_sandbox.set_balance(10.0)
    resumed = Campaign.resume(journal, client, progress=False)
    assert resumed.complete and resumed.name == first.name
    assert fresh_sandbox.sent()["phone_number"].tolist() == ["+33612345678"]


def test_campaigns_made_at_one_instant_differ_by_their_content(
    client: smskit.Client, fresh_sandbox: Sandbox
) -> None:
    """Two unnamed campaigns created in the same microsecond: texts that differ only in
    their URL get two names (the name hashes text, sender and options), two journals, and
    both are sent. The same content to other recipients shares the name: its send is
    refused naming the journal and saying to name it, and sends nothing."""
    numbers = ["+33612345678", "+33612345679"]
    made = [
        Campaign(client, numbers[:1], text=f"{ALERT}: https://status.example/{page}",
                 sender="Ops", purpose="alert", clock=lambda: DAY_ONE)
        for page in ("a", "b")
    ]  # fmt: skip
    assert made[0].name != made[1].name
    assert made[0].name.split("-")[1] == made[1].name.split("-")[1]  # the same instant
    assert made[0].default_journal() != made[1].default_journal()
    for campaign in made:
        assert campaign.send(progress=False).complete
    assert len(fresh_sandbox.sent()) == 2
    first = alert(client, DAY_ONE)
    other = Campaign(client, numbers[1:], text=ALERT, sender="Ops", purpose="alert",
                     clock=lambda: DAY_ONE)  # fmt: skip
    assert first.name == other.name
    first.send(progress=False)
    with pytest.raises(smskit.ConfigurationError, match=r"holds another campaign.*name="):
        other.send(progress=False)
    assert fresh_sandbox.sent()["phone_number"].tolist() == [numbers[0]] * 3
