"""End to end: Client and AsyncClient against the real sandbox over real HTTP on loopback.

Every test runs twice, once with each client: ``run(client.x.y(...))`` awaits when the call
returned an awaitable, so one test body covers both (the sync one simply blocks; the sandbox
serves from its own thread). Expected numbers come from the sandbox's price list and the spec.
"""

from __future__ import annotations

import inspect
import math
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, TypeVar
from urllib.parse import urlsplit

import pytest

import smskit
from smskit import AsyncClient, Backoff, Client, errors
from smskit.rules.spec import HLR_STATUS
from smskit.sandbox import Sandbox

pytestmark = pytest.mark.anyio

T = TypeVar("T")
ClientType = type[Client] | type[AsyncClient]
STOP_TEXT = "Hello {first_name}, -20% today only. STOP au 36173"
FR, FR2, GB = "+33612345678", "+33698765432", "+447400123456"


@pytest.fixture(params=[Client, AsyncClient], ids=["sync", "async"])
def kind(request: pytest.FixtureRequest) -> ClientType:
    """The client class under test."""
    return request.param  # type: ignore[no-any-return]


async def run(value: T | Any) -> Any:
    """The result of an endpoint call, awaited when the client is async."""
    return await value if inspect.isawaitable(value) else value


@asynccontextmanager
async def connect(kind: ClientType, sandbox: Sandbox, **options: Any) -> AsyncIterator[Any]:
    """A client of ``kind`` on ``sandbox``, closed afterwards; backoff sleeps are skipped."""
    options.setdefault("backoff", Backoff(sleep=lambda seconds: None))
    client = kind(sandbox=sandbox, **options)
    try:
        yield client
    finally:
        await run(client.aclose() if isinstance(client, AsyncClient) else client.close())


def price(sandbox: Sandbox, country: str, product: str) -> float:
    """Unit price in EUR from the sandbox price list."""
    prices = sandbox.prices()
    row = prices[(prices["country_code"] == country) & (prices["product_name"] == product)]
    return float(row["price"].iloc[0])


# -- one test per endpoint ------------------------------------------------------------------------


async def test_check_balance(kind: ClientType, fresh_sandbox: Sandbox) -> None:
    """wallet.check_balance returns the account balance (default 1000 EUR)."""
    async with connect(kind, fresh_sandbox) as client:
        balance = await run(client.wallet.check_balance())
    assert balance == smskit.Balance(1000.0, "EUR")


async def test_check_credits(kind: ClientType, fresh_sandbox: Sandbox) -> None:
    """wallet.check_credits: credits = floor(balance / unit price) per country and product."""
    async with connect(kind, fresh_sandbox) as client:
        credits = await run(client.wallet.check_credits(["FR", "GB"]))
    assert list(credits) == ["FR", "GB"]
    assert credits["FR"].premium_sms == math.floor(1000 / price(fresh_sandbox, "FR", "sms_premium"))
    assert credits["GB"].hlr == math.floor(1000 / price(fresh_sandbox, "GB", "hlr"))
    assert len(credits.to_frame()) == 2 * 4


async def test_hlr_request(kind: ClientType, sandbox: Sandbox) -> None:
    """contact.hlr_request: one typed result per number, in order, statuses from the spec."""
    async with connect(kind, sandbox) as client:
        results = await run(client.contact.hlr_request([FR, GB, FR2]))
    assert [r.phone_number for r in results] == [FR, GB, FR2]
    assert all(r.status in HLR_STATUS for r in results)
    frame = results.to_frame()
    assert list(frame["status"].cat.categories) == list(HLR_STATUS)


async def test_send_charges_the_price_of_each_segment(
    kind: ClientType, fresh_sandbox: Sandbox
) -> None:
    """sms_campaign.send: ticket, contacts, cost = FR premium price x 1 segment x 2 recipients."""
    recipients = [{"phone_number": FR, "first_name": "Ada"}, {"phone_number": FR2}]
    async with connect(kind, fresh_sandbox) as client:
        result = await run(
            client.sms_campaign.send(text=STOP_TEXT, recipients=recipients, sender="MyShop")
        )
    assert result.sms_ticket and result.duplicate is False
    assert result.number_of_contacts == 2
    assert result.total_cost == pytest.approx(2 * price(fresh_sandbox, "FR", "sms_premium"))
    sent = fresh_sandbox.sent()
    assert sorted(sent["phone_number"]) == sorted([FR, FR2])
    assert set(sent["request_id"]) == {result.request_id}
    assert "Hello Ada," in set(sent["text"].str.slice(0, 10))


async def test_send_a_dataframe_in_simulation(kind: ClientType, fresh_sandbox: Sandbox) -> None:
    """A DataFrame of recipients in simulation_mode: a result, nothing sent."""
    import pandas as pd

    frame = pd.DataFrame({"phone_number": [FR, GB], "first_name": ["Ada", None], "x": [1, 2]})
    async with connect(kind, fresh_sandbox) as client:
        result = await run(
            client.sms_campaign.send(
                text=STOP_TEXT, recipients=frame, sender="MyShop", simulation_mode=True
            )
        )
    assert result.number_of_contacts == 2
    assert len(fresh_sandbox.sent()) == 0


async def test_drafts(kind: ClientType, sandbox: Sandbox) -> None:
    """sms_campaign.draft and voice_campaign.draft return the spec's draft fields."""
    async with connect(kind, sandbox) as client:
        sms = await run(client.sms_campaign.draft())
        voice = await run(client.voice_campaign.draft())
    assert sms.status == "validated" and sms.code == 0 and sms.ticket_number
    assert voice.status == "validated" and voice.estimated_duration is not None


async def test_contact_create_update_skip(kind: ClientType, fresh_sandbox: Sandbox) -> None:
    """contact.create: added, then updated, then skipped with do_not_overwrite."""
    async with connect(kind, fresh_sandbox) as client:
        first = await run(client.contact.create([FR, FR2], list_name="vip", tag_name="2025"))
        again = await run(client.contact.create([{"phone_number": FR, "first_name": "Ada"}]))
        kept = await run(client.contact.create([FR], do_not_overwrite=True))
    assert [item.status for item in first] == ["added", "added"]
    assert [item.status for item in again] == ["updated"]
    assert [item.status for item in kept] == ["skipped"]
    assert fresh_sandbox.lists() == {"vip": 2}


async def test_contact_delete(kind: ClientType, fresh_sandbox: Sandbox) -> None:
    """contact.delete returns None (204) and the contact is gone."""
    async with connect(kind, fresh_sandbox) as client:
        await run(client.contact.create([FR, FR2]))
        assert await run(client.contact.delete([FR])) is None
    assert list(fresh_sandbox.contacts()["phone_number"]) == [FR2]


async def test_contact_list_empty(kind: ClientType, fresh_sandbox: Sandbox) -> None:
    """contact_list.empty removes every member of the list and says how many."""
    async with connect(kind, fresh_sandbox) as client:
        await run(client.contact.create([FR, FR2, GB], list_name="vip"))
        emptied = await run(client.contact_list.empty("vip"))
    assert emptied.list_name == "vip" and emptied.number_of_contacts_removed == 3
    assert fresh_sandbox.lists().get("vip", 0) == 0


async def test_credit_transfer_token(kind: ClientType, fresh_sandbox: Sandbox) -> None:
    """subaccount.credit_transfer_token returns the token issued for that sub-account."""
    async with connect(kind, fresh_sandbox) as client:
        token = await run(client.subaccount.credit_transfer_token("shop@example.com"))
    issued = fresh_sandbox.tokens()
    assert issued.to_dict("records")[0]["token"] == token.token
    assert issued.to_dict("records")[0]["email_to"] == "shop@example.com"


# -- errors from the gateway -------------------------------------------------------------------


async def test_wrong_key_is_an_authentication_error(kind: ClientType, sandbox: Sandbox) -> None:
    """A wrong api-key gets 401 -> AuthenticationError; neither key shows in the message."""
    client = kind(sandbox.login, "wrong-key-123", sandbox.url)
    try:
        with pytest.raises(errors.AuthenticationError) as caught:
            await run(client.wallet.check_balance())
    finally:
        await run(client.aclose() if isinstance(client, AsyncClient) else client.close())
    assert caught.value.status_code == 401
    assert "wrong-key-123" not in str(caught.value) and sandbox.api_key not in str(caught.value)


async def test_basic_auth_is_accepted(kind: ClientType, fresh_sandbox: Sandbox) -> None:
    """auth='basic' authenticates with login:key."""
    async with connect(kind, fresh_sandbox, auth="basic") as client:
        balance = await run(client.wallet.check_balance())
    assert balance.amount == 1000.0


async def test_gateway_stop_rule_when_client_checks_are_off(
    kind: ClientType, fresh_sandbox: Sandbox
) -> None:
    """validate=False sends as is; the gateway refuses a marketing text without STOP (code 121)."""
    async with connect(kind, fresh_sandbox, validate=False) as client:
        with pytest.raises(errors.StopMentionMissingError) as caught:
            await run(client.sms_campaign.send(text="Sale!", recipients=[FR], sender="MyShop"))
    assert caught.value.code == 121
    assert len(fresh_sandbox.sent()) == 0


async def test_gateway_payload_validation(kind: ClientType, sandbox: Sandbox) -> None:
    """With checks off, a 201-number HLR request gets the gateway's 400 with per-field errors."""
    async with connect(kind, sandbox) as client:
        with pytest.raises(errors.PayloadValidationError) as caught:
            await run(client.contact.hlr_request([FR] * 201, validate=False))
    assert caught.value.code == 400 and "phone_numbers" in caught.value.errors


async def test_insufficient_credit(kind: ClientType, fresh_sandbox: Sandbox) -> None:
    """A balance below the cost gets code 122 -> InsufficientCreditError; nothing sent."""
    fresh_sandbox.set_balance(0.01)
    async with connect(kind, fresh_sandbox) as client:
        with pytest.raises(errors.InsufficientCreditError):
            await run(client.sms_campaign.send(text=STOP_TEXT, recipients=[FR], sender="MyShop"))
    assert len(fresh_sandbox.sent()) == 0


@pytest.mark.parametrize("shape", ["spec", "legacy"])
async def test_reusing_a_request_id_is_refused_as_a_duplicate(
    kind: ClientType, fresh_sandbox: Sandbox, shape: str
) -> None:
    """A caller re-using an accepted request_id, same payload or another, gets
    DuplicateRequestError (in either shape the gateway answers): one send, one charge."""
    fresh_sandbox.set_duplicate_answer(shape)  # type: ignore[arg-type]
    async with connect(kind, fresh_sandbox) as client:
        fields = {"text": STOP_TEXT, "recipients": [FR], "sender": "MyShop", "request_id": "o-1"}
        first = await run(client.sms_campaign.send(**fields))
        for again in (fields, {**fields, "recipients": [FR2]}):
            with pytest.raises(errors.DuplicateRequestError) as refused:
                await run(client.sms_campaign.send(**again))
            assert refused.value.status_code == 400
    assert first.duplicate is False
    assert len(fresh_sandbox.sent()) == 1
    assert fresh_sandbox.balance() == pytest.approx(1000.0 - first.total_cost)


async def test_a_send_that_reaches_nobody_raises_no_recipient_error(
    kind: ClientType, fresh_sandbox: Sandbox
) -> None:
    """ "06 12 34 56 78" posted as given (validate=False): national, no country, so the
    gateway ignores it and nobody is left: NoRecipientError (errors.recipients 410), never a
    SendResult; nothing sent or charged."""
    async with connect(kind, fresh_sandbox) as client:
        with pytest.raises(errors.NoRecipientError) as caught:
            await run(
                client.sms_campaign.send(
                    text=STOP_TEXT, recipients=["06 12 34 56 78"], sender="MyShop", validate=False
                )
            )
    assert caught.value.status_code == 400
    assert caught.value.errors["recipients"]["code"] == 410
    assert fresh_sandbox.sent().empty and fresh_sandbox.balance() == 1000.0


# -- faults and retries -------------------------------------------------------------------------


def clear_faults_on_sleep(sandbox: Sandbox, sleeps: list[float]) -> Backoff:
    """A backoff whose 'sleep' records the delay and lets the next attempt through."""

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        sandbox.clear_faults()

    return Backoff(sleep=sleep)


@pytest.mark.parametrize("shape", ["spec", "legacy"])
async def test_lost_answer_then_duplicate_reports_the_accepted_send(
    kind: ClientType, fresh_sandbox: Sandbox, shape: str
) -> None:
    """Connection dropped after the send was committed: the retry is refused as a duplicate
    (either shape), which the client reports as duplicate=True; nothing sent twice."""
    fresh_sandbox.set_duplicate_answer(shape)  # type: ignore[arg-type]
    sleeps: list[float] = []
    fresh_sandbox.inject_faults(drop_rate=1.0)
    backoff = clear_faults_on_sleep(fresh_sandbox, sleeps)
    async with connect(kind, fresh_sandbox, backoff=backoff) as client:
        result = await run(
            client.sms_campaign.send(text=STOP_TEXT, recipients=[FR, FR2], sender="MyShop")
        )
    sent = fresh_sandbox.sent()
    assert result.duplicate is True and len(sleeps) == 1
    assert len(sent) == 2  # two recipients, one send
    assert fresh_sandbox.balance() == pytest.approx(1000.0 - sent["cost"].sum())
    # The refusal carries no figures: the client does not invent them.
    assert (result.total_cost, result.number_of_contacts) == (None, None)


async def test_server_error_is_retried(kind: ClientType, fresh_sandbox: Sandbox) -> None:
    """An injected 500 is retried after a backoff; the second attempt succeeds."""
    sleeps: list[float] = []
    fresh_sandbox.inject_faults(error_rate=1.0)
    backoff = clear_faults_on_sleep(fresh_sandbox, sleeps)
    async with connect(kind, fresh_sandbox, backoff=backoff) as client:
        balance = await run(client.wallet.check_balance())
    assert balance.amount == 1000.0
    assert len(sleeps) == 1 and 0 <= sleeps[0] <= 0.2


async def test_rate_limit_honours_retry_after(kind: ClientType, fresh_sandbox: Sandbox) -> None:
    """An injected 429 (Retry-After: 1) waits exactly 1 s before retrying."""
    sleeps: list[float] = []
    fresh_sandbox.inject_faults(rate_limit_rate=1.0)
    backoff = clear_faults_on_sleep(fresh_sandbox, sleeps)
    async with connect(kind, fresh_sandbox, backoff=backoff) as client:
        drafts = await run(client.sms_campaign.draft())
    assert drafts.status == "validated"
    assert sleeps == [1.0]


async def test_persistent_errors_exhaust_the_retries(
    kind: ClientType, fresh_sandbox: Sandbox
) -> None:
    """A gateway failing every time: max_retries + 1 attempts, then ServerError."""
    fresh_sandbox.inject_faults(error_rate=1.0)
    async with connect(kind, fresh_sandbox, max_retries=2) as client:
        with pytest.raises(errors.ServerError):
            await run(client.wallet.check_balance())
    assert fresh_sandbox.faults()["counts"]["errors"] == 3


async def _nothing_listening(kind: ClientType, host: str, max_retries: int) -> tuple[str, str]:
    """The base URL of a closed port on ``host`` (a loopback) and the message of the
    TransportError a balance check there raises."""
    family = socket.AF_INET6 if host == "::1" else socket.AF_INET
    with socket.socket(family) as probe:  # a port free on the address the client dials
        probe.bind((host if host == "::1" else "127.0.0.1", 0))
        port = probe.getsockname()[1]
    base_url = f"http://{'[' + host + ']' if ':' in host else host}:{port}"
    client = kind("login", "key-never-shown", base_url, max_retries=max_retries,
                  backoff=Backoff(sleep=lambda seconds: None))  # fmt: skip
    try:
        with pytest.raises(errors.TransportError) as caught:
            await run(client.wallet.check_balance())
    finally:
        await run(client.aclose() if isinstance(client, AsyncClient) else client.close())
    return base_url, str(caught.value)


async def test_nothing_listening_is_a_transport_error(kind: ClientType) -> None:
    """Connection refused on a closed loopback port: retried, then TransportError."""
    base_url, message = await _nothing_listening(kind, "127.0.0.1", max_retries=1)
    assert "ConnectError" in message and "key-never-shown" not in message
    assert f"could not reach {base_url}:" in message


@pytest.mark.parametrize("host", ["::1", "::ffff:127.0.0.1", "127.0.0.1"])
async def test_a_transport_error_names_the_gateway_as_a_url_that_reads_back(
    kind: ClientType, host: str
) -> None:
    """Nothing listening at an IPv6 (or IPv4-mapped) loopback base URL: the TransportError
    names the origin in brackets, ``http://[::1]:PORT``, so the URL it shows reads back to the
    same host and port (it said ``http://::ffff:127.0.0.1:9``, which no URL parser reads)."""
    base_url, message = await _nothing_listening(kind, host, max_retries=0)
    shown = message.split("could not reach ", 1)[1].split(": ", 1)[0]
    assert shown == base_url
    assert urlsplit(shown).hostname == host and urlsplit(shown).port == urlsplit(base_url).port


async def test_a_sandbox_on_ipv6_loopback_answers_at_its_url(kind: ClientType) -> None:
    """A sandbox bound to ``::1``: its URL is ``http://[::1]:PORT`` and a client reaches it
    there over real HTTP."""
    with Sandbox(host="::1", seed=0) as sandbox:
        assert sandbox.url == f"http://[::1]:{urlsplit(sandbox.url).port}"
        async with connect(kind, sandbox) as client:
            balance = await run(client.wallet.check_balance())
    assert balance.amount is not None


# -- secrets in notebook outputs ----------------------------------------------------------------


async def test_key_never_appears_in_notebook_outputs(
    kind: ClientType, fresh_sandbox: Sandbox
) -> None:
    """IPython's display of every result, frame and the client, and a verbose traceback, hide it."""
    import sys

    from IPython.core.formatters import DisplayFormatter
    from IPython.core.ultratb import VerboseTB

    async with connect(kind, fresh_sandbox) as client:
        shown: list[Any] = [
            client,
            client.sms_campaign,
            await run(client.wallet.check_balance()),
            await run(client.wallet.check_credits()),
            await run(client.contact.hlr_request([FR, GB])),
            await run(client.contact.create([FR], list_name="vip")),
            await run(client.contact_list.empty("vip")),
            await run(client.sms_campaign.draft()),
            await run(client.voice_campaign.draft()),
            await run(client.subaccount.credit_transfer_token("shop@example.com")),
            await run(client.sms_campaign.send(text=STOP_TEXT, recipients=FR, sender="MyShop")),
        ]
        shown += [item.to_frame() for item in shown if hasattr(item, "to_frame")]
        try:
            await run(client.sms_campaign.send(text="Sale", recipients=FR, sender="X"))
        except errors.ValidationError:
            shown.append(VerboseTB(theme_name="nocolor").text(*sys.exc_info()))
        fresh_sandbox.inject_faults(error_rate=1.0)
        try:
            await run(client.wallet.check_balance())
        except errors.ServerError:
            shown.append(VerboseTB(theme_name="nocolor").text(*sys.exc_info()))
    formatter = DisplayFormatter()
    outputs = [formatter.format(item)[0] for item in shown]
    results = [outputs[0], *outputs[2:11]]  # the client and every endpoint's result
    assert all("text/html" in output for output in results)
    text = "\n".join(str(value) for output in outputs for value in output.values())
    assert fresh_sandbox.api_key not in text
    assert "Traceback" in text  # the two error outputs were rendered


async def test_to_async_twin_shares_gateway_credentials_and_policies(
    kind: ClientType, fresh_sandbox: Sandbox
) -> None:
    """to_async() gives an independent AsyncClient on the same account, with the same policies,
    built through AsyncClient's constructor (its checks run; the key stays out of its repr)."""
    options = {"max_retries": 1, "validate": False, "timeout": 7.5, "auth": "basic"}
    async with connect(kind, fresh_sandbox, **options) as client:
        twin = client.to_async()
        try:
            assert type(twin) is AsyncClient and twin is not client
            assert (twin.base_url, twin.api_login, twin.is_sandbox) == (
                client.base_url,
                client.api_login,
                True,
            )
            assert (twin.max_retries, twin.validate, twin.backoff) == (1, False, client.backoff)
            assert (twin.timeout, twin.auth) == (7.5, "basic")
            assert fresh_sandbox.api_key not in repr(twin)
            fresh_sandbox.set_balance(12.5)
            assert (await twin.wallet.check_balance()).amount == pytest.approx(12.5)
        finally:
            await twin.aclose()
        # closing the twin leaves the original usable
        assert (await run(client.wallet.check_balance())).amount == pytest.approx(12.5)
