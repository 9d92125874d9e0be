"""nbval checks a notebook cell by cell, and each cell needs the ones before it."""

from __future__ import annotations

import os

import pytest

# Notebook 06 walks a base of 5M rows; checked here on 200,000 (the kernel inherits this).
os.environ.setdefault("SMSKIT_BASE_ROWS", "200000")


@pytest.hookimpl(trylast=True)  # after pytest-randomly has shuffled the tests
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each notebook's cells together and in notebook order (pytest-randomly interleaves
    them), where the first cell landed; the other tests and the notebooks' order stay random."""
    cells = [item for item in items if hasattr(item, "cell_num")]  # nbval's cells
    if not cells:
        return
    first = items.index(cells[0])
    notebooks = list(dict.fromkeys(cell.parent for cell in cells))
    ordered = sorted(cells, key=lambda c: (notebooks.index(c.parent), c.cell_num))  # type: ignore[attr-defined]
    rest = [item for item in items if not hasattr(item, "cell_num")]
    items[:] = [*rest[:first], *ordered, *rest[first:]]
