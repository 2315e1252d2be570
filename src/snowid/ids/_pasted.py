"""What a person pastes into a decoder: an id as written, or a link or mention holding ids.

The people-facing reader of the page's decoder box, ``GET /api/decode?text=`` and
``snowid decode``. A bare number (digit groups allowed, ``_groups``; ``0x…`` hex) names no
source. A link or mention names its site, and so the layout its ids are in (``_sites``
lists the sites and the addresses read): a tweet is Twitter; a Discord message, channel,
mention, custom emoji or ``CHANNEL-MESSAGE`` pair is Discord, each id labelled; an Instagram
post is Instagram (its shortcode is the media id); ``HOST/@user/ID`` is Mastodon.

Anything else is a NotAnIdOrLinkError that says how far it was recognised: a link to a
site snowid reads but to a page without an id, a link to another site, an Instagram share
link (InstagramShareLinkError: its token is not the post's shortcode), or text that is
neither. A number that looks like a Unix time in milliseconds is still read as the id it
may be; ``Pasted.time_ms`` says it looks like a time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from snowid._exceptions import (
    EmptyValueError,
    InvalidValueError,
    NumberTooLongError,
    error_data,
    name_errors_module,
)
from snowid._isotime import iso_ms
from snowid.ids._encoding import read_number
from snowid.ids._groups import read_grouped
from snowid.ids._sites import Found, MissReason, read_site, shortcode_id

__all__ = [
    "MS_TIME_FIRST",
    "MS_TIME_LAST",
    "InstagramShareLinkError",
    "NotAnIdOrLinkError",
    "Pasted",
    "PastedId",
    "read_pasted",
    "shortcode_id",
]

_MAX_TEXT: Final = 2000  # past any link worth reading; longer text is refused unread
MS_TIME_FIRST: Final = 1_000_000_000_000
"""2001-09-09T01:46:40.000Z, the first Unix time in milliseconds written with 13 digits."""
MS_TIME_LAST: Final = 4_102_444_799_999
"""2099-12-31T23:59:59.999Z: a bare number from MS_TIME_FIRST up to here looks like a time."""


@error_data
class NotAnIdOrLinkError(InvalidValueError):
    """Pasted text that is neither a number nor a link or mention snowid reads. ``reason``
    says how far it was recognised (``_sites.MissReason``: ``text``, ``site``, ``twitter``,
    ``discord``, ``instagram``, ``mastodon``, ``mention``); ``site`` is the link's host."""

    code = "not_an_id_or_link"
    _shown = frozenset({"value", "site"})
    reason: MissReason = "text"
    site: str = ""

    def _catalog_key(self) -> str:
        return self.code if self.reason == "text" else f"{self.code}.{self.reason}"


class InstagramShareLinkError(NotAnIdOrLinkError):
    """An Instagram share link (``instagram.com/share/…``): what follows ``/share/`` is a
    token that leads to the post, not the post's shortcode, so it holds no id."""

    code = "instagram_share_link"

    def _catalog_key(self) -> str:
        return self.code


@dataclass(frozen=True, slots=True)
class PastedId:
    """One id found: its number and what it names in a Discord link, mention or emoji
    (``message``, ``channel``, ``server``, ``user``, ``role``, ``emoji``; empty otherwise)."""

    value: int
    label: str = ""


@dataclass(frozen=True, slots=True)
class Pasted:
    """What was pasted: its ids, the one the link is about first (a Discord message link's
    message, then its channel and server), the layout its link names (``source``; empty
    for a bare number) and, for a bare decimal number from MS_TIME_FIRST to MS_TIME_LAST
    (13 digits, 2001-09-09 to 2099-12-31 as Unix ms), that number as a time (``time_ms``)."""

    ids: tuple[PastedId, ...]
    source: str = ""
    time_ms: int | None = None

    @property
    def normalised(self) -> str:
        """The ids as plain decimal digits, space-separated: what the reader shows back."""
        return " ".join(str(found.value) for found in self.ids)

    def time_hint(self, lang: str = "en") -> dict[str, object] | None:
        """When the number looks like a Unix time in ms (``time_ms``): ``{"code":
        "looks_like_time", "timestamp", "datetime", "message"}``, the message in ``lang``
        asking whether to compose an id from it; else None. The number is still read as an
        id: it may be one."""
        if self.time_ms is None:
            return None
        from snowid.i18n import translate  # the catalogs load only when a hint is shown

        when = iso_ms(self.time_ms)
        return {
            "code": "looks_like_time",
            "timestamp": self.time_ms,
            "datetime": when,
            "message": translate("pasted.time_hint", lang, value=self.time_ms, datetime=when),
        }


def read_pasted(text: str, lang: str = "en", field: str = "id") -> Pasted:
    """The ids in ``text`` (see the module), digit groups read in ``lang``'s convention; a
    minus sign is kept (only Instagram's stored form may take it)."""
    stripped = text.strip()
    if not stripped:
        raise EmptyValueError(field=field, value=text)
    if len(stripped) > _MAX_TEXT:
        raise NumberTooLongError(field=field, value=text, digits=len(stripped))
    number = read_grouped(field, stripped, lang)
    if number is not None:
        looks_like_time = MS_TIME_FIRST <= number <= MS_TIME_LAST
        return Pasted((PastedId(number),), time_ms=number if looks_like_time else None)
    if stripped[:2] in ("0x", "0X"):
        return Pasted((PastedId(read_number(stripped, field)),))
    found = read_site(stripped)
    if isinstance(found, Found):
        return Pasted(tuple(PastedId(value, label) for value, label in found.ids), found.source)
    if found.reason == "share":
        raise InstagramShareLinkError(field=field, value=text, reason="share", site=found.site)
    raise NotAnIdOrLinkError(field=field, value=text, reason=found.reason, site=found.site)


name_errors_module(globals())  # reprs and pickles say snowid.errors.X
