"""Shared fixtures: real sandbox gateways on loopback and raw HTTP clients for them.

``sandbox`` is started once per session (for tests that do not depend on account state);
``fresh_sandbox`` is a new one per test (balance, contacts, sends start from defaults).
``api`` / ``fresh_api`` are httpx clients on them with the auth headers already set;
``client`` is an ``smskit.Client`` on ``fresh_sandbox`` (a module needing other options or
the session's sandbox defines its own ``client``).
Hypothesis runs without a deadline (the ``smskit`` profile below).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from _schedule import longest_first, work_unit
from hypothesis import settings

import smskit
from smskit.sandbox import Sandbox

# No Hypothesis deadline: how long an example takes is not what any test checks (speed is
# measured by benchmarks/), and a loaded machine made a 24 ms example take 293 ms, failing
# a correct test as flaky. A test's own @settings still wins for what it sets.
settings.register_profile("smskit", deadline=None)
settings.load_profile("smskit")


def gateway_client(sandbox: Sandbox, **options: object) -> httpx.Client:
    """A raw httpx client on a running sandbox, authenticated with its api-login/api-key."""
    options.setdefault("timeout", 10.0)
    return httpx.Client(
        base_url=sandbox.url,
        headers=sandbox.auth_headers(),
        trust_env=False,
        **options,  # type: ignore[arg-type]
    )


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile`` by :func:`work_unit`: each test_pages notebook is a unit of its
    own, so the slowest file of the suite is shared by the workers."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByWorkUnit(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    return ByWorkUnit(config, log)


@pytest.hookimpl(trylast=True)  # after pytest-randomly has shuffled
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test marked ``runs_last`` checks what the other tests of its module left (a
    module-scoped fixture), so it goes right after the last of them; the rest stays shuffled.
    Then the longest work units go first (tests/_schedule.py `LONGEST_FIRST`), each whole."""
    for item in [i for i in items if i.get_closest_marker("runs_last")]:
        items.remove(item)
        module = item.nodeid.split("::", 1)[0]
        same = [n for n, other in enumerate(items) if other.nodeid.split("::", 1)[0] == module]
        items.insert(same[-1] + 1 if same else len(items), item)
    items[:] = longest_first(items)


@pytest.fixture(autouse=True)
def user_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Per-user data and cache directories of a test's own: never the home of whoever runs it."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    return home


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt in this test, as in a terminal or a Jupyter kernel,
    even when pytest was started as a background job (the shell then leaves SIGINT ignored
    and a signal the test sends itself would do nothing)."""
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.fixture(scope="session")
def _dask_session() -> Iterator[Any]:
    """One LocalCluster for the whole run (starting one costs seconds), started on first use."""
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,  # no dashboard; its HTTP server on a free loopback port
            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
        ) as local,
        Client(local) as client,
    ):
        yield client


@pytest.fixture
def dask_cluster(_dask_session: Any) -> Any:
    """The session's dask.distributed LocalCluster of two worker processes (one thread each),
    as dask's default scheduler: partitions really travel between processes."""
    from distributed import default_client

    # A test that made a client of its own and closed it hands the default back; one left
    # open would take every later computation away from the shared cluster.
    assert default_client() is _dask_session
    return _dask_session


@pytest.fixture(scope="session")
def sandbox() -> Iterator[Sandbox]:
    """One sandbox for the whole session: use it only where account state does not matter."""
    with Sandbox(seed=0) as sb:
        yield sb


@pytest.fixture
def fresh_sandbox() -> Iterator[Sandbox]:
    """A new sandbox (default balance, prices, empty account) for one test."""
    with Sandbox(seed=0) as sb:
        yield sb


@pytest.fixture
def client(fresh_sandbox: Sandbox) -> Iterator[smskit.Client]:
    """An smskit client on the per-test sandbox (closed after the test)."""
    with smskit.Client(sandbox=fresh_sandbox) as made:
        yield made


@pytest.fixture(scope="session")
def api(sandbox: Sandbox) -> Iterator[httpx.Client]:
    """Authenticated raw HTTP client on the session sandbox."""
    with gateway_client(sandbox) as client:
        yield client


@pytest.fixture
def fresh_api(fresh_sandbox: Sandbox) -> Iterator[httpx.Client]:
    """Authenticated raw HTTP client on the per-test sandbox."""
    with gateway_client(fresh_sandbox) as client:
        yield client


@pytest.fixture
def make_client() -> Iterator[Callable[..., httpx.Client]]:
    """Factory of authenticated raw clients (closed after the test): ``make_client(sb)``."""
    clients: list[httpx.Client] = []

    def make(sb: Sandbox, **options: object) -> httpx.Client:
        client = gateway_client(sb, **options)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()
