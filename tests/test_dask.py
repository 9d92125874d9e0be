"""The [dask] extra: every Dask path equals the pandas path on the same data, on a real
two-process LocalCluster."""

from __future__ import annotations

import gc
import warnings
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import dask
import dask.dataframe as dd
import distributed
import numpy as np
import pandas as pd
import pytest

import smskit
import smskit.phones
import smskit.text
from smskit.campaigns.campaign import Campaign as PandasCampaign
from smskit.campaigns.planning.plan import build_plan
from smskit.campaigns.planning.preflight import audience_for
from smskit.dask import Campaign, connect
from smskit.dask.campaign import repeats_by_owner
from smskit.dask.partition_preflight import SHIFT
from smskit.dask.report import breakdown
from smskit.rules.personalize import MissingFieldWarning

NOW = datetime(2026, 1, 5, 10, tzinfo=UTC)  # a Monday morning: marketing hours open in FR
TEXT = "Bonjour {first_name}, -20% chez {last_name} STOP au 36173"
NUMBERS = np.array(
    [
        "+33612345678",
        "0612345678",
        "06 12 34 56 78",
        "+33 6 98 76 54 32",
        "+3361",
        "+33123456789",
        "+447700900123",
        "07700 900456",
        "+8613800138000",
        "+14155550123",
        "hello",
        "",
        None,
        "+33612345679",
        "0033612345680",
    ],
    dtype=object,
)
NAMES = np.array(["Ann", "Zoé", None, "Bob", "", "Ωmega", "x" * 51], dtype=object)


def base(seed: int, rows: int = 400) -> pd.DataFrame:
    """A random contact base: numbers of several countries and shapes, many repeated, and
    names missing, empty, UCS-2 or over 50 characters."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "phone_number": rng.choice(NUMBERS, rows),
            "first_name": rng.choice(NAMES, rows),
            "last_name": rng.choice(np.array(["Shop", "Café", None], dtype=object), rows),
            "country": rng.choice(np.array([None, "GB", "FR"], dtype=object), rows),
        }
    )


def pandas_report(frame: pd.DataFrame, gateway: smskit.Client, offline: bool = True) -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingFieldWarning)
        campaign = PandasCampaign(gateway, frame, text=TEXT, sender="Shop")
        return campaign.preflight(now=NOW, offline=offline)


def assert_same_report(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    """Same rows, values and dtypes; a data-dependent categorical (region, text, detail,
    warning) may list its categories in another order, as pandas concatenation does."""
    assert dict(got.dtypes) == dict(expected.dtypes)  # categories compared as sets
    pd.testing.assert_frame_equal(got, expected, check_categorical=False)


@pytest.fixture(scope="module")
def gateway() -> Iterator[smskit.Client]:
    """A client of a real sandbox on loopback (destinations and prices come from it)."""
    with smskit.Sandbox(seed=0) as sb, smskit.Client(sandbox=sb) as client:
        yield client


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_normalize_on_dask_equals_pandas(dask_cluster: distributed.Client, seed: int) -> None:
    """phones.normalize of a Dask Series: lazily, the pandas rows and dtypes, with regions."""
    ddf = dd.from_pandas(base(seed), npartitions=3)
    lazy = smskit.phones.normalize(ddf["phone_number"], "FR", region=ddf["country"])
    assert isinstance(lazy, dd.DataFrame)
    same = ddf.compute()  # the data as the partitions hold it
    expected = smskit.phones.normalize(same["phone_number"], "FR", region=same["country"])
    got = lazy.compute()
    pd.testing.assert_frame_equal(got, expected)
    assert dict(lazy.dtypes) == dict(expected.dtypes)


@pytest.mark.parametrize("seed", [0, 1])
def test_render_and_analyze_on_dask_equal_pandas(
    dask_cluster: distributed.Client, seed: int
) -> None:
    """text.render_all and text.analyze_many on Dask: the pandas Series and frame, same dtypes."""
    frame = base(seed)
    frame["first_name"] = frame["first_name"].where(frame["first_name"] != "x" * 51, "Max")
    ddf = dd.from_pandas(frame, npartitions=4)
    same = ddf.compute()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingFieldWarning)
        texts = smskit.text.render_all(TEXT, ddf)
        expected_texts = smskit.text.render_all(TEXT, same)
    assert isinstance(texts, dd.Series) and texts.dtype == expected_texts.dtype
    pd.testing.assert_series_equal(texts.compute(), expected_texts)
    stats = smskit.text.analyze_many(texts)
    expected = smskit.text.analyze_many(expected_texts)
    assert dict(stats.dtypes) == dict(expected.dtypes)
    pd.testing.assert_frame_equal(stats.compute(), expected)


def raised(render: object) -> smskit.ValidationError:
    """The ValidationError a call (a pandas render, or a Dask one computed) raises."""
    with pytest.raises(smskit.ValidationError) as caught:
        got = render()  # type: ignore[operator]
        if isinstance(got, dd.Series):
            got.compute()
    return caught.value


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_render_all_on_dask_names_the_row_in_the_whole_input(
    dask_cluster: distributed.Client, seed: int
) -> None:
    """A value over 50 characters, or one that is not a scalar, in the 3rd of 4 uneven
    partitions: the same error as pandas (field, row in the whole input, rule)."""
    rng = np.random.default_rng(seed)
    cuts = sorted(rng.choice(np.arange(1, 79), 3, replace=False).tolist())
    frame = pd.DataFrame(
        {"first_name": [f"N{i}" for i in range(80)], "last_name": "Shop"}, dtype=object
    )
    ddf = dd.from_pandas(frame, npartitions=1).repartition(divisions=[0, *cuts, 79])
    row = int(rng.integers(cuts[1], cuts[2]))  # in the third partition
    for column, value in (("first_name", "x" * 51), ("last_name", ["not", "scalar"])):
        bad = frame.copy()
        bad.at[row, column] = value
        with warnings.catch_warnings(), dask.config.set({"dataframe.convert-string": False}):
            # objects kept as they are: dask would otherwise turn the list into its text
            lazy = dd.from_pandas(bad, npartitions=1).repartition(divisions=ddf.divisions)
            warnings.simplefilter("ignore", MissingFieldWarning)
            got = raised(lambda: smskit.text.render_all(TEXT, lazy))  # noqa: B023
            expected = raised(lambda: smskit.text.render_all(TEXT, bad))  # noqa: B023
        assert (got.field, got.position, got.rule) == (
            expected.field,
            expected.position,
            expected.rule,
        )
        assert str(row) in str(got)
        assert str(got) == str(expected)


def counted_read(path: str, log: str) -> pd.DataFrame:
    """One input file, its reading written down in ``log`` (workers are other processes)."""
    with open(log, "a", encoding="utf-8") as out:
        out.write(path + "\n")
    return pd.read_parquet(path)


def test_render_all_on_dask_reads_each_partition_once(
    dask_cluster: distributed.Client, tmp_path: Path
) -> None:
    """The row numbering costs no pass of its own: each input file is read once."""
    paths = []
    for n in range(5):
        paths.append(str(tmp_path / f"in-{n}.parquet"))
        pd.DataFrame({"first_name": [f"A{n}{i}" for i in range(7)]}).to_parquet(paths[-1])
    log = tmp_path / "reads.log"
    meta = pd.read_parquet(paths[0]).iloc[:0]
    ddf = dd.from_map(counted_read, paths, log=str(log), meta=meta, enforce_metadata=False)
    texts = smskit.text.render_all("Hi {first_name}", ddf).compute()
    assert texts.tolist() == [f"Hi A{n}{i}" for n in range(5) for i in range(7)]
    assert sorted(log.read_text(encoding="utf-8").splitlines()) == paths


@pytest.mark.parametrize("seed", [3, 4])
def test_campaign_preflight_equals_pandas(
    dask_cluster: distributed.Client, gateway: smskit.Client, seed: int
) -> None:
    """Per-recipient report, summary, issues and breakdown equal the pandas Campaign's."""
    frame = base(seed)
    ddf = dd.from_pandas(frame, npartitions=5)
    same = ddf.compute()
    expected = pandas_report(same, gateway, offline=False)
    report = Campaign(gateway, ddf, text=TEXT, sender="Shop").preflight(now=NOW)
    got = report.frame.compute()
    assert_same_report(got, expected.frame)
    pd.testing.assert_frame_equal(report.summary(), expected.summary())
    pd.testing.assert_series_equal(report.issues(), expected.issues())
    assert report.warnings == expected.warnings
    pd.testing.assert_frame_equal(report.breakdown(), breakdown(expected.frame))
    assert report.breakdown()["cost"].notna().all()


def test_breakdown_counts_the_recipients_to_send(gateway: smskit.Client) -> None:
    """breakdown(): per country and encoding, the recipients to send and their segments."""
    report = pandas_report(base(5), gateway, offline=False)
    table = breakdown(report.frame).set_index(["region", "encoding"])
    sending = report.frame[report.frame["send"]]
    for (region, encoding), row in table.iterrows():
        mine = sending[(sending["region"] == region) & (sending["encoding"] == encoding)]
        assert row["recipients"] == len(mine)
        assert row["segments"] == mine["segments"].sum()
        assert row["cost"] == pytest.approx(mine["cost"].sum())
    assert table["recipients"].sum() == report.to_send


def test_duplicates_across_partitions_keep_the_first_in_input_order(
    dask_cluster: distributed.Client, gateway: smskit.Client
) -> None:
    """One number in three partitions, written three ways: only its first row is kept."""
    frame = pd.DataFrame(
        {
            "phone_number": [
                "+33600000001",
                "+33612345678",
                "+33600000002",
                "06 12 34 56 78",
                "+33600000003",
                "0033612345678",
            ],
            "first_name": ["A", "B", "C", "D", "E", "F"],
        }
    )
    ddf = dd.from_pandas(frame, npartitions=3)
    assert ddf.npartitions == 3
    report = Campaign(gateway, ddf, text=TEXT, sender="Shop").preflight(now=NOW, offline=True)
    got = report.frame.compute()
    assert got["issue"].isna().tolist() == [True, True, True, False, True, False]
    assert got["issue"].astype(object).tolist()[3::2] == ["duplicate", "duplicate"]
    assert got["detail"].tolist()[3] == "same number as row 1"
    assert got["detail"].tolist()[5] == "same number as row 1"
    assert report.summary()["duplicate"].iat[0] == 2
    assert_same_report(got, pandas_report(frame, gateway).frame)


def test_from_csv_files_equals_pandas_on_one_file(
    dask_cluster: distributed.Client, gateway: smskit.Client, tmp_path: Path
) -> None:
    """Several CSV files read as one base: rows, index and summary of the pandas CSV path."""
    frame = base(6, rows=300)
    for n, start in enumerate(range(0, 300, 100)):
        frame.iloc[start : start + 100].to_csv(tmp_path / f"part-{n}.csv", index=False)
    frame.to_csv(tmp_path / "whole.csv", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingFieldWarning)
        whole = PandasCampaign(gateway, tmp_path / "whole.csv", text=TEXT, sender="Shop")
        expected = whole.preflight(now=NOW, offline=True)
    campaign = Campaign.from_csv(gateway, str(tmp_path / "part-*.csv"), text=TEXT, sender="Shop")
    assert campaign.recipients.npartitions == 3
    report = campaign.preflight(now=NOW, offline=True)
    assert_same_report(report.frame.compute(), expected.frame)
    pd.testing.assert_frame_equal(report.summary(), expected.summary())


def test_report_to_parquet_reads_back_the_report(
    dask_cluster: distributed.Client, gateway: smskit.Client, tmp_path: Path
) -> None:
    """from_parquet in, to_parquet out: the files hold the per-recipient report, row for row."""
    base(7).to_parquet(tmp_path / "base.parquet")
    campaign = Campaign.from_parquet(gateway, tmp_path / "base.parquet", text=TEXT, sender="Sh")
    report = campaign.preflight(now=NOW, offline=True)
    report.to_parquet(tmp_path / "report")
    written = pd.read_parquet(tmp_path / "report").sort_values("row")
    expected = report.frame.compute()
    assert list(written.columns) == list(expected.columns)
    assert written["row"].tolist() == expected["row"].tolist()
    assert written["issue"].astype(object).tolist() == expected["issue"].astype(object).tolist()
    assert not report.ok  # "Sh" is too short a sender: a campaign-level error, as in pandas
    assert report.summary()["errors"].iat[0] == 1


def test_kept_partitions_hold_what_the_pandas_plan_sends(
    dask_cluster: distributed.Client, gateway: smskit.Client
) -> None:
    """kept(): numbers, rows, segments and field texts of the pandas plan, in its order."""
    frame = base(8)
    ddf = dd.from_pandas(frame, npartitions=4)
    same = ddf.compute()
    report = Campaign(gateway, ddf, text=TEXT, sender="Shop").preflight(now=NOW, offline=True)
    kept = report.kept()
    assert kept.npartitions == 4
    got = kept.compute()
    pandas = PandasCampaign(gateway, same, text=TEXT, sender="Shop")
    expected = pandas_report(same, gateway)
    header = {"name": "n", "text": TEXT, "sender": "Shop", "options": {}}
    audience = audience_for(pandas.recipients, pandas.settings)
    plan = build_plan(expected, audience, header, "FR", 500)  # type: ignore[arg-type]
    assert got["row"].tolist() == plan.columns["row"]
    assert got["phone_number"].tolist() == plan.columns["phone_number"]
    assert got["segments"].tolist() == plan.columns["segments"]
    for name in ("last_name", "first_name"):
        assert got[f"field:{name}"].tolist() == plan.columns[f"field:{name}"]


def test_connect_joins_a_running_scheduler(dask_cluster: distributed.Client) -> None:
    """connect(address) joins that cluster's workers and starts none."""
    address = dask_cluster.cluster.scheduler_address
    with connect(address) as client:
        assert len(client.scheduler_info()["workers"]) == 2
    with pytest.raises(smskit.ValidationError, match="address"):
        connect(address, workers=4)


def test_dask_campaign_refuses_a_pandas_frame(gateway: smskit.Client) -> None:
    """The Dask campaign takes a Dask DataFrame; a pandas one belongs to smskit.Campaign."""
    with pytest.raises(smskit.ValidationError, match="Dask DataFrame"):
        Campaign(gateway, base(0), text=TEXT, sender="Shop")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "given", ["base/part-*.csv", "customers.csv", "a.parquet", Path("customers.csv"),
              ["customers.csv", Path("b.csv")]],
    ids=["glob", "csv name", "parquet name", "Path", "list"],
)  # fmt: skip
def test_dask_campaign_given_files_points_to_from_csv(
    given: object, gateway: smskit.Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files given where the Dask campaign takes a Dask DataFrame (a path, a glob, a list of
    them: what from_csv and from_parquet read) were told "must be a Dask DataFrame
    (dask.dataframe.from_pandas(...) ...)"; now the refusal names from_csv and from_parquet,
    and following it reads the file."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(smskit.ValidationError) as caught:
        Campaign(gateway, given, text=TEXT, sender="Shop")  # type: ignore[arg-type]
    assert caught.value.field == "recipients"
    assert caught.value.rule.startswith(
        "files are read by smskit.dask.Campaign.from_csv(client, PATHS, ...) or "
        ".from_parquet(client, PATHS, ...)"
    ), caught.value.rule
    file = tmp_path / "customers.csv"  # absolute: a cluster's workers have their own cwd
    file.write_text("phone_number\n+33612345678\n+33612345679\n")
    followed = Campaign.from_csv(gateway, str(file), text=TEXT, sender="Shop")
    assert followed.preflight().to_send == 2


@pytest.mark.parametrize("given", ["+33612345678", ["+33612345678", "0612345679"]])
def test_dask_campaign_given_numbers_is_not_told_of_files(
    given: object, gateway: smskit.Client
) -> None:
    """Numbers are no files: the refusal still says a Dask DataFrame is taken."""
    with pytest.raises(smskit.ValidationError) as caught:
        Campaign(gateway, given, text=TEXT, sender="Shop")  # type: ignore[arg-type]
    assert caught.value.rule.startswith("must be a Dask DataFrame"), caught.value.rule


def test_preflight_summary_to_parquet_and_kept_read_the_input_once(
    dask_cluster: distributed.Client, gateway: smskit.Client, tmp_path: Path
) -> None:
    """One pass over the input: the report, its files and kept() read the spill, not the input."""
    frame = base(9)
    paths = []
    for n, start in enumerate(range(0, 400, 100)):
        path = tmp_path / f"in-{n}.parquet"
        frame.iloc[start : start + 100].to_parquet(path)
        paths.append(str(path))
    log = tmp_path / "reads.log"
    meta = pd.read_parquet(paths[0]).iloc[:0]
    ddf = dd.from_map(counted_read, paths, log=str(log), meta=meta, enforce_metadata=False)
    report = Campaign(gateway, ddf, text=TEXT, sender="Shop").preflight(now=NOW)
    report.summary()
    report.to_parquet(tmp_path / "report")
    kept = report.kept().compute()
    got = report.frame.compute()
    assert sorted(log.read_text(encoding="utf-8").splitlines()) == paths
    expected = pandas_report(pd.concat([pd.read_parquet(p) for p in paths]), gateway, False)
    pd.testing.assert_frame_equal(report.summary(), expected.summary())
    assert_same_report(got, expected.frame)
    assert kept["row"].tolist() == got.loc[got["send"], "row"].tolist()
    assert len(pd.read_parquet(tmp_path / "report")) == len(frame)


@pytest.mark.parametrize("seed", [0, 1])
def test_repeats_go_back_to_their_own_partition_only(
    dask_cluster: distributed.Client, seed: int
) -> None:
    """Partition n of the routed repeats holds n's rows only, each paired with the first
    key of its number in input order."""
    rng = np.random.default_rng(seed)
    keys = sorted({(int(p) << SHIFT) + int(r) for p, r in rng.integers(0, [4, 50], (150, 2))})
    numbers = rng.choice([f"+3361234{i:04d}" for i in range(20)], len(keys))
    shuffled = rng.permutation(len(keys))
    candidates = pd.DataFrame(
        {"row": np.array(keys)[shuffled], "phone_number": numbers[shuffled]}
    ).astype({"phone_number": "str"})
    routed = repeats_by_owner(dd.from_pandas(candidates, npartitions=3), 4)
    assert routed.npartitions == 4
    first: dict[str, int] = {}
    expected = {}
    for key, number in zip(keys, numbers, strict=True):  # keys are in input order
        if number in first:
            expected[key] = first[number]
        else:
            first[number] = key
    got = {}
    for n, part in enumerate(routed.to_delayed()):
        own = part.compute()
        assert ((own["row"].to_numpy() >> SHIFT) == n).all()
        got.update(zip(own["row"].tolist(), own["first"].tolist(), strict=True))
    assert got == expected


def test_the_spill_lives_as_long_as_a_frame_reads_it(
    dask_cluster: distributed.Client, gateway: smskit.Client
) -> None:
    """kept() outlives its report; a report dropped with its frames takes its spill along."""
    ddf = dd.from_pandas(base(10), npartitions=3)
    campaign = Campaign(gateway, ddf, text=TEXT, sender="Shop")
    report = campaign.preflight(now=NOW, offline=True)
    expected = report.to_send
    kept = report.kept()
    del report
    gc.collect()
    assert len(kept.compute()) == expected
    report = campaign.preflight(now=NOW, offline=True)
    where = report.spill.path  # type: ignore[attr-defined]
    assert (where / "report").is_dir()
    del report
    gc.collect()
    assert not where.exists()


@pytest.mark.parametrize(
    "bad", ["33612345678.0", "Zo\ud800"], ids=["a float's text", "a lone surrogate"]
)
def test_campaign_refusal_names_the_row_in_the_whole_input(
    dask_cluster: distributed.Client, gateway: smskit.Client, bad: str
) -> None:
    """A value the preflight refuses in the third of four partitions: the refusal names its
    row in the user's frame (as the pandas Campaign does), not its row in the partition."""
    frame = base(10, rows=40).astype(object)  # a column of text that may hold a surrogate
    frame["phone_number"] = "+33612345678"
    column = "first_name" if "\ud800" in bad else "phone_number"
    frame.at[27, column] = bad
    with dask.config.set({"dataframe.convert-string": False}):  # a surrogate has no UTF-8
        ddf = dd.from_pandas(frame, npartitions=4)
    assert ddf.npartitions == 4 and ddf.divisions[2] < 27 < ddf.divisions[3]
    with pytest.raises(smskit.ValidationError) as caught:
        Campaign(gateway, ddf, text=TEXT, sender="Shop").preflight(now=NOW, offline=True)
    with pytest.raises(smskit.ValidationError) as expected:
        PandasCampaign(gateway, frame, text=TEXT, sender="Shop").preflight(now=NOW, offline=True)
    got = caught.value
    assert got.position == 27 == expected.value.position
    assert (got.field, got.rule) == (expected.value.field, expected.value.rule)
    assert "[27]" in str(got)
