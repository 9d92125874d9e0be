"""The examples of issue #14, each through every entry point: the same value, the same verdict."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

import pandas as pd
import pytest

import smskit
from smskit.campaigns import create_contacts
from smskit.rules.findings import Finding
from smskit.sandbox import Sandbox

MONDAY_10H = datetime(2026, 3, 2, 10, 0, tzinfo=ZoneInfo("Europe/Paris"))

STOP = "Promo {first_name} STOP au 36173"
DATA = Path(__file__).parent.parent / "notebooks" / "data" / "contacts.csv"


def sent_numbers(sandbox: Sandbox) -> list[str]:
    """Numbers the sandbox accepted, oldest first."""
    sent = sandbox.sent()
    return [] if sent.empty else sent["phone_number"].tolist()


def test_a_string_is_one_recipient_everywhere(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """ "+33612345678" is one recipient to send, Campaign, render_all and create_contacts."""
    number = "+33612345678"
    client.sms_campaign.send(text="Promo STOP au 36173", recipients=number, sender="Shop")
    assert sent_numbers(fresh_sandbox) == [number]
    campaign = smskit.Campaign(client, number, text=STOP, sender="Shop")
    assert campaign.preflight().to_frame()["phone_number"].tolist() == [number]
    assert smskit.text.render_all("Hi", number).tolist() == ["Hi"]
    contacts = create_contacts(client, number, progress=False)
    assert contacts["phone_number"].tolist() == [number]


def test_a_path_names_a_file_and_a_string_never_does(client: smskit.Client, tmp_path: Path) -> None:
    """A CSV is read only when named as a Path (or from_csv); its path as a str is never read
    as a file: it is refused, saying to pass a Path (not read as one wrong number)."""
    csv = tmp_path / "customers.csv"
    pd.DataFrame({"phone_number": ["+33612345678", "+33698765432"]}).to_csv(csv, index=False)
    from_path = smskit.Campaign(client, csv, text=STOP, sender="Shop").preflight(offline=True)
    assert from_path.to_send == 2
    reader = smskit.rules.recipients.Recipients.from_csv(csv)
    assert smskit.Campaign(client, reader, text=STOP, sender="Shop").preflight().to_send == 2
    with pytest.raises(smskit.ValidationError, match=r"pathlib\.Path"):
        smskit.Campaign(client, str(csv), text=STOP, sender="Shop")
    with pytest.raises(smskit.ValidationError, match=r"pathlib\.Path"):
        client.sms_campaign.send(text="Promo STOP au 36173", recipients=str(csv), sender="Shop")


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (612345678, "+33612345678"),
        ("06 12 34 56 78", "+33612345678"),
        (33612345678, "+33612345678"),
    ],
)
def test_integers_and_national_numbers_get_the_same_verdict_in_send_and_campaign(
    client: smskit.Client, fresh_sandbox: Sandbox, given: object, expected: str
) -> None:
    """An integer or a national number is read the same way by send and by Campaign."""
    client.sms_campaign.send(text="Promo STOP au 36173", recipients=[given], sender="Shop")
    report = smskit.Campaign(client, [given], text=STOP, sender="Shop").preflight()
    assert sent_numbers(fresh_sandbox) == [expected]
    assert report.to_frame()["phone_number"].tolist() == [expected]
    assert report.to_send == 1


def test_an_invalid_number_is_refused_by_send_and_excluded_by_campaign(
    client: smskit.Client, fresh_sandbox: Sandbox
) -> None:
    """ "06 12" is too short for both: send raises naming the row, Campaign excludes it."""
    with pytest.raises(smskit.ValidationError, match=r"recipients\[1\]\.phone_number.*too_short"):
        client.sms_campaign.send(
            text="Promo STOP au 36173", recipients=["+33612345678", "06 12"], sender="Shop"
        )
    assert sent_numbers(fresh_sandbox) == []
    report = smskit.Campaign(client, ["+33612345678", "06 12"], text=STOP, sender="Shop")
    assert report.preflight().to_frame()["issue"].astype(str).tolist()[1] == "invalid_number"


def test_render_all_takes_a_single_dict_like_send(
    client: smskit.Client, fresh_sandbox: Sandbox
) -> None:
    """One dict is one recipient to render_all, send and Campaign, rendered alike."""
    recipient = {"phone_number": "+33612345678", "first_name": "Ada"}
    assert smskit.text.render_all(STOP, recipient).tolist() == ["Promo Ada STOP au 36173"]
    client.sms_campaign.send(text=STOP, recipients=recipient, sender="Shop")
    assert fresh_sandbox.sent()["text"].tolist() == ["Promo Ada STOP au 36173"]
    report = smskit.Campaign(client, recipient, text=STOP, sender="Shop").preflight()
    assert report.to_frame()["text"].astype(str).tolist() == ["Promo Ada STOP au 36173"]


def test_the_country_column_reads_national_numbers_in_every_path(
    client: smskit.Client, fresh_sandbox: Sandbox
) -> None:
    """A GB national number with country GB is +44... in send, Campaign and create_contacts;
    without the column it is read in France and refused."""
    row = {"phone_number": "07400 123456", "country": "GB"}
    client.sms_campaign.send(text="Promo STOP au 36173", recipients=[row], sender="Shop")
    assert sent_numbers(fresh_sandbox) == ["+447400123456"]
    report = smskit.Campaign(client, pd.DataFrame([row]), text=STOP, sender="Shop").preflight()
    assert report.to_frame()["phone_number"].tolist() == ["+447400123456"]
    assert create_contacts(client, [row], progress=False)["phone_number"].tolist() == [
        "+447400123456"
    ]
    with pytest.raises(smskit.ValidationError, match="phone_number"):
        client.sms_campaign.send(
            text="Promo STOP au 36173", recipients=["07400 123456"], sender="Shop"
        )


def test_the_shipped_contacts_file_uses_its_country_column(client: smskit.Client) -> None:
    """notebooks/data/contacts.csv: every row whose national number is valid in its country
    is read there; none of the GB rows is too_long under the default FR region."""
    report = smskit.Campaign(client, DATA, text="Bonjour STOP au 36173", sender="Shop")
    frame = report.preflight(offline=True).to_frame()
    given = pd.read_csv(DATA, dtype=str, keep_default_na=False)
    gb = (given["country"] == "GB").to_numpy()
    assert gb.any()
    assert (frame.loc[gb, "region"].astype(str) == "GB").mean() > 0.9
    assert not (frame.loc[gb, "detail"].astype(str) == "too_long").any()


def test_preflight_predicts_the_send_of_the_shipped_contacts_file(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Preflight's to_send of contacts.csv equals what the gateway accepts: an unserved
    destination (JE ...) is excluded beforehand, so the send rejects nobody."""
    fresh_sandbox.set_balance(100_000.0)
    campaign = smskit.Campaign(client, DATA, text="Bonjour STOP au 36173", sender="Shop")
    report = campaign.preflight()
    result = campaign.send(progress=False, journal=tmp_path / "j.sqlite")
    summary = result.summary().iloc[0]
    assert summary["rejected"] == 0
    assert summary["sent"] == report.to_send == len(fresh_sandbox.sent())
    assert report.to_frame()["cost"].sum() == pytest.approx(summary["cost"])


def test_a_field_that_is_not_a_scalar_is_refused_never_sent_as_its_repr(
    client: smskit.Client, fresh_sandbox: Sandbox
) -> None:
    """A list in first_name is refused by send and render_all (naming field and row) and
    excluded by Campaign; numbers, decimals and dates are texts."""
    rows = [
        {"phone_number": "+33612345678", "first_name": Decimal("1.50")},
        {"phone_number": "+33698765432", "first_name": ["a", "b"]},
    ]
    with pytest.raises(smskit.ValidationError) as caught:
        client.sms_campaign.send(text=STOP, recipients=rows, sender="Shop")
    assert (caught.value.field, caught.value.position) == ("recipients.first_name", 1)
    with pytest.raises(smskit.ValidationError) as rendered:
        smskit.text.render_all(STOP, rows)
    assert (rendered.value.field, rendered.value.position) == ("recipients.first_name", 1)
    report = smskit.Campaign(client, rows, text=STOP, sender="Shop").preflight()
    frame = report.to_frame()
    assert frame["send"].tolist() == [True, False]
    assert frame["issue"].tolist()[1] == "field_not_scalar"
    assert frame["text"].astype(str).tolist()[0] == "Promo 1.50 STOP au 36173"
    assert sent_numbers(fresh_sandbox) == []


def test_findings_are_codes_and_messages_are_rendered_from_them(client: smskit.Client) -> None:
    """A missing field is a finding with a code and a count; its message comes from the code."""
    rows = [{"phone_number": "+33612345678", "first_name": "Ada"}, "+33698765432"]
    # Inside marketing hours, so the missing field is the row's only warning.
    report = smskit.Campaign(client, rows, text=STOP, sender="Shop").preflight(now=MONDAY_10H)
    codes = {finding.code: finding for finding in report.findings}
    assert codes["fields_missing"].detail == "1"
    assert codes["fields_missing"].message() in report.warnings
    assert Finding("field_missing", "first_name").message() == "missing {first_name}"
    # Other warnings of the row (marketing hours, by the clock) are joined with "; ".
    warnings = report.to_frame()["warning"].astype(str).tolist()[1].split("; ")
    assert "missing {first_name}" in warnings


class Recorder:
    """Progress events as data, recorded in order."""

    def __init__(self) -> None:
        self.events: list[tuple[str, object]] = []

    def start(self, total: int, initial: int, unit: str) -> None:
        self.events.append(("start", (total, initial, unit)))

    def advance(self, count: int, **postfix: object) -> None:
        self.events.append(("advance", count))

    def finish(self) -> None:
        self.events.append(("finish", None))


def test_progress_is_reported_as_events_to_any_view(client: smskit.Client, tmp_path: Path) -> None:
    """A ProgressEvents object gets start, one advance per chunk summing to the total, finish."""
    recorder = Recorder()
    numbers = [f"+3361{i:07d}" for i in range(25)]
    campaign = smskit.Campaign(client, numbers, text=STOP, sender="Shop")
    campaign.send(progress=recorder, chunk_size=10, concurrency=1, journal=tmp_path / "j.sqlite")
    assert recorder.events[0] == ("start", (25, 0, "recipient"))
    assert recorder.events[-1] == ("finish", None)
    advances = [count for name, count in recorder.events if name == "advance"]
    assert sorted(advances) == [5, 10, 10]


def test_every_finding_code_has_one_message_and_one_kind() -> None:
    """MESSAGES renders exactly the codes of ISSUES, WARNINGS and BLOCKING (the three kinds a
    Finding's code is one of), and no code is of two kinds: a code without a message would
    fail at Finding.message(), a message without a kind is a finding nothing says."""
    from smskit.rules.findings import BLOCKING, ISSUES, MESSAGES, WARNINGS

    kinds = [*ISSUES, *WARNINGS, *BLOCKING]
    assert len(kinds) == len(set(kinds))
    assert set(ISSUES).isdisjoint(WARNINGS)
    assert set(ISSUES).isdisjoint(BLOCKING)
    assert set(WARNINGS).isdisjoint(BLOCKING)
    assert sorted(MESSAGES) == sorted(kinds)
