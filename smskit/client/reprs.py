"""The notebook HTML of client results: balance, credits, HLR results, drafts, send results.

Each model's ``to_html()`` calls one function here, which reads the result by attribute and
renders a template of ``smskit/templates`` through :mod:`smskit._html`. Models import this
module, never the other way round, so the parameters are typed by what is read, not by the
model classes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import fields
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from smskit._html import LINE_STATUS_COLORS, MISSING_COLOR, money, number, render
from smskit.rules import spec as _spec
from smskit.rules.countries import country_info
from smskit.rules.missing import MISSING, is_missing

__all__ = [
    "ROWS_SHOWN",
    "balance_html",
    "credits_html",
    "draft_html",
    "hlr_results_html",
    "record_html",
    "send_result_html",
    "shown_attribute",
    "table_html",
    "tally",
    "tally_text",
]

ROWS_SHOWN: Final = 20  # rows a collection's HTML shows; .to_frame() has them all
_HLR_COLUMNS: Final = (
    "phone_number",
    "status",
    "line_status",
    "phone_number_type",
    "network_name",
    "country_code",
    "is_ported",
)


def tally(values: Iterable[Any], order: Sequence[str]) -> list[tuple[str, int]]:
    """(value, count) of the values seen: spec order first, then others by name, then the
    missing ones under MISSING, as a breakdown orders its rows: never dropped, so the counts
    add up to the values."""
    counts = Counter(MISSING if is_missing(value) else str(value) for value in values)
    others = sorted(value for value in counts if value not in order and value != MISSING)
    return [(value, counts[value]) for value in [*order, *others, MISSING] if counts[value]]


def tally_text(values: Iterable[Any], order: Sequence[str]) -> str:
    """:func:`tally` in words, as a repr or a summary line says it: "2 added, 1 (missing)"."""
    return ", ".join(f"{count} {value}" for value, count in tally(values, order))


def _shown(value: Any) -> str:
    return "" if value is None else number(value)


def shown_attribute(obj: Any, name: str) -> Any:
    """``obj.name`` as an HTML cell shows it ("" for None)."""
    value = getattr(obj, name)
    return "" if value is None else value


def record_html(title: str, rows: Sequence[tuple[str, Any]]) -> str:
    """One record as name/value rows under ``title``."""
    return render("record.html", title=title, rows=rows, note=None)


def table_html(title: str, summary: str, columns: Sequence[str], items: Sequence[Any]) -> str:
    """The first rows of a collection (``columns`` read by attribute) under a summary line."""
    rows = [[shown_attribute(item, column) for column in columns] for item in items[:ROWS_SHOWN]]
    return render(
        "table.html",
        title=title,
        summary=summary,
        columns=columns,
        rows=rows,
        more=max(len(items) - ROWS_SHOWN, 0),
    )


def balance_html(balance: Any, *, soon_days: int, now: datetime | None = None) -> str:
    """A ``Balance``: the amount, its wallet packs, those expiring within ``soon_days`` marked
    and summed. Amounts in a product's credits are whole numbers, in a currency money."""
    moment = now or datetime.now(UTC)

    def shown(value: float | None) -> str:
        if balance.product and value is not None and float(value).is_integer():
            return number(int(value))
        return money(value)

    packs = []
    soon_total = 0.0
    for pack in balance.wallet_packs:
        days = None
        if pack.expiration_date is not None:
            days = (pack.expiration_date - moment) // timedelta(days=1)
        soon = days is not None and 0 <= days < soon_days
        soon_total += (pack.credit or 0.0) if soon else 0.0
        expires = ""
        if pack.expiration_date is not None:
            expires = pack.expiration_date.strftime("%Y-%m-%d %H:%M:%S")
        packs.append(
            {"id": pack.id or "", "credit": shown(pack.credit), "expires": expires, "days": days,
             "soon": soon}
        )  # fmt: skip
    unit = balance.unit or ""
    return render(
        "balance.html",
        amount=shown(balance.amount),
        unit=unit,
        packs=packs,
        soon=f"{shown(soon_total)} {unit}" if soon_total else None,
        window=soon_days,
    )


def credits_html(credits: Any) -> str:
    """A ``Credits`` mapping: one row per country (with its name), one column per product."""
    entries = list(credits.values())
    rows = [
        (
            entry.country_code,
            country_info(entry.country_code)[0] or "",
            [number(getattr(entry, product)) for product in _spec.CREDIT_PRODUCTS],
        )
        for entry in entries[:ROWS_SHOWN]
    ]
    return render(
        "credits.html",
        countries=len(entries),
        products=_spec.CREDIT_PRODUCTS,
        rows=rows,
        more=max(len(entries) - ROWS_SHOWN, 0),
    )


def hlr_results_html(results: Iterable[Any]) -> str:
    """HLR results: counts by status, line status (in their colours) and type, then rows."""
    items = list(results)
    line_status = [
        (value, count, LINE_STATUS_COLORS.get(value, MISSING_COLOR))
        for value, count in tally((r.line_status for r in items), _spec.LINE_STATUS)
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
        status=tally((r.status for r in items), _spec.HLR_STATUS),
        line_status=line_status,
        types=tally((r.phone_number_type for r in items), _spec.PHONE_NUMBER_TYPE),
        ported=sum(1 for r in items if r.is_ported),
        columns=_HLR_COLUMNS,
        rows=rows,
        more=max(len(items) - ROWS_SHOWN, 0),
    )


def draft_html(draft: Any, title: str) -> str:
    """A draft (dataclass): contacts, SMS, cost and cost per contact, then every field."""
    contacts = draft.number_of_contacts
    per_contact = draft.total_cost / contacts if draft.total_cost is not None and contacts else None
    shown = [
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
    present = {f.name for f in fields(draft)} | {"cost_per_contact"}
    return render(
        "draft.html",
        title=title,
        contacts=number(contacts),
        cost=money(draft.total_cost),
        per_contact=money(per_contact),
        fields=[(name, value) for name, value in shown if name in present],
    )


def send_result_html(result: Any) -> str:
    """A ``SendResult``: contacts, SMS, cost, residual credit, or why it is a duplicate."""
    shown = [
        ("sms_ticket", result.sms_ticket or ""),
        ("number_of_contacts", number(result.number_of_contacts)),
        ("number_of_sms_needed", number(result.number_of_sms_needed)),
        ("total_cost", money(result.total_cost)),
        ("residual_credit", money(result.residual_credit)),
        ("request_id", result.request_id or ""),
        ("duplicate", "yes" if result.duplicate else "no"),
    ]
    if result.dropped:
        # Spec convention 3: recipients the gateway could not use were ignored, not refused.
        shown.insert(2, ("dropped by the gateway", f"{result.dropped} of {result.submitted}"))
    return render(
        "send_result.html",
        ticket=result.sms_ticket or "",
        duplicate=result.duplicate,
        contacts=number(result.number_of_contacts),
        sms=number(result.number_of_sms_needed),
        cost=money(result.total_cost),
        fields=shown,
    )
