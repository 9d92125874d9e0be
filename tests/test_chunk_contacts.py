"""The campaign's chunk builder (columns -> Contact objects, posted as they are) against the
per-recipient path (THE reader's ``contact`` of each record): the same request bodies, byte
for byte, over random recipients of several countries with fields missing or present."""

from __future__ import annotations

import math
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import phonenumbers
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_differential import mobiles

import smskit
from smskit.client.core import SmsCampaign
from smskit.errors import ValidationError
from smskit.rules.canonical import canonical_bytes
from smskit.rules.contacts import ContactChunk, chunk_contacts
from smskit.rules.fields import DYNAMIC_FIELDS
from smskit.rules.recipients import Recipients, contact_rows
from smskit.sandbox import Sandbox

# Served by the sandbox account for premium SMS (so preflight plans every valid recipient).
REGIONS = ("FR", "BE", "DE", "GB", "ES", "IT", "CH", "PT", "NL", "SE")
TEXT = "Bonjour {first_name} {last_name}, {param1}{param2}{param3}{param4}{param5} STOP 36173"


POOLS = {region: mobiles(region, 40) for region in REGIONS}

# Text a spreadsheet cell may hold: any character JSON carries (no lone surrogates), 1 to 50
# of them. An empty text is left out: the plan keeps "" for a missing field.
field_text = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=50)
field_value = st.one_of(
    st.none(),
    st.just(math.nan),
    field_text,
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.decimals(places=2, min_value=-(10**6), max_value=10**6).map(Decimal),
)


@st.composite
def recipient(draw: st.DrawFn) -> dict[str, Any]:
    """A distinct valid mobile of one of REGIONS, written in E.164, spaced, or national + country,
    and each dynamic field missing or holding a random value."""
    region = draw(st.sampled_from(REGIONS))
    number = phonenumbers.parse(draw(st.sampled_from(POOLS[region])))
    style = draw(st.sampled_from(["e164", "international", "national"]))
    fmt = {
        "e164": phonenumbers.PhoneNumberFormat.E164,
        "international": phonenumbers.PhoneNumberFormat.INTERNATIONAL,
        "national": phonenumbers.PhoneNumberFormat.NATIONAL,
    }[style]
    record: dict[str, Any] = {"phone_number": phonenumbers.format_number(number, fmt)}
    if style == "national":
        record["country"] = region
    for name in DYNAMIC_FIELDS:
        if draw(st.booleans()):
            record[name] = draw(field_value)
    return record


def e164(record: dict[str, Any]) -> str:
    """The number a record holds (preflight excludes repeats: each recipient once)."""
    number = phonenumbers.parse(record["phone_number"], record.get("country"))
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


@pytest.fixture(scope="module")
def client() -> Iterator[smskit.Client]:
    """A client of a sandbox of its own (preflight asks it which destinations it serves)."""
    with Sandbox(seed=0) as sandbox, smskit.Client(sandbox=sandbox) as c:
        yield c


def body(client: smskit.Client, recipients: Any, validate: bool) -> bytes:
    """The bytes the client posts for a send of ``recipients``."""
    call = SmsCampaign.send._build(
        client.sms_campaign,
        text=TEXT,
        recipients=recipients,
        sender="Shop",
        request_id="r" * 32,
        validate=validate,
    )
    assert call.body is not None
    return call.body


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    records=st.lists(
        recipient(),
        min_size=1,
        max_size=40,
        unique_by=e164,
    )
)
def test_a_planned_chunk_posts_what_the_per_recipient_path_posts(
    client: smskit.Client, records: list[dict[str, Any]]
) -> None:
    """Preflight + plan + chunk builder give the request body ``contact`` gives, per byte."""
    campaign = smskit.Campaign(client, records, text=TEXT, sender="Shop")
    plan = campaign._plan(500)
    planned = plan.columns["row"]
    assert planned == list(range(len(records))), plan.excluded  # every one valid and served
    chunk = plan.contacts(0, len(planned))
    assert isinstance(chunk, ContactChunk)
    per_recipient = contact_rows(Recipients(records), default_region="FR", strict=True)
    assert list(chunk) == per_recipient
    assert body(client, chunk, validate=False) == body(client, records, validate=True)


@given(
    numbers=st.lists(st.text(min_size=1, max_size=16), min_size=1, max_size=30),
    data=st.data(),
)
def test_chunk_contacts_takes_any_positions_in_order(numbers: list[str], data: Any) -> None:
    """A chunk of some positions is those contacts, in that order, empty fields left out."""
    size = len(numbers)
    fields = {
        name: data.draw(st.lists(st.sampled_from(["", "Ann", "é"]), min_size=size, max_size=size))
        for name in data.draw(st.sets(st.sampled_from(DYNAMIC_FIELDS)))
    }
    positions = data.draw(st.lists(st.integers(0, size - 1), max_size=size))
    chunk = chunk_contacts(numbers, fields, positions)
    expected = [
        {"phone_number": numbers[p]}
        | {name: fields[name][p] for name in DYNAMIC_FIELDS if fields.get(name, [""] * size)[p]}
        for p in positions
    ]
    assert list(chunk) == expected
    assert list(chunk_contacts(numbers, fields, range(size))) == list(
        chunk_contacts(numbers, fields, list(range(size)))
    )


@given(
    numbers=st.lists(st.text(max_size=16), max_size=30),
    data=st.data(),
)
def test_a_chunk_is_encoded_as_the_canonical_json_of_its_contacts(
    numbers: list[str], data: Any
) -> None:
    """Spelt column by column, a chunk is the canonical JSON of its dicts, byte for byte
    (quotes, backslashes, control and non-ASCII characters, '%', empty texts included)."""
    size = len(numbers)
    texts = st.text(
        st.characters(exclude_categories=("Cs",)) | st.sampled_from('"\\%\x00\n\u2028é'),
        max_size=12,
    )
    fields = {
        name: data.draw(st.lists(texts, min_size=size, max_size=size))
        for name in data.draw(st.sets(st.sampled_from(DYNAMIC_FIELDS)))
    }
    positions = data.draw(st.lists(st.integers(0, max(size - 1, 0)), max_size=size))
    chunk = chunk_contacts(numbers, fields, positions if size else [])
    assert chunk.encoded == canonical_bytes(list(chunk))
    assert chunk.pick(range(len(chunk))[::-1]).encoded == canonical_bytes(list(chunk)[::-1])


def test_a_lone_surrogate_is_refused_when_the_chunk_is_encoded() -> None:
    """A text JSON cannot carry as UTF-8 raises ValueError, as canonical_bytes does."""
    chunk = chunk_contacts(["+33612345678"], {"first_name": ["\ud800"]}, range(1))
    with pytest.raises(ValueError):
        chunk.encoded  # noqa: B018


def test_chunk_contacts_refuses_what_is_not_text() -> None:
    """A plan value that is not text, or a field the gateway does not know, is refused."""
    with pytest.raises(ValidationError) as caught:
        chunk_contacts(["+33612345678", 33612345679], {}, range(2))  # type: ignore[list-item]
    assert caught.value.field == "phone_number" and caught.value.position == 1
    with pytest.raises(ValidationError, match="not a dynamic field"):
        chunk_contacts(["+33612345678"], {"email": ["a@b.c"]}, range(1))


def test_a_chunk_is_read_again_when_the_call_validates(client: smskit.Client) -> None:
    """validate=True reads a ContactChunk like any list: a bad number is still refused."""
    chunk = chunk_contacts(["+3361234"], {}, range(1))
    assert body(client, chunk, validate=False)  # posted as it is
    with pytest.raises(ValidationError, match="not a valid phone number"):
        body(client, chunk, validate=True)
