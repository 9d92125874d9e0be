"""The ``[dask]`` extra: the rule book partition-wise on ``dask.dataframe``, and campaigns over
contact bases too large for one process.

Owns: the cluster connection (:func:`connect`), the Dask paths of the pure functions that
accept a Dask collection (:mod:`.partitionwise`, reached through ``smskit.phones.normalize``,
``smskit.text.render_all`` and ``smskit.text.analyze_many``), and the
Dask-backed :class:`Campaign` whose preflight runs per partition (:mod:`.campaign`, the work
on each partition in :mod:`.partition_preflight`, report in :mod:`.report`) and whose send
streams the partitions into the journaled sender (:mod:`.sending`, over :mod:`.stream`; its
result read back lazily, :mod:`.results`), bulk HLR over a Dask series (:mod:`.hlr`), and a
generated base for demos (:mod:`.generate`).

May import campaigns, client, replies, rules, errors and infra; nothing of smskit imports it but the
facades, lazily (``import smskit`` never loads dask). Every rule is the pandas one, called on
each partition: this part adds partitioning, shuffles and reductions, never a rule.
"""

from __future__ import annotations

try:
    import dask.dataframe  # noqa: F401  (the extra's presence, checked once)
    import distributed  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    from smskit.errors import MissingExtraError

    raise MissingExtraError("smskit.dask", exc.name or "dask", "dask") from exc

from smskit.dask.campaign import Campaign
from smskit.dask.cluster import connect
from smskit.dask.generate import contact_base
from smskit.dask.hlr import HLRParquet, abulk_hlr, bulk_hlr
from smskit.dask.report import DaskPreflightReport
from smskit.dask.results import StreamedResult

__all__ = [
    "Campaign",
    "DaskPreflightReport",
    "HLRParquet",
    "StreamedResult",
    "abulk_hlr",
    "bulk_hlr",
    "connect",
    "contact_base",
]
