"""Which ids were made in a time window: the bounds for ``WHERE id BETWEEN low AND high``.

An id's time is a whole tick (a millisecond, or 10 ms for Sonyflake), and every id of
one tick lies between the one with all lower fields 0 and the one with all lower bits
set. So ``first_id_at(start) <= id <= last_id_at(end)`` holds exactly for the ids whose
decoded time is in ``[start, end]`` (both ends included): a start between two ticks is
rounded up to the next tick, an end down to the tick it falls in. The bits are the
layout's (``Layout.tick_ids``); this module only picks ticks (``_parse.unix_ms`` reads the times).
"""

from __future__ import annotations

import datetime as _dt
from typing import Final

from snowid.ids._builtins import get_layout
from snowid.ids._layout import TWITTER, Layout
from snowid.ids._parse import unix_ms

__all__ = ["EMPTY", "first_id_at", "id_range", "last_id_at"]

Moment = _dt.datetime | int | str


def first_id_at(when: Moment, layout: Layout | str = TWITTER) -> int:
    """The smallest id made at or after ``when`` (an aware datetime, naive = UTC, or Unix ms).

    A time between two ticks is rounded up: the ids of the tick it falls in were made
    (as far as the id says) before it.
    """
    spec = get_layout(layout)
    ms = unix_ms(when, round_up=True)
    ticks = _ceil_ticks(spec, ms)
    _check_ticks(spec, ms, ticks)
    return spec.tick_ids(ticks)[0]


def last_id_at(when: Moment, layout: Layout | str = TWITTER) -> int:
    """The largest id made at or before ``when`` (naive = UTC; rounded down to the ms)."""
    spec = get_layout(layout)
    ms = unix_ms(when, round_up=False)
    ticks = _floor_ticks(spec, ms)
    _check_ticks(spec, ms, ticks)
    return spec.tick_ids(ticks)[1]


def id_range(start: Moment, end: Moment, layout: Layout | str = TWITTER) -> tuple[int, int]:
    """``(low, high)``: the smallest id made at or after ``start`` and the largest made at or
    before ``end``, so that ``BETWEEN low AND high`` selects exactly the ids of the window.
    Datetimes, Unix ms or text; a naive datetime is UTC (not the machine's local time).

    Unlike ``first_id_at``/``last_id_at`` this never refuses a time: a window reaching
    past either end of the layout is cut to it (a start before the epoch gives low 0),
    and a window holding no id at all (end before start, or wholly outside the layout)
    gives ``EMPTY``, (1, 0), which ``BETWEEN`` reads as nothing.
    """
    spec = get_layout(layout)
    first = max(unix_ms(start, round_up=True), spec.epoch_ms)
    last = min(unix_ms(end, round_up=False), spec.max_timestamp + spec.unit_ms - 1)
    first_tick, last_tick = _ceil_ticks(spec, first), _floor_ticks(spec, last)
    if first_tick > last_tick:  # also a start within the last tick, after it began
        return EMPTY
    return spec.tick_ids(first_tick)[0], spec.tick_ids(last_tick)[1]


EMPTY: Final = (1, 0)
"""What ``id_range`` gives for a window without ids: BETWEEN 1 AND 0 selects nothing."""


def _ceil_ticks(layout: Layout, ms: int) -> int:
    """The first tick that begins at or after ``ms``."""
    return -(-(ms - layout.epoch_ms) // layout.unit_ms)


def _floor_ticks(layout: Layout, ms: int) -> int:
    """The tick ``ms`` falls in."""
    return (ms - layout.epoch_ms) // layout.unit_ms


def _check_ticks(layout: Layout, ms: int, ticks: int) -> None:
    if not 0 <= ticks <= layout.max_delta:
        raise layout.time_error(ms)
