"""The Composer with ``track_links``: the meter, preview, SMS count and estimate count each
recipient's real short link; the send registers and sends them, over real HTTP."""

from __future__ import annotations

from pathlib import Path

import httpx
import pandas as pd
import pytest

from smskit import Client
from smskit.replies import Inbox
from smskit.rules.links import TOKEN_LENGTH, find_links
from smskit.sandbox import Sandbox
from smskit.views.composer import Composer

# A long URL: as typed the text takes 2 segments, with its short link 1.
URL = (
    "https://shop.example/collections/hiver-2026/manteaux-laine"
    "?ref=sms&promo=HIVER30&src=x&utm_content=banniere"
)
TEXT = f"Bonjour {{first_name}}, -30% sur les manteaux: {URL} STOP au 36173"
SEND_AT = "2030-06-04T10:00:00+02:00"  # a Tuesday morning: inside French marketing hours
NUMBERS = [f"+3361{i:07d}" for i in range(30)]


def _recipients() -> pd.DataFrame:
    return pd.DataFrame({"phone_number": NUMBERS, "first_name": ["Léa", "Jean"] * 15})


def test_the_composer_counts_and_sends_the_real_links(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """The typed text takes 2 segments, its short links 1: the meter and preview say 1, the
    estimate equals the billed cost, each text sent carries its recipient's registered link."""
    with Inbox(tmp_path / "inbox.sqlite") as inbox, Client(sandbox=fresh_sandbox) as client:
        composer = Composer(
            client, _recipients(), text=TEXT, sender="Shop", send_at=SEND_AT, debounce=0,
            name="manteaux", journal=tmp_path / "c.sqlite", track_links=inbox,
        )  # fmt: skip
        assert composer.stats is not None and composer.stats.segments == 2  # as typed
        assert composer.state["meter"]["segments"] == 1
        assert composer.summary["sms"] == len(NUMBERS)
        check = next(c for c in composer.panel.checks if c.name == "links")
        assert check.ok and "1 link(s) tracked" in check.message
        preview = composer.panel.preview
        assert preview is not None
        for row in preview:
            (link,) = find_links(row["text"])
            assert link.url.startswith(f"{inbox.link_base}/")
            assert len(link.url) == len(inbox.link_base) + 1 + TOKEN_LENGTH
        estimate = composer.estimate()
        assert inbox.links().empty  # an estimate registers nothing
        result = composer.send()
        assert result.complete
        sent = fresh_sandbox.sent()
        assert len(sent) == len(NUMBERS) and (sent["segments"] == 1).all()
        assert estimate.cost == pytest.approx(sent["cost"].sum())
        owner = inbox.links().set_index("token")
        pairs = zip(sent["phone_number"], sent["text"], strict=True)
        links = {n: find_links(t)[0].url for n, t in pairs}
        for number, url in links.items():
            assert owner.loc[url.rsplit("/", 1)[1], "phone_number"] == number
        answer = httpx.get(links[NUMBERS[3]], trust_env=False)
        assert answer.status_code == 302
        assert answer.headers["location"].startswith(URL + "&utm_source=sms")


def test_a_link_edited_after_the_first_refresh_is_the_one_registered(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Typing another destination keeps the tokens (same name, same links) but registers the
    new destination; a second send is a new campaign with links of its own."""
    with Inbox() as inbox, Client(sandbox=fresh_sandbox) as client:
        composer = Composer(
            client, NUMBERS[:5], text="Soldes https://shop.example/a", sender="Shop",
            purpose="alert", debounce=0, name="edit", journal=tmp_path / "e.sqlite",
            track_links=inbox,
        )  # fmt: skip
        composer.text = "Soldes https://shop.example/b"
        composer.send()
        first = inbox.links()
        assert set(first["destination"]) == {
            "https://shop.example/b?utm_source=sms&utm_campaign=edit"
        }
        composer.text = "Soldes! https://shop.example/b"
        composer.send()
        links = inbox.links()
        assert set(links["campaign"]) == {"edit", "edit-2"}
        assert len(links) == 10 and links["token"].is_unique
        texts = fresh_sandbox.sent()["text"]
        tokens = {find_links(t)[0].url.rsplit("/", 1)[1] for t in texts}
        assert tokens == set(links["token"])


def test_a_link_base_too_long_blocks_the_send_naming_the_link() -> None:
    """A short link that cannot fit a dynamic field fails the links check; send is off."""
    with Inbox(link_base="https://a-very-long-public-domain-for-links.example") as inbox:
        composer = Composer(
            None, NUMBERS[:3], text="Vite https://shop.example/x", sender="Shop",
            purpose="alert", debounce=0, track_links=inbox,
        )  # fmt: skip
        check = next(c for c in composer.panel.checks if c.name == "links")
        assert not check.ok and "https://shop.example/x" in check.message
        assert not composer.enabled("send")
