"""Notebook widgets: the campaign :class:`Composer`, an :class:`HLRExplorer`, a :class:`Dashboard`.

Reached lazily (``smskit.Composer`` ...), so ``import smskit`` never loads ipywidgets or plotly.
Each widget is an object holding an ipywidgets box (``.widget``), displayed by a notebook cell,
and readable from code: what the panels show is also in attributes (``.text``, ``.stats``,
``.preflight``, ``.frame`` ...), and what the buttons do are methods (``.optimize()``,
``.send()``, ``.check()``), so a script or a test drives them without a browser. ``repr`` is
cheap (no request) and doubles as the plain-text fallback where widgets cannot render.

One module per widget (:mod:`~smskit.views.composer`, :mod:`~smskit.views.hlr_explorer`,
:mod:`~smskit.views.dashboard`) on what they share (:mod:`~smskit.views.base`); this module
gathers their names.
"""

from __future__ import annotations

from smskit.views.composer import Composer
from smskit.views.dashboard import Dashboard
from smskit.views.hlr_explorer import HLRExplorer

__all__ = ["Composer", "Dashboard", "HLRExplorer"]
