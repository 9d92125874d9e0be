"""Contact objects built from columns: the one chunk builder of every campaign send.

A campaign's plan holds its recipients column by column (E.164 numbers from preflight, each
dynamic field as text, ``""`` when missing). :func:`chunk_contacts` turns the positions of one
chunk into the Contact objects the gateway takes, in one pass per column, and returns them as
a :class:`ContactChunk`: a tuple the client posts as it is, without reading it again through
the recipients reader (which would re-normalise every number and re-check every field that
preflight already checked).

The objects are exactly those :func:`smskit.rules.recipients.contact` gives for the same
recipient: ``phone_number`` first, then the non-empty fields in :data:`DYNAMIC_FIELDS` order,
so the request body is byte for byte the same whichever path built it. A chunk is encoded
once (:attr:`ContactChunk.encoded`): its request_id is derived from those bytes and the
client posts them as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from typing import Any

from smskit.errors import ValidationError
from smskit.rules.canonical import canonical_bytes, canonical_objects
from smskit.rules.fields import DYNAMIC_FIELDS

__all__ = ["ContactChunk", "chunk_contacts"]

_ORDER = {name: i for i, name in enumerate(DYNAMIC_FIELDS)}


class ContactChunk(tuple[dict[str, str], ...]):
    """Contact objects ready to post: every value a ``str``, empty fields left out, numbers
    as preflight normalised them. A tuple, so what was checked cannot change before it leaves.

    Only :func:`chunk_contacts` builds one (and :meth:`pick`, from one); the client sends it
    without reading it again unless the call asks to validate (``validate=True``), which
    reads it like any list.
    """

    # No __slots__: each chunk keeps its encoding once made (see ``encoded``), and the
    # columns it was taken from (set by chunk_contacts) until then.
    _columns: Mapping[str, Sequence[str]] | None = None

    @cached_property
    def encoded(self) -> bytes:
        """The chunk as posted: the canonical JSON of its Contact objects, made once (from
        the columns :func:`chunk_contacts` took them from, when it made them). The
        request_id is derived from these bytes, and the request body holds them as they are
        (so they must not change: nothing mutates a planned chunk's dicts)."""
        if self._columns is None:
            return canonical_bytes(self)
        encoded = canonical_objects(self, self._columns)
        self._columns = None
        return encoded

    def pick(self, positions: Iterable[int]) -> ContactChunk:
        """The contacts at ``positions`` of this chunk (what is left once some are refused)."""
        return ContactChunk(self[i] for i in positions)


def chunk_contacts(
    numbers: Sequence[str], fields: Mapping[str, Sequence[str]], positions: Iterable[int]
) -> ContactChunk:
    """The Contact objects at ``positions`` of the columns ``numbers`` and ``fields``
    (dynamic field name -> texts, ``""`` when missing): the number, then each non-empty field.

    Raises ``ValidationError`` for a field the gateway does not know or a value that is not
    text (plan columns hold texts only: anything else is a bug upstream, never sent as is).
    """
    for name in fields:
        if name not in _ORDER:
            raise ValidationError(name, "not a dynamic field of a Contact")
    picked = positions if isinstance(positions, range | list | tuple) else list(positions)
    given = _take(numbers, picked)
    _check_texts("phone_number", given)
    contacts = [{"phone_number": number} for number in given]
    taken = {"phone_number": given}
    for name in sorted(fields, key=_ORDER.__getitem__):
        column = fields[name]
        values = taken[name] = _take(column, picked)
        _check_texts(name, values)
        for contact, value in zip(contacts, values, strict=True):
            if value:
                contact[name] = value
    chunk = ContactChunk(contacts)
    chunk._columns = taken
    return chunk


def _take(column: Sequence[str], picked: Iterable[int]) -> list[Any]:
    if isinstance(picked, range) and picked.step == 1:
        return list(column[picked.start : picked.stop])  # a slice: no lookup per value
    return [column[p] for p in picked]


def _check_texts(name: str, values: list[Any]) -> None:
    # One C-level pass over the types instead of an isinstance call per value.
    if set(map(type, values)) - {str}:
        position = next(i for i, v in enumerate(values) if type(v) is not str)
        raise ValidationError(
            name, "a planned value must be text", position=position, value=values[position]
        )
