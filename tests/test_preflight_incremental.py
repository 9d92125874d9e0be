"""Incremental preflight: the recipients' half computed once, the text's half per keystroke.

The Composer keeps one :class:`~smskit.campaigns.planning.audience.Audience` while the text and the
options change; each of its reports must equal a full preflight of the same text (computed
from scratch) row by row. The audience counts its reads of the recipients (``passes``), so
these tests see that a text change reads nothing again without timing anything.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from smskit import Campaign, Client, Composer
from smskit.campaigns.executor import NO_ACCOUNT
from smskit.campaigns.planning.orchestration import preflight
from smskit.campaigns.planning.preflight import (
    PreflightSettings,
    audience_for,
    messages,
    verdicts,
)
from smskit.rules import text as engine
from smskit.rules.caps import FREQUENCY_CAPPED, capped, frequency_cap, number_keys
from smskit.rules.fields import DYNAMIC_FIELDS
from smskit.rules.findings import ISSUES
from smskit.rules.optouts import OPTED_OUT, Suppression, opted_out
from smskit.rules.recipients import Recipients

NUMBERS = (
    "+33612345678",  # mobile
    "06 12 34 56 79",  # mobile, national form
    "+33612345678",  # a repeat of the first
    "+33140000000",  # landline: cannot receive SMS
    "0612",  # too short
    "+32470123456",  # Belgian mobile
    "+447700900123",  # drama range
    "+33949123456",  # voip: a doubtful line
    None,
)
VALUES = ("Ann", "Léa", "", "  ", None, "B" * 51, 1234, 12.0, ["a list"], "É" * 30)
TEMPLATES = (
    "Bonjour {first_name}, -20% ce week-end. STOP au 36173",
    "Hi {first_name} {param1} STOP au 36173",
    "C’est parti {param1} STOP au 36173",
    "{first_name}",
    "A" * 1190 + " {first_name} STOP au 36173",
    "Promo sans champ STOP au 36173",
    "Pas de mention",
    "Hi {prenom} STOP",
)
PARIS = ZoneInfo("Europe/Paris")
SUNDAY = "2030-06-02T10:00:00+02:00"  # outside French marketing hours


def _recipients(values: tuple[Any, ...]) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Up to 20 recipients: a number of NUMBERS, a first name and a param1 of ``values``."""
    row = {"phone_number": st.sampled_from(NUMBERS), "first_name": st.sampled_from(values),
           "param1": st.sampled_from(values)}  # fmt: skip
    return st.lists(st.fixed_dictionaries(row), min_size=0, max_size=20)


recipients = _recipients(VALUES)
states = st.lists(
    st.tuples(
        st.sampled_from(TEMPLATES),
        st.sampled_from(["wholesale", "alert"]),
        st.sampled_from(["", SUNDAY]),  # send_at
    ),
    min_size=1,
    max_size=4,
)


def _values(frame: pd.DataFrame, column: str) -> list[Any]:
    return [None if pd.isna(v) else v for v in frame[column].astype(object)]


def _field(value: Any) -> str:
    """What a field value renders as, the oracle's way: text or number, else nothing."""
    if isinstance(value, str):
        return "" if len(value) > 50 else value
    if isinstance(value, int | float):
        return str(int(value))
    return ""


def _check_rows(rows: list[dict[str, Any]], text: str, optimise: bool, report: Any) -> None:
    """Row by row against a per-recipient oracle: the rendered text and its segments, and
    the first sendable row of each number kept, the later ones marked with its row."""
    frame = report.frame
    kept: dict[str, int] = {}
    for i, row in enumerate(rows):
        issue, number = frame["issue"].iloc[i], frame["phone_number"].iloc[i]
        if pd.isna(issue):
            assert number not in kept
            kept[number] = i
        elif issue == "duplicate":
            assert frame["detail"].iloc[i] == f"same number as row {kept[number]}"
        if "{prenom}" in text:
            continue
        expected = text.replace("{first_name}", _field(row["first_name"]))
        expected = expected.replace("{param1}", _field(row["param1"]))
        expected = engine.optimize_text(expected) if optimise else expected
        assert frame["text"].iloc[i] == expected
        if expected:
            assert frame["segments"].iloc[i] == engine.analyze(expected).segments


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=recipients, sequence=states, optimise=st.booleans())
def test_the_composer_panel_equals_a_full_preflight_for_each_text(
    rows: list[dict[str, Any]], sequence: list[tuple[str, str, str]], optimise: bool
) -> None:
    """Texts and options typed in turn: each report equals a preflight from scratch, row by
    row (verdict, issue, detail, text, segments, cost, warning), and the campaign's findings."""
    frame = pd.DataFrame(rows, columns=["phone_number", "first_name", "param1"], dtype=object)
    composer = Composer(None, frame, sender="Shop", debounce=0, auto_optimize_text=optimise)
    audience = composer.audience
    for text, purpose, send_at in sequence:
        composer.purpose = purpose
        composer.send_at = send_at
        composer.text = text
        shown = composer.preflight
        assert shown is not None and composer.audience is audience
        options = composer.options()
        full = preflight(
            Recipients(frame),
            PreflightSettings(
                text=text, sender="Shop", purpose=purpose, send_at=options.get("send_at"),
                auto_optimize_text=optimise,
            ),
            now=shown.evaluated_at,
            suppression=Suppression(unread=NO_ACCOUNT),  # a Composer without a client
        )  # fmt: skip
        for column in ("row", "phone_number", "send", "issue", "detail", "text", "encoding",
                       "segments", "characters", "cost", "warning"):  # fmt: skip
            assert _values(shown.frame, column) == _values(full.frame, column), column
        assert shown.warnings == full.warnings
        _check_rows(rows, text, optimise, full)
        assert [str(e) for e in shown.errors] == [str(e) for e in full.errors]
    assert audience is not None
    assert audience.passes == Counter({"numbers": 1, **dict.fromkeys(DYNAMIC_FIELDS, 1)})


def test_text_changes_read_the_recipients_once() -> None:
    """Five texts using different fields: the numbers and each field are read once, in the
    composer's first pass; the audience is the same object throughout."""
    frame = pd.DataFrame(
        {"phone_number": ["+33612345678", "+33612345679"], "first_name": ["Ann", "Bo"],
         "param2": ["x", None]}
    )  # fmt: skip
    composer = Composer(None, frame, sender="Shop", debounce=0)
    first = composer.audience
    for text in ("Hi STOP au 36173", "Hi {first_name} STOP au 36173", "{param2} STOP au 36173",
                 "{first_name} {param2} STOP au 36173", "Bye STOP au 36173"):  # fmt: skip
        composer.text = text
    assert composer.audience is first and first is not None
    assert first.passes == Counter({"numbers": 1, **dict.fromkeys(DYNAMIC_FIELDS, 1)})
    assert composer.preflight is not None and composer.preflight.to_send == 2


def test_text_fields_are_read_whole_not_value_by_value(monkeypatch: Any) -> None:
    """A column of Python strings (a DataFrame's object column) and the absent fields are read
    as whole columns: no per-value call (it was one call a value for every field, 5 s of a
    million-row Composer); a column of numbers still reads each value's text."""
    from smskit.campaigns.planning import audience

    calls: list[object] = []
    real = audience.field_text

    def counted(value: object, *args: Any) -> str | None:
        calls.append(value)
        return real(value, *args)

    monkeypatch.setattr(audience, "field_text", counted)
    frame = pd.DataFrame(
        {"phone_number": ["+33612345678", "+33612345679", "+33612345670"],
         "first_name": pd.Series(["Ann", None, "Cy"], dtype=object), "param1": [7, 8, 9]}
    )  # fmt: skip
    composer = Composer(None, frame, text="{first_name} {param1} STOP au 36173", debounce=0)
    assert calls == [7, 8, 9]
    assert composer.preflight is not None
    texts = composer.preflight.frame["text"].tolist()
    assert (texts[0], texts[2]) == ("Ann 7 STOP au 36173", "Cy 9 STOP au 36173")


def test_a_campaign_keeps_its_audience_until_the_recipients_change() -> None:
    """The preflight's audience is reused across texts (a field used later is read once,
    alone); other recipients or another default region make a new one."""
    rows = Recipients([{"phone_number": "+33612345678", "first_name": "Ann"}])
    base = PreflightSettings(text="Promo STOP au 36173", sender="Shop")
    audience = audience_for(rows, base)
    assert audience.passes == Counter({"numbers": 1})
    now = datetime(2025, 6, 16, 10, tzinfo=PARIS)
    for text in ("Hi {first_name} STOP au 36173", "Yo {first_name} STOP au 36173"):
        changed = PreflightSettings(text=text, sender="Shop")
        assert audience_for(rows, changed, audience) is audience
        report = preflight(rows, changed, now=now, audience=audience)
        assert report.frame["text"].tolist() == [text.replace("{first_name}", "Ann")]
    assert audience.passes == Counter({"numbers": 1, "first_name": 1})
    other = Recipients(["+33612345679"])
    assert audience_for(other, base, audience) is not audience
    belgian = PreflightSettings(text="Promo STOP au 36173", sender="Shop", default_region="BE")
    assert audience_for(rows, belgian, audience) is not audience


def test_the_report_columns_are_compact() -> None:
    """Texts, details and warnings are categoricals (one string per distinct value), and 200
    recipients sharing two names and two repeated numbers keep two texts."""
    numbers = [f"+336123456{i % 100:02d}" for i in range(200)]
    frame = pd.DataFrame({"phone_number": numbers, "first_name": ["Ann", "Bo"] * 100})
    report = preflight(
        Recipients(frame),
        PreflightSettings(text="Hi {first_name} STOP au 36173", sender="Shop"),
        now=datetime(2025, 6, 16, 10, tzinfo=PARIS),
    )
    table = report.frame
    for column in ("text", "detail", "warning", "issue", "region", "line_type", "encoding"):
        assert isinstance(table[column].dtype, pd.CategoricalDtype), column
    assert len(table["text"].cat.categories) == 2
    assert report.to_send == 100
    assert table["detail"].iloc[100] == "same number as row 0"


def test_the_plan_reads_nothing_the_preflight_read(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Planning the send after preflight takes numbers from the report and field texts from
    the audience: the CSV file is not read again, and each field holds the text preflight
    rendered from it (missing ones empty)."""
    path = tmp_path / "recipients.csv"
    path.write_text("phone_number,first_name\n+33612345678,Ann\n0612,Bo\n+33612345679,\n")
    client = Client("acme", "key", "https://gateway.example")  # offline: never asked
    campaign = Campaign(client, path, text="Hi {first_name} STOP au 36173", sender="Shop")
    report = campaign.preflight(offline=True)
    assert campaign._audience is not None
    passes = Counter(campaign._audience.passes)

    def no_read(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the recipients were read again")

    monkeypatch.setattr(Recipients, "blocks", no_read)
    monkeypatch.setattr(Recipients, "columns", no_read)
    monkeypatch.setattr(Recipients, "_read_file", no_read)
    plan = campaign._plan(500)
    assert plan.columns["phone_number"] == ["+33612345678", "+33612345679"]
    assert plan.columns["field:first_name"] == ["Ann", ""]
    assert plan.columns["row"] == [0, 2]
    assert report.frame["text"].tolist()[::2] == ["Hi Ann STOP au 36173", "Hi STOP au 36173"]
    assert campaign._audience.passes == passes


# Texts of GSM-7 characters, extension characters (two septets), characters that force UCS-2
# (a look-alike the gateway optimises, an emoji outside the BMP, a combining accent) and
# fields, long enough to cross segment boundaries.
PIECES = ("Bonjour ", "{first_name}", "{param1}", " STOP au 36173", "€", "[x]", "’", "😀",
          "e\u0301", "ü", "Ω", "  ", "\n", "A" * 60, "Ж" * 35)  # fmt: skip
typed_texts = st.lists(st.sampled_from(PIECES), min_size=0, max_size=12).map("".join)
UNICODE_VALUES = (*VALUES, "Zoë 😀", "€€", "Ж" * 40, "e\u0301", "[Ann]")
unicode_recipients = _recipients(UNICODE_VALUES)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=unicode_recipients,
    texts=st.lists(typed_texts, min_size=1, max_size=4),
    purpose=st.sampled_from(["wholesale", "alert"]),
    optimise=st.booleans(),
)
def test_the_outline_a_keystroke_computes_equals_the_full_report(
    rows: list[dict[str, Any]], texts: list[str], purpose: str, optimise: bool
) -> None:
    """The Composer's keystroke path (an outline from the verdicts, no frame) equals the full
    report of the same text: recipients, to send, SMS, worst case, issues, first rows (texts,
    encodings, segments), errors (STOP among them) and warnings, for random texts (UCS-2,
    extension characters, fields) and recipients."""
    frame = pd.DataFrame(rows, columns=["phone_number", "first_name", "param1"], dtype=object)
    composer = Composer(
        None, frame, sender="Shop", debounce=0, purpose=purpose, auto_optimize_text=optimise
    )
    for text in texts:
        composer.text = text
        report = composer.preflight  # the whole report, made on demand
        assert report is not None
        full = report.outline()
        state = composer.state
        text_check = next(f for f in state["findings"] if f["name"] == "text")
        if text_check["ok"]:
            assert (state["recipients"], state["to_send"], state["sms"], state["worst_case"]) == (
                full.recipients, full.to_send, full.segments, full.worst_case,
            )  # fmt: skip
        else:  # a text that cannot be sent reaches nobody: no count to send, no SMS (widgets.md)
            assert (state["recipients"], state["to_send"], state["sms"]) == (
                full.recipients, None, None,
            )  # fmt: skip
            assert full.errors, "the full report blocks the send too"
        assert [b["text"] for b in state["bubbles"]] == [r["text"] or "" for r in full.head]
        assert [b["segments"] for b in state["bubbles"]] == [r["segments"] for r in full.head]
        assert [b["encoding"] for b in state["bubbles"]] == [r["encoding"] or "" for r in full.head]
        assert [b["issue"] for b in state["bubbles"]] == [r["issue"] or "" for r in full.head]
        warnings = [f["message"] for f in state["findings"] if f["group"] == "warning"]
        assert warnings == list(full.warnings)
        held = Campaign(
            None, frame, text=text, sender="Shop", purpose=purpose, auto_optimize_text=optimise
        )
        fast = held.preflight_outline(offline=True, now=report.evaluated_at)
        assert replace(fast, errors=()) == replace(full, errors=())
        assert [str(e) for e in fast.errors] == [str(e) for e in report.errors]
        sending = report.frame.loc[report.frame["send"], "segments"]
        assert fast.segments == report.segments == int(sending.sum())
        assert list(fast.issues()) == list(report.issues())
        assert {i: fast.excluded(i) for i in ISSUES} == dict(report.issues())


@settings(max_examples=25, deadline=None)
@given(
    numbers=st.lists(st.sampled_from(NUMBERS), min_size=1, max_size=40),
    block=st.integers(1, 12),
)
def test_numbers_checked_in_blocks_give_the_answers_of_one_pass(
    numbers: list[str], block: int
) -> None:
    """The audience's numbers read a few at a time (repeats across blocks included) give
    the numbers, verdicts, regions and repeats of the whole list read at once."""
    rows = Recipients([{"phone_number": number} for number in numbers])
    base = PreflightSettings(text="Promo STOP au 36173", sender="Shop")
    whole = audience_for(rows, base)
    blocks = audience_for(rows, base, block_rows=block)
    assert list(blocks.phone_number) == list(whole.phone_number)
    for name in ("valid", "issue", "detail_codes", "group_order", "doubtful"):
        assert getattr(blocks, name).tolist() == getattr(whole, name).tolist(), name
    assert list(blocks.region) == list(whole.region)


# Inputs and the number each is (E.164's digits as an integer; 0: none).
KEYS = {"+33612345678": 33612345678, "06 12 34 56 78": 33612345678, "+33612345679": 33612345679,
        "+32470123456": 32470123456, None: 0}  # fmt: skip


@settings(max_examples=30, deadline=None)
@given(numbers=st.lists(st.sampled_from(list(KEYS)), max_size=300))
def test_rows_with_a_number_are_grouped_by_number_then_row(numbers: list[str | None]) -> None:
    """The audience orders the rows with a number by number then row, and a row's head is
    the first row with its number, as sorting the pairs says: whatever order a sort leaves
    equal numbers in (lists long enough for numpy's quicksort to move them)."""
    rows = Recipients([{"phone_number": number} for number in numbers])
    audience = audience_for(rows, PreflightSettings(text="Promo STOP au 36173", sender="Shop"))
    expected = sorted((KEYS[number], row) for row, number in enumerate(numbers) if KEYS[number])
    first: dict[int, int] = {}
    for key, row in expected:
        first.setdefault(key, row)
    assert audience.group_order.tolist() == [row for _, row in expected]
    assert audience.group_head.tolist() == [first[key] for key, _ in expected]


def _verdicts_from_scratch(
    audience: Any,
    settings_: PreflightSettings,
    used: tuple[str, ...],
    suppressed: frozenset[str],
    reached: Any,
) -> dict[str, Any]:
    """The oracle: each recipient's issue computed in full, nothing kept from a previous text
    (the verdicts as they were computed before the keystroke kept the text's-independent part)."""
    import numpy as np

    codes, table = audience.combinations(used)
    found = messages(settings_, [audience.field(name) for name in used], table)
    issue = audience.issue.copy()
    listed = opted_out(audience.phone_number, suppressed) & (issue == -1)
    included = listed if settings_.include_opted_out else None
    if included is None:
        issue[listed] = ISSUES.index(OPTED_OUT)
    at_cap = np.zeros(len(issue), dtype=bool)
    if reached is not None and len(reached) and settings_.frequency_cap is not None:
        at_cap = capped(number_keys(audience.phone_number), reached) & (issue == -1)
        issue[at_cap] = ISSUES.index(FREQUENCY_CAPPED)
    by_text = found.issue[codes]
    fresh = (issue == -1) & (by_text >= 0)
    issue[fresh] = by_text[fresh]
    narrowed = fresh.any() or (included is None and listed.any())
    repeats = audience._repeats(issue == -1 if narrowed else audience.issue == -1)
    if at_cap.any() and not narrowed:
        kept = ~at_cap[repeats[0]]
        repeats = (repeats[0][kept], repeats[1][kept])
    issue[repeats[0]] = ISSUES.index("duplicate")
    send = issue == -1
    segments = found.segments[found.text]
    return {
        "issue": issue.tolist(),
        "fresh": fresh.tolist(),
        "repeats": (repeats[0].tolist(), repeats[1].tolist()),
        "included": None if included is None else included.tolist(),
        "at_cap": at_cap.tolist(),
        "to_send": int(send.sum()),
        "by_issue": np.bincount(issue[~send], minlength=len(ISSUES)).tolist(),
        "by_combination": np.bincount(codes[send], minlength=len(segments)).tolist(),
        "by_region": Counter(audience.region.codes[send].tolist()) - Counter({-1: len(issue)}),
    }


edits = st.lists(
    st.tuples(
        typed_texts | st.sampled_from(TEMPLATES),
        st.sets(st.sampled_from(["+33612345678", "+33612345679", "+32470123456"])),  # opt-outs
        st.booleans(),  # include_opted_out (a transactional send)
        st.sets(st.sampled_from(["+33612345678", "+32470123456", "+447700900123"])),  # at cap
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=unicode_recipients, sequence=edits)
def test_verdicts_kept_between_keystrokes_equal_verdicts_from_scratch(
    rows: list[dict[str, Any]], sequence: list[tuple[str, set[str], bool, set[str]]]
) -> None:
    """Over random edit sequences on one audience (texts that exclude recipients or not,
    opt-out lists, include_opted_out, numbers at the frequency cap changing between
    keystrokes), the verdicts and counts that reuse what the previous keystroke left equal
    those computed in full: every issue, repeat and count the outline shows."""
    import numpy as np

    frame = pd.DataFrame(rows, columns=["phone_number", "first_name", "param1"], dtype=object)
    recipients_ = Recipients(frame)
    audience = audience_for(recipients_, PreflightSettings(text="", sender="Shop"))
    cap = frequency_cap("2/7D")
    for text, listed, include, at_cap in sequence:
        current = PreflightSettings(
            text=text, sender="Shop", purpose="alert" if include else "wholesale",
            include_opted_out=include, frequency_cap=cap,
        )  # fmt: skip
        used = tuple(u for u in DYNAMIC_FIELDS if "{" + u + "}" in text)
        suppressed = frozenset(listed)
        reached = np.unique(number_keys(pd.Series(sorted(at_cap), dtype=object)))
        kept = verdicts(audience, current, used, suppressed, reached)
        full = _verdicts_from_scratch(audience, current, used, suppressed, reached)
        tally = kept.tally
        segments = kept.found.segments[kept.found.text]
        regions = Counter(tally.by_region())
        assert {
            "issue": kept.issue.tolist(),
            "fresh": kept.fresh.tolist(),
            "repeats": (kept.repeats[0].tolist(), kept.repeats[1].tolist()),
            "included": None if kept.included is None else kept.included.tolist(),
            "at_cap": kept.at_cap.tolist(),
            "to_send": tally.to_send,
            "by_issue": list(tally.by_issue),
            "by_combination": tally.by_codes(kept.codes, len(segments)).tolist(),
            "by_region": regions,
        } == full
        assert tally.issue.tolist() == kept.issue.tolist()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-1, 6), max_size=60), st.lists(st.integers(0, 240), max_size=4))
def test_regions_categorical_is_pandas_own_without_unused_categories(
    picks: list[int], places: list[int]
) -> None:
    """Each row's region (a place in REGION_NAMES, or -1 for none) as a categorical of the
    regions some row has: what pandas' remove_unused_categories gives, codes and dtype."""
    import numpy as np
    import pandas as pd

    from smskit.campaigns.planning.audience import _Numbers
    from smskit.rules.phones import REGION_NAMES

    places = [p % len(REGION_NAMES) for p in places] or [0]
    numbers = _Numbers(len(picks))
    numbers.region[:] = [-1 if p < 0 else places[p % len(places)] for p in picks]
    ours = numbers.regions()
    full = pd.Categorical.from_codes(numbers.region, categories=pd.Index(REGION_NAMES))
    theirs = full.remove_unused_categories()
    assert ours.categories.equals(theirs.categories)
    assert ours.categories.dtype == theirs.categories.dtype
    assert np.array_equal(ours.codes, theirs.codes) and ours.codes.dtype == theirs.codes.dtype
