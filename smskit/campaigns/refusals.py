"""Recipients the gateway refused, taken out of a chunk so the rest is sent again.

The gateway answers a chunk with one bad recipient by refusing the whole request, its field
errors naming ``recipients[i]``: :func:`refused_recipients` reads those names,
:func:`without_refused` retries the chunk without them.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final, TypeVar

from smskit.errors import PayloadValidationError

__all__ = ["refused_recipients", "without_refused"]

T = TypeVar("T")
PartT = TypeVar("PartT")

_RECIPIENT_KEY_RE: Final = re.compile(r"recipients\[(\d+)\](?:\..+)?")


async def without_refused(
    part: PartT,
    attempt: Callable[[PartT], Awaitable[T]],
    drop: Callable[[PartT, dict[int, str]], PartT | None],
    size: Callable[[PartT], int],
) -> T | None:
    """``attempt(part)``; when the gateway refuses only some of its recipients, the rest again.

    The gateway answers a chunk with one bad recipient by refusing the whole request, its
    field errors naming ``recipients[i]``. ``drop(part, {i: message})`` records those
    refusals and gives the smaller part to attempt again (None: nothing left, the result is
    None). Any other refusal is raised, as is every other error.
    """
    current: PartT | None = part
    while current is not None:
        try:
            return await attempt(current)
        except PayloadValidationError as exc:
            refused = refused_recipients(exc.errors, size(current))
            if refused is None:
                raise
            current = drop(current, refused)
    return None


def refused_recipients(errors: Mapping[str, Any], size: int) -> dict[int, str] | None:
    """{position: message} when every field error names a recipient; else None."""
    refused: dict[int, str] = {}
    for key, detail in errors.items():
        match = _RECIPIENT_KEY_RE.fullmatch(key)
        if match is None or int(match.group(1)) >= size:
            return None
        message = detail.get("message") if isinstance(detail, Mapping) else detail
        code = detail.get("code") if isinstance(detail, Mapping) else None
        refused[int(match.group(1))] = f"{message} (code {code})" if code else str(message)
    return refused or None
