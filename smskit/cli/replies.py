"""``smskit replies serve``: the inbound-SMS receiver, until Ctrl-C (or SIGTERM)."""

from __future__ import annotations

from pathlib import Path

import click

from smskit.cli.options import file_option, given_as
from smskit.cli.output import EXIT_CONFIG, EXIT_INPUT, print_json, stopped_by_signals
from smskit.cli.sendcheck import Refused, not_this_file

# The options of `replies serve` the inbox checks, by the name the inbox's refusal gives.
_OPTIONS = ("host", "link_base", "signing_secret")


@click.group()
def replies() -> None:
    """Replies recipients send back (sends made with --with-replies)."""


@replies.command()
@file_option(
    "--path",
    help="SQLite file of the replies (default: replies.sqlite in the per-user data directory).",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    help="TCP port (default: the one this inbox had last time, else any free one).",
)
@click.option(
    "--signing-secret",
    envvar="SMSKIT_SIGNING_SECRET",
    help="Refuse callbacks not signed with this secret (prefer $SMSKIT_SIGNING_SECRET: a "
    "command-line value shows in ps).",
)
@click.option(
    "--link-base",
    help="Where tracked links start, e.g. https://go.shop.example (a public domain in front "
    "of this inbox; default http://HOST:PORT; kept in the file). See docs/links.md.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the URL and path as JSON first.")
def serve(
    path: Path | None,
    host: str,
    port: int,
    signing_secret: str | None,
    link_base: str | None,
    as_json: bool,
) -> int:
    """Receive replies at a callback URL (register it as the account's inbound-SMS callback;
    it holds a secret token) and store each once, until Ctrl-C. With SMSKIT_BASE_URL and
    SMSKIT_API_LOGIN set, every STOP and reply asking to stop also goes on that account's
    opt-out list (smskit optouts list), which every preflight excludes."""
    import os

    from smskit._paths import replies_path
    from smskit.errors import ConfigurationError, ValidationError
    from smskit.replies import Inbox

    where = path if path is not None else replies_path()
    base_url, login = os.environ.get("SMSKIT_BASE_URL"), os.environ.get("SMSKIT_API_LOGIN")
    account = (base_url, login) if base_url and login else None
    if account is not None:  # refused as configuration (exit 3), never blamed on --path
        from smskit.replies.optouts import account_key

        account_key(account)
    try:
        inbox = Inbox(
            where, host=host, port=port, signing_secret=signing_secret or None,
            account=account, link_base=link_base,
        )  # fmt: skip
    except ValidationError as exc:  # named as typed: its option, or the variable that gave it
        if exc.field == "path":  # a pipe or a device: no inbox file (exit 4)
            raise not_this_file(f"--path {where}", exc) from exc
        given = given_as(exc.field) if exc.field in _OPTIONS else exc.field
        shown = f" (got {exc.value!r})" if exc.value is not None else ""
        raise Refused(f"{given}: {exc.rule}{shown}", EXIT_INPUT) from exc
    except ConfigurationError as exc:  # not an inbox file: input refused, like --inbox (exit 4)
        if path is None:
            raise
        raise not_this_file(f"--path {path}", exc) from exc
    try:
        inbox.start()
    except OSError as exc:
        click.echo(f"smskit replies serve: error: cannot listen on {host} port {port}: "
                   f"{exc.strerror or exc}", err=True)  # fmt: skip
        return EXIT_CONFIG
    try:
        with stopped_by_signals():
            if as_json:
                print_json({"url": inbox.url, "path": str(where), "stored": len(inbox)})
            else:
                click.echo(f"Inbox callback URL: {inbox.url}")
                click.echo(f"Tracked links start with {inbox.link_base}/")
                click.echo(f"Replies stored in {where} ({len(inbox)} so far). Ctrl-C stops it.")
                if account is not None:
                    click.echo(f"Opt-outs go on the opt-out list of {login} at {base_url}.")
            seen = len(inbox)
            while True:
                try:
                    seen = inbox.wait(seen + 1, timeout=1.0)
                except TimeoutError:  # the built-in: nothing new this second
                    continue
                click.echo(f"{seen} replies stored", err=True)
    except KeyboardInterrupt:
        return 0
    finally:
        inbox.stop()
