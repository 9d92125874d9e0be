"""The ``smskit`` group, and the one place where errors become one line and an exit code."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any, Final

import click

from smskit.campaigns.planning.spec import CAMPAIGN_OPTIONS
from smskit.cli import account, campaign, lines, optouts, replies, sandbox, send
from smskit.cli.options import CLOCK_VARIABLE
from smskit.cli.output import (
    EXIT_BUSY,
    EXIT_CODES_HELP,
    EXIT_CONFIG,
    EXIT_DECLINED,
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_REFUSED,
    EXIT_REPEAT,
    EXIT_UNREACHABLE,
    FILES_READ,
    named_file,
)
from smskit.errors import (
    APIError,
    CampaignBusy,
    ConfigurationError,
    RepeatedSend,
    SmskitError,
    TransportError,
    ValidationError,
)
from smskit.replies.optouts import PATH_VARIABLE
from smskit.rules.caps import ENV_FREQUENCY_CAP
from smskit.rules.region import ENV_DEFAULT_REGION
from smskit.rules.timezone import ENV_TIME_ZONE

# Most specific first: the first class an error is an instance of gives the exit code.
EXIT_BY_ERROR: tuple[tuple[type[BaseException], int], ...] = (
    (CampaignBusy, EXIT_BUSY),
    (RepeatedSend, EXIT_REPEAT),
    (ConfigurationError, EXIT_CONFIG),
    (ValidationError, EXIT_INPUT),
    (TransportError, EXIT_UNREACHABLE),
    (APIError, EXIT_REFUSED),
    (SmskitError, EXIT_DECLINED),
    (OSError, EXIT_INPUT),
)


def _version() -> str:
    from smskit._version import __version__

    return __version__


class SmskitGroup(click.Group):
    """A group whose ``main`` turns every error into one line on stderr and an exit code.

    Overriding ``main`` (not wrapping it) keeps one path for the installed command, for
    ``python -m smskit`` and for Click's ``CliRunner``.
    """

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> int:
        files = FILES_READ.set({})  # the files this run reads, afresh
        try:
            argv = list(sys.argv[1:] if args is None else args)
            code = _outcome(self, argv, prog_name or "smskit", complete_var, extra)
        finally:
            FILES_READ.reset(files)
        if standalone_mode:
            _before_exit()
            sys.exit(code)
        return code


@click.group(
    name="smskit",
    cls=SmskitGroup,
    epilog=EXIT_CODES_HELP,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(_version(), "--version", prog_name="smskit")
@click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="No notices on stderr (the embedded sandbox's line); errors are still printed. "
    "Implied when stderr is not a terminal.",
)
@click.pass_context
def cli(context: click.Context, quiet: bool) -> None:
    """Drive an SMS gateway from the shell: account, line checks, sends, campaigns, replies.

    Talks to the gateway SMSKIT_BASE_URL, SMSKIT_API_LOGIN and SMSKIT_API_KEY name, or to an
    embedded sandbox on 127.0.0.1 when none is set (no real SMS leave the machine).
    SMSKIT_NOW (an ISO 8601 instant with its offset) sets the clock `send` reads.
    """
    context.obj = {"quiet": quiet}


@cli.command()
def version() -> int:
    """Print the smskit version."""
    click.echo(f"smskit {_version()}")
    return 0


cli.add_command(account.balance)
cli.add_command(account.credits)
cli.add_command(lines.hlr)
cli.add_command(send.send)
cli.add_command(campaign.campaign)
cli.add_command(replies.replies)
cli.add_command(optouts.optouts)
cli.add_command(sandbox.sandbox)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``smskit`` command with ``argv`` (default: the process arguments); returns the
    exit code. ``SMSKIT_DEBUG=1`` lets unexpected errors (bugs) show their traceback.

    Without ``argv`` it is the process's entry point (the installed ``smskit`` script,
    ``python -m smskit``): the process ends once it returns."""
    code = cli.main(args=argv, standalone_mode=False)
    if argv is None:
        _before_exit()
    return code


def _before_exit() -> None:
    """The process ends next: its last garbage collection would walk every object pandas and
    the sandbox made (0.3-0.5 s of a 1 s command) only to free memory the OS takes back.
    Frozen objects are skipped; atexit handlers (the embedded sandbox's stop) and file
    closes still run."""
    import gc

    gc.freeze()


def _outcome(
    group: click.Group,
    args: list[str],
    prog_name: str,
    complete_var: str | None,
    extra: dict[str, Any],
) -> int:
    try:
        result = click.Group.main(
            group, args, prog_name, complete_var, standalone_mode=False, **extra
        )
    except click.exceptions.Exit as done:
        return done.exit_code
    except click.Abort:
        click.echo(f"{prog_name}: aborted", err=True)
        return EXIT_DECLINED
    except click.UsageError as exc:
        where = exc.ctx.command_path if exc.ctx is not None else prog_name
        message = _one_line(exc.format_message())
        click.echo(f"{where}: error: {message} (see: {where} --help)", err=True)
        return exc.exit_code
    except click.ClickException as exc:
        click.echo(f"{prog_name}: error: {_one_line(exc.format_message())}", err=True)
        return exc.exit_code
    except KeyboardInterrupt:
        click.echo(f"{prog_name}: interrupted", err=True)
        return EXIT_INTERRUPTED
    except Exception as exc:
        if isinstance(exc, ValidationError) and exc.field in SETTINGS:
            click.echo(f"{prog_name}: error: {_describe(exc)}", err=True)
            return EXIT_CONFIG  # a setting of the environment: configuration, not input
        for kind, code in EXIT_BY_ERROR:
            if isinstance(exc, kind):
                click.echo(f"{prog_name}: error: {_describe(exc)}", err=True)
                return code
        if os.environ.get("SMSKIT_DEBUG"):
            raise
        click.echo(
            f"{prog_name}: unexpected error (a bug, please report it; SMSKIT_DEBUG=1 shows "
            f"where): {_describe(exc)}",
            err=True,
        )
        return EXIT_DECLINED
    return result if isinstance(result, int) else 0


# The library's argument names and the options that set them: an error names what the user
# typed. (Fields inside a file, e.g. a CSV column, keep their own names.)
OPTION_OF_FIELD: Final = {
    "text": "--text",
    "sender": "--sender",
    "type": "--type",
    "purpose": "--purpose",
    "send_at": "--send-at",
    "with_replies": "--with-replies",
    "name": "--name",
    "default_region": "--region",
    "country_codes": "--country",
    "journal": "--journal",
    # Each campaign option's flag, and the variable of its account default, as declared.
    **{o.name: o.flag for o in CAMPAIGN_OPTIONS if o.flag is not None},
    **{o.env: o.env for o in CAMPAIGN_OPTIONS if o.env is not None},
}


# The environment variables whose value the library refuses as a ValidationError naming the
# variable: configuration (exit 3), as a refused SMSKIT_DEFAULT_REGION or SMSKIT_NOW is, never
# input (exit 4: the command's options and files); said as `VARIABLE: rule (got value)`.
SETTINGS: Final = frozenset(
    {ENV_DEFAULT_REGION, ENV_FREQUENCY_CAP, ENV_TIME_ZONE, CLOCK_VARIABLE, PATH_VARIABLE}
)


# The Python arguments the library's advice names (SmskitError.remedy), as the shell gives
# them: advice at the shell names the command's options and environment variables.
CLI_REMEDY: Final = {
    "allow_insecure": "give SMSKIT_BASE_URL an https:// URL (plain http:// only to this machine)",
    "base_url": "set SMSKIT_BASE_URL too (or none of SMSKIT_BASE_URL, SMSKIT_API_LOGIN, "
    "SMSKIT_API_KEY for the embedded sandbox)",
    "client": "it cannot be resumed from the shell",
    "api_key": "set SMSKIT_API_KEY (and SMSKIT_API_LOGIN) to that account's",
    "api_login": "set SMSKIT_API_LOGIN to the login it was sent as (and SMSKIT_API_KEY to its key)",
    "path": "give the file with --csv FILE",
    "optouts_import": "give the file with: smskit optouts import FILE",
    # A file not named .csv (a Parquet file, a spreadsheet): the command line reads CSV only.
    "path_not_csv": "save it as CSV UTF-8 (a .csv file with a header row) and give it with "
    "--csv FILE: the command line reads recipients from CSV files only",
    # RULE_FLOAT's advice (pandas.read_csv(path, dtype=str)), for a number in a file.
    "dtype": "write the column's numbers as text, each as written, without '.0' (in a "
    "spreadsheet, format the column as Text before saving it as CSV)",
}


# A library field the shell fills from an option or argument no campaign option declares.
_ARGUMENT_OF_FIELD: Final = {"recipients": "--to", "numbers": "NUMBER"}


def _advice(exc: BaseException) -> str | None:
    """The error's fact with the shell's advice, when every remedy it names has one."""
    if not isinstance(exc, SmskitError) or exc.fact is None or not exc.remedy:
        return None
    if not all(name in CLI_REMEDY for name in exc.remedy):
        return None
    where = ""
    if isinstance(exc, ValidationError) and exc.line is not None and named_file(exc.field):
        # A cell of a file the user typed: its line and column, as a person finds it.
        column = exc.field.partition(".")[2]
        where = f"{named_file(exc.field)}: line {exc.line}{f', {column}' if column else ''}: "
        where += f"{exc.value!r}: " if isinstance(exc.value, str) else ""
    elif isinstance(exc, ValidationError):
        option = OPTION_OF_FIELD.get(exc.field, _ARGUMENT_OF_FIELD.get(exc.field, exc.field))
        where = f"{named_file(exc.field) or option}: "
        where += f"{exc.value!r}: " if isinstance(exc.value, str) else ""
    return _one_line(f"{where}{exc.fact}: {'; or '.join(CLI_REMEDY[n] for n in exc.remedy)}")


def _describe(exc: BaseException) -> str:
    advice = _advice(exc)
    if advice is not None:
        return advice
    if isinstance(exc, OSError) and exc.filename is not None:
        return _one_line(f"{exc.filename}: {exc.strerror or exc}")
    if isinstance(exc, ValidationError) and named_file(exc.field) is not None:
        return _one_line(f"{named_file(exc.field)}: {exc}")
    if isinstance(exc, ValidationError) and exc.field in SETTINGS:
        return _one_line(str(exc))
    if isinstance(exc, ValidationError) and exc.field in OPTION_OF_FIELD:
        where = OPTION_OF_FIELD[exc.field]
        if exc.position is not None:
            where += f" (value {exc.position})" if exc.field != "text" else ""
        shown = f" (got {exc.value!r})" if exc.value is not None else ""
        return _one_line(f"{where}: {exc.rule}{shown}")
    return _one_line(f"{type(exc).__name__}: {exc}")
