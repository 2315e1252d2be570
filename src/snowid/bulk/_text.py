"""Text in and out of columns: lines of ids read in chunks, and CSV rows written whole
arrays at a time (``snowid decode -`` and ``--file``).

A CSV row is ``id,time,`` then each field: the id as the unsigned decimal number, the
time as ISO 8601 UTC with milliseconds and ``Z`` (as ``Decoded.iso_utc`` writes it; empty
past year 9999, where it gives None), each field in decimal. The rows of a chunk are
written into one byte matrix (each value right-aligned in its own width, padded with NUL
bytes) and the padding is then dropped, so no Python code runs per row.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO, Final

from snowid._isotime import LAST_DATETIME_MS
from snowid.bulk._columns import numpy
from snowid.ids import Layout

__all__ = ["LineReader", "csv_header", "csv_lines", "read_lines"]

_CHUNK: Final = 4 << 20  # bytes read at a time: about 200,000 lines of ids
_MS_PER_DAY: Final = 86_400_000


@dataclass(frozen=True, slots=True)
class LineReader:
    """A chunk of lines: ``first`` is the line number (from 1) of ``lines[0]``."""

    first: int
    lines: list[bytes]


def read_lines(stream: BinaryIO, chunk: int = _CHUNK) -> Iterator[LineReader]:
    """The lines of ``stream`` in chunks, without their line ends (``\\n`` or ``\\r\\n``).
    A last line without a line end counts; the empty text after a final line end does
    not."""
    number = 1
    rest = b""
    while True:
        data = stream.read(chunk)
        if not data:
            break
        data = rest + data
        cut = data.rfind(b"\n")
        if cut < 0:
            rest = data
            continue
        rest = data[cut + 1 :]
        lines = data[:cut].split(b"\n")
        if b"\r" in data:
            lines = [line[:-1] if line.endswith(b"\r") else line for line in lines]
        yield LineReader(number, lines)
        number += len(lines)
    if rest:
        yield LineReader(number, [rest[:-1] if rest.endswith(b"\r") else rest])


def csv_header(layout: Layout) -> str:
    """``id,time,`` then the layout's field names."""
    return ",".join(("id", "time", *layout.field_names)) + "\n"


def csv_lines(ids: Any, ms: Any, fields: Sequence[Any], layout: Layout) -> bytes:
    """The CSV rows of decoded ids (uint64), their times (Unix ms) and fields, one line
    each, as bytes."""
    np = numpy()
    count = len(ids)
    if count == 0:
        return b""
    parts = [_digits(np, ids, 20), _byte(np, count, b",")]
    parts.append(_iso(np, ms))
    for value, maximum in zip(fields, layout.maxima[1:], strict=True):
        parts.append(_byte(np, count, b","))
        parts.append(_digits(np, value.view(np.uint64), len(str(maximum))))
    parts.append(_byte(np, count, b"\n"))
    matrix = np.concatenate(parts, axis=1).reshape(-1)
    return bytes(matrix[matrix != 0].data)


def _byte(np: Any, count: int, char: bytes) -> Any:
    return np.full((count, 1), char[0], np.uint8)


def _digits(np: Any, values: Any, width: int) -> Any:
    """Each value in decimal, right-aligned in ``width`` bytes, NUL before its first digit."""
    out = np.zeros((len(values), width), np.uint8)
    rest = values.astype(np.uint64, copy=True)
    ten = np.uint64(10)
    for column in range(width - 1, -1, -1):
        rest, digit = np.divmod(rest, ten)
        out[:, column] = digit
        out[:, column] += np.uint8(48)
    for column in range(width - 1):  # a leading zero is padding (0 itself keeps its last)
        out[:, column][values < np.uint64(10 ** (width - 1 - column))] = 0
    return out


def _iso(np: Any, ms: Any) -> Any:
    """``YYYY-MM-DDTHH:MM:SS.mmmZ`` of each Unix-ms time (years 1970..9999; later ones
    empty). Days to a date by the proleptic Gregorian calendar's 400-year cycle."""
    days = ms // _MS_PER_DAY
    rest = ms - days * _MS_PER_DAY
    shifted = days + 719_468  # days since 0000-03-01
    era = shifted // 146_097
    day_of_era = shifted - era * 146_097
    year_of_era = (
        day_of_era - day_of_era // 1_460 + day_of_era // 36_524 - day_of_era // 146_096
    ) // 365
    year = year_of_era + era * 400
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    month_index = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * month_index + 2) // 5 + 1
    month = np.where(month_index < 10, month_index + 3, month_index - 9)
    year += month <= 2
    pieces = [
        (year, 4, b"-"),
        (month, 2, b"-"),
        (day, 2, b"T"),
        (rest // 3_600_000, 2, b":"),
        (rest // 60_000 % 60, 2, b":"),
        (rest // 1_000 % 60, 2, b"."),
        (rest % 1_000, 3, b"Z"),
    ]
    count = len(ms)
    out = np.empty((count, 24), np.uint8)
    at = 0
    for value, width, after in pieces:
        digits = value.astype(np.uint64)
        for column in range(width - 1, -1, -1):
            digits, digit = np.divmod(digits, np.uint64(10))
            out[:, at + column] = digit.astype(np.uint8) + np.uint8(48)
        out[:, at + width] = after[0]
        at += width + 1
    out[ms > LAST_DATETIME_MS] = 0
    return out
