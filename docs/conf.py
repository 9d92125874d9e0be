"""Sphinx configuration: the pages in docs/*.md and the API reference built from the docstrings.

``make docs`` writes the site to build/docs/; ``make test`` builds it with ``-W`` (any warning,
such as a docstring docutils cannot read or a reference page that names a missing object,
fails). The reference pages (docs/reference/) each hold one ``smskit-facade`` directive:
it documents the names in that module's ``__all__``, each object once. A name the top-level
``smskit`` also exports (the same object) is documented there and only linked from the
facade's page; submodules named in ``__all__`` are linked to their own page.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

project = "smskit"
author = "smskit contributors"
root_doc = "index"

extensions = ["sphinx.ext.autodoc", "myst_parser"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns: list[str] = []

autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "signature"
autodoc_class_signature = "separated"
autodoc_preserve_defaults = True

html_theme = "pydata_sphinx_theme"
html_title = "smskit"
html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2}


def _documented_at_top(facade: str) -> dict[str, Any]:
    """The names of ``facade.__all__`` that ``smskit`` exports too, as the same object."""
    if facade == "smskit":
        return {}
    top = importlib.import_module("smskit")
    module = importlib.import_module(facade)
    return {
        name: getattr(module, name)
        for name in module.__all__
        if name in top.__all__ and getattr(top, name) is getattr(module, name)
    }


class FacadeDirective(SphinxDirective):
    """``.. smskit-facade:: smskit.text``: the module's docstring and each public name once."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        facade = self.arguments[0]
        module = importlib.import_module(facade)
        at_top = _documented_at_top(facade)
        members, submodules = [], []
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.ismodule(value):
                submodules.append(value.__name__)
            elif name not in at_top:
                members.append(name)
        lines = [f".. automodule:: {facade}"]
        if members:
            lines.append(f"   :members: {', '.join(members)}")
        lines.append("")
        if at_top:
            links = ", ".join(f":obj:`smskit.{name}`" for name in sorted(at_top))
            lines += [f"Also exported here, documented at the top level: {links}.", ""]
        if submodules:
            links = ", ".join(f":mod:`{name}`" for name in submodules)
            lines += [f"Submodules: {links}.", ""]
        content = StringList(lines, source=f"<smskit-facade {facade}>")
        container = nodes.container()
        self.state.nested_parse(content, self.content_offset, container)
        return container.children


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("smskit-facade", FacadeDirective)
    return {"parallel_read_safe": True}
