"""Reading and composing ids of any layout, the other readings of one number, and warnings.

Generation stays Twitter-only; decoding and composing work for every built-in layout and
any custom one. The bits are the layout's (``Layout.split``/``join``); this module turns
them into times and named fields, checks the fields, and says when a number is probably
not what it seems (``warnings``: codes, with a message in each catalog language).
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Final

from snowid._exceptions import IdTooLargeError, NegativeIdError, UnknownFieldError
from snowid._isotime import LAST_DATETIME_MS, iso_ms, utc_datetime
from snowid.ids._breakdown import Segment, breakdown, segments
from snowid.ids._builtins import LAYOUTS, get_layout
from snowid.ids._clock import SYSTEM_CLOCK, Clock
from snowid.ids._encoding import encode, read_number
from snowid.ids._layout import TWITTER, Layout
from snowid.ids._parse import strict_int, unix_ms
from snowid.ids._snowid import SnowId

__all__ = [
    "BEFORE_FIRST_SNOWFLAKE",
    "IN_THE_FUTURE",
    "LAST_SEQUENTIAL_TWEET_ID",
    "Decoded",
    "compose",
    "decode",
    "readings",
]

BEFORE_FIRST_SNOWFLAKE: Final = "before_first_snowflake"
IN_THE_FUTURE: Final = "in_the_future"

LAST_SEQUENTIAL_TWEET_ID: Final = 29700859247
"""Tweets up to this id were numbered by Twitter's counter before Snowflake (Nov 2010): the
boundary TweetedAt (oduwsdl/tweetedat, TimestampEstimator.py) uses to tell the two apart."""

FUTURE_SLACK_MS: Final = 86_400_000
"""A decoded time more than this far ahead of now is implausible (one day)."""


@dataclass(frozen=True, slots=True)
class Decoded:
    """One number read in one layout: its time (Unix ms), its fields and any warnings.

    ``fields`` holds every field but the time, most significant first. ``warnings`` are
    codes (``"before_first_snowflake"``, ``"in_the_future"``); ``messages(lang)`` words them.
    """

    layout: str
    id: int
    timestamp: int
    fields: dict[str, int] = field(hash=False)
    warnings: tuple[str, ...]
    spec: Layout = field(repr=False)
    """The Layout itself (``layout`` is its name)."""

    @property
    def datetime(self) -> _dt.datetime | None:
        """The time as an aware UTC datetime; None past year 9999 (a Mastodon id can be)."""
        if self.timestamp > LAST_DATETIME_MS:
            return None
        return utc_datetime(self.timestamp)

    @property
    def iso_utc(self) -> str | None:
        """ISO 8601 in UTC with milliseconds and ``Z``; None past year 9999."""
        return iso_ms(self.timestamp)

    def messages(self, lang: str = "en") -> list[dict[str, str]]:
        """Each warning as ``{"code", "message"}`` in ``lang``."""
        from snowid.i18n import translate

        shown = self.iso_utc or f"{self.timestamp} ms"
        return [
            {"code": code, "message": translate(f"warning.{code}", lang, datetime=shown)}
            for code in self.warnings
        ]

    def as_dict(self, lang: str = "en") -> dict[str, object]:
        """The JSON object of the HTTP API and ``snowid decode --json``: 64-bit values as
        decimal strings; for Twitter, also every key of ``breakdown(…).as_dict()``."""
        data: dict[str, object] = {
            "id": str(self.id),
            "layout": self.layout,
            "timestamp": self.timestamp,
            "datetime": self.iso_utc,
            "fields": dict(self.fields),
            "warnings": self.messages(lang),
        }
        if self.spec is TWITTER:
            return {**breakdown(SnowId(self.id)).as_dict(), **data}
        data["hex"] = encode(self.id, "hex")
        data["binary"] = self.spec.bits(self.id)
        data["segments"] = [segment.as_dict() for segment in self.segments]
        return data

    @property
    def segments(self) -> tuple[Segment, ...]:
        """The id's bits in blocks, most significant first (sign, then each field)."""
        return segments(self.spec, self.id)


def decode(
    value: object, layout: Layout | str = "twitter", *, clock: Clock | None = None
) -> Decoded:
    """``value`` (an int, a SnowId, a decimal string or ``0x…`` hex) read in ``layout`` (a
    built-in's name, a Layout, or a spec ``epoch=…,unit=…,fields=…``).

    A number outside the layout's ids raises the error naming its range (a Discord id may
    be up to 2**64 - 1, a Twitter id only up to 2**63 - 1); ``clock`` says what now is, for
    the ``in_the_future`` warning.
    """
    spec = get_layout(layout)
    number = spec.check_id(_number(value))
    return _decoded(spec, number, (clock or SYSTEM_CLOCK).time_ms())


def compose(
    timestamp: _dt.datetime | int | None = None, layout: Layout | str = "twitter", **fields: int
) -> int:
    """The id of ``timestamp`` (Unix ms or a datetime; None = now) and ``fields`` (ints;
    a field not given is 0) in ``layout``. The time is cut to the layout's tick (10 ms
    for Sonyflake), as its own generator does. For ranges, tests and migrations: ids to
    be stored are made by a Generator (Twitter layout only)."""
    spec = get_layout(layout)
    function = "compose()"
    if timestamp is None:
        ms = SYSTEM_CLOCK.time_ms()
    elif isinstance(timestamp, _dt.datetime):
        ms = unix_ms(timestamp)
    else:
        ms = strict_int("timestamp", timestamp, function)
    spec.check_timestamp(ms)
    unknown = [name for name in fields if name not in spec.field_names]
    if unknown:
        raise UnknownFieldError(
            field=unknown[0],
            value=fields[unknown[0]],
            layout=spec.name,
            allowed=", ".join(spec.field_names),
        )
    values = [spec.ticks(ms)]
    for name in spec.field_names:
        given = strict_int(name, fields.get(name, 0), function)
        values.append(spec.check_field(name, given))
    return spec.join(values)


def readings(value: object, *, clock: Clock | None = None) -> tuple[Decoded, ...]:
    """``value`` read in every built-in layout whose time for it is plausible (on or after
    the layout's epoch, as every reading is, and not more than a day ahead of now), Twitter
    first. Plausibility cannot tell a 2016 Discord id from a 2012 tweet: show them side by
    side and let the reader choose."""
    number = _number(value)
    if number < 0:
        raise NegativeIdError(field="id", value=number, layout="any", max=2**64 - 1)
    if number >= 2**64:
        raise IdTooLargeError(field="id", value=number, layout="any", max=2**64 - 1, bits=64)
    now = (clock or SYSTEM_CLOCK).time_ms()
    found = (_decoded(spec, number, now) for spec in LAYOUTS if number <= spec.max_id)
    return tuple(d for d in found if d.timestamp <= now + FUTURE_SLACK_MS)


def _number(value: object) -> int:
    if isinstance(value, SnowId):
        return int(value)
    return read_number(value)


def _decoded(spec: Layout, number: int, now_ms: int) -> Decoded:
    values = spec.split(number)
    timestamp = spec.epoch_ms + values[0] * spec.unit_ms
    warnings = []
    if spec is TWITTER and number <= LAST_SEQUENTIAL_TWEET_ID:
        warnings.append(BEFORE_FIRST_SNOWFLAKE)
    if timestamp > now_ms + FUTURE_SLACK_MS:
        warnings.append(IN_THE_FUTURE)
    return Decoded(
        layout=spec.name,
        id=number,
        timestamp=timestamp,
        fields=dict(zip(spec.field_names, values[1:], strict=True)),
        warnings=tuple(warnings),
        spec=spec,
    )
