"""The typed record of a campaign as journaled: one codec to and from the journal's meta."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from smskit.campaigns.sending.journal import Journal
from smskit.campaigns.sending.record import RECORD_VERSION, CampaignRecord, JournaledGateway

texts = st.text(min_size=1, max_size=20)
records = st.builds(
    CampaignRecord,
    campaign_id=texts,
    name=st.none() | texts,
    text=st.none() | texts,
    sender=st.none() | texts,
    options=st.none() | st.dictionaries(texts, st.integers() | texts, max_size=3),
    gateway=st.none()
    | st.builds(JournaledGateway, base_url=texts, api_login=texts, sandbox=st.booleans()),
    include_opted_out=st.booleans(),
    chunk_size=st.none() | st.integers(1, 500),
    recipients=st.none() | st.integers(0, 10**6),
    to_send=st.none() | st.integers(0, 10**6),
    experiment=st.none() | st.fixed_dictionaries({"name": texts, "arm": texts}),
    digests=st.none() | st.lists(texts, max_size=3).map(tuple),
)


@given(records)
def test_a_record_reads_back_as_written(record: CampaignRecord) -> None:
    """from_meta(to_meta(r)) is r, whatever the fields (the journal adds only its own)."""
    assert CampaignRecord.from_meta(record.to_meta()) == record


def test_a_journal_holds_its_record_and_its_kind(tmp_path: Path) -> None:
    """A journal initialised with a record gives it back typed, with the journal's creation
    time and format; a streamed record (digests) says so; version 1 when a journal has none."""
    gateway = JournaledGateway("http://127.0.0.1:9/", "me", sandbox=True)
    record = CampaignRecord("c1", name="n", text="x STOP", sender="Shop", options={},
                            gateway=gateway, digests=("a", "b"))  # fmt: skip
    with Journal(tmp_path / "j.sqlite", mode="create") as book:
        assert book.record() is None
        book.initialise(record, {"phone_number": [], "row": [], "segments": []}, [], [])
        held = book.held()
    assert held.replace(created_at=None, format=None) == record
    assert held.kind == "streamed" and held.created_at is not None
    assert held.gateway is not None and held.gateway.account == ("http://127.0.0.1:9", "me")
    assert CampaignRecord.from_meta({"campaign_id": "c"}).version == 1 == RECORD_VERSION
    assert CampaignRecord.from_meta({"campaign_id": "c"}).kind == "planned"


@pytest.mark.parametrize(
    ("meta", "named"),
    [
        ({"campaign_id": "c", "name": 5}, "'name' is not a text"),
        ({"campaign_id": "c", "recipients": "9"}, "'recipients' is not a number"),
        ({"campaign_id": "c", "options": []}, "'options' is not a mapping"),
        ({"campaign_id": "c", "experiment": {"name": "e"}}, "'experiment' 'arm'"),
        ({"name": "n"}, "'campaign_id'"),
    ],
)
def test_a_value_of_the_wrong_type_is_refused_naming_its_key(meta: dict, named: str) -> None:
    """A meta value the record cannot read exactly is a ValueError naming the key."""
    with pytest.raises(ValueError, match=named):
        CampaignRecord.from_meta(meta)
