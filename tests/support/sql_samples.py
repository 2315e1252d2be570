"""Ids and times to check the SQL engines against Python with: every built-in layout and
two custom ones, random values plus the edges (0, the largest id, the sign bit, the ids
around ``2**63`` of an unsigned layout, every field at its largest, the first and last
tick), and the answers ``snowid.decode``/``first_id_at``/``last_id_at`` give for them."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterator

import snowid
from snowid import Layout, as_bigint, first_id_at, last_id_at
from snowid._isotime import LAST_DATETIME_MS, utc_datetime
from snowid.errors import TimestampAfterEndError, TimestampBeforeEpochError
from snowid.ids import get_layout

CUSTOM_UNSIGNED = get_layout(
    "name=odd,epoch=2020-01-01T00:00:00Z,unit=7,fields=t:40,a:3,b:21,signed=no"
)
"""A 7 ms tick, the time up to bit 63, a 21-bit field: nothing like a built-in."""
CUSTOM_SIGNED = get_layout("name=wide,epoch=1600000000000,unit=1000,fields=s:30,n:32,x:1")
"""Whole seconds, a 32-bit field (past a signed 32-bit integer) and a 1-bit field."""
LAYOUTS: tuple[Layout, ...] = (*snowid.LAYOUTS, CUSTOM_UNSIGNED, CUSTOM_SIGNED)
SAMPLES = 10_000
"""Random ids per layout, besides the edges."""


def ids(layout: Layout, seed: int = 29) -> list[int]:
    """The ids (unsigned) to decode: the edges, then ``SAMPLES`` random ones."""
    rng = random.Random(f"{seed}-{layout.name}")
    top = layout.max_id
    edges = {0, 1, top, top - 1, layout.low_mask, layout.low_mask + 1, 2**62, 2**62 - 1}
    if not layout.signed:
        edges |= {2**63 - 1, 2**63, 2**63 + 1, 2**64 - 2}
    lowest = [0] * len(layout.fields)
    highest = list(layout.maxima)
    edges.add(layout.join(highest))
    for index, maximum in enumerate(layout.maxima):
        one = list(lowest)
        one[index] = maximum
        edges.add(layout.join(one))
    found = sorted(edges)
    found += [rng.randrange(top + 1) for _ in range(SAMPLES)]
    return found


def stored(value: int, layout: Layout) -> int:
    """``value`` as a signed 64-bit column keeps it (negative from 2**63 on)."""
    return as_bigint(value) if not layout.signed else value


def decoded(value: int, layout: Layout) -> tuple[int, ...]:
    """Python's reading: (Unix ms, every field in order)."""
    reading = snowid.decode(value, layout)
    return (reading.timestamp, *reading.fields.values())


def times(layout: Layout, count: int = 2_000, seed: int = 29) -> list[dt.datetime]:
    """Aware times (microseconds) from a tick before the epoch to the last tick (or the
    last datetime), random and at the edges: ``bounds`` answers each of them."""
    rng = random.Random(f"{seed}-times-{layout.name}")
    first = (layout.epoch_ms - layout.unit_ms + 1) * 1000
    last = (min(layout.max_timestamp + layout.unit_ms - 1, LAST_DATETIME_MS)) * 1000 + 999
    found = [first, first + 1, layout.epoch_ms * 1000, last, last - 999]
    found += [rng.randrange(first, last + 1) for _ in range(count)]
    epoch = utc_datetime(0)
    return [epoch + dt.timedelta(microseconds=us) for us in found]


def bounds(when: dt.datetime, layout: Layout) -> tuple[int | None, int | None]:
    """(first_id_at, last_id_at) of ``when``, None where Python refuses the time."""
    return _or_none(first_id_at, when, layout), _or_none(last_id_at, when, layout)


def _or_none(function: object, when: dt.datetime, layout: Layout) -> int | None:
    try:
        value: int = function(when, layout)  # type: ignore[operator]
    except (TimestampBeforeEpochError, TimestampAfterEndError):
        return None
    return value


def answered(layout: Layout, found: list[dt.datetime]) -> Iterator[tuple[dt.datetime, int, int]]:
    """The times both bounds answer, with them: what one query can ask without an error."""
    for when in found:
        first, last = bounds(when, layout)
        if first is not None and last is not None:
            yield when, first, last
