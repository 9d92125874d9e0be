"""The layout rules of docs/architecture.md, checked on the source of every module with ``ast``.

Every import counts: module level, inside functions and under ``TYPE_CHECKING`` (a circle
that only closes at run time is still a circle a reader has to untangle). The package is
read, never imported, so a violation is reported even where it would not fail an import.
"""

from __future__ import annotations

import ast
import functools
import inspect
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

PACKAGE = Path(__file__).resolve().parent.parent / "smskit"
MAX_LINES = 800

# Modules over MAX_LINES that their owner is splitting right now. Only for the size rule;
# remove an entry when its module is split (the last test fails until you do).
OVERSIZED_BEING_SPLIT: frozenset[str] = frozenset()

# What each part may import, besides itself. "infra" is every private top-level module
# (smskit._server, smskit._sqlite ...), shared plumbing that imports only errors and infra.
# "facade" is the package itself and its public top-level modules (smskit.text, .frames
# ...): names for users, re-exported from below, so they may import anything.
MAY_IMPORT: Mapping[str, frozenset[str]] = {
    "errors": frozenset(),
    "infra": frozenset({"errors"}),
    "rules": frozenset({"errors"}),
    "client": frozenset({"rules", "errors", "infra"}),
    "sandbox": frozenset({"rules", "errors", "infra"}),
    "replies": frozenset({"rules", "errors", "infra"}),
    # Campaigns read what came back (outcomes, opt-outs) from the callbacks' store.
    "campaigns": frozenset({"client", "replies", "rules", "errors", "infra"}),
    "views": frozenset({"campaigns", "client", "replies", "rules", "errors", "infra"}),
    # The [dask] extra: the rule book and campaigns partition-wise; reached through facades.
    "dask": frozenset({"campaigns", "client", "replies", "rules", "errors", "infra"}),
    "cli": frozenset(
        {"facade", "views", "campaigns", "client", "replies", "sandbox", "rules", "errors", "infra"}
    ),
    "facade": frozenset(
        {
            "cli",
            "views",
            "dask",
            "campaigns",
            "client",
            "replies",
            "sandbox",
            "rules",
            "errors",
            "infra",
        }
    ),
}


# The rooms of smskit.campaigns (docs/architecture.md, "The campaign rooms"): what each may
# import besides itself. The front ends (the modules directly in smskit.campaigns: campaign,
# executor, send, experiment) may import every room; no room imports a front end.
ROOM_MAY_IMPORT: Mapping[str, frozenset[str]] = {
    "sending": frozenset(),
    "bulk": frozenset({"sending"}),
    "planning": frozenset({"sending"}),
    "analysis": frozenset({"sending", "planning", "bulk"}),
}


@dataclass(frozen=True)
class Import:
    """One imported smskit module (``target``) and the name path the statement spelled."""

    source: str
    target: str
    spelled: tuple[str, ...]
    line: int


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES: Mapping[str, Path] = {
    _module_name(path): path
    for path in sorted(PACKAGE.rglob("*.py"))
    if "__pycache__" not in path.parts
}


@functools.cache
def syntax(module: str) -> ast.Module:
    """The syntax tree of ``module``'s source, parsed once per run (the checks only read it)."""
    return ast.parse(MODULES[module].read_text(encoding="utf-8"))


def _is_package(module: str) -> bool:
    return MODULES[module].name == "__init__.py"


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def part(module: str) -> str:
    """The part of the picture ``module`` belongs to (a key of MAY_IMPORT)."""
    names = module.split(".")
    if len(names) == 1:
        return "facade"
    if f"smskit.{names[1]}" in MODULES and _is_package(f"smskit.{names[1]}"):
        return names[1]
    if names[1] == "errors":
        return "errors"
    if _is_private(names[1]):
        return "infra"
    return "cli" if names[1] == "cli" else "facade"


def _absolute(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if _is_package(module) else module.split(".")[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports(module: str) -> Iterator[Import]:
    """Every smskit module ``module`` imports, wherever the statement stands."""
    tree = syntax(module)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "smskit":
                    yield Import(module, alias.name, tuple(alias.name.split(".")), node.lineno)
        elif isinstance(node, ast.ImportFrom):
            origin = _absolute(module, node)
            if origin.split(".")[0] != "smskit":
                continue
            for alias in node.names:
                child = f"{origin}.{alias.name}"
                target = child if child in MODULES else origin
                yield Import(module, target, (*origin.split("."), alias.name), node.lineno)


def _module_aliases(module: str, tree: ast.AST) -> dict[str, str]:
    """Local names bound to smskit modules (``from smskit.rules import text as engine``)."""
    bound = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            origin = _absolute(module, node)
            for alias in node.names:
                if f"{origin}.{alias.name}" in MODULES:
                    bound[alias.asname or alias.name] = f"{origin}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and alias.name in MODULES:
                    bound[alias.asname] = alias.name
    return bound


def graph() -> dict[str, set[str]]:
    """Module -> the smskit modules it imports (implicit parent-package imports left out)."""
    edges: dict[str, set[str]] = {module: set() for module in MODULES}
    for module in MODULES:
        edges[module].update(i.target for i in imports(module) if i.target != module)
    return edges


def circles(edges: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return groups


def _loop_through(group: list[str], edges: Mapping[str, set[str]]) -> list[str]:
    """One concrete circle inside ``group``, from its first module back to it (BFS)."""
    start, members = group[0], set(group)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(edges[node] & members):
                if nxt == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if nxt not in came_from:
                    came_from[nxt] = node
                    following.append(nxt)
        frontier = following
    return group


def upward_imports() -> list[str]:
    """``module:line -> target`` for each import a part may not make."""
    found = []
    for module in MODULES:
        allowed = MAY_IMPORT.get(part(module), frozenset()) | {part(module)}
        for imp in imports(module):
            if part(imp.target) not in allowed:
                found.append(
                    f"{module}:{imp.line} -> {imp.target} "
                    f"({part(module)} may not import {part(imp.target)})"
                )
    return found


def room(module: str) -> str | None:
    """The room of smskit.campaigns ``module`` is in, ``"front"`` for a module directly in
    the package (or the package itself), None outside smskit.campaigns."""
    names = module.split(".")
    if names[:2] != ["smskit", "campaigns"]:
        return None
    return (
        names[2] if len(names) > 3 or (len(names) == 3 and names[2] in ROOM_MAY_IMPORT) else "front"
    )


def room_violations() -> list[str]:
    """``module:line -> target`` for each import a campaigns room may not make."""
    found = []
    for module in MODULES:
        here = room(module)
        if here is None or here == "front":
            continue
        for imp in imports(module):
            there = room(imp.target)
            if there is None or there == here or there in ROOM_MAY_IMPORT[here]:
                continue
            found.append(f"{module}:{imp.line} -> {imp.target} ({here} may not import {there})")
    return found


def _private_owner(spelled: tuple[str, ...]) -> str | None:
    """The module whose part owns the first private name of ``spelled``; None if none.

    A private top-level module (``smskit._sqlite``) is the package's own plumbing: shared.
    """
    for i, name in enumerate(spelled):
        if _is_private(name):
            owner = ".".join(spelled[:i])
            return None if owner == "smskit" else owner
    return None


def private_imports() -> list[str]:
    """``module:line name`` for each private name reached from another part."""
    found = []
    for module in MODULES:
        for imp in imports(module):
            owner = _private_owner(imp.spelled)
            if owner is not None and part(owner) != part(module):
                found.append(f"{module}:{imp.line} imports {'.'.join(imp.spelled)}")
        tree = syntax(module)
        aliases = _module_aliases(module, tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and _is_private(node.attr)
                and part(aliases[node.value.id]) != part(module)
            ):
                target = aliases[node.value.id]
                found.append(f"{module}:{node.lineno} uses {target}.{node.attr}")
    return found


def private_names_across_modules() -> list[str]:
    """``module:line name`` for each private name (not a private module) one module takes
    from another, imported or read as an attribute of the module."""
    found = []
    for module in MODULES:
        for imp in imports(module):
            *origin, last = imp.spelled
            if (
                _is_private(last)
                and imp.target != module
                and ".".join([*origin, last]) not in MODULES
            ):
                found.append(f"{module}:{imp.line} imports {'.'.join(imp.spelled)}")
        tree = syntax(module)
        aliases = _module_aliases(module, tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and _is_private(node.attr)
                and aliases[node.value.id] != module
                and f"{aliases[node.value.id]}.{node.attr}" not in MODULES
            ):
                found.append(f"{module}:{node.lineno} uses {aliases[node.value.id]}.{node.attr}")
    return found


# The faces: package ``__init__`` modules and the documented top-level facades. Only they may
# hand out a name another module defines (docs/api.md, "Re-exports only at the faces").
FACADES: frozenset[str] = frozenset(
    {"smskit", "smskit.text", "smskit.phones", "smskit.frames", "smskit.plots"}
)


def is_face(module: str) -> bool:
    """A package ``__init__`` or a documented top-level facade."""
    return module in FACADES or _is_package(module)


def _bound(body: list[ast.stmt]) -> Iterator[tuple[str, ast.stmt]]:
    """Each name a module's top-level statements bind (under ``if``/``try`` too), with the
    statement that binds it."""
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.name, node
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        yield name.id, node
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                yield (alias.asname or alias.name).split(".")[0], node
        elif isinstance(node, ast.If | ast.Try):
            yield from _bound([*node.body, *node.orelse])
            for handler in getattr(node, "handlers", []):
                yield from _bound(handler.body)
            yield from _bound(getattr(node, "finalbody", []))


@functools.cache
def defined_names(module: str) -> frozenset[str]:
    """The names ``module`` defines itself: functions, classes and assignments, names its
    own ``__getattr__`` makes on first use, and third-party imports (``ipywidgets as
    widgets``: what it guards). A name imported from another smskit module is not defined
    here, nor is a smskit module imported here."""
    tree = syntax(module)
    found = set()
    for name, node in _bound(tree.body):
        if isinstance(node, ast.ImportFrom):
            if _absolute(module, node).split(".")[0] == "smskit":
                continue
        elif isinstance(node, ast.Import):
            if name == "smskit":
                continue
        elif isinstance(node, ast.FunctionDef) and name == "__getattr__":
            found.update(
                c.value
                for c in ast.walk(node)
                if isinstance(c, ast.Constant)
                and isinstance(c.value, str)
                and c.value.isidentifier()
            )
        found.add(name)
    return frozenset(found)


def declared_all(module: str) -> list[str] | None:
    """The entries of ``module``'s ``__all__``, None without one."""
    tree = syntax(module)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return [ast.literal_eval(element) for element in node.value.elts]  # type: ignore[attr-defined]
    return None


def reexports() -> list[str]:
    """``module: name`` for each ``__all__`` entry of a module that is not a face and does
    not define the name."""
    found = []
    for module in MODULES:
        if is_face(module):
            continue
        names = declared_all(module) or []
        found += [f"{module}: {n}" for n in names if n not in defined_names(module)]
    return found


def names_through_a_relay(modules: Iterable[str] = ()) -> list[str]:
    """``module:line name from relay`` for each name a module takes from a smskit module that
    is not a face and does not define it (imported, or read as an attribute of the module)."""
    found = []
    defined = {m: defined_names(m) for m in MODULES}
    for module in modules or MODULES:
        if is_face(module):
            continue
        tree = syntax(module)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                origin = _absolute(module, node)
                if origin not in MODULES or is_face(origin):
                    continue
                for alias in node.names:
                    child = f"{origin}.{alias.name}"
                    if child not in MODULES and alias.name not in defined[origin]:
                        found.append(f"{module}:{node.lineno} {alias.name} from {origin}")
        aliases = _module_aliases(module, tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and not is_face(aliases[node.value.id])
                and node.attr not in defined[aliases[node.value.id]]
                and f"{aliases[node.value.id]}.{node.attr}" not in MODULES
            ):
                found.append(f"{module}:{node.lineno} {node.attr} from {aliases[node.value.id]}")
    return found


def line_counts() -> dict[str, int]:
    """Lines of every module."""
    return {m: len(p.read_text(encoding="utf-8").splitlines()) for m, p in MODULES.items()}


def test_modules_are_found() -> None:
    """The checks below read the real package: its parts and their modules are all there."""
    found = {part(module) for module in MODULES}
    assert {"rules", "client", "campaigns", "views", "replies", "sandbox", "infra"} <= found
    assert "smskit.client.frames" in {imp.target for imp in imports("smskit.frames")}


def test_every_part_has_a_row() -> None:
    """Each subpackage has its row in MAY_IMPORT (add one, and to docs/architecture.md)."""
    missing = sorted({part(module) for module in MODULES} - MAY_IMPORT.keys())
    assert not missing, "parts without a MAY_IMPORT row: " + ", ".join(missing)


def test_no_import_circles() -> None:
    """No two modules import each other, directly or around a loop, by any kind of import."""
    edges = graph()
    loops = [
        " -> ".join(_loop_through(group, edges)) + f"   (all tied: {', '.join(group)})"
        for group in circles(edges)
    ]
    assert not loops, "import circles:\n" + "\n".join(loops)


def test_imports_point_down_the_layers() -> None:
    """Each part imports only the parts below it (see MAY_IMPORT and docs/architecture.md)."""
    found = upward_imports()
    assert not found, "imports against the layers:\n" + "\n".join(found)


def test_campaign_rooms_import_downwards() -> None:
    """Each room of smskit.campaigns imports only the rooms below it, never a front end."""
    assert {room(m) for m in MODULES} >= {*ROOM_MAY_IMPORT, "front", None}
    found = room_violations()
    assert not found, "imports against the campaign rooms:\n" + "\n".join(found)


def test_no_private_name_crosses_parts() -> None:
    """A leading-underscore module or name is used only inside the part that defines it."""
    found = private_imports()
    assert not found, "private names used from another part:\n" + "\n".join(found)


def test_no_private_name_crosses_modules() -> None:
    """A leading-underscore name is used only in the module that defines it (a private
    module, ``smskit.rules._phoneplan``, is its package's to import)."""
    found = private_names_across_modules()
    assert not found, "private names used from another module:\n" + "\n".join(found)


def test_every_module_says_what_it_owns() -> None:
    """Every module opens with a docstring (what it owns and may import), not an empty one."""
    bare = [
        module for module in MODULES if len((ast.get_docstring(syntax(module)) or "").split()) < 5
    ]
    assert not bare, "modules without a docstring saying what they own:\n" + "\n".join(bare)


def test_modules_stay_small() -> None:
    """No module is over 800 lines (one concept, sized by what it holds), except those listed
    as being split right now."""
    over = {m: n for m, n in line_counts().items() if n > MAX_LINES}
    offenders = [
        f"{m}: {n} lines" for m, n in sorted(over.items()) if m not in OVERSIZED_BEING_SPLIT
    ]
    assert not offenders, f"modules over {MAX_LINES} lines:\n" + "\n".join(offenders)


def test_size_allow_list_only_shrinks() -> None:
    """Every module on the size allow-list is still over the limit: a split one leaves the list."""
    counts = line_counts()
    stale = sorted(m for m in OVERSIZED_BEING_SPLIT if counts.get(m, 0) <= MAX_LINES)
    assert not stale, "no longer over the limit, remove from OVERSIZED_BEING_SPLIT: " + ", ".join(
        stale
    )


def test_circle_finder_reports_a_planted_loop() -> None:
    """The circle finder itself sees a three-module loop and ignores a chain."""
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(edges) == [["a", "b", "c"]]
    assert _loop_through(["a", "b", "c"], edges) == ["a", "b", "c", "a"]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_only_the_faces_re_export() -> None:
    """A module that is not a face lists in ``__all__`` only names it defines itself."""
    found = reexports()
    assert not found, "re-exported outside the faces:\n" + "\n".join(found)


def test_every_name_comes_from_its_defining_module_or_a_face() -> None:
    """No module takes a name through another module that only imported it (a relay)."""
    found = names_through_a_relay()
    assert not found, "names taken through a relay:\n" + "\n".join(found)


def test_the_re_export_checks_see_a_relayed_name() -> None:
    """The checks read what they claim: a name another module defines is not defined here,
    a module's own constant is, and the known faces are faces."""
    assert "ResponseShapeError" in defined_names("smskit.errors")
    assert "AsyncClient" not in defined_names("smskit.campaigns.sending.blocking")
    assert "run_blocking" in defined_names("smskit.campaigns.sending.blocking")
    assert {"REASON_DTYPE", "TYPE_DTYPE"} <= defined_names("smskit.rules.phones")
    assert is_face("smskit.frames") and is_face("smskit.dask") and is_face("smskit.campaigns")
    assert not is_face("smskit.client.frames") and not is_face("smskit.campaigns.campaign")


def _public_methods(cls: type) -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(getattr(cls, name))
        for name in dir(cls)
        if not name.startswith("_") and callable(getattr(cls, name))
    }


def test_the_dask_campaign_has_every_method_of_the_pandas_one_with_its_parameters() -> None:
    """smskit.dask.Campaign has each public method of smskit.Campaign, with the same
    parameters (names, kinds, defaults, in order); it may only add keyword-only ones."""
    import smskit
    import smskit.dask

    pandas_side = _public_methods(smskit.Campaign)
    dask_side = _public_methods(smskit.dask.Campaign)
    assert {"preflight", "estimate", "aestimate", "send", "asend", "resume", "aresume"} <= set(
        pandas_side
    )
    for name, signature in pandas_side.items():
        assert name in dask_side, name
        theirs = list(dask_side[name].parameters.values())
        ours = list(signature.parameters.values())
        shared = [(p.name, p.kind, p.default) for p in ours]
        assert [(p.name, p.kind, p.default) for p in theirs[: len(ours)]] == shared, name
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in theirs[len(ours) :]), name


def test_every_blocking_twin_shows_its_async_implementation_s_signature() -> None:
    """Each blocking operation above the client is generated from its async twin: same
    parameters and defaults, a docstring, and not itself a coroutine function."""
    import smskit
    import smskit.dask
    from smskit.campaigns import bulk

    pairs = [
        (smskit.Campaign.estimate, smskit.Campaign.aestimate),
        (smskit.Campaign.send, smskit.Campaign.asend),
        (smskit.Campaign.resume, smskit.Campaign.aresume),
        (smskit.dask.Campaign.estimate, smskit.dask.Campaign.aestimate),
        (smskit.dask.Campaign.resume, smskit.dask.Campaign.aresume),
        (bulk.bulk_hlr, bulk.abulk_hlr),
        (bulk.create_contacts, bulk.acreate_contacts),
        (bulk.delete_contacts, bulk.adelete_contacts),
        (smskit.dask.bulk_hlr, smskit.dask.abulk_hlr),
    ]
    for blocking, awaited in pairs:
        assert inspect.iscoroutinefunction(awaited), awaited
        assert not inspect.iscoroutinefunction(blocking), blocking
        assert inspect.signature(blocking) == inspect.signature(awaited), blocking
        written = inspect.getdoc(awaited)
        assert written and blocking.__doc__ and blocking.__doc__.startswith(written), blocking
        assert blocking.__name__ == awaited.__name__[1:]


def test_both_campaign_results_follow_one_result_protocol() -> None:
    """CampaignResult and smskit.dask.StreamedResult have every member of the SendResult
    protocol, each method with the protocol's parameters (names, kinds, defaults)."""
    import smskit.dask
    from smskit.campaigns.analysis.results import CampaignResult, SendResult

    members = [
        name for name in dir(SendResult) if not name.startswith("_") and name not in dir(Protocol)
    ]
    assert {"complete", "summary", "outcomes", "wait_for_outcomes", "journal"} <= set(members)
    for kind in (CampaignResult, smskit.dask.StreamedResult):
        for name in members:
            ours = getattr(SendResult, name)
            assert hasattr(kind, name) or name in kind.__dataclass_fields__, (kind, name)
            if isinstance(ours, property):
                assert isinstance(getattr(kind, name, None), property) or (
                    name in kind.__dataclass_fields__
                ), (kind, name)
            else:
                theirs = inspect.signature(getattr(kind, name)).parameters.values()
                wanted = inspect.signature(ours).parameters.values()
                assert [(p.name, p.kind, p.default) for p in theirs] == [
                    (p.name, p.kind, p.default) for p in wanted
                ], (kind, name)
