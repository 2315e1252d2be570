"""Unix milliseconds as aware datetimes and as ISO 8601 text: what every layer shows a time as.

A leaf below the errors (their messages show times) and the id layer: the standard
library only, no reading of input (``snowid.ids._parse.parse_time`` reads times).
"""

from __future__ import annotations

import datetime as _dt
from typing import Final

__all__ = ["LAST_DATETIME_MS", "MAX_EXACT_MS", "iso_ms", "iso_utc", "utc_datetime"]

_UNIX: Final = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
MAX_EXACT_MS: Final = 2**53 - 1  # times are JSON numbers: exact up to here
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
