"""A setting of the environment smskit refuses is configuration at the shell: exit 3 and one
line ``smskit: error: VARIABLE: rule (got 'value')`` naming the variable, as a refused
SMSKIT_DEFAULT_REGION or SMSKIT_NOW always was; never exit 4 (the input: options and files)
nor a Python class name ("ValidationError: SMSKIT_TIME_ZONE: ..."), and nothing sent; the
line says what a shell can set instead (unset it, or empty), never a Python None."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from smskit.cli.output import EXIT_CONFIG
from smskit.sandbox import Sandbox

REPO = Path(__file__).resolve().parent.parent
PROMO = ["send", "--text", "Promo -20% STOP au 36173", "--sender", "Shop", "--outside-hours",
         "--to", "+33612345678", "--yes"]  # fmt: skip
JOURNAL_LIST = ["campaign", "list"]


@pytest.mark.parametrize(
    ("variable", "value", "command"),
    [
        ("SMSKIT_FREQUENCY_CAP", "x", PROMO),
        ("SMSKIT_TIME_ZONE", "Mars/Base", JOURNAL_LIST),
        ("SMSKIT_DEFAULT_REGION", "XX", PROMO),
        ("SMSKIT_NOW", "yesterday", PROMO),
        ("SMSKIT_OPTOUTS_PATH", "/no-such-directory/optouts.sqlite", PROMO),
    ],
)
def test_a_refused_setting_is_configuration_in_one_line_naming_it(
    variable: str, value: str, command: list[str], fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Each refused SMSKIT_* setting, as a real process against a sandbox over HTTP: exit 3,
    one line starting with the variable and naming its value, nothing sent."""
    path = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "SMSKIT_BASE_URL": fresh_sandbox.url,
           "SMSKIT_API_LOGIN": fresh_sandbox.login, "SMSKIT_API_KEY": fresh_sandbox.api_key,
           "XDG_DATA_HOME": str(tmp_path), variable: value, "PYTHONPATH": path}  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "smskit", *command], env=env,
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    lines = done.stderr.strip().splitlines()
    assert done.returncode == EXIT_CONFIG, done.stderr
    assert len(lines) == 1 and lines[0].startswith(f"smskit: error: {variable}"), lines
    assert repr(value) in lines[0] and "Error:" not in lines[0], lines
    assert "unset" in lines[0] and "None" not in lines[0], lines  # what a shell can do
    assert fresh_sandbox.sent().empty
