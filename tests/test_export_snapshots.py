"""The exporter's widget snapshots: a view shows its models as they were when its cell ended,
and a widget's last view its last state."""

from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import Any

import nbformat
from browser._exporter import exporter
from nbformat.v4 import new_code_cell, new_notebook, new_output

VIEW = "application/vnd.jupyter.widget-view+json"


def _view_cell(model_id: str) -> Any:
    cell = new_code_cell("composer")
    cell.outputs = [new_output("display_data", data={VIEW: {"model_id": model_id}})]
    return cell


def _state(name: str, **values: Any) -> dict[str, Any]:
    return {"_model_name": name, "_model_module": "@jupyter-widgets/controls",
            "_model_module_version": "2.0.0", **values}  # fmt: skip


def _metadata(state: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        exporter.WIDGET_STATE_MIME: {
            "state": {
                model_id: {"model_name": s["_model_name"], "model_module": s["_model_module"],
                           "model_module_version": s["_model_module_version"], "state": s}
                for model_id, s in state.items()
            },
            "version_major": 2,
            "version_minor": 0,
        }
    }  # fmt: skip


def test_a_view_changed_by_later_cells_shows_its_own_cells_state() -> None:
    """Box b shows label l; a later cell changes l: the first view gets copies as they were,
    the view displayed after the change keeps the final models."""
    nb = new_notebook(cells=[_view_cell("b"), new_code_cell("change()"), _view_cell("b")])
    live: dict[str, dict[str, Any]] = {
        "b": _state("VBoxModel", children=["IPY_MODEL_l"]),
        "l": _state("HTMLModel", value="UCS-2"),
        "other": _state("HTMLModel", value="not shown"),
    }
    client = SimpleNamespace(widget_state=live)
    snapshots = exporter.WidgetSnapshots()
    snapshots.record(client, nb.cells[0], 0)
    live["l"]["value"] = "GSM-7"  # what cell 1 did
    snapshots.record(client, nb.cells[1], 1)
    snapshots.record(client, nb.cells[2], 2)
    nb.metadata.widgets = _metadata(copy.deepcopy(live))

    assert snapshots.apply(nb) == 1
    state = nb.metadata.widgets[exporter.WIDGET_STATE_MIME]["state"]
    first = nb.cells[0].outputs[0].data[VIEW]["model_id"]
    assert first == "b-cell0" and nb.cells[2].outputs[0].data[VIEW]["model_id"] == "b"
    assert state["b-cell0"]["state"]["children"] == ["IPY_MODEL_l-cell0"]
    assert state["l-cell0"]["state"]["value"] == "UCS-2"
    assert state["l-cell0"]["model_name"] == "HTMLModel"
    assert state["l"]["state"]["value"] == "GSM-7"
    assert "other-cell0" not in state
    nbformat.validate(nb)


def test_views_nothing_changed_are_left_alone() -> None:
    """No later change: no copy, the view keeps its model id, the state is as stored."""
    nb = new_notebook(cells=[_view_cell("b")])
    live = {"b": _state("VBoxModel", children=[])}
    snapshots = exporter.WidgetSnapshots()
    snapshots.record(SimpleNamespace(widget_state=live), nb.cells[0], 0)
    nb.metadata.widgets = _metadata(copy.deepcopy(live))
    before = copy.deepcopy(nb)
    assert snapshots.apply(nb) == 0
    assert nb == before


def test_a_widget_shown_once_and_changed_afterwards_shows_its_last_state() -> None:
    """An explorer displayed, then checked by the next cell: its one view is its last, so it
    keeps the final models (what the check did), not the empty start."""
    nb = new_notebook(cells=[_view_cell("e"), new_code_cell("explorer.check()")])
    live: dict[str, dict[str, Any]] = {"e": _state("ExplorerModel", message="")}
    client = SimpleNamespace(widget_state=live)
    snapshots = exporter.WidgetSnapshots()
    snapshots.record(client, nb.cells[0], 0)
    live["e"]["message"] = "3 number(s) checked"  # what cell 1 did
    snapshots.record(client, nb.cells[1], 1)
    nb.metadata.widgets = _metadata(copy.deepcopy(live))

    assert snapshots.apply(nb) == 0
    state = nb.metadata.widgets[exporter.WIDGET_STATE_MIME]["state"]
    assert nb.cells[0].outputs[0].data[VIEW]["model_id"] == "e"
    assert state["e"]["state"]["message"] == "3 number(s) checked"
    assert "e-cell0" not in state
