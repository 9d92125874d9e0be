"""A campaign's holdout: a seeded random part of the sendable recipients, journaled with the
plan and never sent (a resume after a kill included), counted in the report and the result,
stratified by country on request; the result's conversions and lift compare it with the
treated recipients on the seeded shop's orders."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import smskit
from smskit.campaigns.campaign import Campaign
from smskit.campaigns.planning.holdout import Holdout, hold_out
from smskit.campaigns.sending.journal import Journal
from smskit.client.clients import Backoff
from smskit.errors import ValidationError
from smskit.rules.findings import ISSUES
from smskit.sandbox import Sandbox
from smskit.sandbox.shop import SeededShop

TEXT = "Promo -20% ce week-end. STOP au 36173"


@pytest.fixture
def client(fresh_sandbox: Sandbox) -> Iterator[smskit.Client]:
    with smskit.Client(sandbox=fresh_sandbox, backoff=Backoff(base=0.0, cap=0.0)) as c:
        yield c


def fr_mobiles(count: int) -> list[str]:
    """Distinct valid French mobile numbers."""
    return [f"+3361{i:07d}" for i in range(count)]


def frame_of(numbers: list[str], regions: list[str] | None = None) -> pd.DataFrame:
    """A preflight frame's columns hold_out reads, every recipient sendable."""
    return pd.DataFrame(
        {
            "phone_number": numbers,
            "region": regions or ["FR"] * len(numbers),
            "issue": pd.Categorical([None] * len(numbers), categories=list(ISSUES)),
            "detail": pd.Categorical([None] * len(numbers)),
            "send": True,
        }
    )


@pytest.mark.parametrize("size", [0, 1.0, -0.1, 0.0, True, "10%", -3])
def test_holdout_that_is_neither_share_nor_count_is_refused(size: object) -> None:
    """A holdout must be a share strictly between 0 and 1 or a count of at least 1."""
    with pytest.raises(ValidationError) as caught:
        Holdout(size)  # type: ignore[arg-type]
    assert caught.value.field == "holdout"


@settings(deadline=None, max_examples=30)
@given(st.integers(1, 300), st.floats(0.01, 0.99), st.integers(0, 2**31))
def test_share_is_exact_and_independent_of_row_order(count: int, share: float, seed: int) -> None:
    """round(share x sendable) are held out, the same numbers whatever the rows' order."""
    numbers = fr_mobiles(count)
    first, reversed_ = frame_of(numbers), frame_of(numbers[::-1])
    held = hold_out(first, Holdout(share, seed), ISSUES)
    hold_out(reversed_, Holdout(share, seed), ISSUES)
    assert held == round(share * count) == int((first["issue"] == "held_out").sum())
    assert set(first.loc[~first["send"], "phone_number"]) == set(
        reversed_.loc[~reversed_["send"], "phone_number"]
    )


def test_stratified_holdout_takes_each_country_share() -> None:
    """Stratified by country, each country holds out its own share; a count is shared out."""
    numbers = fr_mobiles(100) + [f"+3247{i:07d}" for i in range(40)]
    regions = ["FR"] * 100 + ["BE"] * 40
    frame = frame_of(numbers, regions)
    hold_out(frame, Holdout(0.1, 3, "country"), ISSUES)
    held = frame.loc[~frame["send"], "region"].value_counts().to_dict()
    assert held == {"FR": 10, "BE": 4}
    counted = frame_of(numbers, regions)
    assert hold_out(counted, Holdout(7, 3, "country"), ISSUES) == 7
    assert counted.loc[~counted["send"], "region"].value_counts().to_dict() == {"FR": 5, "BE": 2}


def test_only_sendable_recipients_are_held_out() -> None:
    """A recipient excluded for another issue is never held out (its issue is kept)."""
    frame = frame_of(fr_mobiles(50))
    frame.loc[:9, "send"] = False
    frame["issue"] = frame["issue"].where(frame["send"], "duplicate")
    hold_out(frame, Holdout(20, 1), ISSUES)
    assert (frame["issue"] == "duplicate").sum() == 10
    assert (frame["issue"] == "held_out").sum() == 20


def test_held_out_recipients_are_journaled_and_never_sent(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """The report counts held_out; the gateway never receives them; the result says so."""
    numbers = fr_mobiles(300)
    campaign = Campaign(client, numbers, text=TEXT, sender="Shop", holdout=0.2, seed=5)
    report = campaign.preflight()
    assert report.summary().loc[0, "held_out"] == 60 and report.to_send == 240
    result = campaign.send(progress=False, journal=tmp_path / "j.sqlite")
    held = set(report.frame.loc[report.frame["issue"] == "held_out", "phone_number"])
    sent = set(fresh_sandbox.sent()["phone_number"])
    assert len(sent) == 240 and not sent & held
    assert result.held_out == 60 and result.summary().loc[0, "held_out"] == 60
    groups = result.groups()
    assert set(groups.loc[groups["group"] == "holdout", "phone_number"]) == held
    with Journal(tmp_path / "j.sqlite") as book:
        assert book.meta()["holdout"] == {"size": 0.2, "seed": 5, "stratify": None}


def test_a_resume_after_a_kill_never_sends_the_holdout(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A journal planned and killed before its first request resumes without the holdout."""
    campaign = Campaign(client, fr_mobiles(120), text=TEXT, sender="Shop", holdout=30, seed=1)
    path = tmp_path / "j.sqlite"
    book = Journal(path, mode="any", lease=0)
    campaign._adopt(book, campaign._plan(50), 50).close()  # killed right after planning
    result = Campaign.resume(path, client, progress=False)
    assert len(fresh_sandbox.sent()) == 90 and result.held_out == 30
    held = set(result.groups().query("group == 'holdout'")["phone_number"])
    assert not held & set(fresh_sandbox.sent()["phone_number"])


def test_same_named_campaign_holds_out_the_same_people() -> None:
    """Without a seed, the campaign's name seeds it: the same name, the same holdout."""
    first = Campaign(None, fr_mobiles(80), text=TEXT, sender="S", name="june", holdout=0.25)
    again = Campaign(None, fr_mobiles(80)[::-1], text=TEXT, sender="S", name="june", holdout=0.25)
    picked = [
        set(c.preflight(offline=True).excluded["phone_number"].astype(str)) for c in (first, again)
    ]
    assert picked[0] == picked[1] and len(picked[0]) == 20


def test_result_lift_covers_the_seeded_shops_truth(client: smskit.Client, tmp_path: Path) -> None:
    """On the seeded shop's orders, conversions have a row per recipient sent or held out,
    and the lift's interval holds the shop's true lift."""
    numbers = fr_mobiles(2000)
    campaign = Campaign(client, numbers, text=TEXT, sender="Shop", holdout=0.3, seed=2)
    result = campaign.send(progress=False, journal=tmp_path / "j.sqlite")
    shop = SeededShop(baseline=0.05, lift=0.1, seed=4)
    orders = shop.orders(result.groups(), sent_at=result.sent_at)
    frame = result.conversions(orders)
    assert len(frame) == 2000 and frame["revenue"].notna().all()
    assert frame["group"].value_counts().to_dict() == {"treated": 1400, "holdout": 600}
    lift = result.lift(orders)
    low, high = lift.value("conversion_rate", "ci_low"), lift.value("conversion_rate", "ci_high")
    assert low <= shop.lift <= high
    assert lift.cost == pytest.approx(result.summary()["cost"].iloc[0])
    assert np.isfinite(lift.value("incremental_roi"))


def test_a_send_cut_short_counts_its_audience_without_the_holdout_twice(
    tmp_path: Path,
) -> None:
    """The held out are among the excluded: a send stopped by credit says how many of the
    recipients it was for were not sent, the held-out subtracted once (90 of 100, not 80)."""
    with (
        Sandbox(seed=3, balance=0.0) as sandbox,
        smskit.Client(sandbox=sandbox, backoff=Backoff(base=0.0, cap=0.0)) as client,
    ):
        campaign = Campaign(client, fr_mobiles(100), text=TEXT, sender="Shop", holdout=10)
        with pytest.warns(smskit.campaigns.IncompleteSendWarning) as caught:
            result = campaign.send(progress=False, journal=tmp_path / "j.sqlite")
    assert result.held_out == 10 and result.summary().loc[0, "excluded"] == 10
    assert result.summary().loc[0, "sent"] == 0
    ours = [w for w in caught if issubclass(w.category, smskit.campaigns.IncompleteSendWarning)]
    assert "90 of 90 recipient(s) not sent" in str(ours[0].message)


def test_held_out_recipients_stay_eligible_for_the_next_campaign(client: smskit.Client) -> None:
    """A held-out recipient is excluded from nothing later: the next campaign, capped at one
    marketing message a week, sends to the held out and caps only those who were sent."""
    numbers = fr_mobiles(100)
    first = Campaign(client, numbers, text=TEXT, sender="Shop", holdout=0.25, seed=3)
    result = first.send(progress=False)  # journaled where the cap reads the account's history
    held = set(result.groups().query("group == 'holdout'")["phone_number"])
    again = Campaign(client, numbers, text=TEXT + " !", sender="Shop", frequency_cap="1/7D")
    frame = again.preflight().frame
    sending = set(frame.loc[frame["send"], "phone_number"].astype(str))
    capped = set(frame.loc[frame["issue"] == "frequency_capped", "phone_number"].astype(str))
    assert sending == held and len(held) == 25 and len(capped) == 75 and not capped & held


def test_polars_orders_give_the_pandas_conversions(client: smskit.Client, tmp_path: Path) -> None:
    """The same orders as a polars table and as pandas give the same conversions."""
    import polars as pl

    campaign = Campaign(client, fr_mobiles(300), text=TEXT, sender="Shop", holdout=0.3, seed=2)
    result = campaign.send(progress=False, journal=tmp_path / "j.sqlite")
    orders = SeededShop(baseline=0.2, lift=0.1, seed=9).orders(
        result.groups(), sent_at=result.sent_at
    )
    want = result.conversions(orders)
    got = result.conversions(pl.from_pandas(orders))
    pd.testing.assert_frame_equal(got, want)
    assert want["converted"].sum() > 0


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"seed": 3}, "holdout: seed= and stratify= need a holdout= share or count"),
        ({"stratify": "country"}, "holdout: seed= and stratify= need a holdout= share or count"),
        (
            {"holdout": Holdout(0.1), "seed": 3},
            "seed: give the seed and strata in the Holdout itself",
        ),
        (
            {"holdout": Holdout(0.1), "stratify": "country"},
            "seed: give the seed and strata in the Holdout itself",
        ),
    ],
)
def test_a_seed_or_strata_without_a_holdout_to_apply_them_to_is_refused(
    options: dict[str, object], says: str, client: smskit.Client
) -> None:
    """seed= or stratify= with no holdout (they would be dropped silently), or beside a
    Holdout that carries its own (which one wins would be a guess): refused naming the
    field, before any campaign is made."""
    with pytest.raises(ValidationError) as refused:
        Campaign(client, fr_mobiles(10), text=TEXT, sender="Shop", **options)  # type: ignore[arg-type]
    assert str(refused.value) == says
