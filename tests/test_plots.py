"""smskit.plots: figures checked by their data (traces, categories, values, colours), not pixels.

HLR data comes from the sandbox's HLR simulation (seed 0); expected values are counted from
the raw answers in plain Python.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import pytest

from smskit import frames, plots
from smskit.client.models import Credits, HLRResults, SmsDraft, VoiceDraft
from smskit.errors import ValidationError
from smskit.rules import spec as _spec
from smskit.sandbox import _hlr

CREDITS = {
    "FR": {"premium_sms": 15384, "vocal_sms": 8333, "low_cost_sms": 22222, "hlr": 125000},
    "GB": {"premium_sms": 23809, "vocal_sms": 10000, "low_cost_sms": 30303, "hlr": 125000},
    "US": {"premium_sms": 66666, "vocal_sms": 16666, "low_cost_sms": 90909, "hlr": 166666},
}


@pytest.fixture(scope="module")
def raw() -> list[dict[str, Any]]:
    """300 simulated HLR answers: French, German and US lines, landlines, a bad format."""
    rng = random.Random(7)
    numbers = [f"+336{rng.randrange(10**8):08d}" for _ in range(200)]
    numbers += [f"+331{rng.randrange(10**8):08d}" for _ in range(30)]
    numbers += [f"+4915{rng.randrange(1, 8)}{rng.randrange(10**7):07d}" for _ in range(40)]
    numbers += [f"+1{rng.randrange(201, 989)}{rng.randrange(200, 999)}{rng.randrange(10**4):04d}"
                for _ in range(29)]  # fmt: skip
    numbers.append("not a number")
    return _hlr.lookup_many(numbers, seed=0)


def test_line_status_colours_cover_the_spec_and_read_as_meant() -> None:
    """Every spec line status has its own colour; live is green and dead is red."""
    colors = plots.LINE_STATUS_COLORS
    assert set(colors) == set(_spec.LINE_STATUS)
    assert len(set(colors.values())) == len(colors)

    def rgb(color: str) -> tuple[int, int, int]:
        return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)

    red, green, blue = rgb(colors["live"])
    assert green > red and green > blue
    red, green, blue = rgb(colors["dead"])
    assert red > green and red > blue


def test_plotly_loads_only_with_smskit_plots() -> None:
    """import smskit and smskit.frames leave plotly alone; smskit.plots is reached lazily."""
    script = (
        "import sys, smskit, smskit.frames; before = 'plotly' in sys.modules; "
        "smskit.plots.hlr_breakdown; print(before, 'plotly' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.split() == ["False", "True"]


def test_hlr_breakdown_stacks_line_status_per_type(raw: list[dict[str, Any]]) -> None:
    """One trace per line status seen, spec order, coloured by the map; x = types seen."""
    figure = plots.hlr_breakdown(HLRResults.from_json(raw))
    pairs = Counter((r["line_status"], r["phone_number_type"]) for r in raw)
    statuses = [s for s in _spec.LINE_STATUS if any(s == p[0] for p in pairs)]
    types = [t for t in _spec.PHONE_NUMBER_TYPE if any(t == p[1] for p in pairs)]
    assert figure.layout.barmode == "stack"
    assert [trace.name for trace in figure.data] == statuses
    for trace in figure.data:
        assert isinstance(trace, go.Bar)
        assert list(trace.x) == types
        assert list(trace.y) == [pairs[(trace.name, t)] for t in types]
        assert trace.marker.color == plots.LINE_STATUS_COLORS[trace.name]
    assert sum(sum(trace.y) for trace in figure.data) == len(raw)


def test_hlr_breakdown_takes_a_frame_too(raw: list[dict[str, Any]]) -> None:
    """The same bars from raw dicts and from an HLR frame (bulk HLR returns one)."""
    from_frame = plots.hlr_breakdown(frames.hlr_frame(raw))
    from_raw = plots.hlr_breakdown(raw)
    assert [(t.name, t.x, t.y) for t in from_frame.data] == [
        (t.name, t.x, t.y) for t in from_raw.data
    ]


def test_hlr_sunburst_nests_country_network_line_status(raw: list[dict[str, Any]]) -> None:
    """Country values are their numbers, leaves are line statuses in their colours."""
    (sunburst,) = plots.hlr_sunburst(raw).data
    nodes = {
        id_: (label, parent, value, color)
        for id_, label, parent, value, color in zip(
            sunburst.ids,
            sunburst.labels,
            sunburst.parents,
            sunburst.values,
            sunburst.marker.colors,
            strict=True,
        )
    }
    countries = Counter(r["country_code"] or frames.MISSING for r in raw)
    roots = {id_: node for id_, node in nodes.items() if node[1] == ""}
    assert {id_: node[2] for id_, node in roots.items()} == dict(countries)
    assert roots["FR"][0] == "France"
    leaves = Counter(
        (r["country_code"] or frames.MISSING, r["network_name"] or frames.MISSING, r["line_status"])
        for r in raw
    )
    got = {}
    for id_, (label, parent, value, color) in nodes.items():
        if id_.count(" / ") == 2:
            assert color == plots.LINE_STATUS_COLORS[label]
            assert nodes[parent][2] >= value
            got[tuple(id_.split(" / "))] = value
    assert got == dict(leaves)
    assert sunburst.branchvalues == "total"


def test_credits_bar_has_one_trace_per_product() -> None:
    """Grouped bars: x the countries in answer order, y the credits of that product."""
    figure = plots.credits_bar(Credits.from_json(CREDITS))
    assert figure.layout.barmode == "group"
    assert [trace.name for trace in figure.data] == [
        "premium_sms",
        "vocal_sms",
        "low_cost_sms",
        "hlr",
    ]
    for trace in figure.data:
        assert list(trace.x) == ["FR", "GB", "US"]
        assert list(trace.y) == [CREDITS[c][trace.name] for c in ("FR", "GB", "US")]
    chosen = plots.credits_bar(frames.credits_frame(CREDITS), products=["low_cost_sms"])
    assert [trace.name for trace in chosen.data] == ["low_cost_sms"]


def test_credits_map_locates_countries_by_iso3() -> None:
    """The choropleth uses ISO-3 codes (from pycountry) and the product's credits."""
    (choropleth,) = plots.credits_map(CREDITS, product="vocal_sms", scope="world").data
    assert choropleth.locationmode == "ISO-3"
    assert list(choropleth.locations) == ["FRA", "GBR", "USA"]
    assert list(choropleth.z) == [8333, 10000, 16666]
    assert list(choropleth.text) == ["France", "United Kingdom", "United States"]


def _credits(*countries: str) -> dict[str, dict[str, int]]:
    return {code: {"premium_sms": 1000 + i, "vocal_sms": 1, "low_cost_sms": 1, "hlr": 1}
            for i, code in enumerate(countries)}  # fmt: skip


@pytest.mark.parametrize(
    ("countries", "scope", "shown", "named"),
    [
        # all in one continent: that continent, nothing named
        (("FR", "DE", "IT", "PL"), "europe", ["FRA", "DEU", "ITA", "POL"], []),
        (("US", "CA", "MX"), "north america", ["USA", "CAN", "MEX"], []),
        (("MA", "SN", "ZA"), "africa", ["MAR", "SEN", "ZAF"], []),
        (("BR", "AR", "FK"), "south america", ["BRA", "ARG", "FLK"], []),
        (("GT", "CU", "GL"), "north america", ["GTM", "CUB", "GRL"], []),
        (("JP", "IN", "AE"), "asia", ["JPN", "IND", "ARE"], []),
        # most in Europe: Europe, the others named under the map
        (("FR", "US", "GB", "MA", "BE"), "europe", ["FRA", "GBR", "BEL"],
         ["United States", "Morocco"]),
        # no continent holds more than half: the world
        (("FR", "US", "JP", "BR"), None, ["FRA", "USA", "JPN", "BRA"], []),
        (("AU", "NZ"), None, ["AUS", "NZL"], []),
    ],
)  # fmt: skip
def test_credits_map_shows_the_continent_of_the_data(
    countries: tuple[str, ...], scope: str | None, shown: list[str], named: list[str]
) -> None:
    """The automatic scope is the continent of more than half the countries (world otherwise,
    zoomed to them); countries off the map are named in a note, not coloured."""
    figure = plots.credits_map(_credits(*countries))
    (choropleth,) = figure.data
    assert figure.layout.geo.scope == scope
    assert figure.layout.geo.fitbounds == "locations"
    assert list(choropleth.locations) == shown
    notes = [a.text for a in figure.layout.annotations]
    if named:
        assert len(notes) == 1 and all(name in notes[0] for name in named)
        assert all(name not in notes[0] for name in choropleth.text)
    else:
        assert notes == []


def test_credits_map_scope_can_be_chosen_and_is_checked() -> None:
    """An explicit scope is kept; an unknown one is refused naming 'scope'."""
    figure = plots.credits_map(_credits("FR", "DE"), scope="world")
    assert figure.layout.geo.scope is None and list(figure.data[0].locations) == ["FRA", "DEU"]
    asia = plots.credits_map(_credits("FR", "JP"), scope="asia")
    assert list(asia.data[0].locations) == ["JPN"]
    with pytest.raises(ValidationError) as info:
        plots.credits_map(_credits("FR"), scope="mars")
    assert info.value.field == "scope"


def test_unknown_product_is_refused_by_name() -> None:
    """A product the credits answer does not have: ValidationError naming 'product'."""
    with pytest.raises(ValidationError, match="product: one of premium_sms") as info:
        plots.credits_map(CREDITS, product="sms_premium")
    assert info.value.field == "product"


def test_draft_costs_compares_sms_and_voice() -> None:
    """Two panels: total cost and cost per contact, x = sms and voice."""
    sms = SmsDraft(number_of_contacts=250, number_of_sms_needed=250, total_cost=16.25)
    voice = VoiceDraft(number_of_contacts=40, total_cost=4.8, estimated_duration=45)
    total, per_contact = plots.draft_costs(sms, voice).data
    assert list(total.x) == list(per_contact.x) == ["sms", "voice"]
    assert list(total.y) == [16.25, 4.8]
    assert list(per_contact.y) == [16.25 / 250, 4.8 / 40]
    assert (total.xaxis, per_contact.xaxis) == ("x", "x2")
    assert list(total.marker.color) == [plots.KIND_COLORS["sms"], plots.KIND_COLORS["voice"]]


def replies(dates: list[str], opt_outs: list[bool]) -> pd.DataFrame:
    """A replies frame with the columns the replies inbox produces."""
    return pd.DataFrame(
        {
            "reception_date": pd.to_datetime(dates),
            "number": ["+33612345678"] * len(dates),
            "text": ["STOP" if o else "Yes" for o in opt_outs],
            "message_id": [f"m{i}" for i in range(len(dates))],
            "is_opt_out": opt_outs,
        }
    )


def test_replies_timeline_counts_per_period_with_opt_outs_apart() -> None:
    """Daily bars including empty days; opt-outs in their own red trace stacked on replies."""
    frame = replies(
        ["2026-03-01 09:00", "2026-03-01 18:30", "2026-03-01 20:00", "2026-03-03 08:00"],
        [False, True, False, True],
    )
    replies_trace, opt_outs_trace = plots.replies_timeline(frame).data
    days = list(pd.to_datetime(["2026-03-01", "2026-03-02", "2026-03-03"]))
    assert list(replies_trace.x) == days and list(opt_outs_trace.x) == days
    assert list(replies_trace.y) == [2, 0, 0]
    assert list(opt_outs_trace.y) == [1, 0, 1]
    assert opt_outs_trace.marker.color == plots.OPT_OUT_COLOR == plots.LINE_STATUS_COLORS["dead"]
    hourly = plots.replies_timeline(frame, freq="h").data[0]
    assert sum(hourly.y) == 2 and len(hourly.x) == 24 * 2


def test_replies_timeline_reads_hours_in_the_frames_time_zone() -> None:
    """Paris-time dates are counted per Paris hour, and the axis says which zone it is."""
    utc = replies(["2026-03-01 22:30", "2026-03-01 23:10"], [False, False])
    utc["reception_date"] = utc["reception_date"].dt.tz_localize("UTC")
    paris = utc.assign(reception_date=utc["reception_date"].dt.tz_convert("Europe/Paris"))
    figure = plots.replies_timeline(paris, freq="D")
    # 23:30 and 00:10 in Paris: two local days, one reply each
    assert list(figure.data[0].y) == [1, 1]
    assert figure.layout.xaxis.title.text == "reception_date (Europe/Paris)"
    assert plots.replies_timeline(utc, freq="D").data[0].y == (2,)


def test_replies_timeline_names_what_is_wrong() -> None:
    """A missing column or an unknown frequency is a ValidationError naming it."""
    frame = replies(["2026-03-01 09:00"], [False])
    with pytest.raises(ValidationError) as info:
        plots.replies_timeline(frame.drop(columns="is_opt_out"))
    assert info.value.field == "is_opt_out"
    with pytest.raises(ValidationError) as info:
        plots.replies_timeline(frame, freq="fortnightly")
    assert info.value.field == "freq"


def test_figures_are_returned_never_shown(
    raw: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No function calls show(): notebooks display the returned figure themselves."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("show() called")

    monkeypatch.setattr(go.Figure, "show", refuse)
    built = [
        plots.hlr_breakdown(raw),
        plots.hlr_sunburst(raw),
        plots.credits_bar(CREDITS),
        plots.credits_map(CREDITS),
        plots.draft_costs(SmsDraft(number_of_contacts=1, total_cost=1.0)),
        plots.replies_timeline(replies(["2026-03-01"], [True])),
    ]
    assert all(isinstance(figure, go.Figure) for figure in built)
    assert json.loads(built[0].to_json())["layout"]["title"]["text"].endswith("(300 numbers)")
