"""One JSON spelling per value: sorted keys, no spaces, non-ASCII kept, UTF-8.

Request bodies are posted in it, and campaign and request ids are derived from it, so the
bytes a chunk's ``request_id`` is derived from are the very bytes its request carries.
"""

from __future__ import annotations

import json
from typing import Any, Final

__all__ = ["canonical_bytes", "canonical_json"]

_OPTIONS: Final[dict[str, Any]] = {
    "sort_keys": True,
    "separators": (",", ":"),
    "ensure_ascii": False,
}


def canonical_json(value: Any) -> str:
    """The canonical spelling of ``value`` as text (what campaign ids are derived from)."""
    return json.dumps(value, **_OPTIONS)


def canonical_bytes(value: Any) -> bytes:
    """The canonical spelling of ``value`` as posted: UTF-8, and JSON only (NaN and the
    infinities, which JSON has no spelling for, raise ``ValueError``, as does a lone
    surrogate; a value JSON cannot hold raises ``TypeError``)."""
    return json.dumps(value, allow_nan=False, **_OPTIONS).encode("utf-8")
