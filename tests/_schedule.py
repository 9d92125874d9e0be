"""How ``make test`` shares the suite between its two pytest-xdist workers (``-n 2 --dist
loadfile``): what runs together (:func:`work_unit`) and which units start first
(:data:`LONGEST_FIRST`). Read by tests/conftest.py's hooks."""

from __future__ import annotations

from typing import Protocol, TypeVar


class _Collected(Protocol):
    nodeid: str


T = TypeVar("T", bound=_Collected)

# test_pages' tests of one notebook share its exported page (the export executes the notebook).
PAGES_TESTS = "tests/browser/test_pages.py"


def work_unit(nodeid: str) -> str:
    """What runs together on one pytest-xdist worker (``make test``: ``-n 2 --dist loadfile``):
    the tests of one file (its module fixtures, its ``runs_last`` test), the cells of one
    notebook (nbval runs them in order on one kernel); test_pages' tests by notebook."""
    path, _, test = nodeid.partition("::")
    if path == PAGES_TESTS and test.endswith("]"):
        return f"{path}[{test.rpartition('[')[2]}"
    return path


# The 26 longest work units, longest first (17-58 s each on one worker in a full run at load
# 1-5, 2026-11-29; 710 s in all): ``make test`` starts them
# first (``--no-loadscope-reorder`` keeps this order), so the two workers finish together
# rather than one running a long unit alone at the end. Measured, not a rule: a unit missing
# here only runs in the shuffled order.
LONGEST_FIRST: tuple[str, ...] = (
    "tests/test_random_inputs.py",
    "tests/test_random_inputs_analysis.py",  # new, 45-60 s alone (2026-11-29)
    "tests/test_readme.py",
    "tests/test_links_e2e.py",
    "tests/browser/test_marimo_widgets.py",
    "tests/browser/test_pages.py[06-dask-scale]",
    "tests/browser/test_widgets_live.py",
    "tests/test_dask_send.py",
    "tests/test_attribution.py",
    "tests/test_outcomes_e2e.py",
    "tests/browser/test_pages.py[07-after-the-send]",
    "tests/test_dask_holdout.py",
    "tests/browser/test_composer_browser.py",
    "tests/test_dask_quiet.py",
    "tests/test_phones_fastpath.py",
    "tests/test_links_dask.py",
    "tests/test_ledger.py",
    "tests/test_dask.py",
    "tests/test_cli_cron.py",
    "tests/test_frequency_caps.py",
    "tests/browser/test_notebook7_browser.py",
    "tests/test_rerun_ended_sandbox.py",
    "tests/browser/test_marimo_browser.py",
    "notebooks/06-dask-scale.ipynb",
    "tests/sandbox/test_openapi.py",
    "tests/test_dask_conversions.py",
)


def longest_first(items: list[T]) -> list[T]:
    """``items`` with the units of :data:`LONGEST_FIRST` first, in that order, each whole;
    ``sorted`` is stable: within a unit, and among the units not listed, the order stays."""
    rank = {unit: n for n, unit in enumerate(LONGEST_FIRST)}
    return sorted(items, key=lambda item: rank.get(work_unit(item.nodeid), len(rank)))
