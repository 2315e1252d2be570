"""What the decoder shows beside an id's time: the forms of that time people copy into
other tools, and the other ids of the link the result leads with.

Unix seconds (what most tools and sites take), Discord's ``<t:SECONDS:F>`` markup (a
Discord message holding it shows the date in each reader's own zone and language) and ISO
8601 (UTC, with milliseconds): each with a copy button. A Discord message link names its
channel and server too; the message leads the result, and they follow it, each marked
with what it names and its own time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from snowid import Decoded
from snowid.i18n import translate
from snowid.web._view import TimeView, decode_href, time_view

__all__ = ["CopyValue", "LinkedRow", "copy_values", "linked_rows"]


@dataclass(frozen=True, slots=True)
class CopyValue:
    """One form of the time: its ``key`` (``unix_seconds``, ``discord``, ``iso``), its
    label, the text copied and the copy button's accessible name."""

    key: str
    label: str
    value: str
    button: str


@dataclass(frozen=True, slots=True)
class LinkedRow:
    """Another id of the pasted link: what it names, its digits, its time and the link to
    its own result."""

    label: str
    decimal: str
    time: TimeView
    href: str


def copy_values(decoded: Decoded, lang: str) -> list[CopyValue]:
    """Unix seconds, Discord's markup and ISO 8601 (when a date holds the time)."""
    found = [
        ("unix_seconds", str(decoded.unix_seconds)),
        ("discord", decoded.discord_markup),
    ]
    if decoded.iso_utc is not None:
        found.append(("iso", decoded.iso_utc))
    return [
        CopyValue(
            key,
            translate(f"web.copies.{key}", lang),
            value,
            translate(f"web.copies.{key}_button", lang),
        )
        for key, value in found
    ]


def linked_rows(linked: Sequence[tuple[str, Decoded]], lang: str, now_ms: int) -> list[LinkedRow]:
    """The link's other ids, in the order the link is read (a message's channel, then its
    server), each with its time seen from ``now_ms``."""
    return [
        LinkedRow(
            label=translate(f"pasted.{label}", lang) if label else "",
            decimal=str(decoded.id),
            time=time_view(decoded.timestamp, lang, now_ms),
            href=decode_href(decoded.id, decoded.spec, lang),
        )
        for label, decoded in linked
    ]
