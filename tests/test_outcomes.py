"""CampaignResult.outcomes(): the journal joined to the callbacks' store, on the sandbox over
real HTTP (a campaign send, delivery reports late, twice, withheld and garbled, STOPs,
replies, bulk HLR answers)."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
from _gateway import callback_gateway

import smskit
from smskit._paths import replies_path
from smskit.campaigns.analysis.results import CampaignResult
from smskit.errors import ConfigurationError, ValidationError
from smskit.replies.inbox import Inbox
from smskit.sandbox import DeliveryModel, HLRDistribution, Sandbox

TEXT = "Soldes -20% ce week-end ! STOP au 36173"
VENDOR = ["ACK", "DELIVERED", "NOT_DELIVERED", "NOT_ALLOWED", "UNKNOWN_DELIVERY",
          "BAD_DESTINATION", "BLACKLISTED_NUMBER", "UNDEFINED"]  # fmt: skip
SPREAD = HLRDistribution(
    line_status={"live": 0.5, "dead": 0.1, "absent_subscriber": 0.2,
                 "no_teleservice_provisioned": 0.05, "not_available_network_only": 0.05,
                 "no_coverage": 0.05, "inconclusive": 0.05}
)  # fmt: skip
NUMBERS = [f"+3367300{n:04d}" for n in range(260)]
UNREADABLE = ["12", "+3361"]  # kept out by preflight: never an outcome row
CHECKED = NUMBERS[:120]  # the numbers bulk HLR checked (the others are not in its cache)
# A garbled report that still names its message and a vendor status stands as any other.
STANDS = (None, "garbled:missing_number", "garbled:bad_date")


@dataclass
class World:
    """One campaign's world after every callback was delivered."""

    sandbox: Sandbox
    inbox: Inbox
    result: CampaignResult
    hlr_cache: Path
    hlr: pd.DataFrame
    replies: pd.DataFrame
    outcomes: pd.DataFrame


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    """A with_replies marketing campaign of 262 rows (two unreadable) in chunks of 100 on a
    fast seeded model with late and duplicated reports, STOPs, withheld and garbled
    callbacks; 120 numbers checked by bulk HLR first; replies after the reports."""
    home = tmp_path_factory.mktemp("outcomes")
    model = DeliveryModel.fast(seed=11, late_share=0.3, duplicate_share=0.3, stop_share=0.2)
    gateway = callback_gateway(
        home / "callbacks.sqlite", seed=4, hlr_distribution=SPREAD, delivery_model=model
    )
    with gateway as (sb, inbox, client):
        sb.inject_callback_faults(withhold_rate=0.05, garble_rate=0.1, seed=3)
        hlr = smskit.bulk_hlr(client, CHECKED, journal=home / "hlr.sqlite", progress=False)
        campaign = smskit.Campaign(
            client,
            [*NUMBERS, *UNREADABLE],
            text=TEXT,
            sender="Shop",
            with_replies=True,
            name="outcomes-test",
        )
        result = campaign.send(
            journal=home / "journal.sqlite", chunk_size=100, concurrency=1, progress=False
        )
        sb.wait_for_deliveries(timeout=60)
        tickets = result.to_frame()["ticket"].dropna().unique()
        replies = pd.concat(
            [sb.simulate_campaign_replies(t, rate=0.2, opt_out_share=0.3, seed=i)
             for i, t in enumerate(tickets)]
        )  # fmt: skip
        outcomes = result.outcomes(inbox, hlr=home / "hlr.sqlite", time_zone="UTC")
        yield World(sb, inbox, result, home / "hlr.sqlite", hlr.to_frame(), replies, outcomes)


def expected_status(world: World) -> pd.Series:
    """Each number's status written out from what the sandbox scripted and posted: a final
    status posted readable, else an ACK posted readable, else pending (nothing posted), else
    None (only reports whose status cannot be read)."""
    scripted = world.sandbox.reports()
    reports = scripted[scripted["kind"] == "delivery_report"]
    posted = reports[reports["fault"] != "withheld"]
    readable = posted[posted["fault"].isna() | posted["fault"].isin(STANDS)]
    finals = readable[readable["status"] != "ACK"].groupby("number")["status"].first()
    acks = readable[readable["status"] == "ACK"].groupby("number")["status"].first()
    status = pd.Series("pending", index=NUMBERS, dtype=object)
    status[status.index.isin(posted["number"])] = None
    status.update(acks)
    status.update(finals)
    return status


def test_one_row_per_recipient_the_gateway_accepted(world: World) -> None:
    """Every sent recipient exactly once, in row order; rows kept out by preflight are not."""
    frame = world.outcomes
    assert len(frame) == len(NUMBERS) and frame["phone_number"].is_unique
    sent = world.result.to_frame()
    accepted = sent[sent["state"] == "sent"]
    assert list(frame["row"]) == list(accepted["row"]) == list(range(len(NUMBERS)))
    assert list(frame["phone_number"]) == NUMBERS
    assert set(frame["ticket"]) == set(accepted["ticket"]) and frame["ticket"].nunique() == 3


def test_status_is_the_one_the_sandbox_posted_whatever_the_order(world: World) -> None:
    """Late ACKs and duplicates never replace a final status; withheld reports leave ACK or
    pending; the expected status is written out from the sandbox's script."""
    got = world.outcomes.set_index("phone_number")["status"].astype(object)
    want = expected_status(world)
    assert got.where(got.notna(), None).sort_index().equals(want.sort_index())
    counts = world.outcomes["status"].value_counts()
    assert counts["DELIVERED"] > 100 and counts["pending"] >= 1 and counts["ACK"] >= 1
    assert (world.outcomes["final"] == world.outcomes["status"].isin(VENDOR[1:])).all()


def test_status_categories_are_the_vendor_statuses_then_pending(world: World) -> None:
    """status is a categorical of the eight vendor statuses in their order, then pending."""
    assert list(world.outcomes["status"].cat.categories) == [*VENDOR, "pending"]


def test_an_unknown_status_is_kept_and_flagged_never_guessed(world: World) -> None:
    """A message that got a report with a foreign status (DELIVRD...) is flagged
    unknown_status; where nothing readable stands, status is null and status_raw keeps it."""
    scripted = world.sandbox.reports()
    foreign = set(scripted.loc[scripted["fault"] == "garbled:unknown_status", "number"])
    frame = world.outcomes.set_index("phone_number")
    assert foreign and frame.loc[sorted(foreign), "flags"].str.contains("unknown_status").all()
    unread = frame[frame["status"].isna()]
    assert len(unread) >= 1 and unread["status_raw"].notna().all() and unread["flagged"].all()
    assert not frame.loc[~frame.index.isin(scripted["number"][scripted["fault"].notna()]),
                         "flagged"].any()  # fmt: skip


def test_opt_outs_are_the_stops_and_the_replies_that_opt_out(world: World) -> None:
    """opt_out: a STOP callback posted for the message, or a reply that asks to stop."""
    scripted = world.sandbox.reports()
    stops = scripted[(scripted["kind"] == "stop") & (scripted["fault"] != "withheld")]
    texts = world.replies.set_index("number")["text"]
    asked = {n for n, t in texts.items() if smskit.replies.is_opt_out(t)}
    frame = world.outcomes
    assert set(frame.loc[frame["opt_out"], "phone_number"]) == set(stops["number"]) | asked
    assert len(stops) >= 5 and len(asked) >= 5
    assert frame.loc[frame["opt_out"], "opt_out_date"].notna().all()


def test_replies_are_linked_to_their_recipient(world: World) -> None:
    """Each simulated reply shows on its number's row: text, date, count."""
    frame = world.outcomes.set_index("phone_number")
    replies = world.replies.set_index("number")
    assert set(frame.index[frame["replied"]]) == set(replies.index)
    assert frame.loc[replies.index, "reply_text"].tolist() == replies["text"].tolist()
    assert (frame.loc[replies.index, "replies"] == 1).all()
    stamped = pd.to_datetime(replies["reception_date"], utc=True)
    assert (frame.loc[replies.index, "reply_date"] == stamped).all()


def test_network_and_line_type_come_from_the_hlr_cache(world: World) -> None:
    """The bulk-HLR-checked numbers carry their answer's network and line type; the others
    none; every number its country."""
    frame = world.outcomes.set_index("phone_number")
    answers = world.hlr.set_index("phone_number")
    checked = frame.loc[CHECKED]
    assert checked["network"].tolist() == answers.loc[CHECKED, "network_name"].tolist()
    lines = answers.loc[CHECKED, "line_status"].astype(str)
    assert (checked["line_status"].astype(str) == lines).all()
    assert frame.loc[NUMBERS[120:], ["network", "line_status"]].isna().all().all()
    assert (frame["country"] == "FR").all()


def test_costs_predicted_billed_and_reported_agree_on_the_sandbox(world: World) -> None:
    """Preflight's price, the chunk's bill shared by segments and the report's unit_price
    times segments are one price on the sandbox (0.065 EUR a segment in France)."""
    frame = world.outcomes
    assert (frame["predicted_cost"] == 0.065 * frame["segments"]).all()
    assert frame["billed_cost"].sum() == pytest.approx(world.result.summary()["cost"].iloc[0])
    reported = frame[frame["reported_cost"].notna()]
    assert len(reported) > 200
    assert (reported["reported_cost"] - reported["billed_cost"]).abs().max() < 1e-9


def test_times_to_delivery_follow_the_line(world: World) -> None:
    """A live line is delivered within about a minute of network time; an absent subscriber
    at least 30 minutes after its send; none before; an unreadable date leaves it unknown."""
    frame = world.outcomes
    delivered = frame[frame["status"] == "DELIVERED"]
    live = delivered[delivered["line_status"] == "live"]["time_to_delivery"].dropna()
    absent = delivered[delivered["line_status"] == "absent_subscriber"]["time_to_delivery"]
    absent = absent.dropna()
    assert len(live) > 20 and len(absent) >= 3
    assert (live <= pd.Timedelta(seconds=62)).all()
    assert (absent >= pd.Timedelta(minutes=30) - pd.Timedelta(seconds=2)).all()
    assert (frame["time_to_delivery"].dropna() > -pd.Timedelta(seconds=2)).all()
    assert frame.loc[~frame["final"], "time_to_delivery"].isna().all()
    undated = frame["final"] & frame["delivery_date"].isna()
    assert undated.any() and frame.loc[undated, "flags"].str.contains("unreadable:").all()


def test_matching_by_number_and_time_finds_the_same_messages(world: World) -> None:
    """match="number" (the real gateway's opaque ids) finds each recipient's message from
    its number and dates: the same as the sandbox's ids wherever a report kept its number."""
    by_number = world.result.outcomes(world.inbox, hlr=world.hlr_cache, time_zone="UTC",
                                      match="number")  # fmt: skip
    by_id = world.outcomes
    status = world.inbox.delivery_status("UTC")
    kept = set(status.loc[status["number"].notna(), "message_id"])
    same = by_id["message_id"].isin(kept)
    assert same.sum() > 200
    for column in ("message_id", "status", "delivery_date"):
        assert by_number.loc[same, column].equals(by_id.loc[same, column]), column
    scripted = world.sandbox.reports()
    lost = scripted[(scripted["kind"] == "stop") & (scripted["fault"] == "garbled:missing_number")]
    missed = by_id["opt_out"] & ~by_number["opt_out"]
    assert set(by_id.loc[missed, "phone_number"]) <= set(lost["number"])
    assert not (by_number["opt_out"] & ~by_id["opt_out"]).any()


def test_the_default_inbox_is_the_replies_serve_store(world: World) -> None:
    """inbox=None reads replies.sqlite in the per-user data directory; none there is refused
    naming the file, not read as "nothing came back"."""
    with pytest.raises(ConfigurationError, match=r"replies\.sqlite"):
        world.result.outcomes(hlr=world.hlr_cache)
    with sqlite3.connect(world.inbox.path) as source, sqlite3.connect(replies_path()) as copy:
        source.backup(copy)
    got = world.result.outcomes(hlr=world.hlr_cache, time_zone="UTC")
    pd.testing.assert_frame_equal(got, world.outcomes)


def test_a_journal_without_predicted_costs_still_reads(world: World, tmp_path: Path) -> None:
    """A journal written before predicted costs were kept: every other column the same,
    predicted_cost unknown."""
    older = tmp_path / "older.sqlite"
    shutil.copy(world.result.journal, older)
    with sqlite3.connect(older) as db:
        db.execute("DELETE FROM plan WHERE name = 'predicted_cost'")
    got = CampaignResult.load(older).outcomes(world.inbox, hlr=world.hlr_cache, time_zone="UTC")
    assert got["predicted_cost"].isna().all()
    others = [c for c in got.columns if c != "predicted_cost"]
    pd.testing.assert_frame_equal(got[others], world.outcomes[others])


def test_times_are_in_the_account_time_zone_by_default(world: World) -> None:
    """Without time_zone, times are in the account's zone (Europe/Paris), the same moments."""
    got = world.result.outcomes(world.inbox, hlr=world.hlr_cache)
    assert str(got["sent_at"].dt.tz) == "Europe/Paris"
    assert (got["delivery_date"].dropna() == world.outcomes["delivery_date"].dropna()).all()


def test_bad_arguments_are_refused_by_name(world: World) -> None:
    """match, inbox and hlr of the wrong kind are refused naming the argument."""
    with pytest.raises(ValidationError, match="match"):
        world.result.outcomes(world.inbox, match="phone")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="inbox"):
        world.result.outcomes(42)
    with pytest.raises(ValidationError, match="hlr"):
        world.result.outcomes(world.inbox, hlr=42)
    with pytest.raises(ConfigurationError, match="no HLR cache"):
        world.result.outcomes(world.inbox, hlr=world.hlr_cache.with_name("none.sqlite"))


def test_the_dask_result_joins_each_partition_as_pandas_joins_the_whole(
    dask_cluster: object, tmp_path: Path
) -> None:
    """A streamed campaign's outcomes, computed per partition on the cluster, equal the
    pandas result's read from the same journal and inbox."""
    import dask.dataframe as dd

    from smskit.dask import Campaign as DaskCampaign

    model = DeliveryModel.fast(seed=5, late_share=0.3, duplicate_share=0.3, stop_share=0.2)
    base = pd.DataFrame({"phone_number": [*NUMBERS[:150], "12"]})
    gateway = callback_gateway(None, seed=6, delivery_model=model)
    with gateway as (sb, inbox, client):
        campaign = DaskCampaign(client, dd.from_pandas(base, npartitions=3), text=TEXT,
                                sender="Shop")  # fmt: skip
        journal = tmp_path / "streamed.sqlite"
        result = campaign.send(journal=journal, chunk_size=40, progress=False)
        sb.wait_for_deliveries(timeout=60)
        lazy = result.outcomes(inbox, time_zone="UTC")
        got = lazy.compute().reset_index(drop=True)
        want = CampaignResult.load(journal).outcomes(inbox, time_zone="UTC")
    assert lazy.npartitions == 3 and len(got) == 150
    assert got["status"].eq("DELIVERED").sum() > 100
    pd.testing.assert_frame_equal(got, want)


def test_sent_at_is_when_the_journal_logged_the_chunk_accepted(world: World) -> None:
    """Each recipient's sent_at is its chunk's 'sent' entry in the journal's log."""
    from smskit.campaigns.sending.journal import Journal

    with Journal(world.result.journal) as book:
        logged = {chunk: at for chunk, at, state, _, _ in book.log() if state == "sent"}
    chunks = world.result.to_frame().set_index("row")["chunk"]
    want = pd.to_datetime(
        [logged[int(chunks[row])] for row in world.outcomes["row"]], unit="s", utc=True
    )
    got = world.outcomes["sent_at"]
    assert (abs(got.to_numpy() - want.to_numpy()) < pd.Timedelta(microseconds=1)).all()
    assert world.outcomes.groupby("ticket")["sent_at"].nunique().eq(1).all()


def test_a_chunk_accepted_before_without_its_ticket_is_matched_by_number(
    world: World, tmp_path: Path
) -> None:
    """A chunk the journal records already_accepted with no ticket (the gateway refused a
    repeat of a request whose answer was lost): its recipients' messages are found by number
    and time, the same ones; sent_at is its first attempt."""
    journal = tmp_path / "repeat.sqlite"
    shutil.copy(world.result.journal, journal)
    with sqlite3.connect(journal) as db:
        db.execute("UPDATE chunks SET state = 'already_accepted', ticket = NULL WHERE idx = 0")
        db.execute("UPDATE log SET state = 'already_accepted' WHERE chunk = 0 AND state = 'sent'")
        first = db.execute("SELECT first_attempt_at FROM chunks WHERE idx = 0").fetchone()[0]
    got = CampaignResult.load(journal).outcomes(world.inbox, hlr=world.hlr_cache, time_zone="UTC")
    mine = got["ticket"].isna()
    assert mine.sum() == 100
    want = world.outcomes[mine]
    found = want["message_id"].isin(set(world.inbox.delivery_status("UTC").dropna(
        subset=["number"])["message_id"]))  # fmt: skip
    assert found.sum() >= 90
    for column in ("message_id", "status", "delivery_date"):
        assert got.loc[found[found].index, column].equals(want.loc[found[found].index, column])
    assert (got.loc[mine, "sent_at"] == pd.Timestamp(first, unit="s", tz="UTC")).all()
    assert got[~mine].equals(world.outcomes[~mine])
