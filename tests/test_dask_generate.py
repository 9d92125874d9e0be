"""The generated contact base of notebook 06 and the Dask benchmark: the same on every
compute, numbered by row, and as messy as its docstring says."""

from __future__ import annotations

import pandas as pd

from smskit.dask import contact_base
from smskit.rules import phones


def test_generated_base_is_the_same_on_every_compute() -> None:
    """Each partition is a function of (seed, index): two computes give the same rows, indexed
    0..n-1 across partitions; another seed gives other numbers."""
    base = contact_base(50_000, rows_per_partition=20_000)
    assert base.npartitions == 3
    first, second = base.compute(), base.compute()
    pd.testing.assert_frame_equal(first, second)
    assert first.index.tolist() == list(range(50_000))
    other = contact_base(50_000, rows_per_partition=20_000, seed=1).compute()
    assert not first["phone_number"].equals(other["phone_number"])


def test_generated_base_mixes_spellings_countries_and_unreadable_values() -> None:
    """About 1 % unreadable, the rest valid mobiles of five countries; a national spelling of
    a foreign number carries its country; UCS-2 names are there."""
    frame = contact_base(40_000, rows_per_partition=10_000).compute()
    checks = phones.normalize(frame["phone_number"].astype(object), "FR", region=frame["country"])
    valid = checks["valid"].to_numpy()
    assert 0.98 <= valid.mean() < 1.0
    assert set(checks.loc[valid, "type"].astype(str)) == {"mobile"}
    assert set(checks.loc[valid, "region"].astype(str)) == {"FR", "BE", "DE", "ES"}
    national = ~frame["phone_number"].str.startswith("+").to_numpy() & valid
    foreign = national & (checks["region"] != "FR").to_numpy()
    assert foreign.any() and frame.loc[foreign, "country"].notna().all()
    assert frame["phone_number"].str.contains(" ").any()
    assert frame["first_name"].isin(["Zoë", "Gaëlle"]).any()
