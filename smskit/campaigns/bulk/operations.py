"""Bulk HLR checks and bulk contact create/delete: normalise, chunk by 200, run on the chunk
runner (:func:`smskit.campaigns.sending.runner.run_chunks`).

``client.contact.hlr_request`` stays one request of at most 200 numbers; :func:`bulk_hlr` takes
any number of them, checks each distinct number once, and caches the answers in a journal
(an HLR check is billed, and has no request_id: a cached answer is never paid twice), keyed
by the gateway that gave them (base URL and login): another gateway, or the real account
after the sandbox, is asked afresh.
Contact create and delete are idempotent on the gateway, so they need no journal: running
them again is the way to finish an interrupted one.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from smskit._account import account_of
from smskit._paths import hlr_cache_path
from smskit.campaigns.bulk.hlr_cache import HLRCache
from smskit.campaigns.sending.blocking import async_client, blocking, interruption
from smskit.campaigns.sending.progress import ProgressOption
from smskit.campaigns.sending.runner import check_chunk_size, check_concurrency, run_chunks
from smskit.client import AsyncClient, Client
from smskit.client.checks import as_list
from smskit.errors import SmskitError, ValidationError
from smskit.rules import spec as _spec
from smskit.rules.fields import DYNAMIC_FIELDS, RULE_UNENCODABLE, unencodable_at
from smskit.rules.missing import is_missing
from smskit.rules.ranges import checked_seconds
from smskit.rules.recipients import (
    REGION_COLUMN,
    Recipients,
    arrow_recipients,
    check_collection,
    check_file_name,
    contact,
    is_float_number,
    number_checks,
    records_of,
    refuse_floats,
)
from smskit.rules.region import DEFAULT_REGION

if TYPE_CHECKING:
    import pandas as pd

    from smskit.client.models import HLRResults

__all__ = [
    "abulk_hlr",
    "acreate_contacts",
    "adelete_contacts",
    "bulk_hlr",
    "create_contacts",
    "delete_contacts",
]

DEFAULT_MAX_AGE_S: Final = 24 * 3600.0
CONTACTS_CHUNK_MAX: Final = 500  # "not shown" in the spec; the sandbox's documented limit


# -- HLR -------------------------------------------------------------------------------------


async def abulk_hlr(
    client: Client | AsyncClient,
    numbers: Any,
    *,
    chunk_size: int = 200,
    concurrency: int = 4,
    progress: ProgressOption = True,
    journal: str | Path | bool | None = None,
    max_age: float | None = DEFAULT_MAX_AGE_S,
    default_region: str | None = DEFAULT_REGION,
    simulation_mode: bool | None = None,
) -> HLRResults:
    """Check any number of lines: one result per distinct value given, as :class:`HLRResults`
    (the type ``client.contact.hlr_request`` returns: ``.to_frame()``, ``.breakdown()``...).

    Values are normalised (:func:`smskit.phones.normalize`), each distinct number is checked
    once, in requests of ``chunk_size`` (at most 200). Answers are cached in ``journal``
    (default: the per-user cache, ``~/.cache/smskit/hlr.sqlite`` on Linux, moved by
    ``XDG_CACHE_HOME``; ``False``: no cache) under the client's gateway (base URL and login,
    so one gateway's answers never serve another) and reused while younger than
    ``max_age`` seconds (None: forever). ``to_frame()`` adds the columns ``input`` (the value as
    given), ``cached`` and ``error`` (why a number has no answer). Unparseable values are not sent
    (nor billed): their row has ``phone_number_type`` ``bad_format``, as the gateway says.
    """
    chunk_size = check_chunk_size(chunk_size, _spec.HLR_MAX)
    concurrency = check_concurrency(concurrency)
    max_age = None if max_age is None else checked_seconds("max_age", max_age)
    inputs, checks = _normalised(numbers, "numbers", default_region)
    cache: HLRCache | None = None
    if journal is None or journal is True:
        cache = HLRCache(hlr_cache_path())
    elif journal is not False:
        cache = HLRCache(Path(journal))
    stop, share = interruption()
    sendable = _sendable(checks)
    key = account_of(client)
    try:
        answers = cache.cached(key, sendable, max_age) if cache is not None else {}
        cached = set(answers)
        todo = [n for n in sendable if n not in cached]
        errors: dict[str, str] = {}
        chunks = [todo[i : i + chunk_size] for i in range(0, len(todo), chunk_size)]
        async with async_client(client, share=share) as gateway:

            async def one(chunk: list[str]) -> dict[str, Any]:
                try:
                    results = await gateway.contact.hlr_request(
                        chunk, simulation_mode=simulation_mode
                    )
                except SmskitError as exc:
                    errors.update(dict.fromkeys(chunk, f"{type(exc).__name__}: {exc}"))
                else:
                    got = _by_number(chunk, results.raw)
                    answers.update(got)
                    missing = [n for n in chunk if n not in got]
                    errors.update(dict.fromkeys(missing, "no answer for this number"))
                    # A simulated answer may be fake (spec): never cache one.
                    if cache is not None and not simulation_mode:
                        cache.store(key, got)
                return {"failed": len(errors)}

            await run_chunks(chunks, one, concurrency=concurrency, stop=stop, progress=progress,
                             total=len(todo), unit="number", size=len)  # fmt: skip
        for number in todo:
            if number not in answers and number not in errors:
                errors[number] = "not checked: interrupted"
    finally:
        if cache is not None:
            cache.close()
    return _hlr_results(inputs, checks, answers, cached, errors)


bulk_hlr = blocking(abulk_hlr)


def _hlr_results(
    inputs: list[Any],
    checks: pd.DataFrame,
    answers: Mapping[str, Any],
    cached: set[str],
    errors: Mapping[str, str],
) -> HLRResults:
    import pandas as pd

    from smskit.client.models import HLRResult, HLRResults

    results = []
    from_cache = []
    problems: list[str | None] = []
    for raw, (e164, reason) in zip(
        inputs, checks[["e164", "reason"]].itertuples(index=False), strict=True
    ):
        if not isinstance(e164, str):
            results.append(HLRResult(phone_number=str(raw), phone_number_type="bad_format"))
            from_cache.append(False)
            problems.append(f"not sent: {reason}")
        elif e164 in answers:
            results.append(HLRResult.from_json(answers[e164]))
            from_cache.append(e164 in cached)
            problems.append(None)
        else:
            results.append(HLRResult(phone_number=e164))
            from_cache.append(False)
            problems.append(errors.get(e164, "not checked"))
    extra = pd.DataFrame(
        {
            "input": pd.array([str(v) for v in inputs], dtype="string"),
            "cached": pd.array(from_cache, dtype="bool"),
            "error": pd.array(problems, dtype="string"),
        }
    )
    return HLRResults(results, raw=[answers.get(e) for e in checks["e164"]], extra=extra)


def _sendable(checks: pd.DataFrame) -> list[str]:
    """What is asked of the gateway: each valid number of ``checks`` once, first seen first."""
    return list(dict.fromkeys(e for e in checks["e164"] if isinstance(e, str)))


def _by_number(chunk: list[str], raw: Any) -> dict[str, Any]:
    """Answers keyed by the number asked: each to the number it names (read as E.164). By
    position only when one answer per number came back and none names another number than
    the one asked at its place (an answer naming no readable number has only its place):
    the same count in another order, or with a stranger's answer, is never zipped."""
    from smskit.rules.phonecheck import to_e164

    items = [item for item in raw if isinstance(item, Mapping)] if isinstance(raw, list) else []
    named = [to_e164(item.get("phone_number"), None) for item in items]
    if len(items) == len(chunk) and all(
        number is None or number == asked for number, asked in zip(named, chunk, strict=True)
    ):
        return dict(zip(chunk, items, strict=True))
    asked = set(chunk)
    return {number: item for number, item in zip(named, items, strict=True) if number in asked}


def _normalised(values: Any, field: str, region: str | None) -> tuple[list[Any], pd.DataFrame]:
    """Distinct values as given (first occurrence order) and their phone checks. A table (a
    DataFrame of pandas, pyarrow or polars, or a CSV or Parquet file's ``Path``) is read as
    recipients are:
    a row's ``country`` is the region of its national number (one value on a BE row and on
    a FR row is two numbers), the other rows' is ``region``."""
    import pandas as pd

    from smskit.rules import phones

    if not isinstance(values, str):
        check_collection(values, field)
        values = arrow_recipients(values, field)
        if isinstance(values, pd.DataFrame | os.PathLike):
            return _normalised_rows(values, field, region)

    if isinstance(values, str):  # one number, never a file read as one wrong number
        check_file_name(values, field)  # a file is read given as a pathlib.Path
    if is_float_number(values):
        refuse_floats([values], field)
    items = as_list(values, field)
    for position, item in enumerate(items):
        try:
            hash(item)
        except TypeError as exc:  # a list, dict, Series...: never a phone number
            rule = "must be a phone number (str or int)"
            raise ValidationError(field, rule, position=position) from exc
        if isinstance(item, str) and unencodable_at(item) is not None:
            raise ValidationError(field, RULE_UNENCODABLE, value=item, position=position)
    refuse_floats(items, field)
    distinct = list(dict.fromkeys(items))
    checks = phones.normalize(pd.Series(distinct, dtype=object), region)
    return distinct, checks


def _normalised_rows(
    table: pd.DataFrame | os.PathLike[str], field: str, region: str | None
) -> tuple[list[Any], pd.DataFrame]:
    """Distinct (number, country) rows of a table, read by the recipients' reader, and
    their checks, each number in its row's region."""
    read = Recipients(table, field=field).columns([])
    first: dict[tuple[Any, Any], int] = {}  # each distinct pair, by the row it first is on
    for row, pair in enumerate(
        zip(read["phone_number"].tolist(), read[REGION_COLUMN].tolist(), strict=True)
    ):
        first.setdefault(pair, row)
    pairs = list(first)
    values = [value for value, _ in pairs]
    at = (f"{field}.{REGION_COLUMN}", list(first.values()))  # a bad country: its row
    checks = number_checks(values, [country for _, country in pairs], region, at)
    return values, checks.reset_index(drop=True)


# -- contacts --------------------------------------------------------------------------------


async def acreate_contacts(
    client: Client | AsyncClient,
    contacts: Any,
    *,
    list_name: str | None = None,
    tag_name: str | None = None,
    chunk_size: int = 200,
    concurrency: int = 4,
    progress: ProgressOption = True,
    default_region: str | None = DEFAULT_REGION,
    **options: Any,
) -> pd.DataFrame:
    """Add or update any number of contacts, ``chunk_size`` per request (200 by default).

    ``contacts``: a DataFrame, CSV path or list (numbers or dicts) with the Contact fields.
    Numbers are normalised; invalid ones are not sent. ``options`` go to each request
    (``auto_remove_blacklisted_numbers``, ``do_not_overwrite``). One row per contact given:
    ``input``, ``phone_number``, ``status`` (added / updated / skipped) and ``error``.
    """
    chunk_size = check_chunk_size(chunk_size, CONTACTS_CHUNK_MAX)
    concurrency = check_concurrency(concurrency)
    source = Recipients(contacts, field="contacts")
    table = source.table(DYNAMIC_FIELDS)
    inputs = table["phone_number"].tolist()
    checks = number_checks(inputs, table[REGION_COLUMN].tolist(), default_region)
    records = records_of(table[list(DYNAMIC_FIELDS)])
    rows: list[Any] = []
    refused: dict[int, str] = {}
    for position, (record, e164) in enumerate(zip(records, checks["e164"], strict=True)):
        row = None
        if isinstance(e164, str):
            try:  # one bad contact must not sink the 199 others of its request
                row = contact(record, position, "contacts", e164, strict=True)
            except ValidationError as exc:
                refused[position] = f"not sent: {exc}"
        rows.append(row)

    def call(twin: AsyncClient, chunk: list[dict[str, Any]]) -> Any:
        return twin.contact.create(chunk, list_name=list_name, tag_name=tag_name, **options)

    def read(answer: Any, size: int) -> list[Any]:
        statuses = [item.status for item in answer]
        return statuses if len(statuses) == size else [None] * size

    outcomes, errors = await _by_chunks(client, rows, call, read, chunk_size, concurrency, progress)
    for position, reason in refused.items():
        errors[position] = reason
    from smskit.client.dtypes import CONTACT_ITEM_STATUS_DTYPE, categorical

    return _per_input(
        inputs, checks, "status", categorical(outcomes, CONTACT_ITEM_STATUS_DTYPE), errors
    )


create_contacts = blocking(acreate_contacts)


async def adelete_contacts(
    client: Client | AsyncClient,
    phone_numbers: Any,
    *,
    list_name: str | None = None,
    chunk_size: int = 200,
    concurrency: int = 4,
    progress: ProgressOption = True,
    default_region: str | None = DEFAULT_REGION,
) -> pd.DataFrame:
    """Delete any number of contacts (from ``list_name`` only, or from the account), 200 per
    request. One row per distinct value given: ``input``, ``phone_number``, ``deleted``,
    ``error``. A number the account does not hold is "deleted" too (the gateway ignores it)."""
    import pandas as pd

    chunk_size = check_chunk_size(chunk_size, _spec.DELETE_MAX)
    concurrency = check_concurrency(concurrency)
    inputs, checks = _normalised(phone_numbers, "phone_numbers", default_region)
    numbers = _sendable(checks)

    def call(twin: AsyncClient, chunk: list[str]) -> Any:
        return twin.contact.delete(chunk, list_name=list_name)

    def read(answer: Any, size: int) -> list[Any]:
        return [True] * size

    outcomes, errors = await _by_chunks(
        client, numbers, call, read, chunk_size, concurrency, progress
    )
    done = dict(zip(numbers, zip(outcomes, errors, strict=True), strict=True))
    per_input = [done.get(e164, (False, None)) for e164 in checks["e164"]]
    deleted = pd.array([outcome is True for outcome, _ in per_input], dtype="bool")
    return _per_input(inputs, checks, "deleted", deleted, [e for _, e in per_input])


delete_contacts = blocking(adelete_contacts)


async def _by_chunks(
    client: Client | AsyncClient,
    rows: list[Any],
    call: Callable[[AsyncClient, list[Any]], Any],
    read: Callable[[Any, int], list[Any]],
    chunk_size: int,
    concurrency: int,
    progress: ProgressOption,
) -> tuple[list[Any], list[str | None]]:
    """Send the non-None ``rows`` in chunks; per row, the outcome ``read`` gives or an error."""
    positions = [i for i, row in enumerate(rows) if row is not None]
    chunks = [positions[i : i + chunk_size] for i in range(0, len(positions), chunk_size)]
    outcomes: list[Any] = [None] * len(rows)
    errors: list[str | None] = [None] * len(rows)

    stop, share = interruption()
    async with async_client(client, share=share) as gateway:

        async def one(chunk: list[int]) -> None:
            try:
                answer = await call(gateway, [rows[i] for i in chunk])
            except SmskitError as exc:
                for i in chunk:
                    errors[i] = f"{type(exc).__name__}: {exc}"
            else:
                for i, outcome in zip(chunk, read(answer, len(chunk)), strict=True):
                    outcomes[i] = outcome

        await run_chunks(chunks, one, concurrency=concurrency, stop=stop, progress=progress,
                         total=len(positions), unit="contact", size=len)  # fmt: skip
    for i in positions:
        if outcomes[i] is None and errors[i] is None:
            errors[i] = "not sent: interrupted"

    return outcomes, errors


def _per_input(
    inputs: list[Any], checks: pd.DataFrame, outcome: str, values: Any, errors: Iterable[str | None]
) -> pd.DataFrame:
    """One row per input: ``input``, ``phone_number``, the ``outcome`` column and ``error``
    (why an input was not sent)."""
    import pandas as pd

    reasons = [
        error if isinstance(e164, str) else f"not sent: {reason}"
        for error, e164, reason in zip(errors, checks["e164"], checks["reason"], strict=True)
    ]
    return pd.DataFrame(
        {
            "input": pd.array([_text(v) for v in inputs], dtype="string"),
            "phone_number": pd.array(list(checks["e164"]), dtype="string"),
            outcome: values,
            "error": pd.array(reasons, dtype="string"),
        }
    )


def _text(value: Any) -> str | None:
    return None if is_missing(value) else str(value)
