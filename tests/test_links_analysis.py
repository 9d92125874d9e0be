"""Clicks in the analysis: rates by group, clicks over time and its figure, tracking refusals."""

from __future__ import annotations

import pandas as pd
import pytest

import smskit
from smskit.campaigns.analysis.clicks import click_rates, clicks_over_time
from smskit.errors import ValidationError
from smskit.replies import Inbox


def test_click_rates_by_a_column_count_recipients_and_clickers() -> None:
    """click_rates gives recipients, clickers, clicks and the rate per value, zero rows kept."""
    outcomes = pd.DataFrame(
        {
            "country": pd.Categorical(["FR", "FR", "BE", "FR"], categories=["BE", "FR", "DE"]),
            "clicked": [True, False, True, True],
            "clicks": [2, 0, 1, 1],
            "bot_clicks": [1, 3, 0, 0],
        }
    )
    table = click_rates(outcomes, "country")
    assert table.loc["FR", ["recipients", "clicked", "clicks", "bot_clicks"]].tolist() == [
        3,
        2,
        3,
        4,
    ]
    assert table.loc["FR", "click_rate"] == pytest.approx(2 / 3)
    assert table.loc["DE", "recipients"] == 0 and pd.isna(table.loc["DE", "click_rate"])
    with pytest.raises(ValidationError, match="by"):
        click_rates(outcomes, "arm")


def test_clicks_over_time_and_its_figure() -> None:
    """Requests per minute since the send, people and bots apart; the figure stacks them."""
    start = pd.Timestamp("2026-11-28 10:00", tz="UTC")
    clicks = pd.DataFrame(
        {
            "at": [start + pd.Timedelta(seconds=s) for s in (5, 30, 70, 200)],
            "reason": ["human", "agent:whatsapp", "human", "human"],
        }
    )
    table = clicks_over_time(clicks, start)
    assert table["human"].tolist() == [1, 1, 1] and table["bot"].tolist() == [1, 0, 0]
    assert table.index.tolist() == [pd.Timedelta(minutes=m) for m in (0, 1, 3)]
    figure = smskit.plots.clicks_over_time(clicks, start)
    assert [trace.name for trace in figure.data] == ["people", "bots"]
    assert list(figure.data[0].y) == [1, 1, 1]


@pytest.mark.parametrize(
    ("freq", "unit", "x"),
    [("1s", "seconds", [0, 1, 2, 4, 30, 125]), ("10s", "seconds", [0, 30, 120]),
     ("1min", "minutes", [0, 2]), ("2h", "hours", [0])],
)  # fmt: skip
def test_clicks_figure_counts_time_in_the_unit_of_its_periods(
    freq: str, unit: str, x: list[int]
) -> None:
    """The bars stand at whole numbers of the periods' own unit, the axis and the hover say
    which: with freq="1s" (notebook 07) the axis read "minutes after the first" at 0.0167,
    0.0333 ... and every bar's hover said "at 0 min"."""
    start = pd.Timestamp("2026-11-28 10:00", tz="UTC")
    seconds = (0, 1, 2, 4, 4, 30, 125)
    clicks = pd.DataFrame(
        {"at": [start + pd.Timedelta(seconds=s) for s in seconds], "reason": "human"}
    )
    figure = smskit.plots.clicks_over_time(clicks, freq=freq)
    people = figure.data[0]
    assert list(people.x) == x and sum(people.y) == len(seconds)
    assert figure.layout.xaxis.title.text == f"{unit} after the first"
    assert people.hovertemplate.startswith(f"%{{y}} at %{{x:g}} {unit}")


def test_a_campaign_refuses_what_cannot_track() -> None:
    """track_links must be an Inbox; a link_base too long for a field is refused naming the link."""
    with pytest.raises(ValidationError, match="track_links"):
        smskit.Campaign(None, ["+33612345678"], text="https://a.example", sender="Shop",
                        track_links="http://127.0.0.1")  # fmt: skip
    inbox = Inbox(link_base="https://" + "x" * 40 + ".example")
    with pytest.raises(ValidationError, match=r"link 'https://a\.example'"):
        smskit.Campaign(None, ["+33612345678"], text="Go https://a.example", sender="Shop",
                        track_links=inbox)  # fmt: skip


def test_a_tracked_campaign_refuses_a_text_given_after_it_was_made() -> None:
    """campaign.text = ... on a tracked campaign is refused at preflight, never sent untracked."""
    with Inbox() as inbox:
        campaign = smskit.Campaign(
            None, ["+33612345678"], text="Go https://a.example", sender="Shop",
            track_links=inbox, purpose="alert",
        )  # fmt: skip
        assert campaign.preflight(offline=True).to_send == 1
        campaign.text = "Now https://b.example"
        with pytest.raises(ValidationError, match="keeps the text it was made with"):
            campaign.preflight(offline=True)
