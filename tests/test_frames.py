"""smskit.client.frames on sandbox data: typed HLR frames, breakdown tables, credits, drafts, sends.

Expected numbers are derived independently: by counting the gateway's raw JSON dicts in plain
Python (collections.Counter), from pycountry for names, and from the documented sandbox
prices for credits. Shares are checked with exact arithmetic (fractions).
"""

from __future__ import annotations

import io
import math
import random
from collections import Counter
from collections.abc import Iterator
from datetime import datetime
from fractions import Fraction
from typing import Any

import pandas as pd
import pytest

import smskit
from smskit import frames
from smskit.client.models import HLRResults, SmsDraft, VoiceDraft
from smskit.errors import ResponseShapeError, ValidationError
from smskit.rules import spec as _spec
from smskit.sandbox import Sandbox

MISSING, TOTAL = "(missing)", "total"
NETWORK_FIELDS = (
    "network_name",
    "mcc",
    "mnc",
    "country_name",
    "country_code_iso3",
    "country_code",
    "area",
    "country_prefix",
)
HLR_COLUMN_DTYPES = {
    "phone_number": "string",
    "status": "category",
    "line_status": "category",
    "phone_number_type": "category",
    **{name: "Int64" if name in ("mcc", "mnc") else "string" for name in NETWORK_FIELDS},
    "is_ported": "boolean",
    "ported_date": "datetime64[ns]",
    **{f"original_{n}": "Int64" if n in ("mcc", "mnc") else "string" for n in NETWORK_FIELDS},
}
MOBILE_TYPES = {"mobile", "mobile_or_landline"}


def sample_numbers() -> list[str]:
    """400 numbers: French, British, German, Belgian and US lines, landlines, junk, drama."""
    rng = random.Random(2024)
    numbers = [f"+33{rng.choice('67')}{rng.randrange(10**8):08d}" for _ in range(200)]
    numbers += [f"+33{rng.randrange(1, 6)}{rng.randrange(10**8):08d}" for _ in range(40)]
    numbers += [f"+447{rng.randrange(400, 999)}{rng.randrange(10**6):06d}" for _ in range(50)]
    numbers += [f"+4915{rng.randrange(1, 8)}{rng.randrange(10**7):07d}" for _ in range(40)]
    numbers += [f"+324{rng.randrange(70, 99)}{rng.randrange(10**6):06d}" for _ in range(30)]
    numbers += [f"+1{rng.randrange(201, 989)}{rng.randrange(200, 999)}{rng.randrange(10**4):04d}"
                for _ in range(20)]  # fmt: skip
    numbers += ["+12125550123", "+447700900123", "+33800123456", "not a number", "12", "+3361234"]
    numbers += [f"+3519{rng.randrange(10**8):08d}" for _ in range(400 - len(numbers))]
    return numbers


@pytest.fixture(scope="module")
def client(sandbox: Sandbox) -> Iterator[smskit.Client]:
    """A client on the session sandbox (HLR answers depend only on seed and number)."""
    with smskit.Client(sandbox=sandbox) as client:
        yield client


@pytest.fixture(scope="module")
def results(client: smskit.Client) -> HLRResults:
    """400 HLR results from the sandbox over HTTP, in two 200-number simulated requests."""
    numbers = sample_numbers()
    parts = [
        client.contact.hlr_request(numbers[i : i + 200], simulation_mode=True, validate=False)
        for i in range(0, len(numbers), 200)
    ]
    raw = [item for part in parts for item in part.raw]
    return HLRResults.from_json(raw)


@pytest.fixture(scope="module")
def raw(results: HLRResults) -> list[dict[str, Any]]:
    """The gateway's JSON dicts behind ``results``."""
    return list(results.raw)


def read_as_unknown(answer: dict[str, Any]) -> dict[str, Any]:
    """An answer with the spec-typed placeholders of unknown values ("" for text, 0 for
    mcc/mnc, in the network fields and the original network's) as None: what analysts see."""

    def network(fields: dict[str, Any]) -> dict[str, Any]:
        out = dict(fields)
        for name in NETWORK_FIELDS:
            if out.get(name) == "" or (name in ("mcc", "mnc") and out.get(name) == 0):
                out[name] = None
        return out

    details = answer["original_network_details"]
    return {**network(answer), "original_network_details": details and network(details)}


@pytest.fixture(scope="module")
def answers(raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The gateway's answers as read: placeholders of unknown values as None."""
    return [read_as_unknown(r) for r in raw]


@pytest.fixture(scope="module")
def frame(results: HLRResults) -> pd.DataFrame:
    """The typed HLR frame of ``results``."""
    return frames.hlr_frame(results)


def assert_shares_exact(table: pd.DataFrame, n: int) -> None:
    """Each share is count/n as a float, the shares add up to exactly 1, the total row is n."""
    body = table.drop(index=table.index[-1])
    assert table["count"].iloc[-1] == n and table["share"].iloc[-1] == 1.0
    assert sum(Fraction(int(c), n) for c in body["count"]) == 1
    for count, share in zip(body["count"], body["share"], strict=True):
        assert share == count / n
    assert math.isclose(math.fsum(body["share"]), 1.0, rel_tol=1e-12)


# -- the HLR frame ---------------------------------------------------------------------------


def test_sample_covers_the_cases_the_tables_must_handle(raw: list[dict[str, Any]]) -> None:
    """The sandbox data has ported numbers, bad formats without country (spec-typed: "" and
    0, never null), several countries."""
    assert len(raw) == 400
    assert sum(r["is_ported"] for r in raw) >= 20
    assert any(r["country_code"] == "" and r["mcc"] == 0 for r in raw)
    assert not any(r[name] is None for r in raw for name in NETWORK_FIELDS)
    assert {r["country_code"] for r in raw} >= {"FR", "GB", "DE", "BE", "US", "PT"}
    assert {r["phone_number_type"] for r in raw} >= {"mobile", "landline", "bad_format"}


def test_hlr_frame_has_every_spec_field_with_declared_dtypes(frame: pd.DataFrame) -> None:
    """Columns in spec order with original_* flattened; strings, Int64, categoricals, datetime."""
    assert dict(frame.dtypes.astype(str)) == HLR_COLUMN_DTYPES
    assert list(frame.columns) == list(HLR_COLUMN_DTYPES)
    assert list(frame["status"].cat.categories) == list(_spec.HLR_STATUS)
    assert list(frame["line_status"].cat.categories) == list(_spec.LINE_STATUS)
    assert list(frame["phone_number_type"].cat.categories) == list(_spec.PHONE_NUMBER_TYPE)


def test_hlr_frame_values_match_the_raw_answers(
    frame: pd.DataFrame, answers: list[dict[str, Any]]
) -> None:
    """Every cell equals the JSON value; nulls and the placeholders of unknown values ("",
    mcc 0) are <NA>/NaT, never a network called "" or 0; dates parsed from the spec format."""
    for row, answer in zip(frame.to_dict("records"), answers, strict=True):
        original = answer["original_network_details"] or {}
        for name in HLR_COLUMN_DTYPES:
            if name.startswith("original_"):
                expected = original.get(name.removeprefix("original_"))
            elif name == "ported_date" and answer[name] is not None:
                expected = datetime.strptime(answer[name], "%Y-%m-%d %H:%M:%S")
            else:
                expected = answer[name]
            assert pd.isna(row[name]) if expected is None else row[name] == expected, name


def test_raw_dicts_models_and_frames_give_the_same_frame(
    frame: pd.DataFrame, raw: list[dict[str, Any]]
) -> None:
    """The fast raw-dict path, the model path and untyped frames (object, CSV) agree."""
    pd.testing.assert_frame_equal(frames.hlr_frame(raw), frame)
    pd.testing.assert_frame_equal(frames.hlr_frame(iter(raw)), frame)
    pd.testing.assert_frame_equal(frames.hlr_frame(frame.astype(object)), frame)
    prefixes = {"country_prefix": str, "original_country_prefix": str}  # "+33" is not a number
    from_csv = pd.read_csv(io.StringIO(frame.to_csv(index=False)), dtype=prefixes)
    pd.testing.assert_frame_equal(frames.hlr_frame(from_csv), frame)


def test_raw_dicts_off_the_spec_types_are_parsed_leniently(raw: list[dict[str, Any]]) -> None:
    """A number sent as a string or the spec example's 'inconcusive' parse like the models do."""
    odd = [{**r, "mcc": str(r["mcc"])} for r in raw[:5]]
    odd[0] = {**odd[0], "line_status": "inconcusive"}
    typed = frames.hlr_frame(odd)
    assert typed["mcc"].tolist()[1:] == [r["mcc"] or pd.NA for r in raw[1:5]]
    assert typed["line_status"].iloc[0] == "inconclusive"
    assert typed["mcc"].dtype == "Int64"
    with pytest.raises(ResponseShapeError, match="mcc"):
        frames.hlr_frame([{**raw[0], "mcc": "two hundred"}])


def test_an_empty_answer_gives_an_empty_typed_frame() -> None:
    """No results: no rows, but every column with its dtype."""
    empty = frames.hlr_frame([])
    assert len(empty) == 0
    assert dict(empty.dtypes.astype(str)) == HLR_COLUMN_DTYPES


# -- breakdowns ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("by", "spec_values"),
    [
        ("status", _spec.HLR_STATUS),
        ("line_status", _spec.LINE_STATUS),
        ("phone_number_type", _spec.PHONE_NUMBER_TYPE),
    ],
)
def test_breakdown_of_a_closed_set_lists_every_spec_value(
    frame: pd.DataFrame, raw: list[dict[str, Any]], by: str, spec_values: tuple[str, ...]
) -> None:
    """One row per spec value in spec order (zeros too), then total; counts as in the raw."""
    table = frames.breakdown(frame, by=by)
    expected = Counter(r[by] for r in raw)
    assert list(table.index) == [*spec_values, TOTAL]
    assert table.index.name == by and table.index.dtype == object
    assert table["count"].tolist() == [expected[v] for v in spec_values] + [len(raw)]
    assert list(table.columns) == ["count", "share"]
    assert (table["count"].dtype, table["share"].dtype) == ("int64", "float64")
    assert_shares_exact(table, len(raw))


def test_breakdown_by_line_status_and_type_counts_every_pair(
    frame: pd.DataFrame, raw: list[dict[str, Any]]
) -> None:
    """The pair key gives all 8 x 14 combinations, spec order, plus ('total', '')."""
    table = frames.breakdown(frame, by=("line_status", "phone_number_type"))
    expected = Counter((r["line_status"], r["phone_number_type"]) for r in raw)
    pairs = [(s, t) for s in _spec.LINE_STATUS for t in _spec.PHONE_NUMBER_TYPE]
    assert list(table.index) == [*pairs, (TOTAL, "")]
    assert table.index.names == ["line_status", "phone_number_type"]
    assert table["count"].tolist() == [expected[p] for p in pairs] + [len(raw)]
    assert_shares_exact(table, len(raw))


def test_crosstab_has_totals_in_both_directions(
    frame: pd.DataFrame, raw: list[dict[str, Any]]
) -> None:
    """line_status x phone_number_type counts with a total row and a total column."""
    table = frames.crosstab(frame)
    expected = Counter((r["line_status"], r["phone_number_type"]) for r in raw)
    assert list(table.index) == [*_spec.LINE_STATUS, TOTAL]
    assert list(table.columns) == [*_spec.PHONE_NUMBER_TYPE, TOTAL]
    for status in _spec.LINE_STATUS:
        for kind in _spec.PHONE_NUMBER_TYPE:
            assert table.at[status, kind] == expected[(status, kind)]
        assert table.at[status, TOTAL] == sum(r["line_status"] == status for r in raw)
    for kind in _spec.PHONE_NUMBER_TYPE:
        assert table.at[TOTAL, kind] == sum(r["phone_number_type"] == kind for r in raw)
    assert table.at[TOTAL, TOTAL] == len(raw)


def test_breakdown_by_country_goes_by_count_with_missing_last(
    frame: pd.DataFrame, answers: list[dict[str, Any]]
) -> None:
    """Countries seen, most numbers first (ties by code), numbers without country last."""
    table = frames.breakdown(frame, by="country")
    counts = Counter(r["country_code"] for r in answers)
    known = sorted((c for c in counts if c is not None), key=lambda c: (-counts[c], c))
    assert list(table.index) == [*known, MISSING, TOTAL]
    assert table.index.name == "country_code"
    assert table["count"].tolist() == [counts[c] for c in known] + [counts[None], len(answers)]
    assert_shares_exact(table, len(answers))


def test_breakdown_by_network_keeps_networks_of_each_country_apart(
    frame: pd.DataFrame, answers: list[dict[str, Any]]
) -> None:
    """A network is (country_code, network_name): counts equal the answers, unknowns as missing."""
    table = frames.breakdown(frame, by="network")
    expected = Counter(
        (r["country_code"] or MISSING, r["network_name"] or MISSING) for r in answers
    )
    body = table.drop(index=(TOTAL, ""))
    assert dict(zip(body.index, body["count"], strict=True)) == expected
    assert table.index.names == ["country_code", "network_name"]
    order = sorted(expected, key=lambda key: (MISSING in key, -expected[key], key))
    assert list(body.index) == order  # most numbers first, ties by name, unknowns last
    assert_shares_exact(table, len(answers))


def test_breakdown_counts_missing_and_unknown_values(frame: pd.DataFrame) -> None:
    """Rows without an answer count as '(missing)'; a value off the spec gets its own row."""
    bulk = frame.iloc[:10].copy()
    bulk["line_status"] = bulk["line_status"].astype(object)
    bulk.loc[bulk.index[:3], "line_status"] = None
    bulk.loc[bulk.index[3], "line_status"] = "switched_off"
    table = frames.breakdown(bulk, by="line_status")
    assert list(table.index) == [*_spec.LINE_STATUS, "switched_off", MISSING, TOTAL]
    assert table.loc[[MISSING, "switched_off", TOTAL], "count"].tolist() == [3, 1, 10]
    assert_shares_exact(table, 10)


def test_breakdown_of_nothing_has_zero_counts_and_no_shares() -> None:
    """An empty answer: every spec row at 0, total 0, shares undefined (NaN), not 0/0 errors."""
    table = frames.breakdown([], by="status")
    assert table["count"].tolist() == [0] * 5
    assert table["share"].isna().all()


def test_breakdown_takes_models_dicts_and_frames(
    results: HLRResults, raw: list[dict[str, Any]], frame: pd.DataFrame
) -> None:
    """Same table from HLRResults, raw dicts, a frame, and the model method."""
    expected = frames.breakdown(frame, by="phone_number_type")
    pd.testing.assert_frame_equal(frames.breakdown(raw, by="phone_number_type"), expected)
    pd.testing.assert_frame_equal(frames.breakdown(results, by="phone_number_type"), expected)
    pd.testing.assert_frame_equal(results.breakdown(by="phone_number_type"), expected)
    pd.testing.assert_frame_equal(results.breakdown(), frames.breakdown(frame, "line_status"))


def test_bad_breakdown_requests_name_the_problem(frame: pd.DataFrame) -> None:
    """An unknown key names 'by'; a frame without the needed column names that column."""
    with pytest.raises(ValidationError, match="by: one of status, line_status") as info:
        frames.breakdown(frame, by="operator")
    assert info.value.field == "by"
    with pytest.raises(ValidationError) as info:
        frames.breakdown(frame, by=("country", "country"))
    assert info.value.field == "by"
    with pytest.raises(ValidationError) as info:
        frames.breakdown(frame.drop(columns=["network_name"]), by="network")
    assert info.value.field == "network_name"


def test_porting_share_per_original_network(
    frame: pd.DataFrame, answers: list[dict[str, Any]]
) -> None:
    """Numbers that started on each network and how many left it; unported stay on theirs."""
    started: Counter[tuple[str, str]] = Counter()
    left: Counter[tuple[str, str]] = Counter()
    for r in answers:
        origin = r["original_network_details"] if r["is_ported"] else r
        if origin["network_name"] is None:
            continue
        key = (origin["country_code"] or MISSING, origin["network_name"])
        started[key] += 1
        left[key] += bool(r["is_ported"])
    table = frames.porting(frame)
    body = table.drop(index=(TOTAL, ""))
    assert table.index.names == ["country_code", "original_network"]
    assert dict(zip(body.index, body["numbers"], strict=True)) == dict(started)
    assert dict(zip(body.index, body["ported"], strict=True)) == dict(left)
    assert body["numbers"].is_monotonic_decreasing
    for key, share in zip(body.index, body["share"], strict=True):
        assert share == left[key] / started[key]
    total = table.loc[(TOTAL, "")]
    assert (total["numbers"], total["ported"]) == (sum(started.values()), sum(left.values()))
    assert total["ported"] == sum(bool(r["is_ported"]) for r in answers)


def test_reachability_per_country(frame: pd.DataFrame, answers: list[dict[str, Any]]) -> None:
    """Per country: valid mobiles and the share of them live or absent, then the total."""
    table = frames.reachability(frame)
    assert list(table.columns) == [
        "numbers",
        "mobiles",
        "live",
        "absent_subscriber",
        "reachable",
        "reachable_share",
    ]
    for code in ("FR", "GB", "DE", "BE", "US", "PT", MISSING, TOTAL):
        rows = [r for r in answers if code == TOTAL or (r["country_code"] or MISSING) == code]
        mobiles = [r for r in rows if r["phone_number_type"] in MOBILE_TYPES]
        live = sum(r["line_status"] == "live" for r in mobiles)
        absent = sum(r["line_status"] == "absent_subscriber" for r in mobiles)
        got = table.loc[code]
        assert got[["numbers", "mobiles", "live", "absent_subscriber", "reachable"]].tolist() == [
            len(rows),
            len(mobiles),
            live,
            absent,
            live + absent,
        ]
        if mobiles:
            assert got["reachable_share"] == (live + absent) / len(mobiles)
        else:
            assert math.isnan(got["reachable_share"])


def test_model_methods_delegate_to_frames(results: HLRResults, frame: pd.DataFrame) -> None:
    """HLRResults.porting() and .reachability() are the frames functions."""
    pd.testing.assert_frame_equal(results.porting(), frames.porting(frame))
    pd.testing.assert_frame_equal(results.reachability(), frames.reachability(frame))


# -- wallet, drafts, sends, contacts ---------------------------------------------------------

# Documented sandbox unit prices (docs/sandbox.md) for the countries checked below.
PRICES = {
    "FR": {"premium_sms": 0.065, "low_cost_sms": 0.045, "vocal_sms": 0.12, "hlr": 0.008},
    "GB": {"premium_sms": 0.042, "low_cost_sms": 0.033, "vocal_sms": 0.10, "hlr": 0.008},
    "US": {"premium_sms": 0.015, "low_cost_sms": 0.011, "vocal_sms": 0.06, "hlr": 0.006},
}
NAMES = {"FR": ("France", "FRA"), "GB": ("United Kingdom", "GBR"), "US": ("United States", "USA")}


def credits_for(balance: Fraction, price: float) -> int:
    """Credits as the sandbox defines them: floor(balance / unit price), in exact decimals."""
    return math.floor(balance / Fraction(str(price)))


def test_credits_tidy_and_wide_frames(fresh_sandbox: Sandbox) -> None:
    """Tidy: one row per country and product with names; wide: one row per country."""
    with smskit.Client(sandbox=fresh_sandbox) as client:
        credits = client.wallet.check_credits(country_codes=["FR", "GB", "US"])
    tidy = frames.credits_frame(credits)
    assert list(tidy.columns) == ["country_code", "country", "iso3", "product", "credits"]
    assert dict(tidy.dtypes.astype(str)) == {
        "country_code": "string",
        "country": "string",
        "iso3": "string",
        "product": "category",
        "credits": "Int64",
    }
    assert len(tidy) == 3 * 4
    for row in tidy.itertuples(index=False):
        assert (row.country, row.iso3) == NAMES[row.country_code]
        assert row.credits == credits_for(Fraction(1000), PRICES[row.country_code][row.product])
    wide = frames.credits_wide(credits.raw)
    assert wide.index.tolist() == ["FR", "GB", "US"]
    assert list(wide.columns) == ["country", "iso3", *_spec_products()]
    assert wide.at["GB", "low_cost_sms"] == credits_for(Fraction(1000), 0.033)
    assert wide.at["US", "country"] == "United States"


def _spec_products() -> list[str]:
    return ["premium_sms", "vocal_sms", "low_cost_sms", "hlr"]


def test_credits_of_an_unknown_code_have_no_name() -> None:
    """A code pycountry does not know keeps its credits, with country and iso3 missing."""
    tidy = frames.credits_frame({"ZZ": {"premium_sms": 1, "vocal_sms": 2, "low_cost_sms": 3}})
    assert tidy["country"].isna().all() and tidy["iso3"].isna().all()
    assert tidy["credits"].tolist()[:3] == [1, 2, 3] and pd.isna(tidy["credits"].iloc[3])


def test_balance_frame_is_one_row(fresh_sandbox: Sandbox) -> None:
    """The balance (also with details) becomes one row: amount and unit."""
    with smskit.Client(sandbox=fresh_sandbox) as client:
        balance = client.wallet.check_balance(with_details=True)
    table = frames.balance_frame(balance)
    assert table.to_dict("records") == [{"amount": 1000.0, "unit": "EUR"}]
    assert dict(table.dtypes.astype(str)) == {"amount": "Float64", "unit": "string"}
    pd.testing.assert_frame_equal(frames.balance_frame(balance.raw), table)


def test_drafts_frame_compares_sms_and_voice(fresh_sandbox: Sandbox) -> None:
    """One row per draft with cost per contact = total_cost / number_of_contacts."""
    with smskit.Client(sandbox=fresh_sandbox) as client:
        sms, voice = client.sms_campaign.draft(), client.voice_campaign.draft()
    table = frames.drafts_frame(sms, voice)
    assert table["kind"].tolist() == ["sms", "voice"]
    assert table["number_of_contacts"].tolist() == [250, 40]  # documented sandbox drafts
    assert table["cost_per_contact"].tolist() == [
        sms.total_cost / 250,  # type: ignore[operator]
        voice.total_cost / 40,  # type: ignore[operator]
    ]
    assert table["cost_per_contact"].dtype == "Float64"
    assert pd.isna(table.at[1, "number_of_sms_needed"]) and pd.isna(
        table.at[0, "estimated_duration"]
    )
    assert table.at[1, "estimated_duration"] == 45


def test_a_draft_without_contacts_has_no_cost_per_contact() -> None:
    """Zero contacts: the cost per contact is missing, not infinite."""
    table = frames.drafts_frame(SmsDraft(number_of_contacts=0, total_cost=0.0), VoiceDraft())
    assert table["cost_per_contact"].isna().tolist() == [True, True]


def test_send_results_and_contact_items_frames(fresh_sandbox: Sandbox) -> None:
    """A simulated send and a contact creation become frames; raw JSON works too."""
    with smskit.Client(sandbox=fresh_sandbox) as client:
        sent = client.sms_campaign.send(
            text="Sale today STOP au 36173",
            recipients=["+33612345678", "+447400123456"],
            sender="Shop",
            simulation_mode=True,
        )
        items = client.contact.create(
            [{"phone_number": "+33612345678"}, {"phone_number": "+33612345678"}], list_name="vip"
        )
    table = frames.send_results_frame([sent])
    assert table.loc[0, ["number_of_contacts", "number_of_sms_needed"]].tolist() == [2, 2]
    assert table.at[0, "total_cost"] == pytest.approx(0.065 + 0.042)
    assert table["duplicate"].tolist() == [False]
    assert table.loc[0, ["submitted", "dropped"]].tolist() == [2, 0]
    # The raw body does not say what was submitted: only the request knew.
    known = ["request_id", "submitted", "dropped"]
    pd.testing.assert_frame_equal(
        frames.send_results_frame([sent.raw]).drop(columns=known), table.drop(columns=known)
    )
    contacts = frames.contact_items_frame(items)
    assert contacts["status"].tolist() == ["added", "updated"]
    assert list(contacts["status"].cat.categories) == list(_spec.CONTACT_ITEM_STATUS)
    pd.testing.assert_frame_equal(frames.contact_items_frame(items.raw), contacts)
