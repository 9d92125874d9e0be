"""An experiment's arms compared: rates with intervals, tests against the control, power.

Every number is statsmodels' (none is computed here): each rate's interval is Wilson's score
interval (``proportion_confint(method="wilson")``); each arm is tested against the first arm,
the control, with the two-sided two-proportion z-test on the pooled proportion
(``proportions_ztest``); with more than one such test per metric their p-values are adjusted
together (Holm by default, ``multipletests``); the sample size an arm needs to detect a
relative ``lift`` of the control's rate comes from Cohen's h (``proportion_effectsize``) and
``NormalIndPower``. What each assumes, and how to read it, is in docs/experiments.md.

A statistic that cannot be computed (an arm with no recipient sent; a test where both arms
are all 0 or all 1; a control rate of 0) is left missing with a ``note`` code saying why,
never given a value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from smskit._extras import import_stats
from smskit.errors import ValidationError
from smskit.rules.choices import checked_choice
from smskit.rules.ranges import checked_probability, exact_integer, real_number

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CORRECTIONS",
    "METRICS",
    "OPTIONAL_METRICS",
    "ExperimentComparison",
    "compare_counts",
]

# What an arm's recipients may have done; each counted among the recipients sent.
METRICS: Final = ("delivered", "replied", "opted_out")
# Compared when the counts give them: ``clicked`` for arms whose tracked links were requested.
OPTIONAL_METRICS: Final = ("clicked",)
# How p-values of one metric's tests against the control are adjusted together.
CORRECTIONS: Final = ("holm", "bonferroni", "none")
_COUNT_COLUMNS: Final = ("sent", *METRICS)


@dataclass(frozen=True)
class ExperimentComparison:
    """Arms compared on delivery, reply and opt-out: :attr:`rates` (per arm and metric, with
    Wilson intervals at ``1 - alpha``), :attr:`tests` (each arm against the control, the
    first arm), :attr:`sample_sizes` (per metric, recipients an arm needs to detect
    ``lift``) and the :attr:`counts` they come from."""

    counts: pd.DataFrame = field(repr=False)
    rates: pd.DataFrame = field(repr=False)
    tests: pd.DataFrame = field(repr=False)
    sample_sizes: pd.DataFrame = field(repr=False)
    alpha: float = 0.05
    power: float = 0.8
    lift: float = 0.1
    correction: str = "holm"

    @property
    def control(self) -> str:
        """The arm every other arm is tested against (the first)."""
        return str(self.counts["arm"].iloc[0])

    def __repr__(self) -> str:
        shown = []
        for arm, metric, value in zip(
            self.rates["arm"], self.rates["metric"], self.rates["rate"], strict=True
        ):
            rate = "n/a" if math.isnan(value) else f"{value:.1%}"
            shown.append(f"{arm}.{metric}={rate}")
        return f"ExperimentComparison(control={self.control!r}, {', '.join(shown)})"

    def to_html(self) -> str:
        """The rates and the tests as HTML tables."""
        return (
            "<h4>Rates (Wilson intervals)</h4>"
            + self.rates.to_html(index=False, na_rep="")
            + f"<h4>Against {self.control} ({self.correction})</h4>"
            + self.tests.to_html(index=False, na_rep="")
        )

    def _repr_html_(self) -> str:
        return self.to_html()


def compare_counts(
    counts: Mapping[str, Mapping[str, int]] | pd.DataFrame,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    lift: float = 0.1,
    correction: str = "holm",
) -> ExperimentComparison:
    """The comparison of arms given their counts.

    ``counts``: per arm (the first is the control), ``sent`` (the denominator: recipients
    sent) and how many of them were ``delivered``, ``replied`` and ``opted_out``; a mapping
    ``{arm: {...}}`` or a frame with an ``arm`` column. ``alpha``: the tests' level and the
    intervals' ``1 - alpha``; ``power`` and ``lift`` (relative: 0.1 is the control's rate
    times 1.1) size the arms; ``correction``: one of :data:`CORRECTIONS`.

    Needs the ``stats`` extra (statsmodels, SciPy): without it, ``smskit.MissingExtraError``
    saying ``pip install 'smskit[stats]'``, before anything is computed.
    """
    import_stats("statsmodels.stats.proportion", "Experiment.compare()")
    alpha = checked_probability("alpha", alpha)
    power = checked_probability("power", power)
    relative = real_number(lift)
    if relative is None or not math.isfinite(relative):
        raise ValidationError("lift", "must be a finite number (relative: 0.1 is +10%)", value=lift)
    lift = relative
    if lift <= -1 or lift == 0:
        raise ValidationError("lift", "must be above -1 and not 0", value=lift)
    checked_choice("correction", correction, CORRECTIONS)
    table = _counts_frame(counts)
    rates = _rates(table, alpha)
    tests = _tests(table, alpha, correction)
    # Holm's first step is Bonferroni's: an arm sized for alpha / tests detects the lift
    # whichever adjustment runs.
    tested = max(len(table) - 1, 1)
    planned = alpha if correction == "none" else alpha / tested
    sizes = _sample_sizes(table, planned, power, lift)
    return ExperimentComparison(table, rates, tests, sizes, alpha, power, float(lift), correction)


def _counts_frame(counts: Mapping[str, Mapping[str, int]] | pd.DataFrame) -> pd.DataFrame:
    """The counts as a frame (arm, sent, delivered, replied, opted_out), each checked."""
    import pandas as pd

    if isinstance(counts, pd.DataFrame):
        if "arm" not in counts.columns:
            raise ValidationError("counts", "a frame of counts needs an 'arm' column")
        records: dict[str, Mapping[Any, Any]] = {
            str(r["arm"]): r for r in counts.to_dict("records")
        }
    elif isinstance(counts, Mapping):
        for arm, values in counts.items():
            if not isinstance(values, Mapping):
                raise ValidationError(
                    f"counts.{arm}", "must map each count's name to a whole number", value=values
                )
        records = {str(arm): dict(values) for arm, values in counts.items()}
    else:
        raise ValidationError("counts", "must be a mapping of arm to counts, or a frame")
    if len(records) < 2:
        raise ValidationError("counts", "needs at least two arms", value=len(records))
    optional = [m for m in OPTIONAL_METRICS if all(m in v for v in records.values())]
    columns = [*_COUNT_COLUMNS, *optional]
    rows = []
    for arm, values in records.items():
        row: dict[str, Any] = {"arm": arm}
        for name in columns:
            value = values.get(name)
            count = exact_integer(value)
            if count is None or count < 0:
                raise ValidationError(
                    f"counts.{arm}.{name}", "must be a whole number >= 0", value=value
                )
            row[name] = count
        for name in columns[1:]:
            if row[name] > row["sent"]:
                raise ValidationError(
                    f"counts.{arm}.{name}", f"is more than the {row['sent']} sent", value=row[name]
                )
        rows.append(row)
    frame = pd.DataFrame(rows, columns=["arm", *columns])
    frame["arm"] = pd.Categorical(frame["arm"], categories=list(records))
    return frame.astype(dict.fromkeys(columns, "int64"))


def _metrics(table: pd.DataFrame) -> list[str]:
    """The metrics compared: :data:`METRICS`, and the optional ones the counts give."""
    return [*METRICS, *(m for m in OPTIONAL_METRICS if m in table.columns)]


def _metric_dtype(table: pd.DataFrame) -> Any:
    import pandas as pd

    return pd.CategoricalDtype(_metrics(table))


def _rates(table: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """Per arm and metric: count, sent, rate and its Wilson interval at ``1 - alpha``."""
    import pandas as pd
    from statsmodels.stats.proportion import proportion_confint

    rows = []
    for record in table.to_dict("records"):
        sent = record["sent"]
        for metric in _metrics(table):
            count = record[metric]
            if sent:
                low, high = proportion_confint(count, sent, alpha=alpha, method="wilson")
                # Wilson's bounds are exactly 0 at no count and 1 at all: statsmodels' floats
                # can say 2.8e-17 or 0.9999999999999999 there, read as "not quite 0"
                low, high = (0.0 if count == 0 else low), (1.0 if count == sent else high)
                rate, note = count / sent, None
            else:
                low = high = rate = math.nan
                note = "no_recipients"
            rows.append((record["arm"], metric, count, sent, rate, float(low), float(high), note))
    columns = ["arm", "metric", "count", "sent", "rate", "ci_low", "ci_high", "note"]
    frame = pd.DataFrame(rows, columns=columns)
    return frame.astype(
        {"arm": table["arm"].dtype, "metric": _metric_dtype(table), "note": "string"}
    )


def _tests(table: pd.DataFrame, alpha: float, correction: str) -> pd.DataFrame:
    """Each arm against the control, per metric: rates, difference, z, p-value, adjusted."""
    import numpy as np
    import pandas as pd
    from statsmodels.stats.multitest import multipletests
    from statsmodels.stats.proportion import proportions_ztest

    control = table.iloc[0]
    rows = []
    for metric in _metrics(table):
        found = []
        for _, arm in table.iloc[1:].iterrows():
            sent = np.array([arm["sent"], control["sent"]])
            count = np.array([arm[metric], control[metric]])
            rate, control_rate = (
                c / n if n else math.nan for c, n in zip(count, sent, strict=True)
            )
            pooled = count.sum() / sent.sum() if sent.sum() else math.nan
            if not (sent.all() and 0 < pooled < 1):
                z = p = math.nan
                note: str | None = "no_recipients" if not sent.all() else "no_variance"
            else:
                z, p = (float(v) for v in proportions_ztest(count, sent))
                note = None
            found.append([arm["arm"], control["arm"], metric, rate, control_rate,
                          rate - control_rate, z, p, note])  # fmt: skip
        p_values = np.array([row[7] for row in found], dtype=float)
        adjusted = p_values.copy()
        tested = ~np.isnan(p_values)
        if correction != "none" and tested.any():
            adjusted[tested] = multipletests(p_values[tested], alpha=alpha, method=correction)[1]
        for row, p_adjusted in zip(found, adjusted, strict=True):
            # No test made (no p-value): whether it is significant is unknown, not False.
            significant = pd.NA if math.isnan(p_adjusted) else bool(p_adjusted < alpha)
            rows.append([*row[:8], float(p_adjusted), significant, row[8]])
    columns = ["arm", "control", "metric", "rate", "control_rate", "difference", "z", "p_value",
               "p_adjusted", "significant", "note"]  # fmt: skip
    frame = pd.DataFrame(rows, columns=columns)
    arms = table["arm"].dtype
    dtypes = {"arm": arms, "control": arms, "metric": _metric_dtype(table), "note": "string",
              "significant": "boolean"}  # fmt: skip
    return frame.astype(dtypes)


def _sample_sizes(table: pd.DataFrame, alpha: float, power: float, lift: float) -> pd.DataFrame:
    """Per metric: recipients each arm needs to detect the control's rate times ``1 + lift``
    (two-sided, level ``alpha``, ``power``), beside the smallest arm's size."""
    import pandas as pd
    from statsmodels.stats.power import NormalIndPower
    from statsmodels.stats.proportion import proportion_effectsize

    control = table.iloc[0]
    smallest = int(table["sent"].min())
    rows = []
    for metric in _metrics(table):
        sent = int(control["sent"])
        baseline = control[metric] / sent if sent else math.nan
        target = baseline * (1 + lift)
        needed: int | None = None
        if not sent:
            note: str | None = "no_recipients"
        elif baseline == 0:
            note = "no_baseline"
        elif target > 1:
            note = "beyond_one"
        else:
            effect = abs(float(proportion_effectsize(target, baseline)))
            solved = NormalIndPower().solve_power(
                effect_size=effect, alpha=alpha, power=power, ratio=1.0, alternative="two-sided"
            )
            needed, note = math.ceil(float(solved)), None
        enough = None if needed is None else smallest >= needed
        rows.append((metric, baseline, lift, target, alpha, power, needed, smallest, enough, note))
    columns = ["metric", "control_rate", "lift", "target_rate", "alpha", "power",
               "per_arm", "smallest_arm", "enough", "note"]  # fmt: skip
    frame = pd.DataFrame(rows, columns=columns)
    dtypes = {
        "metric": _metric_dtype(table),
        "per_arm": "Int64",
        "enough": "boolean",
        "note": "string",
    }
    return frame.astype(dtypes)
