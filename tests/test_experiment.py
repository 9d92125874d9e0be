"""Experiments: the split (seeded, balanced, stratified), its record, the arms' previews and
sends over real HTTP on the sandbox, and a resume after a SIGKILL that neither splits again
nor sends twice."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.proportion import proportion_confint, proportions_ztest

import smskit
from smskit.campaigns.analysis.split import assign_arms
from smskit.campaigns.experiment import Experiment, ExperimentResult
from smskit.errors import ConfigurationError, ValidationError
from smskit.replies.inbox import Inbox
from smskit.sandbox import DeliveryModel, HLRDistribution, Sandbox

A = "Soldes -20% ce week-end ! STOP au 36173"
B = "Bonjour {first_name}, -20% ce week-end seulement. STOP au 36173"
FR = [f"+3367200{n:04d}" for n in range(60)]
ES = [f"+34622{n:06d}" for n in range(30)]
BE = [f"+3248{n:07d}" for n in range(15)]


def people() -> list[dict[str, str]]:
    """105 recipients in three countries, each with a first name."""
    return [{"phone_number": n, "first_name": f"P{i}"} for i, n in enumerate(FR + ES + BE)]


def country_of(number: str) -> str:
    return {"+33": "FR", "+34": "ES", "+32": "BE"}[number[:3]]


@settings(max_examples=200, deadline=None)
@given(
    labels=st.lists(st.sampled_from(["FR", "ES", "BE", "unknown"]), max_size=300),
    arms=st.integers(2, 5),
    seed=st.integers(0, 2**63 - 1),
    stratified=st.booleans(),
)
def test_the_split_is_balanced_overall_and_per_stratum(
    labels: list[str], arms: int, seed: int, stratified: bool
) -> None:
    """Arms differ by at most one recipient overall and, stratified, within every stratum;
    every row gets one arm; the same seed gives the same split."""
    strata = labels if stratified else None
    split = assign_arms(len(labels), arms, seed, strata)
    assert np.array_equal(split, assign_arms(len(labels), arms, seed, strata))
    assert split.shape == (len(labels),) and ((split >= 0) & (split < arms)).all()
    sizes = np.bincount(split, minlength=arms)
    assert sizes.max() - sizes.min() <= 1
    if stratified:
        for label in set(labels):
            inside = np.bincount(split[np.array(labels) == label], minlength=arms)
            assert inside.max() - inside.min() <= 1


def test_the_split_depends_on_the_seed_and_looks_random() -> None:
    """Another seed, another split; neither is the rows dealt in order (A, B, A, B ...)."""
    first, second = assign_arms(1000, 2, 1), assign_arms(1000, 2, 2)
    assert not np.array_equal(first, second)
    assert not np.array_equal(first, np.arange(1000) % 2)
    assert 400 < int((first == second).sum()) < 600  # two independent draws agree half the time


@pytest.mark.parametrize(
    ("variants", "field"),
    [({"A": A}, "variants"), ({"A": A, "B b": B}, "variants"), ({"A": A, "B": 3}, "variants.B"),
     ({"A": A, "B": "caf\ud800"}, "text")],
)  # fmt: skip
def test_variants_are_checked(variants: dict[str, object], field: str, tmp_path: Path) -> None:
    """One arm, an arm name that cannot name a file, a text not a string or not encodable."""
    with pytest.raises(ValidationError) as caught:
        Experiment(None, FR, variants=variants, sender="Shop", directory=tmp_path)  # type: ignore[arg-type]
    assert caught.value.field == field


def test_preview_gives_each_arm_its_preflight_and_the_gateway_estimate(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Per arm: recipients assigned, segments of its text, to send and the gateway's
    simulated SMS and cost, equal to that arm's own campaign preflight and estimate; the
    stratified split puts every country's recipients evenly in the two arms."""
    with smskit.Client(sandbox=fresh_sandbox) as client:
        experiment = Experiment(client, people(), variants={"A": A, "B": B}, sender="Shop",
                                seed=11, stratify="country", directory=tmp_path)  # fmt: skip
        assignment = experiment.assignment()
        assert assignment["stratum"].tolist() == [country_of(n) for n in FR + ES + BE]
        per_country = assignment.groupby(["stratum", "arm"], observed=True).size().unstack()
        assert per_country.sum(axis=1).to_dict() == {"BE": 15, "ES": 30, "FR": 60}
        assert ((per_country["A"] - per_country["B"]).abs() <= 1).all()
        preview = experiment.preview().set_index("arm")
        for arm, campaign in experiment.arms.items():
            report = campaign.preflight()
            estimate = campaign.estimate()
            row = preview.loc[arm]
            assert row["recipients"] == (assignment["arm"] == arm).sum() == report.recipients
            assert row["to_send"] == report.to_send and row["segments"] == report.segments
            assert row["estimated_sms"] == estimate.sms and row["estimated_cost"] == estimate.cost
        assert preview.loc["A", "encoding"] == "GSM-7"
    assert not experiment.path.exists()  # a preview writes nothing


def test_send_records_the_split_and_a_second_send_sends_nothing(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Each number gets its arm's text once; each arm's journal names the experiment, its
    arm and seed; making the experiment again (no seed) adopts the recorded split, and its
    send sends nothing more."""
    variants = {"A": A, "B": B, "C": A.replace("-20%", "-30%")}
    with smskit.Client(sandbox=fresh_sandbox) as client:
        experiment = Experiment(client, people(), variants=variants, sender="Shop",
                                name="ab", seed=5, directory=tmp_path)  # fmt: skip
        result = experiment.send(progress=False)
        assert result.complete
        sent = fresh_sandbox.sent()
        assert sorted(sent["phone_number"]) == sorted(FR + ES + BE)
        arms = experiment.assignment().set_index("phone_number")["arm"]
        names = {p["phone_number"]: p["first_name"] for p in people()}
        for number, text in zip(sent["phone_number"], sent["text"], strict=True):
            assert text == variants[arms[number]].replace("{first_name}", names[number])
        for arm in variants:
            with sqlite3.connect(experiment.journal(arm)) as db:
                meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
            record = json.loads(meta["experiment"])
            assert (record["name"], record["arm"], record["seed"]) == ("ab", arm, 5)
            assert json.loads(meta["name"]) == f"ab.{arm}"
        assert stat.S_IMODE(experiment.path.stat().st_mode) == 0o600
        summary = result.summary().set_index("arm")
        assert summary["sent"].to_dict() == Counter(arms.astype(str))

        again = Experiment(client, people(), variants=variants, sender="Shop", name="ab",
                           directory=tmp_path)  # fmt: skip
        assert again.seed == 5 and again.assignment().equals(experiment.assignment())
        again.send(progress=False)
        assert len(fresh_sandbox.sent()) == len(sent)


def test_an_experiment_made_again_otherwise_is_refused(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """The same name with another seed, other texts, the arms in another order (another
    control) or other recipients: refused, naming what differs; the record left as it was."""
    with smskit.Client(sandbox=fresh_sandbox) as client:
        first = Experiment(client, FR, variants={"A": A, "B": A + "!"}, sender="Shop",
                           name="x", seed=1, directory=tmp_path)  # fmt: skip
        first.send(progress=False)
        written = first.path.read_bytes()
        for changes, named in (
            ({"seed": 2}, "seed"),
            ({"variants": {"A": A, "B": A + "?"}}, "arms"),
            ({"variants": {"B": A + "!", "A": A}}, "arms"),  # another control
            ({"recipients": FR[:-1]}, "recipients"),
        ):
            options = {"variants": {"A": A, "B": A + "!"}, "seed": 1, "recipients": FR, **changes}
            with pytest.raises(ConfigurationError, match=named):
                Experiment(client, options.pop("recipients"), sender="Shop", name="x",
                           directory=tmp_path, **options)  # fmt: skip
        assert first.path.read_bytes() == written


def test_a_record_edited_by_hand_is_refused(tmp_path: Path) -> None:
    """A record whose assignment names an arm that does not exist is refused, by field."""
    experiment = Experiment(None, FR, variants={"A": A, "B": A + "!"}, sender="Shop",
                            name="edited", seed=1, directory=tmp_path)  # fmt: skip
    experiment.record.write(experiment.path)
    body = json.loads(experiment.path.read_text())
    body["assignment"][0] = 7
    experiment.path.write_text(json.dumps(body))
    with pytest.raises(ConfigurationError, match="assignment"):
        Experiment.load("edited", directory=tmp_path)


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b'{"format": "smskit-experiment', "is not an experiment record: "),  # cut short
        (b"\xff\xfe{}", "is not an experiment record: "),  # not UTF-8
        (b"[1, 2]", "is not an experiment record (format "),
    ],
)
def test_a_file_that_is_no_experiment_record_is_refused_naming_it(
    content: bytes, says: str, tmp_path: Path
) -> None:
    """Experiment.load of a record file cut short, not UTF-8, or JSON of another shape:
    ConfigurationError naming the file, the file left as it was."""
    path = tmp_path / "broken.experiment.json"
    Experiment(None, FR, variants={"A": A, "B": A + "!"}, sender="Shop", name="broken",
               seed=1, directory=tmp_path).record.write(path)  # fmt: skip
    path.write_bytes(content)
    with pytest.raises(ConfigurationError) as refused:
        Experiment.load("broken", directory=tmp_path)
    assert str(refused.value).startswith(f"{str(path)!r} {says}")
    assert path.read_bytes() == content


@pytest.mark.parametrize("arms", [{}, {"A": A, "B": 7}, {"A": ["text"]}])
def test_a_record_whose_arms_are_not_texts_is_refused(arms: object, tmp_path: Path) -> None:
    """A record edited to hold no arm, or an arm whose text is not text: refused naming arms."""
    experiment = Experiment(None, FR, variants={"A": A, "B": A + "!"}, sender="Shop",
                            name="arms", seed=1, directory=tmp_path)  # fmt: skip
    experiment.record.write(experiment.path)
    body = json.loads(experiment.path.read_text())
    body["arms"] = arms
    experiment.path.write_text(json.dumps(body))
    with pytest.raises(ConfigurationError) as refused:
        Experiment.load("arms", directory=tmp_path)
    assert str(refused.value) == (
        f"experiment record {str(experiment.path)!r}: arms must map arm names to texts"
    )


def test_a_loaded_experiment_never_planned_refuses_to_send_preview_or_show_results(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A record whose arms were never journaled, loaded without its recipients: send() says
    to make the Experiment again with them (nothing sent, no journal made), preview() the
    same, results() that the arm has not been sent."""
    made = Experiment(None, FR, variants={"A": A, "B": A + "!"}, sender="Shop",
                      name="unplanned", seed=1, directory=tmp_path)  # fmt: skip
    made.record.write(made.path)
    with smskit.Client(sandbox=fresh_sandbox) as client:
        loaded = Experiment.load("unplanned", client, directory=tmp_path)
        with pytest.raises(ConfigurationError) as refused:
            loaded.send(progress=False)
        assert str(refused.value) == (
            "arm 'A' of experiment 'unplanned' was never journaled: make the Experiment "
            "again with its recipients (same name) to send it"
        )
        with pytest.raises(ConfigurationError) as refused:
            loaded.preview(offline=True, unit_prices={"FR": 0.05})
        assert "was loaded without its recipients: make it again with them" in str(refused.value)
        with pytest.raises(ConfigurationError) as refused:
            loaded.results()
        assert str(refused.value) == "arm 'A' of 'unplanned' has not been sent"
    assert len(fresh_sandbox.sent()) == 0
    assert not loaded.journal("A").exists() and not loaded.journal("B").exists()


def test_an_experiment_refuses_a_bad_progress_before_planning_an_arm(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Experiment.send(progress="yes"): refused naming progress, no record or arm journal
    written, nothing sent."""
    with smskit.Client(sandbox=fresh_sandbox) as client:
        experiment = Experiment(client, FR, variants={"A": A, "B": A + "!"}, sender="Shop",
                                name="bar", seed=1, directory=tmp_path)  # fmt: skip
        with pytest.raises(ValidationError) as refused:
            experiment.send(progress="yes")  # type: ignore[arg-type]
    assert str(refused.value) == (
        "progress: must be True, False or a dict of tqdm options (got 'yes')"
    )
    assert not experiment.path.exists() and not experiment.journal("A").exists()
    assert len(fresh_sandbox.sent()) == 0


@given(size=st.integers(0, 50), labels=st.integers(0, 50), arms=st.integers(-2, 3))
def test_assign_arms_refuses_no_arms_and_strata_of_another_length(
    size: int, labels: int, arms: int
) -> None:
    """assign_arms refuses fewer than one arm, and strata whose count is not the rows',
    naming the field (Experiment never asks either: its arms and strata come from the
    recipients)."""
    strata = ["FR"] * labels
    if arms < 1:
        with pytest.raises(ValidationError) as refused:
            assign_arms(size, arms, 1, strata)
        assert str(refused.value) == f"arms: must be at least 1 (got {arms})"
    elif labels != size:
        with pytest.raises(ValidationError) as refused:
            assign_arms(size, arms, 1, strata)
        assert str(refused.value) == f"strata: must have one label per row ({size}) (got {labels})"
    else:
        drawn = assign_arms(size, arms, 1, strata).tolist()
        assert sorted(set(drawn)) == list(range(min(arms, size)))


SEND = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    import smskit

    recipients = [f"+3366{i:07d}" for i in range(600)]
    client = smskit.Client(max_retries=10, backoff=smskit.Backoff(base=0.01, cap=0.05))
    experiment = smskit.Experiment(client, recipients, sender="Shop", name="killed",
                                   variants={"A": sys.argv[2], "B": sys.argv[3]},
                                   directory=Path(sys.argv[1]))
    experiment.send(chunk_size=50, concurrency=1, progress=False)
    print("finished", flush=True)
    """
)


def chunks_done(path: Path) -> int:
    """Chunks a journal records as accepted (0 while it does not exist yet)."""
    try:  # read-only: polling must not create the file before the child does
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            found = db.execute(
                "SELECT COUNT(*) FROM chunks WHERE state IN ('sent', 'already_accepted')"
            ).fetchone()
    except sqlite3.OperationalError:
        return 0
    return int(found[0])


def test_a_killed_send_resumes_without_splitting_again_or_sending_twice(
    fresh_sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An experiment's send SIGKILLed in another process midway through its first arm (its
    seed drawn there, never given) is resumed by Experiment.load without a client: the record
    is unchanged, every recipient gets its recorded arm's text exactly once."""
    fresh_sandbox.inject_faults(latency=(0.02, 0.04), seed=1)
    env = {
        **os.environ,
        "SMSKIT_API_LOGIN": fresh_sandbox.login,
        "SMSKIT_API_KEY": fresh_sandbox.api_key,
        "SMSKIT_BASE_URL": fresh_sandbox.url,
    }
    child = subprocess.Popen(
        [sys.executable, "-c", SEND, str(tmp_path), A, A + " Vite !"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    first_arm = tmp_path / "killed.A.journal.sqlite"
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and child.poll() is None and chunks_done(first_arm) < 2:
            time.sleep(0.005)
    finally:
        child.send_signal(signal.SIGKILL)
        _, err = child.communicate(timeout=30)
    assert child.returncode == -signal.SIGKILL, err.decode()
    fresh_sandbox.clear_faults()
    record = (tmp_path / "killed.experiment.json").read_bytes()
    before = len(fresh_sandbox.sent())
    assert 100 <= before < 600

    # No client: each arm goes back to the gateway its journal records, with the key the
    # environment gives (as Campaign.resume does).
    monkeypatch.setenv("SMSKIT_API_KEY", fresh_sandbox.api_key)
    experiment = Experiment.load("killed", directory=tmp_path)
    result = experiment.send(progress=False)
    assert result.complete
    assert (tmp_path / "killed.experiment.json").read_bytes() == record
    sent = fresh_sandbox.sent()
    numbers = [f"+3366{i:07d}" for i in range(600)]
    assert sorted(sent["phone_number"]) == sorted(numbers)  # each exactly once
    arms = dict(zip(numbers, experiment.assignment()["arm"].astype(str), strict=True))
    texts = {"A": A, "B": A + " Vite !"}
    assert all(texts[arms[n]] == t for n, t in zip(sent["phone_number"], sent["text"], strict=True))
    assert Counter(arms.values()) == {"A": 300, "B": 300}


SPREAD = HLRDistribution(line_status={"live": 0.7, "dead": 0.15, "absent_subscriber": 0.15})


def test_compare_counts_each_arm_as_the_inbox_received_it(tmp_path: Path) -> None:
    """End to end over real HTTP: two arms sent to 300 numbers on a seeded sandbox whose
    delivery reports, STOPs and replies reach an Inbox; compare()'s per-arm counts equal
    the Inbox's own frames split by the recorded arms, and its rates, intervals and test
    equal statsmodels' on those counts."""
    model = DeliveryModel.fast(seed=7, late_share=0.3, duplicate_share=0.3, stop_share=0.1)
    numbers = [f"+3367300{n:04d}" for n in range(300)]
    with (
        Inbox() as inbox,
        Sandbox(seed=3, hlr_distribution=SPREAD, delivery_model=model) as sb,
        smskit.Client(sandbox=sb) as client,
    ):
        sb.set_callback_url(inbox.url)
        experiment = Experiment(client, numbers, variants={"A": A, "B": A + " Vite !"},
                                sender="Shop", name="e2e", seed=9, directory=tmp_path,
                                with_replies=True)  # fmt: skip
        result = experiment.send(progress=False, chunk_size=100)
        for seed, (arm, rate) in enumerate((("A", 0.1), ("B", 0.25))):
            for ticket in result.arms[arm].chunks()["ticket"]:
                sb.simulate_campaign_replies(ticket, rate=rate, opt_out_share=0.2, seed=seed)
        sb.wait_for_deliveries(timeout=60)
        comparison = experiment.compare(inbox, lift=0.5)

        arms = experiment.assignment().set_index("phone_number")["arm"].astype(str)
        status = inbox.delivery_status()
        delivered = status.loc[status["status"] == "DELIVERED", "number"]
        repliers = set(inbox.to_frame()["number"])
        expected = {
            arm: {
                "sent": int((arms == arm).sum()),
                "delivered": int((delivered.map(arms) == arm).sum()),
                "replied": sum(arms[n] == arm for n in repliers),
                "opted_out": sum(arms[n] == arm for n in inbox.opt_outs()),
            }
            for arm in ("A", "B")
        }
    counts = comparison.counts.set_index(comparison.counts["arm"].astype(str))
    assert counts.drop(columns="arm").to_dict("index") == expected
    assert 0 < expected["A"]["delivered"] < expected["A"]["sent"]  # dead lines are not
    assert expected["A"]["replied"] < expected["B"]["replied"] and expected["B"]["opted_out"]
    rates = comparison.rates.set_index(["arm", "metric"])
    for arm, values in expected.items():
        low, high = proportion_confint(values["replied"], values["sent"], 0.05, "wilson")
        assert (rates.loc[(arm, "replied"), "ci_low"], rates.loc[(arm, "replied"), "ci_high"]) == (
            low,
            high,
        )
    z, p = proportions_ztest(
        [expected["B"]["replied"], expected["A"]["replied"]], [expected["B"]["sent"], 150]
    )
    test = comparison.tests.set_index("metric").loc["replied"]
    assert (test["z"], test["p_value"]) == (z, p)


def test_the_async_twins_preview_and_send_with_an_async_client(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """apreview and asend, awaited with an AsyncClient in the caller's loop, preview and
    send every arm (each number once, with its arm's text)."""

    async def run() -> tuple[Experiment, pd.DataFrame, ExperimentResult]:
        async with smskit.AsyncClient(sandbox=fresh_sandbox) as client:
            experiment = Experiment(client, FR, variants={"A": A, "B": A + " Vite !"},
                                    sender="Shop", seed=2, directory=tmp_path)  # fmt: skip
            preview = await experiment.apreview(offline=True)
            return experiment, preview, await experiment.asend(progress=False)

    experiment, preview, result = asyncio.run(run())
    assert preview["to_send"].tolist() == [30, 30] and result.complete
    sent = fresh_sandbox.sent()
    arms = experiment.assignment().set_index("phone_number")["arm"].astype(str)
    assert sorted(sent["phone_number"]) == sorted(FR)
    assert all(
        t == (A if arms[n] == "A" else A + " Vite !")
        for n, t in zip(sent["phone_number"], sent["text"], strict=True)
    )


def test_the_split_is_the_same_whichever_form_the_recipients_take(tmp_path: Path) -> None:
    """The same rows as dicts, a DataFrame, a CSV file or an Arrow table, with one seed: the
    same recipients (digest) and the same arms, per country (stratified)."""
    import pyarrow as pa

    rows = [{"phone_number": n, "first_name": f"P{i}"} for i, n in enumerate(FR + ES + BE)]
    frame = pd.DataFrame(rows)
    path = tmp_path / "people.csv"
    frame.to_csv(path, index=False)
    forms = [rows, frame, path, pa.Table.from_pandas(frame)]
    options = {"sender": "Shop", "seed": 4, "stratify": "country", "directory": tmp_path}
    splits = [Experiment(None, form, variants={"A": A, "B": B}, **options) for form in forms]
    first = splits[0]
    assert first.assignment()["stratum"].tolist() == [country_of(n) for n in FR + ES + BE]
    for other in splits[1:]:
        assert other.record.numbers == first.record.numbers
        assert other.record.assignment == first.record.assignment
        assert other.record.strata == first.record.strata


@pytest.mark.parametrize("directory", [3, "", b"/tmp"])
def test_a_directory_that_is_not_a_path_is_refused(directory: object) -> None:
    """directory= takes a str or a Path; anything else is refused by name, nothing written."""
    with pytest.raises(ValidationError) as caught:
        Experiment(None, FR, variants={"A": A, "B": B}, sender="Shop", directory=directory)  # type: ignore[arg-type]
    assert caught.value.field == "directory"


def test_the_arms_share_one_client(fresh_sandbox: Sandbox, tmp_path: Path) -> None:
    """Given a client, every arm sends through it; given none, one Client is made for all
    the arms when the first needs it (not one per arm)."""
    with smskit.Client(sandbox=fresh_sandbox) as client:
        given = Experiment(client, FR, variants={"A": A, "B": B}, sender="Shop",
                           directory=tmp_path)  # fmt: skip
        given.preview()
        assert all(arm.client is client for arm in given.arms.values())
    made = Experiment(None, FR, variants={"A": A, "B": B}, sender="Shop", directory=tmp_path)
    assert made.client is None
    made.preview()
    assert isinstance(made.client, smskit.Client)
    assert all(arm.client is made.client for arm in made.arms.values())


def test_an_experiment_sent_to_an_ended_sandbox_says_how_to_send_it_again(
    tmp_path: Path,
) -> None:
    """Its sandbox stopped (a new process, a kernel restart), the experiment made again and
    sent, or loaded and sent, is refused before any request with an experiment's advice:
    its results read, another name to send again; never "send the campaign again", which
    would hit the same refusal. Its results still read."""
    variants = {"A": A, "B": A.replace("-20%", "-30%")}
    numbers = FR[:10]
    with Sandbox(seed=1) as first, smskit.Client(sandbox=first) as client:
        Experiment(client, numbers, variants=variants, sender="Shop", name="ab", seed=5,
                   purpose="alert", directory=tmp_path).send(progress=False)  # fmt: skip
    with Sandbox(seed=2) as second, smskit.Client(sandbox=second) as client:
        again = Experiment(client, numbers, variants=variants, sender="Shop", name="ab",
                           purpose="alert", directory=tmp_path)  # fmt: skip
        loaded = Experiment.load("ab", directory=tmp_path)
        for experiment in (again, loaded):
            with pytest.raises(smskit.SandboxEndedError) as caught:
                experiment.send(progress=False)
            message = str(caught.value)
            assert "send the campaign again" not in message
            assert "Experiment.load('ab').results()" in message and "another name=" in message
        assert len(second.sent()) == 0
    assert loaded.results().summary()["sent"].sum() == 10
