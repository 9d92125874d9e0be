"""The inbox serves tracked links: redirects, 404 for unknown tokens, every request stored."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from _stalled import closed_by_server

from smskit import Client
from smskit.campaigns.campaign import Campaign
from smskit.errors import ValidationError
from smskit.replies import Inbox
from smskit.rules.bots import AgentRule, BotRules
from smskit.rules.links import find_links, new_tokens
from smskit.sandbox import Sandbox

PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) Mobile/15E148 Safari/604.1"


def _get(url: str, method: str = "GET", agent: str = PHONE) -> httpx.Response:
    return httpx.request(
        method, url, headers={"User-Agent": agent}, follow_redirects=False, trust_env=False
    )


def test_a_short_link_redirects_to_its_destination_and_is_recorded() -> None:
    """GET answers 302 to the destination (query kept, no-store); HEAD too; both recorded."""
    token, other = new_tokens(2)
    with Inbox() as inbox:
        added = inbox.register_links(
            "spring",
            [
                (token, "+33612345678", 0, 0, "https://shop.example/p?a=1&utm_source=sms#x"),
                (other, "+33612345679", 1, 0, "https://shop.example/é p"),
            ],
        )
        assert added == 2
        answer = _get(f"{inbox.link_base}/{token}")
        assert answer.status_code == 302
        assert answer.headers["location"] == "https://shop.example/p?a=1&utm_source=sms#x"
        assert answer.headers["cache-control"] == "no-store"
        assert _get(f"{inbox.link_base}/{other}", "HEAD").headers["location"] == (
            "https://shop.example/%C3%A9%20p"
        )
        _get(f"{inbox.link_base}/{token}", agent="WhatsApp/2.23.20.0 A")
        clicks = inbox.clicks(BotRules(burst_seconds=0), time_zone="UTC")
        assert clicks["phone_number"].tolist() == ["+33612345678", "+33612345679", "+33612345678"]
        assert clicks["method"].tolist() == ["GET", "HEAD", "GET"]
        assert clicks["reason"].tolist() == ["human", "head", "agent:whatsapp"]
        assert clicks["bot"].tolist() == [False, True, True]
        assert str(clicks["at"].dt.tz) == "UTC"


def test_an_unknown_token_is_a_plain_404_never_a_redirect() -> None:
    """Unknown or malformed tokens answer a 404 page without Location, and are counted apart."""
    (token,) = new_tokens(1)
    with Inbox() as inbox:
        for path in (token, "x" * 500):
            answer = _get(f"{inbox.link_base}/{path}")
            assert answer.status_code == 404 and "location" not in answer.headers
            assert answer.headers["content-type"].startswith("text/html")
        answer = _get(f"{inbox.link_base}/https:%2F%2Fevil.example")
        assert answer.status_code == 404 and "location" not in answer.headers
        stats = inbox.stats()
        assert (stats["clicks"], stats["unknown_link_requests"]) == (0, 2)
        assert inbox.clicks().empty


def test_links_survive_a_restart_of_a_file_inbox(tmp_path: Path) -> None:
    """A file inbox keeps links, clicks and link_base: the same token answers after reopening."""
    path = tmp_path / "inbox.sqlite"
    (token,) = new_tokens(1)
    with Inbox(path, link_base="https://go.shop.example/s") as inbox:
        inbox.register_links("c", [(token, "+33612345678", 3, 1, "https://shop.example/")])
        local = inbox.url.partition("/callbacks/")[0]
        answer = httpx.get(
            f"{local}/s/{token}", headers={"Host": "go.shop.example"}, trust_env=False
        )
        assert answer.status_code == 302
    with Inbox(path) as again:
        assert again.link_base == "https://go.shop.example/s"
        local = again.url.partition("/callbacks/")[0]
        answer = httpx.get(
            f"{local}/s/{token}", headers={"Host": "go.shop.example"}, trust_env=False
        )
        assert answer.headers["location"] == "https://shop.example/"
        assert len(again.clicks()) == 2
        assert again.links()[["row", "link"]].values.tolist() == [[3, 1]]


def test_a_file_inbox_served_on_ipv6_loopback_gives_short_links_that_answer(
    tmp_path: Path,
) -> None:
    """A file inbox served on ``::1`` by one process, opened unserved by another (as `send
    --track-links` opens it): its short links start with ``http://[::1]:PORT`` and answer
    there over real HTTP (the unserved one said ``http://::1:PORT``, no URL at all)."""
    path = tmp_path / "inbox.sqlite"
    (token,) = new_tokens(1)
    with Inbox(path, host="::1") as served:
        port = urlsplit(served.url).port
        unserved = Inbox(path, host="::1")
        assert unserved.link_base == served.link_base == f"http://[::1]:{port}"
        unserved.register_links("c", [(token, "+33612345678", 0, 0, "https://shop.example/")])
        answer = _get(f"{unserved.link_base}/{token}")
        assert answer.status_code == 302 and answer.headers["location"] == "https://shop.example/"


def test_a_token_registered_again_is_kept_or_refused() -> None:
    """The same link registered again adds nothing; its token for another recipient is refused."""
    (token,) = new_tokens(1)
    row = (token, "+33612345678", 0, 0, "https://shop.example/")
    with Inbox() as inbox:
        assert inbox.register_links("c", [row]) == 1
        assert inbox.register_links("c", [row]) == 0
        with pytest.raises(ValidationError, match=f"links\\[{token}\\]"):
            inbox.register_links("c", [(token, "+33699999999", 1, 0, "https://shop.example/")])
        with pytest.raises(ValidationError, match="destination"):
            inbox.register_links("c", [(new_tokens(1)[0], "+3361", 2, 0, "javascript:alert(1)")])
        assert len(inbox.links()) == 1


def test_clicks_take_the_user_s_bot_rules() -> None:
    """inbox.clicks(bots=...) applies the rules given (a user agent added)."""
    (token,) = new_tokens(1)
    with Inbox() as inbox:
        inbox.register_links("c", [(token, "+33612345678", 0, 0, "https://shop.example/")])
        _get(f"{inbox.link_base}/{token}", agent="Mozilla/5.0 (compatible; AcmeMonitor/2.0)")
        assert inbox.clicks()["reason"].tolist() == ["human"]
        rules = BotRules().adding(AgentRule("uptime", "AcmeMonitor"))
        assert inbox.clicks(bots=rules)["reason"].tolist() == ["agent:uptime"]


def _stalled_get(inbox: Inbox, token: str, kind: int) -> socket.socket:
    """A link request that stops: before its headers, or inside them."""
    parts = urlsplit(inbox.link_base)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
    if kind == 1:
        sock.sendall(f"GET /{token} HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode())
    return sock


def test_a_burst_of_clicks_beside_stalled_connections_is_served_and_recorded_whole() -> None:
    """100 stalled connections and a burst of 400 clicks, 100 at once: every
    click redirected and recorded; the stalled connections are closed."""
    tokens = new_tokens(400)
    with Inbox(request_timeout=6, max_connections=256) as inbox:
        inbox.register_links(
            "burst",
            [(t, f"+3361{n:07d}", n, 0, "https://shop.example/") for n, t in enumerate(tokens)],
        )
        socks = [_stalled_get(inbox, tokens[0], n % 2) for n in range(100)]
        try:

            async def clicks() -> list[int]:
                limits = httpx.Limits(max_connections=100, max_keepalive_connections=0)
                async with httpx.AsyncClient(limits=limits, timeout=30, trust_env=False) as client:
                    answers = await asyncio.gather(
                        *(
                            client.get(f"{inbox.link_base}/{t}", headers={"User-Agent": PHONE})
                            for t in tokens
                        )
                    )
                return [a.status_code for a in answers]

            assert set(asyncio.run(clicks())) == {302}
            recorded = inbox.clicks()
            assert len(recorded) == 400 and set(recorded["token"]) == set(tokens)
            assert all(closed_by_server(sock) for sock in socks)
        finally:
            for sock in socks:
                sock.close()


def test_link_base_defaults_to_the_inbox_and_a_public_domain_is_kept(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Default short links start with the inbox's own http://127.0.0.1:PORT; with
    link_base= the texts carry the public domain, the inbox serves the token a proxy forwards,
    and a file inbox keeps that link_base when opened again."""
    with Inbox() as plain:
        port = urlsplit(plain.url).port
        assert plain.link_base == f"http://127.0.0.1:{port}"
    path = tmp_path / "inbox.sqlite"
    with (
        Inbox(path, link_base="https://go.shop.example/") as inbox,
        Client(sandbox=fresh_sandbox) as client,
    ):
        assert inbox.link_base == "https://go.shop.example"
        campaign = Campaign(
            client, ["+33612345678"], text="Vite https://shop.example/p", sender="Shop",
            name="public", track_links=inbox, purpose="alert",
        )  # fmt: skip
        campaign.send(journal=tmp_path / "j.sqlite", progress=False)
        (text,) = fresh_sandbox.sent()["text"]
        (link,) = find_links(text)
        assert link.url.startswith("https://go.shop.example/")
        token = link.url.rsplit("/", 1)[1]
        served = urlsplit(inbox.url)
        answer = _get(f"http://{served.hostname}:{served.port}/{token}")  # what the proxy sends
        assert answer.status_code == 302
        assert answer.headers["location"].startswith("https://shop.example/p?utm_source=sms")
    with Inbox(path) as again:
        assert again.link_base == "https://go.shop.example"


def test_the_links_page_says_how_to_front_the_inbox_and_what_is_kept() -> None:
    """docs/links.md has the sections the issue asks for: a public domain in front of the
    inbox, what is stored and for how long, Dask and the Composer."""
    page = (Path(__file__).resolve().parents[1] / "docs" / "links.md").read_text()
    for heading in (
        "## A public domain in front of the inbox",
        "## What is stored, and for how long",
        "## Dask campaigns",
        "## The Composer",
    ):
        assert heading in page, heading
    assert "link_base=" in page and "track_links=inbox" in page


@pytest.mark.parametrize("destination", [None, 42, b"https://shop.example/", ["https://a.b/"]])
def test_a_destination_that_is_not_text_is_refused_and_nothing_registered(
    destination: object,
) -> None:
    """register_links with a destination that is not a URL's text: refused naming the
    token's destination and the value, none of the rows registered."""
    first, second = new_tokens(2)
    rows = [
        (first, "+33612345678", 0, 0, "https://shop.example/"),
        (second, "+33612345679", 1, 0, destination),
    ]
    with Inbox() as inbox:
        with pytest.raises(ValidationError) as caught:
            inbox.register_links("c", rows)  # type: ignore[arg-type]
        assert caught.value.field == f"links[{second}].destination"
        assert caught.value.rule == "must be an http(s) URL"
        assert caught.value.value == destination
        assert len(inbox.links()) == 0
