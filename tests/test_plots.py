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
import phonenumbers
import plotly.graph_objects as go
import pycountry
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
    """Country values are their numbers, leaves are line statuses in their colours; labels
    too small to read are hidden rather than shrunk."""
    figure = plots.hlr_sunburst(raw)
    assert figure.layout.uniformtext.mode == "hide" and figure.layout.uniformtext.minsize >= 10
    (sunburst,) = figure.data
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


def test_hlr_networks_stacks_line_status_per_network(raw: list[dict[str, Any]]) -> None:
    """One bar per network (most numbers first), stacked by line status in its colours; the
    networks past ``top`` summed in one bar; totals match the raw answers."""
    per_network = Counter(
        (r["country_code"] or frames.MISSING, r["network_name"] or frames.MISSING) for r in raw
    )
    ranked = [key for key, _ in sorted(per_network.items(), key=lambda item: -item[1])]
    figure = plots.hlr_networks(raw, top=3)
    labels = list(figure.data[0].y)
    assert len(labels) == 4 and labels[-1] == f"{len(ranked) - 3} other networks"
    totals = [sum(trace.x[i] for trace in figure.data) for i in range(4)]
    assert totals[:3] == sorted((per_network[key] for key in ranked[:3]), reverse=True)
    assert totals[3] == sum(per_network[key] for key in ranked[3:]) and sum(totals) == len(raw)
    for trace in figure.data:
        assert (
            trace.orientation == "h" and trace.marker.color == plots.LINE_STATUS_COLORS[trace.name]
        )
    assert labels[0] == "{1} ({0})".format(*ranked[0])
    cell = Counter((r["network_name"], r["line_status"]) for r in raw if r["country_code"] == "FR")
    first = {trace.name: trace.x[0] for trace in figure.data}
    country, network = ranked[0]
    assert country == "FR"
    assert {s: n for s, n in first.items() if n} == {
        status: n for (name, status), n in cell.items() if name == network
    }
    everything = plots.hlr_networks(raw, top=100)
    assert not any(label.endswith("other networks") for label in everything.data[0].y)
    # "not a number" has neither a country nor a network: said in words, not "((missing))"
    assert "no network, no country" in everything.data[0].y
    assert not any(frames.MISSING in label for label in everything.data[0].y)
    with pytest.raises(ValidationError) as info:
        plots.hlr_networks(raw, top=0)
    assert info.value.field == "top"


def test_credits_bar_has_one_trace_per_product() -> None:
    """Horizontal grouped bars, one trace per product; rows sorted by the first product's
    credits, most first, labelled with the country's name and code."""
    figure = plots.credits_bar(Credits.from_json(CREDITS))
    assert figure.layout.barmode == "group"
    assert [trace.name for trace in figure.data] == [
        "premium_sms",
        "vocal_sms",
        "low_cost_sms",
        "hlr",
    ]
    order = ("US", "GB", "FR")  # premium_sms 66,666 > 23,809 > 15,384
    for trace in figure.data:
        assert trace.orientation == "h"
        assert list(trace.y) == ["United States (US)", "United Kingdom (GB)", "France (FR)"]
        assert list(trace.x) == [CREDITS[c][trace.name] for c in order]
    assert figure.layout.yaxis.autorange == "reversed"  # the first row on top
    chosen = plots.credits_bar(frames.credits_frame(CREDITS), products=["low_cost_sms"])
    assert [trace.name for trace in chosen.data] == ["low_cost_sms"]


def test_credits_bar_shows_the_top_countries_and_groups_the_rest() -> None:
    """top=N keeps the N countries with the most credits (ties by code); the others are one
    bar per product: their median, whiskers down to their lowest and up to their highest."""
    values = {"AD": 50, "BE": 70, "CH": 70, "DE": 10, "ES": 20, "FI": 30, "GR": 40}
    credits = {c: {"premium_sms": v, "vocal_sms": 2 * v, "low_cost_sms": 1, "hlr": 1}
               for c, v in values.items()}  # fmt: skip
    figure = plots.credits_bar(credits, products=["premium_sms", "vocal_sms"], top=3)
    top = [t for t in figure.data if t.showlegend is not False]
    rest = [t for t in figure.data if t.showlegend is False]
    assert [t.name for t in top] == [t.name for t in rest] == ["premium_sms", "vocal_sms"]
    assert [label[-4:] for label in top[0].y] == ["(BE)", "(CH)", "(AD)"]
    assert list(top[0].x) == [70, 70, 50] and list(top[1].x) == [140, 140, 100]
    for trace, factor in zip(rest, (1, 2), strict=True):
        assert list(trace.y) == ["4 other countries"]
        assert list(trace.x) == [25.0 * factor]  # median of 10, 20, 30, 40
        assert list(trace.error_x.arrayminus) == [15.0 * factor]  # down to 10
        assert list(trace.error_x.array) == [15.0 * factor]  # up to 40
        assert trace.offsetgroup == trace.name  # beside the same product's bars
    assert "the 4 others as median and range" in figure.layout.title.text
    for wrong in (0, -1, 2.5, True):
        with pytest.raises(ValidationError) as info:
            plots.credits_bar(credits, top=wrong)  # type: ignore[arg-type]
        assert info.value.field == "top"


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
    ("countries", "scope", "framed", "named"),
    [
        # all in one continent: that continent, nothing named
        (("FR", "DE", "IT", "PL"), "europe", ["FR", "DE", "IT", "PL"], []),
        (("US", "CA", "MX"), "north america", ["US", "CA", "MX"], []),
        (("MA", "SN", "ZA"), "africa", ["MA", "SN", "ZA"], []),
        (("BR", "AR", "FK"), "south america", ["BR", "AR", "FK"], []),
        (("GT", "CU", "GL"), "north america", ["GT", "CU", "GL"], []),
        (("JP", "IN", "AE"), "asia", ["JP", "IN", "AE"], []),
        # most in Europe: Europe, the others named under the map with their credits
        (("FR", "US", "GB", "MA", "BE"), "europe", ["FR", "GB", "BE"],
         ["United States (1,001)", "Morocco (1,003)"]),
        # no continent holds more than half: the world, zoomed to the countries
        (("FR", "US", "JP", "BR"), None, ["FR", "US", "JP", "BR"], []),
        (("AU", "NZ"), None, ["AU", "NZ"], []),
    ],
)  # fmt: skip
def test_credits_map_shows_the_continent_of_the_data(
    countries: tuple[str, ...], scope: str | None, framed: list[str], named: list[str]
) -> None:
    """The automatic scope is the continent of more than half the countries (the world
    otherwise, zoomed to them); every country is drawn, the colour scale spans those of the
    continent, and the few off the map are named in a note."""
    credits = _credits(*countries)
    figure = plots.credits_map(credits)
    (choropleth,) = figure.data
    assert figure.layout.geo.scope == scope
    assert figure.layout.geo.fitbounds == (None if scope else "locations")
    assert len(choropleth.locations) == len(countries)
    if scope:
        in_frame = [credits[code]["premium_sms"] for code in framed]
        assert (choropleth.zmin, choropleth.zmax) == (min(in_frame), max(in_frame))
    notes = [a.text for a in figure.layout.annotations]
    if named:
        assert len(notes) == 1 and all(name in notes[0] for name in named)
        framed_names = [n for c, n in zip(countries, choropleth.text, strict=True) if c in framed]
        assert all(name not in notes[0] for name in framed_names)
    elif scope:
        assert notes == []


def test_credits_map_of_the_whole_price_list_frames_the_accounts_continent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """check_credits() lists every country: the map shows the continent of the account's time
    zone, its colour scale spans that continent's credits only (North America, priced lower,
    so with six times the credits, does not set it), and the note counts the others."""
    monkeypatch.delenv("SMSKIT_TIME_ZONE", raising=False)
    europe = ["FR", "DE", "IT", "ES", "PL", "BE", "NL", "PT", "GR", "SE"]
    elsewhere = ["US", "CA", "JM", "BS", "BB", "MA", "SN", "JP", "IN", "BR", "AR", "AU", "NZ",
                 "CN", "ZA", "EG", "KE", "MX", "CL", "TH"]  # fmt: skip
    codes = [*europe, *elsewhere]
    filler = [f"{a}{b}" for a in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" for b in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"]
    known = {c.alpha_2 for c in pycountry.countries} & phonenumbers.SUPPORTED_REGIONS
    codes += [c for c in filler if c in known and c not in codes][: plots.WHOLE_LIST - len(codes)]
    credits = {
        code: {"premium_sms": 60_000 if code in ("US", "CA", "JM", "BS", "BB") else 10_000 + i,
               "vocal_sms": 1, "low_cost_sms": 1, "hlr": 1}
        for i, code in enumerate(codes)
    }  # fmt: skip
    assert len(credits) == plots.WHOLE_LIST
    figure = plots.credits_map(credits)
    (choropleth,) = figure.data
    assert figure.layout.geo.scope == "europe"
    assert len(choropleth.locations) == len(codes)  # all drawn, Europe framed
    # Europe as the ITU numbering plan has it: calling codes 3xx and 4xx (298, the Faroes,
    # too; 297 Aruba and 299 Greenland are American)
    calling = {c: str(phonenumbers.country_code_for_region(c)) for c in codes}
    european = [
        credits[c]["premium_sms"]
        for c in codes
        if calling[c][0] in "34" or calling[c] == "298"
        if calling[c] not in ("297", "299")
    ]
    assert choropleth.zmax == max(european) < 60_000
    assert choropleth.zmin == min(european)
    (note,) = [a.text for a in figure.layout.annotations]
    assert note.startswith(f"colours span the {len(european)} countries of Europe")
    monkeypatch.setenv("SMSKIT_TIME_ZONE", "Asia/Tokyo")
    assert plots.credits_map(credits).layout.geo.scope == "asia"


@pytest.mark.parametrize(
    ("time_zone", "scope"),
    [("Europe/Paris", "europe"), ("Africa/Dakar", "africa"), ("Asia/Tokyo", "asia"),
     ("America/New_York", "north america"), ("America/Sao_Paulo", "south america"),
     ("America/Argentina/Buenos_Aires", "south america"), ("Pacific/Auckland", "world"),
     ("UTC", "world")],
)  # fmt: skip
def test_time_zone_scope_is_the_zones_continent(time_zone: str, scope: str) -> None:
    """A time zone's map is its area's continent; America splits North and South."""
    assert plots.time_zone_scope(time_zone) == scope


def test_credits_map_scope_can_be_chosen_and_is_checked() -> None:
    """An explicit scope is kept; an unknown one is refused naming 'scope'."""
    figure = plots.credits_map(_credits("FR", "DE"), scope="world")
    assert figure.layout.geo.scope is None and list(figure.data[0].locations) == ["FRA", "DEU"]
    asia = plots.credits_map(_credits("FR", "JP"), scope="asia")
    assert asia.layout.geo.scope == "asia"
    assert (asia.data[0].zmin, asia.data[0].zmax) == (1001, 1001)  # Japan's alone
    assert "France (1,000)" in asia.layout.annotations[0].text
    with pytest.raises(ValidationError) as info:
        plots.credits_map(_credits("FR"), scope="mars")
    assert info.value.field == "scope"


def test_credits_map_of_the_world_clips_its_colours_to_the_middle_percentiles() -> None:
    """On the world map the colour scale spans the 10th to the 90th percentile of the
    credits, and the note says how many countries lie beyond."""
    codes = ["FR", "DE", "US", "JP", "BR", "AU", "ZA", "IN", "CN", "AR", "MX"]
    credits = {c: {"premium_sms": (i + 1) * 100, "vocal_sms": 1, "low_cost_sms": 1, "hlr": 1}
               for i, c in enumerate(codes)}  # fmt: skip
    figure = plots.credits_map(credits, scope="world")
    (choropleth,) = figure.data
    assert (choropleth.zmin, choropleth.zmax) == (200.0, 1000.0)  # of 100 ... 1,100
    (note,) = [a.text for a in figure.layout.annotations]
    assert "2 countries beyond" in note


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
        plots.hlr_networks(raw),
        plots.credits_bar(CREDITS),
        plots.credits_map(CREDITS),
        plots.draft_costs(SmsDraft(number_of_contacts=1, total_cost=1.0)),
        plots.replies_timeline(replies(["2026-03-01"], [True])),
    ]
    assert all(isinstance(figure, go.Figure) for figure in built)
    assert json.loads(built[0].to_json())["layout"]["title"]["text"].endswith("(300 numbers)")


def _shapes_in(url: str) -> dict[str, Any]:
    import base64

    assert url.startswith("data:application/json;base64,") and url.endswith("#")
    return dict(json.loads(base64.b64decode(url.split(",", 1)[1].rstrip("#"))))


def test_credits_map_draws_offline_wherever_it_is_shown(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A credits map shown in a notebook cell, by to_html() or write_html() carries the
    shipped shapes of its scope inline (no CDN); a config the caller passes is kept."""
    import plotly.io as pio

    from smskit.views.geo import TOPOJSON_DIR

    monkeypatch.setattr(pio.renderers, "default", "plotly_mimetype")  # JupyterLab's

    europe = json.loads((TOPOJSON_DIR / "europe_110m.json").read_text())
    figure = plots.credits_map({"FR": {"premium_sms": 5}, "DE": {"premium_sms": 7}})
    assert figure.layout.geo.scope == "europe"
    bundle = figure._repr_mimebundle_()["application/vnd.plotly.v1+json"]
    assert _shapes_in(bundle["config"]["topojsonURL"]) == europe
    html = figure.to_html(config={"displayModeBar": False})
    assert '"topojsonURL": "data:application/json;base64,' in html
    assert '"displayModeBar": false' in html
    page = tmp_path / "map.html"
    figure.write_html(page)
    assert '"topojsonURL": "data:application/json;base64,' in page.read_text()
    plain = plots.hlr_breakdown(HLRResults.from_json([]))
    assert "topojsonURL" not in plain._repr_mimebundle_()["application/vnd.plotly.v1+json"].get(
        "config", {}
    )
