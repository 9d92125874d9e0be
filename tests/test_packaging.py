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
NOTEBOOK_ONLY = ("plotly", "ipywidgets", "anywidget")


def block(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Make ``modules`` unimportable, and forget smskit's modules that imported them."""
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)
    widget_modules = ("widgets", "widget", "chart_state", "composer", "hlr_explorer", "dashboard")
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


STATS_ONLY = ("statsmodels", "scipy")


def test_the_statistics_stack_is_an_extra_the_notebooks_and_tests_keep() -> None:
    """statsmodels and SciPy are not core dependencies: the `stats` extra holds them, and
    [demo] (notebook 07 compares arms) and [dev] include it."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    runtime = " ".join(project["dependencies"])
    extras = project["optional-dependencies"]
    for package in STATS_ONLY:
        assert package not in runtime
        assert any(spec.startswith(package) for spec in extras["stats"])
    assert "smskit[stats]" in extras["demo"] and "smskit[stats]" in extras["dev"]


def test_every_core_dependency_is_accounted_for_in_the_install_page() -> None:
    """docs/install.md's audit names each core dependency of pyproject.toml with why the
    client, the CLI or the sandbox needs it: a new one cannot join the core unexplained."""
    from packaging.requirements import Requirement

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    page = (REPO / "docs" / "install.md").read_text()
    audited = {
        name.strip().lower()
        for row in page.splitlines()
        if row.startswith("| ") and "MB |" in row
        for name in row.split("|")[1].split(",")
    }
    core = {Requirement(spec).name.lower() for spec in project["dependencies"]}
    assert core - audited == set()
    assert audited.isdisjoint(STATS_ONLY)  # the stack left the core


def test_the_stats_helper_names_the_stats_extra() -> None:
    """In a process without statsmodels (or only without SciPy): compare() and the helper
    raise MissingExtraError (an ImportError) naming the missing package and saying
    pip install 'smskit[stats]'; a module outside the stack is refused."""
    script = textwrap.dedent(
        """
        import sys
        missing = sys.argv[1]
        sys.modules[missing] = None
        import smskit
        from smskit._extras import import_stats
        from smskit.campaigns import compare_counts
        counts = {"sent": 9, "delivered": 5, "replied": 1, "opted_out": 1}
        try:
            compare_counts({"A": counts, "B": counts})
        except smskit.MissingExtraError as exc:
            assert isinstance(exc, ImportError)
            assert (exc.package, exc.extra) == (missing, "stats"), (exc.package, exc.extra)
            assert "Experiment.compare()" in str(exc), str(exc)
            print(exc)
        try:
            import_stats(missing + ".stats", "lift")
        except smskit.MissingExtraError as exc:
            assert exc.extra == "stats" and "lift" in str(exc)
        else:
            raise AssertionError(missing + ".stats imported without " + missing)
        try:
            import_stats("plotly", "a figure")
        except ValueError:
            pass
        else:
            raise AssertionError("a module outside the stack was imported")
        """
    )
    for missing in STATS_ONLY:
        done = subprocess.run(
            [sys.executable, "-c", script, missing], capture_output=True, text=True,
            timeout=120, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().endswith(f"needs {missing}, which is not installed: "
                                            "pip install 'smskit[stats]'"), done.stdout  # fmt: skip


def test_the_stats_helper_returns_the_module_when_installed() -> None:
    """With the stack installed, import_stats is a plain import: the module itself."""
    from smskit._extras import import_stats

    proportion = import_stats("statsmodels.stats.proportion", "Experiment.compare()")
    assert callable(proportion.proportion_confint)


def test_plots_without_plotly_name_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Importing smskit.plots without plotly: MissingExtraError (an ImportError) saying
    pip install 'smskit[notebook]'."""
    block(monkeypatch, "plotly", "plotly.graph_objects", "plotly.subplots")
    with pytest.raises(smskit.MissingExtraError) as caught:
        importlib.import_module("smskit.plots")
    assert isinstance(caught.value, ImportError)
    assert "pip install 'smskit[notebook]'" in str(caught.value)
    assert caught.value.extra == "notebook" and caught.value.package == "plotly"


def test_widgets_without_anywidget_name_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """smskit.Composer without anywidget: MissingExtraError naming anywidget and the extra."""
    block(monkeypatch, "anywidget")
    with pytest.raises(smskit.MissingExtraError, match=r"anywidget.*smskit\[notebook\]"):
        smskit.Composer  # noqa: B018


def test_the_runtime_works_without_the_notebook_packages() -> None:
    """In a process where plotly, ipywidgets, statsmodels and SciPy cannot be imported (no
    extra installed): client, HLR breakdown,
    HTML repr, a simulated send and the CLI all work on the embedded sandbox."""
    script = textwrap.dedent(
        """
        import sys
        for name in ("plotly", "ipywidgets", "anywidget", "statsmodels", "scipy"):
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


def _pins() -> dict[str, str]:
    """constraints.txt as {canonical name: version}; every line a comment or name==version."""
    from packaging.utils import canonicalize_name

    pins: dict[str, str] = {}
    for line in (REPO / "constraints.txt").read_text().splitlines():
        if line.startswith("#"):
            continue
        name, sep, version = line.partition("==")
        assert sep and name and version and " " not in line, f"not name==version: {line!r}"
        pins[canonicalize_name(name)] = version
    return pins


def test_the_lock_pins_every_requirement_within_its_range() -> None:
    """constraints.txt (make lock) pins each package pyproject.toml names, runtime, extras and
    build backend, at a version inside the range pyproject.toml keeps (ranges, never pins)."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    toml = tomllib.loads((REPO / "pyproject.toml").read_text())
    project = toml["project"]
    specs = [*project["dependencies"], *toml["build-system"]["requires"]]
    specs += [spec for extra in project["optional-dependencies"].values() for spec in extra]
    pins = _pins()
    checked = 0
    for spec in specs:
        requirement = Requirement(spec)
        name = canonicalize_name(requirement.name)
        if name == "smskit":  # an extra naming another extra
            continue
        assert not any(s.operator == "==" for s in requirement.specifier), spec
        assert name in pins, f"{spec} is not in constraints.txt: run `make lock`"
        assert requirement.specifier.contains(pins[name], prereleases=True), (spec, pins[name])
        checked += 1
    assert checked >= 30 and "pip" in pins and "hatchling" in pins


def test_every_install_make_runs_takes_the_lock() -> None:
    """Each pip install in the Makefile goes through the one command that passes -c
    constraints.txt (pip and the build backend included)."""
    makefile = (REPO / "Makefile").read_text()
    (definition,) = [line for line in makefile.splitlines() if line.startswith("PIP_INSTALL =")]
    assert "-m pip install" in definition and definition.endswith("-c $(CONSTRAINTS)")
    assert "\nCONSTRAINTS := constraints.txt\n" in makefile
    recipes = [line.strip() for line in makefile.splitlines() if line.startswith("\t")]
    installs = [line for line in recipes if "pip install" in line or "$(PIP_INSTALL)" in line]
    assert installs and all(line.startswith("$(PIP_INSTALL)") for line in installs), installs
    assert any("--build-constraint $(CONSTRAINTS)" in line for line in installs)
