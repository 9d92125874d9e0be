"""``smskit balance`` and ``smskit credits``: what the account can pay for."""

from __future__ import annotations

import click

from smskit.cli.options import CountryCode
from smskit.cli.output import connect, json_option, print_json, print_table, records


@click.command()
@json_option
def balance(as_json: bool) -> int:
    """The account balance (the gateway's own answer with --json)."""
    with connect() as client:
        answer = client.wallet.check_balance()
    if as_json:
        print_json(dict(answer.raw) or {"amount": answer.amount, "unit": answer.unit})
    else:
        click.echo(f"{answer.amount} {answer.unit}")
    return 0


@click.command()
@click.option(
    "--country",
    "countries",
    type=CountryCode(),
    multiple=True,
    help="Country code (ISO 3166 alpha-2, any case), repeatable; default: every country.",
)
@json_option
def credits(countries: tuple[str, ...], as_json: bool) -> int:
    """Credits left per country and product: how many units the balance pays for."""
    with connect() as client:
        answer = client.wallet.check_credits(country_codes=list(countries) or None)
    frame = answer.to_frame()
    if as_json:
        print_json(records(frame))
    elif frame.empty:
        click.echo("no credits for these countries")
    else:
        wide = frame.pivot(index=["country_code", "country"], columns="product", values="credits")
        wide.columns = [str(c) for c in wide.columns]
        print_table(wide)
    return 0
