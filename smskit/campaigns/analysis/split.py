"""An experiment's audience split into arms at random: seeded, balanced, stratified if asked.

:func:`assign_arms` is the whole rule. Each stratum (every row, or the rows of one country)
is put in a random order by NumPy's ``Generator(PCG64(seed))``; the rows are then dealt to
the arms in turn, the deal running on from one stratum to the next. So every stratum's arms
differ by at most one recipient, and so do the arms overall (a stratum's leftover rows go to
the arms the previous stratum's left short). The same rows, strata and seed give the same
split with the same NumPy; the experiment also records the split itself (see
:mod:`smskit.campaigns.experiment`), so a resume never splits again and never depends on it.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from smskit.campaigns.planning.holdout import STRATA
from smskit.errors import ValidationError
from smskit.rules.choices import checked_choice
from smskit.rules.filenames import checked_file_name
from smskit.rules.ranges import checked_integer

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "ARM_NAME_MAX",
    "MAX_ARMS",
    "UNKNOWN_STRATUM",
    "assign_arms",
    "check_arms",
    "check_seed",
    "check_stratify",
    "new_seed",
]

MAX_ARMS: Final = 26
# An arm names its campaign (<experiment>.<arm>), hence its journal file: no '.' in it.
ARM_NAME_MAX: Final = 30
# What a split may be stratified by: the recipient's country (its number's region).
# The stratum of a row whose number has no country (invalid, or national without a region).
UNKNOWN_STRATUM: Final = "unknown"


def check_arms(variants: Any) -> dict[str, str]:
    """``variants`` checked: a mapping of 2 to 26 arm names (letters, digits, ``_``, ``-``,
    up to 30 characters) to texts, in the order given (the first arm is the control)."""
    if not isinstance(variants, Mapping):
        raise ValidationError("variants", "must be a mapping of arm name to text", value=variants)
    if not 2 <= len(variants) <= MAX_ARMS:
        raise ValidationError(
            "variants", f"an experiment has 2 to {MAX_ARMS} arms", value=len(variants)
        )
    for position, (arm, text) in enumerate(variants.items()):
        checked_file_name(
            "variants",
            arm,
            longest=ARM_NAME_MAX,
            dots=False,
            names="the arm's journal",
            position=position,
        )
        if not isinstance(text, str):
            raise ValidationError(f"variants.{arm}", "must be a string", value=text)
    return dict(variants)


def check_seed(seed: Any) -> int:
    """A seed: an integer from 0 to 2**63 - 1 (what NumPy and the journal's JSON both hold)."""
    return checked_integer("seed", seed, low=0, high=2**63 - 1)


def new_seed() -> int:
    """A fresh seed for an experiment given none (it is recorded, so the split is known)."""
    return secrets.randbits(63)


def check_stratify(stratify: Any) -> str | None:
    """``stratify``: None (one stratum) or one of :data:`STRATA`."""
    return checked_choice("stratify", stratify, STRATA, optional=True)


def assign_arms(size: int, arms: int, seed: int, strata: Sequence[Any] | None = None) -> np.ndarray:
    """Each of ``size`` rows' arm (0 to ``arms - 1``), at random from ``seed``.

    ``strata``: each row's stratum (any hashable; None: one stratum). Strata are dealt in
    sorted order of their labels (as text), each in a random order, to the arms in turn.
    """
    import numpy as np

    seed = check_seed(seed)
    if arms < 1:
        raise ValidationError("arms", "must be at least 1", value=arms)
    if strata is not None and len(strata) != size:
        raise ValidationError("strata", f"must have one label per row ({size})", value=len(strata))
    generator = np.random.Generator(np.random.PCG64(seed))
    assignment = np.empty(size, dtype="int64")
    dealt = 0
    for rows in _strata_rows(size, strata):
        order = rows[generator.permutation(len(rows))]
        assignment[order] = (dealt + np.arange(len(order))) % arms
        dealt += len(order)
    return assignment


def _strata_rows(size: int, strata: Sequence[Any] | None) -> list[np.ndarray]:
    """The rows of each stratum, strata in sorted order of their labels as text."""
    import numpy as np

    if strata is None:
        return [np.arange(size)]
    labels = np.array([str(label) for label in strata], dtype=str)
    _, inverse, counts = np.unique(labels, return_inverse=True, return_counts=True)
    by_stratum = np.argsort(inverse, kind="stable")
    return np.split(by_stratum, np.cumsum(counts)[:-1])
