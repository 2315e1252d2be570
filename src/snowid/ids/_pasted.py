"""What a person pastes into a decoder: an id as written, or a link or mention holding ids.

The people-facing reader of the page's decoder box, ``GET /api/decode?text=`` and
``snowid decode``. A link names its source, and so the layout to read its ids in:

- a tweet (twitter.com, x.com, mobile.twitter.com, ``…/status/ID`` with anything after,
  ``i/web/status/ID``): Twitter;
- a Discord message link (discord.com, ptb./canary., discordapp.com;
  ``channels/SERVER/CHANNEL/MESSAGE`` or a DM's ``channels/@me/CHANNEL/MESSAGE``) or a
  mention (``<@user>``, ``<@!user>``, ``<#channel>``, ``<@&role>``): Discord, each id labelled;
- ``https://HOST/@user/ID`` with a 16-19 digit ID: Mastodon;
- an Instagram post (``instagram.com/p/SHORTCODE/``, also ``reel``/``tv``): the shortcode is
  the media id in base64url digits (A-Z a-z 0-9 - _, most significant first): Instagram.

A bare number (digit groups allowed, ``_groups``; ``0x…`` hex) names no source. Anything
else is a NotAnIdOrLinkError saying what was expected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from snowid._exceptions import (
    EmptyValueError,
    InvalidValueError,
    NumberTooLongError,
    name_errors_module,
)
from snowid.ids._encoding import read_number
from snowid.ids._groups import read_grouped

__all__ = ["NotAnIdOrLinkError", "Pasted", "PastedId", "read_pasted", "shortcode_id"]

_TAIL = r"/?(?:[?#].*)?"
_TWEET: Final = re.compile(
    r"(?:https?://)?(?:www\.|mobile\.)?(?:twitter|x)\.com/"
    r"(?:i/web|[A-Za-z0-9_]{1,15})/status(?:es)?/(\d{1,20})(?:/(?:photo|video)/\d+)?" + _TAIL,
    re.IGNORECASE,
)
_DISCORD: Final = re.compile(
    r"(?:https?://)?(?:(?:ptb|canary)\.)?discord(?:app)?\.com/channels/"
    r"(@me|\d{1,20})/(\d{1,20})(?:/(\d{1,20}))?" + _TAIL,
    re.IGNORECASE,
)
_MENTION: Final = re.compile(r"<(@!?|#|@&)(\d{1,20})>")
_MASTODON: Final = re.compile(
    r"https?://[A-Za-z0-9.-]+(?::\d+)?/@[A-Za-z0-9_.@-]+/(\d{16,19})" + _TAIL
)
_INSTAGRAM: Final = re.compile(
    r"(?:https?://)?(?:www\.)?instagram\.com/(?:[A-Za-z0-9_.]+/)?(?:p|reel|reels|tv)/"
    r"([A-Za-z0-9_-]{1,11})" + _TAIL,
    re.IGNORECASE,
)
_MENTION_LABELS: Final = {"@": "user", "@!": "user", "#": "channel", "@&": "role"}
_SHORTCODE: Final = {
    char: index
    for index, char in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
}
_MAX_TEXT: Final = 2000  # past any link worth reading; longer text is refused unread


class NotAnIdOrLinkError(InvalidValueError):
    """Pasted text that is neither a number nor a link or mention snowid reads."""

    code = "not_an_id_or_link"


@dataclass(frozen=True, slots=True)
class PastedId:
    """One id found: its number and, in a Discord link or mention, what it names
    (``server``, ``channel``, ``message``, ``user``, ``role``; empty otherwise)."""

    value: int
    label: str = ""


@dataclass(frozen=True, slots=True)
class Pasted:
    """What was pasted: its ids in order, the layout its link names (``source``; empty for
    a bare number, which keeps the reader's default) and the plain digits it comes to."""

    ids: tuple[PastedId, ...]
    source: str = ""

    @property
    def normalised(self) -> str:
        """The ids as plain decimal digits, space-separated: what the reader shows back."""
        return " ".join(str(found.value) for found in self.ids)


def read_pasted(text: str, lang: str = "en", field: str = "id") -> Pasted:
    """The ids in ``text`` (see the module's list), digit groups read in ``lang``'s
    convention; a minus sign is kept (only Instagram's stored form may take it)."""
    stripped = text.strip()
    if not stripped:
        raise EmptyValueError(field=field, value=text)
    if len(stripped) > _MAX_TEXT:
        raise NumberTooLongError(field=field, value=text, digits=len(stripped))
    number = read_grouped(field, stripped, lang)
    if number is not None:
        return Pasted((PastedId(number),))
    if stripped[:2] in ("0x", "0X"):
        return Pasted((PastedId(read_number(stripped, field)),))
    found = _from_link(stripped)
    if found is None:
        raise NotAnIdOrLinkError(field=field, value=text)
    return found


def shortcode_id(shortcode: str) -> int:
    """The media id an Instagram shortcode writes (base64url digits, most significant
    first); the caller checks the characters (``_INSTAGRAM`` does)."""
    number = 0
    for char in shortcode:
        number = number * 64 + _SHORTCODE[char]
    return number


def _from_link(text: str) -> Pasted | None:
    if (match := _TWEET.fullmatch(text)) is not None:
        return Pasted((PastedId(int(match[1])),), "twitter")
    if (match := _DISCORD.fullmatch(text)) is not None:
        server, channel, message = match.groups()
        ids = [] if server == "@me" else [PastedId(int(server), "server")]
        ids.append(PastedId(int(channel), "channel"))
        if message is not None:
            ids.append(PastedId(int(message), "message"))
        return Pasted(tuple(ids), "discord")
    if (match := _MENTION.fullmatch(text)) is not None:
        return Pasted((PastedId(int(match[2]), _MENTION_LABELS[match[1]]),), "discord")
    if (match := _INSTAGRAM.fullmatch(text)) is not None:
        return Pasted((PastedId(shortcode_id(match[1])),), "instagram")
    if (match := _MASTODON.fullmatch(text)) is not None:
        return Pasted((PastedId(int(match[1])),), "mastodon")
    return None


name_errors_module(globals())  # reprs and pickles say snowid.errors.X
