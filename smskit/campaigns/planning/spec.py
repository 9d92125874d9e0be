"""What a campaign is, as a value: :class:`CampaignSpec`.

A spec is text, sender, send options, name, default region, clock and journal location,
checked once when it is made and never changed after: an edit is a new spec
(:meth:`CampaignSpec.replace`). Its identity (the name, given or derived from the text,
sender and options) names the journal. Three front ends hold one: :class:`smskit.Campaign`
(recipients in memory) and :class:`smskit.dask.Campaign` (recipients partitioned), thin
executors on :class:`~smskit.campaigns.executor.CampaignExecutor`, and the
:class:`smskit.Composer` widget, which edits the spec of the one campaign it holds.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import MappingProxyType
from typing import Any

from smskit._paths import campaigns_dir
from smskit.campaigns.planning.holdout import Holdout
from smskit.campaigns.planning.plan import (
    campaign_settings,
    check_name,
    check_options,
    check_text_and_sender,
    default_name,
)
from smskit.campaigns.planning.preflight import PreflightSettings, evaluation_instant
from smskit.campaigns.sending.journal_file import as_journal_path
from smskit.client.config import default_frequency_cap
from smskit.errors import ValidationError
from smskit.rules.caps import ACCOUNT_DEFAULT, FrequencyCap, frequency_cap
from smskit.rules.content import is_marketing
from smskit.rules.optouts import check_include_opted_out
from smskit.rules.region import DEFAULT_REGION, check_region

__all__ = ["CampaignSpec"]


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
    include_opted_out: bool = False  # transactional only: send to numbers that opted out
    holdout: Holdout | None = None  # seeded when the spec is made (the name's seed if none)
    repeat_window: timedelta | None = None  # the same send again within it is refused
    # "N/PERIOD", a FrequencyCap, None (no cap), or ACCOUNT_DEFAULT (SMSKIT_FREQUENCY_CAP)
    frequency_cap: FrequencyCap | str | object | None = ACCOUNT_DEFAULT

    def __post_init__(self) -> None:
        check_text_and_sender(self.text, self.sender)
        if self.repeat_window is not None and (
            not isinstance(self.repeat_window, timedelta) or self.repeat_window <= timedelta(0)
        ):
            raise ValidationError(
                "repeat_window", "must be a positive datetime.timedelta, or None",
                value=self.repeat_window,
            )  # fmt: skip
        if not isinstance(self.options, Mapping):
            raise ValidationError("options", "must be a mapping of send options")
        object.__setattr__(self, "options", MappingProxyType(check_options(self.options)))
        check_include_opted_out(self.include_opted_out, self.options.get("purpose"))
        if self.name is not None:
            check_name(self.name)
        check_region(self.default_region, "default_region")
        if self.clock is not None and not callable(self.clock):
            raise ValidationError("clock", "must be a function returning an aware datetime")
        if self.journal is not None:
            object.__setattr__(self, "journal", as_journal_path(self.journal))
        if self.created is None:
            created = self.clock() if self.clock is not None else datetime.now(UTC)
            if not isinstance(created, datetime) or created.utcoffset() is None:
                raise ValidationError("clock", "must return an aware datetime", value=created)
            object.__setattr__(self, "created", created)
        elif not isinstance(self.created, datetime) or self.created.utcoffset() is None:
            raise ValidationError("created", "must be an aware datetime", value=self.created)
        if self.frequency_cap is not ACCOUNT_DEFAULT:
            cap = frequency_cap(self.frequency_cap)
            if cap is not None and not is_marketing(self.options.get("purpose")):
                raise ValidationError(
                    "frequency_cap",
                    "only a marketing campaign is capped: a transactional send "
                    "(purpose 'alert') never is, and takes no cap",
                    value=str(cap),
                )
            object.__setattr__(self, "frequency_cap", cap)
        self.cap  # noqa: B018 - the account's default, read now: a wrong one is refused here
        if self.holdout is not None:
            if not isinstance(self.holdout, Holdout):
                raise ValidationError("holdout", "must be a Holdout", value=self.holdout)
            object.__setattr__(self, "holdout", self.holdout.seeded(self.identity))

    def __hash__(self) -> int:
        options = tuple(sorted(self.options.items()))
        return hash((self.text, self.sender, options, self.name, self.default_region,
                     self.clock, self.journal, self.created,
                     self.include_opted_out, self.holdout, self.repeat_window,
                     self.frequency_cap))  # fmt: skip

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
        if self.frequency_cap is ACCOUNT_DEFAULT:
            marketing = is_marketing(self.options.get("purpose"))
            return default_frequency_cap() if marketing else None
        assert self.frequency_cap is None or isinstance(self.frequency_cap, FrequencyCap)
        return self.frequency_cap

    @property
    def settings(self) -> PreflightSettings:
        """What preflight checks the campaign against."""
        settings = campaign_settings(self.text, self.sender, self.default_region, self.options)
        return dataclasses.replace(
            settings,
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
            return as_journal_path(journal)
        if self.journal is not None:
            return Path(self.journal)
        return campaigns_dir() / f"{self.identity}.journal.sqlite"

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
            "include_opted_out": self.include_opted_out,
            "holdout": self.holdout,
            "repeat_window": self.repeat_window,
            "frequency_cap": self.frequency_cap,
            **self.options,
        }

    def shown_text(self, width: int = 40) -> str:
        """The text cut to ``width`` characters for a repr."""
        return self.text if len(self.text) <= width else self.text[: width - 1] + "…"
