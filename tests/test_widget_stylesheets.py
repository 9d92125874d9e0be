"""The widgets' stylesheets use colour functions a host's browser may lack (``color-mix``,
relative colours ``rgb(from ...)``) only under an ``@supports`` that asks for them: an older
VS Code or Safari keeps the host's colours, never a colour left undefined (text on an accent
drawn transparent)."""

from __future__ import annotations

import re

import pytest

from smskit.views.widget import STATIC

NEWER = re.compile(r"color-mix\(|\b(?:rgb|hsl|oklch|lab|lch|color)\(\s*from\b")
SUPPORTS = re.compile(r"@supports\s*([^{]*)\{")


def outside_supports(css: str) -> str:
    """``css`` with every ``@supports`` block (its condition and braces) taken out."""
    kept, at = [], 0
    for found in SUPPORTS.finditer(css):
        if found.start() < at:
            continue
        kept.append(css[at : found.start()])
        depth, end = 1, found.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(css[end], 0)
            end += 1
        at = end
    kept.append(css[at:])
    return "".join(kept)


def test_outside_supports_drops_whole_blocks() -> None:
    """A nested block goes with its @supports; what surrounds it stays."""
    css = "a { x: 1 }\n@supports (color: color-mix(in srgb, red 50%, blue)) { b { c: d } }\ne { }"
    assert outside_supports(css) == "a { x: 1 }\n\ne { }"


@pytest.mark.parametrize("sheet", sorted(p.name for p in STATIC.glob("*.css")))
def test_newer_colour_functions_only_under_supports(sheet: str) -> None:
    """No colour function newer than the hosts' oldest browsers outside an @supports; each
    @supports that uses one asks for it by name in its condition."""
    css = (STATIC / sheet).read_text(encoding="utf-8")
    assert NEWER.findall(outside_supports(css)) == [], sheet
    for found in SUPPORTS.finditer(css):
        condition = found.group(1)
        depth, end = 1, found.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(css[end], 0)
            end += 1
        body = css[found.end() : end]
        if "color-mix(" in body:
            assert "color-mix(" in condition, sheet
        if re.search(r"\(\s*from\b", body):
            assert re.search(r"\(\s*from\b", condition), sheet
