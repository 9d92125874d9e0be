"""A generated contact base of any size, built partition by partition on the cluster.

For notebooks and benchmarks: each partition is a pure function of ``(seed, index)``, so the
same call gives the same base on any cluster, and no partition ever passes through the
client. The mess is the one of real exports, in realistic shares: national and international
spellings, spaces, foreign numbers in national form with a country hint, a few unreadable
values, first names that force UCS-2, and the same line entered twice (numbers are drawn
from a space small enough for repeats to fall in different partitions).
"""

from __future__ import annotations

from typing import Final

import dask.dataframe as dd
import numpy as np
import pandas as pd

__all__ = ["ROWS_PER_PARTITION", "contact_base", "contact_partition"]

ROWS_PER_PARTITION: Final = 250_000
NAMES: Final = ("Anne", "Bruno", "Chloé", "David", "Élodie", "Farid", "Gaëlle", "Hugo", "Zoë")
# (country, calling code, trunk prefix, leading digits assigned to mobiles, digits after
# them, share of the base)
LINES: Final = (
    ("FR", "33", "0", ("60", "61", "62", "64", "65", "66", "67", "68"), 7, 0.62),
    ("FR", "33", "0", ("75", "76", "77", "78"), 7, 0.14),
    ("BE", "32", "0", ("47", "48", "49"), 7, 0.08),
    ("DE", "49", "0", ("151", "176"), 8, 0.08),
    ("ES", "34", "", ("6",), 8, 0.08),
)
UNREADABLE: Final = ("", "12", "n/a", "+33 6")
# Numbers drawn among this many per line kind: a 5M base repeats a few thousand of them.
SPACE: Final = 10**8


def contact_partition(seed: int, index: int, rows: int, start: int = 0) -> pd.DataFrame:
    """Partition ``index`` of the base (``rows`` rows, the first at position ``start``):
    ``phone_number``, ``country`` and ``first_name``."""
    rng = np.random.default_rng([seed, index])
    shares = np.array([line[5] for line in LINES])
    kind = rng.choice(len(LINES), size=rows, p=shares / shares.sum())
    digits = rng.integers(0, SPACE, size=rows)
    spelling = rng.random(rows)  # < .5 international, < .9 national, else spaced national
    numbers = np.empty(rows, dtype=object)
    hints = np.empty(rows, dtype=object)
    for k, (country, code, trunk, leads, width, _) in enumerate(LINES):
        at = np.flatnonzero(kind == k)
        lead = np.array(leads, dtype=object)[digits[at] % len(leads)]
        tail = [f"{d // len(leads) % 10**width:0{width}d}" for d in digits[at]]
        forms = spelling[at]
        numbers[at] = [
            f"+{code}{a}{t}" if f < 0.5 else _spaced(trunk + a + t) if f >= 0.9 else trunk + a + t
            for a, t, f in zip(lead, tail, forms, strict=True)
        ]
        # A national spelling needs its country, except French ones (FR is the default).
        hints[at] = [country if f >= 0.5 and country != "FR" else None for f in forms]
    broken = np.flatnonzero(rng.random(rows) < 0.01)
    numbers[broken] = rng.choice(np.array(UNREADABLE, dtype=object), size=len(broken))
    names = np.array(NAMES, dtype=object)[rng.integers(0, len(NAMES), size=rows)]
    return pd.DataFrame(
        {
            "phone_number": pd.array(numbers, dtype="string"),
            "country": pd.array(hints, dtype="string"),
            "first_name": pd.array(names, dtype="string"),
        },
        index=pd.RangeIndex(start, start + rows),
    )


def contact_base(
    rows: int, *, seed: int = 0, rows_per_partition: int = ROWS_PER_PARTITION
) -> dd.DataFrame:
    """A lazy base of ``rows`` contacts (index: the row position), ``rows_per_partition`` per
    partition (the last one shorter), generated on the cluster when computed."""
    if rows < 1 or rows_per_partition < 1:
        raise ValueError("rows and rows_per_partition: at least 1")
    sizes = [min(rows_per_partition, rows - start) for start in range(0, rows, rows_per_partition)]
    meta = contact_partition(seed, 0, 0)
    divisions = [*range(0, rows, rows_per_partition), rows - 1]
    return dd.from_map(
        contact_partition,
        [seed] * len(sizes),
        range(len(sizes)),
        sizes,
        [k * rows_per_partition for k in range(len(sizes))],
        meta=meta,
        divisions=divisions,
        label="contact-base",
        enforce_metadata=False,
    )


def _spaced(number: str) -> str:
    """``06 12 34 56 78``: pairs of digits, as people type them."""
    return " ".join(number[i : i + 2] for i in range(0, len(number), 2))
