"""Every Python block of README.md runs as pasted, in order, in one session (Sybil), and as
one script twice in a row in new processes; the Dask block of docs/dask.md, written as a
script, runs as a script."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from sybil import Sybil
from sybil.parsers.markdown import PythonCodeBlockParser

import smskit

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
DASK_PAGE = REPO / "docs" / "dask.md"
ENV = ("SMSKIT_API_LOGIN", "SMSKIT_API_KEY", "SMSKIT_BASE_URL")


# What `make test`'s other jobs write beside this test while it runs (the docs build, lint's
# caches, the other pytest worker's pages and examples database): never a README block.
TOOL_OUTPUT = {"build", ".hypothesis", ".mypy_cache", ".ruff_cache", ".pytest_cache"}


def _checkout_entries() -> list[str]:
    """The names at the checkout's top, but for the tools' output."""
    return sorted(path.name for path in REPO.iterdir() if path.name not in TOOL_OUTPUT)


def test_every_readme_python_block_runs_as_pasted(
    monkeypatch: pytest.MonkeyPatch, user_dirs: Path
) -> None:
    """The loop's cells (HLR, preflight, send, outcomes) run one after another from the
    checkout with no SMSKIT_* set, as a new user would paste them; none writes into the
    checkout, and the campaign's journal is in the per-user data directory."""
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(REPO)
    before = _checkout_entries()
    document = Sybil(parsers=[PythonCodeBlockParser()]).parse(README)
    document.namespace["__name__"] = "__main__"  # as in a notebook or `python script.py`
    examples = list(document.examples())
    assert len(examples) >= 4
    try:
        for example in examples:
            try:
                example.evaluate()
            except Exception as exc:  # name the block: README line numbers, not exec frames
                raise AssertionError(f"README.md line {example.line}: {exc!r}") from exc
    finally:
        for value in document.namespace.values():
            if isinstance(value, smskit.Sandbox | smskit.Inbox):
                value.stop()
    assert _checkout_entries() == before
    assert (user_dirs / "data" / "smskit" / "campaigns" / "order-ready.journal.sqlite").is_file()


def _script_blocks(page: Path) -> list[str]:
    """A page's Python blocks written as scripts (with a ``__main__`` guard)."""
    blocks = re.findall(r"^```python\n(.*?)^```", page.read_text(), re.M | re.S)
    return [block for block in blocks if 'if __name__ == "__main__":' in block]


def test_the_dask_block_runs_as_a_script(tmp_path: Path, user_dirs: Path) -> None:
    """docs/dask.md's preflight block saved as a file runs with `python file.py` (its local
    cluster's worker processes import the script again: the guard keeps them from starting
    a cluster of their own) and prints the report, with no SMSKIT_* set."""
    (block,) = _script_blocks(DASK_PAGE)
    assert "smskit.dask.connect" in block
    script = tmp_path / "preflight.py"
    script.write_text(block)
    env = {k: v for k, v in os.environ.items() if k not in ENV}
    run = subprocess.run(
        [sys.executable, str(script)], cwd=REPO, env=env, capture_output=True, text=True,
        timeout=240, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    assert "to_send" in run.stdout and "encoding" in run.stdout, run.stdout  # both frames


def _readme_script() -> str:
    """README's Python blocks, in order, as one script (each cell uses the ones before it)."""
    blocks = re.findall(r"^```python\n(.*?)^```", README.read_text(), re.M | re.S)
    assert len(blocks) >= 4 and not _script_blocks(README)
    return "\n".join(blocks)


def test_the_readme_runs_twice_in_a_row_in_new_processes(tmp_path: Path, user_dirs: Path) -> None:
    """The README's cells saved as a script run twice, each time in a new Python process with
    the same per-user directories (the first run's journal and HLR cache still there) and no
    SMSKIT_* set: both exit 0 with no traceback, each having sent and read its outcomes (what
    a newcomer sees re-running the README, or a notebook made from it)."""
    script = tmp_path / "readme.py"
    script.write_text(_readme_script() + '\nprint("outcomes:", len(outcomes))\n')
    env = {k: v for k, v in os.environ.items() if k not in ENV}
    command = [sys.executable, str(script)]
    runs = []
    for _ in range(2):
        run = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True,
                             timeout=240, check=False)  # fmt: skip
        runs.append(run)
    for run in runs:
        assert run.returncode == 0, run.stderr[-3000:]
        assert "Traceback" not in run.stderr, run.stderr[-3000:]
        (line,) = [line for line in run.stdout.splitlines() if line.startswith("outcomes:")]
        assert int(line.split()[1]) > 0
