"""frames.percentages: shares shown as percentages, the frame itself unchanged."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from smskit import frames
from smskit.errors import ValidationError
from smskit.views.percentages import share_columns


def _breakdown() -> pd.DataFrame:
    return pd.DataFrame(
        {"count": [1222, 515, 1737], "share": [1222 / 1737, 515 / 1737, 1.0]},
        index=pd.Index(["live", "dead", "total"], name="line_status"),
    )


def test_shares_read_as_percentages_in_html_and_text() -> None:
    """0.703512 shows as 70.4% in the page's HTML and in the text repr; counts are untouched."""
    table = frames.percentages(_breakdown())
    html, text = table.to_html(), repr(table)
    for shown in (html, text):
        assert "70.4%" in shown and "29.6%" in shown and "100.0%" in shown
        assert "0.7035" not in shown and "1222" in shown


def test_the_frame_itself_is_not_changed() -> None:
    """The wrapped frame is the same object, its shares still fractions to compute with."""
    frame = _breakdown()
    before = frame.copy()
    table = frames.percentages(frame, decimals=2)
    assert table.data is frame
    pd.testing.assert_frame_equal(frame, before)
    assert "70.35%" in repr(table)


def test_share_and_rate_columns_are_found_by_name() -> None:
    """share, rate and *_share / *_rate columns; counts and other floats are not."""
    frame = pd.DataFrame(columns=["count", "share", "reachable_share", "reply_rate", "cost", 3])
    assert share_columns(frame) == ["share", "reachable_share", "reply_rate"]


def test_same_table_same_html_and_missing_shares_blank() -> None:
    """Two renderings of one table are identical (stable page ids); NaN shows empty."""
    frame = pd.DataFrame({"numbers": [0, 4], "share": [math.nan, 0.25]})
    first, second = frames.percentages(frame).to_html(), frames.percentages(frame).to_html()
    assert first == second and "25.0%" in first and "nan" not in first.lower()
    assert "NaN" not in repr(frames.percentages(frame))


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"columns": ["nope"]}, "columns"), ({"decimals": -1}, "decimals"),
     ({"decimals": True}, "decimals")],
)  # fmt: skip
def test_bad_arguments_are_refused_by_name(kwargs: dict[str, object], field: str) -> None:
    """An unknown column or a silly number of decimals: ValidationError naming it."""
    with pytest.raises(ValidationError) as info:
        frames.percentages(_breakdown(), **kwargs)  # type: ignore[arg-type]
    assert info.value.field == field


@given(st.floats(min_value=0, max_value=1, allow_nan=False), st.integers(0, 4))
def test_percentage_text_is_the_fraction_times_100(share: float, decimals: int) -> None:
    """Whatever the fraction, the text shown parses back to it within the rounding."""
    text = repr(frames.percentages(pd.DataFrame({"share": [share]}), decimals=decimals))
    shown = float(text.split()[-1].rstrip("%"))
    assert abs(shown - share * 100) <= 0.5 * 10**-decimals + 1e-9
