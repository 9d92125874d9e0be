"""The sandbox gateway as plain Python: one method per endpoint, plus the control methods.

The HTTP layer (``_app``) only moves JSON in and out of these methods; the ``Sandbox``
object delegates its control methods here too, so the Python and HTTP control surfaces
cannot drift apart.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from smskit.errors import ValidationError
from smskit.rules import spec as _spec
from smskit.rules.choices import checked_choice
from smskit.rules.phonecheck import region_of
from smskit.rules.ranges import checked_number
from smskit.sandbox import _domain
from smskit.sandbox._callbacks import Deliveries
from smskit.sandbox._casting import PHONE_RULE, normalize_phone
from smskit.sandbox._clock import Clock
from smskit.sandbox._database import derive_id
from smskit.sandbox._faults import Faults
from smskit.sandbox._followups import FollowUps
from smskit.sandbox._player import Player
from smskit.sandbox._prices import CURRENCY, to_eur
from smskit.sandbox._reports import DeliveryModel, checked_model
from smskit.sandbox._request_ids import DuplicateAnswer, check_shape
from smskit.sandbox._store import Store

_AMOUNT = (int, float)
# Each draft's fields, in the order its answer lists them, and their types.
SMS_DRAFT_FIELDS: dict[str, type | tuple[type, ...]] = {
    "ticket_number": str,
    "number_of_contacts": int,
    "number_of_sms_needed": int,
    "residual_credit": _AMOUNT,
    "total_cost": _AMOUNT,
    "status": str,
    "message": str,
    "code": int,
}
VOICE_DRAFT_FIELDS: dict[str, type | tuple[type, ...]] = {
    "ticket_number": str,
    "status": str,
    "code": int,
    "message": str,
    "number_of_contacts": int,
    "residual_credit": _AMOUNT,
    "total_cost": _AMOUNT,
    "estimated_duration": int,
}


class Gateway(FollowUps):
    """Endpoints and control of one sandbox account (the clock, callbacks and replies: the
    ``FollowUps`` part, in ``_followups``)."""

    def __init__(
        self,
        store: Store,
        clock: Clock,
        *,
        seed: int,
        hlr_distribution: Any = None,
        delivery_model: DeliveryModel | None = None,
        duplicate_answer: DuplicateAnswer = "spec",
    ):
        self.store = store
        self.clock = clock
        self.seed = seed
        self.hlr_distribution = hlr_distribution
        self._duplicate_answer: DuplicateAnswer = check_shape(duplicate_answer)
        self.callback_queue = Deliveries(store.replies.mark_delivery)
        if delivery_model is not None:
            checked_model("delivery_model", delivery_model)
        self.player = Player(self.callback_queue, delivery_model)
        self.request_faults = Faults()  # applied to the HTTP routes by the app's middleware
        urls = self.callback_urls()
        if urls["delivery_report"] is not None or urls["stop"] is not None:
            self.player.skip(store.sends.sent(clock.timestamp()))  # a file's sends were played

    # --- endpoints -------------------------------------------------------------------------

    def send(self, payload: Any) -> dict[str, Any]:
        """POST /v1/public/sms-campaign/send (a request_id used in the last 24 h: refused)."""
        now = self.clock.now()
        request = _domain.parse_send(payload, now)
        messages, dropped = _domain.prepare_send(request)
        answer = self.store.sends.send(
            request, messages, dropped, now.timestamp(), self._duplicate_answer
        )
        self.play_callbacks()
        return answer

    def set_duplicate_answer(self, shape: DuplicateAnswer) -> None:
        """How a repeated request_id is refused (both 400, nothing sent or charged):
        ``"spec"``, the spec's validation error naming ``request_id`` (the default), or
        ``"legacy"``, the vendor's older ``{code: 120, message: "A SMS with the same
        request_id has already been sent"}``."""
        self._duplicate_answer = check_shape(shape)

    def duplicate_answer(self) -> DuplicateAnswer:
        """The shape a repeated request_id is refused in (see :meth:`set_duplicate_answer`)."""
        return self._duplicate_answer

    def contact_create(self, payload: Any) -> dict[str, Any]:
        """POST /v1/public/contact/create."""
        request = _domain.parse_contact_create(payload)
        return {"items": self.store.contacts.create(request, self.clock.timestamp())}

    def contact_delete(self, payload: Any) -> None:
        """DELETE /v1/public/contact/delete."""
        self.store.contacts.delete(_domain.parse_contact_delete(payload))

    def contact_list_empty(self, payload: Any) -> dict[str, Any]:
        """POST /v1/public/contact-list/empty."""
        name = _domain.parse_list_empty(payload)
        return {
            "list_name": name,
            "number_of_contacts_removed": self.store.contacts.empty_list(name),
        }

    def hlr_request(self, payload: Any) -> list[dict[str, Any]]:
        """POST /v1/public/contact/hlr-request: deterministic results, charged per priced number."""
        from smskit.sandbox import _hlr

        request = _domain.parse_hlr(payload)
        countries = [
            region_of(n) if (n := normalize_phone(raw)) else None for raw in request.phone_numbers
        ]
        self.store.account.charge_hlr(
            countries, self.clock.timestamp(), simulation=request.simulation_mode
        )
        return _hlr.lookup_many(list(request.phone_numbers), **self._hlr_options())

    def check_balance(self, query: Mapping[str, Any]) -> dict[str, Any]:
        """GET /v1/public/wallet/check-balance, in the shapes the vendor documents.

        No product: ``{amount, unit}`` in the account's currency. A product and a country:
        ``amount`` counted in that product's credits there, ``unit`` the product (0 where
        the product is not served). ``with_details``: ``wallet_packs`` in the same unit.
        """
        request = _domain.parse_balance_query(query)
        now = self.clock.timestamp()
        packs = self.store.account.wallet_packs(now)
        total = sum(pack.credit for pack in packs)
        if request.country_code is not None and request.product_name is not None:
            price = self.store.account.prices().get((request.country_code, request.product_name))
            unit: str = request.product_name
            amount: float = total // price if price else 0

            def in_unit(micros: int) -> float:
                return micros // price if price else 0
        else:
            unit, amount = CURRENCY, to_eur(total)

            def in_unit(micros: int) -> float:
                return to_eur(micros)

        result: dict[str, Any] = {"amount": amount, "unit": unit}
        if request.with_details:
            result["wallet_packs"] = [
                {"id": p.id, "credit": in_unit(p.credit), "expiration_date": p.expiration_date}
                for p in packs
            ]
        return result

    def check_credits(self, country_codes: Sequence[Any]) -> dict[str, dict[str, int]]:
        """GET /v1/public/wallet/check-credits: every served country, or those asked for."""
        wanted = _domain.parse_country_codes(country_codes)
        served = self.store.account.countries()
        countries = served if wanted is None else [c for c in wanted if c in served]
        balance = self.store.account.balance_micros(self.clock.timestamp())
        return {country: self.store.account.credits(balance, country) for country in countries}

    def sms_draft(self) -> dict[str, Any]:
        """GET /v1/public/sms-campaign/draft."""
        return self._draft("sms")

    def voice_draft(self) -> dict[str, Any]:
        """GET /v1/public/voice-campaign/draft."""
        return self._draft("voice")

    def credit_transfer_token(self, payload: Any) -> dict[str, str]:
        """POST /v1/public/subaccount/credit-transfer/token."""
        email = _domain.parse_token(payload)
        return {"token": self.store.account.new_token(email, self.clock.timestamp())}

    # --- drafts ----------------------------------------------------------------------------

    def _default_draft(self, kind: str) -> dict[str, Any]:
        """The draft ``kind`` answers until set_drafts: its fields in its table's order."""
        contacts, product = (250, "sms_premium") if kind == "sms" else (40, "vocal_sms")
        values = {
            "ticket_number": derive_id(self.seed, f"draft-{kind}", 1),
            "status": "validated",
            "code": 0,
            "message": "",
            "number_of_contacts": contacts,
            "number_of_sms_needed": contacts,
            "residual_credit": self.balance(),
            "total_cost": to_eur(contacts * self.store.account.prices().get(("FR", product), 0)),
            "estimated_duration": 45,
        }
        fields = SMS_DRAFT_FIELDS if kind == "sms" else VOICE_DRAFT_FIELDS
        return {name: values[name] for name in fields}

    def _draft(self, kind: str) -> dict[str, Any]:
        overrides = (self.store.get_meta("drafts") or {}).get(kind, {})
        return {**self._default_draft(kind), **overrides}

    def set_drafts(
        self, sms: Mapping[str, Any] | None = None, voice: Mapping[str, Any] | None = None
    ) -> None:
        """Set fields of the SMS and/or voice draft the draft endpoints return."""
        drafts = dict(self.store.get_meta("drafts") or {})
        for kind, given, allowed in (
            ("sms", sms, SMS_DRAFT_FIELDS),
            ("voice", voice, VOICE_DRAFT_FIELDS),
        ):
            if given is None:
                continue
            if not isinstance(given, Mapping):
                raise ValidationError(kind, "must be an object of draft fields", value=given)
            for name, value in given.items():
                if name not in allowed:
                    raise ValidationError(
                        f"{kind}.{name}", f"unknown draft field; use {', '.join(allowed)}"
                    )
                if isinstance(value, bool) or not isinstance(value, allowed[name]):
                    raise ValidationError(f"{kind}.{name}", "wrong type", value=value)
                if allowed[name] == _AMOUNT:  # EUR: finite (NaN or inf is no JSON answer)
                    checked_number(f"{kind}.{name}", value, unit=" of EUR")
            drafts[kind] = {**drafts.get(kind, {}), **given}
        self.store.set_meta("drafts", drafts)

    # --- wallet control --------------------------------------------------------------------

    def set_balance(self, amount: float) -> None:
        """Set the balance in EUR: every wallet pack replaced by one valid 365 days."""
        amount = checked_number("amount", amount, unit=" of EUR")
        self.store.account.set_balance(amount, self.clock.timestamp())

    def balance(self) -> float:
        """Current balance in EUR."""
        return to_eur(self.store.account.balance_micros(self.clock.timestamp()))

    def add_wallet_pack(self, amount: float, expires_in_days: float) -> str:
        """Add a pack of ``amount`` EUR expiring ``expires_in_days`` from now; returns its id."""
        amount = checked_number("amount", amount, above=True)
        expires_in_days = checked_number("expires_in_days", expires_in_days, above=True)
        now = self.clock.timestamp()
        return self.store.account.add_pack(amount, now + expires_in_days * 86_400.0, now)

    def wallet_packs(self) -> list[dict[str, Any]]:
        """Packs with credit left (EUR), the first to expire (Paris time) first: id, credit,
        expiration_date."""
        return [
            {"id": p.id, "credit": to_eur(p.credit), "expiration_date": p.expiration_date}
            for p in self.store.account.wallet_packs(self.clock.timestamp())
        ]

    def set_price(self, country_code: str, product_name: str, price: float) -> None:
        """Set a unit price in EUR (``product_name``: sms_premium, sms_low_cost, vocal_sms, hlr);
        a new country becomes served."""
        country = str(country_code).strip().upper()
        if not re.fullmatch(r"[A-Z]{2}", country):
            raise ValidationError("country_code", "must be 2 letters", value=country_code)
        checked_choice("product_name", product_name, _spec.PRODUCTS)
        price = checked_number("price", price, above=True, unit=" of EUR")
        self.store.account.set_price(country, product_name, price)

    def prices(self) -> list[dict[str, Any]]:
        """Unit prices: one row per country and product (country_code, product_name, price)."""
        return [
            {"country_code": c, "product_name": p, "price": to_eur(m)}
            for (c, p), m in sorted(self.store.account.prices().items())
        ]

    # --- contacts, sends, tokens control ---------------------------------------------------

    def sent(self) -> list[dict[str, Any]]:
        """One row per accepted recipient per send (scheduled ones until due, then sent)."""
        rows = self.store.sends.sent(self.clock.timestamp())
        self.play_callbacks(rows)
        return rows

    def dropped(self) -> list[dict[str, Any]]:
        """Every recipient a send ignored (spec convention 3): ticket, position, number, why."""
        return self.store.sends.dropped()

    def contacts(self) -> list[dict[str, Any]]:
        """Every contact with its lists and tags."""
        return self.store.contacts.records()

    def lists(self) -> dict[str, int]:
        """Contact lists and their sizes."""
        return self.store.contacts.lists()

    def blacklist(self) -> list[str]:
        """Blacklisted numbers."""
        return self.store.contacts.blacklist()

    def add_to_blacklist(self, phone_numbers: Sequence[str] | str) -> list[str]:
        """Blacklist numbers (international format); returns them normalised."""
        items = [phone_numbers] if isinstance(phone_numbers, str) else list(phone_numbers)
        numbers = []
        for index, item in enumerate(items):
            number = normalize_phone(item)
            if number is None:
                raise ValidationError("phone_numbers", PHONE_RULE, position=index, value=item)
            numbers.append(number)
        self.store.contacts.add_to_blacklist(numbers, self.clock.timestamp(), "control")
        return numbers

    def tokens(self) -> list[dict[str, Any]]:
        """Credit-transfer tokens issued, with their sub-account e-mail."""
        return self.store.account.tokens()

    # --- whole account ---------------------------------------------------------------------

    def reset(self) -> None:
        """Fresh account: default balance, prices and drafts; no contacts, sends, tokens,
        faults."""
        self.request_faults.clear_faults()
        self.callback_queue.clear()
        self.player.clear()
        self.clock.reset()
        self.store.reset(self.clock.timestamp())

    def state(self) -> dict[str, Any]:
        """A summary for humans and tests."""
        return {
            "balance": self.balance(),
            "unit": CURRENCY,
            "now": self.now(),
            "callback_url": self.callback_url(),
            "callback_urls": self.callback_urls(),
            "lists": self.lists(),
            "blacklist_size": len(self.blacklist()),
            "pending_deliveries": self.callback_queue.pending(),
            "seed": self.seed,
            "duplicate_answer": self._duplicate_answer,
        }


__all__ = ["Gateway"]
