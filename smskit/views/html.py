"""Render the notebook HTML of smskit objects from the jinja2 templates in ``smskit/templates``.

The environment is built once, on first use, with autoescaping on: every value shown comes
from the gateway or the user and must never be interpreted as markup. Numbers are formatted
here (thousands separators, money without rounding a price away), not in the templates.
This module imports neither pandas nor plotly: a notebook repr stays cheap.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any, Final

from smskit.rules import spec as _spec

if TYPE_CHECKING:
    import jinja2

    from smskit.client.models import Balance, Credits, Draft, HLRResults, SendResult

__all__ = ["LINE_STATUS_COLORS", "MISSING_COLOR", "country_info", "environment", "render"]

# One colour per spec line status, used by every figure and repr (plots re-exports it).
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
MISSING: Final = "(missing)"

ROWS_SHOWN: Final = 20  # rows a collection's HTML shows; .to_frame() has them all
_PRODUCTS: Final = ("premium_sms", "vocal_sms", "low_cost_sms", "hlr")
_HLR_COLUMNS: Final = (
    "phone_number",
    "status",
    "line_status",
    "phone_number_type",
    "network_name",
    "country_code",
    "is_ported",
)


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


@lru_cache(maxsize=512)
def country_info(country_code: str) -> tuple[str | None, str | None]:
    """(English common name, ISO 3166 alpha-3) of a 2-letter code (pycountry); None if unknown.

    The names are the ones the sandbox's HLR answers use (``common_name`` when there is one).
    """
    import pycountry

    found = pycountry.countries.get(alpha_2=country_code) if len(country_code) == 2 else None
    if found is None:
        return None, None
    return getattr(found, "common_name", found.name), found.alpha_3


# -- formatting ----------------------------------------------------------------------------


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


def _tally(values: Iterable[Any], order: Sequence[str]) -> list[tuple[str, int]]:
    """(value, count) of the values seen: spec order first, then others by name."""
    counts = Counter(MISSING if value is None else str(value) for value in values)
    ordered = [*order, *sorted(value for value in counts if value not in order)]
    return [(value, counts[value]) for value in ordered if counts[value]]


# -- one function per repr; models call these from to_html() -------------------------------


def balance_html(balance: Balance) -> str:
    """The balance, and how many price lines ``with_details=True`` brought back."""
    details = balance.raw.get("details")
    return render(
        "balance.html",
        amount=money(balance.amount),
        unit=balance.unit or "",
        details=len(details) if isinstance(details, list) else None,
    )


def credits_html(credits: Credits) -> str:
    """One row per country (with its name), one column per product."""
    entries = list(credits.values())
    rows = [
        (
            entry.country_code,
            country_info(entry.country_code)[0] or "",
            [number(getattr(entry, product)) for product in _PRODUCTS],
        )
        for entry in entries[:ROWS_SHOWN]
    ]
    return render(
        "credits.html",
        countries=len(entries),
        products=_PRODUCTS,
        rows=rows,
        more=max(len(entries) - ROWS_SHOWN, 0),
    )


def hlr_results_html(results: HLRResults) -> str:
    """Counts by status, line status (in their colours) and type, then the first rows."""
    items = list(results)
    line_status = [
        (value, count, LINE_STATUS_COLORS.get(value, MISSING_COLOR))
        for value, count in _tally((r.line_status for r in items), _spec.LINE_STATUS)
    ]
    rows = [
        (
            [_shown(getattr(r, column)) for column in _HLR_COLUMNS],
            LINE_STATUS_COLORS.get(r.line_status or "", MISSING_COLOR),
        )
        for r in items[:ROWS_SHOWN]
    ]
    return render(
        "hlr_results.html",
        numbers=len(items),
        status=_tally((r.status for r in items), _spec.HLR_STATUS),
        line_status=line_status,
        types=_tally((r.phone_number_type for r in items), _spec.PHONE_NUMBER_TYPE),
        ported=sum(1 for r in items if r.is_ported),
        columns=_HLR_COLUMNS,
        rows=rows,
        more=max(len(items) - ROWS_SHOWN, 0),
    )


def _shown(value: Any) -> str:
    return "" if value is None else number(value)


def draft_html(draft: Draft) -> str:
    """Contacts, SMS, cost and cost per contact of a draft, then every field."""
    contacts = draft.number_of_contacts
    per_contact = draft.total_cost / contacts if draft.total_cost is not None and contacts else None
    fields = [
        ("ticket_number", draft.ticket_number or ""),
        ("status", draft.status or ""),
        ("code", number(draft.code)),
        ("message", draft.message or ""),
        ("number_of_contacts", number(contacts)),
        ("number_of_sms_needed", number(getattr(draft, "number_of_sms_needed", None))),
        ("estimated_duration", number(getattr(draft, "estimated_duration", None))),
        ("total_cost", money(draft.total_cost)),
        ("cost_per_contact", money(per_contact)),
        ("residual_credit", money(draft.residual_credit)),
    ]
    return render(
        "draft.html",
        title=draft._title,
        contacts=number(contacts),
        cost=money(draft.total_cost),
        per_contact=money(per_contact),
        fields=[(name, value) for name, value in fields if name in _fields_of(draft)],
    )


def _fields_of(draft: Draft) -> set[str]:
    from dataclasses import fields

    return {f.name for f in fields(draft)} | {"cost_per_contact"}


def send_result_html(result: SendResult) -> str:
    """What a send did (contacts, SMS, cost, residual credit), or why it is a duplicate."""
    fields = [
        ("sms_ticket", result.sms_ticket or ""),
        ("number_of_contacts", number(result.number_of_contacts)),
        ("number_of_sms_needed", number(result.number_of_sms_needed)),
        ("total_cost", money(result.total_cost)),
        ("residual_credit", money(result.residual_credit)),
        ("request_id", result.request_id or ""),
        ("duplicate", "yes" if result.duplicate else "no"),
    ]
    return render(
        "send_result.html",
        ticket=result.sms_ticket or "",
        duplicate=result.duplicate,
        contacts=number(result.number_of_contacts),
        sms=number(result.number_of_sms_needed),
        cost=money(result.total_cost),
        fields=fields,
    )
