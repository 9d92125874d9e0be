"""Bulk HLR and bulk contact create/delete against the sandbox: normalised, deduplicated,
chunked by 200, cached (HLR), one row per value given."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pandas as pd
import pytest

import smskit
from smskit.campaigns.bulk import abulk_hlr, bulk_hlr, create_contacts, delete_contacts
from smskit.sandbox import Sandbox

HLR_FR = 0.008  # EUR per French number checked (docs/sandbox.md)


def fr_mobiles(count: int, start: int = 0) -> list[str]:
    """Distinct valid French mobile numbers (+33 6 1x xx xx xx)."""
    return [f"+3361{i:07d}" for i in range(start, start + count)]


def national(e164: str) -> str:
    """The French national spelling of a +33 number: 0 then the 9 digits."""
    return "0" + e164[3:]


def test_hlr_checks_each_distinct_number_once(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """450 numbers, 10 of them again in national spelling, one exact repeat and 2 bad values:
    450 checks billed; one row per distinct value; twins share the answer; bad ones are not
    sent and read bad_format."""
    numbers = fr_mobiles(450)
    given = [*numbers, *[national(n) for n in numbers[:10]], numbers[0], "12", "hello"]
    frame = bulk_hlr(client, given, journal=tmp_path / "hlr.sqlite", progress=False).to_frame()
    assert len(frame) == 450 + 10 + 2
    assert frame["input"].tolist() == [
        *numbers,
        *[national(n) for n in numbers[:10]],
        "12",
        "hello",
    ]
    assert fresh_sandbox.balance() == pytest.approx(1000.0 - 450 * HLR_FR)
    checked = frame.iloc[:460]
    assert checked["error"].isna().all()
    assert checked["status"].notna().all()
    twins = frame.iloc[450:460].reset_index(drop=True)
    firsts = frame.iloc[:10].reset_index(drop=True)
    for column in ("status", "line_status", "network_name", "phone_number"):
        assert twins[column].tolist() == firsts[column].tolist()
    bad = frame.iloc[460:]
    assert bad["phone_number_type"].astype(str).tolist() == ["bad_format", "bad_format"]
    assert bad["error"].str.startswith("not sent:").all()
    assert str(frame["status"].dtype) == "category"


def test_hlr_answers_are_cached_in_the_journal(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A second run reuses every answer (nothing billed); max_age=0 checks again (billed)."""
    path = tmp_path / "hlr.sqlite"
    numbers = fr_mobiles(30)
    first = bulk_hlr(client, numbers, journal=path, progress=False).to_frame()
    after_first = fresh_sandbox.balance()
    second = bulk_hlr(client, numbers, journal=path, progress=False).to_frame()
    assert fresh_sandbox.balance() == pytest.approx(after_first)
    assert second["cached"].all() and not first["cached"].any()
    columns = ["phone_number", "status", "line_status", "network_name"]
    pd.testing.assert_frame_equal(first[columns], second[columns])
    bulk_hlr(client, numbers, journal=path, max_age=0, progress=False)
    assert fresh_sandbox.balance() == pytest.approx(after_first - 30 * HLR_FR)


def test_hlr_without_journal_and_simulated_answers_are_not_cached(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """journal=False keeps nothing; a simulated answer (possibly fake, per the spec) is never
    cached: the real check after it is billed."""
    numbers = fr_mobiles(5)
    path = tmp_path / "hlr.sqlite"
    bulk_hlr(client, numbers, journal=path, simulation_mode=True, progress=False)
    assert fresh_sandbox.balance() == pytest.approx(1000.0)
    real = bulk_hlr(client, numbers, journal=path, progress=False).to_frame()
    assert not real["cached"].any()
    assert fresh_sandbox.balance() == pytest.approx(1000.0 - 5 * HLR_FR)
    bulk_hlr(client, numbers, journal=False, progress=False)
    assert fresh_sandbox.balance() == pytest.approx(1000.0 - 10 * HLR_FR)


class CountingTransport(httpx.AsyncBaseTransport):
    """Counts the numbers in each HLR request on its way to the sandbox."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.sizes: list[int] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/hlr-request"):
            self.sizes.append(len(json.loads(request.content)["phone_numbers"]))
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def test_hlr_requests_hold_at_most_200_numbers(fresh_sandbox: Sandbox, tmp_path: Path) -> None:
    """450 numbers take ceil(450 / 200) = 3 requests: 200, 200 and 50 (abulk_hlr, awaited)."""
    from smskit.campaigns.bulk import abulk_hlr

    transport = CountingTransport()

    async def main() -> pd.DataFrame:
        async with smskit.AsyncClient(sandbox=fresh_sandbox, transport=transport) as client:
            results = await abulk_hlr(client, fr_mobiles(450), journal=False, progress=False)
            return results.to_frame()

    frame = asyncio.run(main())
    assert sorted(transport.sizes) == [50, 200, 200]
    assert frame["error"].isna().all()
    with pytest.raises(
        smskit.ValidationError, match="chunk_size: must be an integer from 1 to 200"
    ):
        bulk_hlr(smskit.Client(sandbox=fresh_sandbox), ["+33612345678"], chunk_size=201)


def test_create_contacts_in_chunks_then_update(
    client: smskit.Client, fresh_sandbox: Sandbox
) -> None:
    """450 contacts land in the list (added), a second run updates them; a contact with a
    51-character name and an unparseable number are refused alone, with their reason."""
    numbers = fr_mobiles(450)
    frame = pd.DataFrame({"phone_number": numbers, "first_name": ["Ann"] * 450})
    frame.loc[7, "first_name"] = "x" * 51
    frame.loc[450] = ["not a number", "Bob"]
    out = create_contacts(client, frame, list_name="vip", progress=False)
    assert len(out) == 451
    statuses = out["status"].astype(object)
    assert (statuses.drop([7, 450]) == "added").all()
    assert pd.isna(out.loc[7, "status"]) and "first_name" in out.loc[7, "error"]
    assert out.loc[450, "error"].startswith("not sent:")
    assert fresh_sandbox.lists() == {"vip": 449}
    again = create_contacts(client, frame.drop(index=[7, 450]), list_name="vip", progress=False)
    assert (again["status"].astype(object) == "updated").all()


def test_delete_contacts_in_chunks(client: smskit.Client, fresh_sandbox: Sandbox) -> None:
    """Deleting 300 of 450 list members (one also in national spelling) leaves 150."""
    numbers = fr_mobiles(450)
    create_contacts(client, numbers, list_name="vip", progress=False)
    given = [*numbers[:300], national(numbers[0])]
    out = delete_contacts(client, given, list_name="vip", progress=False)
    assert len(out) == 301
    assert out["deleted"].all()
    assert out["error"].isna().all()
    assert fresh_sandbox.lists() == {"vip": 150}


def test_bulk_hlr_and_the_endpoint_return_one_shape(
    client: smskit.Client, user_dirs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """smskit.bulk_hlr and client.contact.hlr_request both give HLRResults with the same answers,
    frame columns and breakdown; the bulk one caches in the per-user cache, not the cwd."""
    monkeypatch.chdir(tmp_path)
    numbers = fr_mobiles(3)
    bulk = smskit.bulk_hlr(client, numbers, progress=False, simulation_mode=True)
    single = client.contact.hlr_request(numbers, simulation_mode=True)
    assert type(bulk) is type(single) is smskit.HLRResults
    assert list(bulk) == list(single)
    frame = bulk.to_frame()
    assert list(frame.columns) == ["input", *single.to_frame().columns, "cached", "error"]
    assert frame["input"].tolist() == numbers
    pd.testing.assert_frame_equal(bulk.breakdown("line_status"), single.breakdown("line_status"))
    smskit.bulk_hlr(client, numbers[:1], progress=False)
    assert (user_dirs / "cache" / "smskit" / "hlr.sqlite").is_file()
    assert list(tmp_path.iterdir()) == []


def test_a_chunk_answered_short_keeps_each_answer_with_its_own_number(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """The gateway answers HLR requests with results out of order: fewer than the numbers
    asked (the second dropped, the rest reversed), or as many with a stranger's answer in
    place of the dropped one. Each answer goes to the number it names, never by position;
    the unanswered number reads "no answer for this number" and is not cached; the
    stranger's answer is dropped. (The sandbox never answers so: the real answers are
    edited on their way.)"""
    numbers = fr_mobiles(4)
    stranger = "+33619999999"

    async def check(with_stranger: bool, cache: Path) -> pd.DataFrame:
        async with httpx.AsyncClient(trust_env=False) as real:

            async def edited(request: httpx.Request) -> httpx.Response:
                forwarded = httpx.Request(
                    request.method, request.url, headers=request.headers, content=request.content
                )
                answer = await real.send(forwarded)
                if not request.url.path.endswith("/contact/hlr-request"):
                    return httpx.Response(answer.status_code, content=answer.content,
                                          headers={"content-type": "application/json"})  # fmt: skip
                items = answer.json()
                kept = [item for item in items if item["phone_number"] != numbers[1]][::-1]
                extra = [{**items[0], "phone_number": stranger}] if with_stranger else []
                return httpx.Response(200, json=[*kept, *extra])

            async with smskit.AsyncClient(
                fresh_sandbox.login, fresh_sandbox.api_key, fresh_sandbox.url,
                transport=httpx.MockTransport(edited),
            ) as client:  # fmt: skip
                result = await abulk_hlr(client, numbers, journal=cache, progress=False)
        return result.to_frame()

    for with_stranger in (False, True):
        cache = tmp_path / f"hlr-{with_stranger}.sqlite"
        frame = asyncio.run(check(with_stranger, cache))
        assert frame["input"].tolist() == numbers
        assert frame["phone_number"].tolist() == numbers
        assert frame["error"].isna().tolist() == [True, False, True, True]
        assert frame["error"].iloc[1] == "no answer for this number"
        assert frame["status"].isna().tolist() == [False, True, False, False]
        with smskit.Client(sandbox=fresh_sandbox) as client:
            again = bulk_hlr(client, numbers, journal=cache, progress=False).to_frame()
        assert again["cached"].tolist() == [True, False, True, True]
        truth = again.set_index("phone_number")["network_name"]
        assert (
            frame.set_index("phone_number")["network_name"]
            .drop(numbers[1])
            .equals(truth.drop(numbers[1]))
        )
