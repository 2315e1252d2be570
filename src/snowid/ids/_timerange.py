"""Which ids were made in a time window: the bounds for ``WHERE id BETWEEN low AND high``.

An id's time is a whole tick (a millisecond, or 10 ms for Sonyflake), and every id of
one tick lies between the one with all lower fields 0 and the one with all lower bits
set. So ``first_id_at(start) <= id <= last_id_at(end)`` holds exactly for the ids whose
decoded time is in ``[start, end]`` (both ends included): a start between two ticks is
rounded up to the next tick, an end down to the tick it falls in. The bits are the
layout's (``Layout.tick_ids``); this module only reads times and picks ticks.
"""

from __future__ import annotations

import datetime as _dt
from typing import Final

from snowid.errors import InvalidDateTimeError, OutOfRangeError
from snowid.ids._builtins import get_layout
from snowid.ids._layout import TWITTER, Layout
from snowid.ids._parse import to_int
from snowid.ids._validate import MAX_EXACT_MS

__all__ = [
    "EMPTY",
    "LAST_DATETIME_MS",
    "first_id_at",
    "id_range",
    "iso_ms",
    "iso_utc",
    "last_id_at",
    "parse_time",
    "range_info",
    "unix_ms",
    "utc_datetime",
]

_UNIX: Final = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
_ONE_MS: Final = _dt.timedelta(milliseconds=1)
_MAX_TIME_TEXT: Final = 64  # longer than any ISO 8601 date and time

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
    """The largest id made at or before ``when`` (a datetime is rounded down to the ms)."""
    spec = get_layout(layout)
    ms = unix_ms(when, round_up=False)
    ticks = _floor_ticks(spec, ms)
    _check_ticks(spec, ms, ticks)
    return spec.tick_ids(ticks)[1]


def id_range(start: Moment, end: Moment, layout: Layout | str = TWITTER) -> tuple[int, int]:
    """``(low, high)``: the smallest id made at or after ``start`` and the largest made at or
    before ``end``, so that ``BETWEEN low AND high`` selects exactly the ids of the window.

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


def range_info(start_ms: int, end_ms: int, layout: Layout | str = TWITTER) -> dict[str, object]:
    """The JSON object of ``GET /api/range`` and ``snowid range --json`` (ids as strings)."""
    spec = get_layout(layout)
    low, high = id_range(start_ms, end_ms, spec)
    empty = (low, high) == EMPTY
    return {
        "layout": spec.name,
        "from": {"timestamp": start_ms, "datetime": iso_ms(start_ms)},
        "to": {"timestamp": end_ms, "datetime": iso_ms(end_ms)},
        "low": str(low),
        "high": str(high),
        "empty": empty,
        "sql": f"id BETWEEN {low} AND {high}",
    }


_FIRST_MS: Final = -62135596800000  # 0001-01-01T00:00:00Z, the first datetime
LAST_DATETIME_MS: Final = 253402300799999
"""9999-12-31T23:59:59.999Z in Unix ms: the last time a ``datetime`` holds."""


def utc_datetime(ms: int) -> _dt.datetime:
    """Unix milliseconds as an aware UTC datetime (exact: no float on the way)."""
    return _UNIX + _dt.timedelta(milliseconds=ms)


def iso_utc(when: _dt.datetime) -> str:
    """An aware datetime as ISO 8601 UTC with milliseconds and ``Z``:
    ``2010-11-04T01:42:55.657Z`` (the year always four digits)."""
    when = when.astimezone(_dt.UTC)
    return f"{when.year:04d}" + when.strftime("-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def iso_ms(ms: int) -> str | None:
    """Unix ms as ISO 8601 UTC with milliseconds and ``Z``; None outside years 1..9999."""
    if not _FIRST_MS <= ms <= LAST_DATETIME_MS:
        return None
    return iso_utc(utc_datetime(ms))


def _ceil_ticks(layout: Layout, ms: int) -> int:
    """The first tick that begins at or after ``ms``."""
    return -(-(ms - layout.epoch_ms) // layout.unit_ms)


def _floor_ticks(layout: Layout, ms: int) -> int:
    """The tick ``ms`` falls in."""
    return (ms - layout.epoch_ms) // layout.unit_ms


def _check_ticks(layout: Layout, ms: int, ticks: int) -> None:
    if not 0 <= ticks <= layout.max_delta:
        raise layout.time_error(ms)


def unix_ms(when: object, *, round_up: bool = False) -> int:
    """A datetime (naive = UTC; rounded to the ms, up or down), Unix ms, or text of either
    (``parse_time``) as whole Unix ms."""
    if isinstance(when, str):
        return parse_time("timestamp", when)
    if isinstance(when, _dt.datetime):
        if when.tzinfo is None:
            when = when.replace(tzinfo=_dt.UTC)
        whole, part = divmod(when - _UNIX, _ONE_MS)
        return int(whole) + (1 if round_up and part else 0)
    return to_int("timestamp", when)


def parse_time(field: str, text: str) -> int:
    """A time as typed: Unix milliseconds (digits) or ISO 8601 (no zone = UTC), as Unix ms.

    ``2016-04-30T11:18:25.796Z``, ``2016-04-30 11:18:25+07:00`` and ``2016-04-30`` are
    read; a fraction finer than a millisecond is cut off.
    """
    stripped = text.strip()
    if stripped.isascii() and stripped.isdigit():
        ms = to_int(field, stripped)
        if ms > MAX_EXACT_MS:
            raise OutOfRangeError(field=field, value=ms, min=0, max=MAX_EXACT_MS)
        return ms
    if not stripped or len(stripped) > _MAX_TIME_TEXT:
        raise InvalidDateTimeError(field=field, value=text)
    try:
        when = _dt.datetime.fromisoformat(stripped)
    except ValueError:
        raise InvalidDateTimeError(field=field, value=text) from None
    return unix_ms(when, round_up=False)
