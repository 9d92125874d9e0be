"""The text engine over many texts at once: :func:`analyze_many` and a campaign's :func:`estimate`.

Counting is :mod:`smskit.rules.textvec`'s numpy path, rendering and optimising
:mod:`smskit.rules.text`'s; this module sits above both, so the scalar engine never imports
the vectorised one. numpy and pandas load on the first call, not on import.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from smskit.errors import ValidationError
from smskit.rules.choices import checked_flag
from smskit.rules.personalize import render_columns
from smskit.rules.text import GSM7, alphabets, analyze, optimize_text

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = ["FEW_TEXTS", "SegmentEstimate", "analyze_many", "estimate", "text_figures"]

FEW_TEXTS = 128
"""Up to this many texts, :func:`text_figures` analyses them one by one (the scalar engine
costs microseconds a text; the numpy path and its frame a millisecond and more to set up)."""


def analyze_many(texts: Any, *, national: str | None = None) -> pd.DataFrame:
    """Analyse many texts at once: one row per text with ``encoding``, ``characters``,
    ``units``, ``segments``, ``remaining`` and ``error``.

    A row that cannot be analysed (not a string, lone surrogate) gets nulls and its rule in
    ``error``; an empty text or one over 1224 characters is analysed and flagged in
    ``error``. Never raises for a bad row. Numbers equal :func:`smskit.text.analyze`'s exactly.
    """
    from smskit.rules import textvec

    alphabets(national)  # a bad `national` is the caller's error, not a bad row
    return textvec.analyze_many(texts, national=national)


def text_figures(texts: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per text its encoding code (0 GSM-7, 1 UCS-2; -1 when it cannot be analysed), its
    characters and its segments (0 and 0 when it cannot be analysed): :func:`analyze_many`'s
    numbers without its frame. Up to :data:`FEW_TEXTS` texts, each is
    :func:`smskit.text.analyze`'d (the same numbers); more go through :func:`analyze_many`."""
    import numpy as np

    if len(texts) > FEW_TEXTS:
        frame = analyze_many(texts)
        return (
            frame["encoding"].cat.codes.to_numpy(dtype="int8"),
            frame["characters"].fillna(0).to_numpy(dtype="int32"),
            frame["segments"].fillna(0).to_numpy(dtype="int16"),
        )
    encoding = np.full(len(texts), -1, dtype="int8")
    characters = np.zeros(len(texts), dtype="int32")
    segments = np.zeros(len(texts), dtype="int16")
    for i, text in enumerate(texts):
        try:
            stats = analyze(text)
        except ValidationError:
            continue  # not a string, or a lone surrogate: analyze_many's null row
        encoding[i] = 0 if stats.encoding == GSM7 else 1
        characters[i] = stats.characters
        segments[i] = stats.segments
    return encoding, characters, segments


@dataclass(frozen=True)
class SegmentEstimate:
    """Segments of a personalised campaign, per recipient and in total (no prices: the
    money is :class:`~smskit.campaigns.CostEstimate`, from ``Campaign.estimate``).

    ``messages`` has ``text``, ``encoding``, ``characters``, ``units``, ``segments`` and
    ``error`` per recipient; ``by_segments`` counts recipients by segment count;
    ``missing`` lists ``(row, field)`` pairs that rendered empty.
    """

    messages: pd.DataFrame
    total_segments: int
    worst_case: int
    by_segments: pd.Series
    missing: pd.DataFrame = field(repr=False)

    @property
    def recipients(self) -> int:
        """Number of recipients estimated."""
        return len(self.messages)

    def __repr__(self) -> str:
        return (
            f"SegmentEstimate(recipients={self.recipients}, total_segments={self.total_segments}, "
            f"worst_case={self.worst_case}, missing={len(self.missing)})"
        )


def estimate(
    template: str, recipients: Any, *, auto_optimize_text: bool = True, national: str | None = None
) -> SegmentEstimate:
    """Per-recipient rendered text and segments, and the campaign totals.

    Follows the gateway: render, then (by default) :func:`optimize`, then count.
    """
    import pandas as pd

    checked_flag("auto_optimize_text", auto_optimize_text)
    texts, index, missing = render_columns(template, recipients)
    if auto_optimize_text:
        texts = [optimize_text(t) for t in texts]
    stats = analyze_many(pd.Series(texts, index=index, dtype="str"), national=national)
    messages = pd.concat([pd.Series(texts, index=index, name="text", dtype="str"), stats], axis=1)
    segments = stats["segments"]
    by_segments = segments.value_counts().sort_index()
    by_segments.index.name = "segments"
    by_segments.name = "recipients"
    return SegmentEstimate(
        messages=messages,
        total_segments=int(segments.sum()),
        worst_case=int(segments.max()) if len(segments) else 0,
        by_segments=by_segments,
        missing=pd.DataFrame(missing, columns=["row", "field"]).astype(
            {"row": "int64", "field": "str"}
        ),
    )
