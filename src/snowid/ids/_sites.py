"""Which site a pasted link or mention is from, and the ids its address holds.

``read_site(text)`` gives a ``Found`` (the ids, the one the link is about first, each with
what it names, and the layout the site's ids are in) or a ``Miss`` saying how far the text
was recognised: a link to a site snowid reads but to a page holding no id (a profile, an
invite), a link to another site, an Instagram share link, something shaped like a mention,
or nothing of the kind. ``_pasted`` turns a miss into the error worded for it.

The sites, by host (``www.``, ``m.``, ``mobile.`` and the other prefixes below ignored):

- Twitter: twitter.com, x.com and the embed fixers fxtwitter.com, vxtwitter.com, fixupx.com,
  fixvx.com (``d.`` too): ``/USER/status/ID``, ``/i/web/status/ID``, ``/i/status/ID``,
  with any sub-page after the id (``/photo/1``, ``/analytics``, ``/likes``, ``/quotes``);
- Discord: discord.com, discordapp.com (``ptb.``, ``canary.``):
  ``/channels/SERVER|@me/CHANNEL[/MESSAGE]``; also mentions ``<@ID>``, ``<@!ID>``, ``<#ID>``,
  ``<@&ID>``, custom emoji ``<:name:ID>``, ``<a:name:ID>`` and the ``CHANNEL-MESSAGE`` pair
  Discord's "Copy Message ID" gives with Shift held;
- Instagram: instagram.com, instagr.am: ``[/USER]/p|reel|reels|tv/SHORTCODE[/embed[/captioned]]``;
  ``/share/…`` carries a share token, not the post's shortcode, and is a miss of its own;
- Mastodon: any other host, ``[https://]HOST/@user/ID`` with an ID of 16 to 19 digits (the
  ids of Mastodon 2.0 on; older posts were numbered one by one and hold no time).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

__all__ = ["Found", "Miss", "MissReason", "read_site"]

MissReason = Literal[
    "text", "site", "twitter", "discord", "instagram", "mastodon", "mention", "share"
]
"""``text``: neither a link nor a mention; ``site``: a link to a site snowid does not read;
``twitter``/``discord``/``instagram``/``mastodon``: a link to that site, to a page holding
no id; ``mention``: shaped like a Discord mention, holding no id; ``share``: an Instagram
share link."""


@dataclass(frozen=True, slots=True)
class Found:
    """The ids a link or mention holds, the one it is about first, each with what it
    names in a Discord link (empty elsewhere), and the layout of its site."""

    ids: tuple[tuple[int, str], ...]
    source: str


@dataclass(frozen=True, slots=True)
class Miss:
    """How far ``text`` was recognised (``reason``); ``site`` is the host as written when
    it is a link."""

    reason: MissReason
    site: str = ""


_URL: Final = re.compile(
    r"(?P<scheme>https?://)?(?P<host>[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)\.?"
    r"(?::\d{1,5})?(?P<path>/[^?#\s]*)?(?:[?#]\S*)?",
    re.IGNORECASE,
)
_TWITTER: Final = frozenset(
    {"twitter.com", "x.com", "fxtwitter.com", "vxtwitter.com", "fixupx.com", "fixvx.com"}
)
_DISCORD: Final = frozenset({"discord.com", "discordapp.com", "discord.gg"})
_INSTAGRAM: Final = frozenset({"instagram.com", "instagr.am"})
_PREFIXES: Final = ("www.", "m.", "mobile.", "d.", "ptb.", "canary.")

_TWEET_PATH: Final = re.compile(
    r"/(?:i/web/|i/|[A-Za-z0-9_]{1,15}/)status(?:es)?/(\d{1,20})(?:/[A-Za-z0-9_.-]+)*/?",
    re.IGNORECASE,
)
_DISCORD_PATH: Final = re.compile(r"/channels/(@me|\d{1,20})/(\d{1,20})(?:/(\d{1,20}))?/?")
_INSTAGRAM_PATH: Final = re.compile(
    r"/(?:[A-Za-z0-9_.]{1,30}/)?(?:p|reel|reels|tv)/([A-Za-z0-9_-]{1,11})"
    r"(?:/embed(?:/captioned)?)?/?"
)
_SHARE_PATH: Final = re.compile(r"/share/.*", re.IGNORECASE)
_MASTODON_PATH: Final = re.compile(r"/@[A-Za-z0-9_.@-]+/(\d+)/?")
_MASTODON_DIGITS: Final = range(16, 20)

_MENTION: Final = re.compile(r"<(@!?|#|@&)(\d{1,20})>")
_EMOJI: Final = re.compile(r"<a?:[A-Za-z0-9_~]{1,32}:(\d{1,20})>")
_PAIR: Final = re.compile(r"(\d{17,20})-(\d{17,20})")
_MENTION_LABELS: Final = {"@": "user", "@!": "user", "#": "channel", "@&": "role"}
_SHORTCODE: Final = {
    char: index
    for index, char in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
}


def read_site(text: str) -> Found | Miss:
    """The ids ``text`` (stripped, not a number) holds as a link or mention, or how far it
    was recognised."""
    if text.startswith("<") and text.endswith(">"):
        return _mention(text)
    if (pair := _PAIR.fullmatch(text)) is not None:
        return Found(((int(pair[2]), "message"), (int(pair[1]), "channel")), "discord")
    url = _URL.fullmatch(text)
    # A link: a scheme, or a host with a dot followed by a path ("x.com/a/status/1").
    if url is None or (url["scheme"] is None and not (url["path"] and "." in url["host"])):
        return Miss("text")
    return _link(url["host"], url["path"] or "")


def _link(written: str, path: str) -> Found | Miss:
    """The ids of a link to ``written`` (its host as written) with ``path``."""
    host = _bare_host(written.lower())
    if host in _TWITTER:
        return _tweet(path, written)
    if host in _DISCORD:
        return _discord(path, written, host)
    if host in _INSTAGRAM:
        return _instagram(path, written)
    if (match := _MASTODON_PATH.fullmatch(path)) is not None:
        if len(match[1]) in _MASTODON_DIGITS:
            return Found(((int(match[1]), ""),), "mastodon")
        return Miss("mastodon", written)
    return Miss("site", written)


def shortcode_id(shortcode: str) -> int:
    """The media id an Instagram shortcode writes (base64url digits, most significant
    first); the caller checks the characters (``_INSTAGRAM_PATH`` does)."""
    number = 0
    for char in shortcode:
        number = number * 64 + _SHORTCODE[char]
    return number


def _bare_host(host: str) -> str:
    """``host`` without the prefixes of a site's other doors (``www.``, ``mobile.``…)."""
    stripped = True
    while stripped:
        stripped = False
        for prefix in _PREFIXES:
            if host.startswith(prefix) and host.count(".") > 1:
                host, stripped = host[len(prefix) :], True
    return host


def _tweet(path: str, site: str) -> Found | Miss:
    if (match := _TWEET_PATH.fullmatch(path)) is not None:
        return Found(((int(match[1]), ""),), "twitter")
    return Miss("twitter", site)


def _discord(path: str, site: str, host: str) -> Found | Miss:
    match = _DISCORD_PATH.fullmatch(path)
    if match is None or host == "discord.gg":  # discord.gg is the invites' host
        return Miss("discord", site)
    server, channel, message = match.groups()
    ids = [] if message is None else [(int(message), "message")]
    ids.append((int(channel), "channel"))
    if server != "@me":
        ids.append((int(server), "server"))
    return Found(tuple(ids), "discord")


def _instagram(path: str, site: str) -> Found | Miss:
    if _SHARE_PATH.fullmatch(path) is not None:
        return Miss("share", site)
    if (match := _INSTAGRAM_PATH.fullmatch(path)) is not None:
        return Found(((shortcode_id(match[1]), ""),), "instagram")
    return Miss("instagram", site)


def _mention(text: str) -> Found | Miss:
    if (match := _MENTION.fullmatch(text)) is not None:
        return Found(((int(match[2]), _MENTION_LABELS[match[1]]),), "discord")
    if (match := _EMOJI.fullmatch(text)) is not None:
        return Found(((int(match[1]), "emoji"),), "discord")
    return Miss("mention")
