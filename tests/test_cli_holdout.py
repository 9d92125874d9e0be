"""``smskit send --holdout`` in real processes: the dry run shows how many are held out and
sends nothing, the send keeps the held-out recipients (the library's seeded selection) from
the gateway, a size that is neither a share nor a count and a seed without a holdout are
usage errors (exit 2) naming the option."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import smskit
from smskit.sandbox import Sandbox

REPO = Path(__file__).resolve().parent.parent
TEXT = "Promo -20% STOP au 36173"
Completed = subprocess.CompletedProcess[str]
NUMBERS = [f"+3361{i:07d}" for i in range(40)]


def runner(fresh_sandbox: Sandbox, tmp_path: Path) -> Callable[..., Completed]:
    """``smskit`` as a fresh process against the sandbox, at a permitted hour."""
    env = {
        **os.environ,
        "SMSKIT_BASE_URL": fresh_sandbox.url,
        "SMSKIT_API_LOGIN": fresh_sandbox.login,
        "SMSKIT_API_KEY": fresh_sandbox.api_key,
        "SMSKIT_NOW": "2026-03-03T10:00:00+01:00",
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])

    def run(*args: str) -> Completed:
        command = [sys.executable, "-m", "smskit", *args]
        return subprocess.run(
            command, capture_output=True, text=True, timeout=120, env=env, check=False, cwd=tmp_path
        )

    return run


def test_send_holds_out_the_seeded_recipients(fresh_sandbox: Sandbox, tmp_path: Path) -> None:
    """The dry run says 10 of 40 held out and sends nothing; the send sends the other 30,
    never one the library's holdout (same seed) picks."""
    csv = tmp_path / "recipients.csv"
    csv.write_text("phone_number\n" + "\n".join(NUMBERS) + "\n")
    run = runner(fresh_sandbox, tmp_path)
    args = ("send", "--text", TEXT, "--sender", "Shop", "--csv", str(csv),
            "--holdout", "0.25", "--holdout-seed", "3", "--name", "june")  # fmt: skip
    dry = run(*args, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "held_out    10" in dry.stdout and "to_send     30" in dry.stdout
    assert "Excluded: 10 recipient(s): held_out: seed 3" in dry.stdout
    scripted = run(*args, "--dry-run", "--json")
    document = json.loads(scripted.stdout)
    assert document["preflight"]["held_out"] == 10 and document["estimate"]["sms"] == 30
    assert fresh_sandbox.sent().empty
    sent = run(*args, "--yes")
    assert sent.returncode == 0, sent.stderr
    library = smskit.Campaign(None, NUMBERS, text=TEXT, sender="Shop", holdout=0.25, seed=3)
    frame = library.preflight(offline=True).frame
    held = set(frame.loc[frame["issue"] == "held_out", "phone_number"])
    delivered = set(fresh_sandbox.sent()["phone_number"])
    assert len(held) == 10 and delivered == set(NUMBERS) - held


def test_bad_holdout_options_are_usage_errors(fresh_sandbox: Sandbox, tmp_path: Path) -> None:
    """--holdout 1.5 or 0 and --holdout-seed alone exit 2 with one message naming the option;
    nothing is sent."""
    run = runner(fresh_sandbox, tmp_path)
    base = ("send", "--text", TEXT, "--sender", "Shop", "--to", NUMBERS[0], "--yes")
    for size in ("1.5", "0", "ten", "-3"):
        refused = run(*base, "--holdout", size)
        assert refused.returncode == 2 and "--holdout" in refused.stderr, refused.stderr
        assert refused.stdout == ""
    alone = run(*base, "--holdout-seed", "4")
    assert alone.returncode == 2 and "--holdout-seed" in alone.stderr
    assert fresh_sandbox.sent().empty
