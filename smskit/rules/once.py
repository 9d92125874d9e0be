"""First use from many threads at once: lazy values made once, modules seen only whole.

A notebook's thread pool or a web app may make its first smskit calls from several threads
at the same moment; whatever smskit makes lazily must then be made once, and never seen
half made.

* :func:`once` (a decorator) makes a function's value on its first call, under a lock;
  later calls return that same object. ``functools.cache`` is not enough where the value is
  filled in afterwards (the grapheme tables) or must exist once (a log filter): two threads
  calling it first would each make and keep their own.
* :func:`loaded` recognises third-party modules the program imported without importing
  them (``import smskit`` stays light, the sandbox never loads pandas). Peeking at
  ``sys.modules`` is not enough: a module appears there as soon as its import *starts*, so
  another thread's first use of pandas would show this thread a half-made module
  (``AttributeError: partially initialized module 'pandas'``). ``loaded`` waits for such
  an import to finish, on the import system's own per-module lock.

Imports themselves need nothing more: Python runs each module's import once, under that
per-module lock, and smskit has no import circles for two threads to deadlock on.
"""

from __future__ import annotations

import functools
import importlib
import sys
import threading
from collections.abc import Callable
from types import ModuleType
from typing import TypeVar

__all__ = ["loaded", "once"]

T = TypeVar("T")

# Modules seen whole once: later calls skip the import machinery (is_missing runs per value).
_whole: dict[str, ModuleType] = {}


def loaded(name: str) -> ModuleType | None:
    """Module ``name`` if the program imported it (waiting for an import under way in another
    thread to finish), None if it was never imported or its import failed."""
    module = _whole.get(name)
    if module is not None:
        return module
    if name not in sys.modules:
        return None
    try:
        # Returns at once for a whole module; for one another thread is still executing,
        # blocks on that module's import lock until it is complete.
        module = importlib.import_module(name)
    except ImportError:  # the other thread's import failed and was rolled back
        return None
    _whole[name] = module
    return module


def once(make: Callable[[], T]) -> Callable[[], T]:
    """``make()`` run on the first call only, under a lock; every call returns its value."""
    lock = threading.Lock()
    made: list[T] = []

    @functools.wraps(make)
    def value() -> T:
        if not made:  # after the first call: no lock taken
            with lock:
                if not made:
                    made.append(make())
        return made[0]

    return value
