"""The numpy kernels: ids, times and fields as whole arrays, every number from the Layout.

Ids travel as ``uint64`` (the unsigned id, as ``snowid.decode`` gives it), times as
``int64`` Unix milliseconds. Each reader returns its array and a mask of the rows it
could not read (None when every row is good, the fast and common case: one reduction
checks a whole column). A flagged row is read again alone by ``_one.read_id``, the same
rules as ``snowid.decode``, so a fast path can only be stricter, never looser: a value it
does not know how to read quickly is read slowly, never wrongly.

The bits are taken apart and put together by the Layout itself (``Layout.split_fast``,
``join`` and ``tick_ids`` work on numpy arrays as on ints), with its epoch, unit and
largest id; nothing here shifts or masks a bit of its own.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Sequence
from typing import Any, Final

from snowid._exceptions import (
    EmptyValueError,
    ExtraMissingError,
    InvalidValueError,
    NotAnIntegerError,
    OutOfRangeError,
)
from snowid.bulk._one import read_id, stored_form_reads
from snowid.ids import Layout, parse_time

__all__ = [
    "Bad",
    "Mask",
    "Reader",
    "bounds",
    "compose_ids",
    "decode_ids",
    "numpy",
    "read_field",
    "read_ids",
    "read_times",
    "time_checked",
]

Mask = Any
"""A numpy bool array, one per row: True where the row is bad."""

Bad = tuple[int, object, InvalidValueError]
"""(row index, the value as given, the error it alone gets)."""

Reader = Callable[[int], object]
"""The value of one row as the caller's column holds it (for the error's message)."""

_U64_MAX: Final = 2**64 - 1
_NAT: Final = -(2**63)


def numpy() -> Any:
    """numpy, imported on first use; without it, the error naming the extra."""
    try:
        import numpy as np
    except ImportError:
        raise ExtraMissingError(feature="snowid.bulk", package="numpy", extra="bulk") from None
    return np


# --- ids ------------------------------------------------------------------------


def read_ids(
    values: Any, layout: Layout, null: Mask | None, original: Reader, *, first_only: bool
) -> tuple[Any, Mask | None, list[Bad]]:
    """``values`` (a numpy array: integers, bytes or text of decimal digits, or objects)
    as unsigned ids; ``null`` marks rows that hold no value. Gives the ids (0 in a bad
    row), the mask of bad rows (None: none) and the bad rows with their errors (only the
    first one when ``first_only``)."""
    np = numpy()
    kind = values.dtype.kind
    if kind in "iu":
        ids, flagged = _int_ids(np, values, layout)
    elif kind == "S":
        ids, flagged = _bytes_ids(np, values, layout)
    elif kind in "UTO":
        ids, flagged = _text_ids(np, values, layout, original)
    else:
        return _refused(np, values, original, first_only)
    if null is not None and null.any():
        flagged = null if flagged is None else flagged | null
    if flagged is None or not flagged.any():
        return ids, None, []
    return _settle(np, ids, flagged, original, lambda v: read_id(v, layout), first_only=first_only)


def _int_ids(np: Any, values: Any, layout: Layout) -> tuple[Any, Mask | None]:
    flagged = None
    if values.dtype.kind == "i":
        signed = values.astype(np.int64, copy=False)
        if not stored_form_reads(layout) and len(signed) and signed.min() < 0:
            flagged = signed < 0
        ids = signed.view(np.uint64)
    else:
        ids = values.astype(np.uint64, copy=False)
    if layout.max_id < _U64_MAX and len(ids) and ids.max() > layout.max_id:
        over = ids > np.uint64(layout.max_id)
        flagged = over if flagged is None else flagged | over
    return ids, flagged


def _bytes_ids(np: Any, values: Any, layout: Layout) -> tuple[Any, Mask | None]:
    """ASCII decimal digits, vectorised: each byte column of the fixed-width array in turn.
    Flagged for a second, exact reading: anything but 1..19 plain digits (a sign, 20
    digits, which may pass 2**64, any other byte, an empty value) and ids past the
    layout's largest."""
    count, width = len(values), values.dtype.itemsize
    if width == 0 or count == 0:
        return np.zeros(count, np.uint64), np.ones(count, bool) if count else None
    matrix = values.view(np.uint8).reshape(count, width)
    lengths = np.strings.str_len(values) if hasattr(np, "strings") else np.char.str_len(values)
    flagged = (lengths == 0) | (lengths > 19)
    ids = np.zeros(count, np.uint64)
    ten = np.uint64(10)
    for column in range(min(width, 19)):
        digit = matrix[:, column] - np.uint8(48)
        inside = lengths > column
        flagged |= inside & (digit > 9)
        ids = np.where(inside, ids * ten + digit, ids)
    if layout.max_id < _U64_MAX:
        flagged |= ids > np.uint64(layout.max_id)
    return ids, flagged


def _text_ids(np: Any, values: Any, layout: Layout, original: Reader) -> tuple[Any, Mask | None]:
    """Text or objects: as bytes when every value is ASCII text, else one by one."""
    try:
        items = values.tolist()
        if all(type(item) is str for item in items):
            return _bytes_ids(np, np.array(items, dtype="S"), layout)
    except UnicodeEncodeError:
        pass
    count = len(values)
    ids = np.zeros(count, np.uint64)
    flagged = np.zeros(count, bool)
    for row in range(count):
        try:
            ids[row] = read_id(original(row), layout)
        except InvalidValueError:
            flagged[row] = True
    return ids, flagged


def _refused(
    np: Any, values: Any, original: Reader, first_only: bool
) -> tuple[Any, Mask, list[Bad]]:
    """A column of floats, bools or times holds no ids: every row is bad (a float id has
    lost its low digits already)."""
    count = len(values)
    rows = range(min(count, 1) if first_only else count)
    bad: list[Bad] = [(row, original(row), _not_an_id(original(row))) for row in rows]
    return np.zeros(count, np.uint64), np.ones(count, bool), bad


def _not_an_id(value: object) -> InvalidValueError:
    if value is None:
        return EmptyValueError(field="id", value=value)
    return NotAnIntegerError(field="id", value=value)


def _settle(
    np: Any,
    numbers: Any,
    flagged: Mask,
    original: Reader,
    read_one: Callable[[object], int],
    *,
    first_only: bool,
) -> tuple[Any, Mask | None, list[Bad]]:
    """Read each flagged row alone: a good one gets its value, a bad one its error."""
    numbers = numbers.copy()  # never the caller's own array
    bad_mask = np.zeros(len(numbers), bool)
    bad: list[Bad] = []
    for row in np.flatnonzero(flagged).tolist():
        value = original(row)
        try:
            numbers[row] = read_one(value)
        except InvalidValueError as error:
            numbers[row] = 0
            bad_mask[row] = True
            bad.append((row, value, error))
            if first_only:
                break
    if not bad:
        return numbers, None, []
    return numbers, bad_mask, bad


def decode_ids(ids: Any, layout: Layout) -> tuple[Any, list[Any]]:
    """(Unix ms as int64, each field but the time as int64) of valid unsigned ids."""
    np = numpy()
    parts = layout.split_fast(ids)  # the Layout's shifts and masks, on whole arrays
    ticks, *fields = parts
    if layout.unit_ms != 1:
        ticks *= np.uint64(layout.unit_ms)
    ms = ticks.view(np.int64)  # every layout's last time is far below 2**63 ms
    ms += np.int64(layout.epoch_ms)
    return ms, [value.view(np.int64) for value in fields]


# --- times ------------------------------------------------------------------------

_PER_MS: Final = {"us": 1_000, "ns": 1_000_000, "ps": 1_000_000_000, "fs": 10**12, "as": 10**15}


def read_times(
    values: Any, null: Mask | None, original: Reader, *, round_up: bool, first_only: bool
) -> tuple[Any, Mask | None, list[Bad]]:
    """Times as Unix ms (int64): datetime64 of any unit (a fraction of a millisecond
    rounded up or down), integers (Unix ms), or objects (datetimes, naive = UTC; ISO 8601
    text; ints). NaT and nulls are bad rows."""
    np = numpy()
    kind = values.dtype.kind
    flagged = None
    if kind == "M":
        unit, _ = np.datetime_data(values.dtype)
        raw = values.view(np.int64)
        flagged = raw == _NAT
        if unit in _PER_MS:
            per = np.int64(_PER_MS[unit])
            ms = raw // per
            if round_up:
                ms += (raw % per != 0).astype(np.int64)
        else:
            ms = values.astype("M8[ms]").view(np.int64)
        ms = np.where(flagged, 0, ms)
    elif kind in "iu":
        if kind == "u" and len(values) and values.max() > 2**63 - 1:
            flagged = values > np.uint64(2**63 - 1)
        ms = values.astype(np.int64)
    else:
        ms = np.zeros(len(values), np.int64)
        flagged = np.ones(len(values), bool)
    if null is not None:
        flagged = null if flagged is None else flagged | null
    if flagged is None or not flagged.any():
        return ms, None, []
    return _settle(
        np, ms, flagged, original, lambda v: _one_time(v, round_up), first_only=first_only
    )


def _one_time(value: object, round_up: bool) -> int:
    """One time alone: what ``snowid.first_id_at`` and ``compose`` take."""
    if value is None or (isinstance(value, float) and value != value):  # noqa: PLR0124
        raise EmptyValueError(field="timestamp", value=value)
    if isinstance(value, str):
        return parse_time("timestamp", value)
    if isinstance(value, _dt.datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=_dt.UTC)
        whole, part = divmod(aware - _UNIX, _dt.timedelta(milliseconds=1))
        return int(whole) + (1 if round_up and part else 0)
    if isinstance(value, int) and not isinstance(value, bool):
        if not -(2**63) <= value < 2**63:
            raise NotAnIntegerError(field="timestamp", value=value)
        return value
    raise NotAnIntegerError(field="timestamp", value=value)


_UNIX: Final = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)


def time_checked(
    np: Any, ms: Any, bad: Mask | None, *, low: int, high: int, layout: Layout, first_only: bool
) -> tuple[Any, Mask | None, list[Bad]]:
    """Rows whose time is outside ``low..high`` (Unix ms) get the layout's time error."""
    out = (ms < low) | (ms > high)
    if bad is not None:
        out &= ~bad
    if not out.any():
        return ms, bad, []
    rows = np.flatnonzero(out)
    if first_only:
        rows = rows[:1]
    found: list[Bad] = [
        (row, int(ms[row]), layout.time_error(int(ms[row]))) for row in rows.tolist()
    ]
    bad = out if bad is None else bad | out
    return np.where(bad, layout.epoch_ms, ms), bad, found


def bounds(
    ms: Any, bad: Mask | None, layout: Layout, *, first: bool, first_only: bool
) -> tuple[Any, Mask | None, list[Bad]]:
    """The first (or last) id of each time, as ``snowid.first_id_at`` (``last_id_at``)
    rounds it: up to the next tick for the first, down for the last."""
    np = numpy()
    epoch, unit = layout.epoch_ms, layout.unit_ms
    if first:  # ceil((ms - epoch) / unit) in 0..max_delta
        low, high = epoch - unit + 1, layout.max_timestamp
    else:  # floor((ms - epoch) / unit) in 0..max_delta
        low, high = epoch, layout.max_timestamp + unit - 1
    ms, bad, found = time_checked(
        np, ms, bad, low=low, high=high, layout=layout, first_only=first_only
    )
    delta = ms - np.int64(epoch)
    if unit != 1:
        delta = -((-delta) // unit) if first else delta // unit
    ticks = np.maximum(delta, 0).astype(np.uint64)
    both: tuple[Any, Any] = layout.tick_ids(ticks)
    ids = both[0 if first else 1]
    if bad is not None:
        ids[bad] = 0
    return ids, bad, found


def read_field(
    values: Any, name: str, maximum: int, null: Mask | None, original: Reader, *, first_only: bool
) -> tuple[Any, Mask | None, list[Bad]]:
    """One field's values (integers) checked against ``0..maximum``."""
    np = numpy()
    kind = values.dtype.kind
    if kind not in "iu":
        count = len(values)
        rows = range(min(count, 1) if first_only else count)
        bad: list[Bad] = [
            (row, original(row), NotAnIntegerError(field=name, value=original(row))) for row in rows
        ]
        return np.zeros(count, np.uint64), np.ones(count, bool), bad
    flagged = None
    if len(values) and (values.min() < 0 or values.max() > maximum):
        flagged = (values < 0) | (values > maximum)
    numbers = values.astype(np.uint64)  # a negative one is flagged: its bits never count
    if null is not None:
        flagged = null if flagged is None else flagged | null
    if flagged is None or not flagged.any():
        return numbers, None, []

    def one(value: object) -> int:
        if value is None or _is_null(value):
            raise EmptyValueError(field=name, value=value)
        number: int = int(value)  # type: ignore[call-overload]
        if not 0 <= number <= maximum:
            raise OutOfRangeError(field=name, value=number, min=0, max=maximum)
        return number

    return _settle(np, numbers, flagged, original, one, first_only=first_only)


def _is_null(value: object) -> bool:
    return (isinstance(value, float) and value != value) or type(value).__name__ == "NAType"  # noqa: PLR0124


def compose_ids(ms: Any, fields: Sequence[Any], layout: Layout) -> Any:
    """The ids of checked Unix-ms times and checked field values (uint64 each), cut to
    the layout's tick as ``snowid.compose`` cuts them."""
    np = numpy()
    delta = ms - np.int64(layout.epoch_ms)
    if layout.unit_ms != 1:
        delta //= layout.unit_ms
    ticks = np.maximum(delta, 0).astype(np.uint64)
    ids: Any = layout.join([ticks, *fields])
    return ids
