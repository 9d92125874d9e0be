"""Preflight of 1M, 5M and 20M generated contacts: the pandas path and the Dask path side by side.

For each size, the generated base (``smskit.dask.generate.contact_base``: mixed spellings,
foreign numbers, unreadable values, repeats across partitions, UCS-2 names) is first written
to Parquet by a throw-away cluster, so neither side pays for generating it. Then:

- Dask: a fresh ``LocalCluster`` (``--workers`` processes, one thread each, nothing else run on
  it but the import of smskit, as the pandas side imports it before its clock),
  ``smskit.dask.Campaign.from_parquet(...).preflight(offline=True)``, the per-recipient report
  written to Parquet and the summary reduced. Peak RSS of each worker (``ru_maxrss`` read
  inside the worker, so the whole run is covered) and of the client.
- pandas (sizes up to ``--pandas-max``): a child process reads the same files into one
  DataFrame and runs ``smskit.Campaign(...).preflight(offline=True)``; its peak RSS.

Both summaries must agree (recipients, to_send, excluded by reason, segments).

    .venv/bin/python benchmarks/bench_dask.py                               # 1M, 5M, 20M
    .venv/bin/python benchmarks/bench_dask.py --sizes 200000 --pandas-max 200000
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import cpu_model

TEXT = "Bonjour {first_name}, -20% sur tout ce week-end. STOP au 36173"
SENDER = "Shop"
COMPARED = ("recipients", "to_send", "excluded", "segments", "ucs2")

PANDAS_SIDE = r"""
import json, resource, sys, time
import pandas as pd
import smskit

base = pd.read_parquet(sys.argv[1])
with smskit.Client() as client:
    campaign = smskit.Campaign(client, base, text=sys.argv[2], sender=sys.argv[3])
    start = time.perf_counter()
    report = campaign.preflight(offline=True)
    seconds = time.perf_counter() - start
summary = report.summary().iloc[0].to_dict()
print(json.dumps({
    "seconds": seconds,
    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "summary": {k: (v.item() if hasattr(v, "item") else v) for k, v in summary.items()},
}))
"""


def generate(rows: int, directory: Path, workers: int, per_partition: int) -> None:
    """Write the generated base of ``rows`` contacts to ``directory`` (one file a partition)."""
    from distributed import Client, LocalCluster

    from smskit.dask.generate import contact_base

    with (
        LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None) as cluster,
        Client(cluster),
    ):
        # Zero-padded names: pandas reads a directory's files in name order, as dask does.
        contact_base(rows, rows_per_partition=per_partition).to_parquet(
            str(directory), write_index=False, name_function=lambda k: f"part-{k:05d}.parquet"
        )


def worker_peak_mb() -> float:
    """Peak RSS of the calling process in MB (run inside each worker)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def import_smskit() -> None:
    """Import what a worker runs (inside each worker, before the clock starts)."""
    import smskit.dask.partition_preflight  # noqa: F401


def side_dask(base: Path, report_dir: Path, workers: int) -> dict[str, Any]:
    """The Dask preflight on a fresh cluster: wall time, summary, peak RSS per worker."""
    from distributed import Client, LocalCluster

    import smskit
    from smskit.dask import Campaign

    with (
        LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None) as cluster,
        Client(cluster) as dask_client,
        smskit.Client() as client,
    ):
        # As the pandas process imports smskit before its clock starts, so do the workers.
        dask_client.run(import_smskit)
        start = time.perf_counter()
        campaign = Campaign.from_parquet(client, str(base / "*.parquet"), text=TEXT, sender=SENDER)
        report = campaign.preflight(offline=True)
        report.to_parquet(report_dir)
        summary = report.summary().iloc[0].to_dict()
        seconds = time.perf_counter() - start
        peaks = dask_client.run(worker_peak_mb)
    return {
        "seconds": seconds,
        "workers_peak_mb": sorted(peaks.values()),
        "client_peak_mb": worker_peak_mb(),
        "summary": {k: (v.item() if hasattr(v, "item") else v) for k, v in summary.items()},
    }


def side_pandas(base: Path) -> dict[str, Any]:
    """The pandas preflight in a child process of its own (so its peak RSS is its own)."""
    done = subprocess.run(
        [sys.executable, "-c", PANDAS_SIDE, str(base), TEXT, SENDER],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 5_000_000, 20_000_000])
    parser.add_argument("--pandas-max", type=int, default=5_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rows-per-partition", type=int, default=250_000)
    args = parser.parse_args()
    print(
        f"machine: {cpu_model()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"load average {os.getloadavg()[0]:.1f} at start"
    )
    print("| rows | side | wall s | s per M rows | peak RSS MB | summary equal |")
    print("|---:|---|---:|---:|---|---|")
    for rows in args.sizes:
        scratch = Path(tempfile.mkdtemp(prefix="bench-dask-"))
        try:
            generate(rows, scratch / "base", args.workers, args.rows_per_partition)
            dask = side_dask(scratch / "base", scratch / "report", args.workers)
            pandas = side_pandas(scratch / "base") if rows <= args.pandas_max else None
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        differ = [
            f"{k}: {dask['summary'][k]} vs {pandas['summary'][k]}"
            for k in COMPARED
            if pandas is not None and dask["summary"][k] != pandas["summary"][k]
        ]
        same = "-" if pandas is None else "yes" if not differ else "NO: " + "; ".join(differ)
        per_million = dask["seconds"] / rows * 1e6
        workers = " / ".join(f"{mb:.0f}" for mb in dask["workers_peak_mb"])
        print(
            f"| {rows:,} | dask ({args.workers} workers) | {dask['seconds']:.1f} | "
            f"{per_million:.1f} | workers {workers}, client {dask['client_peak_mb']:.0f} | {same} |"
        )
        if pandas is not None:
            print(
                f"| {rows:,} | pandas | {pandas['seconds']:.1f} | "
                f"{pandas['seconds'] / rows * 1e6:.1f} | {pandas['peak_mb']:.0f} | {same} |"
            )
        sys.stdout.flush()
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
