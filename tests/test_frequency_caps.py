"""Frequency caps: the rule (a cap read or refused naming the field; who already received N
marketing messages in the period before the send, checked against a naive per-recipient
count), and the campaign option over real HTTP: two sends, the third capped; transactional
sends neither capped nor counted; another account's journals not counted; the account's
default (SMSKIT_FREQUENCY_CAP); Dask partitions agreeing with pandas; the Composer saying
it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import dask.dataframe as dd
import distributed
import numpy as np
import pandas as pd
import pytest
from _gateway import callback_gateway
from hypothesis import given, settings
from hypothesis import strategies as st

import smskit
import smskit.dask
import smskit.plots
from smskit.campaigns.analysis.sends import sends
from smskit.cli.output import EXIT_CONFIG, EXIT_INPUT, EXIT_USAGE
from smskit.client.clients import Backoff
from smskit.errors import ValidationError
from smskit.rules.caps import (
    ENV_FREQUENCY_CAP,
    FrequencyCap,
    frequency_cap,
    frequency_capped,
    instants_ns,
    number_keys,
    received,
)
from smskit.sandbox import DeliveryModel, Sandbox
from smskit.views.composer import Composer

TEXT = "Promo -20% ce week-end. STOP au 36173"
ALERT = "Votre colis arrive demain."
NOW = datetime(2026, 3, 10, 12, tzinfo=UTC)


def fr_mobiles(count: int, start: int = 0) -> list[str]:
    """Distinct valid French mobile numbers."""
    return [f"+3361{i:07d}" for i in range(start, start + count)]


@pytest.fixture
def client(fresh_sandbox: Sandbox) -> Iterator[smskit.Client]:
    with smskit.Client(sandbox=fresh_sandbox, backoff=Backoff(base=0.0, cap=0.0)) as c:
        yield c


# -- the rule ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value", ["0/7D", "2/-1D", "x", "2/0D", "2/7", "/7D", "2.5/7D", "-2/7D", 3, 2.0, True, ""]
)
def test_a_cap_that_does_not_read_is_refused_naming_the_field(value: object) -> None:
    """A count below 1, a period that is not a positive duration, or no N/PERIOD at all."""
    with pytest.raises(ValidationError) as caught:
        frequency_cap(value)
    assert caught.value.field == "frequency_cap" and "N/PERIOD" in str(caught.value)


def test_a_cap_reads_its_count_and_period() -> None:
    """'2/7D' is two messages in seven days; '3 / 36h' reads too; None is no cap."""
    assert frequency_cap("2/7D") == FrequencyCap(2, timedelta(days=7), "2/7D")
    assert frequency_cap(" 3 / 36h ") == FrequencyCap(3, timedelta(hours=36), "3 / 36h")
    assert str(frequency_cap("1/2W")) == "1/2W" and frequency_cap(None) is None


def naive_capped(
    numbers: list[str | None],
    history: list[tuple[str, datetime]],
    count: int,
    period: timedelta,
    when: datetime,
) -> list[bool]:
    """Per recipient, counted one message at a time in every window of ``period`` that holds
    ``when`` (``s <= at <= s + period``, ``s`` each whole hour from ``when - period`` to
    ``when``: the history's instants are whole hours, so no other start holds more)."""
    hours = int(period / timedelta(hours=1))
    starts = [when - period + timedelta(hours=h) for h in range(hours + 1)]
    return [
        number is not None
        and any(
            sum(1 for n, at in history if n == number and s <= at <= s + period) >= count
            for s in starts
        )
        for number in numbers
    ]


POOL = [*fr_mobiles(6), "+4915112345678", "0612345678", None]
instants = st.integers(min_value=-20 * 24, max_value=20 * 24).map(
    lambda h: NOW + timedelta(hours=h)
)


@settings(max_examples=150, deadline=None)
@given(
    numbers=st.lists(st.sampled_from(POOL), max_size=12),
    history=st.lists(st.tuples(st.sampled_from(POOL[:-2]), instants), max_size=40),
    count=st.integers(min_value=1, max_value=4),
    days=st.integers(min_value=1, max_value=10),
)
def test_capped_recipients_are_those_a_naive_count_finds(
    numbers: list[str | None], history: list[tuple[str, datetime]], count: int, days: int
) -> None:
    """The column-wise rule marks exactly the recipients with >= N messages in one period
    holding the send instant, messages scheduled after it included (a number not E.164 never
    capped)."""
    cap = FrequencyCap(count, timedelta(days=days))
    past = pd.Series([n for n, _ in history], dtype=object)
    at = pd.Series(pd.to_datetime([t for _, t in history], utc=True), dtype="datetime64[ns, UTC]")
    got = frequency_capped(pd.Series(numbers, dtype=object), past, at, cap, NOW)
    e164 = [n if n is not None and n.startswith("+") else None for n in numbers]
    assert got.tolist() == naive_capped(e164, history, count, cap.period, NOW)


@settings(max_examples=150, deadline=None)
@given(
    queries=st.lists(st.tuples(st.sampled_from(POOL), instants), max_size=12),
    history=st.lists(st.tuples(st.sampled_from(POOL[:-2]), instants), max_size=40),
    days=st.integers(min_value=1, max_value=10),
)
def test_messages_received_before_each_send_match_a_naive_count(
    queries: list[tuple[str | None, datetime]],
    history: list[tuple[str, datetime]],
    days: int,
) -> None:
    """received() counts, per (number, instant), the history's messages in the period
    before that instant, as counting them one by one does."""
    period = timedelta(days=days)

    def stamps(pairs: list[tuple[object, datetime]]) -> pd.Series:
        return pd.Series(pd.to_datetime([t for _, t in pairs], utc=True)).astype(
            "datetime64[ns, UTC]"
        )

    got = received(
        pd.Series([n for n, _ in queries], dtype=object),
        stamps(queries),  # type: ignore[arg-type]
        pd.Series([n for n, _ in history], dtype=object),
        stamps(history),  # type: ignore[arg-type]
        period,
    )
    want = [
        0
        if n is None or not n.startswith("+")
        else sum(1 for m, at in history if m == n and t - period <= at < t)
        for n, t in queries
    ]
    assert got.tolist() == want


def test_numbers_compare_as_e164_keys() -> None:
    """An E.164 number is its digits; missing, national or malformed numbers are -1."""
    keys = number_keys(pd.Series(["+33612345678", None, "0612345678", "+1", pd.NA]))
    assert keys.tolist() == [33612345678, -1, -1, -1, -1]


def test_a_naive_send_instant_is_refused_not_taken_for_utc() -> None:
    """frequency_capped refuses a ``when`` without a timezone, naming it: read as UTC it
    would move the window by the offset of wherever the notebook runs."""
    history = pd.Series(pd.to_datetime(["2026-03-09T12:00Z", "2026-03-09T13:00Z"]))
    with pytest.raises(ValidationError) as refused:
        frequency_capped(
            ["+33612345678"], ["+33612345678"] * 2, history, FrequencyCap(2, timedelta(days=7)),
            NOW.replace(tzinfo=None),
        )  # fmt: skip
    assert refused.value.field == "when"
    assert refused.value.rule == "needs a timezone (an aware datetime)"


@given(count=st.integers(min_value=1, max_value=5))
def test_naive_history_instants_are_refused_naming_sent_at(count: int) -> None:
    """A history whose instants carry no timezone is refused naming sent_at and the dtype it
    has, whatever its length: nothing is counted from a guessed zone."""
    naive = pd.Series(pd.date_range("2026-03-09", periods=count, freq="h"))
    with pytest.raises(ValidationError) as refused:
        frequency_capped(
            ["+33612345678"], ["+33612345678"] * count, naive, FrequencyCap(1, timedelta(days=7)),
            NOW,
        )  # fmt: skip
    assert refused.value.field == "sent_at"
    assert refused.value.rule == "must be timezone-aware instants"
    assert refused.value.value == str(naive.dtype) and "UTC" not in refused.value.value
    aware = naive.dt.tz_localize("UTC")
    assert instants_ns(aware).tolist() == [pd.Timestamp(t).value for t in aware]


@given(numbers=st.integers(min_value=0, max_value=6), instants=st.integers(0, 6))
def test_a_history_of_more_numbers_than_instants_is_refused(numbers: int, instants: int) -> None:
    """Numbers and instants pair up one to one; a history of unequal lengths is refused
    naming history and the count of instants (never paired up to the shorter)."""
    at = pd.Series(pd.date_range("2026-03-09", periods=instants, freq="h", tz="UTC"))
    phones = fr_mobiles(numbers)
    cap = FrequencyCap(1, timedelta(days=7))
    if numbers == instants:
        assert frequency_capped(phones, phones, at, cap, NOW).tolist() == [True] * numbers
        return
    with pytest.raises(ValidationError) as refused:
        frequency_capped(phones, phones, at, cap, NOW)
    assert str(refused.value) == f"history: needs as many instants as numbers (got {instants})"


# -- the campaign option, over real HTTP ------------------------------------------------------


def test_two_sends_then_the_third_is_capped(client: smskit.Client, fresh_sandbox: Sandbox) -> None:
    """With 2/7D, a recipient who received two marketing campaigns is excluded from the
    third (issue frequency_capped, counted in the summary, journaled, never sent); the
    others are sent."""
    first = fr_mobiles(10)
    for _ in range(2):
        smskit.Campaign(client, first[:6], text=TEXT, sender="Shop", frequency_cap="2/7D").send(
            progress=False
        )
    third = smskit.Campaign(client, first, text=TEXT, sender="Shop", frequency_cap="2/7D")
    report = third.preflight()
    assert report.summary().loc[0, "frequency_capped"] == 6 and report.to_send == 4
    capped = report.frame.loc[report.frame["issue"] == "frequency_capped"]
    assert sorted(capped["phone_number"]) == first[:6]
    assert set(capped["detail"].astype(str)) == {"2/7D"}
    before = len(fresh_sandbox.sent())
    result = third.send(progress=False)
    sent_now = set(fresh_sandbox.sent()["phone_number"].iloc[before:])
    assert sent_now == set(first[6:])
    assert (result.not_sent["error"] == "frequency_capped: 2/7D").sum() == 6


def test_a_campaign_scheduled_for_the_same_slot_counts(
    client: smskit.Client, fresh_sandbox: Sandbox
) -> None:
    """Two marketing campaigns scheduled for one slot (send_at Monday 10:00) reach the phone
    together: with 1/7D, the second one's preflight caps every recipient the first sends
    to, and its send sends them nothing; one scheduled a minute later is capped alike."""
    numbers = fr_mobiles(5)
    slot = "2031-06-02T10:00:00+02:00"
    smskit.Campaign(client, numbers[:3], text=TEXT, sender="Shop", send_at=slot,
                    frequency_cap="1/7D").send(progress=False)  # fmt: skip
    sent = len(fresh_sandbox.sent())
    for send_at in (slot, "2031-06-02T10:01:00+02:00"):
        second = smskit.Campaign(client, numbers, text=TEXT.replace("-20%", "-30%"),
                                 sender="Shop", send_at=send_at, frequency_cap="1/7D")  # fmt: skip
        report = second.preflight()
        capped = report.frame.loc[report.frame["issue"] == "frequency_capped", "phone_number"]
        assert sorted(capped) == numbers[:3] and report.to_send == 2
    second.send(progress=False)
    assert set(fresh_sandbox.sent()["phone_number"].iloc[sent:]) == set(numbers[3:])


def test_a_campaign_scheduled_later_in_the_period_counts(
    client: smskit.Client, fresh_sandbox: Sandbox
) -> None:
    """With 1/7D, a campaign scheduled for tomorrow caps today's campaign for its
    recipients: sent today, they would receive two marketing messages within seven days. One
    scheduled eight days later does not."""
    numbers = fr_mobiles(5)
    now = datetime.now(UTC)
    for days, who in ((1, numbers[:2]), (8, numbers[2:4])):
        smskit.Campaign(client, who, text=TEXT, sender="Shop", frequency_cap="1/7D",
                        send_at=now + timedelta(days=days)).send(progress=False)  # fmt: skip
    sent = len(fresh_sandbox.sent())
    today = smskit.Campaign(client, numbers, text=TEXT.replace("-20%", "-30%"), sender="Shop",
                            frequency_cap="1/7D")  # fmt: skip
    report = today.preflight()
    capped = report.frame.loc[report.frame["issue"] == "frequency_capped", "phone_number"]
    assert sorted(capped) == numbers[:2] and report.to_send == 3
    today.send(progress=False)
    assert set(fresh_sandbox.sent()["phone_number"].iloc[sent:]) == set(numbers[2:])


def test_transactional_sends_are_neither_capped_nor_counted(client: smskit.Client) -> None:
    """Alerts do not count toward a marketing cap, and an alert is never capped: a cap given
    to one is refused, and the account's default does not apply to it."""
    numbers = fr_mobiles(5)
    for _ in range(3):
        smskit.Campaign(client, numbers, text=ALERT, sender="Shop", purpose="alert").send(
            progress=False
        )
    marketing = smskit.Campaign(client, numbers, text=TEXT, sender="Shop", frequency_cap="1/7D")
    assert marketing.preflight().to_send == 5
    marketing.send(progress=False)
    alert = smskit.Campaign(client, numbers, text=ALERT, sender="Shop", purpose="alert")
    assert alert.spec.cap is None and alert.preflight().to_send == 5
    with pytest.raises(ValidationError) as caught:
        smskit.Campaign(
            client, numbers, text=ALERT, sender="Shop", purpose="alert", frequency_cap="1/7D"
        )
    assert caught.value.field == "frequency_cap"


def test_the_account_default_caps_marketing_unless_the_campaign_says_otherwise(
    client: smskit.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SMSKIT_FREQUENCY_CAP applies to a marketing campaign that gives no cap; its own cap
    (or None: no cap) wins; a default that does not read is refused naming the variable."""
    numbers = fr_mobiles(4)
    smskit.Campaign(client, numbers, text=TEXT, sender="Shop").send(progress=False)
    monkeypatch.setenv(ENV_FREQUENCY_CAP, "1/7D")
    defaulted = smskit.Campaign(client, numbers, text=TEXT, sender="Shop")
    assert str(defaulted.spec.cap) == "1/7D" and defaulted.preflight().to_send == 0
    loose = smskit.Campaign(client, numbers, text=TEXT, sender="Shop", frequency_cap="2/7D")
    assert loose.preflight().to_send == 4
    uncapped = smskit.Campaign(client, numbers, text=TEXT, sender="Shop", frequency_cap=None)
    assert uncapped.preflight().to_send == 4
    monkeypatch.setenv(ENV_FREQUENCY_CAP, "0/7D")
    with pytest.raises(ValidationError) as caught:
        smskit.Campaign(client, numbers, text=TEXT, sender="Shop")
    assert caught.value.field == ENV_FREQUENCY_CAP


def test_another_accounts_journals_do_not_count(client: smskit.Client) -> None:
    """Messages sent through another gateway account are not this account's history."""
    numbers = fr_mobiles(3)
    with Sandbox(seed=1) as other, smskit.Client(sandbox=other) as elsewhere:
        smskit.Campaign(elsewhere, numbers, text=TEXT, sender="Shop").send(progress=False)
    capped = smskit.Campaign(client, numbers, text=TEXT, sender="Shop", frequency_cap="1/7D")
    assert capped.preflight().to_send == 3
    assert len(sends(account=client)) == 0 and len(sends()) == 3


def test_a_continued_campaign_is_not_its_own_history(client: smskit.Client) -> None:
    """A named campaign checked again after its send does not cap its own recipients."""
    numbers = fr_mobiles(3)
    named = smskit.Campaign(
        client, numbers, text=TEXT, sender="Shop", name="weekly", frequency_cap="1/7D"
    )
    named.send(progress=False)
    again = smskit.Campaign(
        client, numbers, text=TEXT, sender="Shop", name="weekly", frequency_cap="1/7D"
    )
    assert again.preflight().to_send == 3


def test_dask_partitions_agree_with_pandas(
    client: smskit.Client, dask_cluster: distributed.Client
) -> None:
    """Every Dask partition excludes the same recipients as the pandas preflight, and the
    report counts them alike."""
    numbers = fr_mobiles(40)
    smskit.Campaign(client, numbers[::3], text=TEXT, sender="Shop").send(progress=False)
    frame = pd.DataFrame({"phone_number": numbers})
    pandas_report = smskit.Campaign(
        client, frame, text=TEXT, sender="Shop", frequency_cap="1/7D"
    ).preflight()
    dask_report = smskit.dask.Campaign(
        client, dd.from_pandas(frame, npartitions=4), text=TEXT, sender="Shop",
        frequency_cap="1/7D",
    ).preflight()  # fmt: skip
    got = dask_report.frame.compute().sort_values("row")
    want = pandas_report.frame.sort_values("row")
    assert got["issue"].astype(str).tolist() == want["issue"].astype(str).tolist()
    assert int((got["issue"] == "frequency_capped").sum()) == len(numbers[::3])
    assert dask_report.summary()["frequency_capped"].iloc[0] == len(numbers[::3])
    assert dask_report.to_send == pandas_report.to_send == 40 - len(numbers[::3])


def test_the_composer_counts_capped_recipients(client: smskit.Client, tmp_path: Path) -> None:
    """The Composer's recipients check says how many are frequency capped."""
    numbers = fr_mobiles(5)
    smskit.Campaign(client, numbers[:2], text=TEXT, sender="Shop").send(progress=False)
    composer = Composer(
        client, numbers, text=TEXT, sender="Shop", frequency_cap="1/7D", debounce=0,
        journal=tmp_path / "c.sqlite",
    )  # fmt: skip
    check = next(c for c in composer.panel.checks if c.name == "recipients")
    assert (
        check.message
        == "3 to send, 2 excluded (2 frequency_capped: at the cap of marketing messages)"
    )


def test_an_offline_preflight_without_a_client_says_the_cap_was_not_checked() -> None:
    """No client, no account: nobody capped, and a warning says why."""
    campaign = smskit.Campaign(None, fr_mobiles(2), text=TEXT, sender="Shop", frequency_cap="1/1D")
    report = campaign.preflight(offline=True)
    assert report.to_send == 2
    assert any(f.code == "frequency_cap_unchecked" for f in report.findings)


def test_capped_matches_value_counts_on_a_large_random_history() -> None:
    """Over 50,000 past messages, the capped numbers are those pandas counts at the cap."""
    rng = np.random.default_rng(0)
    past = pd.Series([f"+336{n:08d}" for n in rng.integers(0, 10_000, 50_000)], dtype=object)
    at = pd.Series(pd.Timestamp(NOW) - pd.to_timedelta(rng.integers(0, 30 * 86400, 50_000), "s"))
    numbers = pd.Series([f"+336{n:08d}" for n in range(10_000)], dtype=object)
    got = frequency_capped(numbers, past, at, FrequencyCap(5, timedelta(days=7)), NOW)
    inside = (at >= pd.Timestamp(NOW) - pd.Timedelta(days=7)).to_numpy()
    counts = past[inside].value_counts()
    assert set(numbers[got]) == set(counts[counts >= 5].index)


# -- the CLI, as real processes ---------------------------------------------------------------

REPO = Path(__file__).resolve().parent.parent
PROMO = ("send", "--text", TEXT, "--sender", "Shop", "--outside-hours", "--yes")


def smskit_process(sandbox: Sandbox, home: Path, **env: str) -> Any:
    """A function running ``python -m smskit ARGS`` on ``sandbox`` with data in ``home``."""
    base = {
        **os.environ,
        "SMSKIT_BASE_URL": sandbox.url,
        "SMSKIT_API_LOGIN": sandbox.login,
        "SMSKIT_API_KEY": sandbox.api_key,
        "XDG_DATA_HOME": str(home),
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
        **env,
    }
    if ENV_FREQUENCY_CAP not in env:  # the machine's own default is not this test's
        base.pop(ENV_FREQUENCY_CAP, None)

    def run(*args: str, **more: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "smskit", *args],
            capture_output=True, text=True, timeout=120, env={**base, **more},
        )  # fmt: skip

    return run


def to(*numbers: str) -> list[str]:
    """``--to`` for each number."""
    return [part for number in numbers for part in ("--to", number)]


def test_cli_caps_the_third_send_and_a_dry_run_counts_them(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Two sends, then a dry run with --frequency-cap 2/7D (or SMSKIT_FREQUENCY_CAP) shows
    the capped count and reason (exit 0); a send where everyone is capped exits 4 naming
    it, nothing sent; --frequency-cap none sends."""
    run = smskit_process(fresh_sandbox, tmp_path)
    a, b, c, d = fr_mobiles(4)
    assert run(*PROMO, *to(a, b)).returncode == 0
    assert run(*PROMO, *to(a, b, c)).returncode == 0
    dry = run(*PROMO, *to(a, b, c, d), "--frequency-cap", "2/7D", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "frequency_capped  2" in dry.stdout
    assert "Excluded: 2 recipient(s): frequency_capped: 2/7D (row 0, 1)" in dry.stdout
    defaulted = run(*PROMO, *to(a, b, c, d), "--dry-run", "--json", SMSKIT_FREQUENCY_CAP="2/7D")
    assert json.loads(defaulted.stdout)["preflight"]["frequency_capped"] == 2
    sent = len(fresh_sandbox.sent())
    refused = run(*PROMO, *to(a, b), "--frequency-cap", "2/7D")
    assert refused.returncode == EXIT_INPUT and "Sent:" not in refused.stdout
    said = "nothing to send: all 2 recipient(s) are excluded (frequency_capped: 2)"
    assert refused.stderr.strip().splitlines()[-1].endswith(said), refused.stderr
    assert len(fresh_sandbox.sent()) == sent
    free = run(*PROMO, *to(a, b), "--again", "--frequency-cap", "none", SMSKIT_FREQUENCY_CAP="1/7D")
    assert free.returncode == 0 and len(fresh_sandbox.sent()) == sent + 2


def test_cli_refuses_a_cap_it_cannot_apply(fresh_sandbox: Sandbox, tmp_path: Path) -> None:
    """A cap that does not read is a usage error naming --frequency-cap (exit 2); a cap on
    an alert is refused in one line naming it (exit 4); an unreadable SMSKIT_FREQUENCY_CAP
    is configuration (exit 3, as every refused SMSKIT_* setting), one line naming it;
    nothing is sent."""
    run = smskit_process(fresh_sandbox, tmp_path)
    bad = run(*PROMO, *to(fr_mobiles(1)[0]), "--frequency-cap", "0/7D")
    assert bad.returncode == EXIT_USAGE and "'--frequency-cap'" in bad.stderr
    alert = run("send", "--text", ALERT, "--sender", "Ops", "--purpose", "alert", "--yes",
                *to(fr_mobiles(1)[0]), "--frequency-cap", "2/7D")  # fmt: skip
    assert alert.returncode == EXIT_INPUT
    assert alert.stderr.strip() == (
        "smskit: error: --frequency-cap: only a marketing campaign is capped: a transactional "
        "send (purpose 'alert') never is, and takes no cap (got '2/7D')"
    )
    env = run(*PROMO, *to(fr_mobiles(1)[0]), SMSKIT_FREQUENCY_CAP="x")
    assert env.returncode == EXIT_CONFIG
    assert env.stderr.startswith("smskit: error: SMSKIT_FREQUENCY_CAP: must read 'N/PERIOD'")
    assert fresh_sandbox.sent().empty


# -- fatigue ----------------------------------------------------------------------------------


def test_fatigue_counts_each_send_by_messages_received_before_and_its_opt_outs(
    tmp_path: Path,
) -> None:
    """Across the ledger's marketing campaigns, each send is counted under the number of
    marketing messages its recipient had received in the 30 days before, with the opt-outs
    the outcomes join finds; an alert is not a row and does not count; the figure draws it."""
    numbers = fr_mobiles(60)
    model = DeliveryModel.fast(seed=4, stop_share=0.3)
    gateway = callback_gateway(tmp_path / "inbox.sqlite", seed=2, delivery_model=model)
    with gateway as (sb, inbox, client):
        first = smskit.Campaign(client, numbers[:20], text=TEXT, sender="Shop").send(progress=False)
        smskit.Campaign(client, numbers, text=ALERT, sender="Ops", purpose="alert").send(
            progress=False
        )
        second = smskit.Campaign(client, numbers[:40], text=TEXT, sender="Shop").send(
            progress=False
        )
        sb.wait_for_deliveries(timeout=60)
        frame = smskit.campaigns.fatigue(inbox=inbox)
        opted = sum(int(r.outcomes(inbox)["opt_out"].sum()) for r in (first, second))
    assert frame["received_before"].tolist() == [0, 1]
    assert frame["recipients"].tolist() == [40, 20]  # 20 + 20 new ones, then 20 again
    assert int(frame["opted_out"].sum()) == opted > 0
    assert (frame["opt_out_rate"] == frame["opted_out"] / frame["recipients"]).all()
    figure = smskit.plots.fatigue_curve(frame)
    assert list(figure.data[0].x) == [0, 1]
