"""What a campaign is, as a value: :class:`CampaignSpec`.

A spec is text, sender, send options, name, default region, clock and journal location,
checked once when it is made and never changed after: an edit is a new spec
(:meth:`CampaignSpec.replace`). Its identity (the name, given or derived from the text,
sender and options) names the journal. Three front ends hold one: :class:`smskit.Campaign`
(recipients in memory) and :class:`smskit.dask.Campaign` (recipients partitioned), thin
executors on :class:`~smskit.campaigns.executor.CampaignExecutor`, and the
:class:`smskit.Composer` widget, which edits the spec of the one campaign it holds.

The campaign's options (``include_opted_out``, ``repeat_window``, ``frequency_cap``) are
declared here once, each a field of the spec made with :func:`option`: its default, the rule
that checks it, the CLI's flag, help and own value, the environment variable of its account
default, and its journaled form (:class:`CampaignOption`; :data:`CAMPAIGN_OPTIONS` lists them).
Every front end takes them from here: ``smskit.Campaign``, ``smskit.dask.Campaign``,
``Experiment`` and ``Composer`` through ``**options`` typed by :class:`CampaignOptions` (made
into a spec by :meth:`CampaignSpec.of`), the CLI's ``smskit send`` through options generated
from the declaration (:func:`smskit.cli.options.campaign_options`), and the journal's
record through :meth:`CampaignSpec.journaled_options`. docs/architecture.md ("Adding a
campaign option") shows the one place a new option goes.

May import the rule book, ``smskit.errors``, the client's configuration and the planning and
sending modules named below; never a front end.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final, TypedDict, Unpack

from smskit._paths import campaigns_dir
from smskit.campaigns.planning.holdout import Holdout
from smskit.campaigns.planning.plan import (
    check_name,
    check_options,
    check_text_and_sender,
    default_name,
)
from smskit.campaigns.planning.preflight import PreflightSettings, evaluation_instant
from smskit.campaigns.sending.journal_file import JOURNAL_SUFFIX
from smskit.campaigns.sending.repeats import WINDOW as REPEAT_WINDOW
from smskit.client.config import default_frequency_cap
from smskit.errors import ValidationError
from smskit.rules.caps import ACCOUNT_DEFAULT, ENV_FREQUENCY_CAP, FrequencyCap, frequency_cap
from smskit.rules.content import is_marketing
from smskit.rules.files import as_file_path
from smskit.rules.optouts import check_include_opted_out
from smskit.rules.region import DEFAULT_REGION, check_region

__all__ = [
    "CAMPAIGN_OPTIONS",
    "NO_CAP",
    "CampaignOption",
    "CampaignOptions",
    "CampaignSpec",
    "option",
]

NO_CAP: Final = "none"  # the CLI's text for "no cap, whatever the account's default"
_OPTION: Final = "campaign_option"  # the key of a field's metadata that declares an option


@dataclass(frozen=True)
class CampaignOption:
    """What one campaign option carries to every front end (a field of
    :class:`CampaignSpec` made with :func:`option`).

    ``check(value, spec)`` is the rule (from :mod:`smskit.rules`): the value as the spec keeps
    it, or a ``ValidationError`` naming the field; it runs once the spec's send options are
    checked, so it may read them. ``help`` is the CLI's ``--help`` line. ``flag``: the CLI's
    option (None: not on the command line, the CLI gives ``cli_value``); ``parse(text)``
    reads the flag's text (None: an on/off flag), shown as ``metavar``. ``env``: the
    environment variable of the account's default, if any (named by the CLI's errors), and
    ``account_default(spec)`` the value that applies when the option is not given (the
    field left at ``ACCOUNT_DEFAULT``), read when the spec is made (a wrong setting is
    refused then) and by :meth:`CampaignSpec.applied`.
    ``journaled(spec)``: the value the campaign applies, as JSON, in the journal's record.
    ``example``: a value other than the default, as the CLI would take it (the text after
    the flag; "" for an on/off flag), which the test walking every option gives each front
    end. ``name`` and ``default`` are the field's."""

    check: Callable[[Any, CampaignSpec], Any]
    help: str
    journaled: Callable[[CampaignSpec], Any]
    example: str
    flag: str | None = None
    metavar: str | None = None  # what --help shows for the flag's value
    parse: Callable[[str], Any] | None = None
    cli_value: Any = None
    env: str | None = None
    account_default: Callable[[CampaignSpec], Any] | None = None
    name: str = ""
    default: Any = None

    def read(self, text: str) -> Any:
        """``text`` as the CLI reads it: ``parse(text)``, True for an on/off flag."""
        return True if self.parse is None else self.parse(text)


def option(default: Any, **declared: Any) -> Any:
    """A field of :class:`CampaignSpec` that is a campaign option: ``default``, and what
    :class:`CampaignOption` carries (``check``, ``help``, ``journaled``, ``example``, ``flag``
    ...)."""
    return field(default=default, metadata={_OPTION: CampaignOption(**declared)})


def _opted_out(value: Any, spec: CampaignSpec) -> bool:
    return check_include_opted_out(value, spec.options.get("purpose"))


def _window(value: Any, _spec: CampaignSpec) -> timedelta | None:
    """None, or a positive duration as the rule book reads one (a ``timedelta`` or a text
    such as ``"10min"``, as an orders' ``window`` takes it)."""
    return None if value is None else _duration(value)


def _duration(text: Any) -> timedelta:
    """A duration as the rule book reads one (``"10min"``, ``"2h"``)."""
    from smskit.rules.orders import window_of

    return window_of(text, "repeat_window").to_pytimedelta()


def _cap(value: Any, spec: CampaignSpec) -> FrequencyCap | object | None:
    if value is ACCOUNT_DEFAULT:
        return value
    cap = frequency_cap(value)
    if cap is not None and not is_marketing(spec.options.get("purpose")):
        raise ValidationError(
            "frequency_cap",
            "only a marketing campaign is capped: a transactional send "
            "(purpose 'alert') never is, and takes no cap",
            value=str(cap),
        )
    return cap


def _account_cap(spec: CampaignSpec) -> FrequencyCap | None:
    """``SMSKIT_FREQUENCY_CAP`` for a marketing campaign; a transactional one is never
    capped."""
    return default_frequency_cap() if is_marketing(spec.options.get("purpose")) else None


def _cap_text(text: str) -> FrequencyCap | None:
    """The CLI's ``--frequency-cap``: ``N/PERIOD``, or ``none`` (no cap)."""
    return None if text.strip().lower() == NO_CAP else frequency_cap(text)


@dataclass(frozen=True)
class CampaignSpec:
    """A campaign's text, sender, send options, name, default region, clock and journal.

    ``options`` are the send endpoint's own (``type``, ``send_at``, ``purpose``,
    ``with_replies``, ``auto_optimize_text``, ``auto_remove_blacklisted_numbers``; None values
    left out, ``send_at`` as ISO text). ``name`` as given (None: derived, see
    :attr:`identity`). ``clock`` (returning an aware datetime) is what "now" means to the
    creation time and the marketing-hours check; ``journal`` where a send journals (None:
    :meth:`journal_path`); ``created`` when the spec was made (default: ``clock()``, else now);
    ``include_opted_out`` sends to numbers on the account's opt-out list too (transactional
    sends only, ``purpose="alert"``: refused for marketing; see docs/optouts.md);
    ``holdout`` keeps a seeded random part of the sendable recipients out of the send
    (:class:`~smskit.campaigns.planning.holdout.Holdout`; docs/conversions.md);
    ``repeat_window`` refuses the same send (:attr:`content`, the same recipients, the same
    gateway) made less than that long ago as a new campaign, unless ``send(again=True)``
    (:mod:`smskit.campaigns.sending.repeats`; the CLI's ``smskit send`` uses 10 minutes).
    ``frequency_cap`` (``"2/7D"``, a :class:`~smskit.FrequencyCap`, or None for
    none) excludes the recipients of a marketing campaign who already received that many of
    the account's marketing messages in the period (issue ``frequency_capped``); not given,
    the account's default (``SMSKIT_FREQUENCY_CAP``) applies to marketing campaigns; a
    transactional campaign is never capped, and giving it a cap is refused
    (docs/frequency-caps.md). Every field is checked when the spec is made; a wrong one
    raises ``ValidationError``.
    """

    text: str
    sender: str
    options: Mapping[str, Any] = field(default_factory=dict)
    name: str | None = None
    default_region: str | None = DEFAULT_REGION
    clock: Callable[[], datetime] | None = None
    journal: str | Path | None = None  # kept as a Path
    created: datetime | None = None  # set when the spec is made: clock(), else now
    holdout: Holdout | None = None  # seeded when the spec is made (the name's seed if none)
    # -- the campaign options: each declared once, here (CampaignOption) ---------------------
    include_opted_out: bool = option(
        False,
        check=_opted_out,
        flag="--include-opted-out",
        help="Send to numbers on the account's opt-out list too (--purpose alert only; each "
        "is shown as a warning). Without it they are excluded (opted_out).",
        journaled=lambda spec: spec.include_opted_out,
        example="",
    )
    repeat_window: timedelta | None = option(
        None,
        check=_window,
        parse=_duration,
        cli_value=REPEAT_WINDOW,  # `smskit send` refuses a repeat within 10 min (--again)
        help="Refuse the same send made less than this long ago (unless sent again).",
        journaled=lambda spec: (
            None if spec.repeat_window is None else spec.repeat_window.total_seconds()
        ),
        example="30min",
    )
    # "N/PERIOD", a FrequencyCap, None (no cap), or ACCOUNT_DEFAULT (SMSKIT_FREQUENCY_CAP)
    frequency_cap: FrequencyCap | str | object | None = option(
        ACCOUNT_DEFAULT,
        check=_cap,
        flag="--frequency-cap",
        metavar="N/PERIOD",
        parse=_cap_text,
        env=ENV_FREQUENCY_CAP,
        account_default=_account_cap,
        help="N/PERIOD (2/7D): leave out recipients of this marketing send who already "
        "received N marketing messages of the account in PERIOD; default "
        f"{ENV_FREQUENCY_CAP}, '{NO_CAP}' for no cap. Transactional sends (--purpose alert) "
        "are never capped (docs/frequency-caps.md).",
        journaled=lambda spec: None if spec.cap is None else str(spec.cap),
        example="2/7D",
    )

    def __post_init__(self) -> None:
        check_text_and_sender(self.text, self.sender)
        if not isinstance(self.options, Mapping):
            raise ValidationError("options", "must be a mapping of send options")
        object.__setattr__(
            self,
            "options",
            MappingProxyType(check_options(self.options, [o.name for o in CAMPAIGN_OPTIONS])),
        )
        for declared in CAMPAIGN_OPTIONS:
            name = declared.name
            object.__setattr__(self, name, declared.check(getattr(self, name), self))
        if self.name is not None:
            check_name(self.name)
        check_region(self.default_region, "default_region")
        if self.clock is not None and not callable(self.clock):
            raise ValidationError("clock", "must be a function returning an aware datetime")
        if self.journal is not None:
            object.__setattr__(self, "journal", as_file_path(self.journal, "journal"))
        if self.created is None:
            created = self.clock() if self.clock is not None else datetime.now(UTC)
            if not isinstance(created, datetime) or created.utcoffset() is None:
                raise ValidationError("clock", "must return an aware datetime", value=created)
            object.__setattr__(self, "created", created)
        elif not isinstance(self.created, datetime) or self.created.utcoffset() is None:
            raise ValidationError("created", "must be an aware datetime", value=self.created)
        for declared in CAMPAIGN_OPTIONS:  # the account's defaults, read now: a wrong one
            self.applied(declared.name)  # is refused here
        if self.holdout is not None:
            if not isinstance(self.holdout, Holdout):
                raise ValidationError("holdout", "must be a Holdout", value=self.holdout)
            object.__setattr__(self, "holdout", self.holdout.seeded(self.identity))

    def __hash__(self) -> int:
        options = tuple(sorted(self.options.items()))
        return hash((self.text, self.sender, options, self.name, self.default_region,
                     self.clock, self.journal, self.created, self.holdout,
                     *(getattr(self, o.name) for o in CAMPAIGN_OPTIONS)))  # fmt: skip

    @classmethod
    def of(cls, text: str, sender: str, **given: Unpack[SpecKeywords]) -> CampaignSpec:
        """The spec a front end is made with: ``given`` holds the spec's fields (``name``,
        ``default_region``, ``clock``, ``journal``, ``holdout``, the campaign options
        :data:`CAMPAIGN_OPTIONS`; those not given keep the field's default) and the send
        endpoint's options, told apart here (a name that is neither is refused as an unknown
        send option)."""
        options: dict[str, Any] = dict(given)
        fields = {
            f.name: options.pop(f.name)
            for f in dataclasses.fields(cls)
            if f.name in options and f.name not in ("options", "created")
        }
        return cls(text, sender, options, **fields)

    def journaled_options(self) -> dict[str, Any]:
        """The campaign options as the journal records them (each option's JSON form of
        the value it applies)."""
        return {o.name: o.journaled(self) for o in CAMPAIGN_OPTIONS}

    def replace(self, **changes: Any) -> CampaignSpec:
        """This spec with ``changes`` (field names), checked again; a derived name follows
        (the creation time is kept unless ``created`` is changed)."""
        return dataclasses.replace(self, **changes)

    @property
    def identity(self) -> str:
        """The campaign's name: the one given, else ``campaign-<created>-<hash>`` of when the
        spec was made and of its text, sender and options (see
        :func:`~smskit.campaigns.planning.plan.default_name`: the same content created another day
        is a new campaign; name it to make a re-run continue the same one)."""
        if self.name is not None:
            return self.name
        assert self.created is not None  # set by __post_init__
        return default_name(self.text, self.sender, self.options, self.created)

    @property
    def cap(self) -> FrequencyCap | None:
        """The frequency cap preflight applies: the campaign's own, else (not given) the
        account's default for a marketing campaign; None for a transactional one."""
        cap = self.applied("frequency_cap")
        assert cap is None or isinstance(cap, FrequencyCap)
        return cap

    def applied(self, name: str) -> Any:
        """The value of the campaign option ``name`` that applies: the spec's, else (not
        given) its account default (:attr:`CampaignOption.account_default`)."""
        declared = next(o for o in CAMPAIGN_OPTIONS if o.name == name)
        value = getattr(self, name)
        if value is ACCOUNT_DEFAULT and declared.account_default is not None:
            return declared.account_default(self)
        return value

    @property
    def settings(self) -> PreflightSettings:
        """What preflight checks the campaign against."""
        options = self.options
        return PreflightSettings(
            text=self.text,
            sender=self.sender,
            default_region=self.default_region,
            purpose=options.get("purpose"),
            with_replies=options.get("with_replies"),
            send_at=options.get("send_at"),
            auto_optimize_text=options.get("auto_optimize_text"),
            type=options.get("type"),
            include_opted_out=self.include_opted_out,
            holdout=self.holdout,
            frequency_cap=self.cap,
        )

    @property
    def header(self) -> dict[str, Any]:
        """What every chunk sends besides its recipients (``name``, ``text``, ``sender``,
        ``options``): the journal's header, from which the campaign id is derived."""
        header = {
            "name": self.identity,
            "text": self.text,
            "sender": self.sender,
            "options": dict(self.options),
        }
        if self.holdout is not None:  # who is not sent is part of what the campaign is
            header["holdout"] = self.holdout.record()
        return header

    @property
    def content(self) -> dict[str, Any]:
        """What makes two sends the same send besides their recipients (the repeat guard's):
        the header with the name as given (an unnamed campaign's name is its creation time)
        and the default region and opt-out choice."""
        return {
            **self.header, "name": self.name, "default_region": self.default_region,
            "include_opted_out": self.include_opted_out,
        }  # fmt: skip

    def journal_path(self, journal: str | Path | None = None) -> Path:
        """``journal``, else the spec's, else ``<campaigns dir>/<identity>.journal.sqlite``
        (the per-user data directory: on Linux ``~/.local/share/smskit/campaigns/``, moved
        by ``XDG_DATA_HOME``)."""
        if journal is not None:
            return as_file_path(journal, "journal")
        if self.journal is not None:
            return Path(self.journal)
        return campaigns_dir() / f"{self.identity}{JOURNAL_SUFFIX}"

    def instant(self, now: datetime | None = None) -> datetime:
        """``now``, else the spec's clock, else the current time: when preflight checks the
        hours (an aware datetime; a naive one is refused)."""
        return evaluation_instant(now, self.clock)

    def arguments(self) -> dict[str, Any]:
        """The keyword arguments a campaign front end is made with (options spread)."""
        return {
            "text": self.text,
            "sender": self.sender,
            "name": self.name,
            "default_region": self.default_region,
            "clock": self.clock,
            "journal": self.journal,
            "holdout": self.holdout,
            **{o.name: getattr(self, o.name) for o in CAMPAIGN_OPTIONS},
            **self.options,
        }

    def shown_text(self, width: int = 40) -> str:
        """The text cut to ``width`` characters for a repr."""
        return self.text if len(self.text) <= width else self.text[: width - 1] + "…"


# Every campaign option, as the spec declares it (in field order), name and default filled in.
CAMPAIGN_OPTIONS: Final[tuple[CampaignOption, ...]] = tuple(
    dataclasses.replace(f.metadata[_OPTION], name=f.name, default=f.default)
    for f in dataclasses.fields(CampaignSpec)
    if _OPTION in f.metadata
)


class CampaignOptions(TypedDict, total=False):
    """The keyword options every campaign front end takes (``**options``), typed for users
    and mypy: the send endpoint's options, then the campaign options, each with its field's
    type in :class:`CampaignSpec` (a test checks these names and types against
    :data:`CAMPAIGN_OPTIONS` and the send options)."""

    type: str | None
    send_at: str | datetime | None
    purpose: str | None
    with_replies: bool | None
    auto_optimize_text: bool | None
    auto_remove_blacklisted_numbers: bool | None
    include_opted_out: bool
    repeat_window: timedelta | None
    frequency_cap: FrequencyCap | str | object | None


class SpecKeywords(CampaignOptions, total=False):
    """What :meth:`CampaignSpec.of` takes besides the text and sender: the campaign options
    and the spec's own fields a front end passes on (their defaults are the spec's)."""

    name: str | None
    default_region: str | None
    clock: Callable[[], datetime] | None
    journal: str | Path | None
    holdout: Holdout | None
