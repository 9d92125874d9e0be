"""Run in a fresh interpreter by tests/test_first_use_threads.py: 16 threads make their first
smskit call at the same moment; prints a JSON list of the errors they met (empty = none).

``python _first_use.py RUN SLOW``: ``RUN`` rotates which first call each thread makes,
``SLOW`` names modules (comma-separated, or ``-``) whose import is made to take 0.2 s
longer. A slow import widens the window in which a module is in ``sys.modules`` but not
finished yet, the window where the races of a first use show, so a run finds them every
time instead of now and then.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import json
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

THREADS = 16


class _SlowLoader(importlib.abc.Loader):
    """Another loader's module, executed 0.2 s late (it is already in ``sys.modules``)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        created: ModuleType | None = self._inner.create_module(spec)
        return created

    def exec_module(self, module: ModuleType) -> None:
        time.sleep(0.2)
        self._inner.exec_module(module)

    def __getattr__(self, name: str) -> Any:  # resource readers and the like
        return getattr(self._inner, name)


class _SlowFinder(importlib.abc.MetaPathFinder):
    """Finds the named modules as the path finder does, with a :class:`_SlowLoader`."""

    def __init__(self, names: set[str]) -> None:
        self._names = names

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name not in self._names:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _SlowLoader(spec.loader)
        return spec


def _calls() -> list[Callable[[], object]]:
    """The first calls a notebook's thread pool or a web app makes."""
    import smskit

    def client() -> object:
        with smskit.Client() as c:
            return c.wallet.check_balance()

    def hlr_frame() -> object:
        with smskit.Client() as c:
            return c.contact.hlr_request(["+33612345678", "+33700000000"]).to_frame()

    def send_frame() -> object:
        import pandas as pd

        with smskit.Client() as c:
            recipients = pd.DataFrame({"phone_number": ["+33612345678"], "first_name": ["Ana"]})
            return c.sms_campaign.send(
                text="Rappel RDV", recipients=recipients, sender="Clinic", purpose="alert"
            )

    def preflight() -> object:
        with smskit.Client() as c:
            campaign = smskit.Campaign(
                c, ["+33612345678", "0612345679"], text="Hello", sender="Shop", purpose="alert"
            )
            return campaign.preflight()

    def bulk_hlr() -> object:
        with smskit.Client() as c:
            return smskit.bulk_hlr(c, ["+33612345678", "+447700900123"])

    return [
        client,
        lambda: smskit.text.analyze("Bonjour 😀 à demain"),
        lambda: smskit.text.analyze_many(["Bonjour 😀 à demain " * 9, "Hello"]),
        lambda: smskit.phones.normalize(["0612345678", "+447700900123", None], "FR"),
        _reason_dtype,
        _grapheme_tables,
        hlr_frame,
        send_frame,
        preflight,
        bulk_hlr,
    ]


def _grapheme_tables() -> object:
    from smskit.rules import textvec

    return textvec.tables()


def _reason_dtype() -> object:
    from smskit.rules import phones

    return phones.REASON_DTYPE


def main(run: int, slow: set[str]) -> list[str]:
    """Errors met by the threads (formatted), in no particular order."""
    sys.meta_path.insert(0, _SlowFinder(slow))
    calls = _calls()
    start = threading.Barrier(THREADS)
    errors: list[str] = []
    answers: dict[int, list[object]] = {n: [] for n in range(len(calls))}

    def work(index: int) -> None:
        which = (index + run) % len(calls)
        start.wait()
        try:
            answers[which].append(calls[which]())
        except BaseException as exc:  # every kind counts: the point is that none happens
            errors.append("".join(traceback.format_exception(exc))[-1500:])

    threads = [threading.Thread(target=work, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for which in (calls.index(_grapheme_tables), calls.index(_reason_dtype)):
        if len({id(answer) for answer in answers[which]}) > 1:
            errors.append(f"{calls[which].__name__}: several objects made")
    return errors


if __name__ == "__main__":
    names = set() if sys.argv[2] == "-" else set(sys.argv[2].split(","))
    print(json.dumps(main(int(sys.argv[1]), names)))
