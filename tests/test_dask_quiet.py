"""smskit's Dask paths print nothing of distributed's shuffle narration into a user's output
(real processes on a local cluster, their streams read whole)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "06-dask-scale.ipynb"

NARRATION = "distributed.shuffle._scheduler_plugin"

SETUP = """
import pandas as pd, dask.dataframe as dd
import smskit, smskit.dask
frame = pd.DataFrame({"phone_number": [f"+336740{n:05d}" for n in range(2000)] * 2})
"""
# A shuffle of the user's own: what the cluster says when smskit is not the one shuffling.
THEIRS = """
if __name__ == "__main__":
    with smskit.dask.connect(workers=2):
        ddf = dd.from_pandas(frame, npartitions=4)
        print("rows", len(ddf.shuffle(on="phone_number").compute()))
"""
OURS = """
if __name__ == "__main__":
    with smskit.dask.connect(workers=2), smskit.Sandbox() as sb, smskit.Client(sandbox=sb) as c:
        for _ in range(2):
            report = smskit.dask.Campaign(
                c, dd.from_pandas(frame, npartitions=4), text="Rappel RDV demain",
                sender="Clinic", purpose="alert",
            ).preflight(offline=True)
            print("to_send", report.to_send)
        result = smskit.dask.bulk_hlr(c, dd.from_pandas(frame, npartitions=4)["phone_number"],
                                      output="hlr-out", progress=False)
        print("hlr done")
"""


def run(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    """The script (SETUP then ``body``) in a new process from ``tmp_path``."""
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(SETUP) + textwrap.dedent(body))
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}  # fmt: skip
    return subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=240, check=False,
    )  # fmt: skip


def test_smskits_shuffles_print_no_scheduler_narration(tmp_path: Path) -> None:
    """A user's own P2P shuffle prints the scheduler's 'Shuffle ... initialized' WARNING
    lines (the class is there); two Dask preflights and a Dask bulk HLR (smskit's shuffles)
    print none, on either stream."""
    theirs = run(tmp_path, THEIRS)
    assert theirs.returncode == 0, theirs.stderr
    assert NARRATION in theirs.stderr
    ours = run(tmp_path, OURS)
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout.count("to_send 2000") == 2 and "hlr done" in ours.stdout
    assert NARRATION not in ours.stderr + ours.stdout
    assert "Shuffle" not in ours.stderr


def test_the_dask_notebook_prints_no_scheduler_narration(tmp_path: Path) -> None:
    """Notebook 06's code, run whole in a new process (20,000 contacts), prints none of the
    scheduler's shuffle narration: in JupyterLab those lines land in the cell that started the
    cluster, two WARNINGs with random ids a reader cannot place."""
    cells = [
        "".join(cell["source"])
        for cell in json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
        if cell["cell_type"] == "code"
    ]
    body = "\n".join(textwrap.indent(source, "    ") for source in cells)
    script = tmp_path / "notebook.py"
    script.write_text(f'if __name__ == "__main__":\n{body}\n    print("notebook done")\n')
    env = {**os.environ, "SMSKIT_BASE_ROWS": "20000", "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}  # fmt: skip
    ran = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=240, check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert "notebook done" in ran.stdout
    assert NARRATION not in ran.stderr + ran.stdout
