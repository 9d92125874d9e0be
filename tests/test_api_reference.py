"""The API reference's ground rules: every facade has a page, every public name a docstring.

The reference itself is built strictly by ``make docs`` (Sphinx ``-W``, part of
``make test``); these tests pin what that build cannot see: a class, function or method
without a docstring renders as a bare signature, silently. "Public" is a facade's
``__all__`` (docs/api.md lists the facades) and the public methods and properties of the
classes it exports. Constants hold no docstring of their own; the reference shows their value.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
import typing
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"

# The modules a user imports names from (docs/api.md, "The facades").
FACADES = (
    "smskit",
    "smskit.errors",
    "smskit.text",
    "smskit.phones",
    "smskit.frames",
    "smskit.plots",
    "smskit.campaigns",
    "smskit.replies",
    "smskit.sandbox",
    "smskit.dask",
)


def _own_doc(obj: Any) -> str:
    """The docstring written for ``obj`` itself: not a base class's, not dataclass's stand-in."""
    if inspect.isclass(obj):
        doc = obj.__dict__.get("__doc__") or ""
        if dataclasses.is_dataclass(obj) and doc.startswith(f"{obj.__name__}("):
            return ""  # the signature dataclasses writes when the class has no docstring
        return doc.strip()
    return (getattr(obj, "__doc__", None) or "").strip()


def _public_methods(cls: type) -> Iterator[tuple[str, Any]]:
    """The methods and properties whose names do not start with ``_`` that ``cls`` or one of
    its smskit base classes defines (what the reference shows for ``cls``)."""
    seen: set[str] = set()
    for klass in cls.__mro__:
        if klass is not cls and not klass.__module__.startswith("smskit"):
            continue
        for name, value in vars(klass).items():
            if name.startswith("_") or name in seen:
                continue
            seen.add(name)
            if isinstance(value, property):
                yield name, value  # its doc is the getter's unless given
            elif isinstance(value, staticmethod | classmethod):
                yield name, value.__func__
            elif inspect.isfunction(value):
                yield name, value


def _public_objects() -> Iterator[tuple[str, Any]]:
    """(dotted public name, object) for every documented thing the facades export."""
    for facade in FACADES:
        module = importlib.import_module(facade)
        for name in module.__all__:
            value = getattr(module, name)
            if not (inspect.ismodule(value) or inspect.isclass(value) or callable(value)):
                continue  # a constant: rendered with its value
            yield f"{facade}.{name}", value
            if inspect.isclass(value):
                for method, function in _public_methods(value):
                    yield f"{facade}.{name}.{method}", function


def test_every_facade_has_a_reference_page() -> None:
    """docs/reference/ holds one ``smskit-facade`` page per facade and none for anything else."""
    pages = {
        match.group(1)
        for page in (DOCS / "reference").glob("*.rst")
        for match in re.finditer(r"^\.\. smskit-facade:: (\S+)$", page.read_text(), re.M)
    }
    assert pages == set(FACADES)


@pytest.mark.parametrize("facade", FACADES)
def test_every_exported_name_is_listed_by_dir(facade: str) -> None:
    """``dir(facade)`` lists each name of its ``__all__`` (lazy ones too): what autodoc and
    tab completion read."""
    module: ModuleType = importlib.import_module(facade)
    assert set(module.__all__) <= set(dir(module))


def test_every_public_name_has_a_docstring() -> None:
    """Each class, function, module, method and property the facades export has its own
    docstring."""
    names = dict(_public_objects())
    assert len(names) > 150  # the walk reached the facades' names, lazy ones included
    assert [name for name, obj in names.items() if not _own_doc(obj)] == []


# What docs/api.md calls internal: it may change without notice, so a user is never sent there.
INTERNAL = re.compile(r"smskit\.(?:client|rules|views|cli)\b[\w.]*|smskit\._\w+[\w.]*")


def _doc_of(obj: Any) -> str:
    return (obj.__doc__ or "") if isinstance(obj, property) else _own_doc(obj)


def test_no_public_docstring_sends_the_reader_to_an_internal_module() -> None:
    """The docstring of each public name (``smskit.plots.hlr_breakdown`` ...) names public
    modules and names only (``smskit.frames.hlr_frame``, never ``smskit.client.frames``)."""
    found = {
        name: INTERNAL.findall(_doc_of(obj))
        for name, obj in _public_objects()
        if INTERNAL.search(_doc_of(obj))
    }
    assert found == {}


def test_the_internal_check_sees_an_internal_module() -> None:
    """The pattern finds the internal parts docs/api.md lists and leaves the facades alone."""
    text = (
        "anything :func:`smskit.client.frames.hlr_frame` takes; see smskit._paths, "
        ":mod:`smskit.rules.text`, smskit.views.plots; public: smskit.frames.hlr_frame, "
        "smskit.text, smskit.replies.Inbox, smskit.campaigns.history"
    )
    assert INTERNAL.findall(text) == [
        "smskit.client.frames.hlr_frame",
        "smskit._paths",
        "smskit.rules.text",
        "smskit.views.plots",
    ]


def test_own_doc_sees_a_missing_docstring() -> None:
    """The check refuses a dataclass with no docstring and a method inheriting none."""

    @dataclasses.dataclass
    class Bare:
        value: int

        def twice(self) -> int:
            return 2 * self.value

    assert _own_doc(Bare) == ""
    assert dict(_public_methods(Bare)).keys() == {"twice"}
    assert _own_doc(Bare.twice) == ""


def _classes_in(hint: Any, bound: dict[Any, Any]) -> Iterator[type]:
    """The classes a return annotation names (inside ``X | None``, ``list[X]`` ...), a type
    variable read as what ``bound`` binds it to."""
    hint = bound.get(hint, hint)
    if typing.get_origin(hint) is not None:
        for argument in typing.get_args(hint):
            yield from _classes_in(argument, bound)
    elif inspect.isclass(hint):
        yield hint


def _type_arguments(cls: type) -> dict[Any, Any]:
    """What ``cls`` binds its generic bases' type variables to (``Executor[CampaignResult]``)."""
    bound: dict[Any, Any] = {}
    for klass in cls.__mro__:
        for base in getattr(klass, "__orig_bases__", ()):
            origin = typing.get_origin(base)
            parameters = getattr(origin, "__parameters__", ())
            bound.update(zip(parameters, typing.get_args(base), strict=False))
    return bound


def test_what_campaigns_and_bulk_helpers_return_is_exported_at_top_level() -> None:
    """Each smskit class a Campaign method or a bulk helper returns is ``smskit.<Name>``."""
    import pandas as pd

    import smskit

    operations = [getattr(smskit, name) for name in smskit.__all__ if "bulk" in name]
    operations += [getattr(smskit, name) for name in smskit.__all__ if "contacts" in name]
    operations += [
        function
        for name, function in _public_methods(smskit.Campaign)
        if not isinstance(inspect.getattr_static(smskit.Campaign, name), property)
    ]
    names = {"pd": pd, "HLRResults": smskit.HLRResults}
    bound = _type_arguments(smskit.Campaign)
    returned = {
        cls
        for operation in operations
        for cls in _classes_in(typing.get_type_hints(operation, localns=names).get("return"), bound)
        if cls.__module__.startswith("smskit")
    }
    assert {smskit.PreflightReport, smskit.CostEstimate, smskit.CampaignResult} <= returned
    assert [c for c in returned if getattr(smskit, c.__name__, None) is not c] == []


def test_every_endpoint_has_a_docstring() -> None:
    """Each ``client.{resource}.{action}`` method (docs/reference/endpoints.rst) has a docstring."""
    import smskit
    from smskit.client.core import Endpoint

    endpoints = {
        f"client.{group}.{name}": value
        for group, hint in typing.get_type_hints(smskit.Client).items()
        if not group.startswith("_")
        for name, value in vars(typing.get_origin(hint) or hint).items()
        if isinstance(value, Endpoint)
    }
    assert "client.sms_campaign.send" in endpoints
    assert [name for name, endpoint in endpoints.items() if not _own_doc(endpoint)] == []


def test_make_test_builds_the_reference_strictly() -> None:
    """``make test`` makes ``docs`` (a prerequisite, or a goal of the make its recipe runs,
    beside lint and the suite), whose Sphinx build turns warnings into errors."""
    makefile = (DOCS.parent / "Makefile").read_text()
    test_target = re.search(r"^test:(.*)\n((?:\t.*\n)*)", makefile, re.M)
    docs_recipe = re.search(r"^docs:.*\n((?:\t.*\n)+)", makefile, re.M)
    assert test_target is not None
    submake = re.search(r"^\t\$\(MAKE\) (.*)$", test_target.group(2), re.M)
    goals = [*test_target.group(1).split(), *(submake.group(1).split() if submake else [])]
    assert "docs" in goals
    assert docs_recipe is not None
    assert re.search(r"-m sphinx\b.* -W\b.* docs build/docs", docs_recipe.group(1))


def test_the_spec_a_campaign_is_made_of_is_exported_beside_it() -> None:
    """``campaign.spec`` (what ``from_spec`` takes and the Composer edits) is a
    ``smskit.CampaignSpec``, the same class in ``smskit.campaigns``."""
    import smskit
    import smskit.campaigns

    campaign = smskit.Campaign(None, ["+33612345678"], text="Hello", sender="Shop")
    assert type(campaign.spec) is smskit.CampaignSpec is smskit.campaigns.CampaignSpec
    again = smskit.Campaign.from_spec(None, ["+33612345679"], campaign.spec)
    assert again.spec is campaign.spec


def test_state_a_front_end_shows_for_inspection_is_not_exported() -> None:
    """By decision (docs/api.md), ``Campaign.audience``'s and ``Composer.panel``'s types are
    read through those properties, never imported: no facade exports them."""
    exported = {name for facade in FACADES for name in importlib.import_module(facade).__all__}
    assert {"Audience", "ComposerPanel", "Check"}.isdisjoint(exported)
