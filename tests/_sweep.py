"""Random values of every type for every public entry point (shared by the sweep tests).

``ANY`` draws scalars of every kind (including NaN, infinities, huge integers, bytes,
decimals, dates, arbitrary objects), containers of them, deeply nested lists, pandas
objects, and plausible values (valid numbers, texts, senders) so that calls get past the
first check and reach the deeper code. It also draws each class of input issue #26 found
raising raw exceptions or read silently wrong: text with a lone surrogate (alone, inside
numbers, texts, senders and field values), every missing-value kind (``MISSING``),
DataFrames with repeated or non-string column names, Dask objects, Arrow and polars
objects (read as recipients: tables and arrays of random cells, of every Arrow type the
cells give), another library's Arrow data (refused), and files of
every kind given where a CSV or a journal is read (``FILES``: the HLR cache, another
SQLite file, a journal of another format version, binary and undecodable files, CSVs with
an unclosed quote or a NUL byte). ``entry_points(client)`` lists every public callable with
its parameters; ``call`` runs one with a watchdog and says what came out.
"""

from __future__ import annotations

import atexit
import contextlib
import inspect
import io
import itertools
import os
import shutil
import signal
import sqlite3
import tempfile
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
from hypothesis import strategies as st

import smskit
from smskit import frames, phones, text
from smskit._account import gateway_of
from smskit.campaigns import CampaignResult, create_contacts, delete_contacts
from smskit.campaigns.bulk.hlr_cache import HLRCache
from smskit.campaigns.planning.plan import SEND_OPTIONS
from smskit.campaigns.sending.journal import Journal
from smskit.cli.main import main as cli_main

HANG_SECONDS = 20  # one call taking longer than this is a hang

PLAUSIBLE: list[Any] = [
    "+33612345678", "0612345678", "+33612345ABC", "-33612345678", "0033612345678", "FR",
    "GB", "xx", "Bonjour {first_name} STOP au 36173", "Code 1234", "{param1}{param9}", "Shop",
    "sms_premium", "sms_low_cost", "alert", "wholesale", "2030-01-01T10:00:00+01:00",
    "list", "a@b.fr", "", " ", "\x00", "é" * 60, 200, 1, 0, -1, 500, 2**63, True,
    ["+33612345678", "+33698765432"], [{"phone_number": "+33612345678", "first_name": "Al"}],
    {"phone_number": "+33612345678", "first_name": ["a", "b"]}, [None], [[]], [{}],
    datetime(2030, 1, 1, 10, tzinfo=UTC), datetime(2030, 1, 1, 10), date(2030, 1, 1),
    "\ud800", "+3361234\ud800", "Code \udce9 STOP au 36173", "S\ud800op",
    [{"phone_number": "+33612345678", "first_name": "Zo\udce9"}], ["+33612345678", "\udfff"],
    "customers.csv", "base.parquet", "data/Base.CSV",
]  # fmt: skip

# Every kind of missing value a notebook meets (issue #26: each in every option).
MISSING_VALUES: list[Any] = [
    None, float("nan"), np.float64("nan"), pd.NA, pd.NaT, np.datetime64("NaT"),
    np.timedelta64("NaT"), Decimal("NaN"),
]  # fmt: skip
MISSING = st.sampled_from(MISSING_VALUES)

# Text UTF-8 cannot encode: a lone surrogate, alone or inside other text.
UNENCODABLE = st.builds(
    lambda head, lone, tail: head + lone + tail,
    st.text(max_size=6),
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),
    st.text(max_size=6),
)


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


_SWEEP_DIR = Path(tempfile.mkdtemp(prefix="smskit-sweep-"))
atexit.register(shutil.rmtree, _SWEEP_DIR, True)
_FILE_NUMBERS = itertools.count()
FILE_KINDS = (
    "hlr-cache", "hlr-cache-of-journal-format", "other-sqlite", "journal-format-1",
    "empty-journal", "binary", "empty", "csv", "csv-unclosed-quote", "csv-latin-1", "csv-nul",
    "directory",
)  # fmt: skip


def sample_file(kind: str) -> Path:
    """A new file of ``kind`` (a fresh copy each draw: a call may change the file it gets)."""
    path = _SWEEP_DIR / f"{next(_FILE_NUMBERS)}-{kind}"
    if kind == "hlr-cache":
        cache = HLRCache(path)
        cache.store(gateway_of("http://127.0.0.1:1", "sweep"), {"+33612345678": {}})
        cache.close()
    elif kind in ("hlr-cache-of-journal-format", "empty-journal", "journal-format-1"):
        Journal(path, mode="any").close()
        if kind == "hlr-cache-of-journal-format":  # an HLR cache before it had its own file
            with contextlib.closing(sqlite3.connect(path)) as db, db:
                db.execute("CREATE TABLE hlr (phone_number TEXT PRIMARY KEY, result TEXT, "
                           "checked_at REAL)")  # fmt: skip
        if kind == "journal-format-1":
            meta = [("format", "1"), ("campaign_id", '"x"'), ("text", '"Hi"')]
            with contextlib.closing(sqlite3.connect(path)) as db, db:
                db.executemany("INSERT INTO meta VALUES (?, ?)", meta)
    elif kind == "other-sqlite":
        with contextlib.closing(sqlite3.connect(path)) as db, db:
            db.execute("CREATE TABLE customers (phone TEXT)")
    elif kind == "directory":
        path.mkdir()
    else:
        path.write_bytes({
            "binary": bytes(range(256)) * 4,
            "empty": b"",
            "csv": b"phone_number,first_name\n+33612345678,Anne\n",
            "csv-unclosed-quote": b'phone_number,first_name\n+33612345678,"Anne\n+336,B\n',
            "csv-latin-1": "phone_number,first_name\n+33612345678,Zo\u00eb\n".encode("latin-1"),
            "csv-nul": b"phone_number\n+336123\x0045678\n",
        }[kind])  # fmt: skip
    return path


FILES = st.sampled_from(FILE_KINDS).map(sample_file)


def _dask_frame() -> Any:
    return dd.from_pandas(pd.DataFrame({"phone_number": ["+33612345678"]}), npartitions=1)


class OtherArrowData:
    """Another library's Arrow data (it exports a stream): refused where recipients are read."""

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        return pa.table({"phone_number": ["+33612345678"]}).__arrow_c_stream__(requested_schema)


# Objects of other libraries where pandas or a list is read: pyarrow and polars objects are
# read as recipients (ARROW_DATA draws them with random cells too); Dask and other Arrow
# exporters are refused.
FOREIGN = st.sampled_from([
    lambda: pa.table({"phone_number": ["+33612345678"]}),
    lambda: pa.array(["+33612345678"]),
    lambda: pa.chunked_array([["+33612345678"]]),
    lambda: pa.record_batch({"phone_number": ["+33612345678"]}),
    lambda: pl.DataFrame({"phone_number": ["+33612345678"], "first_name": ["Al"]}),
    lambda: pl.Series(["+33612345678"]),
    lambda: pl.DataFrame({"phone_number": ["+33612345678"]}).lazy(),
    OtherArrowData,
    _dask_frame,
    lambda: _dask_frame()["phone_number"],
]).map(lambda make: make())  # fmt: skip


def _arrow_table(columns: dict[str, list[Any]]) -> Any:
    try:
        return pa.table(columns)
    except Exception:  # Arrow refuses some mixes: the columns themselves are still an input
        return columns


# polars' constructor panics on some Python values (a Rust panic is not an Exception), and
# prints a backtrace for each: the Decimal values that cause it are not given to polars.
_POLARS_REFUSALS = (Exception, pl.exceptions.PanicException)


def _polars_frame(columns: dict[str, list[Any]]) -> Any:
    if any(isinstance(v, Decimal) for values in columns.values() for v in values):
        return columns
    try:
        return pl.DataFrame(columns, strict=False)
    except _POLARS_REFUSALS:
        return columns


def _arrow_array(values: list[Any]) -> Any:
    try:
        return pa.array(values)
    except Exception:
        return values


def _polars_series(values: list[Any]) -> Any:
    if any(isinstance(v, Decimal) for v in values):
        return values
    try:
        return pl.Series(values, strict=False)
    except _POLARS_REFUSALS:
        return values


def arrow_data(cells: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """pyarrow and polars tables and arrays of ``cells`` (two rows a column), whatever type
    Arrow or polars infers from them (text, integers, floats, dates, decimals, bytes, lists,
    structs, nulls); values neither library takes stay the lists they were."""
    columns = st.dictionaries(
        st.sampled_from(["phone_number", "first_name", "param1", "country", "other"]),
        st.lists(cells, min_size=2, max_size=2),
        min_size=1,
        max_size=3,
    )
    values = st.lists(cells, max_size=3)
    return st.one_of(
        columns.map(_arrow_table),
        columns.map(_polars_frame),
        values.map(_arrow_array),
        values.map(_polars_series),
    )


def class_values() -> dict[str, Any]:
    """One value of each class issue #26 found raising raw exceptions or read silently
    wrong, by name (files made afresh on each call: a call may change the file it gets)."""
    numbers = ["+33612345678", "+33698765432"]
    return {
        **{f"missing {value!r}": value for value in MISSING_VALUES},
        "lone surrogate": "\ud800",
        "number with a lone surrogate": "+3361234\ud800",
        "field with a lone surrogate": [{"phone_number": numbers[0], "first_name": "Zo\udce9"}],
        "repeated column": pd.DataFrame([numbers], columns=["phone_number"] * 2),
        "non-string columns": pd.DataFrame([[numbers[0], 1, 2]], columns=["phone_number", 0, None]),
        "dask frame": _dask_frame(),
        "dask series": _dask_frame()["phone_number"],
        "arrow table": pa.table({"phone_number": numbers}),
        "arrow array": pa.array(numbers),
        "arrow chunked array": pa.chunked_array([numbers]),
        "arrow table of bytes": pa.table({"phone_number": [n.encode() for n in numbers]}),
        "arrow dictionary column": pa.table(
            {"phone_number": pa.array(numbers).dictionary_encode()}
        ),
        "arrow string_view column": pa.table({"phone_number": pa.array(numbers, pa.string_view())}),
        "arrow list column": pa.table({"phone_number": [numbers, numbers]}),
        "arrow table repeating a column": pa.table([numbers, numbers], ["phone_number"] * 2),
        "polars frame": pl.DataFrame({"phone_number": numbers, "country": ["FR", None]}),
        "polars categorical": pl.DataFrame(
            {"phone_number": pl.Series(numbers, dtype=pl.Categorical)}
        ),
        "polars series": pl.Series(numbers),
        "polars lazy frame": pl.DataFrame({"phone_number": numbers}).lazy(),
        "other library's arrow data": OtherArrowData(),
        # Absolute, naming no file: given as a journal, it must not land in the working dir.
        "file name as a string": str(_SWEEP_DIR / f"{next(_FILE_NUMBERS)}-customers.csv"),
        **{f"file: {kind}": sample_file(kind) for kind in FILE_KINDS},
    }


COLUMN_NAMES = st.sampled_from(
    ["phone_number", "first_name", "country", "param1", 0, 1.5, None, ("a", "b"), b"phone_number"]
)


def _frame_named(names: list[Any], cells: list[Any]) -> Any:
    try:
        return pd.DataFrame([cells[: len(names)]] * 2, columns=names)
    except Exception:  # pandas refuses some mixes: the cells themselves are still an input
        return cells


def named_frames(cells: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """DataFrames whose column names repeat, or are not strings, holding ``cells``."""
    return st.builds(_frame_named, st.lists(COLUMN_NAMES, min_size=1, max_size=4),
                     st.lists(cells, min_size=4, max_size=4))  # fmt: skip


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
    MISSING,
    UNENCODABLE,
    FILES,
    FILES.map(str),
    FOREIGN,
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
        named_frames(inner),
        arrow_data(inner),
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
    """A public callable and the parameters the sweep fills (``values``: a strategy of its
    own for a parameter, e.g. journal paths, so no random name becomes a file in the
    working directory)."""

    name: str
    fn: Callable[..., Any]
    required: tuple[str, ...]
    optional: tuple[str, ...]
    values: Mapping[str, st.SearchStrategy[Any]] = field(default_factory=dict)


def _entry(
    name: str,
    fn: Callable[..., Any],
    skip: tuple[str, ...] = (),
    extra: tuple[str, ...] = (),
) -> Entry:
    """``fn``'s parameters (less ``skip``; ``extra`` are optional keywords its ``**``
    takes, such as a campaign's send options)."""
    params = [
        p
        for p in inspect.signature(fn).parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name not in skip
    ]
    required = tuple(p.name for p in params if p.default is p.empty)
    optional = tuple(p.name for p in params if p.default is not p.empty) + extra
    return Entry(name, fn, required, optional)


# Where a journal file is named: files of every kind, missing values, other objects, never
# a random string (it would create that file in the working directory).
JOURNALS = FILES | FILES.map(str) | MISSING | st.integers() | st.builds(object) | st.just([])


def _with(entry: Entry, **changes: Any) -> Entry:
    fn = changes.get("fn", entry.fn)
    optional = changes.get("optional", entry.optional)
    return Entry(entry.name, fn, entry.required, optional, changes.get("values", entry.values))


def _campaign_entries(client: smskit.Client) -> list[Entry]:
    """Campaign construction with preflight and estimate, send, resume, CampaignResult.load,
    the Composer and the CLI's send: every option, the send options included."""
    options = (*SEND_OPTIONS, "simulation_mode", "request_id")

    def campaign(recipients: Any, **kwargs: Any) -> Any:
        built = smskit.Campaign(client, recipients, **kwargs)
        built.preflight()
        return built.estimate(offline=True)

    def send(recipients: Any, text: Any, sender: Any, **kwargs: Any) -> Any:
        sending = {k: kwargs.pop(k) for k in ("concurrency", "chunk_size", "journal", "wait")
                   if k in kwargs}  # fmt: skip
        sending.setdefault("journal", sample_file("empty"))
        built = smskit.Campaign(client, recipients, text=text, sender=sender, **kwargs)
        return built.send(progress=False, **sending)

    def resume(journal_path: Any, **kwargs: Any) -> Any:
        return smskit.Campaign.resume(journal_path, client, progress=False, **kwargs)

    def composer(**kwargs: Any) -> Any:
        return smskit.Composer(client, **kwargs)

    base = _entry("Campaign+preflight+estimate", smskit.Campaign, skip=("client",), extra=options)
    sent = _with(base, fn=send, optional=(*base.optional, "concurrency", "chunk_size", "journal",
                                          "wait"), values={"journal": JOURNALS})  # fmt: skip
    return [
        _with(base, fn=campaign),
        Entry("Campaign+send", sent.fn, sent.required, sent.optional, sent.values),
        _with(_entry("Campaign.resume", smskit.Campaign.resume, skip=("client", "progress")),
              fn=resume, values={"journal_path": JOURNALS | ANY}),
        _with(_entry("CampaignResult.load", CampaignResult.load),
              values={"journal_path": JOURNALS | ANY}),
        Entry("Composer", composer, (), _entry("Composer", smskit.Composer.__init__,
              skip=("self", "client"), extra=options).optional, {"journal": JOURNALS}),
        Entry("cli send", cli_send, ("text", "sender", "recipients"), CLI_SEND_OPTIONS,
              {"recipients": FILES | ANY}),
    ]  # fmt: skip


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

    found += _campaign_entries(client)
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
    values = {name: entry.values.get(name, ANY) for name in (*entry.required, *entry.optional)}
    required = st.fixed_dictionaries({name: values[name] for name in entry.required})
    optional = st.fixed_dictionaries({}, optional={name: values[name] for name in entry.optional})
    return st.builds(lambda a, b: {**a, **b}, required, optional)


# -- the CLI's send, as a shell would run it -------------------------------------------------

CLI_SEND_OPTIONS = ("type", "purpose", "send_at", "region", "name", "dry_run")


def _word(value: Any) -> str:
    """What a shell would pass: the value's text."""
    if isinstance(value, os.PathLike):
        return os.fspath(value)  # type: ignore[return-value]
    try:
        return str(value)
    except (Exception, RecursionError):  # a value nested too deep to print: its type
        return type(value).__name__


def cli_send(text: Any, sender: Any, recipients: Any, **options: Any) -> None:
    """``smskit send`` in-process on the sweep's sandbox (``SMSKIT_*`` set by the test), with
    SMSKIT_DEBUG=1 so an unexpected error is raised, not printed as "a bug"; --yes, and the
    journal in a fresh directory. ``recipients``: a path goes as --csv, a list as --to each,
    anything else as one --to."""
    argv = ["send", "--text", _word(text), "--sender", _word(sender), "--yes"]
    if isinstance(recipients, os.PathLike):
        argv += ["--csv", _word(recipients)]
    else:
        for number in recipients if isinstance(recipients, list | tuple) else [recipients]:
            argv += ["--to", _word(number)]
    if options.pop("dry_run", None) is True:
        argv.append("--dry-run")
    for name, value in options.items():
        argv += [f"--{name.replace('_', '-')}", _word(value)]
    argv += ["--journal", str(sample_file("empty"))]
    quiet = io.StringIO()
    with (
        _environ(SMSKIT_DEBUG="1"),
        contextlib.redirect_stdout(quiet),
        contextlib.redirect_stderr(quiet),
    ):
        cli_main(argv)


@contextlib.contextmanager
def _environ(**values: str) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, old in saved.items():
            if old is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = old
