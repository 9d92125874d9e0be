"""Where the partitions are computed: a local cluster by default, any scheduler when named."""

from __future__ import annotations

from typing import Any

import distributed

from smskit.errors import ValidationError
from smskit.rules.ranges import checked_integer

__all__ = ["connect"]


def connect(
    address: str | None = None,
    *,
    workers: int = 2,
    threads_per_worker: int = 1,
    **cluster_options: Any,
) -> distributed.Client:
    """A ``distributed.Client``, which becomes dask's default scheduler for what follows.

    Without ``address``, it starts a ``LocalCluster`` of ``workers`` processes (one thread
    each by default: the rules hold the GIL, so processes, not threads, use the cores);
    ``cluster_options`` go to ``LocalCluster`` (``memory_limit``, ``dashboard_address``...);
    it listens on loopback only (the dashboard on a free port: ``client.dashboard_link``).
    With ``address`` (``"tcp://scheduler:8786"``), it joins that cluster and starts nothing.
    Close it with ``client.close()``, or use it as a context manager; a local cluster it
    started closes with it.
    """
    if address is not None:
        if cluster_options or workers != 2 or threads_per_worker != 1:
            raise ValidationError(
                "address", "a running cluster is joined as it is: give no workers or options"
            )
        return distributed.Client(address)
    workers = checked_integer("workers", workers, low=1)
    # Loopback only unless told otherwise: the scheduler and dashboard serve this machine.
    cluster_options.setdefault("host", "127.0.0.1")
    cluster_options.setdefault("dashboard_address", "127.0.0.1:0")
    # Started by the client itself, so client.close() also closes the cluster.
    return distributed.Client(
        n_workers=workers, threads_per_worker=threads_per_worker, processes=True, **cluster_options
    )
