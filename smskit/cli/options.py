"""Option values every command reads alike: country codes, the gateway's closed value sets,
the clock (``SMSKIT_NOW``), ``--quiet``, and the campaign options as their declaration in
:class:`~smskit.campaigns.planning.spec.CampaignSpec` makes them (:func:`campaign_options`).

A value is checked where Click reads it, so a refusal is one usage line naming the option
(exit 2), never an API field name from deeper down.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, TypeVar

import click

from smskit.campaigns.planning.spec import CAMPAIGN_OPTIONS, CampaignOption
from smskit.errors import ValidationError
from smskit.rules import spec as _spec
from smskit.rules.region import DEFAULT_REGION, ENV_DEFAULT_REGION

__all__ = [
    "CLOCK_VARIABLE",
    "PURPOSE",
    "SMS_TYPE",
    "BreakdownKey",
    "CountryCode",
    "HoldoutSize",
    "OptionText",
    "campaign_options",
    "file_option",
    "given_campaign_options",
    "in_a_directory",
    "is_quiet",
    "now",
    "output_option",
    "region_option",
]

CLOCK_VARIABLE: Final = "SMSKIT_NOW"

# Codes people write for a country that ISO 3166-1 spells otherwise.
_NOT_ISO: Final = {"UK": "GB", "EL": "GR"}

_F = TypeVar("_F", bound=Callable[..., Any])

PURPOSE: Final = click.Choice(_spec.PURPOSES, case_sensitive=False)
SMS_TYPE: Final = click.Choice(_spec.SMS_TYPES, case_sensitive=False)


class OptionText(click.ParamType):
    """The text of a campaign option's flag, read by the option's own rule
    (:attr:`CampaignOption.parse <smskit.campaigns.planning.spec.CampaignOption>`) and kept
    as text (the command reads it again when it makes the campaign); one that does not read is
    refused naming the flag."""

    def __init__(self, declared: CampaignOption) -> None:
        self.declared = declared
        self.name = declared.metavar or declared.name.upper()

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from smskit.errors import ValidationError

        try:
            self.declared.read(str(value))
        except ValidationError as exc:
            self.fail(f"{value!r} {exc.rule}", param, ctx)
        return str(value)


def campaign_options() -> Callable[[_F], _F]:
    """One Click option per campaign option the spec declares with a flag (its flag and
    help; an on/off flag when it has no parser), passed to the command under the option's
    name: a new option declared in :class:`~smskit.campaigns.planning.spec.CampaignSpec`
    reaches ``smskit send`` with no edit here."""

    def decorate(command: _F) -> _F:
        for declared in reversed(CAMPAIGN_OPTIONS):
            if declared.flag is None:
                continue
            if declared.parse is None:
                made = click.option(declared.flag, declared.name, is_flag=True, help=declared.help)
            else:
                made = click.option(
                    declared.flag, declared.name, type=OptionText(declared), help=declared.help
                )
            command = made(command)
        return command

    return decorate


def given_campaign_options(values: Mapping[str, Any]) -> dict[str, Any]:
    """The campaign options a command gives the campaign: each flag's value as its rule reads
    it (a flag not given is left out: the campaign's default applies), and the CLI's own
    value of each option that has no flag."""
    given: dict[str, Any] = {}
    for declared in CAMPAIGN_OPTIONS:
        if declared.flag is None:
            given[declared.name] = declared.cli_value
        elif declared.parse is None:
            given[declared.name] = bool(values.get(declared.name))
        elif values.get(declared.name) is not None:
            given[declared.name] = declared.read(values[declared.name])
    return given


class HoldoutSize(click.ParamType):
    """A holdout's size: a share (``0.1``, a decimal point: between 0 and 1 exclusive) or a
    count (``500``, digits only: at least 1), checked by the campaign's own rule."""

    name = "SHARE|COUNT"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float | int:
        from smskit.campaigns.planning.holdout import RULE_SIZE, Holdout
        from smskit.errors import ValidationError

        if isinstance(value, float | int):
            return value
        text = str(value).strip()
        try:
            size: float | int = int(text) if text.isdigit() else float(text)
            return Holdout(size).size
        except (ValueError, ValidationError):
            self.fail(f"{value!r} {RULE_SIZE}", param, ctx)


class CountryCode(click.ParamType):
    """An ISO 3166-1 alpha-2 country code, any case (``fr``, ``FR``), upper-cased; a code
    that names no country is refused (``UK``: "did you mean GB?")."""

    name = "CC"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from smskit.rules.countries import country_info

        code = str(value).strip().upper()
        if code in _NOT_ISO:
            self.fail(
                f"{value!r} is not an ISO 3166 country code: did you mean {_NOT_ISO[code]}?",
                param,
                ctx,
            )
        if len(code) != 2 or not code.isascii() or country_info(code)[0] is None:
            self.fail(
                f"{value!r} is not an ISO 3166 alpha-2 country code (e.g. FR, BE, GB)", param, ctx
            )
        return code


class BreakdownKey(click.ParamType):
    """A key of the HLR breakdown (``smskit.frames.BREAKDOWN_KEYS``), listed in
    ``--help``. The keys are read when used, not at start-up: their module imports pandas,
    which a command that never breaks anything down should not pay for."""

    name = "KEY"

    @staticmethod
    def keys() -> tuple[str, ...]:
        from smskit.client.dtypes import BREAKDOWN_KEYS

        return tuple(BREAKDOWN_KEYS)

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str:
        return "[" + "|".join(self.keys()) + "]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        if value in self.keys():
            return str(value)
        self.fail(f"{value!r} is not one of {', '.join(self.keys())}", param, ctx)


def now() -> datetime:
    """What "now" is to a command: ``SMSKIT_NOW`` (an ISO 8601 instant with its UTC offset,
    for tests and replays) when set, else the system clock."""
    given = os.environ.get(CLOCK_VARIABLE)
    if not given:
        return datetime.now(UTC)
    try:
        instant = datetime.fromisoformat(given)
    except ValueError:
        instant = None
    if instant is None or instant.utcoffset() is None:  # a setting: exit 3, naming it
        raise ValidationError(
            CLOCK_VARIABLE,
            "must be an ISO 8601 instant with its UTC offset, e.g. 2026-03-02T09:30:00+01:00; "
            "set it empty, or unset it, for the system clock",
            value=given,
        )
    return instant


def is_quiet() -> bool:
    """Whether notices (the embedded sandbox's line) are dropped: ``--quiet`` was given, or
    stderr is not a terminal (cron mail, a log file)."""
    context = click.get_current_context(silent=True)
    root = context.find_root() if context is not None else None
    quiet = bool(root is not None and isinstance(root.obj, dict) and root.obj.get("quiet"))
    return quiet or not _stderr_is_terminal()


def _stderr_is_terminal() -> bool:
    return sys.stderr.isatty()


def region_option() -> Callable[[_F], _F]:
    """``--region``, as every command that reads numbers takes it: the country of numbers
    written without their +code (default: the ``SMSKIT_DEFAULT_REGION`` setting)."""
    return click.option(
        "--region",
        type=CountryCode(),
        default=DEFAULT_REGION,
        show_default=True,
        help="Country of numbers written without their +code (ISO code, any case; "
        f"the default comes from {ENV_DEFAULT_REGION}).",
    )


def given_as(name: str) -> str:
    """How the running command's parameter ``name`` was given, as a refusal names it: the
    environment variable Click read it from (``SMSKIT_SIGNING_SECRET``), else its option
    (``--signing-secret``); never an option the user did not type when a variable gave it."""
    from click.core import ParameterSource

    context = click.get_current_context()
    param = next(p for p in context.command.params if p.name == name)
    envvar = param.envvar if isinstance(param.envvar, str) else None
    if envvar and context.get_parameter_source(name) is ParameterSource.ENVIRONMENT:
        return envvar
    return max(param.opts, key=len)


def in_a_directory(
    context: click.Context, param: click.Parameter, value: Path | None
) -> Path | None:
    """A file the command writes or makes (a CSV, a journal, a store): refused, naming its
    option or argument (exit 2), when its directory does not exist; checked as the command
    line is read, before anything is checked, paid for or sent (the library would refuse it
    only when it opens the file, as a configuration error)."""
    if value is not None and not value.parent.is_dir():
        hint = f"'{param.opts[0]}'" if isinstance(param, click.Option) else None
        raise click.BadParameter(
            f"{value}: directory {str(value.parent)!r} does not exist", context, param, hint
        )
    return value


def file_option(
    *names: str, help: str, exists: bool = False, made: bool = False
) -> Callable[[_F], _F]:
    """An option naming one file (not a directory) by its path, None when not given;
    ``exists``: a file that must be there already (one the command reads); ``made``: one
    the command may create, whose directory must exist (:func:`in_a_directory`)."""
    return click.option(
        *names,
        type=click.Path(exists=exists, dir_okay=False, path_type=Path),
        callback=in_a_directory if made else None,
        help=help,
    )


def output_option(written: str) -> Callable[[_F], _F]:
    """``-o/--output``, the CSV file a command writes; ``written`` says what goes in it."""
    return click.option(
        "-o",
        "--output",
        type=click.Path(dir_okay=False, writable=True, path_type=Path),
        callback=in_a_directory,
        help=f"CSV written with {written}.",
    )
