"""Personalisation: a template's ``{field}`` placeholders filled from each recipient.

Pure functions over ``str`` and pandas objects. :func:`render` fills one recipient (the
sandbox renders each message with it), :func:`render_all` every recipient of a campaign, a
column at a time; both refuse a value over 50 characters naming ``recipients[row].field``
and render a missing value empty. The field names and a value's text are the rules of
:mod:`smskit.rules.fields`; a text's cost once rendered is :mod:`smskit.rules.text`'s.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from functools import lru_cache
from itertools import repeat
from typing import TYPE_CHECKING, Any

from smskit.errors import ValidationError
from smskit.rules.fields import FIELD_RE, field_text, used_fields
from smskit.rules.ranges import checked_integer
from smskit.rules.text import MAX_FIELD_LENGTH, check_str

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["MissingFieldWarning", "fields", "render", "render_all", "render_texts"]


class MissingFieldWarning(UserWarning):
    """Some recipients have no value for a field the template uses: it rendered empty."""


def _parse(template: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Split ``template`` into literals and field names: lit0, f0, lit1, f1, ..., litN."""
    # Checked before the cache: a list or dict template would fail there as "unhashable".
    return _parse_str(check_str(template))


@lru_cache(maxsize=256)
def _parse_str(template: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    used_fields(template)  # an unknown field is refused there, once
    parts = FIELD_RE.split(template)  # FIELD_RE's one group: the names between the literals
    return tuple(parts[0::2]), tuple(parts[1::2])


def fields(template: str) -> tuple[str, ...]:
    """Dynamic fields ``template`` uses, in order of first use.

    A field is ``{name}`` with an identifier inside; any other brace is literal text.
    An identifier that is not one of :data:`DYNAMIC_FIELDS` is a ``ValidationError``.
    """
    return tuple(dict.fromkeys(_parse(template)[1]))


def _get(recipient: Any, name: str) -> Any:
    if isinstance(recipient, Mapping):
        return recipient.get(name)
    return getattr(recipient, name, None)


def render(template: str, recipient: Mapping[str, Any] | Any) -> str:
    """``template`` with each ``{field}`` replaced by the recipient's value.

    A missing or null value renders empty; a value over 50 characters is a
    ``ValidationError`` naming the field.
    """
    literals, names = _parse(template)
    out = [literals[0]]
    for name, literal in zip(names, literals[1:], strict=True):
        value = field_text(_get(recipient, name), name)
        if value is not None and len(value) > MAX_FIELD_LENGTH:
            raise ValidationError(
                name, f"must be at most {MAX_FIELD_LENGTH} characters", value=value
            )
        out += [value or "", literal]
    return "".join(out)


def _columns(recipients: Any, names: Sequence[str]) -> tuple[dict[str, list[Any]], Any, int]:
    """Values of each field for every recipient, positionally, plus the index to report;
    recipients are read by THE reader (:mod:`smskit.rules.recipients`), numbers optional."""
    from smskit.rules.recipients import Recipients

    table = Recipients(recipients, need_number=False).table(names)
    return {name: table[name].tolist() for name in names}, table.index, len(table)


def _column_texts(values: list[Any], name: str, start: int) -> tuple[list[str], list[int]]:
    """One field's text for every recipient, and the rows where it is missing (rows counted
    from ``start``, the row of the first value)."""
    if all(map(isinstance, values, repeat(str))):
        texts = values
        missing: list[int] = []
    else:
        rendered = [field_text(v, f"recipients.{name}", row) for row, v in enumerate(values, start)]
        missing = [row for row, value in enumerate(rendered, start) if value is None]
        texts = ["" if value is None else value for value in rendered]
    too_long = [row for row, size in enumerate(map(len, texts)) if size > MAX_FIELD_LENGTH]
    if too_long:
        row = too_long[0]
        raise ValidationError(
            f"recipients[{start + row}].{name}",
            f"must be at most {MAX_FIELD_LENGTH} characters",
            value=texts[row],
        )
    return texts, missing


def render_columns(
    template: str, recipients: Any, start: int = 0
) -> tuple[list[str], Any, list[tuple[int | None, str]]]:
    """Render for every recipient, a column at a time (a value over 50 characters raises for
    the first such field of the template; rows counted from ``start``)."""
    names = _parse(template)[1]
    unique = tuple(dict.fromkeys(names))
    cols, index, n = _columns(recipients, unique)
    if not names:
        return [template] * n, index, []
    texts: list[list[str]] = []
    missing: list[tuple[int | None, str]] = []
    for name in unique:
        column, absent = _column_texts(cols[name], name, start)
        texts.append(column)
        missing.extend((row, name) for row in absent)
    missing.sort(key=lambda item: (item[0], unique.index(item[1])))
    return render_texts(template, dict(zip(unique, texts, strict=True)), n), index, missing


def render_texts(template: str, columns: Mapping[str, Sequence[str]], count: int) -> list[str]:
    """``template`` rendered for each of ``count`` rows, as :func:`render` renders one, a
    whole column at a time: ``columns`` holds, for each field the template uses, its text in
    every row (a value's text, within 50 characters: the caller has checked them)."""
    literals, names = _parse(template)
    unique = tuple(dict.fromkeys(names))
    if not unique:
        return [template] * count
    # str.format over whole columns: the template's own braces are escaped first
    pattern = "".join(
        literal.replace("{", "{{").replace("}", "}}") + (f"{{{unique.index(n)}}}" if n else "")
        for literal, n in zip(literals, (*names, ""), strict=True)
    )
    return list(map(pattern.format, *(columns[name] for name in unique)))


def _warn_missing(missing: list[tuple[int | None, str]]) -> None:
    if not missing:
        return
    counts: dict[str, list[int]] = {}
    for row, name in missing:
        counts.setdefault(name, []).append(row if row is not None else -1)
    parts = []
    for name, rows in counts.items():
        shown = ", ".join(map(str, rows[:5])) + (", ..." if len(rows) > 5 else "")
        parts.append(f"{{{name}}} missing for {len(rows)} recipient(s) (rows {shown})")
    warnings.warn("; ".join(parts) + "; rendered empty", MissingFieldWarning, stacklevel=3)


def render_all(template: str, recipients: Any, *, start: int = 0) -> pd.Series:
    """Render ``template`` for every recipient, read like ``send`` reads them (one dict or
    number, a list of them, a DataFrame, a CSV ``Path``).

    A value over 50 characters is a ``ValidationError`` naming ``recipients[row].field``
    (row counted from ``start``, 0 by default: a slice of a larger input names its rows in
    that input); missing values render empty and raise one :class:`MissingFieldWarning` that
    lists them.
    """
    import pandas as pd

    start = checked_integer("start", start, low=0)
    texts, index, missing = render_columns(template, recipients, start)
    _warn_missing(missing)
    return pd.Series(texts, index=index, name="text", dtype="str")
