"""``smskit hlr IN.csv -o OUT.csv``: bulk line checks of a CSV column, breakdown printed."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

import smskit
from smskit.cli.output import (
    EXIT_INCOMPLETE,
    connect,
    json_option,
    print_json,
    print_table,
    progress,
    records,
)

if TYPE_CHECKING:
    import pandas as pd


@click.command()
@click.argument("source", metavar="IN.csv", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="CSV written with one row per distinct value: the value, its answer, cached, error.",
)
@click.option(
    "--column",
    default=None,
    help="Column holding the numbers (default: phone_number).",
)
@click.option(
    "--region",
    default="FR",
    show_default=True,
    help="Country of numbers written without their +code.",
)
@click.option(
    "--cache",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="SQLite cache of answers (default: the per-user cache directory).",
)
@click.option("--no-cache", is_flag=True, help="Neither read nor keep cached answers.")
@click.option(
    "--by",
    default="line_status",
    show_default=True,
    help="Breakdown key: status, line_status, phone_number_type, country or network.",
)
@json_option
def hlr(
    source: Path,
    output: Path | None,
    column: str | None,
    region: str,
    cache: Path | None,
    no_cache: bool,
    by: str,
    as_json: bool,
) -> int:
    """Check every line of IN.csv: normalised, each distinct number once, answers cached.

    Prints the breakdown; exits 7 when some valid numbers got no answer.
    """

    from smskit.rules.csvtext import read_csv_text

    # The recipients' one CSV reader: every cell as written, a too-long row refused.
    wanted = column or "phone_number"
    table = read_csv_text(source, [wanted], field="IN")
    numbers = table if column is None else _column(table, column, source)
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
    breakdown = results.breakdown(by)
    bad = frame["phone_number_type"].astype("string") == "bad_format"
    counts = {
        "values": len(frame),
        "bad_format": int(bad.sum()),
        "cached": int(frame["cached"].sum()),
        # valid numbers the gateway gave no answer for (bad values read bad_format instead)
        "without_answer": int((frame["error"].notna() & ~bad).sum()),
    }
    if as_json:
        written = None if output is None else str(output)
        print_json({**counts, "output": written, "breakdown": records(breakdown)})
    else:
        click.echo(
            f"{counts['values']} distinct values ({counts['bad_format']} not numbers), "
            f"{counts['cached']} answers from the cache, {counts['without_answer']} without "
            "an answer" + (f"; written to {output}" if output else "")
        )
        print_table(breakdown)
    return EXIT_INCOMPLETE if counts["without_answer"] else 0


def _column(table: pd.DataFrame, name: str, source: Path) -> pd.Series:
    if name not in table.columns:
        import pandas as pd

        names = pd.read_csv(source, dtype=str, nrows=0).columns
        raise click.BadParameter(
            f"no column {name!r} in the file (columns: {', '.join(map(str, names))})",
            param_hint="'--column'",
        )
    return table[name]
