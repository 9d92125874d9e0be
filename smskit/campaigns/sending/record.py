"""A campaign as journaled: :class:`CampaignRecord`, the one typed reading of a journal's
``meta`` table, and its one codec (:meth:`CampaignRecord.to_meta`,
:meth:`CampaignRecord.from_meta`).

The record holds what the campaign sent (name, text, sender, send options), the gateway
account it went through (:class:`JournaledGateway`, keyed by :func:`smskit._account.gateway_of`),
the plan's facts (campaign id, chunk size, recipients read and to send, where they came
from, the default region), its kind (``planned``: the whole plan written before the first
request, by :class:`smskit.Campaign`; ``streamed``: chunks staged in files and told to the
journal as they are sent, by :class:`smskit.dask.Campaign`) and, for an experiment's arm,
the experiment and arm. Nothing else reads the meta table by key.

On disk each field is one row of ``meta`` (key, JSON value), the keys journals have always
had, so every journal this smskit reads decodes; ``version`` is the record's own version
(absent in journals written before it: version 1). A value of the wrong type is refused
with a ValueError naming the key; a key a journal lacks is None (a minimal journal, an
older one), and each reader says what it needs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final, Literal

from smskit._account import Gateway, gateway_of

__all__ = ["RECORD_VERSION", "CampaignRecord", "JournaledGateway"]

RECORD_VERSION: Final = 1

Kind = Literal["planned", "streamed"]


@dataclass(frozen=True)
class JournaledGateway:
    """The gateway a campaign was sent through: its URL and login (never the key), and
    whether it was an embedded sandbox."""

    base_url: str
    api_login: str
    sandbox: bool = False

    @classmethod
    def of(cls, client: Any) -> JournaledGateway:
        """The gateway of a :class:`smskit.Client` or :class:`smskit.AsyncClient`."""
        return cls(str(client.base_url), str(client.api_login), bool(client.is_sandbox))

    @property
    def account(self) -> Gateway:
        """The account's key (:func:`smskit._account.gateway_of`): whose data this is."""
        return gateway_of(self.base_url, self.api_login)

    def to_json(self) -> dict[str, Any]:
        return {"base_url": self.base_url, "api_login": self.api_login, "sandbox": self.sandbox}

    @classmethod
    def from_json(cls, value: Any) -> JournaledGateway | None:
        """The gateway a journal records, None when it records none (no URL)."""
        if not isinstance(value, Mapping) or not value.get("base_url"):
            return None
        return cls(
            str(value["base_url"]), str(value.get("api_login") or ""), bool(value.get("sandbox"))
        )


@dataclass(frozen=True)
class CampaignRecord:
    """A campaign as its journal records it (frozen; see the module docstring)."""

    campaign_id: str
    content_id: str | None = None  # the send's content without its dated name (repeats)
    name: str | None = None
    text: str | None = None
    sender: str | None = None
    options: Mapping[str, Any] | None = None
    holdout: Mapping[str, Any] | None = None  # who is kept out of the send (size, seed ...)
    gateway: JournaledGateway | None = None
    include_opted_out: bool = False
    # The campaign options as applied (CampaignSpec.journaled_options): what was asked.
    campaign_options: Mapping[str, Any] | None = None
    default_region: str | None = None
    chunk_size: int | None = None
    recipients: int | None = None
    to_send: int | None = None
    source: str | None = None
    experiment: Mapping[str, Any] | None = None  # an arm's: the experiment, arm, seed ...
    parts: str | None = None  # a streamed campaign's staged files
    digests: tuple[str, ...] | None = None  # ... and their digests, in sending order
    created_at: float | None = None  # written by the journal
    format: int | None = None  # the journal file's format, written by the journal
    version: int = RECORD_VERSION

    def __post_init__(self) -> None:
        for key in ("options", "experiment", "holdout"):
            value = getattr(self, key)
            if value is not None:
                object.__setattr__(self, key, MappingProxyType(dict(value)))

    @property
    def experiment_name(self) -> str | None:
        """The experiment this campaign is an arm of (None for a campaign of its own)."""
        return None if self.experiment is None else str(self.experiment["name"])

    @property
    def arm(self) -> str | None:
        """The arm this campaign is of its experiment (None for a campaign of its own)."""
        return None if self.experiment is None else str(self.experiment["arm"])

    @property
    def kind(self) -> Kind:
        """``streamed`` for a Dask campaign's journal (chunks staged in files), else
        ``planned``."""
        return "streamed" if self.digests is not None else "planned"

    @property
    def send_options(self) -> Mapping[str, Any]:
        """The send options (empty when the journal records none)."""
        return self.options if self.options is not None else MappingProxyType({})

    def header(self) -> dict[str, Any]:
        """What the campaign id is derived from besides the recipients: name, text, sender,
        options and the holdout (:attr:`smskit.campaigns.planning.spec.CampaignSpec.header`)."""
        header: dict[str, Any] = {
            "name": self.name,
            "text": self.text,
            "sender": self.sender,
            "options": dict(self.send_options),
        }
        if self.holdout is not None:
            header["holdout"] = dict(self.holdout)
        return header

    def replace(self, **changes: Any) -> CampaignRecord:
        """This record with ``changes``."""
        return dataclasses.replace(self, **changes)

    # -- the codec ----------------------------------------------------------------------------

    def to_meta(self) -> dict[str, Any]:
        """The journal's ``meta`` rows (key -> JSON value); None fields are left out, and
        ``created_at`` and ``format`` are the journal's to write."""
        meta: dict[str, Any] = {"campaign_id": self.campaign_id, "version": self.version}
        for key in ("content_id", "name", "text", "sender", "default_region", "chunk_size",
                    "recipients", "to_send", "source", "parts"):  # fmt: skip
            value = getattr(self, key)
            if value is not None:
                meta[key] = value
        for key in ("options", "holdout", "campaign_options", "experiment"):
            mapping = getattr(self, key)
            if mapping is not None:
                meta[key] = dict(mapping)
        if self.gateway is not None:
            meta["gateway"] = self.gateway.to_json()
        meta["include_opted_out"] = self.include_opted_out
        if self.digests is not None:
            meta["digests"] = list(self.digests)
        return meta

    @classmethod
    def from_meta(cls, meta: Mapping[str, Any]) -> CampaignRecord:
        """The record a journal's ``meta`` holds; ValueError naming the key of a value of
        the wrong type (or a meta without a campaign id)."""
        campaign_id = meta.get("campaign_id")
        if not isinstance(campaign_id, str) or not campaign_id:
            raise ValueError(f"its meta 'campaign_id' is not a text ({campaign_id!r})")
        options = _mapping(meta, "options")
        experiment = _experiment(meta)
        holdout = _mapping(meta, "holdout")
        campaign_options = _mapping(meta, "campaign_options")
        digests = meta.get("digests")
        if digests is not None and not isinstance(digests, list):
            raise ValueError(f"its meta 'digests' is not a list ({digests!r})")
        return cls(
            campaign_id=campaign_id,
            content_id=_typed(meta, "content_id", str),
            name=_typed(meta, "name", str),
            text=_typed(meta, "text", str),
            sender=_typed(meta, "sender", str),
            options=options,
            holdout=holdout,
            gateway=JournaledGateway.from_json(meta.get("gateway")),
            include_opted_out=meta.get("include_opted_out") is True,
            campaign_options=campaign_options,
            default_region=_typed(meta, "default_region", str),
            chunk_size=_typed(meta, "chunk_size", int),
            recipients=_typed(meta, "recipients", int),
            to_send=_typed(meta, "to_send", int),
            source=_typed(meta, "source", str),
            experiment=experiment,
            parts=_typed(meta, "parts", str),
            digests=None if digests is None else tuple(str(d) for d in digests),
            created_at=_typed(meta, "created_at", float),
            format=_typed(meta, "format", int),
            version=_typed(meta, "version", int) or 1,
        )


def _typed(meta: Mapping[str, Any], key: str, kind: type) -> Any:
    """``meta[key]`` of type ``kind`` (an int is a float too), None when absent."""
    value = meta.get(key)
    if value is None:
        return None
    accepted = (int, float) if kind is float else (kind,)
    if isinstance(value, bool) or not isinstance(value, accepted):
        what = "text" if kind is str else "number"
        raise ValueError(f"its meta {key!r} is not a {what} ({value!r})")
    return float(value) if isinstance(value, int | float) and kind is float else value


def _mapping(meta: Mapping[str, Any], key: str) -> Mapping[str, Any] | None:
    """``meta[key]`` if a mapping, None when absent."""
    value = meta.get(key)
    if value is not None and not isinstance(value, Mapping):
        raise ValueError(f"its meta {key!r} is not a mapping ({value!r})")
    return value


def _experiment(meta: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """What an arm's journal records of its experiment (:class:`smskit.Experiment`: its
    name, the arm, the seed ...), or None."""
    value = _mapping(meta, "experiment")
    if value is None:
        return None
    for key in ("name", "arm"):
        if not isinstance(value.get(key), str):
            raise ValueError(f"its meta 'experiment' {key!r} is not a text ({value.get(key)!r})")
    return value
