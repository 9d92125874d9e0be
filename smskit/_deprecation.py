"""Names and modules that moved, still found at their old place for one release, with a
:class:`DeprecationWarning` naming the new one.

An old module keeps only ``__getattr__ = moved_module(__name__, "new.module")``; a module
that kept some of its names gives the others with :func:`moved_names`, and a name to be
dropped for another spelling with :func:`retired_names`. The new module is
imported only when an old name is used, so the old module costs nothing at import.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any

from smskit._imports import import_top_down

__all__ = ["moved_module", "moved_names", "retired_names"]


def _forward(old: str, new: str, name: str, instead: str | None = None) -> Any:
    advice = f"use {instead}" if instead else f"moved to {new}.{name}"
    warnings.warn(
        f"{old}.{name} is deprecated: {advice}; the old name is removed in the next release",
        DeprecationWarning,
        stacklevel=3,
    )
    return getattr(import_top_down(new), name)


def moved_module(old: str, new: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` for module ``old``, renamed ``new``: every public name of
    ``new`` is found on ``old`` too, with a warning."""

    def __getattr__(name: str) -> Any:
        if name.startswith("_") or not hasattr(import_top_down(new), name):
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        return _forward(old, new, name)

    return __getattr__


def moved_names(old: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for module ``old``, whose names ``homes`` (name -> module)
    moved out: each is found on ``old`` too, with a warning."""

    def __getattr__(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        return _forward(old, homes[name], name)

    return __getattr__


def retired_names(old: str, home: str, instead: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for module ``old``, whose names ``instead`` (name -> what to
    write instead) left it: each is still found there (the object of module ``home``), with a
    warning naming the replacement."""

    def __getattr__(name: str) -> Any:
        if name not in instead:
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        return _forward(old, home, name, instead[name])

    return __getattr__
