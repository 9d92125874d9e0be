"""One rule for counting a result's closed values: a missing value (a JSON null, an absent
field) is counted under "(missing)", never dropped, in the repr, the HTML summary and the
frame alike; the counts add up to the items. (``ContactItems``' and ``HLRResults``' reprs
dropped items whose status was None while their HTML showed them as "(missing)".)"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from smskit.client.models import ContactItems, HLRResults
from smskit.rules.spec import CONTACT_ITEM_STATUS, HLR_STATUS

ABSENT = object()  # the field left out of the item


def statuses(spec: tuple[str, ...]) -> st.SearchStrategy[list[Any]]:
    """Each item's status: a spec value, one the spec does not list, null or absent."""
    value = st.sampled_from([*spec, "merged", "Valid", ""]) | st.none() | st.just(ABSENT)
    return st.lists(value, max_size=12)


def bodies(values: list[Any]) -> list[dict[str, Any]]:
    return [
        {"phone_number": f"+336123456{n:02d}", **({} if v is ABSENT else {"status": v})}
        for n, v in enumerate(values)
    ]


def repr_counts(text: str, noun: str) -> tuple[int, dict[str, int]]:
    """(the item count, {value: count}) a repr says: "<X 3 noun: 2 a, 1 (missing)>"."""
    found = re.fullmatch(rf"<\w+ (\d+) {noun}(?:: (.*))?>", text)
    assert found is not None, text
    pairs = [part.split(" ", 1) for part in found[2].split(", ")] if found[2] else []
    return int(found[1]), {value: int(count) for count, value in pairs}


def frame_counts(column: pd.Series) -> dict[str, int]:
    """The frame's own count of the column, NaN as "(missing)": the oracle."""
    counted = Counter("(missing)" if pd.isna(v) else str(v) for v in column.astype(object))
    return dict(counted)


@given(statuses(CONTACT_ITEM_STATUS))
def test_contact_items_count_every_status_the_same_way_everywhere(values: list[Any]) -> None:
    """ContactItems: the repr's tally equals the frame's counts (missing included), adds up
    to the items, and is the HTML summary's."""
    items = ContactItems.from_json({"items": bodies(values)})
    total, said = repr_counts(repr(items), "contacts")
    assert total == len(values) == sum(said.values())
    assert said == frame_counts(items.to_frame()["status"])
    summary = repr(items).split(": ", 1)[1][:-1] if said else ""
    assert f"{len(values)} contacts: {summary}" in items.to_html()


@given(statuses(HLR_STATUS))
def test_hlr_results_count_every_status_the_same_way_everywhere(values: list[Any]) -> None:
    """HLRResults: the repr's tally equals the frame's counts (missing included) and adds
    up to the numbers; "(missing)" comes last, after the values, as in a breakdown."""
    results = HLRResults.from_json(bodies(values))
    total, said = repr_counts(repr(results), "numbers")
    assert total == len(values) == sum(said.values())
    assert said == frame_counts(results.to_frame()["status"])
    if "(missing)" in said:
        assert list(said)[-1] == "(missing)"
