"""Every failure is an smskit error after the send too: every class of value in every
parameter of the analysis a campaign's result leads to (conversions, lift, attribution,
send times, outcomes and their breakdowns, click rates, the ledger, an experiment's counts),
of the inbox, the opt-out list, the frequency cap and the bot rules.

The sweep of tests/test_random_inputs.py covers the client, the campaign and the pure
functions; this one the entry points that came with clicks and "did it pay". A parameter
naming a column or a choice once met a missing value, a list or a frame with a raw
``TypeError`` (``boolean value of NA is ambiguous``, ``unhashable type``), a path parameter
``nan`` with ``expected str, bytes or os.PathLike``, a table of orders repeating a column
with a ``KeyError`` from pyarrow: each class now has one home in the rule book
(:mod:`smskit.rules.choices`, :mod:`smskit.rules.tables`, ``as_file_path``,
:func:`smskit.rules.arrowinput.check_names`).
"""

from __future__ import annotations

import datetime as dt
import inspect
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from _sweep import Entry, call, class_values

import smskit
import smskit.campaigns as campaigns
from smskit.campaigns.analysis.attribution import ATTRIBUTION_COLUMNS
from smskit.campaigns.analysis.conversions import conversions
from smskit.errors import ValidationError
from smskit.replies.inbox import Inbox
from smskit.sandbox import Sandbox

NUMBERS = [f"+3361{i:07d}" for i in range(6)]
TEXT = "Promo -20% ce week-end STOP au 36173"
# Beside the classes of tests/_sweep.py: scalars of every other kind a notebook holds.
SCALARS: dict[str, Any] = {
    "numpy int": np.int64(3), "negative": -1, "zero": 0, "huge": 10**30, "infinity": np.inf,
    "bool": True, "bytes": b"x", "dict": {"a": 1}, "list of ints": [1, 2], "tuple": (1,),
    "set": {1}, "object": object(), "naive datetime": dt.datetime(2026, 1, 1),
    "timedelta": dt.timedelta(days=1), "numpy float32": np.float32(0.5),
    "decimal": Decimal("1.5"), "text": "abc",
}  # fmt: skip
READING = ("window", "at", "value", "number", "default_region")
# One value of each kind among tests/_sweep.py's classes (its several Arrow column types,
# missing values and file formats are the recipients reader's concern, swept there); each
# call here costs a journal's or an inbox's read, so the kinds, not every variant.
KINDS = (
    "missing None", "missing nan", "missing <NA>", "missing NaT", "lone surrogate",
    "field with a lone surrogate", "repeated column", "non-string columns", "dask frame",
    "dask series", "arrow table", "arrow array", "arrow table repeating a column",
    "polars frame", "polars series", "polars lazy frame", "other library's arrow data",
    "file name as a string", "file: other-sqlite", "file: empty-journal", "file: binary",
    "file: empty", "file: csv", "file: directory",
)  # fmt: skip


def waited(inbox: Inbox, **kwargs: Any) -> int | None:
    """``inbox.wait(**kwargs)`` at once: its count, or None when it timed out (documented:
    the built-in ``TimeoutError``)."""
    try:
        return inbox.wait(timeout=0, **kwargs)
    except TimeoutError:
        return None


def parameters(fn: Callable[..., Any]) -> list[str]:
    """The named parameters of ``fn`` (not ``*args``/``**kwargs``)."""
    kinds = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    signature = inspect.signature(fn).parameters.values()
    return [p.name for p in signature if p.kind not in kinds and p.name not in ("self", "cls")]


@pytest.fixture(scope="module")
def sent(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A campaign sent with a holdout and an inbox, its journal, outcomes and orders."""
    home = tmp_path_factory.mktemp("analysis-sweep")
    with (
        Inbox(home / "inbox.sqlite") as inbox,
        Sandbox(seed=3) as sandbox,
        smskit.Client(sandbox=sandbox) as client,
    ):
        sandbox.set_callback_url(inbox.url)
        campaign = smskit.Campaign(
            client, NUMBERS, text=TEXT, sender="Shop", name="sweep", holdout=2, seed=1
        )
        journal = home / "journal.sqlite"
        result = campaign.send(journal=journal, progress=False)
        orders = pd.DataFrame(
            {
                "phone_number": NUMBERS[:3],
                "ordered_at": pd.Timestamp.now(tz="UTC") + pd.Timedelta("1h"),
                "amount": [10.0, 20.0, 5.5],
            }
        )
        yield {
            "home": home, "client": client, "inbox": inbox, "journal": journal,
            "result": result, "outcomes": result.outcomes(inbox), "orders": orders,
        }  # fmt: skip


def entry_points(
    s: dict[str, Any],
) -> dict[str, tuple[Callable[..., Any], dict[str, Any], list[str]]]:
    """Each entry point: the call, plausible arguments, and the parameters swept."""
    result, inbox, journal, orders = s["result"], s["inbox"], s["journal"], s["orders"]
    optouts = smskit.OptOuts(("http://127.0.0.1:9", "sweep"), path=s["home"] / "optouts.sqlite")
    arms = {"A": "Offre A STOP au 36173", "B": "Offre B STOP au 36173"}
    entries = {
        "result.conversions": (result.conversions, {"orders": orders}, READING),
        "result.lift": (result.lift, {"orders": orders}, READING),
        "result.outcomes": (result.outcomes, {"inbox": inbox}, ()),
        "result.wait_for_outcomes": (
            lambda **k: result.wait_for_outcomes(**{"timeout": 0.2, **k}),
            {"inbox": inbox},
            ["inbox", "timeout", "match"],
        ),
        "conversions": (
            conversions,
            {
                "recipients": result.groups(),
                "orders": orders,
                "sent_at": pd.Timestamp.now(tz="UTC"),
            },
            READING,
        ),
        "attribution": (campaigns.attribution, {"orders": orders, "journals": [journal]}, ()),
        "send_times": (campaigns.send_times, {"journals": [journal]}, ()),
        "click_rates": (campaigns.click_rates, {"outcomes": s["outcomes"]}, ()),
        "cost_breakdown": (campaigns.cost_breakdown, {"outcomes": s["outcomes"]}, ()),
        "delivery_breakdown": (campaigns.delivery_breakdown, {"outcomes": s["outcomes"]}, ()),
        "delivery_times": (campaigns.delivery_times, {"outcomes": s["outcomes"]}, ()),
        "compare_counts": (
            campaigns.compare_counts,
            {"counts": {"A": {"sent": 10, "replied": 2}, "B": {"sent": 10, "replied": 3}}},
            (),
        ),
        "fatigue": (campaigns.fatigue, {"journals": [journal]}, ()),
        "history": (campaigns.history, {"journals": [journal]}, ()),
        "sends": (campaigns.sends, {"journals": [journal]}, ()),
        "MarketingHours": (campaigns.MarketingHours, {"timezone": "Europe/Paris"}, ()),
        "inbox.clicks": (inbox.clicks, {}, ()),
        "inbox.stops": (inbox.stops, {}, ()),
        "inbox.delivery_status": (inbox.delivery_status, {}, ()),
        # timeout=0: the documented built-in TimeoutError of a wait not met is its answer
        # (a wait for ever is what timeout=inf asks: not swept)
        "inbox.wait": (lambda **k: waited(inbox, **k), {"n": 0}, ["n", "kind"]),
        "inbox.link_tokens": (inbox.link_tokens, {"campaign": "sweep", "rows": [0], "link": 0}, ()),
        "Inbox": (lambda **k: Inbox(**k).stop(), {}, parameters(Inbox.__init__)),
        "OptOuts": (
            smskit.OptOuts,
            {"account": ("http://127.0.0.1:9", "sweep"), "path": s["home"] / "other.sqlite"},
            (),
        ),
        "OptOuts.add": (optouts.add, {"numbers": ["+33612345678"]}, ()),
        "OptOuts.history": (optouts.history, {}, ()),
        "FrequencyCap": (smskit.FrequencyCap, {"count": 2, "period": dt.timedelta(days=7)}, ()),
        "BotRules": (lambda **k: smskit.BotRules(**k).agent("x"), {}, parameters(smskit.BotRules)),
        "AgentRule": (smskit.AgentRule, {"name": "a", "pattern": "b"}, ()),
        "Experiment": (
            smskit.Experiment,
            {
                "client": s["client"],
                "recipients": NUMBERS,
                "variants": arms,
                "sender": "Shop",
                "directory": s["home"],
            },
            (),
        ),
    }
    swept = {}
    for name, (fn, base, named) in entries.items():
        chosen = list(named) if isinstance(named, list) else [*parameters(fn), *named]
        swept[name] = (fn, base, chosen)
    return swept


ENTRY_NAMES = [
    "result.conversions", "result.lift", "result.outcomes", "result.wait_for_outcomes",
    "conversions", "attribution", "send_times", "click_rates", "cost_breakdown",
    "delivery_breakdown", "delivery_times", "compare_counts", "fatigue", "history", "sends",
    "MarketingHours", "inbox.clicks", "inbox.stops", "inbox.delivery_status", "inbox.wait",
    "inbox.link_tokens", "Inbox", "OptOuts", "OptOuts.add", "OptOuts.history", "FrequencyCap",
    "BotRules", "AgentRule", "Experiment",
]  # fmt: skip


def test_every_entry_point_is_swept(sent: dict[str, Any]) -> None:
    """The list the parametrised sweep runs is the list of entry points built here."""
    assert sorted(entry_points(sent)) == sorted(ENTRY_NAMES)


@pytest.mark.parametrize("name", ENTRY_NAMES)
def test_every_class_in_every_parameter_of_the_analysis(
    sent: dict[str, Any], name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each class of value (missing values of every kind, lone surrogates, repeated columns,
    Dask, Arrow and polars objects, files of every kind, scalars of every type) in each
    parameter, the others plausible: a result or an SmskitError, never a raw exception.
    (In a folder of its own: a text given as a path names a file there.)"""
    monkeypatch.chdir(tmp_path)
    fn, base, swept = entry_points(sent)[name]
    values = {**{k: v for k, v in class_values().items() if k in KINDS}, **SCALARS}
    failures = []
    for parameter in swept:
        for label, value in values.items():
            raw = call(Entry(name, fn, (), ()), {**base, parameter: value})
            if raw is not None:
                failures.append(f"{name}({parameter}={label}): {type(raw).__name__}: {raw}")
    assert not failures, "\n".join(failures)


def test_a_choice_or_column_given_a_missing_value_or_a_list_names_its_field(
    sent: dict[str, Any],
) -> None:
    """Regressions of the classes the sweep found, each read back: pandas' NA as a choice,
    a list as a column's name, a frame as the time zone-free ``by``, each refused naming
    the parameter and the rule."""
    result, orders = sent["result"], sent["orders"]
    with pytest.raises(ValidationError, match=r"^match: must be one of auto, message_id"):
        result.outcomes(sent["inbox"], match=pd.NA)
    with pytest.raises(ValidationError, match=r"^at: must be a column's name"):
        result.conversions(orders, at=["ordered_at"])
    with pytest.raises(ValidationError, match=r"^models\[1\]: must be one of"):
        campaigns.attribution(orders, models=["last_touch", pd.NA], journals=[sent["journal"]])
    with pytest.raises(ValidationError, match=r"^head: must be True or False"):
        smskit.BotRules(head="no")


def test_orders_repeating_a_column_or_lazy_are_refused_by_name(sent: dict[str, Any]) -> None:
    """A pyarrow table or pandas frame of orders repeating the amount column is refused
    naming it (which one holds the amounts?); a polars LazyFrame says to collect it."""
    result, orders = sent["result"], sent["orders"]
    table = pa.Table.from_pandas(orders, preserve_index=False)
    repeated = pa.Table.from_arrays(
        [*table.columns, table["amount"]], [*table.column_names, "amount"]
    )
    with pytest.raises(
        ValidationError, match=r"^orders\.amount: this column appears more than once"
    ):
        result.conversions(repeated)
    frame = pd.concat([orders, orders[["amount"]]], axis=1)
    with pytest.raises(
        ValidationError, match=r"^orders\.amount: this column appears more than once"
    ):
        result.conversions(frame)
    with pytest.raises(ValidationError, match=r"collect\(\) it first"):
        result.conversions(pl.from_pandas(orders).lazy())


def test_delivery_times_of_a_send_with_no_report_yet_is_a_table_of_unknown_durations(
    sent: dict[str, Any],
) -> None:
    """Before any report (every message pending), the times are a row of zero messages and
    unknown (NaT) durations, typed as durations: pandas once read them as dates and raised."""
    outcomes = sent["outcomes"].assign(status="pending")
    outcomes["time_to_delivery"] = pd.to_timedelta([pd.NaT] * len(outcomes))
    table = campaigns.delivery_times(outcomes)
    assert table.loc["total", "messages"] == 0
    assert str(table["median"].dtype) == "timedelta64[ns]" and table["median"].isna().all()


def test_a_path_parameter_given_nan_or_a_lone_surrogate_is_refused_by_name() -> None:
    """An inbox's or an opt-out list's path that names no file (NaN, a lone surrogate) is
    refused naming ``path``, before any file is opened."""
    for bad in (float("nan"), "\ud800.sqlite"):
        with pytest.raises(ValidationError, match=r"^path: must be a file path"):
            Inbox(bad)
        with pytest.raises(ValidationError, match=r"^path: must be a file path"):
            smskit.OptOuts(("http://127.0.0.1:9", "sweep"), path=bad)


def test_attribution_on_a_machine_without_journals_is_an_empty_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sent: dict[str, Any]
) -> None:
    """A fresh machine has no campaign journal: attribution credits nobody (an empty table
    of its columns) where it raised pandas' "merge on object and float64 columns"."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    table = campaigns.attribution(sent["orders"])
    assert table.empty and list(table.columns) == list(ATTRIBUTION_COLUMNS)
