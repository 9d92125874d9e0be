"""Several sends' simulated clicks at once (shared by the tests that click more than one send).

``Sandbox.simulate_clicks`` paces one send's requests over ``within_seconds`` (4.5 s: bots
first, people last, docs/links.md). Sends whose links differ (each send's short links are its
own recipients') can be clicked at the same time, as analysts' cells would, instead of one
after another: the burst rule reads each link on its own, so nothing a test counts changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pandas as pd

from smskit.sandbox import Sandbox


def simulate_clicks_at_once(
    sandbox: Sandbox, clicks: Sequence[tuple[str, Mapping[str, Any]]]
) -> list[pd.DataFrame]:
    """``sandbox.simulate_clicks(ticket, **options)`` for each ``(ticket, options)`` of
    ``clicks``, all at once; each call's frame of requests made, in the order given."""
    with ThreadPoolExecutor(max(1, len(clicks))) as pool:
        return list(pool.map(lambda c: sandbox.simulate_clicks(c[0], **c[1]), clicks))
