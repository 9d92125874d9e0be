"""smskit installs like a library: runtime dependencies only, optional parts behind extras,
and a clear error naming the extra when one is missing."""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

import smskit

REPO = Path(__file__).resolve().parent.parent
NOTEBOOK_ONLY = ("plotly", "ipywidgets")


def block(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Make ``modules`` unimportable, and forget smskit's modules that imported them."""
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)
    widget_modules = ("widgets", "base", "composer", "hlr_explorer", "dashboard")
    views = tuple(f"smskit.views.{name}" for name in ("plots", *widget_modules))
    for name in ("smskit.plots", *views):
        monkeypatch.delitem(sys.modules, name, raising=False)
        parent, _, child = name.rpartition(".")
        module = importlib.import_module(parent)
        # Only an attribute the import set: asking the package for an absent one would
        # import it lazily (its __getattr__), with the blocked packages.
        if child in vars(module):
            monkeypatch.delattr(module, child)


def test_runtime_dependencies_leave_notebook_packages_to_the_extra() -> None:
    """`pip install smskit` brings neither plotly nor ipywidgets; [notebook] does; [demo]
    builds on [notebook] and [dev] on the demo, never the other way round."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    runtime = " ".join(project["dependencies"])
    extras = project["optional-dependencies"]
    for package in NOTEBOOK_ONLY:
        assert package not in runtime
        assert any(spec.startswith(package) for spec in extras["notebook"])
    assert "smskit[notebook]" in extras["demo"]
    assert not any(spec.startswith(("pytest", "ruff", "mypy")) for spec in extras["demo"])


def test_plots_without_plotly_name_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Importing smskit.plots without plotly: MissingExtraError (an ImportError) saying
    pip install 'smskit[notebook]'."""
    block(monkeypatch, "plotly", "plotly.graph_objects", "plotly.subplots")
    with pytest.raises(smskit.MissingExtraError) as caught:
        importlib.import_module("smskit.plots")
    assert isinstance(caught.value, ImportError)
    assert "pip install 'smskit[notebook]'" in str(caught.value)
    assert caught.value.extra == "notebook" and caught.value.package == "plotly"


def test_widgets_without_ipywidgets_name_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """smskit.Composer without ipywidgets: MissingExtraError naming ipywidgets and the extra."""
    block(monkeypatch, "ipywidgets")
    with pytest.raises(smskit.MissingExtraError, match=r"ipywidgets.*smskit\[notebook\]"):
        smskit.Composer  # noqa: B018


def test_the_runtime_works_without_the_notebook_packages() -> None:
    """In a process where plotly and ipywidgets cannot be imported: client, HLR breakdown,
    HTML repr, a simulated send and the CLI all work on the embedded sandbox."""
    script = textwrap.dedent(
        """
        import sys
        for name in ("plotly", "ipywidgets"):
            sys.modules[name] = None
        import smskit
        from smskit.cli import main
        client = smskit.Client()
        lines = client.contact.hlr_request(["+33612345678", "+447700900123"])
        assert int(lines.breakdown("line_status").loc["total", "count"]) == 2
        assert "<table" in lines.to_html()
        result = client.sms_campaign.send(text="Promo -20%. STOP au 36173",
                                          recipients=["+33612345678"], sender="MyShop",
                                          simulation_mode=True)
        assert result.number_of_sms_needed == 1
        assert main(["balance"]) == 0
        print("ok")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("ok")
