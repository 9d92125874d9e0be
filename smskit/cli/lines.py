"""``smskit hlr IN.csv -o OUT.csv`` or ``smskit hlr NUMBER...``: bulk line checks, breakdown
printed; exit 7 when any number got no answer (unreachable or failing gateway included).

An argument ending in ``.csv`` (any case) is a file; any other is a number, written as the
user would (``+33612345678``, ``06 12 34 56 78``): never guessed to be a path.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

import smskit
from smskit._paths import check_not_replacing
from smskit.cli.options import BreakdownKey, file_option, output_option, region_option
from smskit.cli.output import (
    EXIT_INCOMPLETE,
    EXIT_INPUT,
    connect,
    json_option,
    name_file,
    print_json,
    print_table,
    progress,
    records,
)
from smskit.cli.sendcheck import Refused, not_this_file
from smskit.errors import ValidationError

if TYPE_CHECKING:
    import pandas as pd


@click.command()
@click.argument("sources", metavar="IN.csv | NUMBER...", nargs=-1, required=True)
@output_option("one row per distinct value: the value, its answer, cached, error")
@click.option("--column", help="Column holding the numbers (default: phone_number).")
@region_option()
@file_option("--cache", help="SQLite cache of answers (default: the per-user cache directory).")
@click.option("--no-cache", is_flag=True, help="Neither read nor keep cached answers.")
@click.option(
    "--by", type=BreakdownKey(), default="line_status", show_default=True, help="Breakdown key."
)
@json_option
def hlr(
    sources: tuple[str, ...],
    output: Path | None,
    column: str | None,
    region: str,
    cache: Path | None,
    no_cache: bool,
    by: str,
    as_json: bool,
) -> int:
    """Check every line of IN.csv, or the NUMBERs given: normalised, each distinct number
    once, answers cached.

    Prints the breakdown; exits 7 when any valid number got no answer (the gateway
    unreachable or failing included), and lists why; exits 4 when no value is a number
    (nothing to check).
    """
    if cache is not None and no_cache:  # which one was meant? asked before any (paid) check
        raise click.UsageError("--cache FILE keeps the answers, --no-cache keeps none: not both")
    if output is not None:  # before any (paid) check; an inline number is no file
        try:
            check_not_replacing(output, "-o", reads=sources)
        except ValidationError as exc:
            raise click.BadParameter(f"{output}: {exc.rule}", param_hint="'-o'") from None
    numbers = _numbers(sources, column)
    if cache is not None:
        _check_cache(cache)
    with connect() as client:
        results = smskit.bulk_hlr(
            client,
            numbers,
            journal=False if no_cache else cache,
            default_region=region,
            progress=progress(),
        )
    frame = results.to_frame()
    if output is not None:
        frame.to_csv(output, index=False)
    _refuse_nothing_checked(frame, output)
    breakdown = results.breakdown(by)
    # Unanswered rows have no type (NA): compared as "not bad_format", not as unknown.
    bad = (frame["phone_number_type"].astype("string") == "bad_format").fillna(False)
    unanswered = frame["error"].notna() & ~bad
    counts = {
        "values": len(frame),
        "bad_format": int(bad.sum()),
        "cached": int(frame["cached"].sum()),
        # valid numbers the gateway gave no answer for (bad values read bad_format instead)
        "without_answer": int(unanswered.sum()),
    }
    reasons = frame.loc[unanswered, "error"].astype(str).value_counts()
    if as_json:
        written = None if output is None else str(output)
        errors = [{"error": error, "values": int(n)} for error, n in reasons.items()]
        print_json({**counts, "output": written, "breakdown": records(breakdown), "errors": errors})
    else:
        click.echo(
            f"{counts['values']} distinct values ({counts['bad_format']} not numbers), "
            f"{counts['cached']} answers from the cache, {counts['without_answer']} without "
            "an answer" + (f"; written to {output}" if output else "")
        )
        print_table(breakdown)
    for error, count in reasons.items():  # failures go where cron mail and `2>` look
        click.echo(f"Without an answer: {count} value(s): {error}", err=True)
    return EXIT_INCOMPLETE if counts["without_answer"] else 0


def _check_cache(path: Path) -> None:
    """A --cache file that is not an HLR cache (a campaign journal, a CSV): exit 4 naming
    --cache, the file left unchanged."""
    from smskit.campaigns.bulk.hlr_cache import HLRCache
    from smskit.errors import ConfigurationError, ValidationError

    try:
        HLRCache(path).close()
    except (ConfigurationError, ValidationError) as exc:  # the cache's check: this file only
        raise not_this_file(f"--cache {path}", exc) from exc


def _refuse_nothing_checked(frame: pd.DataFrame, output: Path | None) -> None:
    """No value was a number, so nothing was checked: exit 4 naming a few values and why
    (each value's reason is also in ``-o``), never a breakdown of nothing and exit 0."""
    if len(frame) == 0:
        raise Refused("nothing checked: no values were given (the column is empty)", EXIT_INPUT)
    bad = (frame["phone_number_type"].astype("string") == "bad_format").fillna(False)
    if not bad.all():
        return
    shown = ", ".join(
        f"{value!r} ({error})"
        for value, error in frame[["input", "error"]].head(SHOWN).itertuples(index=False)
    )
    more = f" and {len(frame) - SHOWN} more" if len(frame) > SHOWN else ""
    written = f"; each value's reason written to {output}" if output is not None else ""
    raise Refused(
        f"nothing checked: none of the {len(frame)} value(s) is a phone number: {shown}{more}"
        f"{written}",
        EXIT_INPUT,
    )


SHOWN = 3  # values named when none is a number


def _numbers(sources: tuple[str, ...], column: str | None) -> pd.DataFrame | list[str]:
    """The values to check: one CSV file's column, or the numbers given inline."""
    files = [s for s in sources if s.lower().endswith(".csv")]
    if not files:
        if column is not None:
            raise click.UsageError("--column reads a CSV file: give IN.csv, not numbers")
        files = [s for s in sources if Path(s).is_file()]
        if files:  # read as a number it would be "not a number", checked for nothing
            raise click.UsageError(
                f"{files[0]!r} is a file, and an argument not ending in .csv is a number: "
                "give a CSV file a .csv name; save a Parquet file or a spreadsheet as CSV "
                "UTF-8 (smskit hlr reads CSV files only, as IN.csv says; in Python, "
                "smskit.bulk_hlr also reads a Parquet file given as a pathlib.Path)"
            )
        return list(sources)
    if len(sources) > 1:
        if len(files) > 1:  # not "numbers, not both": the files were all it was given
            raise click.UsageError(f"give one IN.csv file at a time (got {len(files)} files)")
        raise click.UsageError("give one IN.csv file, or numbers, not both")
    from smskit.rules.csvtext import csv_columns, read_csv_text
    from smskit.rules.recipients import refuse_floats

    source = Path(files[0])
    name_file("IN", str(source))
    name_file("numbers", str(source))  # bulk_hlr's refusals of its rows (a bad country cell)
    # The recipients' one CSV reader: every cell as written, a too-long row refused; a row's
    # country is the region of its national number, as in a campaign.
    table = read_csv_text(source, [column or "phone_number", "country"], field="IN")
    if column is None and "phone_number" not in table.columns:
        names = ", ".join(repr(name) for name in csv_columns(source, "IN"))
        raise Refused(
            f"{source} has no phone_number column (columns: {names}): values are separated "
            "by commas; --column names another column",
            EXIT_INPUT,
        )
    numbers = table if column is None else _column(table, column, source)
    # A float's text is refused here, where the file is known: the error names its line.
    refuse_floats(numbers["phone_number"], f"IN.{column or 'phone_number'}", source)
    return numbers


def _column(table: pd.DataFrame, name: str, source: Path) -> pd.DataFrame:
    """The numbers of column ``name`` as the reader's phone_number, beside the country."""
    if name not in table.columns:
        from smskit.rules.csvtext import csv_columns

        names = csv_columns(source, "IN")
        raise click.BadParameter(
            f"no column {name!r} in the file (columns: {', '.join(map(str, names))})",
            param_hint="'--column'",
        )
    numbers = table[[name]].rename(columns={name: "phone_number"})
    return numbers.join(table[["country"]]) if "country" in table.columns else numbers
