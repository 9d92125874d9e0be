"""Campaign preflight: per-recipient checks, campaign-level rules, marketing hours.

Preflight makes no request, so these tests build campaigns on a client of the session
sandbox and never send.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, time
from pathlib import Path
from zoneinfo import ZoneInfo

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import smskit
from smskit.campaigns.campaign import Campaign
from smskit.rules.findings import ISSUES
from smskit.rules.hours import MARKETING_HOURS, MarketingHours, register_marketing_hours
from smskit.sandbox import Sandbox

PARIS = ZoneInfo("Europe/Paris")
STOP_TEXT = "Bonjour {first_name}, -20% ce week-end. STOP au 36173"
# A weekday morning in Paris: inside France's marketing hours.
MONDAY_10H = datetime(2025, 6, 16, 10, 0, tzinfo=PARIS)


@pytest.fixture
def client(sandbox: Sandbox) -> Iterator[smskit.Client]:
    with smskit.Client(sandbox=sandbox) as c:
        yield c


def campaign(client: smskit.Client, recipients: object, **options: object) -> Campaign:
    options.setdefault("text", STOP_TEXT)
    options.setdefault("sender", "Shop")
    return Campaign(client, recipients, **options)  # type: ignore[arg-type]


def issues(frame: pd.DataFrame) -> list[str | None]:
    """The issue column with None for recipients that have none."""
    return [None if pd.isna(v) else str(v) for v in frame["issue"]]


def test_numbers_are_normalised_and_bad_ones_excluded_with_their_issue(
    client: smskit.Client,
) -> None:
    """National, spaced and E.164 forms normalise; invalid, landline, toll-free, premium,
    shared-cost and fictional numbers are excluded, each with its issue and detail."""
    frame = pd.DataFrame(
        {
            "phone_number": [
                "06 12 34 56 78",  # 0: mobile, national form
                "+33140000000",  # 1: Paris landline
                "0800123456",  # 2: toll free
                "+33899123456",  # 3: premium rate
                "+33810123456",  # 4: shared cost
                "0612",  # 5: too short
                "+447700900123",  # 6: Ofcom drama range
                "+32470123456",  # 7: Belgian mobile
            ],
            "first_name": ["Ann"] * 8,
        }
    )
    report = campaign(client, frame).preflight(now=MONDAY_10H)
    out = report.to_frame()
    assert out["phone_number"].tolist()[0] == "+33612345678"
    assert out["send"].tolist() == [True, False, False, False, False, False, False, True]
    assert issues(out)[1:7] == [
        "cannot_receive_sms",
        "cannot_receive_sms",
        "cannot_receive_sms",
        "cannot_receive_sms",
        "invalid_number",
        "cannot_receive_sms",
    ]
    assert out.loc[1, "detail"] == "line type landline"
    assert out.loc[2, "detail"] == "line type toll_free"
    assert out.loc[5, "detail"] == "too_short"
    assert report.to_send == 2
    assert report.issues().to_dict() == {
        "invalid_number": 1,
        "cannot_receive_sms": 5,
        "opted_out": 0,
        "frequency_capped": 0,
        "not_served": 0,
        "field_not_scalar": 0,
        "field_too_long": 0,
        "empty_text": 0,
        "duplicate": 0,
        "held_out": 0,
    }


def test_duplicates_keep_the_first_occurrence_and_name_it(client: smskit.Client) -> None:
    """The same number in two spellings is sent once: later rows say which row they repeat."""
    numbers = ["+33612345678", "+33698765432", "06 12 34 56 78", "0033612345678"]
    report = campaign(client, numbers, text="Promo STOP au 36173").preflight(now=MONDAY_10H)
    out = report.to_frame()
    assert out["send"].tolist() == [True, True, False, False]
    assert issues(out) == [None, None, "duplicate", "duplicate"]
    assert out["detail"].tolist()[2:] == ["same number as row 0", "same number as row 0"]


def test_voip_lines_are_sent_with_a_warning(client: smskit.Client) -> None:
    """A VoIP number may or may not receive SMS: it stays in, with a warning."""
    report = campaign(client, ["+33912345678"], text="Promo STOP au 36173").preflight(
        now=MONDAY_10H
    )
    row = report.to_frame().iloc[0]
    assert bool(row["send"]) is True
    assert row["warning"] == "voip line may not receive SMS"


def test_dynamic_fields_too_long_are_excluded_and_missing_ones_warned(
    client: smskit.Client,
) -> None:
    """A field over 50 characters would fail the whole request: that row is excluded; a
    missing field renders empty: the row is sent, with a warning."""
    frame = pd.DataFrame(
        {
            "phone_number": ["+33612345678", "+33612345679", "+33612345680"],
            "first_name": ["Ann", "x" * 51, None],
        }
    )
    report = campaign(client, frame).preflight(now=MONDAY_10H)
    out = report.to_frame()
    assert out["send"].tolist() == [True, False, True]
    assert out.loc[1, "issue"] == "field_too_long"
    assert out.loc[1, "detail"] == "first_name has 51 characters (max 50)"
    assert out.loc[2, "warning"] == "missing {first_name}"
    assert out.loc[2, "text"] == "Bonjour , -20% ce week-end. STOP au 36173"
    assert any("1 recipient(s) miss a dynamic field" in w for w in report.warnings)


def test_rendered_text_encoding_and_segments_per_recipient(client: smskit.Client) -> None:
    """Each recipient's text is rendered; GSM-7 texts fit 160 characters in one SMS and 153
    per part beyond; one Cyrillic letter makes it UCS-2 (70, then 67 per part)."""
    body = "a" * 140 + " {first_name} STOP"  # 140 + 1 + name + 5 characters
    frame = pd.DataFrame(
        {
            "phone_number": ["+33612345678", "+33612345679", "+33612345680"],
            # 140 + 1 + 14 + 5 = 160 -> 1 segment; 140 + 1 + 15 + 5 = 161 -> 2 segments
            "first_name": ["n" * 14, "n" * 15, "Ж" * 14],
        }
    )
    out = campaign(client, frame, text=body).preflight(now=MONDAY_10H).to_frame()
    assert out["characters"].tolist() == [160, 161, 160]
    assert out["encoding"].astype(str).tolist() == ["GSM-7", "GSM-7", "UCS-2"]
    # UCS-2: ceil(160 / 67) = 3 segments
    assert out["segments"].tolist() == [1, 2, 3]
    assert out.loc[0, "text"] == "a" * 140 + " " + "n" * 14 + " STOP"


def test_text_is_optimised_like_the_gateway_unless_disabled(client: smskit.Client) -> None:
    """The gateway replaces typographic quotes by default (GSM-7, 1 SMS); with
    auto_optimize_text=False the curly apostrophe stays and forces UCS-2."""
    text = "C’est parti STOP"
    optimised = campaign(client, ["+33612345678"], text=text).preflight(now=MONDAY_10H)
    assert optimised.to_frame().loc[0, "text"] == "C'est parti STOP"
    assert optimised.to_frame().loc[0, "encoding"] == "GSM-7"
    raw = campaign(client, ["+33612345678"], text=text, auto_optimize_text=False).preflight(
        now=MONDAY_10H
    )
    assert raw.to_frame().loc[0, "encoding"] == "UCS-2"


def test_a_text_rendering_empty_is_excluded(client: smskit.Client) -> None:
    """A transactional text made of a field alone renders empty without it: excluded."""
    frame = pd.DataFrame({"phone_number": ["+33612345678", "+33612345679"], "param1": ["ok", None]})
    report = campaign(client, frame, text="{param1}", purpose="alert").preflight(now=MONDAY_10H)
    assert issues(report.to_frame()) == [None, "empty_text"]


def test_marketing_text_without_stop_is_a_campaign_error(client: smskit.Client) -> None:
    """wholesale (the default) needs the word STOP; alert does not; send() refuses early."""
    marketing = campaign(client, ["+33612345678"], text="Promo -20% ce week-end")
    report = marketing.preflight(now=MONDAY_10H)
    assert not report.ok
    assert report.errors[0].field == "text"
    assert "STOP" in report.errors[0].rule
    with pytest.raises(smskit.ValidationError, match="STOP"):
        marketing.send(progress=False, journal=Path("/nonexistent/never-created.sqlite"))
    alert = campaign(client, ["+33612345678"], text="Votre code: 1234", purpose="alert")
    assert alert.preflight(now=MONDAY_10H).ok


def test_sender_rules(client: smskit.Client) -> None:
    """3 to 11 letters or digits; spaces only for alerts; with_replies adds a warning."""
    too_short = campaign(client, ["+33612345678"], sender="AB").preflight(now=MONDAY_10H)
    assert [e.field for e in too_short.errors] == ["sender"]
    spaced = campaign(client, ["+33612345678"], sender="My Shop").preflight(now=MONDAY_10H)
    assert [e.field for e in spaced.errors] == ["sender"]
    alert = campaign(
        client, ["+33612345678"], sender="My Shop", text="Code 1234", purpose="alert"
    ).preflight(now=MONDAY_10H)
    assert alert.ok
    replies = campaign(client, ["+33612345678"], with_replies=True).preflight(now=MONDAY_10H)
    assert any("short number" in w for w in replies.warnings)


def test_unknown_dynamic_field_is_a_campaign_error(client: smskit.Client) -> None:
    """{firstname} (a typo) would reach every handset: an error naming the text field."""
    report = campaign(client, ["+33612345678"], text="Hi {firstname} STOP").preflight(
        now=MONDAY_10H
    )
    assert [e.field for e in report.errors] == ["text"]
    assert "firstname" in str(report.errors[0])


def test_a_text_over_the_limit_is_one_error_and_every_recipient_still_rendered(
    client: smskit.Client,
) -> None:
    """A 1,248-character template with a field: one error naming text and 1224, no crash."""
    text = "A" * 1230 + " {first_name} STOP"
    report = campaign(client, [{"phone_number": "+33612345678", "first_name": "Bo"}], text=text)
    report = report.preflight(now=MONDAY_10H)
    assert [(e.field, "1224" in e.rule) for e in report.errors] == [("text", True)]
    assert report.to_frame()["text"].tolist() == ["A" * 1230 + " Bo STOP"]


def test_fields_that_push_a_text_past_1224_characters_warn_that_recipient(
    client: smskit.Client,
) -> None:
    """The template fits; a 45-character name makes one recipient's text 1,250 long: warned."""
    text = "A" * 1190 + " {first_name} STOP au 36173"
    frame = pd.DataFrame({"phone_number": ["+33612345678", "+33612345679"],
                          "first_name": ["B" * 45, "Bo"]})  # fmt: skip
    report = campaign(client, frame, text=text).preflight(now=MONDAY_10H)
    table = report.to_frame()
    assert table["characters"].tolist() == [1190 + 1 + 45 + 14, 1190 + 1 + 2 + 14]
    warning = str(table["warning"].iloc[0])
    assert "1250 characters, over the 1224" in warning and "(9 SMS)" in warning
    assert pd.isna(table["warning"].iloc[1]) and table["send"].all()


def test_csv_recipients_are_read_as_text(client: smskit.Client, tmp_path: Path) -> None:
    """A CSV keeps leading zeros and '+' (read as text): 0612345678 is a French mobile."""
    path = tmp_path / "list.csv"
    path.write_text("phone_number,first_name,city\n0612345678,Ann,Lyon\n+33698765432,,Nice\n")
    report = campaign(client, path).preflight(now=MONDAY_10H)
    out = report.to_frame()
    assert out["phone_number"].tolist() == ["+33612345678", "+33698765432"]
    assert out["text"].tolist()[0] == "Bonjour Ann, -20% ce week-end. STOP au 36173"
    assert out.loc[1, "warning"] == "missing {first_name}"


def test_bad_recipients_and_options_are_refused_naming_the_field(client: smskit.Client) -> None:
    """Unknown options, options the campaign manages, bad values and inputs: clear errors."""
    with pytest.raises(smskit.ValidationError, match="colour: unknown send option"):
        campaign(client, ["+33612345678"], colour="red")
    with pytest.raises(smskit.ValidationError, match="request_id: is set by the campaign"):
        campaign(client, ["+33612345678"], request_id="x")
    with pytest.raises(smskit.ValidationError, match="simulation_mode"):
        campaign(client, ["+33612345678"], simulation_mode=True)
    with pytest.raises(smskit.ValidationError, match="purpose: must be one of alert, wholesale"):
        campaign(client, ["+33612345678"], purpose="promo")
    with pytest.raises(smskit.ValidationError, match="send_at"):
        campaign(client, ["+33612345678"], send_at="2025-06-16 10:00")  # no offset
    with pytest.raises(smskit.ValidationError, match="phone_number"):
        campaign(client, pd.DataFrame({"mobile": ["+33612345678"]}))
    with pytest.raises(smskit.ValidationError, match=r"recipients\[1\]"):
        campaign(client, ["+33612345678", 3.5])
    with pytest.raises(smskit.ValidationError, match="name"):
        campaign(client, ["+33612345678"], name="../escape")


def test_report_summary_and_html(client: smskit.Client) -> None:
    """summary() is one row of counts; the HTML shows the counts and escapes user values."""
    frame = pd.DataFrame({"phone_number": ["+33612345678", "<b>bad</b>"], "first_name": ["A", "B"]})
    report = campaign(client, frame).preflight(now=MONDAY_10H)
    summary = report.summary()
    assert summary.shape[0] == 1
    assert summary.loc[0, ["recipients", "to_send", "excluded", "invalid_number"]].tolist() == [
        2,
        1,
        1,
        1,
    ]
    html = report._repr_html_()
    assert "&lt;b&gt;bad&lt;/b&gt;" in html
    assert "<b>bad</b>" not in html
    assert "invalid_number" in html
    assert set(ISSUES) <= set(report.issues().index)


def test_summary_columns_order_dtypes_and_counts(client: smskit.Client) -> None:
    """summary() (one home, shared with the Dask report) has its columns in order: counts,
    one per issue of ISSUES, then warnings, segments and UCS-2 texts of the recipients to
    send, then the verdict; every count int64, ``ok`` a bool."""
    body = "a" * 140 + " {first_name} STOP"
    frame = pd.DataFrame(
        {
            "phone_number": [
                "+33612345678",
                "+33612345679",
                "+33612345680",
                "0612",
                "+33612345681",
            ],
            # GSM-7 1 SMS; UCS-2 3 SMS; missing field (a warning) 1 SMS; invalid; too long
            "first_name": ["n" * 14, "Ж" * 14, None, "Ann", "x" * 51],
        }
    )
    report = campaign(client, frame, text=body).preflight(now=MONDAY_10H)
    counts = dict.fromkeys(ISSUES, 0) | {"invalid_number": 1, "field_too_long": 1}
    row = {"recipients": 5, "to_send": 3, "excluded": 2, **counts}
    row |= {"with_warning": 1, "segments": 5, "ucs2": 1, "errors": 0}
    expected = pd.DataFrame({name: [value] for name, value in row.items()}, dtype="int64")
    expected["ok"] = True
    pd.testing.assert_frame_equal(report.summary(), expected)
    assert report.issues().to_dict() == counts
    assert report.issues().dtype == "int64" and report.issues().index.name == "issue"


# -- marketing hours ---------------------------------------------------------------------------


def hours_warnings(client: smskit.Client, when: datetime, **options: object) -> list[str]:
    numbers = ["+33612345678", "+32470123456"]
    report = campaign(client, numbers, text="Promo STOP au 36173", **options).preflight(now=when)
    assert report.to_send == 2  # a warning never excludes
    return [w for w in report.warnings if "recipient(s) would receive a marketing SMS" in w]


@pytest.mark.parametrize(
    "when",
    [
        datetime(2025, 6, 16, 8, 0, tzinfo=PARIS),  # Monday, opening minute
        datetime(2025, 6, 14, 19, 59, tzinfo=PARIS),  # Saturday, last minute
        datetime(2025, 6, 16, 6, 30, tzinfo=UTC),  # 08:30 in Paris in summer (UTC+2)
        datetime(2025, 12, 15, 7, 30, tzinfo=UTC),  # 08:30 in Paris in winter (UTC+1)
    ],
)
def test_french_marketing_hours_allow(client: smskit.Client, when: datetime) -> None:
    """Monday to Saturday, 08:00 (inclusive) to 20:00 (exclusive), Paris time: no warning."""
    assert hours_warnings(client, when) == []


@pytest.mark.parametrize(
    ("when", "words"),
    [
        (datetime(2025, 6, 14, 20, 0, tzinfo=PARIS), "outside permitted hours"),  # Sat 20:00
        (datetime(2025, 6, 16, 7, 59, tzinfo=PARIS), "outside permitted hours"),  # Mon 07:59
        (datetime(2025, 6, 15, 10, 0, tzinfo=PARIS), "no marketing SMS on that day"),  # Sunday
        (datetime(2025, 5, 1, 10, 0, tzinfo=PARIS), "public holiday"),  # Labour Day, a Thursday
        (datetime(2025, 7, 14, 10, 0, tzinfo=PARIS), "public holiday"),  # Bastille Day, Monday
        (datetime(2025, 12, 15, 6, 30, tzinfo=UTC), "outside permitted hours"),  # 07:30 Paris
    ],
)
def test_french_marketing_hours_warn(client: smskit.Client, when: datetime, words: str) -> None:
    """Outside those hours, or on a public holiday, a wholesale campaign to French numbers gets
    one warning, counting the French recipients only (the Belgian one has no rule)."""
    found = hours_warnings(client, when)
    assert len(found) == 1
    assert words in found[0]
    assert "FR" in found[0]
    assert found[0].endswith(": 1 recipient(s) would receive a marketing SMS")


def test_hours_warning_marks_only_sendable_recipients(client: smskit.Client) -> None:
    """On a Sunday, the French mobile carries the warning; a French number too short to send
    (excluded anyway) and a number of no known country do not."""
    sunday = datetime(2025, 6, 15, 10, 0, tzinfo=PARIS)
    numbers = ["+33612345678", "0612", "+999123"]
    report = campaign(client, numbers, text="Promo STOP au 36173").preflight(now=sunday)
    warnings = [None if pd.isna(w) else w for w in report.to_frame()["warning"]]
    assert warnings == ["outside marketing hours (FR)", None, None]
    assert report.to_send == 1


def test_alerts_are_exempt_from_marketing_hours(client: smskit.Client) -> None:
    """Transactional sends may go out at any hour (spec, send rule 2)."""
    sunday_night = datetime(2025, 6, 15, 23, 0, tzinfo=PARIS)
    assert hours_warnings(client, sunday_night, purpose="alert") == []


def test_send_at_is_the_instant_checked(client: smskit.Client) -> None:
    """A campaign prepared on Sunday but scheduled for Monday 10:00 is inside the hours; one
    prepared on Saturday for Sunday is not."""
    sunday = datetime(2025, 6, 15, 10, 0, tzinfo=PARIS)
    assert hours_warnings(client, sunday, send_at=MONDAY_10H) == []
    saturday = datetime(2025, 6, 14, 10, 0, tzinfo=PARIS)
    assert len(hours_warnings(client, saturday, send_at="2025-06-15T10:00:00+02:00")) == 1


def test_a_send_at_that_has_passed_is_said_to_go_out_at_once(client: smskit.Client) -> None:
    """send_at before now is sent at once (spec: "sent once that date has passed"): a
    warning naming it, so a day typed wrong is seen before the send; never for one to come."""
    text = "Promo STOP au 36173"
    after = campaign(client, ["+33612345678"], text=text, send_at=MONDAY_10H.isoformat())
    passed = [f for f in after.preflight(now=MONDAY_10H.replace(hour=11)).findings
              if f.code == "send_at_passed"]  # fmt: skip
    assert [(f.field, f.message()) for f in passed] == [
        ("send_at", "send_at 2025-06-16T10:00:00+02:00 has passed: the gateway sends at once")
    ]
    ahead = after.preflight(now=MONDAY_10H.replace(hour=9)).findings
    assert not [f for f in ahead if f.code == "send_at_passed"]


def test_the_clock_is_injectable(client: smskit.Client) -> None:
    """Campaign(clock=...) decides what "now" is for the hours check."""
    sunday = datetime(2025, 6, 15, 10, 0, tzinfo=PARIS)
    report = campaign(
        client, ["+33612345678"], text="Promo STOP au 36173", clock=lambda: sunday
    ).preflight()
    assert any("no marketing SMS on that day" in w for w in report.warnings)
    assert report.to_frame().loc[0, "warning"] == "outside marketing hours (FR)"


def test_the_hours_table_can_be_extended(client: smskit.Client) -> None:
    """register_marketing_hours adds a country's rule (here Belgium, weekdays 09-18)."""
    rule = MarketingHours("Europe/Brussels", days=frozenset(range(5)), start=time(9), end=time(18))
    register_marketing_hours("BE", rule)
    try:
        assert MARKETING_HOURS["BE"].describe() == ("Mon-Fri 09:00-18:00, not on public holidays")
        saturday = datetime(2025, 6, 14, 10, 0, tzinfo=PARIS)
        found = hours_warnings(client, saturday)
        assert len(found) == 1
        assert "BE" in found[0]
    finally:
        register_marketing_hours("BE", None)
    assert "BE" not in MARKETING_HOURS
    with pytest.raises(smskit.ValidationError, match=r"hours\.timezone"):
        register_marketing_hours("BE", MarketingHours("Mars/Olympus"))
    with pytest.raises(smskit.ValidationError, match="country"):
        register_marketing_hours("Belgium", rule)


@given(days=st.frozensets(st.integers(min_value=-3, max_value=10)))
def test_a_rule_without_valid_weekdays_is_refused_and_not_registered(days: frozenset[int]) -> None:
    """register_marketing_hours refuses a rule whose days are none, or not all of 0..6,
    naming hours.days; the table is left as it was."""
    rule = MarketingHours("Europe/Brussels", days=days)
    if days and days <= set(range(7)):
        register_marketing_hours("BE", rule)
        try:
            assert MARKETING_HOURS["BE"] is rule
        finally:
            register_marketing_hours("BE", None)
        return
    with pytest.raises(smskit.ValidationError) as refused:
        register_marketing_hours("BE", rule)
    assert refused.value.field == "hours.days"
    assert str(refused.value) == "hours.days: weekday numbers 0 (Monday) to 6 (Sunday)"
    assert "BE" not in MARKETING_HOURS


@given(start=st.times(), end=st.times())
def test_a_rule_that_ends_before_it_starts_is_refused(start: time, end: time) -> None:
    """A window whose start is not before its end (a night window, an empty one) is refused
    naming hours.start, never registered as a rule that permits nothing."""
    rule = MarketingHours("Europe/Brussels", start=start, end=end)
    if start < end:
        register_marketing_hours("BE", rule)
        register_marketing_hours("BE", None)
        return
    with pytest.raises(smskit.ValidationError) as refused:
        register_marketing_hours("BE", rule)
    assert str(refused.value) == "hours.start: must be before hours.end"
    assert "BE" not in MARKETING_HOURS


@pytest.mark.parametrize("hours", ["Mon-Fri 09:00-18:00", {"timezone": "Europe/Brussels"}, 9])
def test_hours_that_are_not_a_rule_are_refused(hours: object) -> None:
    """Only a MarketingHours (or None, to remove) is taken, naming hours and the value."""
    with pytest.raises(smskit.ValidationError) as refused:
        register_marketing_hours("BE", hours)  # type: ignore[arg-type]
    assert refused.value.field == "hours"
    assert refused.value.rule == "must be a MarketingHours (or None)"
    assert refused.value.value == hours
    assert "BE" not in MARKETING_HOURS
