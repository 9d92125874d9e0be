"""Bulk HLR over a Dask series on a 2-worker LocalCluster, against the sandbox over real HTTP:
the same answers and breakdowns as the pandas bulk HLR, each distinct number billed once."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import dask.dataframe as dd
import pandas as pd
import pytest
from distributed import Client as DaskClient

import smskit
from smskit.dask import bulk_hlr as dask_hlr
from smskit.dask.stream import Materialised
from smskit.errors import ConfigurationError, ValidationError
from smskit.frames import breakdown, crosstab
from smskit.sandbox import Sandbox

HLR_FR = 0.008  # EUR per French number checked (docs/sandbox.md)


def random_numbers(seed: int, count: int) -> list[str]:
    """French mobiles in both spellings, repeats across the whole list, and unreadable texts."""
    rng = random.Random(seed)
    pool = [f"+3361{rng.randrange(10**7):07d}" for _ in range(count // 2)]
    values = []
    for _ in range(count):
        pick = rng.random()
        number = rng.choice(pool)
        if pick < 0.45:
            values.append(number)
        elif pick < 0.9:
            values.append("0" + number[3:])  # the national spelling of the same line
        elif pick < 0.95:
            values.append(f"+3361{rng.randrange(10**7):07d}")
        else:
            values.append(rng.choice(["12", "hello", "+999", "0033"]))
    return values


def pandas_answers(client: smskit.Client, values: list[str], journal: Path) -> pd.DataFrame:
    """The pandas bulk HLR on the same values, one row per distinct number (its first)."""
    frame = smskit.bulk_hlr(client, values, journal=journal, progress=False).to_frame()
    return frame.drop(columns="input").drop_duplicates("phone_number", ignore_index=True)


def by_number(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values("phone_number", ignore_index=True)


@pytest.mark.parametrize("seed", [0, 1])
def test_dask_hlr_equals_pandas_hlr(
    seed: int,
    dask_cluster: DaskClient,
    client: smskit.Client,
    tmp_path: Path,
    fresh_sandbox: Sandbox,
) -> None:
    """Same rows, dtypes, breakdowns and crosstab as the pandas bulk HLR; each distinct valid
    number billed once; the client never holds more than two partitions."""
    values = random_numbers(seed, 1200)
    numbers = dd.from_pandas(pd.Series(values, dtype="string"), npartitions=5)
    counter = Materialised()
    result = dask_hlr(
        client, numbers, tmp_path / "answers", journal=tmp_path / "dask.sqlite",
        progress=False, counter=counter,
    )  # fmt: skip
    checked = fresh_sandbox.balance()
    want = pandas_answers(client, values, tmp_path / "pandas.sqlite")
    got = result.frame().compute()

    pd.testing.assert_frame_equal(by_number(got), by_number(want))
    assert len(result) == len(want)
    valid = int(want["error"].isna().sum())
    assert checked == pytest.approx(1000.0 - valid * HLR_FR)
    pd.testing.assert_frame_equal(result.breakdown(), breakdown(want))
    pair = ("line_status", "phone_number_type")
    pd.testing.assert_frame_equal(result.breakdown(pair), breakdown(want, pair))
    pd.testing.assert_frame_equal(result.crosstab(), crosstab(want))
    assert 1 <= counter.peak <= 2
    assert counter.now == 0
    assert counter.read == len(list((tmp_path / "answers").glob("part-*.parquet")))


def test_the_async_twin_awaited_with_an_async_client_equals_pandas_hlr(
    dask_cluster: DaskClient, client: smskit.Client, tmp_path: Path, fresh_sandbox: Sandbox
) -> None:
    """smskit.dask.abulk_hlr awaited in the caller's loop with its AsyncClient writes the
    pandas bulk HLR's answers; the blocking name has the async one's signature."""
    import inspect

    import smskit.dask

    values = random_numbers(3, 400)
    numbers = dd.from_pandas(pd.Series(values, dtype="string"), npartitions=3)

    async def run() -> pd.DataFrame:
        async with smskit.AsyncClient(sandbox=fresh_sandbox) as aclient:
            written = await smskit.dask.abulk_hlr(
                aclient, numbers, tmp_path / "answers", journal=tmp_path / "a.sqlite",
                progress=False,
            )  # fmt: skip
        return written.frame().compute()

    got = asyncio.run(run())
    want = pandas_answers(client, values, tmp_path / "pandas.sqlite")
    pd.testing.assert_frame_equal(by_number(got), by_number(want))
    sync, awaited = (
        inspect.signature(smskit.dask.bulk_hlr),
        inspect.signature(smskit.dask.abulk_hlr),
    )
    assert sync == awaited


def test_dask_hlr_rerun_pays_nothing_for_cached_numbers(
    dask_cluster: DaskClient, client: smskit.Client, tmp_path: Path, fresh_sandbox: Sandbox
) -> None:
    """A second run on the same journal (after an interrupt, say) reads every answer from the
    cache: nothing more is billed, the answers are the same and marked cached."""
    values = random_numbers(2, 600)
    numbers = dd.from_pandas(pd.Series(values, dtype="string"), npartitions=3)
    journal = tmp_path / "hlr.sqlite"
    first = dask_hlr(client, numbers, tmp_path / "one", journal=journal, progress=False)
    balance = fresh_sandbox.balance()
    second = dask_hlr(client, numbers, tmp_path / "two", journal=journal, progress=False)
    assert fresh_sandbox.balance() == balance
    one, two = by_number(first.frame().compute()), by_number(second.frame().compute())
    sent = two["error"].isna()
    assert sent.sum() > 0
    assert two.loc[sent, "cached"].all()
    assert not one["cached"].any()
    pd.testing.assert_frame_equal(one.drop(columns="cached"), two.drop(columns="cached"))


def test_dask_hlr_never_writes_over_a_directory_with_files(
    dask_cluster: DaskClient, client: smskit.Client, tmp_path: Path
) -> None:
    """An output directory holding anything is refused before any number is checked."""
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "mine.txt").write_text("keep me")
    numbers = dd.from_pandas(pd.Series(["+33612345678"], dtype="string"), npartitions=1)
    with pytest.raises(ConfigurationError, match="not an empty directory"):
        dask_hlr(client, numbers, tmp_path / "out", journal=False, progress=False)
    assert (tmp_path / "out" / "mine.txt").read_text() == "keep me"


def test_dask_hlr_refuses_a_pandas_series(client: smskit.Client, tmp_path: Path) -> None:
    """A pandas Series belongs to smskit.bulk_hlr: the Dask path says so instead of guessing."""
    with pytest.raises(ValidationError, match="must be a dask Series"):
        dask_hlr(client, pd.Series(["+33612345678"]), tmp_path / "out", progress=False)
