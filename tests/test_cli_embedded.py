"""The ``smskit`` command on a fresh machine (no ``SMSKIT_*`` variable set), as real
processes: every command uses the embedded sandbox, ``optouts`` too, and what smskit keeps
per account (the HLR cache, the opt-out list) is the embedded sandbox's from one command to
the next, though each process starts its own on another port."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def fresh_machine(tmp_path: Path) -> dict[str, str]:
    """The environment of a machine where nothing is configured (per-user dirs of its own)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SMSKIT_")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    env["XDG_DATA_HOME"], env["XDG_CACHE_HOME"] = str(tmp_path / "data"), str(tmp_path / "cache")
    return env


def smskit(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "smskit", *args], capture_output=True,
                          text=True, timeout=120, env=env, check=False)  # fmt: skip


def test_the_hlr_cache_hits_across_two_runs_on_the_embedded_sandbox(tmp_path: Path) -> None:
    """Two `smskit hlr NUMBER --json` runs: the second answers from the cache (it never hit:
    the cache was keyed by each process's sandbox URL, another port each time)."""
    env = fresh_machine(tmp_path)
    first = smskit(env, "hlr", "+33612345678", "0698765432", "--json")
    second = smskit(env, "hlr", "+33612345678", "0698765432", "--json")
    assert first.returncode == 0 and second.returncode == 0, (first.stderr, second.stderr)
    assert json.loads(first.stdout)["cached"] == 0
    assert json.loads(second.stdout)["cached"] == 2
    assert json.loads(second.stdout)["breakdown"] == json.loads(first.stdout)["breakdown"]


def test_optouts_on_a_fresh_machine_use_the_embedded_sandboxs_list(tmp_path: Path) -> None:
    """`optouts list` with nothing configured exits 0 (it exited 3 asking for
    SMSKIT_BASE_URL); a number added in one process is listed by the next, and a send's
    preflight on the embedded sandbox excludes it (opted_out)."""
    env = fresh_machine(tmp_path)
    empty = smskit(env, "optouts", "list")
    assert empty.returncode == 0 and "No number on the opt-out list" in empty.stdout, empty.stderr
    assert smskit(env, "optouts", "add", "+33612345678").returncode == 0
    listed = smskit(env, "optouts", "list", "--json")
    assert listed.returncode == 0
    assert [r["phone_number"] for r in json.loads(listed.stdout)["optouts"]] == ["+33612345678"]
    dry = smskit(env, "send", "--text", "Promo -20% STOP au 36173", "--sender", "Shop",
                 "--to", "+33612345678", "--to", "+33612345679", "--dry-run", "--json",
                 "--outside-hours")  # fmt: skip
    assert dry.returncode == 0, dry.stderr
    excluded = json.loads(dry.stdout)["excluded"]
    assert [(r["phone_number"], r["issue"]) for r in excluded] == [("+33612345678", "opted_out")]


def test_a_half_configured_optouts_account_is_refused_naming_both_variables(
    tmp_path: Path,
) -> None:
    """SMSKIT_BASE_URL without SMSKIT_API_LOGIN: exit 3 naming both (never the sandbox's
    list taken for that account's)."""
    env = {**fresh_machine(tmp_path), "SMSKIT_BASE_URL": "https://gw.example"}
    result = smskit(env, "optouts", "list")
    assert result.returncode == 3
    assert "SMSKIT_API_LOGIN" in result.stderr and "pass client" not in result.stderr
