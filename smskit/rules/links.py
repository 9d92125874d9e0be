"""Tracked links: the URLs of a text, their short links, and the fields that carry them.

Pure functions over ``str``, no I/O. A tracked text sends each distinct ``http(s)://`` URL
of the template as a per-recipient short link ``{link_base}/{token}``, carried to the
gateway in a dynamic field the text does not use (``{param5}`` first, then ``{param4}`` ...),
so the gateway personalises it (spec, Contact: "Dynamic field ``{param1}`` ..
``{param5}``, each max 50 chars"). The text sent is the template with each URL replaced by
its field; each recipient's value of that field is their short link. Rendering that text
for a recipient (:func:`smskit.rules.personalize.render`) gives the very text the gateway
bills, so length, encoding and segments are counted with the real link.

Tokens are :data:`TOKEN_LENGTH` letters and digits drawn with :mod:`secrets` (over 64 bits:
a guesser needs billions of billions of tries per link) and no longer, since every
character of the link is paid for in every text. A ``link_base`` whose short links cannot
fit the field's 50 characters, or a text with more distinct links than free fields, is
refused naming the link.

How a URL ends in a text follows what handsets underline: it runs to the next white space,
minus trailing punctuation (``.,;:!?'"``) and closing brackets that have no opening
bracket inside the URL.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from smskit.errors import ValidationError
from smskit.rules.fields import DYNAMIC_FIELDS, FIELD_RE, split_fields
from smskit.rules.hosts import http_url_parts
from smskit.rules.ranges import checked_integer
from smskit.rules.spec import FIELD_MAX

__all__ = [
    "LINK_FIELDS",
    "TOKEN_ALPHABET",
    "TOKEN_LENGTH",
    "TOKEN_RE",
    "Link",
    "LinkKey",
    "TrackedText",
    "check_link_base",
    "derived_token",
    "destination_fields",
    "find_links",
    "new_tokens",
    "sent_tokens",
    "short_link",
    "track",
    "with_short_links",
    "with_utm",
]

TOKEN_ALPHABET: Final = string.ascii_letters + string.digits
# 62**11 > 2**65: the fewest letters and digits that hold 64 random bits.
TOKEN_LENGTH: Final = 11
TOKEN_RE: Final = re.compile(rf"[A-Za-z0-9]{{{TOKEN_LENGTH}}}")
# The fields a link may take, in the order they are taken: the last ones first, since
# users fill first_name, last_name and param1 before param5.
LINK_FIELDS: Final = tuple(reversed(DYNAMIC_FIELDS[2:]))

_URL_RE: Final = re.compile(r"https?://\S+", re.IGNORECASE)
_TRAILING: Final = ".,;:!?'\"»"
_PAIRS: Final = {")": "(", "]": "[", "}": "{", ">": "<"}
RULE_FIT: Final = (
    f"its short link ({{link_base}}/ and {TOKEN_LENGTH} characters) must fit a dynamic "
    f"field of {FIELD_MAX} characters: use a shorter link_base"
)


@dataclass(frozen=True, slots=True)
class Link:
    """One URL found in a text: where it is (``text[start:end]``) and what it says."""

    start: int
    end: int
    url: str


def find_links(text: str) -> tuple[Link, ...]:
    """Every ``http://`` or ``https://`` URL of ``text``, in order (see the module docstring
    for where one ends). A URL may hold dynamic fields (``https://shop.example/?u={param1}``)."""
    if not isinstance(text, str):
        raise ValidationError("text", "must be a string", value=text)
    found = []
    for match in _URL_RE.finditer(text):
        url = _trimmed(match.group())
        if len(url) > len("https://") and urlsplit(url).netloc:
            found.append(Link(match.start(), match.start() + len(url), url))
    return tuple(found)


def _trimmed(url: str) -> str:
    while url:
        last = url[-1]
        if last in _TRAILING or (last in _PAIRS and url.count(_PAIRS[last]) < url.count(last)):
            url = url[:-1]
        else:
            break
    return url


def check_link_base(link_base: str) -> str:
    """``link_base`` without a trailing slash: ``http(s)://host[:port][/path]``, printable
    ASCII, no query, fragment or braces (the gateway would read ``{...}`` as a field)."""
    if not isinstance(link_base, str):
        raise ValidationError("link_base", "must be a URL such as https://go.shop.example")
    base = link_base.rstrip("/")
    parts = urlsplit(base) if http_url_parts(base) is not None else None
    if (
        parts is None
        or parts.query
        or parts.fragment
        or not base.isascii()
        or not base.isprintable()
        or any(c in base for c in " {}")
    ):
        raise ValidationError(
            "link_base",
            "must be http(s)://host[:port][/path] in printable ASCII (the port from 1 to "
            "65535), with no query, fragment, spaces or braces",
            value=link_base,
        )
    return base


def short_link(link_base: str, token: str) -> str:
    """The short link of ``token``: ``{link_base}/{token}``."""
    return f"{link_base}/{token}"


def sent_tokens(values: Iterable[Any]) -> frozenset[str]:
    """The tokens of the short links among ``values`` (a campaign's link fields as its
    journal holds them, ``{link_base}/{token}``): what joins a click to the send that sent
    its link, whatever the campaign's name."""
    cut = -TOKEN_LENGTH
    tails = (v[cut:] for v in values if isinstance(v, str) and v[cut - 1 : cut] == "/")
    return frozenset(tail for tail in tails if TOKEN_RE.fullmatch(tail))


def new_tokens(count: int) -> list[str]:
    """``count`` fresh tokens of :data:`TOKEN_LENGTH` letters and digits, from :mod:`secrets`
    (distinct: a repeat, about one in 10**19 per pair, is drawn again)."""
    count = checked_integer("count", count, low=0)
    space = len(TOKEN_ALPHABET) ** TOKEN_LENGTH
    tokens: dict[str, None] = {}
    while len(tokens) < count:
        # 128 random bits reduced modulo 62**11: the bias is below one part in 10**18.
        tokens[_token(int.from_bytes(secrets.token_bytes(16)) % space)] = None
    return list(tokens)


def _token(number: int) -> str:
    """``number`` (below ``62**11``) in base 62: :data:`TOKEN_LENGTH` letters and digits."""
    digits = []
    for _ in range(TOKEN_LENGTH):
        number, digit = divmod(number, len(TOKEN_ALPHABET))
        digits.append(TOKEN_ALPHABET[digit])
    return "".join(digits)


def derived_token(secret: bytes, campaign: str, row: int, link: int) -> str:
    """The token of ``link`` (its index among the text's distinct links) for recipient
    ``row`` of ``campaign``: :data:`TOKEN_LENGTH` letters and digits of an HMAC-SHA256 keyed
    with ``secret``. Unguessable without the secret (the inbox keeps it), and the same each
    time the same campaign is planned, so a re-run or a resume sends the same payload (the
    same request ids: nothing is sent twice) and registers the same links."""
    if not isinstance(secret, bytes) or len(secret) < 16:
        raise ValidationError("secret", "must be at least 16 random bytes")
    message = f"{campaign}\x00{row}\x00{link}".encode()
    number = int.from_bytes(hmac.new(secret, message, hashlib.sha256).digest()[:16])
    return _token(number % len(TOKEN_ALPHABET) ** TOKEN_LENGTH)


@dataclass(frozen=True, slots=True)
class LinkKey:
    """An inbox's secret as a token maker (:func:`derived_token`), to hand to the processes
    that make a campaign's links (a Dask cluster's workers); the secret is never shown."""

    secret: bytes = field(repr=False)

    def tokens(self, campaign: str, rows: Sequence[int], link: int) -> list[str]:
        """The tokens of ``link`` for ``rows`` of ``campaign``."""
        return [derived_token(self.secret, campaign, int(row), link) for row in rows]


@dataclass(frozen=True, slots=True)
class TrackedText:
    """A template with its links taken out: ``text`` is sent, each ``fields[i]`` carries the
    short link of ``destinations[i]`` (a URL that may still hold dynamic fields)."""

    text: str
    fields: tuple[str, ...]
    destinations: tuple[str, ...]


def track(template: str, link_base: str) -> TrackedText:
    """``template`` with each distinct URL replaced by a free dynamic field (the same URL
    twice: one field, one short link per recipient).

    Refused (``ValidationError`` naming the link): a short link of ``link_base`` longer than
    a field holds, or more distinct links than the fields the template leaves free.
    """
    base = check_link_base(link_base)
    links = find_links(template)
    if not links:
        return TrackedText(template, (), ())
    if len(short_link(base, "x" * TOKEN_LENGTH)) > FIELD_MAX:
        raise ValidationError(f"link {links[0].url!r}", RULE_FIT, value=base)
    known, _unknown = split_fields(template)
    free = [name for name in LINK_FIELDS if name not in known]
    destinations = list(dict.fromkeys(link.url for link in links))
    if len(destinations) > len(free):
        extra = destinations[len(free)]
        raise ValidationError(
            f"link {extra!r}",
            f"each distinct link takes a free dynamic field; this text leaves "
            f"{len(free)} free ({', '.join(free) or 'none'}) for {len(destinations)} links",
        )
    field_of = dict(zip(destinations, free, strict=False))
    pieces, last = [], 0
    for link in links:
        pieces += [template[last : link.start], f"{{{field_of[link.url]}}}"]
        last = link.end
    pieces.append(template[last:])
    return TrackedText(
        "".join(pieces), tuple(field_of[d] for d in destinations), tuple(destinations)
    )


def with_short_links(template: str, link_base: str) -> str:
    """``template`` with each URL written as a short link of ``link_base`` (its token a
    placeholder of :data:`TOKEN_LENGTH` letters): every recipient's link has that length and
    that alphabet (GSM-7), so the length, encoding and segments of this text are those of the
    text sent, links included (refused as :func:`track` refuses)."""
    tracked = track(template, link_base)
    link = short_link(check_link_base(link_base), "x" * TOKEN_LENGTH)
    return FIELD_RE.sub(
        lambda m: link if m.group(1) in tracked.fields else m.group(0), tracked.text
    )


def destination_fields(destination: str) -> tuple[str, ...]:
    """The dynamic fields a destination uses (rendered per recipient before registering)."""
    return tuple(dict.fromkeys(FIELD_RE.findall(destination)))


def with_utm(destination: str, campaign: str) -> str:
    """``destination`` with ``utm_source=sms`` and ``utm_campaign=<campaign>`` added to its
    query, each unless the destination sets it already; the rest kept as written."""
    parts = urlsplit(destination)
    present = {key for key, _ in parse_qsl(parts.query, keep_blank_values=True)}
    added = [
        (k, v) for k, v in (("utm_source", "sms"), ("utm_campaign", campaign)) if k not in present
    ]
    if not added:
        return destination
    query = "&".join(q for q in (parts.query, urlencode(added)) if q)
    return urlunsplit(parts._replace(query=query))
