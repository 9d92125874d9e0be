"""Random values of every type for every public entry point (shared by the sweep tests).

``ANY`` draws scalars of every kind (including NaN, infinities, huge integers, bytes,
decimals, dates, arbitrary objects), containers of them, deeply nested lists, pandas
objects, and plausible values (valid numbers, texts, senders) so that calls get past the
first check and reach the deeper code. ``entry_points(client)`` lists every public callable
with its parameters; ``call`` runs one with a watchdog and says what came out.
"""

from __future__ import annotations

import contextlib
import inspect
import signal
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

import pandas as pd
from hypothesis import strategies as st

import smskit
from smskit import frames, phones, text
from smskit.campaigns import create_contacts, delete_contacts

HANG_SECONDS = 20  # one call taking longer than this is a hang

PLAUSIBLE: list[Any] = [
    "+33612345678", "0612345678", "+33612345ABC", "-33612345678", "0033612345678", "FR",
    "GB", "xx", "Bonjour {first_name} STOP au 36173", "Code 1234", "{param1}{param9}", "Shop",
    "sms_premium", "sms_low_cost", "alert", "wholesale", "2030-01-01T10:00:00+01:00",
    "list", "a@b.fr", "", " ", "\x00", "é" * 60, 200, 1, 0, -1, 500, 2**63, True,
    ["+33612345678", "+33698765432"], [{"phone_number": "+33612345678", "first_name": "Al"}],
    {"phone_number": "+33612345678", "first_name": ["a", "b"]}, [None], [[]], [{}],
    datetime(2030, 1, 1, 10, tzinfo=UTC), datetime(2030, 1, 1, 10), date(2030, 1, 1),
]  # fmt: skip


class Deep(list[Any]):
    """A list nested ``depth`` levels deep; its repr stays short (printers recurse too)."""

    def __init__(self, depth: int) -> None:
        value: list[Any] = []
        for _ in range(depth - 1):
            value = [value]
        super().__init__([value])
        self.depth = depth

    def __repr__(self) -> str:
        return f"Deep({self.depth})"


def _nested(depth: int) -> list[Any]:
    return Deep(depth)


def _frame(rows: list[dict[str, Any]]) -> Any:
    try:
        return pd.DataFrame(rows)
    except Exception:  # pandas refuses some mixes: the rows themselves are still an input
        return rows


def _series(values: list[Any]) -> Any:
    try:
        return pd.Series(values, dtype=object)
    except Exception:
        return values


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=2**63 - 5, max_value=2**70) | st.integers(max_value=-(2**63) + 5),
    st.floats(),
    st.text(max_size=30),
    st.binary(max_size=20),
    st.decimals(allow_nan=False) | st.just(Decimal("Infinity")),
    st.dates(),
    st.datetimes(timezones=st.none() | st.just(UTC)),
    st.timedeltas(),
    st.complex_numbers(),
    st.builds(object),
    st.sampled_from(PLAUSIBLE),
    st.just(float("nan")),
    st.just(pd.NA),
    st.just(pd.NaT),
    st.just(Decimal("NaN")),
    st.just(timedelta.max),
)

ANY: st.SearchStrategy[Any] = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(st.text(max_size=12) | st.sampled_from(["phone_number", "first_name",
                        "param1", "country", "text", "code"]), inner, max_size=4),
        st.frozensets(SCALARS.filter(lambda v: _hashable(v)), max_size=3),
        st.lists(inner, max_size=4).map(_series),
        st.dictionaries(st.sampled_from(["phone_number", "first_name", "param1", "country"]),
                        inner, min_size=1, max_size=3).map(lambda d: _frame([d, d])),
    ),
    max_leaves=6,
) | st.integers(min_value=500, max_value=3000).map(_nested)  # fmt: skip


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


@dataclass(frozen=True)
class Entry:
    """A public callable and the parameters the sweep fills."""

    name: str
    fn: Callable[..., Any]
    required: tuple[str, ...]
    optional: tuple[str, ...]


def _entry(name: str, fn: Callable[..., Any], skip: tuple[str, ...] = ()) -> Entry:
    params = [
        p
        for p in inspect.signature(fn).parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name not in skip
    ]
    required = tuple(p.name for p in params if p.default is p.empty)
    optional = tuple(p.name for p in params if p.default is not p.empty)
    return Entry(name, fn, required, optional)


def pure_entry_points() -> list[Entry]:
    """Every public function of smskit.text, smskit.phones and smskit.frames."""
    found = []
    for module in (text, phones, frames):
        for name in module.__all__:
            fn = getattr(module, name)
            if inspect.isfunction(fn):
                found.append(_entry(f"{module.__name__}.{name}", fn))
    return found


def client_entry_points(client: smskit.Client) -> list[Entry]:
    """Every endpoint method of a client, and the campaign, HLR and contact helpers on it."""
    found = []
    for resource in ("sms_campaign", "voice_campaign", "contact", "contact_list", "wallet",
                     "subaccount"):  # fmt: skip
        group = getattr(client, resource)
        for name in dir(group):
            method = getattr(group, name)
            if not name.startswith("_") and callable(method):
                found.append(_entry(f"client.{resource}.{name}", method))

    def campaign(recipients: Any, **kwargs: Any) -> Any:
        built = smskit.Campaign(client, recipients, **kwargs)
        built.preflight()
        return built.estimate(offline=True)

    campaign_entry = _entry("Campaign+preflight+estimate", smskit.Campaign, skip=("client",))
    found.append(
        Entry(campaign_entry.name, campaign, campaign_entry.required, campaign_entry.optional)
    )
    quiet = {"progress": False}
    for name, fn in (("bulk_hlr", smskit.bulk_hlr), ("create_contacts", create_contacts),
                     ("delete_contacts", delete_contacts)):  # fmt: skip
        entry = _entry(name, fn, skip=("client", "progress", "journal"))
        extra = {"journal": False} if name == "hlr" else {}

        def bound(*, _fn: Any = fn, _extra: Any = extra, **kwargs: Any) -> Any:
            return _fn(client, **quiet, **_extra, **kwargs)

        found.append(Entry(name, bound, entry.required, entry.optional))
    return found


class Hang(BaseException):
    """Raised by the watchdog when one call takes longer than HANG_SECONDS."""


@contextlib.contextmanager
def watchdog(seconds: int = HANG_SECONDS) -> Iterator[None]:
    """Interrupt the block if it runs longer than ``seconds`` (main thread only)."""

    def expire(signum: int, frame: Any) -> None:
        raise Hang(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def call(entry: Entry, kwargs: dict[str, Any]) -> BaseException | None:
    """Run one call; the raw exception (not an SmskitError) it raised, or None."""
    try:
        with watchdog(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            entry.fn(**kwargs)
    except smskit.SmskitError:
        return None
    except (Exception, Hang, RecursionError) as exc:
        return exc
    return None


def arguments(entry: Entry) -> st.SearchStrategy[dict[str, Any]]:
    """Random values for every required parameter and a random subset of the optional ones."""
    required = st.fixed_dictionaries({name: ANY for name in entry.required})
    optional = st.fixed_dictionaries({}, optional={name: ANY for name in entry.optional})
    return st.builds(lambda a, b: {**a, **b}, required, optional)
