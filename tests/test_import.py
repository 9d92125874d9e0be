"""``import smskit`` stays light, exposes its public surface, and the CLI answers."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import smskit
from smskit import cli


def _modules_after(statement: str) -> set[str]:
    """Top-level modules loaded by ``statement`` in a fresh interpreter."""
    script = f"{statement}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    return {name.split(".")[0] for name in json.loads(out.splitlines()[-1])}


def test_import_does_not_load_ui_or_server_packages() -> None:
    """plotly, ipywidgets, uvicorn and starlette are not imported by ``import smskit``."""
    loaded = _modules_after("import smskit")
    assert loaded.isdisjoint({"plotly", "ipywidgets", "uvicorn", "starlette"})


def test_import_defers_pandas_and_jinja2() -> None:
    """pandas and jinja2 load on first use (to_frame, _repr_html_): that keeps the 1.2x budget."""
    loaded = _modules_after("import smskit")
    assert loaded.isdisjoint({"pandas", "numpy", "jinja2", "phonenumbers"})
    assert "pandas" in _modules_after("import smskit; smskit.HLRResults([]).to_frame()")


def test_first_hlr_answer_loads_neither_pandas_nor_pyarrow() -> None:
    """Client() on the embedded sandbox and a first HLR answer read one number on each side:
    neither pandas nor pyarrow is imported for it (issue #15: start-up); a frame is."""
    hlr = "import smskit; smskit.Client().contact.hlr_request(['+33612345678'])"
    loaded = _modules_after(hlr)
    assert "phonenumbers" in loaded and "starlette" in loaded  # the sandbox answered
    assert loaded.isdisjoint({"pandas", "pyarrow"})
    assert "pandas" in _modules_after(f"{hlr}.to_frame()")


def test_statsmodels_loads_only_for_a_comparison() -> None:
    """statsmodels and scipy load when an experiment's arms are compared, not with
    ``import smskit`` nor with smskit.Experiment and its split."""
    split = (
        "import smskit; smskit.Experiment; smskit.campaigns.analysis.split.assign_arms(10, 2, 1)"
    )
    assert _modules_after(split).isdisjoint({"statsmodels", "scipy"})
    compare = "from smskit.campaigns import compare_counts; compare_counts({'A': c, 'B': c})"
    counts = "c = {'sent': 9, 'delivered': 5, 'replied': 1, 'opted_out': 1}"
    assert "statsmodels" in _modules_after(f"{counts}\n{compare}")


def test_import_does_not_load_dask() -> None:
    """dask and distributed load only with smskit.dask; the facades that dispatch to it too."""
    loaded = _modules_after("import smskit, smskit.text, smskit.phones")
    assert loaded.isdisjoint({"dask", "distributed"})
    assert "dask" in _modules_after("import smskit.dask")


def test_public_names_resolve() -> None:
    """Every name in smskit.__all__ is an attribute (the lazy ones included)."""
    for name in smskit.__all__:
        assert getattr(smskit, name) is not None


def test_lazy_attributes() -> None:
    """Sandbox, __version__ and submodules come through the module __getattr__."""
    from smskit._version import __version__
    from smskit.sandbox import Sandbox

    assert smskit.Sandbox is Sandbox
    assert smskit.__version__ == __version__
    assert smskit.text.has_stop_mention("STOP au 36173")
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = smskit.nope


def test_cli_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    """``smskit version`` prints ``smskit <version>`` and exits 0."""
    assert cli.main(["version"]) == 0
    assert capsys.readouterr().out.strip() == f"smskit {smskit.__version__}"


def test_cli_sandbox_help_names_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    """``smskit sandbox --help`` calls itself ``smskit sandbox`` and lists its options."""
    assert cli.main(["sandbox", "--help"]) == 0
    out = capsys.readouterr().out
    assert "Usage: smskit sandbox" in out and "--port" in out


def test_cli_rejects_unknown_commands(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown command is a usage error (exit status 2) in one line."""
    assert cli.main(["launch"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("smskit: error: No such command 'launch'.")
