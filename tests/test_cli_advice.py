"""Advice given at the shell names the command's options and environment variables, never
Python (``pass allow_insecure=True``, ``pass client=smskit.Client(...)``): errors carry
their fact and the arguments their advice names (``SmskitError.fact`` / ``remedy``), and
the command words the advice (``cli/main.py`` ``CLI_REMEDY``). Every string of the package
that gives Python advice is either advised so, or listed here as never reaching the shell."""

from __future__ import annotations

import ast
import functools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from smskit.cli.main import CLI_REMEDY
from smskit.rules.findings import MESSAGES
from smskit.sandbox import Sandbox

REPO = Path(__file__).resolve().parent.parent
PYTHON_ADVICE = re.compile(r"\bpass [\w.]+[=(]|smskit\.\w+\(|\w+\(\.\.\.\)|\bpass pathlib")
# Python advice that no command can meet, with why.
NOT_AT_THE_SHELL = {
    "smskit/campaigns/analysis/outcomes.py": "outcomes() of a result: no command asks it",
    "smskit/client/clients.py:_lent": "a Client made with transport=: the CLI's never is",
    "smskit/campaigns/campaign.py": "send checks the journal first (cli/sendcheck.check_journal)",
    "smskit/dask/campaign.py": "the Dask campaign: no command",
    "smskit/dask/sending.py": "the Dask campaign: no command",
    "smskit/replies/inbox.py": "an Inbox's repr in a notebook",
    "smskit/rules/recipients.py:check_collection": "another library's objects: no command",
    "smskit/rules/orders.py:_not_a_table": "orders are read by a result's conversions, lift "
    "and attribution: no command reads them",
    "smskit/views/pure_panel.py": "the Composer's panel",
}


@functools.cache
def package_trees() -> tuple[tuple[Path, str, ast.Module], ...]:
    """(path, source, syntax tree) of each module of the package, parsed once per run."""
    found = []
    for path in sorted((REPO / "smskit").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        found.append((path, source, ast.parse(source)))
    return tuple(found)


@functools.cache
def python_advice_sites() -> tuple[tuple[str, str, bool], ...]:
    """(module, enclosing function, advised) of each string constant (not a docstring)
    giving Python advice; advised: the function passes it through ``advised(...)``."""
    found = []
    for path, source, tree in package_trees():
        module = str(path.relative_to(REPO))
        docs = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        scopes = [
            n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        ]
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            if id(node) in docs or not PYTHON_ADVICE.search(node.value):
                continue
            inside = [f for f in scopes if f.lineno <= node.lineno <= (f.end_lineno or 0)]
            scope = inside[-1] if inside else tree
            name = inside[-1].name if inside else "<module>"
            calls = {c.func.id for c in ast.walk(scope)
                     if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}  # fmt: skip
            users = "advised" in calls or (name == "<module>" and "advised(" in source)
            found.append((module, name, users))
    return tuple(found)


def test_every_python_advice_is_advised_or_never_at_the_shell() -> None:
    """Each string giving Python advice sits in a function that raises it through
    advised(...) (so the shell words it), or in a module listed as never met at the shell."""
    left = [
        (module, name)
        for module, name, is_advised in python_advice_sites()
        if not is_advised and module not in NOT_AT_THE_SHELL
        and f"{module}:{name}" not in NOT_AT_THE_SHELL
    ]  # fmt: skip
    assert left == []
    assert {m for m, _, advised in python_advice_sites() if advised} >= {
        "smskit/client/config.py", "smskit/campaigns/sending/reconnect.py",
        "smskit/rules/recipients.py",
    }  # fmt: skip


def test_every_remedy_the_library_names_has_shell_words() -> None:
    """Each remedy name passed to advised(...) in the package has its CLI wording."""
    named = set()
    for _, _, tree in package_trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "advised":
                named |= {a.value for a in node.args[2:] if isinstance(a, ast.Constant)}
    assert named and named <= set(CLI_REMEDY)


def smskit(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "smskit", *args], capture_output=True,
                          text=True, timeout=120, env=env, check=False)  # fmt: skip


@pytest.mark.parametrize(
    ("variables", "args", "code", "says"),
    [
        (
            {
                "SMSKIT_BASE_URL": "http://gw.example",
                "SMSKIT_API_LOGIN": "acme",
                "SMSKIT_API_KEY": "k3y-0123456789",
            },
            ["balance"],
            3,
            "https:// URL",
        ),
        (
            {"SMSKIT_API_LOGIN": "acme", "SMSKIT_API_KEY": "k3y-0123456789"},
            ["balance"],
            3,
            "set SMSKIT_BASE_URL",
        ),
    ],
    ids=["plain http", "no URL"],
)
def test_advice_at_the_shell_names_options_and_variables(
    variables: dict[str, str], args: list[str], code: int, says: str, tmp_path: Path
) -> None:
    """As real processes: the refusal is one line naming the variable or option to set, and
    no Python (`pass ...=`, `smskit.Client(`, `pathlib.Path(`)."""
    csv = tmp_path / "contacts.csv"
    csv.write_text("phone_number\n+33612345678\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SMSKIT_")}
    env |= variables | {"XDG_DATA_HOME": str(tmp_path / "d"), "XDG_CACHE_HOME": str(tmp_path / "c")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    done = smskit(env, *[a.replace("{csv}", str(csv)) for a in args])
    lines = done.stderr.strip().splitlines()
    assert done.returncode == code, done.stderr
    assert len(lines) == 1 and says in lines[0], done.stderr
    assert not PYTHON_ADVICE.search(lines[0]) and "=True" not in lines[0], lines[0]


def test_no_finding_is_worded_in_python() -> None:
    """Each finding's message reaches the shell as it is (`smskit send`'s Warning: lines):
    none spells a Python argument (`with_replies=True`, `include_opted_out=True`), which
    the command knows as --with-replies and --include-opted-out."""
    python = re.compile(r"\b[a-z_]+=(True|False|None)\b|\bpass [\w.]+[=(]")
    assert [code for code, text in MESSAGES.items() if python.search(text)] == []


def test_send_s_warnings_are_in_the_shell_s_words(fresh_sandbox: Sandbox, tmp_path: Path) -> None:
    """`smskit send --with-replies --include-opted-out --dry-run` to a number on the list:
    its Warning: lines said "with_replies=True: ..." and "(include_opted_out=True, ...)";
    now they say what holds, in no language's spelling. As a real process; nothing sent."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SMSKIT_")}
    env |= {"XDG_DATA_HOME": str(tmp_path / "d"), "XDG_CACHE_HOME": str(tmp_path / "c"),
            "SMSKIT_BASE_URL": fresh_sandbox.url, "SMSKIT_API_LOGIN": fresh_sandbox.login,
            "SMSKIT_API_KEY": fresh_sandbox.api_key}  # fmt: skip
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    assert smskit(env, "optouts", "add", "+33612345679").returncode == 0
    done = smskit(env, "send", "--text", "Votre colis est prêt", "--sender", "Shop",
                  "--purpose", "alert", "--to", "+33612345678", "--to", "+33612345679",
                  "--with-replies", "--include-opted-out", "--dry-run")  # fmt: skip
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stdout.splitlines() if line.startswith("Warning:")]
    assert warnings == [
        "Warning: replies allowed: the sender is replaced by the gateway's short number",
        "Warning: 1 recipient(s) on the opt-out list are sent to anyway (opted-out numbers "
        "included, a transactional send)",
        "Warning: 1 recipient(s): opted out, sent anyway (opted-out numbers included, a "
        "transactional send) (row 1)",
    ]
    assert fresh_sandbox.sent().empty


def test_the_purpose_rules_are_in_the_shell_s_words(fresh_sandbox: Sandbox, tmp_path: Path) -> None:
    """A marketing text without STOP, a sender with a space and opted-out numbers in a
    marketing send: each refusal said `use purpose='alert'`, `with_replies=True`,
    `(purpose='wholesale', the default)`, Python spellings of what the command knows as
    --purpose alert and --with-replies. As real processes; exit 4, nothing sent."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SMSKIT_")}
    env |= {"XDG_DATA_HOME": str(tmp_path / "d"), "XDG_CACHE_HOME": str(tmp_path / "c"),
            "SMSKIT_BASE_URL": fresh_sandbox.url, "SMSKIT_API_LOGIN": fresh_sandbox.login,
            "SMSKIT_API_KEY": fresh_sandbox.api_key}  # fmt: skip
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    to = ("--to", "+33612345678", "--dry-run")
    cases = {
        ("--text", "Promo -10%", "--sender", "Shop"): "smskit: error: --text: a marketing "
        "text (purpose wholesale, the default) needs a STOP mention, e.g. 'STOP au 36173'; a "
        "transactional message is sent with purpose alert",
        ("--text", "Promo STOP au 36173", "--sender", "My Shop"): "smskit: error: --sender: "
        "only letters a-z A-Z, digits (spaces only in a transactional send, purpose alert, or "
        "one with replies) (got 'My Shop')",
        ("--text", "Promo STOP au 36173", "--sender", "Shop", "--include-opted-out"): "smskit: "
        "error: --include-opted-out: only a transactional send (purpose alert) may include "
        "numbers that opted out; a marketing send (purpose wholesale, the default) never does",
    }
    python = re.compile(r"\b[a-z_]+=")
    for args, line in cases.items():
        done = smskit(env, "send", *args, *to)
        assert (done.returncode, done.stderr.strip()) == (4, line)
        assert not python.search(done.stderr)
    assert fresh_sandbox.sent().empty
