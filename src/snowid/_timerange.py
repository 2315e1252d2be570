"""Which ids were made in a time window: the bounds for ``WHERE id BETWEEN low AND high``.

An id's timestamp is a whole millisecond, and every id of that millisecond lies between
the one with all lower fields 0 and the one with all lower fields at their maximum. So
``first_id_at(start) <= id <= last_id_at(end)`` holds exactly for the ids whose time is in
``[start, end]`` (both ends included). The layout is a parameter so that other layouts
can reuse these bounds; the bits are packed by the layout only.
"""

from __future__ import annotations

import datetime as _dt

from snowid._layout import TWITTER, Layout
from snowid._parse import to_int

__all__ = ["first_id_at", "id_range", "last_id_at"]

_UNIX = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
_ONE_MS = _dt.timedelta(milliseconds=1)


def first_id_at(when: _dt.datetime | int, layout: Layout = TWITTER) -> int:
    """The smallest id made at or after ``when`` (an aware datetime, naive = UTC, or Unix ms).

    A datetime between two milliseconds is rounded up: ids of the millisecond before it
    were made before it.
    """
    ms = layout.check_timestamp(_unix_ms(when, round_up=True))
    return layout.pack(ms, 0, 0, 0)


def last_id_at(when: _dt.datetime | int, layout: Layout = TWITTER) -> int:
    """The largest id made at or before ``when`` (a datetime is rounded down to the ms)."""
    ms = layout.check_timestamp(_unix_ms(when, round_up=False))
    return layout.pack(ms, layout.max_datacenter, layout.max_machine, layout.max_sequence)


def id_range(
    start: _dt.datetime | int, end: _dt.datetime | int, layout: Layout = TWITTER
) -> tuple[int, int]:
    """``(first_id_at(start), last_id_at(end))``: empty (low > high) when end < start."""
    return first_id_at(start, layout), last_id_at(end, layout)


def _unix_ms(when: object, *, round_up: bool) -> int:
    if isinstance(when, _dt.datetime):
        if when.tzinfo is None:
            when = when.replace(tzinfo=_dt.UTC)
        whole, part = divmod(when - _UNIX, _ONE_MS)
        return whole + (1 if round_up and part else 0)
    return to_int("timestamp", when)
