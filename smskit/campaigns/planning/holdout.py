"""A campaign's holdout: a seeded random part of the recipients preflight would send to,
kept out of the send so that what they do anyway can be compared (``result.lift``).

:class:`Holdout` is the choice (a share or a count, a seed, optionally stratified by
country); :func:`hold_out` applies it to a preflight frame, in place: each held-out
recipient gets the issue ``held_out`` (its detail the seed), so the plan journals it among
the excluded recipients, before the first request, and no chunk ever holds it (a resume, a
kill at any point included: chunks are made from the journaled plan).

Which recipients: each sendable recipient draws a number from its E.164 number and the seed
(a 64-bit mix, the same on any machine and in any row order); the ``k`` smallest draws are
held out, ``k`` being the share of the sendable recipients rounded (or the count); stratified,
each country holds out its own share (a count is shared out by country in proportion, the
largest remainders first). A held-out recipient is excluded from nothing else: the next
campaign may send to it.

May import: ``smskit.errors`` and the rule book.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from smskit.errors import ValidationError
from smskit.rules.choices import checked_choice
from smskit.rules.ranges import checked_integer, exact_integer, real_number

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = [
    "HELD_OUT",
    "RULE_SIZE",
    "STRATA",
    "Holdout",
    "as_holdout",
    "draws",
    "hold_out",
    "mark_held",
    "shares",
]

HELD_OUT: Final = "held_out"
STRATA: Final = ("country",)
RULE_SIZE: Final = "must be a share (a float, 0 < share < 1) or a count (an int, at least 1)"
_MIX: Final = (0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB)


@dataclass(frozen=True)
class Holdout:
    """Hold out ``size`` of the sendable recipients: a share (a float between 0 and 1,
    exclusive) or a count (an int, at least 1); ``seed`` (an int, None: the campaign's name
    seeds it); ``stratify="country"`` holds out that share in each destination country."""

    size: float | int
    seed: int | None = None
    stratify: str | None = None

    def __post_init__(self) -> None:
        # an exact integer is a count, another real number a share (rules.ranges reads both:
        # never a bool, NumPy's timedelta64 or datetime64 either: a duration is no count)
        count = exact_integer(self.size)
        size = real_number(self.size) if count is None else count
        if size is None or not (size >= 1 if count is not None else 0 < size < 1):
            raise ValidationError("holdout", RULE_SIZE, value=self.size)
        object.__setattr__(self, "size", size)
        if self.seed is not None:
            object.__setattr__(self, "seed", checked_integer("seed", self.seed))
        checked_choice("stratify", self.stratify, STRATA, optional=True)

    def seeded(self, name: str) -> Holdout:
        """This holdout with its seed, the campaign ``name``'s when none was given."""
        if self.seed is not None:
            return self
        digest = hashlib.blake2b(name.encode(), digest_size=4).digest()
        return Holdout(self.size, int.from_bytes(digest, "big"), self.stratify)

    def record(self) -> dict[str, Any]:
        """As the journal's header records it."""
        return {"size": self.size, "seed": self.seed, "stratify": self.stratify}

    def count(self, sendable: int) -> int:
        """How many of ``sendable`` recipients are held out."""
        if isinstance(self.size, int):
            return min(self.size, sendable)
        return round(self.size * sendable)


def as_holdout(holdout: Any, seed: Any = None, stratify: Any = None) -> Holdout | None:
    """A campaign's ``holdout=`` (a share, a count, a :class:`Holdout` or None) with its
    ``seed=`` and ``stratify=`` as one :class:`Holdout` (or None: no holdout)."""
    if holdout is None:
        if seed is not None or stratify is not None:
            raise ValidationError("holdout", "seed= and stratify= need a holdout= share or count")
        return None
    if isinstance(holdout, Holdout):
        if seed is not None or stratify is not None:
            raise ValidationError("seed", "give the seed and strata in the Holdout itself")
        return holdout
    return Holdout(holdout, seed, stratify)


def draws(numbers: pd.Series, seed: int) -> np.ndarray:
    """A uniform 64-bit draw per E.164 number (splitmix64 of its digits and the seed)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    texts = pa.array(numbers.astype(object).to_numpy(), type=pa.large_string())
    digits = np.asarray(pc.cast(pc.utf8_slice_codeunits(texts, 1), pa.int64()))
    with np.errstate(over="ignore"):
        z = digits.astype(np.uint64) + np.uint64(_MIX[0]) * np.uint64(seed + 1)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(_MIX[1])
        z = (z ^ (z >> np.uint64(27))) * np.uint64(_MIX[2])
        return np.asarray(z ^ (z >> np.uint64(31)))


def shares(holdout: Holdout, sizes: np.ndarray) -> np.ndarray:
    """Recipients held out per stratum of ``sizes`` recipients (strata in order of first
    appearance: a count's largest remainders tie in that order)."""
    import numpy as np

    total = int(sizes.sum())
    if isinstance(holdout.size, float):
        return np.rint(sizes * holdout.size).astype("int64")
    wanted = holdout.count(total)
    exact = sizes * (wanted / total) if total else sizes * 0.0
    counts = np.floor(exact).astype("int64")
    left = wanted - int(counts.sum())
    order = np.argsort(-(exact - counts), kind="stable")
    counts[order[:left]] += 1
    return counts


def hold_out(frame: pd.DataFrame, holdout: Holdout, issues: tuple[str, ...]) -> int:
    """In place: the held-out recipients of a preflight frame (``send``, ``phone_number``,
    ``region``, ``issue`` and ``detail`` columns; ``issues`` the issue categories) get
    issue ``held_out`` and the seed as detail, and are not sent. Returns how many."""
    import numpy as np
    import pandas as pd

    assert holdout.seed is not None  # seeded by the spec
    sending = np.flatnonzero(frame["send"].to_numpy(dtype=bool))
    drawn = draws(frame["phone_number"].iloc[sending], holdout.seed)
    if holdout.stratify is None:
        strata = np.zeros(len(sending), dtype="int64")
    else:
        regions = frame["region"].iloc[sending].astype(object)
        strata = pd.factorize(regions, use_na_sentinel=False)[0]
    sizes = np.bincount(strata) if len(strata) else np.zeros(0, dtype="int64")
    chosen = []
    for stratum, k in enumerate(shares(holdout, sizes)):
        members = np.flatnonzero(strata == stratum)
        ranked = members[np.lexsort((members, drawn[members]))]
        chosen.append(sending[ranked[:k]])
    held = np.concatenate(chosen) if chosen else np.zeros(0, dtype="int64")
    return mark_held(frame, held, holdout, issues)


def mark_held(
    frame: pd.DataFrame, held: np.ndarray, holdout: Holdout, issues: tuple[str, ...]
) -> int:
    """In place: the recipients at positions ``held`` of a preflight frame get issue
    ``held_out``, the seed as detail, and are not sent. Returns how many."""
    import pandas as pd

    if not len(held):
        return 0
    issue = frame["issue"].astype(pd.CategoricalDtype(list(issues)))
    codes = issue.cat.codes.to_numpy().copy()
    codes[held] = issues.index(HELD_OUT)
    kinds = pd.Index(list(issues))
    issue = pd.Series(pd.Categorical.from_codes(codes, categories=kinds), index=frame.index)
    detail = frame["detail"].astype(object)
    detail.iloc[held] = f"seed {holdout.seed}"
    send = frame["send"].to_numpy(dtype=bool).copy()
    send[held] = False
    frame["issue"] = issue
    frame["detail"] = detail.astype("category")
    frame["send"] = send
    return len(held)
