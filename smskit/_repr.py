"""Reprs that still answer for an object whose constructor raised.

A traceback shown with its frames' locals (IPython's verbose mode, pytest ``--showlocals``,
``traceback.TracebackException(capture_locals=True)``, error trackers) calls ``repr`` on the
``self`` of a constructor that raised before it set what the repr shows. A repr that then
raises AttributeError makes the whole traceback fail to print, hiding the real error.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

__all__ = ["tolerant_repr"]

T = TypeVar("T")


def tolerant_repr(method: Callable[[T], str]) -> Callable[[T], str]:
    """``__repr__`` answering ``<Class (not made)>`` when an attribute it reads was never set
    (its constructor raised first); every other error still propagates."""

    @functools.wraps(method)
    def shown(self: T) -> str:
        try:
            return method(self)
        except AttributeError:
            return f"<{type(self).__name__} (not made)>"

    return shown
