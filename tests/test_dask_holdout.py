"""A Dask campaign's holdout: held out partition-wise with the pandas campaign's seeded
selection (the same recipients for the same seed, stratified too), counted in the report,
journaled with the plan, never sent (a resume after Ctrl-C included), counted in the result."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dask.dataframe as dd
import pandas as pd
import pytest
from distributed import Client as DaskClient
from test_dask_send import InterruptAfter

import smskit
from smskit.campaigns.sending.journal import Journal
from smskit.dask import Campaign as DaskCampaign
from smskit.sandbox import Sandbox

TEXT = "Promo -20% ce week-end. STOP au 36173"


@pytest.fixture
def client(fresh_sandbox: Sandbox) -> Iterator[smskit.Client]:
    with smskit.Client(sandbox=fresh_sandbox) as c:
        yield c


def mixed_base(rows: int) -> pd.DataFrame:
    """French and Belgian mobiles, some unreadable, some repeating an earlier row."""
    numbers = [f"+3361{i * 7919 % 10**7:07d}" if i % 3 else f"+3247{i:07d}" for i in range(rows)]
    for at in range(rows // 2, rows, 17):
        numbers[at] = numbers[at - rows // 2] if at % 2 else "hello"
    return pd.DataFrame({"phone_number": numbers})


def held(report: Any) -> set[str]:
    """The numbers a report holds out."""
    frame = report.frame
    if isinstance(frame, dd.DataFrame):
        frame = frame.compute()
    return set(frame.loc[frame["issue"] == "held_out", "phone_number"].astype(str))


@pytest.mark.parametrize(
    ("size", "seed", "stratify"),
    [(0.1, 7, None), (37, 1, None), (0.25, 3, "country"), (11, 9, "country"), (0.5, 0, None)],
)
def test_dask_holds_out_the_recipients_pandas_holds_out(
    size: float, seed: int, stratify: str | None
) -> None:
    """The same seed and recipients hold out the same numbers, however partitioned."""
    base = mixed_base(900)
    options = {"text": TEXT, "sender": "Shop", "holdout": size, "seed": seed, "stratify": stratify}
    want = smskit.Campaign(None, base, **options).preflight(offline=True)
    for partitions in (1, 4, 7):
        recipients = dd.from_pandas(base, npartitions=partitions)
        got = DaskCampaign(None, recipients, **options).preflight(offline=True)
        assert held(got) == held(want) and len(held(want)) > 0
        summary, expected = got.summary(), want.summary()
        for column in ("recipients", "to_send", "excluded", "held_out", "duplicate"):
            assert summary[column].iloc[0] == expected[column].iloc[0], column


def test_held_out_recipients_are_journaled_and_never_sent_a_resume_included(
    dask_cluster: DaskClient,
    client: smskit.Client,
    fresh_sandbox: Sandbox,
    tmp_path: Path,
    ctrl_c: None,
) -> None:
    """Ctrl-C after the first chunk, then a resume: the held-out recipients are journaled as
    such and never reach the gateway; report, result and its summary count them."""
    base = pd.DataFrame({"phone_number": [f"+3361{i:07d}" for i in range(1200)]})
    campaign = DaskCampaign(
        client, dd.from_pandas(base, npartitions=3), text=TEXT, sender="Shop", holdout=0.2, seed=5
    )
    report = campaign.preflight()
    assert report.summary()["held_out"].iloc[0] == 240 and report.to_send == 960
    kept_out = held(report)
    journal = tmp_path / "j.sqlite"
    with pytest.raises(KeyboardInterrupt):
        campaign.send(journal=journal, progress=InterruptAfter(1), chunk_size=200)
    assert 0 < len(fresh_sandbox.sent()) < 960
    result = DaskCampaign.resume(journal, client, progress=False)
    sent = set(fresh_sandbox.sent()["phone_number"])
    assert len(sent) == 960 and not sent & kept_out and result.complete
    assert result.held_out == 240 and result.summary()["held_out"].iloc[0] == 240
    with Journal(journal) as book:
        assert book.meta()["holdout"] == {"size": 0.2, "seed": 5, "stratify": None}
        assert {n for _r, _i, n, _s, _d in book.excluded_for("held_out")} == kept_out
