"""Importing a module on first use from any thread: parents first.

Python's import system locks each module while it imports it. A thread importing
``smskit.campaigns.bulk`` holds that submodule's lock while it imports the parent package; if
another thread is running the parent's ``__init__``, which imports ``smskit.campaigns.bulk``
too, each waits for the other and one of them gets ``_DeadlockError``. Imported parents
first, a thread waits for a package while holding no lock, and finds the submodule done.
Kept because a plain ``importlib.import_module`` does not do this: CPython (3.11 at least)
takes the submodule's lock before importing its parents (``importlib._bootstrap._find_and_load``);
``tests/test_first_use_threads.py`` races first uses from threads.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["import_top_down"]


def import_top_down(name: str) -> ModuleType:
    """Module ``name`` (``a.b.c``), importing ``a``, then ``a.b``, then ``a.b.c``."""
    parts = name.split(".")
    module = importlib.import_module(parts[0])
    for end in range(2, len(parts) + 1):
        module = importlib.import_module(".".join(parts[:end]))
    return module
