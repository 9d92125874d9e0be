"""Delivery reports and STOPs end to end over real HTTP: client send -> sandbox -> Inbox."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pandas as pd
import pytest

import smskit
from smskit.replies.inbox import Inbox
from smskit.sandbox import DeliveryModel, HLRDistribution, Sandbox

MARKETING = "Soldes -20% ce week-end ! STOP au 36173"
# Every line status shows up among a few hundred numbers.
SPREAD = HLRDistribution(
    line_status={"live": 0.4, "dead": 0.12, "absent_subscriber": 0.16,
                 "no_teleservice_provisioned": 0.08, "not_available_network_only": 0.08,
                 "no_coverage": 0.08, "inconclusive": 0.08}
)  # fmt: skip
MOBILES = [f"+3367200{n:04d}" for n in range(240)]
DRAMA = "+447700900123"  # allocated to no network: the HLR says stage_and_screen, dead
LANDLINE = "+33140000000"
BLACKLISTED = MOBILES[0]
# The documented outcome of each HLR line status (docs/sandbox.md), written out here.
EXPECTED = {
    "live": {"DELIVERED"},
    "dead": {"NOT_DELIVERED"},
    "absent_subscriber": {"DELIVERED", "UNKNOWN_DELIVERY"},
    "no_teleservice_provisioned": {"NOT_ALLOWED"},
    "no_coverage": {"NOT_DELIVERED"},
    "not_available_network_only": {"UNKNOWN_DELIVERY"},
    "inconclusive": {"UNDEFINED"},
}


@dataclass
class Sent:
    """One send's world after every callback was delivered."""

    sandbox: Sandbox
    inbox: Inbox
    client: smskit.Client
    ticket: str
    numbers: list[str]


@pytest.fixture(scope="module")
def sent() -> Iterator[Sent]:
    """A marketing send to 242 numbers on a fast, seeded model with many late and
    duplicated reports and STOPs, every kind registered to one Inbox, all delivered."""
    model = DeliveryModel.fast(seed=7, late_share=0.3, duplicate_share=0.3, stop_share=0.2)
    with (
        Inbox() as inbox,
        Sandbox(seed=3, hlr_distribution=SPREAD, delivery_model=model) as sb,
        smskit.Client(sandbox=sb) as client,
    ):
        sb.set_callback_url(inbox.url)
        sb.add_to_blacklist([BLACKLISTED])
        numbers = [*MOBILES, DRAMA, LANDLINE]
        result = client.sms_campaign.send(text=MARKETING, recipients=numbers, sender="Boutique")
        assert result.sms_ticket is not None and result.number_of_contacts == len(numbers)
        sb.wait_for_deliveries(timeout=60)
        yield Sent(sb, inbox, client, result.sms_ticket, numbers)


def test_every_recipient_has_exactly_one_final_status(sent: Sent) -> None:
    """After late, twice-delivered and out-of-order reports, one final row per recipient,
    the status the sandbox decided for it."""
    status = sent.inbox.delivery_status()
    assert sorted(status["number"]) == sorted(sent.numbers)
    assert status["message_id"].is_unique and status["final"].all()
    scripted = sent.sandbox.reports()
    finals = scripted[(scripted["kind"] == "delivery_report") & (scripted["status"] != "ACK")]
    decided = finals.drop_duplicates("message_id").set_index("number")["status"]
    assert (
        status.set_index("number")["status"].astype(str).sort_index().equals(decided.sort_index())
    )
    assert (status["message_id"] == sent.ticket + "-" + status["number"].str[1:]).all()


def test_reports_really_came_late_twice_and_out_of_order(sent: Sent) -> None:
    """The inbox saw ACKs after their final report and final reports twice (ignored)."""
    reports = sent.inbox.delivery_reports()
    pairs = zip(reports["message_id"], reports["status_raw"], strict=True)
    order = {(m, s): i for i, (m, s) in enumerate(pairs)}
    acks_after_final = sum(
        order[(m, "ACK")] > i for (m, s), i in order.items() if s != "ACK" and (m, "ACK") in order
    )
    assert acks_after_final >= 30  # 0.3 of ~220 acknowledged messages
    stats = sent.inbox.stats()
    assert stats["report_duplicates"] >= 30
    assert stats["delivery_reports"] == len(reports) and not reports["flagged"].any()
    assert sent.inbox.rejects().empty


def test_statuses_agree_with_the_hlr_answers(sent: Sent) -> None:
    """Each final status is the one the number's HLR answer calls for; absent lines late."""
    status = sent.inbox.delivery_status("UTC").set_index("number")
    answers = [sent.client.contact.hlr_request(part).to_frame() for part in
               (sent.numbers[:200], sent.numbers[200:])]  # fmt: skip
    hlr = pd.concat(answers).set_index("phone_number")
    for number, row in hlr.iterrows():
        got = status.loc[number, "status"]
        if number == BLACKLISTED:
            assert got == "BLACKLISTED_NUMBER"
        elif row["phone_number_type"] == "stage_and_screen":
            assert got == "BAD_DESTINATION"
        else:
            assert got in EXPECTED[str(row["line_status"])], (number, row["line_status"], got)
    seen = set(hlr["line_status"].astype(str))
    assert seen >= set(EXPECTED)  # every line status was exercised
    sent_at = sent.sandbox.sent().set_index("phone_number")["sent_at"]
    absent = hlr.index[(hlr["line_status"] == "absent_subscriber") & (hlr.index != BLACKLISTED)]
    delays = status.loc[absent, "delivery_date"] - sent_at.loc[absent]
    assert (delays >= pd.Timedelta(minutes=30)).all()


def test_stops_come_from_delivered_marketing_recipients(sent: Sent) -> None:
    """STOPs: about stop_share of the delivered, once each, listed by opt_outs() and
    blacklisted by the sandbox."""
    stops = sent.inbox.stops()
    status = sent.inbox.delivery_status().set_index("number")["status"]
    delivered = int((status == "DELIVERED").sum())
    assert 0.1 * delivered <= len(stops) <= 0.3 * delivered
    assert (status.loc[stops["number"]] == "DELIVERED").all()
    assert set(stops["text"]) == {"STOP"} and stops["number"].is_unique
    assert set(sent.inbox.opt_outs()) == set(stops["number"])
    assert set(stops["number"]) <= set(sent.sandbox.blacklist())
    assert (stops["message_id"] == sent.ticket + "-" + stops["number"].str[1:]).all()


def test_frames_hold_every_vendor_status_as_categories(sent: Sent) -> None:
    """status is a categorical of the eight vendor statuses in the vendor's order."""
    vendor = ["ACK", "DELIVERED", "NOT_DELIVERED", "NOT_ALLOWED", "UNKNOWN_DELIVERY",
              "BAD_DESTINATION", "BLACKLISTED_NUMBER", "UNDEFINED"]  # fmt: skip
    for frame in (sent.inbox.delivery_reports(), sent.inbox.delivery_status()):
        assert list(frame["status"].cat.categories) == vendor
    prices = sent.inbox.delivery_reports()["unit_price"]
    assert prices.gt(0).all()


def test_garbled_reports_are_kept_and_flagged_withheld_never_come() -> None:
    """Callback faults: each garbled report is stored with the flag naming what broke, no
    withheld one arrives, nothing is rejected."""
    model = DeliveryModel.fast(seed=1, duplicate_share=0.0, stop_share=0.3)
    with Inbox() as inbox, Sandbox(seed=5, delivery_model=model) as sb:
        sb.set_callback_url(inbox.url)
        sb.inject_callback_faults(withhold_rate=0.1, garble_rate=0.3, seed=2)
        numbers = [f"+3367300{n:04d}" for n in range(150)]
        with smskit.Client(sandbox=sb) as client:
            client.sms_campaign.send(text=MARKETING, recipients=numbers, sender="Boutique")
        sb.wait_for_deliveries(timeout=60)
        scripted = sb.reports()
        received = pd.concat(
            [inbox.delivery_reports().assign(kind="delivery_report"),
             inbox.stops().assign(kind="stop")],
            ignore_index=True,
        )  # fmt: skip
        assert inbox.rejects().empty
    faults = scripted["fault"].fillna("none")
    assert (faults == "withheld").sum() > 5 and faults.str.startswith("garbled:").sum() > 20
    assert len(received) == (faults != "withheld").sum()  # every one posted is stored
    for fault, flag, kind in [
        ("garbled:unknown_status", "unknown_status", "delivery_report"),
        ("garbled:missing_status", "missing:status", "delivery_report"),
        ("garbled:missing_number", "missing:number", "delivery_report"),
        ("garbled:missing_number", "missing:number", "stop"),
        ("garbled:bad_date", "unreadable:delivery_date", "delivery_report"),
        ("garbled:bad_date", "unreadable:stop_date", "stop"),
    ]:
        expected = ((faults == fault) & (scripted["kind"] == kind)).sum()
        got = ((received["flags"] == flag) & (received["kind"] == kind)).sum()
        assert got == expected, (fault, kind)
    assert (received["flags"] != "").sum() == faults.str.startswith("garbled:").sum()
    unknown = received[received["flags"] == "unknown_status"]
    assert unknown["status"].isna().all() and unknown["status_raw"].notna().all()
    bad = received[received["flags"] == "unreadable:delivery_date"]
    assert bad["delivery_date"].isna().all() and bad["delivery_date_raw"].str.contains("/").all()
