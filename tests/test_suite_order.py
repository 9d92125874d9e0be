"""The suite's own scheduling (tests/_schedule.py): the longest work units start first, and
each one named there still exists (a stale name would silently stop ordering anything)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _schedule import LONGEST_FIRST, PAGES_TESTS, longest_first, work_unit

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("unit", LONGEST_FIRST)
def test_each_longest_unit_names_a_file_or_a_page_that_exists(unit: str) -> None:
    """A test file or notebook of the checkout, or test_pages' page of an existing notebook."""
    path, _, page = unit.partition("[")
    assert (REPO / path).is_file(), unit
    if page:
        notebook = REPO / "notebooks" / f"{page.removesuffix(']')}.ipynb"
        assert path == PAGES_TESTS and page.endswith("]") and notebook.is_file(), unit


class _Item:
    """What the ordering reads of a collected test: its node id."""

    def __init__(self, nodeid: str) -> None:
        self.nodeid = nodeid


def test_longest_units_go_first_whole_and_the_rest_keeps_its_order() -> None:
    """Units listed go first in the listed order, each test of a unit kept in its order;
    the units not listed follow in the order they came."""
    first, second = LONGEST_FIRST[0], LONGEST_FIRST[1]
    ids = [
        "tests/test_b.py::x",
        f"{second}::t1",
        "tests/test_a.py::y",
        f"{first}::t2",
        f"{second}::t0",
        f"{first}::t1",
        "tests/test_b.py::w",
    ]
    items = longest_first([_Item(i) for i in ids])
    assert [i.nodeid for i in items] == [
        f"{first}::t2", f"{first}::t1", f"{second}::t1", f"{second}::t0",
        "tests/test_b.py::x", "tests/test_a.py::y", "tests/test_b.py::w",
    ]  # fmt: skip
    assert work_unit(f"{PAGES_TESTS}::test_x[06-dask-scale]") == f"{PAGES_TESTS}[06-dask-scale]"
