"""Opt-outs that stick, end to end over real HTTP: a marketing send on the sandbox, its STOP
callbacks and a STOP reply received by an Inbox given the account, then the next preflight
excludes those numbers in pandas, Dask, the Composer and the CLI (finding ``opted_out``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

import pandas as pd
import pytest
from click.testing import CliRunner

import smskit
from smskit.cli import cli
from smskit.errors import ValidationError
from smskit.replies import Inbox
from smskit.sandbox import DeliveryModel, Sandbox

MARKETING = "Soldes -20% ce week-end ! STOP au 36173"
ALERT = "Votre code : 4821"
MOBILES = [f"+3367200{n:04d}" for n in range(40)]
REPLIER = "+33672009999"  # replies STOP to the first send (never sent to by it)
TUESDAY = "2026-03-03T10:00:00+01:00"  # inside the marketing hours


def national(e164: str) -> str:
    """A French E.164 number as a spreadsheet writes it (0 6 .. ..): the same number."""
    digits = "0" + e164[3:]
    return " ".join(digits[i : i + 2] for i in range(0, 10, 2))


@dataclass
class World:
    """A sandbox whose first marketing send brought STOPs to an Inbox fed to the account."""

    sandbox: Sandbox
    client: smskit.Client
    inbox: Inbox
    stopped: set[str]  # every number that asked to stop (callbacks and the reply)


@pytest.fixture
def world() -> Iterator[World]:
    """A marketing send to 40 numbers, a seeded share of them sending STOP callbacks, and a
    STOP reply from one more number; the Inbox is given the client's account."""
    model = DeliveryModel.fast(seed=11, stop_share=0.25)
    with (
        Sandbox(seed=5, delivery_model=model) as sb,
        smskit.Client(sandbox=sb) as client,
        Inbox(account=client) as inbox,
    ):
        sb.set_callback_url(inbox.url)
        client.sms_campaign.send(text=MARKETING, recipients=MOBILES, sender="Boutique")
        sb.simulate_reply(REPLIER, "stop svp")
        sb.wait_for_deliveries(timeout=60)
        scripted = sb.reports()
        stops = set(scripted.loc[scripted["kind"] == "stop", "number"])
        assert 0 < len(stops) < len(MOBILES)  # the seed gives some, not all
        inbox.wait(len(stops), kind="stop")
        yield World(sb, client, inbox, stops | {REPLIER})


def recipients() -> pd.DataFrame:
    """The next campaign's recipients: everyone, spelled nationally, plus the replier."""
    numbers = [national(n) for n in [*MOBILES, REPLIER]]
    return pd.DataFrame({"phone_number": numbers, "first_name": "Alex"})


def test_pandas_preflight_excludes_every_number_that_sent_stop(world: World) -> None:
    """smskit.Campaign: exactly the numbers that sent STOP (callback or reply) are excluded,
    with issue opted_out; the others are sent."""
    campaign = smskit.Campaign(world.client, recipients(), text=MARKETING, sender="Boutique")
    frame = campaign.preflight(now=pd.Timestamp(TUESDAY).to_pydatetime()).frame
    excluded = set(frame.loc[frame["issue"] == "opted_out", "phone_number"])
    assert excluded == world.stopped
    assert set(frame.loc[frame["send"], "phone_number"]) == set(MOBILES) - world.stopped


def test_the_send_skips_them_and_a_new_stop_between_preflight_and_send(world: World) -> None:
    """A send after preflight checks the list again: a number that opted out in between is
    not sent to either."""
    campaign = smskit.Campaign(world.client, recipients(), text=MARKETING, sender="Boutique")
    campaign.preflight(now=pd.Timestamp(TUESDAY).to_pydatetime())
    late = next(n for n in MOBILES if n not in world.stopped)
    world.sandbox.simulate_reply(late, "STOP")
    world.sandbox.wait_for_deliveries(timeout=30)
    result = campaign.send(progress=False)
    frame = result.to_frame()
    sent = set(frame.loc[frame["state"] == "sent", "phone_number"])
    assert sent == set(MOBILES) - world.stopped - {late}


def test_dask_preflight_excludes_them(world: World, dask_cluster: object) -> None:
    """smskit.dask.Campaign over three partitions: the same exclusions as pandas."""
    import dask.dataframe as dd

    import smskit.dask

    parts = dd.from_pandas(recipients(), npartitions=3)
    campaign = smskit.dask.Campaign(world.client, parts, text=MARKETING, sender="Boutique")
    report = campaign.preflight(now=pd.Timestamp(TUESDAY).to_pydatetime())
    frame = report.frame.compute()
    assert set(frame.loc[frame["issue"] == "opted_out", "phone_number"]) == world.stopped
    assert report.to_send == len(MOBILES) - len(world.stopped - {REPLIER})


def test_the_composer_excludes_them(world: World) -> None:
    """The Composer's panel (offline, at every keystroke) excludes them too, and so does the
    campaign it sends."""
    composer = smskit.Composer(world.client, recipients(), text=MARKETING, sender="Boutique")
    report = composer.preflight
    assert report is not None
    frame = report.frame
    assert set(frame.loc[frame["issue"] == "opted_out", "phone_number"]) == world.stopped
    assert report.issues()["opted_out"] == len(world.stopped)


def test_cli_send_excludes_them(world: World) -> None:
    """smskit send --dry-run --json lists each opted-out number as excluded, opted_out."""
    env = {
        "SMSKIT_BASE_URL": world.sandbox.url,
        "SMSKIT_API_LOGIN": world.sandbox.login,
        "SMSKIT_API_KEY": world.sandbox.api_key,
        "SMSKIT_NOW": TUESDAY,
    }
    args = ["send", "--text", MARKETING, "--sender", "Boutique", "--dry-run", "--json"]
    for number in [*MOBILES, REPLIER]:
        args += ["--to", number]
    result = CliRunner().invoke(cli, args, env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    excluded = [item for item in document["excluded"] if item["issue"] == "opted_out"]
    assert {item["phone_number"] for item in excluded} == world.stopped
    assert document["preflight"]["opted_out"] == len(world.stopped)
    assert document["preflight"]["to_send"] == len(MOBILES) + 1 - len(world.stopped)


def test_a_transactional_send_includes_them_only_when_told_and_says_so(world: World) -> None:
    """purpose=alert: excluded by default; include_opted_out=True sends to them, each row
    warned and the campaign's finding counting them."""
    numbers = recipients()
    default = smskit.Campaign(
        world.client, numbers, text=ALERT, sender="Banque", purpose="alert"
    ).preflight()
    assert default.issues()["opted_out"] == len(world.stopped)
    included = smskit.Campaign(
        world.client, numbers, text=ALERT, sender="Banque", purpose="alert",
        include_opted_out=True,
    ).preflight()  # fmt: skip
    frame = included.frame
    assert included.issues()["opted_out"] == 0 and frame["send"].all()
    warned = frame.loc[frame["warning"].astype(str).str.contains("opted out"), "phone_number"]
    assert set(warned) == world.stopped
    counted = [f for f in included.findings if f.code == "opted_outs_included"]
    assert [f.detail for f in counted] == [str(len(world.stopped))]


def test_a_marketing_send_refuses_to_include_them(world: World) -> None:
    """include_opted_out=True with a marketing purpose is refused, naming the option."""
    with pytest.raises(ValidationError) as caught:
        smskit.Campaign(
            world.client, recipients(), text=MARKETING, sender="Boutique",
            include_opted_out=True,
        )  # fmt: skip
    assert caught.value.field == "include_opted_out"


def test_dask_counts_the_opted_out_it_sends_anyway(world: World, dask_cluster: object) -> None:
    """A transactional Dask campaign with include_opted_out: nobody excluded as opted_out,
    and the finding counts them across partitions."""
    import dask.dataframe as dd

    import smskit.dask

    parts = dd.from_pandas(recipients(), npartitions=3)
    campaign = smskit.dask.Campaign(
        world.client, parts, text=ALERT, sender="Banque", purpose="alert",
        include_opted_out=True,
    )  # fmt: skip
    report = campaign.preflight()
    counted = [f.detail for f in report.findings if f.code == "opted_outs_included"]
    assert counted == [str(len(world.stopped))]
    assert report.to_send == len(MOBILES) + 1


def test_an_offline_preflight_without_a_client_says_the_list_was_not_read() -> None:
    """No client and offline: no list read, the campaign warning optouts_unread; with a
    client the list is read and nothing is said."""
    campaign = smskit.Campaign(None, ["+33612345678"], text=MARKETING, sender="Boutique")
    codes = [f.code for f in campaign.preflight(offline=True).findings]
    assert "optouts_unread" in codes
    with Sandbox() as sb, smskit.Client(sandbox=sb) as client:
        smskit.OptOuts(client).add(["+33612345678"])
        read = smskit.Campaign(client, ["+33612345678"], text=MARKETING, sender="Boutique")
        report = read.preflight(offline=True)
        assert "optouts_unread" not in [f.code for f in report.findings]
        assert report.issues()["opted_out"] == 1
