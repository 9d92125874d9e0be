"""First use from threads: 16 threads making their first smskit call at once in a fresh
interpreter meet no error, and what smskit makes lazily it makes once (see smskit.rules.once).

Each run is a new interpreter (tests/_first_use.py): first use can happen only once per
process. Runs rotate which first call each thread makes and which imports are slowed down,
which widens the window in which a module is imported but not finished.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from smskit.rules.once import loaded, once

SCRIPT = Path(__file__).with_name("_first_use.py")
ROOT = SCRIPT.parent.parent
# Which imports a run slows down: none (the race as it comes), or one of the heavy ones.
SLOW = ("-", "pandas", "numpy,pandas", "pyarrow", "regex")
RUNS = 10


def first_use(run: int) -> list[str]:
    """The errors one fresh interpreter's 16 threads met (its last stdout line, JSON)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SMSKIT_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(run), SLOW[run % len(SLOW)]],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        return [f"exit {done.returncode}: {done.stderr[-1500:]}"]
    errors: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return errors


def test_sixteen_threads_first_calls_meet_no_error() -> None:
    """10 fresh interpreters, 16 threads each making a first call at once (client, text,
    phones, HLR frames, a DataFrame send, preflight, bulk HLR): 0 errors."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        errors = [e for found in pool.map(first_use, range(RUNS)) for e in found]
    assert errors == [], f"{len(errors)} errors, e.g.:\n{errors[0]}"


def test_once_makes_one_value_for_concurrent_first_callers() -> None:
    """16 threads calling a @once function first at the same moment: one call of the maker,
    one object for all."""
    made: list[object] = []
    start = threading.Barrier(16)

    @once
    def value() -> object:
        made.append(object())
        threading.Event().wait(0.05)  # a slow maker: the others arrive while it runs
        return made[-1]

    got: list[object] = []

    def call() -> None:
        start.wait()
        got.append(value())

    threads = [threading.Thread(target=call) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == 1
    assert len(got) == 16 and all(answer is made[0] for answer in got)


def test_loaded_waits_for_an_import_under_way_in_another_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A module in sys.modules whose import another thread is still running: ``loaded`` waits
    and answers it whole (its last line has run), never the half-made module."""
    name = "smskit_test_slow_module"
    (tmp_path / f"{name}.py").write_text(
        "import builtins\n"
        "builtins._smskit_slow_started.set()\n"
        "builtins._smskit_slow_go.wait(10)\n"
        "LAST = 'made'\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import builtins

    monkeypatch.setattr(builtins, "_smskit_slow_started", threading.Event(), raising=False)
    monkeypatch.setattr(builtins, "_smskit_slow_go", threading.Event(), raising=False)
    importer = threading.Thread(target=importlib.import_module, args=(name,))
    importer.start()
    try:
        assert builtins._smskit_slow_started.wait(10)
        assert name in sys.modules  # half made: what a peek at sys.modules would answer
        seen: list[object] = []
        reader = threading.Thread(target=lambda: seen.append(loaded(name)))
        reader.start()
        reader.join(0.3)
        assert reader.is_alive()  # waiting for the import, not answering the half module
        builtins._smskit_slow_go.set()
        reader.join(10)
        assert [getattr(module, "LAST", None) for module in seen] == ["made"]
    finally:
        builtins._smskit_slow_go.set()
        importer.join(10)
        sys.modules.pop(name, None)


def test_loaded_never_imports_and_answers_whole_modules() -> None:
    """``loaded`` answers a module already imported, None for one never imported, and never
    imports it itself."""
    assert loaded("json") is json
    name = "smskit_never_imported_module"
    assert loaded(name) is None
    assert name not in sys.modules


def test_a_lazy_name_asked_while_its_package_is_importing_waits_for_it() -> None:
    """A thread asking ``smskit.bulk_hlr`` while another thread is importing
    ``smskit.campaigns`` (whose ``__init__`` imports the same submodule) gets the function:
    smskit imports the package before the submodule (smskit._imports), so neither thread
    holds a lock the other waits for. Importing the submodule directly met Python's
    ``_DeadlockError`` here every run (and in the 16-thread test now and then)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SMSKIT_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, str(SCRIPT.with_name("_parent_race.py"))],
        capture_output=True, text=True, timeout=120, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-1500:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


NOTICE_RACE = """
import threading
import smskit
smskit.Client().close()  # the embedded sandbox started: the threads below announce it
gate = threading.Barrier(32)
def one():
    gate.wait()
    smskit.Client().close()
threads = [threading.Thread(target=one) for _ in range(32)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
"""


def test_the_sandbox_notice_of_clients_made_at_once_is_whole_lines() -> None:
    """32 threads making a Client() with nothing configured, at once (a thread pool's
    workers in a script): each prints the embedded sandbox's notice, and each notice is
    its own whole line. print() wrote the line and its end apart, so notices ran together
    ("...machine).smskit: no credentials ...") and blank lines came between: 5 to 12 of 33
    lines were broken in 4 of 5 runs. Three fresh interpreters, stdout a pipe as in cron."""
    from smskit.client.config import SANDBOX_NOTICE

    env = {k: v for k, v in os.environ.items() if not k.startswith("SMSKIT_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", NOTICE_RACE], capture_output=True,
                              text=True, timeout=120, env=env, check=True)  # fmt: skip
        assert done.stdout.splitlines() == [SANDBOX_NOTICE] * 33
