"""A notebook's saved widget state carries the widgets' current front end.

JupyterLab restores a notebook's saved widget models as it opens, and anywidget keeps one
stylesheet and module per widget class: a saved ``_esm`` or ``_css`` older than the package's
can win over the current one after Run All (a race), and an exported or opened page shows the
old widget. Every stored smskit widget must therefore hold the package's current module and
stylesheet; when one changes, the notebook is executed again in place
(``python notebooks/_export/export_notebooks.py --in-place NOTEBOOK``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from smskit.views.composer import Composer
from smskit.views.dashboard import Dashboard
from smskit.views.hlr_explorer import HLRExplorer

NOTEBOOKS = sorted((Path(__file__).parents[1] / "notebooks").glob("*.ipynb"))
STATE_MIME = "application/vnd.jupyter.widget-state+json"
WIDGETS = {f"{cls.__module__}.{cls.__name__}": cls for cls in (Composer, Dashboard, HLRExplorer)}


def saved_widgets(notebook: Path) -> list[dict[str, Any]]:
    """The saved states of the smskit widgets in ``notebook``'s metadata."""
    metadata = json.loads(notebook.read_text(encoding="utf-8")).get("metadata", {})
    models = metadata.get("widgets", {}).get(STATE_MIME, {}).get("state", {})
    return [
        model["state"]
        for model in models.values()
        if model.get("state", {}).get("_anywidget_id", "").startswith("smskit.")
    ]


def stale_parts(state: dict[str, Any]) -> list[str]:
    """Which of ``_esm`` and ``_css`` differ from the package's current ones."""
    widget = WIDGETS[state["_anywidget_id"]]
    current = {"_esm": str(widget._esm), "_css": str(widget._css)}
    return [part for part, text in current.items() if state.get(part) != text]


def test_the_notebooks_save_smskit_widgets() -> None:
    # the check below must have something to look at: notebook 03 shows all three widgets
    saved = [state["_anywidget_id"] for nb in NOTEBOOKS for state in saved_widgets(nb)]
    assert set(saved) == set(WIDGETS)


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)
def test_saved_widgets_carry_the_current_module_and_stylesheet(notebook: Path) -> None:
    stale = {
        state["_anywidget_id"]: parts
        for state in saved_widgets(notebook)
        if (parts := stale_parts(state))
    }
    assert not stale, (
        f"{notebook.name} saves an older front end for {stale}: run "
        f"`python notebooks/_export/export_notebooks.py --in-place notebooks/{notebook.name}`"
    )


def test_an_older_saved_module_or_stylesheet_is_found() -> None:
    # the check itself: one character changed in a saved module or stylesheet is reported
    for name, widget in WIDGETS.items():
        esm, css = str(widget._esm), str(widget._css)
        assert stale_parts({"_anywidget_id": name, "_esm": esm, "_css": css}) == []
        assert stale_parts({"_anywidget_id": name, "_esm": esm + " ", "_css": css}) == ["_esm"]
        assert stale_parts({"_anywidget_id": name, "_esm": esm}) == ["_css"]
