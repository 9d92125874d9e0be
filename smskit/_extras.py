"""Optional parts' packages, imported on first use or named with the extra that installs them.

Owns: turning "a package of an extra is not installed" into one ``MissingExtraError`` that
names the feature, the missing package and the ``pip install 'smskit[extra]'`` line.
``import_stats`` is the one door to the statistics stack (statsmodels and SciPy, the
``stats`` extra): every feature that computes intervals, tests, sample sizes, lift or
attribution imports its statsmodels or SciPy modules through it, so a core install
(``pip install smskit``, no extras) says which extra to add instead of a bare
``ModuleNotFoundError``.

May import: ``smskit.errors`` and the standard library (shared plumbing, below every layer).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Final

from smskit.errors import MissingExtraError

__all__ = ["STATS_EXTRA", "import_extra", "import_stats"]

#: The extra that installs statsmodels and SciPy (``pip install 'smskit[stats]'``).
STATS_EXTRA: Final = "stats"


def import_extra(module: str, *, extra: str, feature: str) -> ModuleType:
    """Module ``module``, imported; ``MissingExtraError`` naming ``extra`` when it (or a
    package it needs) is not installed.

    ``feature`` is what the user called (``"Experiment.compare()"``), said in the message.
    Only a module that cannot be found is turned into ``MissingExtraError`` (chained, with
    the missing package's top-level name as ``.package``); any other failure while importing
    an installed package propagates as it is.
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        package = (exc.name or module).partition(".")[0]
        raise MissingExtraError(feature, package, extra) from exc


def import_stats(module: str, feature: str) -> ModuleType:
    """A module of the statistics stack (``"statsmodels.stats.proportion"``,
    ``"scipy.stats"``), or ``MissingExtraError`` saying ``pip install 'smskit[stats]'``."""
    if module.partition(".")[0] not in {"statsmodels", "scipy"}:
        raise ValueError(f"not a module of the statistics stack: {module!r}")
    return import_extra(module, extra=STATS_EXTRA, feature=feature)
