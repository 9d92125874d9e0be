"""Incremental lift: treated recipients against the holdout, with intervals.

Every statistic is statsmodels' (none is computed here):

- conversion rate: the two-sided two-proportion z-test on the pooled proportion
  (``proportions_ztest``) and the difference's interval by Newcombe's hybrid score method
  (``confint_proportions_2indep(method="newcomb")``);
- revenue per recipient: Welch's t-test and its interval (``CompareMeans.ttest_ind`` and
  ``tconfint_diff`` with ``usevar="unequal"``);
- incremental conversions and revenue: those differences times the treated recipients, so
  their intervals are the differences' intervals scaled; incremental ROI is the incremental
  revenue less the campaign's billed cost, over that cost (the cost is known, not drawn);
- the smallest detectable lift: the rate difference above the holdout's rate whose Cohen's
  h (``proportion_effectsize``'s arcsine distance, inverted) ``NormalIndPower`` finds
  detectable with ``power`` at ``alpha`` for these two group sizes.

A statistic that cannot be computed is missing with a ``note`` saying why, never guessed.
May import ``smskit.errors`` and the rule book; statsmodels loads when a lift is computed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from smskit._extras import import_stats
from smskit.rules.choices import checked_choice
from smskit.rules.ranges import checked_probability

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = [
    "LIFT_METRICS",
    "GroupTotals",
    "Lift",
    "frame_totals",
    "lift",
    "lift_of",
    "rate_interval",
]

LIFT_METRICS: Final = (
    "conversion_rate",
    "revenue_per_recipient",
    "incremental_conversions",
    "incremental_revenue",
    "incremental_roi",
    "minimum_detectable_lift",
)
_COLUMNS: Final = (
    "metric",
    "treated",
    "holdout",
    "difference",
    "ci_low",
    "ci_high",
    "p_value",
    "note",
)
_NAN: Final = math.nan


@dataclass(frozen=True)
class Lift:
    """Treated against holdout: :attr:`table` has one row per metric (:data:`LIFT_METRICS`)
    with each group's value, the ``difference`` (treated - holdout, or the incremental
    total), its interval at ``1 - alpha`` and the test's ``p_value``; ``note`` says why a
    value is missing. ``smskit.plots.lift_intervals(lift)`` draws it."""

    table: pd.DataFrame = field(repr=False)
    treated: int = 0
    holdout: int = 0
    alpha: float = 0.05
    power: float = 0.8
    cost: float | None = None

    def value(self, metric: str, column: str = "difference") -> float:
        """One cell of :attr:`table`: ``lift.value("conversion_rate", "ci_low")``."""
        checked_choice("metric", metric, LIFT_METRICS)
        checked_choice("column", column, [c for c in self.table.columns if c != "metric"])
        row = self.table.loc[self.table["metric"] == metric]
        return float(row[column].iloc[0])

    def __repr__(self) -> str:
        diff = self.value("conversion_rate")
        low, high = (self.value("conversion_rate", bound) for bound in ("ci_low", "ci_high"))
        shown = "n/a" if math.isnan(diff) else f"{diff:+.2%} [{low:+.2%}, {high:+.2%}]"
        return f"Lift(treated={self.treated}, holdout={self.holdout}, conversion_rate {shown})"


@dataclass(frozen=True)
class GroupTotals:
    """What the tests need of one group: ``size`` recipients, ``converted`` of them, and
    their revenues as ``values`` (None: no amounts) each counted ``weights`` times (None:
    once each). A partitioned frame gives each partition's, and :meth:`merged` adds them up
    (the revenues as counts of each distinct amount), so the statistics never need the
    recipients in one frame."""

    size: int
    converted: int
    values: np.ndarray | None = None
    weights: np.ndarray | None = None

    @classmethod
    def of(cls, converted: np.ndarray, revenue: np.ndarray | None) -> GroupTotals:
        """One group's totals from its recipients' ``converted`` and ``revenue`` arrays."""
        return cls(len(converted), int(converted.sum()), revenue)

    def counted(self) -> GroupTotals:
        """The same totals with the revenues as distinct amounts and their counts."""
        import numpy as np

        if self.values is None or self.weights is not None:
            return self
        values, counts = np.unique(self.values, return_counts=True)
        return GroupTotals(self.size, self.converted, values, counts.astype("float64"))

    @staticmethod
    def merged(parts: list[GroupTotals]) -> GroupTotals:
        """The totals of several parts of one group (each :meth:`counted`)."""
        import numpy as np

        size = sum(p.size for p in parts)
        converted = sum(p.converted for p in parts)
        if any(p.values is None for p in parts) or not parts:
            return GroupTotals(size, converted)
        counted = [p.counted() for p in parts]
        values = np.concatenate([p.values for p in counted if p.values is not None])
        weights = np.concatenate([p.weights for p in counted if p.weights is not None])
        distinct, where = np.unique(values, return_inverse=True)
        return GroupTotals(size, converted, distinct, np.bincount(where, weights=weights))


def _row(metric: str, **values: Any) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(_COLUMNS, _NAN)
    row.update({"metric": metric, "note": None, **values})
    return row


def lift(
    frame: pd.DataFrame,
    *,
    treated: str | None = None,
    holdout: str = "holdout",
    cost: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
) -> Lift:
    """The :class:`Lift` of a conversions frame (``group``, ``converted``, ``revenue``):
    group ``treated`` (default: every group but ``holdout``) against group ``holdout``;
    ``cost`` is what the treated recipients' messages were billed. Needs the ``stats``
    extra (statsmodels, SciPy): without it, ``smskit.MissingExtraError`` says so."""
    mine, theirs = frame_totals(frame, treated, holdout)
    return lift_of(mine, theirs, cost=cost, alpha=alpha, power=power)


def frame_totals(
    frame: pd.DataFrame, treated: str | None, holdout: str
) -> tuple[GroupTotals, GroupTotals]:
    """The totals of group ``treated`` (None: every group but ``holdout``) and of group
    ``holdout`` in a conversions frame (``group``, ``converted``, ``revenue``)."""
    groups = frame["group"]
    held = (groups == holdout).to_numpy(dtype=bool)
    sent = (groups == treated).to_numpy(dtype=bool) if treated is not None else ~held
    converted = frame["converted"].to_numpy(dtype=bool)
    revenue = frame["revenue"].to_numpy(dtype="float64") if "revenue" in frame else None
    return (
        GroupTotals.of(converted[sent], None if revenue is None else revenue[sent]),
        GroupTotals.of(converted[held], None if revenue is None else revenue[held]),
    )


def lift_of(
    treated: GroupTotals,
    holdout: GroupTotals,
    *,
    cost: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
) -> Lift:
    """The :class:`Lift` of two groups' totals (what :func:`lift` computes from a frame; a
    partitioned frame's totals merged by :meth:`GroupTotals.merged` give the same)."""
    import_stats("statsmodels.stats.proportion", "lift()")
    alpha = checked_probability("alpha", alpha)
    power = checked_probability("power", power)
    n_t, n_h = treated.size, holdout.size
    x_t, x_h = treated.converted, holdout.converted
    rows = [_rate_row(x_t, n_t, x_h, n_h, alpha)]
    rows.append(_revenue_row(treated, holdout, alpha))
    rate, money = rows[0], rows[1]
    rows.append(_scaled("incremental_conversions", rate, n_t))
    rows.append(_scaled("incremental_revenue", money, n_t))
    rows.append(_roi(rows[-1], cost))
    rows.append(_detectable(x_h, n_t, n_h, alpha, power))
    import pandas as pd

    table = pd.DataFrame(
        {
            "metric": pd.Categorical(LIFT_METRICS, categories=LIFT_METRICS),
            **{name: [float(row[name]) for row in rows] for name in _COLUMNS[1:7]},
            "note": pd.array([row["note"] for row in rows], dtype="string"),
        }
    )
    return Lift(table, n_t, n_h, alpha, power, cost)


def _empty_note(n_t: int, n_h: int) -> str | None:
    if not n_h:
        return "no_holdout"
    if not n_t:
        return "no_treated"
    return None


def _rate_row(x_t: int, n_t: int, x_h: int, n_h: int, alpha: float) -> dict[str, Any]:
    note = _empty_note(n_t, n_h)
    if note:
        return _row("conversion_rate", treated=x_t / n_t if n_t else _NAN,
                    holdout=x_h / n_h if n_h else _NAN, note=note)  # fmt: skip
    from statsmodels.stats.proportion import proportions_ztest

    p_t, p_h = x_t / n_t, x_h / n_h
    if x_t + x_h in (0, n_t + n_h):
        return _row("conversion_rate", treated=p_t, holdout=p_h, difference=p_t - p_h,
                    note="no_variance")  # fmt: skip
    _, p_value = proportions_ztest([x_t, x_h], [n_t, n_h])
    low, high = rate_interval(x_t, n_t, x_h, n_h, alpha=alpha)
    return _row("conversion_rate", treated=p_t, holdout=p_h, difference=p_t - p_h,
                ci_low=float(low), ci_high=float(high), p_value=float(p_value))  # fmt: skip


def rate_interval(x_t: Any, n_t: Any, x_h: Any, n_h: Any, *, alpha: float = 0.05) -> Any:
    """The interval of the conversion rates' difference (treated - holdout) at ``1 - alpha``
    by Newcombe's method (statsmodels ``confint_proportions_2indep(method="newcomb")``):
    ``(low, high)``, each a float, or an array when the counts are arrays (one per campaign)."""
    import_stats("statsmodels.stats.proportion", "rate_interval()")
    from statsmodels.stats.proportion import confint_proportions_2indep

    return confint_proportions_2indep(
        x_t, n_t, x_h, n_h, method="newcomb", compare="diff", alpha=alpha
    )


def _revenue_row(treated: GroupTotals, holdout: GroupTotals, alpha: float) -> dict[str, Any]:
    if treated.values is None or holdout.values is None:
        return _row("revenue_per_recipient", note="no_revenue")
    from statsmodels.stats.weightstats import CompareMeans, DescrStatsW

    n_a, n_b = treated.size, holdout.size
    a = DescrStatsW(treated.values, weights=treated.weights) if n_a else None
    b = DescrStatsW(holdout.values, weights=holdout.weights) if n_b else None
    mean_a = _mean(treated) if n_a else _NAN
    mean_b = _mean(holdout) if n_b else _NAN
    note = _empty_note(n_a, n_b) or ("too_few" if min(n_a, n_b) < 2 else None)
    if note is None and a is not None and b is not None and (a.var == 0 or b.var == 0):
        # One group without spread leaves Welch's standard error to the other alone: a
        # 20-recipient holdout where nobody bought "proved" a revenue lift in about half
        # of the campaigns without one. Both without spread: no test at all.
        note = "no_variance" if a.var == 0 and b.var == 0 else "one_value"
    if note or a is None or b is None:
        return _row("revenue_per_recipient", treated=mean_a, holdout=mean_b,
                    difference=mean_a - mean_b, note=note)  # fmt: skip
    compared = CompareMeans(a, b)
    _, p_value, _ = compared.ttest_ind(usevar="unequal")
    low, high = compared.tconfint_diff(alpha=alpha, usevar="unequal")
    return _row("revenue_per_recipient", treated=mean_a, holdout=mean_b,
                difference=mean_a - mean_b, ci_low=float(low), ci_high=float(high),
                p_value=float(p_value))  # fmt: skip


def _mean(totals: GroupTotals) -> float:
    """A group's mean revenue (each recipient once: the plain mean of a frame's column)."""
    import numpy as np

    assert totals.values is not None
    if totals.weights is None:
        return float(totals.values.mean())
    return float(np.dot(totals.values, totals.weights) / totals.weights.sum())


def _scaled(metric: str, row: dict[str, Any], times: int) -> dict[str, Any]:
    """A per-recipient difference as a total over the treated recipients."""
    scaled = {name: row[name] * times for name in ("difference", "ci_low", "ci_high")}
    return _row(metric, **scaled, p_value=row["p_value"], note=row["note"])


def _roi(revenue: dict[str, Any], cost: float | None) -> dict[str, Any]:
    if cost is None or not cost > 0:
        return _row("incremental_roi", note="no_cost")
    roi = {name: (revenue[name] - cost) / cost for name in ("difference", "ci_low", "ci_high")}
    return _row("incremental_roi", **roi, p_value=revenue["p_value"], note=revenue["note"])


def _detectable(x_h: int, n_t: int, n_h: int, alpha: float, power: float) -> dict[str, Any]:
    note = _empty_note(n_t, n_h)
    if note:
        return _row("minimum_detectable_lift", note=note)
    from statsmodels.stats.power import NormalIndPower

    base = x_h / n_h
    h = float(
        NormalIndPower().solve_power(
            effect_size=None, nobs1=n_t, ratio=n_h / n_t, alpha=alpha, power=power
        )
    )
    # The rate whose Cohen's h above the holdout's is h (proportion_effectsize, inverted).
    angle = math.asin(math.sqrt(base)) + h / 2
    if angle > math.pi / 2:
        return _row("minimum_detectable_lift", holdout=base, note="beyond_one")
    difference = math.sin(angle) ** 2 - base
    return _row("minimum_detectable_lift", holdout=base, difference=float(difference))
