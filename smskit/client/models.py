"""Typed results for every gateway response; each keeps the raw JSON in ``.raw``.

Each ``from_json`` reads every field by name with the readers of :mod:`smskit.client.readers`,
as lenient as the gateway (numbers sent as strings are cast, unknown fields are kept in
``.raw``, the spec's ``inconcusive`` becomes ``inconclusive``) but a body of the wrong shape
raises :class:`ResponseShapeError`, which the client reports as an :class:`~smskit.errors.APIError`.
Collections have ``.to_frame()`` (pandas is imported only then, in
:mod:`smskit.client.frame_builders`) and ``.to_html()`` (:mod:`smskit.client.reprs`); neither module
imports this one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, Self, overload

from smskit._repr import tolerant_repr
from smskit.client import reprs
from smskit.client.readers import (
    as_object,
    read_bool,
    read_datetime,
    read_float,
    read_int,
    read_str,
)
from smskit.errors import ResponseShapeError
from smskit.rules.answers import hlr_known
from smskit.rules.spec import (
    CONTACT_ITEM_STATUS,
    CREDIT_PRODUCTS,
    HLR_STATUS,
    LINE_STATUS_ALIASES,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ContactItem",
    "ContactItems",
    "CountryCredits",
    "Credits",
    "Draft",
    "HLRResult",
    "HLRResults",
    "ListEmptied",
    "NetworkDetails",
    "SendResult",
    "SmsDraft",
    "TransferToken",
    "VoiceDraft",
]


# -- records ---------------------------------------------------------------------------------

# The reader of a field by its declared type (the annotations are text: PEP 563).
_READERS: dict[Any, Callable[[Mapping[str, Any], str], Any]] = {
    "str | None": read_str,
    "int | None": read_int,
    "float | None": read_float,
}


def _read_fields(cls: type[Record], body: Mapping[str, Any], *, skip: str = "") -> dict[str, Any]:
    """Every field of ``cls`` but ``raw`` (and ``skip``) read from ``body`` by its type."""
    return {
        f.name: _READERS[f.type](body, f.name) for f in fields(cls) if f.name not in ("raw", skip)
    }


@dataclass(frozen=True, slots=True)
class Record:
    """Base of single records: the raw body and notebook display."""

    _title: ClassVar[str]

    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False, kw_only=True)

    def _rows(self) -> list[tuple[str, Any]]:
        return [
            (f.name, reprs.shown_attribute(self, f.name)) for f in fields(self) if f.name != "raw"
        ]

    def to_html(self) -> str:
        """This record as a small HTML table (what Jupyter shows)."""
        return reprs.record_html(self._title, self._rows())

    def _repr_html_(self) -> str:
        return self.to_html()


@dataclass(frozen=True, slots=True)
class SendResult(Record):
    """What the gateway answered to a send (``sms_ticket``, counts, cost).

    ``duplicate=True`` means a retry of this request was refused as a duplicate of an
    earlier attempt the gateway had accepted (whose answer was lost): the SMS went out once.
    The gateway's refusal carries no figures, so counts and cost are None.
    ``submitted`` is how many recipients the request carried; the gateway ignores the ones
    it cannot use (spec convention 3), and ``dropped`` says how many that was. A send that
    kept none is never a SendResult: the client raises :class:`smskit.NoRecipientError`.
    """

    _title: ClassVar[str] = "SMS send result"

    sms_ticket: str | None = None
    number_of_contacts: int | None = None
    number_of_sms_needed: int | None = None
    total_cost: float | None = None
    residual_credit: float | None = None
    request_id: str | None = None
    duplicate: bool = False
    submitted: int | None = field(default=None, repr=False)
    # The answer's HTTP Date: the gateway's clock (whole seconds), None when not sent.
    gateway_date: datetime | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_json(
        cls,
        data: Any,
        *,
        request_id: str | None = None,
        submitted: int | None = None,
        duplicate: bool = False,
    ) -> SendResult:
        """Parse a 201 response body of ``sms-campaign/send`` (``submitted``: recipients sent).

        ``request_id`` and ``duplicate``, when the client knows them, win over the body's.
        """
        body = as_object(data, cls._title)
        return cls(
            sms_ticket=read_str(body, "sms_ticket"),
            number_of_contacts=read_int(body, "number_of_contacts"),
            number_of_sms_needed=read_int(body, "number_of_sms_needed"),
            total_cost=read_float(body, "total_cost"),
            residual_credit=read_float(body, "residual_credit"),
            request_id=request_id or read_str(body, "request_id"),
            duplicate=duplicate or bool(read_bool(body, "duplicate")),
            submitted=submitted,
            raw=dict(body),
        )

    @property
    def dropped(self) -> int | None:
        """Recipients submitted but not kept by the gateway (None when a count is unknown)."""
        if self.submitted is None or self.number_of_contacts is None:
            return None
        return max(self.submitted - self.number_of_contacts, 0)

    @classmethod
    def already_accepted(cls, data: Any, *, request_id: str | None) -> SendResult:
        """An earlier request of this ``request_id`` went through: ``data`` is the duplicate
        error's body (a ticket at most, if the gateway gives one)."""
        body = data if isinstance(data, Mapping) else {}
        return cls.from_json(body, request_id=request_id, duplicate=True)

    def to_frame(self) -> pd.DataFrame:
        """One row: ticket, counts, cost, request_id, duplicate."""
        from smskit.client.frame_builders import send_results_table

        return send_results_table([self])

    def to_html(self) -> str:
        """Contacts, SMS and cost of the send (or why it is a duplicate) as HTML."""
        return reprs.send_result_html(self)


@dataclass(frozen=True, slots=True)
class Draft(Record):
    """Base of :class:`SmsDraft` and :class:`VoiceDraft`: the fields both drafts have."""

    ticket_number: str | None = None
    status: str | None = None
    code: int | None = None
    message: str | None = None
    number_of_contacts: int | None = None
    total_cost: float | None = None
    residual_credit: float | None = None

    @classmethod
    def from_json(cls, data: Any) -> Self:
        """Parse a draft body: the fields both drafts have, and this draft's own."""
        body = as_object(data, cls._title)
        return cls(**_read_fields(cls, body), raw=dict(body))

    def to_frame(self) -> pd.DataFrame:
        """One row (see :func:`smskit.frames.drafts_frame` for several drafts)."""
        from smskit.client.frame_builders import drafts_table

        return drafts_table(self)

    def to_html(self) -> str:
        """Contacts, cost and cost per contact, then every field, as HTML."""
        return reprs.draft_html(self, self._title)


@dataclass(frozen=True, slots=True)
class SmsDraft(Draft):
    """The SMS campaign draft (``sms-campaign/draft``)."""

    _title: ClassVar[str] = "SMS campaign draft"

    number_of_sms_needed: int | None = None


@dataclass(frozen=True, slots=True)
class VoiceDraft(Draft):
    """The voice campaign draft (``voice-campaign/draft``); the spec gives no duration unit."""

    _title: ClassVar[str] = "Voice campaign draft"

    estimated_duration: int | None = None


@dataclass(frozen=True, slots=True)
class TransferToken(Record):
    """A credit-transfer token for one sub-account; repr and HTML show only its first characters."""

    _title: ClassVar[str] = "Credit-transfer token"

    token: str = field(repr=False)
    email_to: str | None = None

    @classmethod
    def from_json(cls, data: Any, *, email_to: str | None = None) -> TransferToken:
        """Parse a ``subaccount/credit-transfer/token`` body."""
        body = as_object(data, cls._title)
        token = read_str(body, "token")
        if not token:
            raise ResponseShapeError("token: missing from the response")
        return cls(token=token, email_to=email_to or read_str(body, "email_to"), raw=dict(body))

    @property
    def masked(self) -> str:
        """The token's first four characters and an ellipsis: enough to tell tokens apart."""
        return self.token[:4] + "…"

    def __repr__(self) -> str:
        return f"TransferToken(token={self.masked!r}, email_to={self.email_to!r})"

    def _rows(self) -> list[tuple[str, Any]]:
        return [("token", self.masked), ("email_to", reprs.shown_attribute(self, "email_to"))]


@dataclass(frozen=True, slots=True)
class ListEmptied(Record):
    """Answer to ``contact-list/empty`` (the spec does not show it; fields may be ``None``)."""

    _title: ClassVar[str] = "Contact list emptied"

    list_name: str | None = None
    number_of_contacts_removed: int | None = None

    @classmethod
    def from_json(cls, data: Any, *, list_name: str | None = None) -> ListEmptied:
        """Parse the (possibly empty) body; the list name defaults to the one requested."""
        body = {} if data is None else as_object(data, cls._title)
        return cls(
            list_name=read_str(body, "list_name") or list_name,
            number_of_contacts_removed=read_int(body, "number_of_contacts_removed"),
            raw=dict(body),
        )


# -- contact items ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ContactItem(Record):
    """One contact of a ``contact/create`` answer; ``status`` is added, updated or skipped."""

    _title: ClassVar[str] = "Contact"

    phone_number: str | None = None
    status: str | None = None
    email: str | None = None

    @classmethod
    def from_json(cls, data: Any) -> ContactItem:
        """Parse one item of the ``items`` array."""
        body = as_object(data, cls._title)
        return cls(**_read_fields(cls, body), raw=dict(body))


class _Items(Sequence[Any]):
    """A read-only sequence of parsed items with the raw body kept."""

    __slots__ = ("_items", "raw")

    def __init__(self, items: Sequence[Any], raw: Any = None) -> None:
        self._items = tuple(items)
        self.raw = raw

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Any]: ...
    def __getitem__(self, index: int | slice) -> Any:
        return self._items[index]

    def __len__(self) -> int:
        return len(self._items)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, type(self)) and other._items == self._items

    __hash__ = None  # type: ignore[assignment]

    def to_html(self) -> str:
        raise NotImplementedError

    def _repr_html_(self) -> str:
        return self.to_html()

    def _tally(self, spec_values: Sequence[str]) -> str:
        return reprs.tally_text((item.status for item in self._items), spec_values)


class ContactItems(_Items):
    """The items of a ``contact/create`` answer, in request order."""

    __slots__ = ()

    def __iter__(self) -> Iterator[ContactItem]:
        return iter(self._items)

    @classmethod
    def from_json(cls, data: Any) -> ContactItems:
        """Parse ``{"items": [...]}``."""
        items = as_object(data, "contact/create").get("items")
        if not isinstance(items, list):
            raise ResponseShapeError("items: expected a JSON array")
        return cls([ContactItem.from_json(item) for item in items], raw=data)

    @tolerant_repr
    def __repr__(self) -> str:
        tally = self._tally(CONTACT_ITEM_STATUS)
        return f"<ContactItems {len(self)} contacts{': ' + tally if tally else ''}>"

    def to_frame(self) -> pd.DataFrame:
        """One row per contact; ``status`` categorical (added, updated, skipped)."""
        from smskit.client.frame_builders import contact_items_table

        return contact_items_table(self)

    def to_html(self) -> str:
        """Summary and the first rows as HTML."""
        tally = self._tally(CONTACT_ITEM_STATUS)
        columns = ("phone_number", "email", "status")
        return reprs.table_html("Contacts", f"{len(self)} contacts: {tally}", columns, self._items)


# -- credits ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CountryCredits(Record):
    """Credits left in one country, per product (how many units the balance pays for)."""

    _title: ClassVar[str] = "Credits"
    PRODUCTS: ClassVar[tuple[str, ...]] = CREDIT_PRODUCTS

    country_code: str
    premium_sms: int | None = None
    vocal_sms: int | None = None
    low_cost_sms: int | None = None
    hlr: int | None = None

    @classmethod
    def from_json(cls, country_code: str, data: Any) -> CountryCredits:
        """Parse the object the credits answer holds under ``country_code``."""
        body = as_object(data, cls._title)
        read = _read_fields(cls, body, skip="country_code")
        return cls(country_code=country_code, **read, raw=dict(body))


class Credits(Mapping[str, CountryCredits]):
    """Credits per country (``wallet/check-credits``), keyed by 2-letter country code."""

    __slots__ = ("_by_country", "raw")

    def __init__(self, by_country: Mapping[str, CountryCredits], raw: Any = None) -> None:
        self._by_country = dict(by_country)
        self.raw = raw

    @classmethod
    def from_json(cls, data: Any) -> Credits:
        """Parse ``{"FR": {"premium_sms": ..., ...}, ...}``."""
        body = as_object(data, "credits")
        parsed = {code: CountryCredits.from_json(code, value) for code, value in body.items()}
        return cls(parsed, raw=data)

    def __getitem__(self, country_code: str) -> CountryCredits:
        return self._by_country[country_code]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_country)

    def __len__(self) -> int:
        return len(self._by_country)

    @tolerant_repr
    def __repr__(self) -> str:
        return f"<Credits {len(self)} countries: {', '.join(self._by_country)}>"

    def to_frame(self) -> pd.DataFrame:
        """Tidy: one row per (country_code, product) with the number of ``credits``."""
        from smskit.client.frame_builders import credits_table

        return credits_table(self.values())

    def to_html(self) -> str:
        """One row per country (code and name), one column per product, as HTML."""
        return reprs.credits_html(self)

    def _repr_html_(self) -> str:
        return self.to_html()


# -- HLR -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Network(Record):
    """Network fields an HLR result has, for the line and for its original network."""

    network_name: str | None = None
    mcc: int | None = None
    mnc: int | None = None
    country_name: str | None = None
    country_code_iso3: str | None = None
    country_code: str | None = None
    area: str | None = None
    country_prefix: str | None = None


def _network_fields(body: Mapping[str, Any]) -> dict[str, Any]:
    """The network fields of an HLR result or of its original network; the spec-typed
    placeholders of values that cannot be known (``""``, 0) read as None."""
    read = _read_fields(_Network, body)
    return {name: hlr_known(name, value) for name, value in read.items()}


@dataclass(frozen=True, slots=True)
class NetworkDetails(_Network):
    """The network a ported number came from (``original_network_details``)."""

    _title: ClassVar[str] = "Original network"

    @classmethod
    def from_json(cls, data: Any) -> NetworkDetails | None:
        """Parse the nested object; ``None`` when the number was not ported."""
        if data is None:
            return None
        body = as_object(data, cls._title)
        return cls(**_network_fields(body), raw=dict(body))


@dataclass(frozen=True, slots=True)
class HLRResult(_Network):
    """The line check of one number: validity, line status, type, network, porting."""

    _title: ClassVar[str] = "HLR result"

    phone_number: str | None = None
    status: str | None = None
    line_status: str | None = None
    phone_number_type: str | None = None
    is_ported: bool | None = None
    ported_date: datetime | None = None
    original_network_details: NetworkDetails | None = None

    @classmethod
    def from_json(cls, data: Any) -> HLRResult:
        """Parse one element of the ``hlr-request`` array."""
        body = as_object(data, cls._title)
        line_status = read_str(body, "line_status")
        return cls(
            **_network_fields(body),
            phone_number=read_str(body, "phone_number"),
            status=read_str(body, "status"),
            line_status=LINE_STATUS_ALIASES.get(line_status or "", line_status),
            phone_number_type=read_str(body, "phone_number_type"),
            is_ported=read_bool(body, "is_ported"),
            ported_date=read_datetime(body, "ported_date"),
            original_network_details=NetworkDetails.from_json(body.get("original_network_details")),
            raw=dict(body),
        )

    def __repr__(self) -> str:
        return (
            f"HLRResult({self.phone_number!r}, status={self.status!r}, "
            f"line_status={self.line_status!r}, phone_number_type={self.phone_number_type!r}, "
            f"network_name={self.network_name!r})"
        )


class HLRResults(_Items):
    """HLR answers in order: ``contact.hlr_request``'s, or :func:`smskit.bulk_hlr`'s (with
    ``extra``)."""

    __slots__ = ("extra",)

    def __init__(self, items: Any, raw: Any = None, *, extra: pd.DataFrame | None = None) -> None:
        super().__init__(items, raw)
        self.extra = extra

    def __iter__(self) -> Iterator[HLRResult]:
        return iter(self._items)

    @classmethod
    def from_json(cls, data: Any) -> HLRResults:
        """Parse the JSON array of results."""
        if not isinstance(data, list):
            kind = type(data).__name__
            raise ResponseShapeError(f"HLR results: expected a JSON array, got {kind}")
        return cls([HLRResult.from_json(item) for item in data], raw=data)

    @tolerant_repr
    def __repr__(self) -> str:
        tally = self._tally(HLR_STATUS)
        return f"<HLRResults {len(self)} numbers{': ' + tally if tally else ''}>"

    def to_frame(self) -> pd.DataFrame:
        """One row per number, every spec field; closed value sets are categoricals."""
        from smskit.client.frame_builders import hlr_table

        frame, extra = hlr_table(self), self.extra
        for name, column in [] if extra is None else extra.items():  # by position, input first
            frame.insert(0 if name == "input" else len(frame.columns), name, column.array)
        return frame

    def breakdown(self, by: str | Sequence[str] = "line_status") -> pd.DataFrame:
        """Count and share of numbers per value of ``by``, with a total row.

        See :func:`smskit.frames.breakdown` (``by``: status, line_status, phone_number_type,
        country, network, or a tuple of them).
        """
        from smskit.client.frame_builders import breakdown

        return breakdown(self, by)

    def porting(self) -> pd.DataFrame:
        """Share of numbers ported away, per original network (:func:`smskit.frames.porting`)."""
        from smskit.client.frame_builders import porting

        return porting(self)

    def reachability(self) -> pd.DataFrame:
        """Valid mobiles live or absent, per country (:func:`smskit.frames.reachability`)."""
        from smskit.client.frame_builders import reachability

        return reachability(self)

    def to_html(self) -> str:
        """Counts by status, line status and type, and the first rows, as HTML."""
        return reprs.hlr_results_html(self)
