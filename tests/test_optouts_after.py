"""The opt-out list after the send: one account's inbox is never absorbed into another's
list, the list's own export imports back exactly (short numbers a STOP carried too), a
number is read the way preflight reads it, a replaced file is read anew, and a list no
preflight reads says so."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import smskit
from smskit.errors import ConfigurationError, ValidationError
from smskit.replies import Inbox
from smskit.replies.optouts import (
    PATH_VARIABLE,
    OptOutEvent,
    OptOuts,
    OptOutsNotReadWarning,
    listed_numbers,
    optouts_path,
)
from smskit.sandbox import Sandbox

A = ("https://gw.example", "acme")
B = ("https://gw.example", "other")
TEXT = "Soldes -20% ce week-end ! STOP au 36173"


def _inbox_of(account: tuple[str, str], path: Path) -> Path:
    """An inbox file that records ``account`` and holds one STOP reply."""
    with Inbox(path, account=account, optouts_path=path.with_suffix(".lists")) as inbox:
        inbox._store.add(_stop_reply("+33612345678"))
    return path


def _stop_reply(number: str) -> smskit.replies.receiver.Reply:
    from datetime import UTC, datetime

    from smskit.replies.receiver import Reply
    from smskit.replies.reports import micros

    now = datetime.now(UTC)
    return Reply("m-1", number, "STOP", "36173", micros(now), now.strftime("%Y-%m-%d %H:%M:%S"))


# -- absorb: one account's inbox --------------------------------------------------------------


def test_absorbing_another_accounts_inbox_is_refused_naming_both(tmp_path: Path) -> None:
    """OptOuts(B).absorb(inbox of A) raises naming both accounts and lists nothing; A's own
    list takes it."""
    inbox = Inbox(_inbox_of(A, tmp_path / "a.sqlite"))
    with OptOuts(B, path=tmp_path / "o.sqlite") as other:
        with pytest.raises(ConfigurationError) as caught:
            other.absorb(inbox)
        assert len(other) == 0 and other.history().empty
    assert "'acme'" in str(caught.value) and "'other'" in str(caught.value)
    with OptOuts(A, path=tmp_path / "o.sqlite") as own:
        assert own.absorb(inbox) == 1 and "+33612345678" in own


def test_the_cli_refuses_to_absorb_another_accounts_inbox(tmp_path: Path) -> None:
    """`smskit optouts absorb` (a real process) of A's inbox as B exits 4 naming both
    accounts on stderr, nothing on stdout; as A it exits 0."""
    inbox = _inbox_of(A, tmp_path / "a.sqlite")
    env = {**os.environ, "SMSKIT_BASE_URL": B[0]}
    command = [sys.executable, "-m", "smskit", "optouts", "absorb", str(inbox)]
    refused = subprocess.run(
        [*command, "--login", B[1]], env=env, capture_output=True, text=True, check=False
    )
    assert refused.returncode == 4, refused.stderr
    assert "'acme'" in refused.stderr and "'other'" in refused.stderr
    assert refused.stdout == ""
    taken = subprocess.run(
        [*command, "--login", A[1]], env=env, capture_output=True, text=True, check=False
    )
    assert taken.returncode == 0 and "1 number(s) added" in taken.stdout


# -- export then import: exactly the same list -------------------------------------------------

VALID = st.sampled_from(
    ["+33612345678", "+33612345699", "+447700900123", "+32472782489", "+14155550123"]
)
# Any text a CSV can hold (a NUL cannot: to_csv refuses it, tested below).
TEXT_CHARS = st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="\x00")
# What a STOP callback may carry: a valid number, a short number, digits, any text.
GIVEN = st.one_of(
    VALID,
    st.sampled_from(["+3361234", "36173", "+33 6 12", "0033612", "12", "+1"]),
    st.from_regex(r"\+?[0-9]{1,9}", fullmatch=True),
    st.text(alphabet=TEXT_CHARS, min_size=1, max_size=12).filter(str.strip),
)  # fmt: skip
NOTE = st.one_of(st.none(), st.text(alphabet=TEXT_CHARS, min_size=1, max_size=20))
EVENT = st.tuples(GIVEN, st.sampled_from(["stop_callback", "stop_reply"]),
                  st.integers(min_value=0, max_value=2**50))  # fmt: skip


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(events=st.lists(EVENT, max_size=8), hand=st.lists(st.tuples(VALID, NOTE), max_size=4))
def test_export_then_import_into_another_login_round_trips_every_list(
    tmp_path: Path, events: list[tuple[str, str, int]], hand: list[tuple[str, str | None]]
) -> None:
    """Any list (STOPs carrying any number, short ones kept as given; numbers added by hand
    with notes) exported with to_csv imports into another login as the same frame."""
    path = Path(tempfile.mkdtemp(dir=tmp_path)) / "o.sqlite"  # one file per example
    csv = path.with_suffix(".csv")
    with OptOuts(A, path=path) as source:
        source.record(
            OptOutEvent(number, kind, f"ref-{i}", at) for i, (number, kind, at) in enumerate(events)
        )
        for number, note in hand:
            source.add([number], note=note)
        written = source.to_csv(csv)
        before = source.to_frame("UTC")
    with OptOuts(B, path=path) as target:
        assert target.import_csv(csv) == written == len(before)
        after = target.to_frame("UTC")
    pd.testing.assert_frame_equal(before, after)


def test_a_short_number_a_stop_carried_round_trips(tmp_path: Path) -> None:
    """The case found by hand: +3361234 from a STOP, exported, imports into another login."""
    with OptOuts(A, path=tmp_path / "o.sqlite") as source:
        source.record([OptOutEvent("+3361234", "stop_callback", "k", 1)])
        source.to_csv(tmp_path / "l.csv")
    with OptOuts(B, path=tmp_path / "o.sqlite") as target:
        assert target.import_csv(tmp_path / "l.csv") == 1
        assert target.numbers() == frozenset({"+3361234"}) and "+3361234" in target


def test_a_hand_row_that_is_not_a_number_is_still_refused(tmp_path: Path) -> None:
    """Only a callback's row keeps a number as given: a manual one must be valid."""
    (tmp_path / "l.csv").write_text("phone_number,source\n+3361234,manual\n")
    with (
        OptOuts(B, path=tmp_path / "o.sqlite") as target,
        pytest.raises(smskit.ValidationError, match="not a valid phone number"),
    ):
        target.import_csv(tmp_path / "l.csv")


def test_a_list_a_csv_cannot_carry_is_refused_not_written(tmp_path: Path) -> None:
    """A NUL in a callback's number or a note: to_csv refuses naming the column and row,
    and writes no file (rather than one import_csv would refuse)."""
    with OptOuts(A, path=tmp_path / "o.sqlite") as source:
        source.add(["+33612345678"], note="fine")
        source.record([OptOutEvent("+33\x0061", "stop_callback", "k", 2**40)])
        with pytest.raises(smskit.ValidationError) as caught:
            source.to_csv(tmp_path / "l.csv")
    assert caught.value.field == "optouts.phone_number" and caught.value.position == 0  # earliest
    assert not (tmp_path / "l.csv").exists()


# -- one reader of numbers --------------------------------------------------------------------

SPELLINGS = ["+33612345678", "06 12 34 56 78", "0612345678", "0033612345678", "06.12.34.56.78",
             612345678, np.int64(612345678), np.int32(612345678)]  # fmt: skip
# A float is refused by both (tests/test_float_numbers.py).


@pytest.mark.parametrize("spelling", SPELLINGS, ids=repr)
def test_a_listed_number_is_in_the_list_however_preflight_would_read_it(spelling: object) -> None:
    """`x in OptOuts(client)` agrees with preflight (which excludes x) for every spelling,
    numpy integers included; add() takes a numpy integer like an int."""
    with Sandbox() as sb, smskit.Client(sandbox=sb) as client:
        with OptOuts(client) as listed:
            listed.add(np.int64(612345678))
            assert listed.numbers() == frozenset({"+33612345678"})
            inside = spelling in listed
        report = smskit.Campaign(
            client, [{"phone_number": spelling}], text=TEXT, sender="Shop"
        ).preflight(offline=True)
    excluded = (report.frame["issue"] == "opted_out").tolist()
    assert inside and excluded == [True]


def test_numbers_not_listed_or_unreadable_are_not_in_the_list(tmp_path: Path) -> None:
    """Another number, a bool, None and an object are not in the list (never raise)."""
    with OptOuts(A, path=tmp_path / "o.sqlite") as listed:
        listed.add(["+33612345678"])
        for value in ("+33612345679", True, None, object(), 3.5, ""):
            assert value not in listed


# -- a replaced file ----------------------------------------------------------------------------


def test_a_list_file_replaced_while_running_is_read_anew(tmp_path: Path) -> None:
    """Preflight's reading and an open OptOuts both read the file now at the path after it
    is replaced (another inode, the same version number), not the old one."""
    with OptOuts(A) as open_list:
        open_list.add(["+33612345678"])
        assert listed_numbers(A)[1] == frozenset({"+33612345678"})
        other = tmp_path / "restored.sqlite"
        with OptOuts(A, path=other) as restored:
            restored.add(["+447700900123"])
        os.replace(other, optouts_path())
        assert listed_numbers(A)[1] == frozenset({"+447700900123"})
        assert open_list.numbers() == frozenset({"+447700900123"})
        assert "+33612345678" not in open_list
        optouts_path().unlink()
        assert listed_numbers(A) == (0, frozenset())


# -- a list no preflight reads -------------------------------------------------------------------


def test_a_list_at_another_path_warns_and_the_variable_makes_preflight_read_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OptOuts(path=...) and Inbox(optouts_path=...) elsewhere than the preflight's file warn
    (naming SMSKIT_OPTOUTS_PATH); with the variable set to that file, no warning, and
    preflight excludes its numbers."""
    custom = tmp_path / "team-list.sqlite"
    with Sandbox() as sb, smskit.Client(sandbox=sb) as client:
        with pytest.warns(OptOutsNotReadWarning, match=PATH_VARIABLE):
            OptOuts(client, path=custom).add(["+33612345678"])
        with pytest.warns(OptOutsNotReadWarning, match=PATH_VARIABLE):
            Inbox(account=client, optouts_path=tmp_path / "inbox-list.sqlite").stop()
        campaign = smskit.Campaign(client, ["+33612345678"], text=TEXT, sender="Shop")
        assert campaign.preflight(offline=True).frame["issue"].isna().all()
        monkeypatch.setenv(PATH_VARIABLE, str(custom))
        with warnings.catch_warnings():
            warnings.simplefilter("error", OptOutsNotReadWarning)
            OptOuts(client, path=custom).close()
        frame = campaign.preflight(offline=True).frame
    assert frame["issue"].tolist() == ["opted_out"]


def test_the_variable_naming_a_missing_directory_stops_every_send(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SMSKIT_OPTOUTS_PATH in a directory that does not exist (a typo): preflight refuses
    naming the variable, and `smskit send` (exit 3) sends nothing over HTTP; it was read as
    "no list yet" and sent to the numbers the real list holds."""
    typo = tmp_path / "lists-typo" / "optouts.sqlite"
    monkeypatch.setenv(PATH_VARIABLE, str(typo))
    with Sandbox() as sb, smskit.Client(sandbox=sb) as client:
        campaign = smskit.Campaign(client, ["+33612345678"], text=TEXT, sender="Shop")
        with pytest.raises(ValidationError, match=f"^{PATH_VARIABLE}: ") as refused:
            campaign.preflight(offline=True)
        assert "does not exist" in str(refused.value) and f"unset {PATH_VARIABLE}" in str(
            refused.value
        )
        env = {**os.environ, "SMSKIT_BASE_URL": sb.url, "SMSKIT_API_LOGIN": sb.login,
               "SMSKIT_API_KEY": sb.api_key, PATH_VARIABLE: str(typo)}  # fmt: skip
        done = subprocess.run(
            [sys.executable, "-m", "smskit", "send", "--to", "+33612345678", "--text", "Rappel",
             "--sender", "Clinic", "--purpose", "alert", "--yes"],
            env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert done.returncode == 3, done.stderr
        assert PATH_VARIABLE in done.stderr and len(done.stderr.strip().splitlines()) == 1
        assert sb.sent().empty
    assert not typo.parent.exists()


def test_the_cli_says_when_its_path_is_not_the_preflights_list(tmp_path: Path) -> None:
    """`smskit optouts add --path X` (a real process) adds, exits 0 and warns on stderr
    naming the variable; with SMSKIT_OPTOUTS_PATH=X it says nothing."""
    custom = tmp_path / "x.sqlite"
    env = {**os.environ, "SMSKIT_BASE_URL": A[0], "SMSKIT_API_LOGIN": A[1]}
    env.pop(PATH_VARIABLE, None)
    command = [sys.executable, "-m", "smskit", "optouts", "add", "+33612345678", "--path",
               str(custom)]  # fmt: skip
    said = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    assert said.returncode == 0, said.stderr
    assert "warning:" in said.stderr and PATH_VARIABLE in said.stderr
    quiet = subprocess.run(
        [*command[:5], "+33612345679", *command[6:]], env={**env, PATH_VARIABLE: str(custom)},
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert quiet.returncode == 0 and quiet.stderr == ""
