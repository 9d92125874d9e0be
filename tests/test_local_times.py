"""Times a person reads are in the account's time zone: Europe/Paris unless configured."""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlsplit

import pandas as pd
import pytest

from smskit import Inbox
from smskit.errors import ValidationError
from smskit.rules.timezone import DEFAULT_TIME_ZONE, ENV_TIME_ZONE, account_time_zone


def test_default_zone_is_paris_and_the_environment_can_change_it() -> None:
    """No argument and no variable: Europe/Paris; the variable wins over it; the argument wins."""
    assert DEFAULT_TIME_ZONE == "Europe/Paris"
    assert account_time_zone(environ={}) == "Europe/Paris"
    assert account_time_zone(environ={ENV_TIME_ZONE: "America/Montreal"}) == "America/Montreal"
    assert account_time_zone("UTC", environ={ENV_TIME_ZONE: "America/Montreal"}) == "UTC"


@pytest.mark.parametrize(
    ("time_zone", "environ", "field"),
    [
        ("Mars/Olympus", {}, "time_zone"),
        ("", {}, "time_zone"),
        (None, {ENV_TIME_ZONE: "Paris"}, ENV_TIME_ZONE),
        (None, {ENV_TIME_ZONE: "../etc/passwd"}, ENV_TIME_ZONE),
    ],
)
def test_unknown_zone_is_refused_naming_where_it_came_from(
    time_zone: str | None, environ: dict[str, str], field: str
) -> None:
    """A zone that is not IANA: ValidationError naming the argument or the variable."""
    with pytest.raises(ValidationError) as info:
        account_time_zone(time_zone, environ=environ)
    assert info.value.field == field


def _post(inbox: Inbox, body: dict[str, object]) -> int:
    url = urlsplit(inbox.url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    try:
        conn.request("POST", url.path, json.dumps(body), {"Content-Type": "application/json"})
        return conn.getresponse().status
    finally:
        conn.close()


def test_inbox_frame_shows_paris_time_by_default_and_the_zone_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A reply at 23:30 UTC on 1 March reads 00:30 on 2 March in Paris, 18:30 in Montreal."""
    monkeypatch.delenv(ENV_TIME_ZONE, raising=False)
    with Inbox() as inbox:
        body = {"message_id": "m1", "number": "+33612345678", "text": "OUI",
                "sim_card_number": "38100", "reception_date": "2025-03-01T23:30:00Z"}  # fmt: skip
        assert _post(inbox, body) == 200
        inbox.wait(1)
        paris = inbox.to_frame()
        montreal = inbox.to_frame(time_zone="America/Montreal")
        monkeypatch.setenv(ENV_TIME_ZONE, "Asia/Tokyo")
        tokyo = inbox.to_frame()
        with pytest.raises(ValidationError) as info:
            inbox.to_frame(time_zone="Paris")
    assert info.value.field == "time_zone"
    assert str(paris["reception_date"].dt.tz) == "Europe/Paris"
    assert str(paris.loc[0, "reception_date"]) == "2025-03-02 00:30:00+01:00"
    assert str(montreal.loc[0, "reception_date"]) == "2025-03-01 18:30:00-05:00"
    assert str(tokyo.loc[0, "reception_date"]) == "2025-03-02 08:30:00+09:00"
    # the same instant whatever the zone shown
    assert paris.loc[0, "reception_date"] == pd.Timestamp("2025-03-01T23:30:00Z")


def test_replies_in_paris_time_link_to_sends_in_utc() -> None:
    """Linking compares instants: a Paris-time frame links like its UTC twin (no merge error)."""
    from smskit import replies

    utc = pd.DataFrame(
        {
            "number": ["+33612345678", "+33612345679", "+33612345678"],
            "text": ["OUI", "STOP", "merci"],
            "reception_date": pd.to_datetime(
                ["2025-03-01T10:30:00Z", "2025-03-01T11:30:00Z", "2025-03-02T09:00:00Z"]
            ),
        }
    )
    sends = pd.DataFrame(
        {
            "ticket": ["t1", "t1", "t2"],
            "phone_number": ["+33612345678", "+33612345679", "+33612345678"],
            "sent_at": ["2025-03-01T10:00:00Z", "2025-03-01T10:00:00Z", "2025-03-02T08:30:00Z"],
        }
    )
    paris = utc.assign(reception_date=utc["reception_date"].dt.tz_convert("Europe/Paris"))
    linked = replies.link_replies(paris, sends)
    assert linked["ticket"].tolist() == ["t1", "t1", "t2"]
    assert linked["ticket"].tolist() == replies.link_replies(utc, sends)["ticket"].tolist()
