"""An experiment's no-send arm ``holdout``: seeded, recorded, journaled with each arm's plan
and never sent (a resume after a kill included), counted in the preview, the result and the
ledger, and compared with the arms by conversions() and lift() over real HTTP on the sandbox."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import smskit
from smskit.campaigns.analysis.ledger import history
from smskit.campaigns.experiment import Experiment
from smskit.campaigns.sending.journal import Journal
from smskit.client.clients import Backoff
from smskit.errors import ConfigurationError, ValidationError
from smskit.replies.inbox import Inbox
from smskit.sandbox import DeliveryModel, Sandbox
from smskit.sandbox.shop import SeededShop

A = "Soldes -20% ce week-end ! STOP au 36173"
B = "Ce week-end : -20% sur tout ! STOP au 36173"
NUMBERS = [f"+3367400{n:04d}" for n in range(1200)]


def orders_for(result: smskit.campaigns.experiment.ExperimentResult, lift: float) -> pd.DataFrame:
    """The seeded shop's orders for every arm's recipients, each from its arm's send instant."""
    frames = []
    for seed, arm in enumerate(result.arms.values()):
        shop = SeededShop(baseline=0.05, lift=lift, seed=40 + seed)
        frames.append(shop.orders(arm.groups(), sent_at=arm.sent_at))
    return pd.concat(frames, ignore_index=True)


def test_the_holdout_arm_is_journaled_never_sent_and_compared(tmp_path: Path) -> None:
    """Over real HTTP: a fifth of each arm is held out (seeded, in its journal's plan and the
    record), the gateway never receives them, the result, preview and ledger count them, the
    conversions give every input row once with its arm or holdout, lift's interval holds the
    shop's true lift, and compare() still counts each arm's sent recipients only."""
    model = DeliveryModel.fast(seed=7)
    with (
        Inbox() as inbox,
        Sandbox(seed=3, delivery_model=model) as sb,
        smskit.Client(sandbox=sb, backoff=Backoff(base=0.0, cap=0.0)) as client,
    ):
        sb.set_callback_url(inbox.url)
        experiment = Experiment(client, NUMBERS, variants={"A": A, "B": B}, sender="Shop",
                                name="held", seed=11, directory=tmp_path, holdout=0.2)  # fmt: skip
        preview = experiment.preview(offline=True, unit_prices={"FR": 0.05})
        assert preview["held_out"].tolist() == [120, 120]
        assert preview["to_send"].tolist() == [480, 480]
        result = experiment.send(progress=False, chunk_size=200)
        sb.wait_for_deliveries(timeout=60)
        comparison = experiment.compare(inbox)
        sent = set(sb.sent()["phone_number"])

    assert result.held_out == 240 and result.summary()["held_out"].tolist() == [120, 120]
    held = set(result.arms["A"].groups().query("group == 'holdout'")["phone_number"])
    held |= set(result.arms["B"].groups().query("group == 'holdout'")["phone_number"])
    assert len(sent) == 960 and len(held) == 240 and not sent & held
    assert experiment.record.holdout == {"size": 0.2, "seed": None, "stratify": None}
    for arm in ("A", "B"):
        with Journal(experiment.journal(arm)) as book:
            assert book.meta()["holdout"] == {"size": 0.2, "seed": 11, "stratify": None}
            assert book.meta()["experiment"]["holdout"] == experiment.record.holdout

    ledger = history(tmp_path).set_index("arm")
    assert ledger.loc["A", "held_out"] == 120 and ledger.loc["B", "held_out"] == 120
    assert ledger.loc["A", "sent"] == 480

    counts = comparison.counts.set_index(comparison.counts["arm"].astype(str))
    assert counts["sent"].to_dict() == {"A": 480, "B": 480}

    orders = orders_for(result, lift=0.1)
    frame = result.conversions(orders)
    assert frame["row"].tolist() == list(range(1200))
    dealt = experiment.assignment()
    assert frame["phone_number"].tolist() == dealt["phone_number"].tolist()
    assert (frame["arm"].astype(str) == dealt["arm"].astype(str)).all()
    assert frame["group"].value_counts().to_dict() == {"A": 480, "B": 480, "holdout": 240}
    assert set(frame.loc[frame["group"] == "holdout", "phone_number"]) == held
    assert frame["revenue"].notna().all()

    pooled = result.lift(orders)
    assert (pooled.treated, pooled.holdout) == (960, 240)
    low, high = (
        pooled.value("conversion_rate", "ci_low"),
        pooled.value("conversion_rate", "ci_high"),
    )
    assert low <= 0.1 <= high
    one = result.lift(orders, arm="B")
    assert (one.treated, one.holdout) == (480, 240)
    assert one.cost == pytest.approx(result.arms["B"].summary()["cost"].iloc[0])
    with pytest.raises(ValidationError) as caught:
        result.lift(orders, arm="C")
    assert caught.value.field == "arm"


def test_a_resume_after_a_kill_never_sends_the_holdout(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Killed right after every arm's plan was journaled, the experiment loaded again (no
    recipients) sends every arm but never a held-out recipient; a count is shared by arms."""
    with smskit.Client(sandbox=fresh_sandbox, backoff=Backoff(base=0.0, cap=0.0)) as client:
        experiment = Experiment(client, NUMBERS[:300], variants={"A": A, "B": B, "C": A + " !"},
                                sender="Shop", name="killed", seed=5, directory=tmp_path,
                                holdout=31)  # fmt: skip
        experiment.record.write(experiment.path)
        for arm, campaign in experiment.arms.items():  # what asend does before any SMS
            asyncio.run(campaign.journal_plan(experiment.journal(arm), 50, 0))  # type: ignore[attr-defined]
        loaded = Experiment.load("killed", client, directory=tmp_path)
        assert loaded.holdout == experiment.holdout
        result = loaded.send(progress=False)
        sent = fresh_sandbox.sent()["phone_number"]
    assert result.complete and result.summary()["held_out"].tolist() == [11, 10, 10]
    held = {
        n
        for r in result.arms.values()
        for n in r.groups().query("group == 'holdout'")["phone_number"]
    }
    assert len(sent) == 300 - 31 and sent.is_unique and not held & set(sent)


def test_the_holdout_is_part_of_what_the_experiment_is(tmp_path: Path) -> None:
    """Made again with another holdout, the experiment is refused naming it; an arm named
    holdout beside one, and a size that is neither share nor count, are refused."""
    first = Experiment(None, NUMBERS[:40], variants={"A": A, "B": B}, sender="Shop",
                       name="same", seed=1, directory=tmp_path, holdout=0.1)  # fmt: skip
    first.record.write(first.path)
    with pytest.raises(ConfigurationError, match="holdout"):
        Experiment(None, NUMBERS[:40], variants={"A": A, "B": B}, sender="Shop", name="same",
                   seed=1, directory=tmp_path, holdout=0.2)  # fmt: skip
    with pytest.raises(ValidationError) as caught:
        Experiment(None, NUMBERS[:40], variants={"A": A, "holdout": B}, sender="S", holdout=0.1)
    assert caught.value.field == "variants"
    with pytest.raises(ValidationError) as caught:
        Experiment(None, NUMBERS[:40], variants={"A": A, "B": B}, sender="S", holdout=1.5)
    assert caught.value.field == "holdout"


def test_a_stratified_experiment_holds_out_each_arms_countries_alike(tmp_path: Path) -> None:
    """With stratify="country", each arm holds out the share of each country (preflight)."""
    numbers = NUMBERS[:200] + [f"+34622{n:06d}" for n in range(100)]
    experiment = Experiment(None, numbers, variants={"A": A, "B": B}, sender="Shop", seed=3,
                            stratify="country", directory=tmp_path, holdout=0.2)  # fmt: skip
    for campaign in experiment.arms.values():
        frame = campaign.preflight(offline=True).frame
        held = frame.loc[frame["issue"] == "held_out", "region"].value_counts().to_dict()
        assert held == {"FR": 20, "ES": 10}
    assert np.array_equal(experiment.assignment()["arm"].value_counts().to_numpy(), [150, 150])
