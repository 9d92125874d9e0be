"""What smskit's plotly figures share: plotly as an optional extra, and the look every figure
is drawn with.

Owns: the rule "plotly is an optional extra; say which extra installs it": a figure module
imports plotly inside :func:`importing_plotly`, so that without plotly, importing it
(``smskit.plots`` and the modules behind it) raises :class:`~smskit.errors.MissingExtraError`
saying ``pip install 'smskit[notebook]'``; the figures' template (:data:`TEMPLATE`); counts
handed to plotly as plain ints (:func:`plain_ints`). It does not import plotly itself: the
figure modules (``plots``, ``ledger``, ``outcomes``, ``experiment``, ``lift``, ``send_time``)
do, and they are reached lazily, so ``import smskit`` never loads plotly.

May import: pandas, smskit.errors and the standard library.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Final

import pandas as pd

from smskit.errors import MissingExtraError

__all__ = ["TEMPLATE", "importing_plotly", "plain_ints"]

#: The plotly template every smskit figure is drawn with.
TEMPLATE: Final = "plotly_white"


@contextlib.contextmanager
def importing_plotly() -> Iterator[None]:
    """Around a figure module's plotly imports: an ImportError there (plotly, the
    ``notebook`` extra, not installed) becomes MissingExtraError naming plotly and the extra,
    chained to it."""
    try:
        yield
    except ImportError as exc:
        raise MissingExtraError("smskit.plots", "plotly", "notebook") from exc


def plain_ints(values: pd.Series) -> list[int | None]:
    """Nullable integers as plain ints, a missing one as None (plotly then writes 15384, not
    15384.0, and leaves a gap)."""
    return [None if pd.isna(v) else int(v) for v in values]
