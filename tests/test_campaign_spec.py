"""A campaign is a value: the spec checked once, edited by replacement; the default region as
one setting; the front ends (pandas, Dask, Composer) on one spec, and the async operations
with their generated blocking twins, against the sandbox over real HTTP."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import dask.dataframe as dd
import pandas as pd
import pytest
from distributed import Client as DaskClient

import smskit
import smskit.dask
from smskit.campaigns.planning.spec import CampaignSpec
from smskit.rules.fields import DYNAMIC_FIELDS
from smskit.rules.region import ENV_DEFAULT_REGION, default_region_setting
from smskit.sandbox import Sandbox
from smskit.views.composer import Composer

TEXT = "Bonjour {first_name}, -20% ce week-end. STOP au 36173"
CREATED = datetime(2025, 6, 16, 8, tzinfo=UTC)


def fr_mobiles(count: int) -> list[str]:
    """Distinct valid French mobile numbers."""
    return [f"+3361{i:07d}" for i in range(count)]


# -- the spec ---------------------------------------------------------------------------------


def test_a_spec_is_checked_once_and_frozen() -> None:
    """A wrong option, name, region or journal is refused naming its field; a made spec
    cannot be changed in place, and its options are read-only."""
    for changes, field in (
        ({"options": {"purpose": "spam"}}, "purpose"),
        ({"options": {"simulation_mode": True}}, "simulation_mode"),
        ({"name": "no spaces allowed"}, "name"),
        ({"default_region": "fr"}, "default_region"),
        ({"journal": 42}, "journal"),
        ({"text": None}, "text"),
    ):
        arguments = {"text": TEXT, "sender": "Shop", **changes}
        with pytest.raises(smskit.ValidationError, match=field):
            CampaignSpec(**arguments)  # type: ignore[arg-type]
    spec = CampaignSpec(TEXT, "Shop", {"purpose": "wholesale"}, created=CREATED)
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.text = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        spec.options["purpose"] = "transactional"  # type: ignore[index]
    same = CampaignSpec(TEXT, "Shop", {"purpose": "wholesale"}, created=CREATED)
    assert same == spec and hash(same) == hash(spec)
    assert spec.replace(text="Promo STOP au 36173").created == CREATED  # made once, kept
    with pytest.raises(smskit.ValidationError, match="clock"):
        CampaignSpec(TEXT, "Shop", clock=lambda: datetime(2025, 6, 16, 10))  # naive


@pytest.mark.parametrize("options", [["purpose"], "purpose=alert", 7])
def test_options_that_are_not_a_mapping_are_refused(options: object) -> None:
    """CampaignSpec(options=...) takes a mapping of send options, nothing else."""
    with pytest.raises(smskit.ValidationError) as refused:
        CampaignSpec(TEXT, "Shop", options)  # type: ignore[arg-type]
    assert str(refused.value) == "options: must be a mapping of send options"


@pytest.mark.parametrize("clock", ["now", CREATED, 1750060800])
def test_a_clock_that_is_not_a_function_is_refused(clock: object) -> None:
    """clock= is a function returning an aware datetime: an instant itself (or text) is
    refused naming clock, never taken as "now"."""
    with pytest.raises(smskit.ValidationError) as refused:
        CampaignSpec(TEXT, "Shop", clock=clock)  # type: ignore[arg-type]
    assert str(refused.value) == "clock: must be a function returning an aware datetime"


def test_replacing_a_field_checks_again_and_a_derived_name_follows() -> None:
    """replace() makes a new spec, checked: a derived identity follows the text (its creation
    time kept), a given name stays; the journal path is the identity's unless one is set."""
    spec = CampaignSpec(TEXT, "Shop", created=CREATED)
    other = spec.replace(text="Promo STOP au 36173")
    assert other.identity != spec.identity
    assert other.identity.startswith("campaign-20250616T080000.000000Z-")
    assert spec.text == TEXT  # the first spec is unchanged
    named = spec.replace(name="june").replace(text="Promo STOP au 36173")
    assert named.identity == "june"
    assert named.journal_path().name == "june.journal.sqlite"
    assert named.replace(journal="x/j.sqlite").journal_path() == Path("x/j.sqlite")
    with pytest.raises(smskit.ValidationError, match="send_at"):
        spec.replace(options={"send_at": "tomorrow"})


def test_assigning_a_campaign_s_text_gives_it_an_edited_spec(client: smskit.Client) -> None:
    """campaign.text = ... replaces the spec (checked), the old spec object is untouched."""
    campaign = smskit.Campaign(client, fr_mobiles(2), text=TEXT, sender="Shop", name="june")
    first = campaign.spec
    campaign.text = "Promo STOP au 36173"
    assert campaign.spec is not first and first.text == TEXT
    assert campaign.spec == first.replace(text="Promo STOP au 36173")
    assert repr(campaign) == (
        "Campaign('june', 2 rows in memory, text='Promo STOP au 36173', sender='Shop')"
    )


def test_from_spec_makes_the_same_campaign(client: smskit.Client) -> None:
    """Campaign.from_spec(client, recipients, spec) holds an equal spec and plans the same
    campaign id as the constructor given the same values."""
    made = smskit.Campaign(client, fr_mobiles(3), text=TEXT, sender="Shop", purpose="wholesale")
    again = smskit.Campaign.from_spec(client, fr_mobiles(3), made.spec)
    assert again.spec == made.spec
    assert again._plan(500).campaign_id == made._plan(500).campaign_id


# -- the default region -----------------------------------------------------------------------


def test_the_default_region_setting_reads_the_environment() -> None:
    """FR without the variable; another code as named; empty means none; a malformed value
    is refused naming the variable."""
    assert default_region_setting({}) == "FR"
    assert default_region_setting({ENV_DEFAULT_REGION: "BE"}) == "BE"
    assert default_region_setting({ENV_DEFAULT_REGION: ""}) is None
    with pytest.raises(smskit.ValidationError, match=ENV_DEFAULT_REGION):
        default_region_setting({ENV_DEFAULT_REGION: "belgium"})


def test_every_default_region_default_is_the_setting() -> None:
    """Run with SMSKIT_DEFAULT_REGION=BE: the campaigns, the Composer, bulk helpers,
    normalize and preflight settings all default to BE (no "FR" written anywhere else)."""
    probe = (
        "import inspect, smskit, smskit.dask, smskit.dask.partitionwise, smskit.phones\n"
        "from smskit.views.composer import Composer\n"
        "from smskit.campaigns.planning.preflight import PreflightSettings\n"
        "from smskit.campaigns.planning.spec import CampaignSpec\n"
        "things = [smskit.Campaign, smskit.dask.Campaign, Composer, smskit.bulk_hlr,\n"
        "          smskit.create_contacts, smskit.delete_contacts, smskit.dask.bulk_hlr,\n"
        "          smskit.phones.normalize, smskit.dask.partitionwise.normalize,\n"
        "          PreflightSettings,\n"
        "          CampaignSpec]\n"
        "print(sorted({inspect.signature(t).parameters['default_region'].default\n"
        "              for t in things}))\n"
    )
    env = {**os.environ, ENV_DEFAULT_REGION: "BE"}
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "['BE']"


# -- async implementations, generated blocking twins -----------------------------------------


def test_contacts_have_async_twins_giving_the_blocking_answers(
    fresh_sandbox: Sandbox,
) -> None:
    """acreate_contacts / adelete_contacts awaited with an AsyncClient answer what their
    blocking twins answer, and act on the gateway (the contacts exist, then not)."""
    numbers = ["+33612345678", "0612345679", "not a number"]

    async def both() -> tuple[pd.DataFrame, pd.DataFrame]:
        async with smskit.AsyncClient(sandbox=fresh_sandbox) as client:
            made = await smskit.acreate_contacts(client, numbers, progress=False)
            gone = await smskit.adelete_contacts(client, numbers, progress=False)
            return made, gone

    made, gone = asyncio.run(both())
    assert made["status"].astype(str).tolist()[:2] == ["added", "added"]
    assert made["error"].tolist()[2].startswith("not sent")
    assert gone["deleted"].tolist() == [True, True, False]
    with smskit.Client(sandbox=fresh_sandbox) as client:
        again = smskit.create_contacts(client, numbers, progress=False)
    assert again["status"].astype(str).tolist()[:2] == ["added", "added"]
    assert again["error"].tolist() == made["error"].tolist()


def test_a_blocking_twin_runs_inside_a_running_event_loop(
    client: smskit.Client, tmp_path: Path
) -> None:
    """send() called from code already inside an event loop (a notebook cell) still sends,
    in a loop of its own; asend() awaited there gives the same figures."""
    first = smskit.Campaign(client, fr_mobiles(3), text=TEXT, sender="Shop", name="a")
    second = smskit.Campaign(client, fr_mobiles(3)[::-1], text=TEXT, sender="Shop", name="b")

    async def cell() -> tuple[smskit.campaigns.CampaignResult, ...]:
        blocking = first.send(progress=False, journal=tmp_path / "a.sqlite")
        awaited = await second.asend(progress=False, journal=tmp_path / "b.sqlite")
        return blocking, awaited

    blocking, awaited = asyncio.run(cell())
    compared = ["recipients", "sent", "sms", "cost"]
    assert blocking.summary()[compared].equals(awaited.summary()[compared])
    assert int(blocking.summary()["sent"].iloc[0]) == 3


# -- the Composer holds one campaign ----------------------------------------------------------


def test_the_composer_holds_one_campaign_and_reads_its_recipients_once(
    client: smskit.Client, tmp_path: Path
) -> None:
    """Edits give the held campaign an edited spec; estimate and send use that same
    campaign, whose audience (the recipients' one reading) never changes."""
    frame = pd.DataFrame({"phone_number": fr_mobiles(4), "first_name": ["A", "B", "C", "D"]})
    composer = Composer(client, frame, text="Promo STOP au 36173", sender="Shop", debounce=0,
                        journal=tmp_path / "j.sqlite")  # fmt: skip
    held = composer.campaign()
    audience = composer.audience
    composer.text = TEXT
    assert composer.campaign() is held and held.spec == composer.spec
    assert held.text == TEXT and held.spec.journal == tmp_path / "j.sqlite"
    estimate = composer.estimate()
    result = composer.send()
    assert estimate.sms == 4 and int(result.summary()["sent"].iloc[0]) == 4
    assert composer.audience is audience and audience is not None
    assert audience.passes == Counter({"numbers": 1, **dict.fromkeys(DYNAMIC_FIELDS, 1)})
    assert (tmp_path / "j.sqlite").exists()


def _specs_in(obj: object) -> list[str]:
    """The attributes of ``obj`` holding a CampaignSpec (directly)."""
    return [k for k, v in vars(obj).items() if isinstance(v, CampaignSpec)]


def test_the_composer_keeps_no_copy_of_the_held_campaign_s_spec(
    client: smskit.Client, tmp_path: Path
) -> None:
    """With recipients, the one spec is the campaign's: the Composer holds none of its own,
    and options the controls do not show (auto_optimize_text) are read from that spec."""
    frame = pd.DataFrame({"phone_number": fr_mobiles(3)})
    composer = Composer(client, frame, text="Promo STOP au 36173", sender="Shop", debounce=0,
                        journal=tmp_path / "j.sqlite", auto_optimize_text=True)  # fmt: skip
    held = composer.campaign()
    assert _specs_in(composer) == [] and _specs_in(held) == ["spec"]
    composer.sender = "Shop2"
    composer.purpose = "alert"
    assert composer.spec is held.spec
    assert (held.spec.sender, held.spec.options["purpose"]) == ("Shop2", "alert")
    assert composer.options()["auto_optimize_text"] is True
    assert composer.send_kwargs()["auto_optimize_text"] is True


def test_the_composer_numbers_new_campaigns_from_the_names_it_was_given(
    client: smskit.Client, tmp_path: Path
) -> None:
    """Each new campaign is the held one renamed: its spec says "promo-2" then "promo-3" and
    their journals, numbered from the name and journal the Composer was given."""
    frame = pd.DataFrame({"phone_number": fr_mobiles(2)})
    composer = Composer(client, frame, text="Promo STOP au 36173", sender="Shop", debounce=0,
                        name="promo", journal=tmp_path / "p.journal.sqlite")  # fmt: skip
    composer.send()
    assert (composer.spec.name, composer.spec.journal) == ("promo", tmp_path / "p.journal.sqlite")
    for number in (2, 3):
        composer.send(again=True)
        journal = tmp_path / f"p-{number}.journal.sqlite"
        assert (composer.spec.name, composer.spec.journal) == (f"promo-{number}", journal)
        assert journal.exists()
    assert [s.name for s in composer.sends] == ["promo", "promo-2", "promo-3"]


def test_without_recipients_the_composer_holds_the_spec_it_edits(client: smskit.Client) -> None:
    """No campaign to hold it: the Composer's one spec follows the controls all the same."""
    composer = Composer(client, text="Promo STOP au 36173", sender="Shop", debounce=0)
    composer.text = "Autre promo STOP au 36173"
    composer.with_replies = True
    assert _specs_in(composer) == ["_unheld_spec"]
    assert composer.spec.text == "Autre promo STOP au 36173"
    assert composer.spec.options["with_replies"] is True


# -- the Dask front end ----------------------------------------------------------------------


def test_the_dask_campaign_estimates_as_the_pandas_one(
    dask_cluster: DaskClient, client: smskit.Client
) -> None:
    """estimate() (the gateway's simulation) and estimate(offline=True) of the Dask campaign
    give the pandas campaign's recipients, SMS and cost, chunk sizes aside."""
    frame = pd.DataFrame(
        {"phone_number": [*fr_mobiles(30), "hello"], "first_name": ["Zoë", "Ann", "Bo"] * 10 + [""]}
    )
    plain = smskit.Campaign(client, frame, text=TEXT, sender="Shop")
    lazy = smskit.dask.Campaign(client, dd.from_pandas(frame, npartitions=3), text=TEXT,
                                sender="Shop")  # fmt: skip
    figures = ["recipients", "sms", "cost", "balance"]
    want = plain.estimate(chunk_size=7).summary()[figures]
    got = lazy.estimate(chunk_size=7).summary()[figures]
    assert got.equals(want) and int(got["recipients"].iloc[0]) == 30
    prices = {"FR": 0.065}
    offline = lazy.estimate(offline=True, unit_prices=prices).summary()[["sms", "cost"]]
    assert offline.equals(
        plain.estimate(offline=True, unit_prices=prices).summary()[["sms", "cost"]]
    )


def test_the_dask_send_is_the_pandas_send_and_takes_no_report(
    dask_cluster: DaskClient, client: smskit.Client
) -> None:
    """One send for both campaigns (keywords only: no report given first, no shim)."""
    frame = pd.DataFrame({"phone_number": fr_mobiles(2)})
    lazy = smskit.dask.Campaign(client, dd.from_pandas(frame, npartitions=1),
                                text="Promo STOP au 36173", sender="Shop")  # fmt: skip
    assert smskit.dask.Campaign.send is smskit.Campaign.send
    with pytest.raises(TypeError, match="positional"):
        lazy.send(lazy.preflight(offline=True), progress=False)  # type: ignore[misc]


def test_read_fields_are_checked_when_set(client: smskit.Client) -> None:
    """Campaign.read_fields takes Contact field names only, refused naming read_fields."""
    campaign = smskit.Campaign(client, fr_mobiles(2), text=TEXT, sender="Shop")
    campaign.read_fields = ["first_name", "param1"]
    assert list(campaign.read_fields) == ["first_name", "param1"]
    with pytest.raises(smskit.ValidationError, match="read_fields"):
        campaign.read_fields = ["first_name", "shoe_size"]


@pytest.mark.parametrize("value", ["fr", "F1", "XX"])
def test_a_malformed_default_region_setting_is_one_line_at_the_shell(value: str) -> None:
    """SMSKIT_DEFAULT_REGION=fr is read as smskit loads: every command, even --help and
    version, ended in a traceback (exit 1). Now exit 3 (configuration), one line on stderr
    naming the variable, its value and the rule, with what a shell can set instead (it said
    "or None"); nothing on stdout. XX, two upper-case letters but no region, is one too (it
    was exit 2 blaming --region, which `smskit hlr NUMBER` was not given)."""
    env = {**os.environ, ENV_DEFAULT_REGION: value}
    for args in (["--help"], ["version"], ["optouts", "list"], ["hlr", "+33612345678"]):
        done = subprocess.run(
            [sys.executable, "-m", "smskit", *args], env=env, capture_output=True, text=True
        )
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 3, (args, done.returncode, done.stderr)
        assert len(lines) == 1 and "Traceback" not in done.stderr, lines
        assert f"{ENV_DEFAULT_REGION}: must be a two-letter region code" in lines[0], lines
        assert repr(value) in lines[0] and done.stdout == ""
        assert "--region" not in lines[0] and "None" not in lines[0], lines
        assert "set it empty for no default region" in lines[0], lines
