"""The notebook widgets, driven headlessly: set values, press buttons, read panels and results.

The live panel's content is :func:`smskit.views.pure_panel.compose_panel` (pure, tested first);
the widgets run against a real sandbox over HTTP.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import smskit
import smskit.rules.phones  # patched by a test below: imported here, whatever ran before
from smskit import Campaign, Client, Composer, Dashboard, HLRExplorer
from smskit.errors import ValidationError
from smskit.rules.findings import Finding
from smskit.sandbox import Sandbox
from smskit.views.pure_panel import compose_panel, highlight, panel_state

CURLY = (
    "Bonjour {first_name}, l’été arrive : -20 % sur toute la collection ce week-end ! STOP au 36173"
)
RECIPIENTS = pd.DataFrame(
    {
        "phone_number": ["+33612345678", "06 12 34 56 79", "+33123456789", "+4915123456789"],
        "first_name": ["Camille", "Léa", "Hugo", None],
    }
)
SEND_AT = "2030-06-04T10:00:00+02:00"  # a Tuesday morning: inside French marketing hours


def _composer(client: Client, tmp_path: Path, **options: object) -> Composer:
    options.setdefault("sender", "MyShop")
    options.setdefault("send_at", SEND_AT)
    return Composer(
        client, RECIPIENTS, debounce=0, journal=tmp_path / "c.journal.sqlite", **options
    )


# -- the pure panel ---------------------------------------------------------------------------


def test_panel_counts_the_text_as_typed_and_as_delivered() -> None:
    """A curly apostrophe makes the typed text UCS-2 (2 segments); delivered it is GSM-7."""
    panel = compose_panel(CURLY, sender="MyShop", options={})
    assert panel.stats is not None
    assert (panel.stats.encoding, panel.stats.segments, panel.stats.units) == ("UCS-2", 2, 94)
    assert panel.stats.non_gsm == ((23, "’"),)
    assert panel.delivered is not None and panel.delivered.encoding == "GSM-7"
    assert panel.delivered.segments == 1
    assert panel.can_optimize and not panel.can_add_stop
    assert panel.fields == ("first_name",)


def test_panel_without_auto_optimisation_has_no_delivered_line() -> None:
    """With auto_optimize_text=False the gateway sends the text as typed: no "as delivered"."""
    panel = compose_panel(CURLY, sender="MyShop", options={"auto_optimize_text": False})
    assert panel.delivered is None


def test_panel_checks_name_what_blocks_the_send() -> None:
    """Empty text, unknown field, missing STOP, bad sender and no recipients each fail a check."""
    panel = compose_panel("Hi {prenom}", sender="My Shop", options={})
    failed = {check.name: check.message for check in panel.failed}
    assert set(failed) == {"fields", "stop", "sender", "recipients"}
    assert "{prenom}" in failed["fields"]
    assert panel.unknown_fields == ("prenom",)
    assert "spaces" in failed["sender"]
    assert not panel.ok and panel.can_add_stop
    empty = compose_panel("", sender="MyShop", options={"purpose": "alert"})
    assert [c.name for c in empty.failed] == ["text", "recipients"]


def test_a_send_to_nobody_says_why_nobody(client: Client) -> None:
    """No row given, or every row excluded: the send is blocked saying which, with each
    exclusion's count (never "none of 0 recipients")."""
    empty = Composer(client, pd.DataFrame({"phone_number": []}), text="Hi STOP au 36173",
                     sender="MyShop", debounce=0)  # fmt: skip
    assert (
        empty.controls["send"]["why"]
        == "recipients: no recipients: the recipients given have no row"
    )
    rows = pd.DataFrame({"phone_number": ["+33612345678", "+33612345678", "not a number"]})
    blank = Composer(client, rows, text="", sender="MyShop", debounce=0)
    recipients = next(c for c in blank.panel.checks if c.name == "recipients")
    assert recipients.message == (
        "none of 3 recipients can be sent (invalid_number: 1, empty_text: 2)"
    )


def test_each_warning_badge_is_named_by_its_finding(client: Client) -> None:
    """A warning's badge says which rule (the finding's code, as a check's badge says its
    name), never only "warning" under the Warnings heading."""
    rows = pd.DataFrame({"phone_number": ["+33612345678", "+33612345679"],
                         "first_name": ["Léa", None]})  # fmt: skip
    composer = Composer(client, rows, text="Salut {first_name} STOP au 36173", sender="MyShop",
                        purpose="alert", debounce=0)  # fmt: skip
    warnings = [(f["name"], f["message"]) for f in composer.state["findings"]
                if f["group"] == "warning"]  # fmt: skip
    assert warnings == [("fields_missing", "1 recipient(s) miss a dynamic field: it renders empty")]


@pytest.mark.parametrize("text", ["", "Colis en route. " + "x" * 1600], ids=["empty", "too long"])
def test_a_text_that_cannot_be_sent_sends_nobody_and_no_sms(text: str) -> None:
    """An empty or over-long text blocks the send: the summary says no one to send, none
    excluded and no SMS (it said "3 excluded" for an empty text and each recipient's
    segments of the over-long one), and the recipients check does not say "3 to send"."""
    numbers = ["+33612345678", "+33612345679", "+33612345670"]
    composer = Composer(None, numbers, text=text, sender="MyShop", purpose="alert", debounce=0)
    assert composer.panel.failed[0].name == "text"
    summary = composer.summary
    assert summary["recipients"] == 3
    assert (summary["to_send"], summary["excluded"], summary["sms"]) == (None, None, None)
    assert (composer.state["to_send"], composer.state["sms"]) == (None, None)
    recipients = next(c for c in composer.panel.checks if c.name == "recipients")
    assert not recipients.message.startswith("3 to send"), recipients.message
    assert "3 recipient(s)" in repr(composer)
    composer.text = "Colis en route."  # the same recipients, a text that can be sent
    assert (composer.summary["to_send"], composer.summary["excluded"]) == (3, 0)
    assert composer.summary["sms"] == 3


def test_a_warning_badge_is_named_by_its_finding_code_whatever_the_panel() -> None:
    """The panel keeps each warning as its finding: its badge is named by the code, never a
    generic "warning" (the name it fell back to when a panel's codes were missing)."""
    found = (Finding("fields_missing", detail="2"), Finding("optouts_unread", detail="x"))
    panel = compose_panel("Colis en route.", sender="MyShop", options={"purpose": "alert"})
    state = panel_state(dataclasses.replace(panel, findings=found))
    warnings = [(f["name"], f["message"]) for f in state["findings"] if f["group"] == "warning"]
    assert warnings == [(f.code, f.message()) for f in found]


def test_panel_alert_needs_no_stop_and_allows_spaces_in_the_sender() -> None:
    """purpose='alert' drops the STOP rule and lets the sender have spaces."""
    panel = compose_panel("Your code is 1234", sender="My Bank", options={"purpose": "alert"})
    assert {c.name for c in panel.failed} == {"recipients"}
    assert not panel.stop_required and not panel.can_add_stop


def test_highlight_flags_runs_of_ucs2_characters() -> None:
    """The text is split in runs; only the characters at the given positions are flagged."""
    assert highlight("a’’b", {1, 2}) == [("a", False), ("’’", True), ("b", False)]
    assert highlight("", set()) == []


def test_panel_state_cuts_the_text_where_characters_force_ucs2() -> None:
    """The front end gets the text in runs, the forcing ones flagged, with their code points,
    and the last segment's units used of its capacity."""
    text = "<b> it’s ok"
    state = panel_state(compose_panel(text, sender="MyShop", options={}))
    assert state["runs"] == [["<b> it", False], ["’", True], ["s ok", False]]
    assert "".join(run for run, _ in state["runs"]) == state["text"] == text
    assert state["forcing"] == [{"char": "’", "code": "U+2019"}]
    assert state["meter"] == {
        "encoding": "UCS-2", "characters": 11, "units": 11, "unit_name": "units",
        "segments": 1, "per_segment": 70, "used": 11, "remaining": 59,
    }  # fmt: skip


def test_panel_state_groups_findings_by_what_blocks_the_send() -> None:
    """Failed checks are 'blocks', passing ones 'ok'; without recipients no bubble is drawn."""
    state = panel_state(compose_panel("Hi {prenom}", sender="MyShop", options={}))
    groups = {f["name"]: f["group"] for f in state["findings"]}
    assert groups == {
        "text": "ok", "fields": "blocks", "stop": "blocks", "sender": "ok", "recipients": "blocks",
    }  # fmt: skip
    assert state["blocked"] == ["fields", "stop", "recipients"]
    assert state["bubbles"] == [] and state["to_send"] is None and not state["ok"]


# -- the composer widget ----------------------------------------------------------------------


def test_composer_follows_the_text_and_enables_send_once_checks_pass(
    client: Client, tmp_path: Path
) -> None:
    """Typing updates stats and panel; send stays disabled until the STOP mention is added."""
    composer = _composer(client, tmp_path)
    assert not composer.enabled("send") and composer.stats is not None
    assert composer.stats.segments == 0
    composer.text = CURLY.replace(" STOP au 36173", "")
    assert composer.stats.encoding == "UCS-2"
    assert composer.state["meter"]["encoding"] == "UCS-2"
    assert composer.controls["send"]["why"] == (
        "stop: marketing (purpose='wholesale') needs a STOP mention"
    )
    assert not composer.enabled("send") and not composer.enabled("estimate")
    assert composer.enabled("stop")
    composer.press("stop")
    assert composer.text.endswith("\nSTOP au 36173")
    assert composer.enabled("send") and composer.ready
    assert not composer.enabled("stop")
    report = composer.preflight
    assert report is not None and (report.recipients, report.to_send) == (4, 3)
    assert (composer.state["worst_case"], composer.state["to_send"]) == (1, 3)
    assert composer.summary == {
        "recipients": 4, "to_send": 3, "excluded": 1, "sms": 3, "cost": None, "unit": None,
        "source": None,
    }  # fmt: skip


def test_numbers_are_checked_once_while_the_text_changes(
    client: Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Typing re-renders every recipient but does not normalise their numbers again."""
    calls: list[int] = []
    real = smskit.rules.phones.normalize_codes

    def counted(values: pd.Series, *args: object, **kwargs: object) -> object:
        calls.append(len(values))
        return real(values, *args, **kwargs)

    monkeypatch.setattr(smskit.rules.phones, "normalize_codes", counted)
    composer = _composer(client, tmp_path, text=CURLY)
    composer.text = CURLY.replace("Bonjour", "Salut")
    composer.text = CURLY.replace("Bonjour", "Coucou")
    assert calls == [len(RECIPIENTS)]
    assert composer.preflight is not None
    assert composer.preflight.to_frame()["text"].str.startswith("Coucou").all()
    assert composer.preflight.to_send == 3


def test_why_send_is_disabled_names_the_field_once(client: Client, tmp_path: Path) -> None:
    """A refused sender or text says its field once in why send is disabled, not twice."""
    composer = _composer(client, tmp_path)
    composer.text = CURLY
    composer.sender = "ABCDEFGHIJKLMNOP"
    why = composer.controls["send"]["why"]
    assert why.startswith("sender: must have 3 to 11 characters") and why.count("sender:") == 1
    composer.sender = "Shop"
    composer.text = "x" * 2000
    why = composer.controls["send"]["why"]
    assert why.startswith("text: ") and why.count("text:") == 1


def test_recipients_that_cannot_be_read_block_send_and_say_why(
    client: Client, tmp_path: Path
) -> None:
    """A recipients CSV removed after the composer was made: the panel names it, send is off."""
    csv = tmp_path / "customers.csv"
    RECIPIENTS.to_csv(csv, index=False)
    composer = Composer(client, csv, text=CURLY, sender="MyShop", send_at=SEND_AT, debounce=0)
    assert composer.ready and composer.enabled("send")
    csv.unlink()
    composer.text = CURLY + " Vite !"
    assert not composer.ready and not composer.enabled("send")
    failed = [check for check in composer.panel.checks if not check.ok]
    assert [check.name for check in failed] == ["recipients"]
    assert "FileNotFoundError" in failed[0].message and "customers.csv" in failed[0].message


def test_composer_controls_change_the_checks(client: Client, tmp_path: Path) -> None:
    """A sender with spaces blocks a marketing send; purpose 'alert' accepts it."""
    composer = _composer(client, tmp_path, text=CURLY)
    assert composer.ready
    composer.sender = "My Shop"
    assert not composer.enabled("send")
    assert [c.name for c in composer.panel.failed] == ["sender"]
    composer.purpose = "alert"
    assert composer.enabled("send")
    composer.send_at = "next tuesday"
    assert not composer.enabled("send")
    assert [c.name for c in composer.panel.failed] == ["options"]
    assert "send_at" in composer.panel.failed[0].message


def test_optimise_button_switches_back_to_gsm7_and_says_what_it_saved(
    client: Client, tmp_path: Path
) -> None:
    """'optimise text' replaces the curly quote: GSM-7, one segment, "1 saved" shown."""
    composer = _composer(client, tmp_path, text=CURLY)
    assert composer.enabled("optimize")
    composer.press("optimize")
    assert composer.text == CURLY.replace("’", "'")
    assert composer.stats is not None
    assert (composer.stats.encoding, composer.stats.segments) == ("GSM-7", 1)
    assert "2 → 1 segment(s) per message, 1 saved" in composer.message
    assert not composer.enabled("optimize")


def test_send_asks_for_confirmation_and_cancel_sends_nothing(
    client: Client, tmp_path: Path
) -> None:
    """The send button only shows Confirm / Cancel; Cancel hides them and sends nothing."""
    composer = _composer(client, tmp_path, text=CURLY)
    before = client.wallet.check_balance().amount
    composer.press("send")
    assert composer.confirmation != ""
    assert "Send 3 message(s), 3 SMS" in composer.confirmation
    assert not composer.enabled("send")
    composer.press("cancel")
    assert composer.confirmation == ""
    assert composer.enabled("send")
    assert composer.result is None
    assert client.wallet.check_balance().amount == before


def test_confirmed_send_shows_progress_and_the_result(client: Client, tmp_path: Path) -> None:
    """Confirm sends through the campaign: progress reaches 3/3, result and balance agree."""
    composer = _composer(client, tmp_path, text=CURLY)
    before = client.wallet.check_balance().amount
    composer.press("send")
    composer.press("confirm")
    result = composer.result
    assert result is not None
    summary = result.summary().iloc[0]
    assert (summary["sent"], summary["excluded"], summary["sms"]) == (3, 1, 3)
    assert composer.progress == {"done": 3, "total": 3, "unit": "recipients"}
    assert "sent: 3" in composer.message
    assert "Campaign" in composer.result_html
    after = client.wallet.check_balance().amount
    assert after == pytest.approx(before - summary["cost"])


def test_estimate_button_shows_the_gateways_figures_without_charging(
    client: Client, tmp_path: Path
) -> None:
    """'estimate cost' simulates through the gateway: SMS and cost shown, balance untouched."""
    composer = _composer(client, tmp_path, text=CURLY)
    before = client.wallet.check_balance().amount
    composer.press("estimate")
    estimate = composer.cost_estimate
    assert estimate is not None and estimate.source == "gateway"
    assert (estimate.recipients, estimate.sms) == (3, 3)
    assert estimate.cost is not None and estimate.cost > 0
    assert "Campaign estimate" in composer.result_html
    assert client.wallet.check_balance().amount == before


def test_editing_after_an_estimate_clears_it_but_a_panel_refresh_alone_does_not(
    client: Client, tmp_path: Path
) -> None:
    """An estimate stays on show while the values are the same, and goes once the text changes."""
    composer = _composer(client, tmp_path, text=CURLY)
    composer.press("estimate")
    composer.refresh()
    assert "Campaign estimate" in composer.result_html
    composer.text = CURLY + " Vite !"
    assert composer.result_html == "" and composer.message == ""
    assert composer.progress["total"] == 0
    assert composer.summary["cost"] is None


def test_composer_without_recipients_cannot_send(client: Client) -> None:
    """No recipients: no preflight, send disabled, and send() from code names the check."""
    composer = Composer(client, text=CURLY, sender="MyShop", debounce=0)
    assert composer.preflight is None and not composer.enabled("send")
    with pytest.raises(ValidationError, match="recipients"):
        composer.send()


def test_composer_rejects_unknown_send_options(client: Client) -> None:
    """A misspelt send option is a ValidationError naming it, at construction."""
    with pytest.raises(ValidationError, match="with_reply"):
        Composer(client, RECIPIENTS, with_reply=True)


def test_send_kwargs_drive_the_endpoint_and_the_campaign(client: Client, tmp_path: Path) -> None:
    """send_kwargs() is text, sender and options; the endpoint and Campaign accept them."""
    composer = _composer(client, tmp_path, text=CURLY, type="sms_low_cost")
    composer.with_replies = True
    kwargs = composer.send_kwargs()
    assert kwargs == {
        "text": CURLY, "sender": "MyShop", "type": "sms_low_cost", "purpose": "wholesale",
        "with_replies": True, "send_at": SEND_AT,
    }  # fmt: skip
    simulated = client.sms_campaign.send(
        recipients=["+33612345678"], simulation_mode=True, **kwargs
    )
    assert simulated.number_of_sms_needed == 1
    assert Campaign(client, RECIPIENTS, **kwargs).preflight().to_send == 3


def test_composer_debounces_keystrokes_in_an_event_loop(client: Client) -> None:
    """Inside a running loop (a kernel), the panel refreshes once typing pauses."""

    async def type_then_wait() -> tuple[str, str]:
        composer = Composer(client, text="", sender="MyShop", debounce=0.05)
        composer.text = "it’s"
        composer.text = "it’s on"
        right_after = composer.stats.encoding if composer.stats else ""
        await asyncio.sleep(0.3)
        return right_after, composer.stats.encoding if composer.stats else ""

    right_after, settled = asyncio.run(type_then_wait())
    assert (right_after, settled) == ("GSM-7", "UCS-2")


def test_composer_repr_is_a_plain_text_summary(client: Client, tmp_path: Path) -> None:
    """repr names text, encoding, recipients and what blocks; it is the text/plain of the bundle."""
    composer = _composer(client, tmp_path, text="Hi {first_name}")
    assert repr(composer) == (
        "Composer('Hi {first_name}', GSM-7, 1 segment(s), 3 to send, blocked by stop)"
    )
    bundle, _metadata = composer._repr_mimebundle_()
    assert bundle["text/plain"] == repr(composer)
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == (composer.model_id)


def test_widgets_resolve_lazily_from_the_package() -> None:
    """smskit.Composer / HLRExplorer / Dashboard are the classes their view modules define."""
    from smskit.views.composer import Composer
    from smskit.views.dashboard import Dashboard
    from smskit.views.hlr_explorer import HLRExplorer

    assert (smskit.Composer, smskit.HLRExplorer, smskit.Dashboard) == (
        Composer, HLRExplorer, Dashboard,
    )  # fmt: skip


# -- the HLR explorer -------------------------------------------------------------------------

NUMBERS = ["+33612345678", "06 12 34 56 79", "+447400123456", "+4915123456789", "not a number"]


def test_hlr_explorer_checks_breaks_down_and_filters(client: Client, tmp_path: Path) -> None:
    """Check numbers (progress to 4/4), table per country, filters narrow table and CSV."""
    explorer = HLRExplorer(client, pd.Series(NUMBERS), journal=False)
    assert repr(explorer) == "HLRExplorer(5 number(s) to check)"
    assert explorer.numbers_text.splitlines()[-1] == "not a number"
    assert not explorer.checked
    explorer.press("export")  # disabled before a check: nothing written, nothing said
    assert explorer.message == ""
    explorer.press("check")
    frame = explorer.frame
    assert frame is not None and len(frame) == 5 and explorer.checked
    assert explorer.progress == {"done": 4, "total": 4, "unit": "numbers"}
    assert explorer.countries == ["(all)", "DE", "FR", "GB"]
    table = explorer.breakdown()
    assert table is not None and table.loc["total", "total"] == 5
    assert table.loc["FR", "total"] == 2
    # The charts the front end draws are the plotly figures' counts, series by series.
    figures = explorer.figures()
    assert [c["title"] for c in explorer.charts] == [f.layout.title.text for f in figures]
    bars = explorer.charts[0]
    assert sum(sum(s["values"]) for s in bars["series"]) == 5
    assert {s["name"] for s in bars["series"]} == {str(t.name) for t in figures[0].data}

    explorer.country = "FR"
    table = explorer.breakdown()
    assert table is not None and list(table.index) == ["FR", "total"]
    assert explorer.table.count("</tr>") == 3  # the header, FR and the total
    status = str(frame.loc[frame["country_code"] == "FR", "line_status"].iloc[0])
    explorer.line_status = status
    kept = explorer.filtered
    assert kept is not None and set(kept["line_status"].astype(str)) == {status}
    assert set(kept["country_code"]) == {"FR"}
    path = tmp_path / "fr.csv"
    explorer.csv_path = str(path)
    explorer.press("export")
    written = pd.read_csv(path, dtype=str)
    assert list(written["phone_number"]) == list(kept["phone_number"])
    assert f"{len(kept)} row(s) written" in explorer.message


def test_hlr_explorer_forgets_results_when_the_numbers_change(client: Client) -> None:
    """Editing the box clears the table, charts and export; an empty check leaves nothing old."""
    explorer = HLRExplorer(client, NUMBERS[:2], journal=False)
    explorer.check()
    assert explorer.table and explorer.checked and explorer.enabled("export")
    explorer.numbers_text = "+33612345670"
    assert explorer.frame is None and explorer.table == ""
    assert explorer.charts == [] and not explorer.enabled("export") and not explorer.checked
    assert repr(explorer) == "HLRExplorer(1 number(s) to check)"
    explorer.check()
    assert explorer.frame is not None and list(explorer.frame["input"]) == ["+33612345670"]
    explorer.numbers_text = " "
    explorer.press("check")
    assert explorer.frame is None and explorer.table == ""
    assert "paste at least one phone number" in explorer.message
    assert explorer.message_kind == "error"


def test_hlr_explorer_filter_with_no_match_shows_an_empty_table(client: Client) -> None:
    """A filter combination nobody matches: total 0 and no chart (not an error)."""
    explorer = HLRExplorer(client, NUMBERS[:2], journal=False)
    explorer.check()
    explorer.country = "FR"
    absent = next(
        s for s in explorer.statuses[1:]
        if s not in set(explorer.frame["line_status"].astype(str))  # type: ignore[index]
    )  # fmt: skip
    explorer.line_status = absent
    table = explorer.breakdown()
    assert table is not None and table.loc["total", "total"] == 0
    assert explorer.charts == []
    assert explorer.to_csv() == (
        explorer.frame.head(0).to_csv(index=False)  # type: ignore[union-attr]
    )


def test_hlr_explorer_with_nothing_to_check_says_so(client: Client) -> None:
    """Pressing "check" on an empty box shows the error in the widget; no request, no frame."""
    explorer = HLRExplorer(client, journal=False)
    explorer.press("check")
    assert explorer.frame is None
    assert "paste at least one phone number" in explorer.message
    with pytest.raises(ValidationError, match="check numbers before exporting"):
        explorer.to_csv()


# -- the dashboard ----------------------------------------------------------------------------


def test_dashboard_shows_balance_credits_map_and_drafts(client: Client) -> None:
    """The dashboard holds what the gateway answers; refresh follows a spend."""
    dashboard = Dashboard(client)
    balance = client.wallet.check_balance(with_details=True)
    assert dashboard.balance == balance
    assert f"{balance.amount:,.2f}" in dashboard.balance_html
    credits = client.wallet.check_credits()
    assert dashboard.credits is not None and list(dashboard.credits.index) == list(credits)
    assert dashboard.drafts is not None and list(dashboard.drafts["kind"]) == ["sms", "voice"]
    assert len(dashboard.map["countries"]) > 20 and dashboard.map["title"]
    assert dashboard.credits_table.count("</tr>") == len(credits) + 1
    assert repr(dashboard) == (
        f"Dashboard(balance={balance.amount} EUR, 2 packs (1 expiring soon), "
        f"{len(credits)} countries with credits, 2 drafts)"
    )
    client.contact.hlr_request(["+33612345678"])
    dashboard.press("refresh")
    assert dashboard.balance.amount < balance.amount
    assert f"{dashboard.balance.amount:,.2f}" in dashboard.balance_html


def test_dashboard_shows_the_packs_and_what_expires_soon(client: Client) -> None:
    """Packs are listed with their expiry; the one expiring within 60 days is marked and summed."""
    dashboard = Dashboard(client)
    assert dashboard.packs is not None and list(dashboard.packs["credit"]) == [100.0, 900.0]
    assert str(dashboard.packs["expiration_date"].dtype) == "datetime64[ns, Europe/Paris]"
    assert dashboard.expiring is not None and list(dashboard.expiring["credit"]) == [100.0]
    assert list(dashboard.expiring["days_left"]) == [29]
    shown = dashboard.balance_html
    assert shown.count("expires in 29 days") == 1
    assert "100.00 EUR expiring within 60 days" in shown


# -- live widgets: a second send, counting numbers, writing files, offline maps (#27 item 3) --


def _sent(result: Any) -> int:
    return int(result.summary().iloc[0]["sent"])


def test_second_send_of_other_text_is_a_new_campaign_named_before_confirm(
    client: Client, tmp_path: Path
) -> None:
    """After a send, an edited text is a new campaign: the confirmation names its journal, and
    Confirm sends it (no "pass journal= or name=" error)."""
    composer = _composer(client, tmp_path, text=CURLY)
    composer.press("send")
    composer.press("confirm")
    assert composer.result is not None and _sent(composer.result) == 3
    composer.text = CURLY.replace("Bonjour", "Salut")
    composer.press("send")
    label = composer.confirmation
    assert "as a new campaign" in label and "c-2.journal.sqlite" in label
    composer.press("confirm")
    assert "Error" not in composer.message, composer.message
    assert composer.result is not None and _sent(composer.result) == 3
    assert [s.journal for s in composer.sends] == [
        tmp_path / "c.journal.sqlite", tmp_path / "c-2.journal.sqlite",
    ]  # fmt: skip
    assert composer.sends[0].name != composer.sends[1].name


def test_unnamed_composer_leaves_an_existing_journal_to_its_campaign(
    client: Client, tmp_path: Path
) -> None:
    """A journal already holding a campaign (an earlier kernel's): an unnamed composer's first
    send goes to the next free journal, named in the confirmation, and is sent."""
    _composer(client, tmp_path, text=CURLY).send()
    composer = _composer(client, tmp_path, text=CURLY.replace("Bonjour", "Salut"))
    composer.press("send")
    assert "as a new campaign" in composer.confirmation
    assert "c-2.journal.sqlite" in composer.confirmation
    composer.press("confirm")
    assert "Error" not in composer.message, composer.message
    assert composer.result is not None and _sent(composer.result) == 3
    assert composer.sends[0].journal == tmp_path / "c-2.journal.sqlite"


def test_named_composer_numbers_its_next_campaigns(client: Client, tmp_path: Path) -> None:
    """A composer given name="promo": the campaign after "promo" is "promo-2"."""
    composer = _composer(client, tmp_path, text=CURLY, name="promo")
    composer.send()
    composer.send(again=True)
    assert [s.name for s in composer.sends] == ["promo", "promo-2"]


def test_same_text_again_says_already_sent_before_confirm_then_sends_again(
    client: Client, tmp_path: Path
) -> None:
    """The same values again: the confirmation says they were sent (and when), Confirm sends
    them again as a new campaign: the balance drops a second time."""
    composer = _composer(client, tmp_path, text=CURLY)
    composer.press("send")
    composer.press("confirm")
    after_first = client.wallet.check_balance().amount
    composer.press("send")
    label = composer.confirmation
    assert "already sent at" in label and "(sent: 3)" in label and "AGAIN" in label
    composer.press("confirm")
    assert composer.result is not None and _sent(composer.result) == 3
    assert len(composer.sends) == 2
    assert client.wallet.check_balance().amount < after_first


def test_send_from_code_with_the_same_values_sends_nothing_twice(
    client: Client, tmp_path: Path
) -> None:
    """composer.send() twice (a re-run cell): the second sends nothing and says when the first
    was; send(again=True) sends again."""
    composer = _composer(client, tmp_path, text=CURLY)
    first = composer.send()
    balance = client.wallet.check_balance().amount
    assert composer.send() is first
    assert "already sent at" in composer.message
    assert "nothing sent again" in composer.message
    assert client.wallet.check_balance().amount == balance and len(composer.sends) == 1
    assert _sent(composer.send(again=True)) == 3
    assert client.wallet.check_balance().amount < balance


def test_editing_while_the_confirmation_shows_withdraws_it(client: Client, tmp_path: Path) -> None:
    """A confirmation is about the values it was asked for: editing the text hides it."""
    composer = _composer(client, tmp_path, text=CURLY)
    composer.press("send")
    assert composer.confirmation != ""
    composer.text = CURLY.replace("Bonjour", "Salut")
    assert composer.confirmation == ""
    assert composer.enabled("send")


def test_hlr_explorer_counts_numbers_by_their_normalised_form(client: Client) -> None:
    """+33612345678, 0612345678 and "06 12 34 56 78" are one number in the table and message."""
    entries = ["+33612345678", "0612345678", "06 12 34 56 78", "+447400123456", "bad"]
    explorer = HLRExplorer(client, entries, journal=False)
    frame = explorer.check()
    assert len(frame) == 5  # one row per entry as typed: the export keeps them
    table = explorer.breakdown()
    assert table is not None
    assert (table.loc["FR", "total"], table.loc["total", "total"]) == (1, 3)
    assert explorer.message.startswith("2 number(s) checked (2 entry(ies) repeat a number")
    assert repr(explorer).startswith("HLRExplorer(2 checked:")


def test_hlr_explorer_never_counts_an_entry_it_did_not_check(client: Client) -> None:
    """Entries the gateway was never asked about (no phone number) are said not checked, with
    why, and an entry pasted twice as typed is a repeat: 5 entries, 1 number checked."""
    entries = ["+33612345678", "+33612345678", "0612345678", "+4474001", "hello"]
    explorer = HLRExplorer(client, entries, journal=False)
    explorer.check()
    assert explorer.progress["done"] == 1  # one request made: one number
    assert explorer.message == (
        "1 number(s) checked (2 entry(ies) repeat a number, as typed or written another way); "
        "2 entry(ies) not checked (not sent: too_short, not sent: contains_letters)"
    )
    assert repr(explorer) == "HLRExplorer(1 checked: live=1; 2 not checked)"


def test_hlr_explorer_repr_counts_a_checked_number_without_a_line_status(
    client: Client,
) -> None:
    """A number the gateway answered without a line status is counted under "(missing)",
    as every count of smskit counts it (the repr's counts dropped it: "2 checked: live=1")."""
    explorer = HLRExplorer(client, ["+33612345678", "+33612345679", "hello"], journal=False)
    frame = explorer.check()
    assert frame["line_status"].notna().sum() == 2
    answered = frame.index[frame["line_status"].notna()]
    explorer.frame = frame.assign(line_status=frame["line_status"].mask(frame.index == answered[1]))
    first = frame.loc[answered[0], "line_status"]
    assert repr(explorer) == f"HLRExplorer(2 checked: {first}=1, (missing)=1; 1 not checked)"


def test_a_press_carries_the_inputs_as_the_user_left_them(client: Client, tmp_path: Path) -> None:
    """A button's message brings the inputs' values (a host may deliver it before the trait
    changes sent just before it): "export" writes to the file name typed, not the old one;
    a value that is no input of the widget is ignored."""
    explorer = HLRExplorer(client, NUMBERS[:2], journal=False)
    explorer.check()
    typed = tmp_path / "typed.csv"
    values = {"csv_path": str(typed), "country": "FR", "frame": None}
    explorer._received(explorer, {"action": "export", "values": values}, [])
    assert typed.is_file() and explorer.csv_path == str(typed) and explorer.country == "FR"
    assert explorer.frame is not None
    assert f"2 row(s) written to {typed}" in explorer.message  # both numbers are French


def test_a_composer_press_carries_the_options_as_the_user_left_them(
    client: Client, tmp_path: Path
) -> None:
    """The Composer's estimate is made with the values its message brings (marimo may deliver
    the press before an option's change): with_replies unticked just before is not estimated
    ticked, and the estimate stays on show when that change arrives after it."""
    composer = _composer(client, tmp_path, text=CURLY + " STOP au 36173", with_replies=True)
    values = {**{name: getattr(composer, name) for name in Composer.INPUTS},
              "with_replies": False}  # fmt: skip
    composer._received(composer, {"action": "estimate", "values": values}, [])
    assert composer.with_replies is False
    assert composer.message.startswith("estimate: ")
    composer.with_replies = False  # the change itself, arriving late: nothing to clear
    assert "Campaign estimate" in composer.result_html and composer.summary["cost"] is not None


def test_the_message_line_says_a_cost_with_its_currency(client: Client, tmp_path: Path) -> None:
    """After an estimate and after a send, the message line's cost carries the wallet's unit,
    as the summary bar does: a bare amount would not say which money."""
    composer = _composer(client, tmp_path, text=CURLY + " STOP au 36173")
    unit = client.wallet.check_balance().unit
    estimate = composer.estimate()
    assert composer.message.endswith(f", cost {estimate.cost} {unit}")
    assert composer.summary["unit"] == unit
    result = composer.send()
    cost = float(result.summary().iloc[0]["cost"])
    assert f"SMS, cost {cost} {unit} (campaign " in composer.message


def test_hlr_export_says_the_absolute_path_it_wrote(
    client: Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A relative CSV name is written in the working directory, and the message gives its
    absolute path."""
    monkeypatch.chdir(tmp_path)
    explorer = HLRExplorer(client, NUMBERS[:2], journal=False)
    explorer.check()
    explorer.csv_path = "hlr.csv"
    explorer.press("export")
    assert (tmp_path / "hlr.csv").is_file()
    assert f"2 row(s) written to {tmp_path / 'hlr.csv'}" in explorer.message


def test_hlr_export_that_cannot_write_says_why_in_the_widget(
    client: Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An "export CSV" to a name that cannot be written (none, a folder, a folder that does not
    exist) says why in the widget's message line, as an error: a press runs in no cell, so an
    exception raised by it reached no output (the line kept saying "2 number(s) checked");
    nothing is claimed written and no file appears."""
    monkeypatch.chdir(tmp_path)
    explorer = HLRExplorer(client, NUMBERS[:2], journal=False)
    explorer.check()
    missing = tmp_path / "no-such-folder" / "hlr.csv"
    expected = {
        "": "ValidationError: csv_path: give the CSV file's name",
        "  ": "ValidationError: csv_path: give the CSV file's name",
        str(tmp_path): f"ValidationError: csv_path: {tmp_path} is a folder",
        str(missing): "OSError: Cannot save file into a non-existent directory",
    }
    for name, says in expected.items():
        explorer.say("")
        explorer.csv_path = name
        explorer.press("export")
        assert explorer.message.startswith(says), (name, explorer.message)
        assert explorer.message_kind == "error"
        assert "written" not in explorer.message
    assert sorted(tmp_path.iterdir()) == []


def test_every_press_that_runs_is_counted_for_the_front_end(client: Client) -> None:
    """``presses`` (synced) counts the presses that ran, one that failed included, none that
    was disabled: the front end hands each new count back, and marimo re-runs the cells that
    read the widget on it (after "optimise text" they showed the text before it)."""
    explorer = HLRExplorer(client, NUMBERS[:2], journal=False)
    assert explorer.presses == 0 and "presses" in explorer.get_state()
    explorer.press("export")  # disabled before a check
    assert explorer.presses == 0
    explorer._received(explorer, {"action": "check", "values": {}}, [])
    assert explorer.presses == 1 and explorer.checked
    explorer.csv_path = ""
    explorer.press("export")  # refused, said in the widget: it ran
    assert explorer.presses == 2 and explorer.message_kind == "error"


def test_a_composer_given_a_folder_as_journal_sends_nothing_and_says_why(
    client: Client, tmp_path: Path, fresh_sandbox: Sandbox
) -> None:
    """journal= naming a folder: the send is refused as a Campaign refuses it (the error
    names the folder, in the widget), nothing reaches the gateway, and no journal file is
    made beside the folder (the Composer took the folder for a journal already there and
    sent into "<folder>-2")."""
    folder = tmp_path / "campaigns"
    folder.mkdir()
    composer = Composer(
        client, RECIPIENTS, text=CURLY, sender="MyShop", send_at=SEND_AT, journal=folder,
        debounce=0,
    )  # fmt: skip
    composer.press("send")
    assert "-2" not in composer.confirmation  # before: "as a new campaign (journal ...-2)"
    composer.press("confirm")
    assert composer.message_kind == "error" and str(folder) in composer.message
    assert composer.sends == [] and fresh_sandbox.sent().empty
    assert sorted(p.name for p in tmp_path.iterdir()) == ["campaigns"]
    assert list(folder.iterdir()) == []


def test_dashboard_map_draws_the_figures_countries_in_its_colours(client: Client) -> None:
    """The map the front end draws is credits_map's: each country its value, a colour that
    grows with it on the figure's span, an outline from the shipped shapes (no request)."""
    from smskit.views import plots

    dashboard = Dashboard(client)
    figure = plots.credits_map(client.wallet.check_credits())
    drawn = {c["code"]: c for c in dashboard.map["countries"]}
    (trace,) = figure.data
    values = dict(zip(trace.locations, trace.z, strict=True))
    assert {"FRA", "DEU", "ESP"} <= set(drawn)
    assert all(drawn[code]["value"] == values[code] for code in drawn)
    assert all(c["path"].startswith("M") and c["path"].endswith("Z") for c in drawn.values())
    assert (dashboard.map["low"], dashboard.map["high"]) == (trace.zmin, trace.zmax)
    assert dashboard.map["note"] == figure.layout.annotations[0].text
    # The same value, the same colour; the span's ends are the scale's end colours.
    by_value = {}
    for c in drawn.values():
        assert by_value.setdefault(c["value"], c["color"]) == c["color"]
    lowest = min((c for c in drawn.values() if c["value"] is not None), key=lambda c: c["value"])
    assert lowest["color"] == dashboard.map["colors"][0] or lowest["value"] < trace.zmin


def test_widget_tables_have_one_header_row_over_their_columns() -> None:
    """table_html: a named index is the first column under its name (one header row, no
    columns' name row); an unnamed range index is left out."""
    from smskit.views.widget import table_html

    table = pd.DataFrame({"live": [3, 1]}, index=pd.Index(["FR", "total"], name="country"))
    table.columns.name = "line_status"
    shown = table_html(table)
    head = shown.split("<tbody>")[0]
    assert head.count("<tr") == 1 and "line_status" not in shown
    assert [h.split("</th>")[0] for h in head.split("<th>")[1:]] == ["country", "live"]
    assert "<td>FR</td>" in shown
    plain = table_html(pd.DataFrame({"kind": ["sms"]}))
    assert "<th>kind</th>" in plain and "<td>0</td>" not in plain


def test_composer_refreshes_at_once_unless_typing_outpaces_its_refreshes(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """By default a keystroke refreshes at once while the last refresh took less than the time
    since the previous key; else it waits twice the last refresh, capped at 0.15 s. A debounce
    given in seconds is kept as given."""
    from smskit.views import composer as module

    real = module.compose_panel

    def slow(delay: float) -> Any:
        def panel(*args: Any, **kwargs: Any) -> Any:
            time.sleep(delay)
            return real(*args, **kwargs)

        return panel

    monkeypatch.setattr(module, "compose_panel", slow(0.03))
    composer = Composer(client, text="Hi", sender="MyShop")
    assert composer.debounce_s(since_last_key=0.2) == 0
    assert 0.06 <= composer.debounce_s(since_last_key=0.01) < module.DEBOUNCE_S
    monkeypatch.setattr(module, "compose_panel", slow(0.1))
    composer.refresh()
    assert composer.debounce_s(since_last_key=0.05) == module.DEBOUNCE_S
    assert composer.debounce_s(since_last_key=1.0) == 0
    given = Composer(client, text="Hi", sender="MyShop", debounce=0.3)
    assert given.debounce_s(since_last_key=1.0) == 0.3
