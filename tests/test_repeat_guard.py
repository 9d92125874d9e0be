"""The repeat guard is the campaign's (``repeat_window=``): the same send made within the
window as a new campaign is refused before any request, ``send(again=True)`` sends it, a
journal continued is never a repeat, and the CLI and the Composer ask the same guard."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import smskit
from smskit.campaigns.sending.repeats import earlier_send, record_send
from smskit.sandbox import Sandbox

TEXT = "Alerte: maintenance ce soir. STOP au 36173"
NUMBERS = ["+33612345678", "+33612345679"]
NOW = datetime(2026, 3, 3, 10, 0, tzinfo=UTC)


def campaign(client: smskit.Client, at: datetime, **settings: object) -> smskit.Campaign:
    return smskit.Campaign(client, NUMBERS, text=TEXT, sender="Ops", purpose="alert",
                           clock=lambda: at, repeat_window=timedelta(minutes=10),
                           **settings)  # fmt: skip


def test_the_same_send_within_the_window_is_refused_before_any_request(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A second unnamed campaign of the same content 5 minutes later raises RepeatedSend
    naming the first and sends nothing; again=True sends it; 11 minutes later it is sent."""
    with smskit.Client(sandbox=fresh_sandbox) as client:
        first = campaign(client, NOW).send(progress=False, journal=tmp_path / "a.sqlite")
        assert first.complete and len(fresh_sandbox.sent()) == 2
        later = campaign(client, NOW + timedelta(minutes=5))
        earlier = later.earlier_send()
        assert earlier is not None and earlier.name == first.name and earlier.complete
        with pytest.raises(smskit.RepeatedSend, match=first.name) as refused:
            later.send(progress=False, journal=tmp_path / "b.sqlite")
        assert refused.value.journal == str(first.journal)
        assert len(fresh_sandbox.sent()) == 2  # nothing left
        later.send(progress=False, journal=tmp_path / "b.sqlite", again=True)
        assert len(fresh_sandbox.sent()) == 4
        after = campaign(client, NOW + timedelta(minutes=11))
        repeated = after.earlier_send()  # the send made again at 10:05
        assert repeated is not None and repeated.at == NOW + timedelta(minutes=5)
        other = campaign(client, NOW + timedelta(minutes=30))
        assert other.earlier_send() is None
        other.send(progress=False, journal=tmp_path / "c.sqlite")
        assert len(fresh_sandbox.sent()) == 6


def test_other_content_and_no_window_are_not_repeats(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Another recipient list is another send; without repeat_window nothing is checked."""
    with smskit.Client(sandbox=fresh_sandbox) as client:
        campaign(client, NOW).send(progress=False, journal=tmp_path / "a.sqlite")
        fewer = smskit.Campaign(client, NUMBERS[:1], text=TEXT, sender="Ops", purpose="alert",
                                clock=lambda: NOW, repeat_window=timedelta(minutes=10))  # fmt: skip
        assert fewer.earlier_send() is None
        later = NOW + timedelta(minutes=1)  # created later: another campaign id
        plain = smskit.Campaign(client, NUMBERS, text=TEXT, sender="Ops", purpose="alert",
                                clock=lambda: later)  # fmt: skip
        assert plain.earlier_send() is None
        plain.send(progress=False, journal=tmp_path / "b.sqlite")
        assert len(fresh_sandbox.sent()) == 4


def test_a_named_campaign_continued_is_not_a_repeat(fresh_sandbox: Sandbox, tmp_path: Path) -> None:
    """Sending a named campaign's journal again continues it (the journal sends nothing
    twice): no RepeatedSend, and nothing is sent a second time."""
    with smskit.Client(sandbox=fresh_sandbox) as client:
        path = tmp_path / "named.sqlite"
        campaign(client, NOW, name="nightly").send(progress=False, journal=path)
        again = campaign(client, NOW + timedelta(minutes=1), name="nightly")
        result = again.send(progress=False, journal=path)
        assert result.complete and len(fresh_sandbox.sent()) == 2


def test_the_window_is_checked_when_the_campaign_is_made() -> None:
    """repeat_window is a positive duration (a timedelta, or a text the rule book reads as
    one, as an orders' window) or None, refused otherwise naming the field."""
    for wrong in (timedelta(0), 600, "10 parsecs", "-5min", True, "10"):  # "10": 10 ns to pandas
        with pytest.raises(smskit.ValidationError, match="repeat_window"):
            smskit.Campaign(None, NUMBERS, text=TEXT, sender="Ops", repeat_window=wrong)
    for given in ("10min", timedelta(minutes=10)):
        made = smskit.Campaign(None, NUMBERS, text=TEXT, sender="Ops", repeat_window=given)
        assert made.spec.repeat_window == timedelta(minutes=10)


def test_a_marketing_campaign_outside_the_hours_is_scheduled_at_the_next_permitted_moment(
    fresh_sandbox: Sandbox,
) -> None:
    """Saturday 21:00 in Paris: marketing is refused now; schedule_at_next_permitted() sets
    send_at to Monday 08:00 Paris and the preflight then refuses nothing. Inside the hours
    nothing changes (None). The CLI's --at-next-permitted calls this."""
    from zoneinfo import ZoneInfo

    paris = ZoneInfo("Europe/Paris")
    saturday = datetime(2026, 3, 7, 21, 0, tzinfo=paris)
    with smskit.Client(sandbox=fresh_sandbox) as client:
        promo = smskit.Campaign(client, NUMBERS, text="Promo -20% STOP au 36173",
                                sender="Shop", clock=lambda: saturday)  # fmt: skip
        assert promo.preflight().hours_refusals()
        when = promo.schedule_at_next_permitted()
        assert when == datetime(2026, 3, 9, 8, 0, tzinfo=paris)
        assert promo.spec.options["send_at"] is not None
        assert promo.preflight().hours_refusals() == [] and promo.next_permitted() is None
        tuesday = datetime(2026, 3, 10, 11, 0, tzinfo=paris)
        open_now = smskit.Campaign(client, NUMBERS, text="Promo -20% STOP au 36173",
                                   sender="Shop", clock=lambda: tuesday)  # fmt: skip
        assert open_now.schedule_at_next_permitted() is None
        assert "send_at" not in open_now.spec.options


def test_sends_recorded_by_many_threads_at_once_are_each_kept() -> None:
    """Eight threads recording sends at once (one Client shared by a thread pool, or cron
    jobs at the same minute): no raw error after the sends were made, and every record is
    kept, so each send's repeat is refused (one writer at a time: none lost to another's
    rewrite of the log)."""
    keys = [f"send-{i}" for i in range(96)]

    def record(key: str) -> None:
        record_send(key, NOW, key, Path(f"{key}.journal.sqlite"), True)

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(record, keys))
    later = NOW + timedelta(minutes=1)
    assert [key for key in keys if earlier_send(key, later) is None] == []


def test_a_send_recorded_after_now_is_a_repeat_not_an_old_send() -> None:
    """A record dated after "now" (the clock set back, an earlier SMSKIT_NOW) was skipped as
    if it were older than the window, so the same send went out again; it is the latest
    earlier send, a minute or a day ahead, and one older than the window is still none."""
    record_send("alert", NOW, "alert-1", Path("alert.journal.sqlite"), True)
    for back in (timedelta(seconds=1), timedelta(minutes=3), timedelta(hours=23)):
        earlier = earlier_send("alert", NOW - back)
        assert earlier is not None and earlier.at == NOW and earlier.name == "alert-1"
    assert earlier_send("alert", NOW + timedelta(minutes=10)) is None
    assert earlier_send("other", NOW - timedelta(minutes=3)) is None


def test_the_same_send_with_the_clock_set_back_is_refused_naming_the_recorded_time(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A campaign whose clock is 3 minutes before the recorded send of the same content
    raises RepeatedSend saying the record is after now and naming both times; nothing is
    sent; again=True sends it."""
    with smskit.Client(sandbox=fresh_sandbox) as client:
        campaign(client, NOW).send(progress=False, journal=tmp_path / "a.sqlite")
        assert len(fresh_sandbox.sent()) == 2
        back = NOW - timedelta(minutes=3)
        earlier = campaign(client, back)
        with pytest.raises(smskit.RepeatedSend) as refused:
            earlier.send(progress=False, journal=tmp_path / "b.sqlite")
        message = str(refused.value)
        assert refused.value.at == NOW and refused.value.now == back
        assert "after now" in message and "set back" in message
        assert NOW.isoformat(timespec="seconds") in message
        assert back.isoformat(timespec="seconds") in message
        assert len(fresh_sandbox.sent()) == 2
        earlier.send(progress=False, journal=tmp_path / "b.sqlite", again=True)
        assert len(fresh_sandbox.sent()) == 4


def test_the_same_tracked_send_is_a_repeat_and_another_destination_is_not(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A text with a tracked link, sent again 5 minutes later (an unnamed campaign: a new
    name, so new short links and a new utm_campaign) is the same send, refused before any
    request; the same text pointing elsewhere, or a destination filled from another value
    of a recipient's field, is another send."""
    from smskit.replies import Inbox

    text = "Votre colis: https://track.example/c?id={param1} STOP au 36173"
    people = [{"phone_number": n, "param1": str(i)} for i, n in enumerate(NUMBERS)]
    with Inbox(tmp_path / "inbox.sqlite") as inbox, smskit.Client(sandbox=fresh_sandbox) as client:

        def tracked(at: datetime, body: str = text, rows: object = people) -> smskit.Campaign:
            return smskit.Campaign(client, rows, text=body, sender="Ops", purpose="alert",
                                   clock=lambda: at, repeat_window=timedelta(minutes=10),
                                   track_links=inbox)  # fmt: skip

        first = tracked(NOW).send(progress=False, journal=tmp_path / "a.sqlite")
        assert len(fresh_sandbox.sent()) == 2
        later = tracked(NOW + timedelta(minutes=5))
        assert later.name != first.name
        with pytest.raises(smskit.RepeatedSend, match=first.name):
            later.send(progress=False, journal=tmp_path / "b.sqlite")
        assert len(fresh_sandbox.sent()) == 2
        elsewhere = tracked(NOW + timedelta(minutes=5), text.replace("track.", "suivi."))
        assert elsewhere.earlier_send() is None
        moved = [{**person, "param1": "9"} for person in people]
        assert tracked(NOW + timedelta(minutes=5), rows=moved).earlier_send() is None


DAMAGED = [
    (b'{"at": "2026-03-03T10:00:00+00:00", "fingerprint": "x", "na', "not a JSON line"),
    (b'["2026-03-03T10:00:00+00:00"]', "a record is a JSON object (got list)"),
    (b'{"at": "2026-03-03T10:00:00", "fingerprint": "x", "name": "n", "journal": "j"}',
     "'at' is an ISO 8601 time with its UTC offset (got '2026-03-03T10:00:00')"),
    (b'{"at": 1772532000, "fingerprint": "x", "name": "n", "journal": "j"}',
     "'at' is an ISO 8601 time with its UTC offset (got 1772532000)"),
    (b'{"at": "2026-03-03T10:00:00+00:00", "name": "n", "journal": "j"}',
     "'fingerprint' is a string (got None)"),
    (b'{"at": "2026-03-03T10:00:00+00:00", "fingerprint": "x", "name": "n", "journal": "j", '
     b'"complete": "yes"}', "'complete' is true or false (got 'yes')"),
    (b'\xff{"at": "2026-03-03T10:00:00+00:00"}', "not a JSON line"),
]  # fmt: skip


@pytest.mark.parametrize(("line", "rule"), DAMAGED)
def test_a_damaged_line_of_the_log_of_sends_is_refused_naming_file_line_and_rule(
    fresh_sandbox: Sandbox, tmp_path: Path, user_dirs: Path, line: bytes, rule: str
) -> None:
    """A line of cli-sends.jsonl that cannot be read was skipped, so the send it recorded was
    forgotten and the same send went out again; now the next campaign under the guard, and
    its earlier_send(), raise ConfigurationError naming the file, the line and the rule, and
    nothing is sent, again=True included (it would fail after sending, when recording)."""
    with smskit.Client(sandbox=fresh_sandbox) as client:
        campaign(client, NOW).send(progress=False, journal=tmp_path / "a.sqlite")
        log = user_dirs / "data" / "smskit" / "cli-sends.jsonl"
        log.write_bytes(line + b"\n" + log.read_bytes())
        later = campaign(client, NOW + timedelta(minutes=5))
        where = f"{log}:1: a record of the repeat guard's log of recent sends cannot be read: "
        advice = (
            "nothing sent: fix or remove that line (removed, the send it records is forgotten "
            "and could be made again)"
        )
        with pytest.raises(smskit.ConfigurationError) as refused:
            later.earlier_send()
        message = str(refused.value)
        assert message.startswith(where + rule) and message.endswith("; " + advice), message
        for again in (False, True):
            with pytest.raises(smskit.ConfigurationError) as refused:
                later.send(progress=False, journal=tmp_path / "b.sqlite", again=again)
            assert str(refused.value) == message
        assert len(fresh_sandbox.sent()) == 2
        assert not (tmp_path / "b.sqlite").exists()


def test_blank_lines_of_the_log_of_sends_hold_no_record_and_are_passed(user_dirs: Path) -> None:
    """An empty line records no send: the records around it are read."""
    record_send("alert", NOW, "alert-1", Path("alert.journal.sqlite"), True)
    log = user_dirs / "data" / "smskit" / "cli-sends.jsonl"
    log.write_text("\n" + log.read_text() + "\n  \n", encoding="utf-8")
    earlier = earlier_send("alert", NOW + timedelta(minutes=1))
    assert earlier is not None and earlier.name == "alert-1"
