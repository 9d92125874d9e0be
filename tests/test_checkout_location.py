"""No test depends on where the checkout lives: the tests that look at paths (frames'
file names, tracebacks with locals, files found from ``__file__``) run again from a copy of
the checkout in a directory named ``smskit`` (what ``git clone`` makes) under a directory
whose name has a space.

The tests to run are found, not listed: every test function whose source (or a helper it
calls) reads a frame's file name, captures locals or locates a file from this checkout, so a
new test of that kind is run from the copy without anyone adding it here.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# What makes a test's verdict depend on the checkout's place: a frame's file name, or locals
# captured from a traceback (then filtered by file). Tests that only find a file from
# ``__file__`` build it with pathlib, which any directory name survives.
LOCATION_MARKERS = re.compile(r"capture_locals|\.filename\b|co_filename|extract_tb|walk_tb")
# Not copied: environments, build output, caches, the exporter's npm packages.
NOT_COPIED = shutil.ignore_patterns(
    ".git", ".venv", "build", "node_modules", "__pycache__", "*.egg-info", ".*_cache", "_site"
)


def _calls(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def _marked_in(path: Path) -> list[str]:
    """The test functions of one module that match the markers, or call a module-level
    helper that does (directly or through another helper)."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()  # sliced by line numbers: ast.get_source_segment splits per call
    functions = {
        node.name: (node, "\n".join(lines[node.lineno - 1 : node.end_lineno]))
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    helpers = {
        name
        for name, (_, text) in functions.items()
        if not name.startswith("test_") and LOCATION_MARKERS.search(text)
    }
    while more := {
        name
        for name, (node, _) in functions.items()
        if not name.startswith("test_") and name not in helpers and _calls(node, helpers)
    }:
        helpers |= more
    return [
        name
        for name, (node, text) in functions.items()
        if name.startswith("test_") and (LOCATION_MARKERS.search(text) or _calls(node, helpers))
    ]


def location_sensitive_tests(tests: Path) -> list[str]:
    """Node ids (relative to the checkout) of the test functions of ``tests/test_*.py`` whose
    source, or a module-level helper they call, matches :data:`LOCATION_MARKERS`."""
    return [
        f"tests/{path.name}::{name}"
        for path in sorted(tests.glob("test_*.py"))
        for name in _marked_in(path)
    ]


def test_the_finder_sees_the_tests_that_read_frames_file_names() -> None:
    """The selection holds the tests that filter a traceback's frames by file (the one that
    failed in a clone named smskit among them), and only tests of tests/."""
    found = location_sensitive_tests(REPO / "tests")
    assert (
        "tests/test_journeys_after_send.py::"
        "test_secrets_given_to_a_refused_sandbox_or_inbox_are_not_in_its_locals"
    ) in found
    assert "tests/test_key_containment.py::test_no_frame_of_a_failed_call_shows_the_key" in found
    assert all(node.startswith("tests/test_") for node in found)


def test_no_test_or_tool_runs_a_command_through_a_shell() -> None:
    """A path with a space survives only as one argument: tests, tools and benchmarks run
    processes from argument lists, never through a shell (shell=True, os.system, os.popen)."""
    through_a_shell = re.compile(r"shell\s*=\s*True|os\.system\(|os\.popen\(")
    folders = ("tests", "tools", "benchmarks", "smskit")
    sources = [p for folder in folders for p in (REPO / folder).rglob("*.py")]
    assert sources
    assert [
        str(p.relative_to(REPO)) for p in sources
        if p.resolve() != Path(__file__).resolve()
        and through_a_shell.search(p.read_text(encoding="utf-8"))
    ] == []  # fmt: skip


@pytest.mark.slow
def test_location_sensitive_tests_pass_from_a_clone_named_smskit_under_a_spaced_path(
    tmp_path: Path,
) -> None:
    """Copied to ``<tmp>/my work/smskit`` and imported from there (PYTHONPATH names only the
    copy), every location-sensitive test passes."""
    clone = tmp_path / "my work" / "smskit"
    shutil.copytree(REPO, clone, ignore=NOT_COPIED, symlinks=True)
    this_test = f"tests/{Path(__file__).name}"
    selected = [n for n in location_sensitive_tests(clone / "tests") if not n.startswith(this_test)]
    environ = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTEST_", "SMSKIT_", "COV_"))
    }
    environ["PYTHONPATH"] = str(clone)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         "-x", *selected],
        cwd=clone, env=environ, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    report = done.stdout[-4000:] + done.stderr[-2000:]
    assert done.returncode == 0, report
    passed = re.search(r"(\d+) passed", done.stdout)  # a parametrized test counts per case
    assert passed is not None and int(passed.group(1)) >= len(selected), report
    imported = subprocess.run(
        [sys.executable, "-c", "import smskit; print(smskit.__file__)"],
        cwd=tmp_path, env=environ, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    assert Path(imported).resolve() == (clone / "smskit" / "__init__.py").resolve()
