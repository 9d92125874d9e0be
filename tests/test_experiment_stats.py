"""compare_counts equals statsmodels' own answers on the same counts (differential), and
refuses counts it cannot read exactly; the arms figure draws exactly the comparison's rates."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import (
    proportion_confint,
    proportion_effectsize,
    proportions_ztest,
)

from smskit.campaigns.analysis.comparison import METRICS, compare_counts
from smskit.errors import ValidationError

MEASURES = ("delivered", "replied", "opted_out")


@st.composite
def arm_counts(draw: st.DrawFn) -> dict[str, int]:
    """One arm's counts: sent, and each metric at most sent (all 0 and all sent included)."""
    sent = draw(st.one_of(st.integers(0, 3), st.integers(0, 20_000)))
    return {"sent": sent, **{m: draw(st.integers(0, sent)) for m in MEASURES}}


ARMS = st.lists(arm_counts(), min_size=2, max_size=5).map(
    lambda arms: {f"arm{i}": counts for i, counts in enumerate(arms)}
)


def same(actual: Any, expected: Any) -> bool:
    """Equal as floats, both missing counting as equal."""
    actual, expected = float(actual), float(expected)
    return (math.isnan(actual) and math.isnan(expected)) or actual == expected


# statsmodels' Holm runs a full gc.collect() per call (its own choice): a few dozen cases.
@settings(max_examples=40, deadline=None)
@given(
    counts=ARMS,
    alpha=st.sampled_from([0.01, 0.05, 0.1]),
    correction=st.sampled_from(["holm", "bonferroni", "none"]),
)
def test_rates_and_tests_are_statsmodels_answers(
    counts: dict[str, dict[str, int]], alpha: float, correction: str
) -> None:
    """Every rate's Wilson interval is proportion_confint's, every test proportions_ztest's,
    and the adjusted p-values multipletests' over one metric's tests (none for 'none')."""
    comparison = compare_counts(counts, alpha=alpha, correction=correction)
    rates = comparison.rates.set_index(["arm", "metric"])
    for arm, values in counts.items():
        for metric in MEASURES:
            row = rates.loc[(arm, metric)]
            assert row["count"] == values[metric] and row["sent"] == values["sent"]
            if values["sent"] == 0:
                assert math.isnan(row["rate"]) and row["note"] == "no_recipients"
                continue
            low, high = proportion_confint(values[metric], values["sent"], alpha, "wilson")
            # at the ends, Wilson's exact bound (0 or 1) where statsmodels' float is a hair off
            low = 0.0 if values[metric] == 0 else low
            high = 1.0 if values[metric] == values["sent"] else high
            assert (row["ci_low"], row["ci_high"]) == (low, high)
            assert row["rate"] == values[metric] / values["sent"]
    control = next(iter(counts.values()))
    tests = comparison.tests.set_index(["arm", "metric"])
    for metric in MEASURES:
        expected_p = []
        for arm, values in list(counts.items())[1:]:
            row = tests.loc[(arm, metric)]
            count = np.array([values[metric], control[metric]])
            sent = np.array([values["sent"], control["sent"]])
            pooled = count.sum() / sent.sum() if sent.sum() else math.nan
            if sent.all() and 0 < pooled < 1:
                z, p = proportions_ztest(count, sent)
                assert (row["z"], row["p_value"]) == (z, p)
                expected_p.append(p)
            else:
                assert math.isnan(row["p_value"]) and row["note"] in (
                    "no_recipients",
                    "no_variance",
                )
                expected_p.append(math.nan)
        adjusted = np.array(expected_p)
        tested = ~np.isnan(adjusted)
        if correction != "none" and tested.any():
            adjusted[tested] = multipletests(adjusted[tested], alpha=alpha, method=correction)[1]
        found = tests.xs(metric, level="metric")["p_adjusted"].to_numpy()
        assert all(same(a, e) for a, e in zip(found, adjusted, strict=True))
        significant = tests.xs(metric, level="metric")["significant"]
        assert significant.dtype == "boolean"
        assert significant.isna().tolist() == np.isnan(found).tolist()  # no test: unknown
        made = ~np.isnan(found)
        assert (significant[made] == (found[made] < alpha)).all()


@settings(max_examples=100, deadline=None)
@given(
    counts=ARMS,
    power=st.sampled_from([0.8, 0.9]),
    lift=st.sampled_from([0.05, 0.2, -0.3, 1.5]),
)
def test_sample_sizes_are_normal_ind_power_answers(
    counts: dict[str, dict[str, int]], power: float, lift: float
) -> None:
    """Each metric's arm size is NormalIndPower's for Cohen's h between the control's rate
    and that rate times 1 + lift, at alpha over the number of tests, rounded up."""
    comparison = compare_counts(counts, power=power, lift=lift, correction="bonferroni")
    control = next(iter(counts.values()))
    tested_alpha = 0.05 / (len(counts) - 1)
    sizes = comparison.sample_sizes.set_index("metric")
    for metric in MEASURES:
        row = sizes.loc[metric]
        assert row["smallest_arm"] == min(v["sent"] for v in counts.values())
        if control["sent"] == 0 or control[metric] == 0:
            assert pd.isna(row["per_arm"]) and row["note"] in ("no_recipients", "no_baseline")
            continue
        baseline = control[metric] / control["sent"]
        if baseline * (1 + lift) > 1:
            assert pd.isna(row["per_arm"]) and row["note"] == "beyond_one"
            continue
        effect = abs(proportion_effectsize(baseline * (1 + lift), baseline))
        expected = NormalIndPower().solve_power(
            effect_size=effect, alpha=tested_alpha, power=power, ratio=1.0
        )
        assert row["per_arm"] == math.ceil(expected)
        assert row["enough"] == (row["smallest_arm"] >= row["per_arm"])


def test_a_known_comparison() -> None:
    """A worked case: 10% vs 12% replies of 2,000 each; z and p as a textbook gives them."""
    zero = {"delivered": 0, "opted_out": 0}
    comparison = compare_counts(
        {"A": {"sent": 2000, "replied": 200, **zero}, "B": {"sent": 2000, "replied": 240, **zero}}
    )
    test = comparison.tests.set_index("metric").loc["replied"]
    pooled = 440 / 4000
    z = (0.12 - 0.10) / math.sqrt(pooled * (1 - pooled) * (2 / 2000))
    assert test["z"] == pytest.approx(z, rel=1e-12)
    assert test["p_value"] == pytest.approx(math.erfc(z / math.sqrt(2)), rel=1e-9)
    assert test["difference"] == pytest.approx(0.02)
    assert comparison.control == "A" and list(comparison.rates["metric"].cat.categories) == list(
        METRICS
    )


@pytest.mark.parametrize(
    ("counts", "field"),
    [
        ({"A": {"sent": 10, "delivered": 11, "replied": 0, "opted_out": 0}}, "counts"),
        ({"A": {"sent": 10, "delivered": 11, "replied": 0, "opted_out": 0},
          "B": {"sent": 10, "delivered": 1, "replied": 0, "opted_out": 0}}, "counts.A.delivered"),
        ({"A": {"sent": 10.5, "delivered": 1, "replied": 0, "opted_out": 0},
          "B": {"sent": 10, "delivered": 1, "replied": 0, "opted_out": 0}}, "counts.A.sent"),
        ({"A": {"sent": 10, "delivered": 1, "replied": 0},
          "B": {"sent": 10, "delivered": 1, "replied": 0, "opted_out": 0}}, "counts.A.opted_out"),
    ],
)  # fmt: skip
def test_counts_not_read_exactly_are_refused(counts: dict[str, Any], field: str) -> None:
    """One arm, a count above the sent, a fractional or a missing count: refused by name."""
    with pytest.raises(ValidationError) as caught:
        compare_counts(counts)
    assert caught.value.field == field


@pytest.mark.parametrize(
    ("option", "value"),
    [("alpha", 0), ("alpha", 1.5), ("power", True), ("lift", 0), ("lift", -1),
     ("lift", math.inf), ("correction", "fdr")],
)  # fmt: skip
def test_settings_out_of_range_are_refused(option: str, value: Any) -> None:
    """alpha and power in (0, 1), a finite lift above -1 and not 0, a known correction."""
    counts = {a: {"sent": 10, "delivered": 5, "replied": 1, "opted_out": 0} for a in "AB"}
    with pytest.raises(ValidationError) as caught:
        compare_counts(counts, **{option: value})
    assert caught.value.field == option


@pytest.mark.parametrize(("count", "sent"), [(0, 7), (0, 1000), (7, 7), (0, 10), (10, 10)])
def test_an_interval_at_no_count_or_all_is_exactly_0_or_1(count: int, sent: int) -> None:
    # statsmodels gives (2.8e-17, 0.354) for 0 of 7 and a high of 0.9999999999999999 for 7 of 7
    arm = {"sent": sent, "delivered": count, "replied": count, "opted_out": count}
    rates = compare_counts({"A": arm, "B": arm}).rates
    row = rates.set_index(["arm", "metric"]).loc[("B", "delivered")]
    if count == 0:
        assert row["ci_low"] == 0.0 and 0.0 < row["ci_high"] < 1.0
    else:
        assert row["ci_high"] == 1.0 and 0.0 < row["ci_low"] < 1.0


def test_the_figure_draws_the_rates_and_their_intervals() -> None:
    """One panel per metric; each point is the arm's rate, its error bars reach exactly the
    Wilson interval's ends, and the non-control arm's label carries its adjusted p-value."""
    from smskit.plots import experiment_arms

    comparison = compare_counts(
        {
            "A": {"sent": 500, "delivered": 450, "replied": 20, "opted_out": 5},
            "B": {"sent": 480, "delivered": 400, "replied": 60, "opted_out": 0},
        }
    )
    figure = experiment_arms(comparison)
    assert len(figure.data) == len(METRICS)
    for trace, metric in zip(figure.data, METRICS, strict=True):
        rates = comparison.rates[comparison.rates["metric"] == metric]
        assert list(trace.y) == rates["rate"].tolist()
        assert np.allclose(np.asarray(trace.y) + trace.error_y.array, rates["ci_high"])
        assert np.allclose(np.asarray(trace.y) - trace.error_y.arrayminus, rates["ci_low"])
        p = comparison.tests.set_index("metric").loc[metric, "p_adjusted"]
        shown = "p<0.001" if p < 0.001 else f"p={p:.3f}"
        assert trace.x[0].startswith("A<br>") and "control" in trace.x[0]
        assert trace.x[1] == f"B<br><sub>{shown}</sub>"
