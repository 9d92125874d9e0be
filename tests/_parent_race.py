"""Run by tests/test_first_use_threads.py in a fresh interpreter: thread B starts importing
the package ``smskit.campaigns`` and is held (its finder sleeps) before the package exists;
thread A meanwhile asks ``smskit.bulk_hlr``, the lazy name of a submodule the package's
``__init__`` imports. Prints JSON: the errors the two threads met."""

from __future__ import annotations

import importlib.abc
import json
import sys
import threading
import time
import traceback
from collections.abc import Sequence
from importlib.machinery import ModuleSpec, PathFinder
from types import ModuleType

import smskit

HELD = "smskit.campaigns"


class _SlowStart(importlib.abc.Loader):
    """The package's own loader, but its module is created after a pause: by then the
    package's import lock is held and it is not yet in sys.modules (a finder cannot pause:
    Python calls finders under its global import lock, which would stop every thread)."""

    def __init__(self, inner: importlib.abc.Loader, started: threading.Event) -> None:
        self.inner = inner
        self.started = started

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        self.started.set()
        time.sleep(0.5)
        return None

    def exec_module(self, module: ModuleType) -> None:
        self.inner.exec_module(module)


class _HoldPackage(importlib.abc.MetaPathFinder):
    """Finds the package as Python would, with a loader that pauses once."""

    def __init__(self) -> None:
        self.started = threading.Event()

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != HELD or self.started.is_set():
            return None
        spec = PathFinder.find_spec(fullname, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _SlowStart(spec.loader, self.started)
        return spec


def main() -> list[str]:
    finder = _HoldPackage()
    sys.meta_path.insert(0, finder)
    errors: list[str] = []

    def guarded(work: object) -> None:
        try:
            work()  # type: ignore[operator]
        except BaseException as exc:  # every kind counts
            errors.append("".join(traceback.format_exception(exc))[-1200:])

    package = threading.Thread(target=guarded, args=(lambda: importlib.import_module(HELD),))
    lazy = threading.Thread(target=guarded, args=(lambda: smskit.bulk_hlr,))
    package.start()
    finder.started.wait()
    time.sleep(0.1)  # the package's import is under way, held in its finder
    lazy.start()
    package.join()
    lazy.join()
    return errors


if __name__ == "__main__":
    print(json.dumps(main()))
