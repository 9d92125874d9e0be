"""The opt-out list: the pure rule (property and differential tests), the store keyed by
gateway and login, its trace, CSV export and import, and refusals."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import smskit
from smskit.campaigns.planning.orchestration import preflight
from smskit.campaigns.planning.preflight import PreflightSettings
from smskit.errors import ConfigurationError, ValidationError
from smskit.replies import Inbox
from smskit.replies.optouts import OptOutEvent, OptOuts, listed_numbers
from smskit.rules.optouts import Suppression, check_include_opted_out, opted_out
from smskit.rules.phonecheck import to_e164
from smskit.rules.recipients import Recipients
from smskit.sandbox import Sandbox

GATEWAY = ("https://gw.example", "acme")
E164 = st.integers(0, 99_999_999).map(lambda n: f"+336{n:08d}")


# -- the rule ------------------------------------------------------------------------------


@given(
    numbers=st.lists(st.one_of(E164, st.none()), max_size=40),
    listed=st.lists(E164, max_size=20),
    pick=st.lists(st.integers(0, 39), max_size=10),
)
def test_opted_out_is_membership_of_the_e164_number(
    numbers: list[str | None], listed: list[str], pick: list[int]
) -> None:
    """opted_out equals a per-number set lookup; a missing number is never listed."""
    chosen = [numbers[i] for i in pick if i < len(numbers) and numbers[i] is not None]
    suppressed = frozenset([*listed, *chosen])  # type: ignore[list-item]
    got = opted_out(pd.array(numbers, dtype="string"), suppressed)
    expected = [n is not None and n in suppressed for n in numbers]
    assert got.dtype == bool and got.tolist() == expected


SPELLINGS = st.sampled_from(
    [
        lambda e: e,
        lambda e: "0" + e[3:],
        lambda e: "0033 " + e[3:],
        lambda e: "0" + " ".join(e[3 + i : 5 + i] for i in range(0, 9, 2)),
        lambda e: "+33 (0)" + e[3:],
    ]
)


@settings(max_examples=30, deadline=None)
@given(
    numbers=st.lists(E164, min_size=1, max_size=15, unique=True),
    spell=st.lists(SPELLINGS, min_size=15, max_size=15),
    listed=st.sets(st.integers(0, 14)),
)
def test_preflight_excludes_a_listed_number_however_it_is_spelled(
    numbers: list[str], spell: list, listed: set[int]
) -> None:
    """Differential: preflight's opted_out rows are exactly those whose number, read by the
    per-number reference (to_e164), is on the list; spellings do not matter."""
    given_numbers = [spell[i](n) for i, n in enumerate(numbers)]
    suppressed = frozenset(numbers[i] for i in listed if i < len(numbers))
    report = preflight(
        Recipients(given_numbers),
        PreflightSettings(text="Bonjour STOP au 36173", sender="Shop"),
        now=pd.Timestamp("2026-03-03T10:00:00+01:00").to_pydatetime(),
        suppression=Suppression(suppressed),
    )
    expected = [to_e164(n, "FR") in suppressed for n in given_numbers]
    assert (report.frame["issue"] == "opted_out").tolist() == expected
    assert not report.frame.loc[expected, "send"].any()


@pytest.mark.parametrize("purpose", [None, "wholesale"])
def test_including_opted_out_numbers_is_refused_for_marketing(purpose: str | None) -> None:
    """include_opted_out=True with a marketing purpose raises, naming the option."""
    with pytest.raises(ValidationError) as caught:
        check_include_opted_out(True, purpose)
    assert caught.value.field == "include_opted_out"
    assert check_include_opted_out(True, "alert") is True
    assert check_include_opted_out(False, purpose) is False


def test_include_opted_out_must_be_a_bool() -> None:
    """A truthy non-bool (a string) is refused rather than read as yes."""
    with pytest.raises(ValidationError, match="True or False"):
        check_include_opted_out("yes", "alert")


# -- the store -----------------------------------------------------------------------------


def test_each_gateway_and_login_has_its_own_list(tmp_path: Path) -> None:
    """A second gateway, or another login, does not see the first one's list; a trailing
    slash is the same gateway."""
    path = tmp_path / "optouts.sqlite"
    with OptOuts(GATEWAY, path=path) as first:
        assert first.add(["+33612345678"]) == 1
    with OptOuts(("https://gw.example/", "acme"), path=path) as same:
        assert same.numbers() == frozenset({"+33612345678"})
    with OptOuts(("https://other.example", "acme"), path=path) as other:
        assert other.numbers() == frozenset() and len(other) == 0
    with OptOuts(("https://gw.example", "someone"), path=path) as login:
        assert "+33612345678" not in login


def test_a_second_sandbox_does_not_see_the_first_ones_list() -> None:
    """Keyed by the client's base URL and login: two sandboxes, two lists (default file)."""
    with (
        Sandbox() as first,
        Sandbox() as second,
        smskit.Client(sandbox=first) as one,
        smskit.Client(sandbox=second) as two,
    ):
        smskit.OptOuts(one).add(["+33612345678"])
        assert listed_numbers(one)[1] == frozenset({"+33612345678"})
        assert listed_numbers(two)[1] == frozenset()


def test_numbers_are_kept_in_e164_and_bad_ones_refuse_the_call(tmp_path: Path) -> None:
    """add reads numbers like recipients (06 ... in FR) and refuses an invalid one naming
    its position, writing nothing."""
    with OptOuts(GATEWAY, path=tmp_path / "o.sqlite") as optouts:
        with pytest.raises(ValidationError) as caught:
            optouts.add(["06 12 34 56 78", "not a number"])
        assert caught.value.position == 1 and len(optouts) == 0
        assert optouts.add(["06 12 34 56 78", "+33612345678"]) == 1
        assert optouts.numbers() == frozenset({"+33612345678"})


def test_a_callback_is_taken_once_however_often_it_is_offered(tmp_path: Path) -> None:
    """The same STOP recorded twice adds one number and one event."""
    event = OptOutEvent("+33612345678", "stop_callback", "key-1", 1_000_000)
    with OptOuts(GATEWAY, path=tmp_path / "o.sqlite") as optouts:
        assert optouts.record([event]) == 1
        assert optouts.record([event, event]) == 0
        assert len(optouts.history()) == 1 and len(optouts) == 1


def test_removing_by_hand_leaves_a_trace_and_an_older_stop_does_not_undo_it(
    tmp_path: Path,
) -> None:
    """remove() unlists with its note in history(); a STOP dated before the removal is
    noted, not listed again; a later STOP lists it again."""
    number = "+33612345678"
    with OptOuts(GATEWAY, path=tmp_path / "o.sqlite") as optouts:
        optouts.record([OptOutEvent(number, "stop_reply", "m-1", 1_000_000)])
        assert optouts.remove([number], note="typed by mistake") == 1
        assert number not in optouts
        optouts.record([OptOutEvent(number, "stop_callback", "old", 2_000_000)])
        assert number not in optouts
        history = optouts.history("UTC")
        assert history["action"].astype(str).tolist() == ["added", "removed", "kept_removed"]
        assert history.loc[1, "note"] == "typed by mistake" and history.loc[1, "via"] == "hand"
        later = int(pd.Timestamp.now("UTC").value // 1000) + 60_000_000
        assert optouts.record([OptOutEvent(number, "stop_callback", "new", later)]) == 1
        assert number in optouts


def test_the_frame_has_one_row_per_number_with_its_source(tmp_path: Path) -> None:
    """to_frame: phone_number, when, source (categorical), reference, note; first first."""
    with OptOuts(GATEWAY, path=tmp_path / "o.sqlite") as optouts:
        optouts.record([OptOutEvent("+33612345679", "stop_callback", "k", 5_000_000)])
        optouts.record([OptOutEvent("33612345678", "stop_reply", "m", 1_000_000)])
        frame = optouts.to_frame("UTC")
    assert frame["phone_number"].tolist() == ["+33612345678", "+33612345679"]
    assert frame["source"].astype(str).tolist() == ["stop_reply", "stop_callback"]
    assert frame["opted_out_at"].iloc[0] == pd.Timestamp(1_000_000, unit="us", tz="UTC")
    assert isinstance(frame["source"].dtype, pd.CategoricalDtype)


def test_csv_round_trip_gives_the_same_list(tmp_path: Path) -> None:
    """to_csv then import_csv into another account: the same frame, row for row."""
    path = tmp_path / "o.sqlite"
    with OptOuts(GATEWAY, path=path) as source:
        source.record([OptOutEvent("+33612345678", "stop_callback", "k-1", 1_500_000)])
        source.record([OptOutEvent("+447700900123", "stop_reply", "m-9", 2_500_000)])
        source.add(["+33612345699"], note='asked on the phone, é, "quoted", a,b')
        written = source.to_csv(tmp_path / "list.csv")
        before = source.to_frame("UTC")
    with OptOuts(("https://other.example", "acme"), path=path) as target:
        assert target.import_csv(tmp_path / "list.csv") == written == 3
        after = target.to_frame("UTC")
        assert target.import_csv(tmp_path / "list.csv") == 0  # already listed
    pd.testing.assert_frame_equal(before, after)


@pytest.mark.parametrize(
    ("body", "field", "position"),
    [
        ("phone_number\n+33612345678\n+3361234\n", "optouts.phone_number", 1),
        (
            "phone_number,opted_out_at\n+33612345678,2026-11-24 10:00:00\n",
            "optouts.opted_out_at",
            0,
        ),
        ("phone_number,source\n+33612345678,\n+33612345679,carrier\n", "optouts.source", 1),
        ("number\n+33612345678\n", "optouts", None),
    ],
)
def test_a_broken_csv_is_refused_naming_row_and_rule_and_nothing_is_written(
    tmp_path: Path, body: str, field: str, position: int | None
) -> None:
    """An unreadable row (a bad number, a date without offset, an unknown source, no
    phone_number column) refuses the whole file; the list is unchanged."""
    csv_path = tmp_path / "broken.csv"
    csv_path.write_text(body, encoding="utf-8")
    with OptOuts(GATEWAY, path=tmp_path / "o.sqlite") as optouts:
        with pytest.raises(ValidationError) as caught:
            optouts.import_csv(csv_path)
        assert len(optouts) == 0 and len(optouts.history()) == 0
    assert caught.value.field == field and caught.value.position == position


def test_a_csv_that_is_not_utf8_is_refused_naming_the_line(tmp_path: Path) -> None:
    """Bytes that are not UTF-8 are refused by the CSV reader with their line."""
    csv_path = tmp_path / "latin1.csv"
    csv_path.write_bytes("phone_number,note\n+33612345678,caf\xe9\n".encode("latin-1"))
    with OptOuts(GATEWAY, path=tmp_path / "o.sqlite") as optouts:
        with pytest.raises(ValidationError) as caught:
            optouts.import_csv(csv_path)
        assert caught.value.line == 2 and len(optouts) == 0


def test_a_file_of_another_kind_is_refused_and_left_unchanged(tmp_path: Path) -> None:
    """An inbox file given as the opt-out list: ConfigurationError, the file untouched."""
    path = tmp_path / "inbox.sqlite"
    Inbox(path)
    before = path.read_bytes()
    with pytest.raises(ConfigurationError, match="not an opt-out list"):
        OptOuts(GATEWAY, path=path)
    assert path.read_bytes() == before
    with sqlite3.connect(path) as db:
        assert "optouts" not in {n for (n,) in db.execute("SELECT name FROM sqlite_master")}


def test_an_inbox_without_account_is_absorbed_once(tmp_path: Path) -> None:
    """OptOuts.absorb(inbox) takes the STOP replies an Inbox received over HTTP; absorbing
    again adds nothing."""
    with Sandbox() as sb, Inbox() as inbox, smskit.Client(sandbox=sb) as client:
        sb.set_callback_url(inbox.url)
        sb.simulate_reply("+33612345678", "STOP")
        sb.simulate_reply("+33612345679", "Merci, à bientôt")
        inbox.wait(2)
        with smskit.OptOuts(client, path=tmp_path / "o.sqlite") as optouts:
            assert optouts.absorb(inbox) == 1
            assert optouts.absorb(inbox) == 0
            assert optouts.numbers() == frozenset({"+33612345678"})


def test_listed_numbers_follow_every_change(tmp_path: Path) -> None:
    """What preflight reads changes version with each change (read once per version)."""
    path = tmp_path / "o.sqlite"
    version, numbers = listed_numbers(GATEWAY, path)
    assert numbers == frozenset()
    with OptOuts(GATEWAY, path=path) as optouts:
        optouts.add(["+33612345678"])
        changed, numbers = listed_numbers(GATEWAY, path)
        assert changed != version and numbers == frozenset({"+33612345678"})
        optouts.remove(["+33612345678"])
        after, numbers = listed_numbers(GATEWAY, path)
        assert after > changed and numbers == frozenset()
    assert np.array_equal(opted_out(["+33612345678"], numbers), [False])


def test_reading_a_list_creates_no_file(tmp_path: Path) -> None:
    """A preflight's read of an account without a list file leaves the directory empty."""
    path = tmp_path / "never.sqlite"
    assert listed_numbers(GATEWAY, path) == (0, frozenset())
    assert not path.exists()


def test_a_string_naming_a_file_is_refused_advising_import_csv(tmp_path: Path) -> None:
    """add("list.csv") was one invalid number (contains_letters); it names a file, so the
    refusal says so and points at import_csv, at its position; nothing is written."""
    listing = tmp_path / "list.csv"
    listing.write_text("phone_number\n+33612345678\n", encoding="utf-8")
    with OptOuts(GATEWAY, path=tmp_path / "o.sqlite") as optouts:
        for given in (str(listing), "other.parquet"):
            with pytest.raises(ValidationError, match=r"names a file.*import_csv") as caught:
                optouts.add(["+33612345679", given])
            assert caught.value.position == 1 and caught.value.value == given
        assert len(optouts) == 0


@pytest.mark.parametrize("column", ["note", "reference"])
def test_a_list_holding_a_nul_character_is_not_written_as_csv(tmp_path: Path, column: str) -> None:
    """A note typed with a NUL, or a callback's reference carrying one: to_csv refuses
    naming the column, the row and the value, and writes no file (import_csv could not
    read it back)."""
    target = tmp_path / "list.csv"
    with OptOuts(GATEWAY, path=tmp_path / "o.sqlite") as optouts:
        optouts.add(["+33612345678"], note="first")
        if column == "note":
            optouts.add(["+33612345699"], note="asked\x00twice")
        else:
            optouts.record([OptOutEvent("+33612345699", "stop_callback", "k\x001", 1_500_000)])
        with pytest.raises(ValidationError) as caught:
            optouts.to_csv(target)
        listed = optouts.to_frame("UTC")["phone_number"].tolist()
    assert caught.value.field == f"optouts.{column}"
    assert caught.value.position == listed.index("+33612345699")  # its row in the list
    assert caught.value.rule == (
        "holds a NUL character, which a CSV file cannot carry: nothing written"
    )
    assert "\x00" in caught.value.value
    assert not target.exists()
