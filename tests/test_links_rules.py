"""The pure rules of tracked links: URLs in a text, tokens, fields, UTM, bot classification."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from smskit.errors import ValidationError
from smskit.rules import links
from smskit.rules.bots import KNOWN_AGENTS, AgentRule, BotRules, classify
from smskit.rules.personalize import render
from smskit.rules.text import analyze

PHONE_AGENTS = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/124.0.0.0 Mobile Safari/537.36",
    "Mozilla/5.0 (Linux; Android 10; CUBOT X30) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/120.0.0.0 Mobile Safari/537.36",
)


def test_find_links_trims_what_handsets_do_not_underline() -> None:
    """A URL runs to white space, minus trailing punctuation and unmatched closing brackets."""
    text = "Sale (see https://shop.example/a?b=1). Or http://x.example/wiki/A_(b), now!"
    assert [link.url for link in links.find_links(text)] == [
        "https://shop.example/a?b=1",
        "http://x.example/wiki/A_(b)",
    ]
    assert links.find_links("no link, http:// alone, ftp://x.example") == ()


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60))
def test_found_links_are_where_they_say(text: str) -> None:
    """Each link found is the text's slice at its position and starts with http(s)://."""
    for link in links.find_links(text):
        assert text[link.start : link.end] == link.url
        assert link.url.lower().startswith(("http://", "https://"))


def test_tokens_are_distinct_letters_and_digits_of_fixed_length() -> None:
    """new_tokens gives distinct 11-character alphanumeric tokens (over 64 random bits)."""
    tokens = links.new_tokens(5000)
    assert len(set(tokens)) == 5000
    assert all(links.TOKEN_RE.fullmatch(t) for t in tokens)
    assert len(links.TOKEN_ALPHABET) ** links.TOKEN_LENGTH > 2**64


def test_track_replaces_each_distinct_url_with_a_free_field() -> None:
    """The same URL twice takes one field; fields the text uses (inside a URL too) stay."""
    template = (
        "Hi {param5}, https://a.example/x?u={param4} or https://b.example "
        "https://a.example/x?u={param4} STOP au 36111"
    )
    tracked = links.track(template, "http://127.0.0.1:8000/")
    assert tracked.fields == ("param3", "param2")
    assert tracked.destinations == ("https://a.example/x?u={param4}", "https://b.example")
    assert tracked.text == "Hi {param5}, {param3} or {param2} {param3} STOP au 36111"


def test_track_refuses_naming_the_link() -> None:
    """Too long a link_base, or more links than free fields, is refused naming the link."""
    with pytest.raises(ValidationError, match=r"link 'https://a\.example'.*50 characters"):
        links.track("go https://a.example", "https://" + "x" * 35 + ".example")
    many = " ".join(f"https://l{i}.example" for i in range(6))
    with pytest.raises(ValidationError, match=r"link 'https://l5\.example'.*5 free"):
        links.track(many, "https://go.example")
    with pytest.raises(ValidationError, match="link_base"):
        links.track("https://a.example", "https://go.example/?q=1")


def test_rendered_tracked_text_costs_what_the_real_link_costs() -> None:
    """The text rendered with a recipient's real short link has the segments of the full text."""
    base = "https://go.shop.example"
    template = (
        "Soldes -50% ce week-end sur tout le magasin, profitez-en vite avant dimanche soir: "
        "https://shop.example/soldes/2026/hiver/collection-femme?ref=sms&c=1 STOP au 36111"
    )
    tracked = links.track(template, base)
    (token,) = links.new_tokens(1)
    link = links.short_link(base, token)
    rendered = render(tracked.text, {tracked.fields[0]: link})
    assert rendered == template.replace(tracked.destinations[0], link)
    assert analyze(rendered).segments == 1 < analyze(template).segments


@given(
    st.dictionaries(
        st.sampled_from(["utm_source", "utm_campaign", "a", "b"]), st.text("xyz", max_size=3)
    )
)
def test_with_utm_adds_only_what_is_missing(query: dict[str, str]) -> None:
    """utm_source=sms and utm_campaign are added unless set; the other parameters are kept."""
    base = "https://shop.example/p"
    destination = base + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")
    out = dict(parse_qsl(urlsplit(links.with_utm(destination, "spring")).query, True))
    assert out == {"utm_source": "sms", "utm_campaign": "spring", **query}


def test_with_utm_keeps_the_fragment() -> None:
    """A fragment stays after the query."""
    assert links.with_utm("https://s.example/p?a=1#top", "c") == (
        "https://s.example/p?a=1&utm_source=sms&utm_campaign=c#top"
    )


def _clicks(rows: list[tuple[str, float, str, str]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=["token", "seconds", "method", "user_agent"])
    frame["at"] = pd.Timestamp("2026-01-01", tz="UTC") + pd.to_timedelta(frame["seconds"], "s")
    return frame


def test_classify_gives_the_first_reason_in_order() -> None:
    """Known agent, HEAD, before delivery, burst, user rule: first one wins; phones are human."""
    phone = PHONE_AGENTS[0]
    frame = _clicks(
        [
            ("a", 0, "GET", "facebookexternalhit/1.1 Facebot Twitterbot/1.0"),
            ("b", 0, "HEAD", phone),
            ("c", 0, "GET", phone),  # before its delivery
            ("d", 10, "GET", phone),
            ("d", 10.5, "GET", phone),  # a burst: both
            ("e", 30, "GET", phone),
            ("f", 40, "GET", "Corp browser"),
        ]
    )
    frame["delivered_at"] = frame["at"]
    frame.loc[2, "delivered_at"] = frame.loc[2, "at"] + pd.Timedelta(seconds=5)
    rules = BotRules(extra={"office": lambda c: c["user_agent"].str.startswith("Corp")})
    assert classify(frame, rules).tolist() == [
        "agent:facebook", "head", "before_delivery", "burst", "burst", "human", "office",
    ]  # fmt: skip


@pytest.mark.parametrize("agent", PHONE_AGENTS)
def test_phone_browsers_are_human(agent: str) -> None:
    """Phone browsers' user agents match no known bot (a CUBOT handset included)."""
    assert BotRules().agent(agent) is None


def test_user_agents_can_be_added() -> None:
    """An added AgentRule names its matches; a bad pattern is refused naming the agent."""
    rules = BotRules().adding(AgentRule("uptime", r"UptimeRobot"))
    assert rules.agent("Mozilla/5.0 (compatible; UptimeRobot/2.0)") == "uptime"
    assert BotRules().agent("WhatsApp/2.23.20.0 A") == "whatsapp"
    with pytest.raises(ValidationError, match="agent 'x'"):
        AgentRule("x", "(")
    assert all(rule.source for rule in KNOWN_AGENTS)


@given(
    st.lists(
        st.sampled_from(
            [
                "Soldes ",
                "é",
                "€ ",
                "{first_name} ",
                "https://shop.example/a ",
                "https://shop.example/b?x=1, ",
                "x" * 40 + " ",
            ]
        ),
        max_size=12,
    ),
    st.lists(st.text(links.TOKEN_ALPHABET, min_size=11, max_size=11), min_size=3, max_size=3),
)
def test_with_short_links_counts_what_any_recipient_s_links_cost(
    pieces: list[str], tokens: list[str]
) -> None:
    """The Composer's meter text (placeholder tokens) has the units, encoding and segments of
    the text rendered with any real tokens."""
    base = "http://127.0.0.1:8123"
    template = "".join(pieces)
    tracked = links.track(template, base)
    fields = {"first_name": "Zoé"}
    shown = analyze(render(links.with_short_links(template, base), fields))
    real_links = zip(tracked.fields, tokens, strict=False)
    real = analyze(
        render(tracked.text, {**fields, **{n: links.short_link(base, t) for n, t in real_links}})
    )
    assert (shown.encoding, shown.units, shown.segments) == (
        real.encoding,
        real.units,
        real.segments,
    )


def test_sent_tokens_are_the_tokens_of_the_short_links_among_the_values() -> None:
    """What joins a click to its send: the last 11 letters and digits after a slash, taken
    from short links only (a name, a longer or shorter tail, a non-text are no token)."""
    from smskit.rules.links import sent_tokens

    values = [
        "http://127.0.0.1:8123/aB3dE6gH9jK", "https://go.example/s/Zz0Zz0Zz0Zz", "aB3dE6gH9jQ",
        "http://x/abcdefghij", "http://x/abcdefghijkl", "http://x/abc-efghijk", "Jean-Baptiste",
        7, None,
    ]  # fmt: skip
    assert sent_tokens(values) == {"aB3dE6gH9jK", "Zz0Zz0Zz0Zz"}


@given(st.one_of(st.binary(max_size=15), st.text(min_size=16), st.none()))
def test_a_link_key_refuses_a_secret_shorter_than_16_bytes(secret: object) -> None:
    """A LinkKey makes no token from a secret of under 16 bytes (or text, or nothing): such
    tokens could be guessed; the refusal names the secret, never shows it."""
    key = links.LinkKey(secret)  # type: ignore[arg-type]
    with pytest.raises(ValidationError) as refused:
        key.tokens("spring", [0, 1], 0)
    assert str(refused.value) == "secret: must be at least 16 random bytes"
    assert refused.value.value is None


def test_a_link_key_of_16_bytes_makes_the_same_tokens_each_time() -> None:
    """At 16 bytes the key is taken; the same campaign, rows and link give the same tokens
    (a re-run sends the same links), another secret other ones."""
    first = links.LinkKey(bytes(range(16))).tokens("spring", [0, 1], 0)
    assert first == links.LinkKey(bytes(range(16))).tokens("spring", [0, 1], 0)
    assert all(links.TOKEN_RE.fullmatch(t) for t in first) and first[0] != first[1]
    assert first != links.LinkKey(bytes(range(1, 17))).tokens("spring", [0, 1], 0)


@given(
    st.one_of(st.integers(min_value=-3, max_value=99_999).map(str), st.sampled_from(["abc", ""])),
    st.sampled_from(["go.shop.example", "[::1]", ""]),
)
def test_a_link_base_is_read_exactly_or_refused(port: str, host: str) -> None:
    """A link base (the start of every short link sent) has a host and, when it names one, a
    port from 1 to 65535; anything else is refused naming link_base (``:99999``, ``:abc``
    and ``https://:8080`` were accepted and would have been sent in every SMS)."""
    base = f"https://{host}:{port}/s" if port else f"https://{host}/s"
    readable = bool(host) and (not port or (port.isdigit() and 1 <= int(port) <= 65_535))
    if readable:
        assert links.check_link_base(base) == base
        assert urlsplit(base).hostname == host.strip("[]")
    else:
        with pytest.raises(ValidationError, match="link_base") as refused:
            links.check_link_base(base)
        assert "65535" in refused.value.rule
