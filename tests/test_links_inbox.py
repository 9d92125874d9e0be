"""The inbox serves tracked links: redirects, 404 for unknown tokens, every request stored."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from smskit.errors import ValidationError
from smskit.replies import Inbox
from smskit.rules.bots import AgentRule, BotRules
from smskit.rules.links import new_tokens

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
