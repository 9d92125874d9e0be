"""Clicks that no person made: link previews, scanners and crawlers, told apart by rules.

Pure functions over pandas objects, no I/O. Each request on a tracked link is ``human`` or a
bot with the first reason that applies, in this order:

``agent:<name>``
    a user agent of :data:`KNOWN_AGENTS` (previews, scanners, crawlers, HTTP libraries; each
    with the public source that documents it) or one the user adds (:meth:`BotRules.adding`);
``head``
    a ``HEAD`` request: a browser opening a link sends ``GET``; a checker asks for headers;
``before_delivery``
    the request came before every sign that the message was delivered (its delivery date
    and the arrival of its delivery report): a carrier or gateway scanner, not the person,
    since the phone had not received the link yet. Judged only where a delivery time is
    known (the campaign's outcomes give it);
``burst``
    another request on the same token within :attr:`BotRules.burst_seconds` (one second):
    preview fetchers and scanners open a link several times at once, a person taps once;
any user rule
    ``BotRules(extra={"name": predicate})``, a predicate over the clicks frame returning a
    boolean Series (say, requests from the office's address range).

The rules are data (:class:`BotRules`, frozen): ``inbox.clicks(bots=...)`` and the
campaign's outcomes take one. docs/links.md lists them with their sources.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, Final

from smskit.errors import ValidationError
from smskit.rules.choices import checked_flag
from smskit.rules.ranges import checked_seconds

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["HUMAN", "KNOWN_AGENTS", "REASONS", "AgentRule", "BotRules", "classify"]

HUMAN: Final = "human"
REASONS: Final = ("agent", "head", "before_delivery", "burst")


@dataclass(frozen=True, slots=True)
class AgentRule:
    """A user agent that is no person: ``name`` when ``pattern`` (a regular expression,
    case-insensitive) is found in it; ``source`` documents it."""

    name: str
    pattern: str
    source: str = "user rule"

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not re.fullmatch(r"[\w.-]{1,40}", self.name):
            raise ValidationError("name", "must be 1 to 40 letters, digits, '.', '-' or '_'")
        try:
            re.compile(self.pattern)
        except (re.error, TypeError):
            raise ValidationError(
                f"agent {self.name!r}", "pattern must be a regular expression", value=self.pattern
            ) from None


KNOWN_AGENTS: Final = (
    # Apple's Messages fetches link previews as "facebookexternalhit/1.1 Facebot Twitterbot/1.0"
    # (observed and published: peter.upfold.org.uk/blog/2019/02); Meta's crawler:
    # developers.facebook.com/docs/sharing/webmasters/web-crawlers
    AgentRule("facebook", r"facebookexternalhit|facebookcatalog|\bFacebot\b",
              "developers.facebook.com/docs/sharing/webmasters/web-crawlers"),
    AgentRule("twitter", r"Twitterbot", "developer.x.com/en/docs/x-for-websites/cards"),
    AgentRule("whatsapp", r"\bWhatsApp/", "faq.whatsapp.com (link previews)"),
    AgentRule("telegram", r"TelegramBot", "core.telegram.org/api/links (link previews)"),
    AgentRule("slack", r"Slackbot|Slack-ImgProxy", "api.slack.com/robots"),
    AgentRule("discord", r"Discordbot", "discord.com/developers/docs (embeds)"),
    AgentRule("linkedin", r"LinkedInBot", "linkedin.com/help (LinkedInBot)"),
    AgentRule("skype-teams", r"SkypeUriPreview", "learn.microsoft.com (Teams link unfurling)"),
    AgentRule("google", r"Googlebot|Google-InspectionTool|GoogleOther|Google-Read-Aloud|"
              r"AdsBot-Google|APIs-Google|Mediapartners-Google|FeedFetcher-Google",
              "developers.google.com/search/docs/crawling-indexing/overview-google-crawlers"),
    AgentRule("apple", r"Applebot", "support.apple.com/en-us/119829"),
    AgentRule("bing", r"bingbot|BingPreview|msnbot", "bing.com/webmasters/help (Bingbot)"),
    AgentRule("yandex", r"YandexBot|YandexMobileBot", "yandex.com/support/webmaster"),
    AgentRule("baidu", r"Baiduspider", "help.baidu.com (Baiduspider)"),
    AgentRule("duckduckgo", r"DuckDuckBot", "duckduckgo.com/duckduckbot"),
    AgentRule("pinterest", r"Pinterestbot", "help.pinterest.com (Pinterestbot)"),
    AgentRule("embed-services", r"Embedly|Iframely|vkShare|redditbot|Tumblr/",
              "each service's documentation of its link-preview fetcher"),
    AgentRule("mail-scanners", r"Barracuda|Proofpoint|Mimecast|MSOffice.*SafeLinks|"
              r"Microsoft Office Protocol Discovery", "the vendors' URL-defence documentation"),
    AgentRule("headless", r"HeadlessChrome|PhantomJS|Puppeteer|Playwright|Selenium",
              "the tools' default user agents"),
    AgentRule("http-library", r"^(python-requests|python-httpx|python-urllib|aiohttp|curl|Wget|"
              r"Go-http-client|Java/|Apache-HttpClient|okhttp|libwww-perl|node-fetch|axios)\b",
              "the libraries' default user agents"),
    # Whole words only: "CUBOT" is a phone maker whose handsets name themselves.
    AgentRule("generic", r"\b(?:bot|crawler|spider|preview|scanner)\b|[a-z]bot/",
              "words crawlers put in their user agents (robotstxt.org/db.html)"),
    AgentRule("empty", r"^\s*$", "a browser always sends a user agent (RFC 9110, 10.1.5)"),
)  # fmt: skip


@dataclass(frozen=True)
class BotRules:
    """The rules :func:`classify` applies (see the module docstring for their order).

    ``BotRules().adding(AgentRule("monitor", r"UptimeRobot"))`` adds a user agent;
    ``extra={"office": lambda clicks: clicks.user_agent.str.contains("Corp")}`` a rule of
    your own, named by its key. ``head=False`` or ``burst_seconds=0`` turns a rule off.
    """

    agents: tuple[AgentRule, ...] = KNOWN_AGENTS
    head: bool = True
    before_delivery: bool = True
    burst_seconds: float = 1.0
    extra: Mapping[str, Callable[[pd.DataFrame], Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.agents, tuple | list) or not all(
            isinstance(a, AgentRule) for a in self.agents
        ):
            raise ValidationError("agents", "must be a tuple of AgentRule objects")
        checked_flag("head", self.head)
        checked_flag("before_delivery", self.before_delivery)
        object.__setattr__(
            self, "burst_seconds", checked_seconds("burst_seconds", self.burst_seconds)
        )
        if not isinstance(self.extra, Mapping) or not all(
            isinstance(name, str) and name and callable(rule) for name, rule in self.extra.items()
        ):
            raise ValidationError("extra", "must map rule names to functions of the clicks")

    def adding(self, *agents: AgentRule) -> BotRules:
        """These rules with more user agents (checked after the known ones)."""
        return replace(self, agents=(*self.agents, *agents))

    @cached_property
    def _agent_re(self) -> re.Pattern[str] | None:
        if not self.agents:
            return None
        return re.compile(
            "|".join(f"(?P<a{i}>{a.pattern})" for i, a in enumerate(self.agents)), re.IGNORECASE
        )

    def agent(self, user_agent: str | None) -> str | None:
        """The name of the first agent rule that ``user_agent`` matches, or None."""
        pattern = self._agent_re
        match = pattern.search(user_agent or "") if pattern else None
        return self.agents[int(str(match.lastgroup)[1:])].name if match else None


def classify(clicks: pd.DataFrame, rules: BotRules | None = None) -> pd.Series:
    """Per request: ``"human"`` or the first bot reason (``agent:<name>``, ``head``,
    ``before_delivery``, ``burst``, a user rule's name).

    ``clicks`` has columns ``token``, ``at`` (times), ``method`` and ``user_agent``, and may
    have ``delivered_at`` (the first sign of delivery; missing when unknown).
    """
    import pandas as pd

    rules = BotRules() if rules is None else rules
    if not isinstance(rules, BotRules):
        raise ValidationError("bots", "must be a smskit.BotRules", value=rules)
    reason = pd.Series(HUMAN, index=clicks.index, dtype=object)
    open_ = pd.Series(True, index=clicks.index)

    def mark(mask: Any, label: Any) -> None:
        hit = open_ & pd.Series(mask, index=clicks.index).fillna(False).astype(bool)
        reason[hit] = label if isinstance(label, str) else label[hit]
        open_[hit] = False

    agents = clicks["user_agent"].map(rules.agent)
    mark(agents.notna(), "agent:" + agents.fillna(""))
    if rules.head:
        mark(clicks["method"].str.upper() == "HEAD", "head")
    if rules.before_delivery and "delivered_at" in clicks:
        delivered = pd.to_datetime(clicks["delivered_at"], utc=True)
        at = pd.to_datetime(clicks["at"], utc=True)
        mark(delivered.notna() & (at < delivered), "before_delivery")
    if rules.burst_seconds > 0 and len(clicks):
        mark(_in_burst(clicks, rules.burst_seconds), "burst")
    for name, rule in rules.extra.items():
        mark(rule(clicks), name)
    return reason.rename("reason")


def _in_burst(clicks: pd.DataFrame, seconds: float) -> pd.Series:
    """Requests with another request on the same token within ``seconds``."""
    import pandas as pd

    ordered = clicks[["token", "at"]].sort_values(["token", "at"], kind="stable")
    window = pd.Timedelta(seconds=seconds)
    same = ordered["token"].eq(ordered["token"].shift())
    near_previous = same & (ordered["at"] - ordered["at"].shift() <= window)
    same_next = ordered["token"].eq(ordered["token"].shift(-1))
    near_next = same_next & (ordered["at"].shift(-1) - ordered["at"] <= window)
    return (near_previous | near_next).reindex(clicks.index)
