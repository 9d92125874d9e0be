"""Sphinx configuration: the pages in docs/*.md and the API reference built from the docstrings.

``make docs`` writes the site to build/docs/; ``make test`` builds it with ``-W`` (any warning,
such as a docstring docutils cannot read or a reference page that names a missing object,
fails). The reference pages (docs/reference/) each hold one ``smskit-facade`` directive:
it documents the names in that module's ``__all__``, each object once. A name the top-level
``smskit`` also exports (the same object) is documented there and only linked from the
facade's page; submodules named in ``__all__`` are linked to their own page. The
``smskit-endpoints`` directive (docs/reference/endpoints.rst) lists the client's endpoint
groups, ``client.{resource}.{action}``, as the client's annotations declare them.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import typing
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective
from sphinx.util.inspect import stringify_signature

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


def _entry(facade: str, value: Any, name: str) -> list[str]:
    """The autodoc directive for one exported name. A class shows its members, inherited ones
    too (Campaign's operations live on its executor base) when smskit wrote them
    (:func:`_skip_foreign`)."""
    if inspect.isclass(value):
        kind = "autoexception" if issubclass(value, BaseException) else "autoclass"
        return [f".. {kind}:: {facade}.{name}", "   :members:", "   :inherited-members:", ""]
    if callable(value):
        return [f".. autofunction:: {facade}.{name}", ""]
    # A constant holds no docstring (autodata would show its type's, dict's or pandas'):
    # its name and type; the module's docstring says what it is.
    kind = f"{type(value).__module__}.{type(value).__qualname__}".removeprefix("builtins.")
    return [f".. py:data:: {name}", f"   :module: {facade}", f"   :type: {kind}", ""]


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
        lines = [f".. automodule:: {facade}", ""]
        lines += [line for name in members for line in _entry(facade, getattr(module, name), name)]
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


def endpoint_groups() -> dict[str, type]:
    """``{"sms_campaign": SmsCampaign, ...}``: the endpoint groups a client carries, as its
    annotations declare them (``client.{resource}.{action}(...)``)."""
    import smskit

    groups = {}
    for name, hint in typing.get_type_hints(smskit.Client).items():
        cls = typing.get_origin(hint) or hint
        if (
            not name.startswith("_")
            and inspect.isclass(cls)
            and cls.__module__.startswith("smskit")
        ):
            groups[name] = cls
    return groups


class EndpointsDirective(SphinxDirective):
    """``.. smskit-endpoints::``: each endpoint group of the client and its methods, with the
    signature users call (keyword arguments and the result type). An endpoint is an
    ``Endpoint`` descriptor on its class, not a function, so autodoc would show it as a bare
    attribute: the entries are written here, from the same signature help() shows."""

    def run(self) -> list[nodes.Node]:
        from smskit.client.core import Endpoint

        lines = []
        for name, cls in endpoint_groups().items():
            lines += [
                f".. rubric:: client.{name}",
                "",
                f".. py:class:: {cls.__qualname__}",
                f"   :module: {cls.__module__}",
                "",
                *_indented(inspect.getdoc(cls) or "", 3),
                "",
            ]
            for method, value in vars(cls).items():
                if isinstance(value, Endpoint):
                    signature = stringify_signature(value._signature())
                    lines += [f"   .. py:method:: {method}{signature}", ""]
                    lines += [*_indented(inspect.getdoc(value) or "", 6), ""]
        container = nodes.container()
        self.state.nested_parse(StringList(lines, source="<smskit-endpoints>"), 0, container)
        return container.children


def _indented(text: str, spaces: int) -> list[str]:
    return [" " * spaces + line if line else "" for line in text.splitlines()]


def _defined_in(member: Any) -> str:
    """The module that defines a class member, as far as the object tells ("" if it cannot)."""
    if isinstance(member, property):
        member = member.fget
    if isinstance(member, staticmethod | classmethod):
        member = member.__func__
    owner = getattr(member, "__objclass__", None)  # slot wrappers, getset descriptors
    if owner is not None:
        return str(owner.__module__)
    return str(getattr(member, "__module__", "") or "")


def _skip_foreign(
    app: Sphinx, what: str, name: str, obj: Any, skip: bool, options: Any
) -> bool | None:
    """Leave out class members that smskit did not write (inherited from outside smskit)."""
    if what in ("class", "exception") and _defined_in(obj).partition(".")[0] not in ("", "smskit"):
        return True
    return None


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("autodoc-skip-member", _skip_foreign)
    app.add_directive("smskit-facade", FacadeDirective)
    app.add_directive("smskit-endpoints", EndpointsDirective)
    return {"parallel_read_safe": True}
