"""Render notebook HTML from the jinja2 templates in ``smskit/templates``: the house style.

Every ``to_html()`` of the package (client results, campaign reports, the Composer's panel)
renders through :func:`render`, so all of them share one environment, one way to print
numbers and money, and one colour per line status (figures use the same colours). The
environment is built on first use with autoescaping on: every value shown comes from the
gateway or the user and must never be interpreted as markup. This module imports neither
pandas nor plotly (jinja2 only when something is rendered): a notebook repr stays cheap.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import jinja2

__all__ = [
    "LINE_STATUS_COLORS",
    "MISSING_COLOR",
    "environment",
    "money",
    "number",
    "render",
    "shown_record",
    "shown_value",
]

# One colour per spec line status, used by every figure and repr.
LINE_STATUS_COLORS: Final[Mapping[str, str]] = {
    "live": "#2ca02c",
    "dead": "#d62728",
    "absent_subscriber": "#ff7f0e",
    "no_teleservice_provisioned": "#9467bd",
    "not_available_network_only": "#1f77b4",
    "no_coverage": "#8c564b",
    "not_applicable": "#7f7f7f",
    "inconclusive": "#bcbd22",
}
MISSING_COLOR: Final = "#c7c7c7"  # a value outside the spec, or none at all


@cache
def environment() -> jinja2.Environment:
    """The one jinja2 environment (imported lazily: ``import smskit`` stays light)."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("smskit", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )
    env.filters.update(number=number, money=money)
    return env


def render(template: str, /, **context: Any) -> str:
    """The HTML of ``template`` (a file name in ``smskit/templates``) with ``context``."""
    return environment().get_template(template).render(**context)


def number(value: Any) -> str:
    """An integer with thousands separators (``125,000``); empty for None."""
    if value is None:
        return ""
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def money(value: Any) -> str:
    """An amount with at least 2 decimals and up to 6 (micro-units): 0.065 stays 0.065."""
    if value is None:
        return ""
    text = f"{float(value):,.6f}".rstrip("0")
    whole, _, decimals = text.partition(".")
    return f"{whole}.{decimals.ljust(2, '0')}"


def shown_value(value: Any) -> Any:
    """A table cell as shown: a missing value (None, NaN, NA) is an empty cell."""
    import pandas as pd

    return "" if value is None or (not isinstance(value, str) and pd.isna(value)) else value


def shown_record(record: Mapping[Any, Any]) -> dict[str, Any]:
    """A record as shown: string keys, missing values empty."""
    return {str(key): shown_value(value) for key, value in record.items()}
