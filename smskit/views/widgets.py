"""The old gathering place of the widgets' names, kept for one release: each name used here
warns (DeprecationWarning) and comes from the module that defines it
(:mod:`smskit.views.composer`, :mod:`smskit.views.hlr_explorer`,
:mod:`smskit.views.dashboard`). Users write ``smskit.Composer`` and friends."""

from smskit._deprecation import moved_names

__getattr__ = moved_names(
    __name__,
    {
        "Composer": "smskit.views.composer",
        "Dashboard": "smskit.views.dashboard",
        "HLRExplorer": "smskit.views.hlr_explorer",
    },
)
