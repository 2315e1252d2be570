"""Reading and composing ids of any layout, the other readings of one number, and warnings.

Generation stays Twitter-only; decoding and composing work for every built-in layout and
any custom one. The bits are the layout's (``Layout.split``/``join``); this module turns
them into times and named fields, checks the fields, and says when a number is probably
not what it seems (``warnings``: codes, with a message in each catalog language).
"""

from __future__ import annotations

import datetime as _dt
from typing import Final

from snowid._exceptions import IdTooLargeError, NegativeIdError
from snowid.ids._anchors import LAST_SEQUENTIAL_TWEET_ID, counted_tweet
from snowid.ids._breakdown import Breakdown, Decoded
from snowid.ids._builtins import INSTAGRAM, LAYOUTS, get_layout
from snowid.ids._clock import SYSTEM_CLOCK, Clock
from snowid.ids._encoding import read_number
from snowid.ids._layout import TWITTER, Layout
from snowid.ids._parse import strict_int, unix_ms
from snowid.ids._snowid import SnowId

__all__ = [
    "BEFORE_FIRST_SNOWFLAKE",
    "INSTAGRAM_BIGINT",
    "IN_THE_FUTURE",
    "LAST_SEQUENTIAL_TWEET_ID",
    "breakdown",
    "compose",
    "decode",
    "readings",
]

BEFORE_FIRST_SNOWFLAKE: Final = "before_first_snowflake"
IN_THE_FUTURE: Final = "in_the_future"
INSTAGRAM_BIGINT: Final = "instagram_bigint"

FUTURE_SLACK_MS: Final = 86_400_000
"""A decoded time more than this far ahead of now is implausible (one day)."""


def decode(
    value: object, layout: Layout | str = "twitter", *, clock: Clock | None = None
) -> Decoded:
    """``value`` (an int, a SnowId, a decimal string or ``0x…`` hex) read in ``layout`` (a
    built-in's name, a Layout, or a spec ``epoch=…,unit=…,fields=…``).

    In the Instagram layout a number in -2**63..-1 is read as the signed ``bigint``
    Instagram's ``next_id()`` stores: the id is the unsigned number of the same bits, and
    the reading carries the ``instagram_bigint`` warning and the stored value (``stored``).

    A number outside the layout's ids raises the error naming its range (a Discord id may
    be up to 2**64 - 1, a Twitter id only up to 2**63 - 1); ``clock`` says what now is, for
    the ``in_the_future`` warning.
    """
    spec = get_layout(layout)
    number = _number(value)
    if spec is INSTAGRAM and -(2**63) <= number < 0:
        # The one exception to "negative is not an id": Instagram's next_id() stores its
        # ids in a signed bigint, negative from 2046-06-27T17:00:49.497Z on.
        unsigned = number + 2**64
        return _decoded(spec, unsigned, (clock or SYSTEM_CLOCK).time_ms(), stored=number)
    number = spec.check_id(number)
    return _decoded(spec, number, (clock or SYSTEM_CLOCK).time_ms())


def breakdown(snow_id: SnowId) -> Breakdown:
    """``snow_id`` taken apart (its parts, worker, bit segments and the formula step by
    step): the Twitter view of its ``Decoded``, decoding it once."""
    return Breakdown(_decoded(TWITTER, int(snow_id), SYSTEM_CLOCK.time_ms()))


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
    spec.check_field_names(fields)
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


def _decoded(spec: Layout, number: int, now_ms: int, stored: int | None = None) -> Decoded:
    values = spec.split(number)
    timestamp = spec.epoch_ms + values[0] * spec.unit_ms
    warnings = []
    if counted_tweet(spec, number):
        warnings.append(BEFORE_FIRST_SNOWFLAKE)
    if timestamp > now_ms + FUTURE_SLACK_MS:
        warnings.append(IN_THE_FUTURE)
    if stored is not None:
        warnings.append(INSTAGRAM_BIGINT)
    return Decoded(
        layout=spec.name,
        id=number,
        timestamp=timestamp,
        fields=dict(zip(spec.field_names, values[1:], strict=True)),
        warnings=tuple(warnings),
        spec=spec,
        stored=stored,
    )
