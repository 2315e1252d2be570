"""Ids in bulk: whole columns of ids to times and fields, and back, at numpy's speed.

For every built-in layout and custom ones, exactly what ``snowid.decode``,
``snowid.compose``, ``snowid.first_id_at`` and ``snowid.last_id_at`` give for each value
alone (tested on random ids of every layout and their edges):

- ``decode(ids, layout)``: ids (numpy ``int64``/``uint64``, a pandas, polars or Arrow
  column, a list; or decimal strings in any of them) to a table of ``time`` and each
  field: a dict of numpy arrays (``datetime64[ms]``, read as UTC; ``int64`` fields), a
  pandas DataFrame (``datetime64[ms, UTC]``), a polars DataFrame (``Datetime("ms",
  "UTC")``) or an Arrow Table (``timestamp[ms, tz=UTC]``), as the input was.
- ``compose(times, layout, **fields)``: the other way, ids from times and fields.
- ``first_id_at(times, layout)``/``last_id_at(times, layout)``: the bounds of time
  windows, an id per time.

A bad value (a negative id where the layout has none, one past its largest, text that is
not digits, a null) is, with ``errors="raise"`` (the default), a ``BadRowError`` naming
the first bad row, its value and the error that value alone gets; with
``errors="null"``, a null in that row of every result column (numpy: masked arrays).
Never a wrong date. Instagram's negative numbers are its stored ``bigint`` form, read as
``snowid.decode`` reads them.

numpy is the one package needed (``pip install 'snowid[bulk]'``); pandas, polars and
pyarrow are imported only when a column of theirs is passed. Importing this module
imports none of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal

from snowid._exceptions import (
    BadRowError,
    ExtraMissingError,
    InvalidLayoutError,
    InvalidValueError,
)
from snowid.bulk._columns import (
    Bad,
    bounds,
    compose_ids,
    decode_ids,
    numpy,
    read_field,
    read_ids,
    read_times,
    time_checked,
)
from snowid.bulk._frames import Column, column_in, frame_out, series_out
from snowid.bulk._one import read_id
from snowid.bulk._text import LineReader, csv_header, csv_lines, read_lines
from snowid.ids import Layout, get_layout

__all__ = [
    "ERRORS",
    "LineReader",
    "Rows",
    "columnar",
    "compose",
    "csv_header",
    "csv_lines",
    "decode",
    "decode_rows",
    "first_id_at",
    "last_id_at",
    "read_id",
    "read_lines",
]

Errors = Literal["raise", "null"]
ERRORS: Final = ("raise", "null")
"""What a bad row becomes: ``raise`` (BadRowError for the first) or ``null``."""


def columnar() -> bool:
    """Whether the column paths can run here (numpy is installed)."""
    try:
        numpy()
    except ExtraMissingError:
        return False
    return True


def decode(ids: Any, layout: Layout | str = "twitter", *, errors: Errors = "raise") -> Any:
    """Each id's time and fields, as a table of the input's library (see the module)."""
    spec, nulls = _setup(layout, errors)
    column = column_in(ids)
    rows = _rows(column, _no_time_field(spec), first_only=not nulls)
    _raise_first(rows.problems, nulls)
    return frame_out(column, rows.ms, rows.fields, rows.bad, nulls)


@dataclass(frozen=True, slots=True)
class Rows:
    """Decoded ids as numpy arrays, for a program that handles bad rows itself (the
    CLI's streams): ``ids`` (uint64, 0 where bad), ``ms`` (Unix ms, int64), ``fields``
    (int64 each), ``bad`` (a bool mask, None when every row is good) and ``problems``:
    (row, value, error) of each bad row, or of the first only."""

    ids: Any
    ms: Any
    fields: dict[str, Any]
    bad: Any
    problems: list[Bad]


def decode_rows(ids: Any, layout: Layout | str = "twitter", *, first_only: bool = False) -> Rows:
    """``decode`` without the tables: the arrays and every bad row with its error."""
    return _rows(column_in(ids), get_layout(layout), first_only=first_only)


def _rows(column: Column, layout: Layout, *, first_only: bool) -> Rows:
    numbers, bad, found = read_ids(
        column.values, layout, column.null, column.original, first_only=first_only
    )
    ms, fields = decode_ids(numbers, layout)
    named = dict(zip(layout.field_names, fields, strict=True))
    return Rows(numbers, ms, named, bad, found)


def compose(
    times: Any,
    layout: Layout | str = "twitter",
    *,
    errors: Errors = "raise",
    **fields: Any,
) -> Any:
    """The id of each time (datetime64, a UTC-aware timestamp column, Unix ms) and its
    fields (a column each, or one int for every row; a field not given is 0), cut to the
    layout's tick as ``snowid.compose`` cuts it."""
    spec, nulls = _setup(layout, errors)
    spec.check_field_names(fields)
    np = numpy()
    column = column_in(times)
    ms, bad, found = read_times(
        column.values, column.null, column.original, round_up=False, first_only=not nulls
    )
    top = spec.max_timestamp + spec.unit_ms - 1
    ms, bad, more = time_checked(
        np, ms, bad, low=spec.epoch_ms, high=top, layout=spec, first_only=not nulls
    )
    found += more
    values = []
    for name in spec.field_names:
        given = fields.get(name, 0)
        if isinstance(given, int):
            given = np.full(len(ms), given, dtype=np.int64 if given < 2**63 else np.uint64)
        part = column_in(given)
        value, part_bad, part_found = read_field(
            part.values, name, spec.field_max(name), part.null, part.original, first_only=not nulls
        )
        if len(value) != len(ms):
            raise InvalidValueError(field=name, value=f"{len(value)} rows, not {len(ms)}")
        found += part_found
        bad = part_bad if bad is None else bad if part_bad is None else bad | part_bad
        values.append(value)
    _raise_first(sorted(found, key=lambda item: item[0]), nulls)
    ids = compose_ids(ms, values, spec)
    if bad is not None:
        ids[bad] = 0
    return series_out(column, ids, bad, nulls, _id_type(spec))


def first_id_at(times: Any, layout: Layout | str = "twitter", *, errors: Errors = "raise") -> Any:
    """The smallest id made at or after each time (a time between two ticks rounds up)."""
    return _bound(times, layout, errors, first=True)


def last_id_at(times: Any, layout: Layout | str = "twitter", *, errors: Errors = "raise") -> Any:
    """The largest id made at or before each time (rounded down to its tick)."""
    return _bound(times, layout, errors, first=False)


def _bound(times: Any, layout: Layout | str, errors: Errors, *, first: bool) -> Any:
    spec, nulls = _setup(layout, errors)
    column = column_in(times)
    ms, bad, found = read_times(
        column.values, column.null, column.original, round_up=first, first_only=not nulls
    )
    ids, bad, more = bounds(ms, bad, spec, first=first, first_only=not nulls)
    _raise_first(sorted(found + more, key=lambda item: item[0]), nulls)
    return series_out(column, ids, bad, nulls, _id_type(spec))


def _id_type(layout: Layout) -> str:
    """int64 where every id fits one (a layout with a sign bit), else uint64."""
    return "int64" if layout.signed else "uint64"


def _setup(layout: Layout | str, errors: str) -> tuple[Layout, bool]:
    if errors not in ERRORS:
        raise InvalidValueError(field="errors", value=errors)
    return get_layout(layout), errors == "null"


def _no_time_field(layout: Layout) -> Layout:
    if "time" in layout.field_names:  # the results' time column has that name
        raise InvalidLayoutError(value=layout.name, reason="reserved_field", name="time")
    return layout


def _raise_first(found: list[Bad], nulls: bool) -> None:
    if found and not nulls:
        row, value, error = found[0]
        raise BadRowError(field=error.field, value=value, row=row, error=error)
