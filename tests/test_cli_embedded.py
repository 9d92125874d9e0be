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


def test_a_send_the_embedded_sandbox_could_not_finish_is_never_advised_a_resume(
    tmp_path: Path,
) -> None:
    """A send on the embedded sandbox that ran out of credit: its sandbox ends with the
    command, so `campaign resume` refuses it (exit 3). The send, `campaign status` and the
    repeat guard advised exactly that resume (each pointing at the other: send -> resume ->
    "send again" -> exit 9 -> resume); they say --again, and --again sends it."""
    env = fresh_machine(tmp_path)
    contacts = tmp_path / "contacts.csv"
    contacts.write_text("phone_number\n" + "".join(f"+3361{i:07d}\n" for i in range(2500)))
    send = ("send", "--text", "x" * 1200, "--sender", "Shop", "--purpose", "alert",
            "--csv", str(contacts), "--yes")  # fmt: skip  # 8 SMS each: 1,000 EUR pays 1,500
    first = smskit(env, *send)
    assert first.returncode == 7, first.stderr
    [journal] = (tmp_path / "data" / "smskit" / "campaigns").glob("*.journal.sqlite")
    status = smskit(env, "campaign", "status", str(journal))
    repeat = smskit(env, *send)
    resume = smskit(env, "campaign", "resume", str(journal))
    assert (status.returncode, repeat.returncode, resume.returncode) == (7, 9, 3)
    assert "not sent" in first.stderr and "not finished" in repeat.stderr
    for done in (first, status, repeat, resume):
        assert "smskit campaign resume" not in done.stderr, done.stderr
        assert "embedded sandbox" in done.stderr and "--again" in done.stderr, done.stderr
    again = smskit(env, *send, "--again")
    assert again.returncode == 7, again.stderr  # sent again (as far as the credit goes)
    assert len(list(journal.parent.glob("*.journal.sqlite"))) == 2
