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

_CHUNK: Final = 4 * 1024 * 1024  # bytes read at a time: about 200,000 lines of ids
_MS_PER_DAY: Final = 86_400_000


@dataclass(frozen=True, slots=True)
class LineReader:
    """A chunk of lines: ``first`` is the line number (from 1) of ``lines[0]``; ``clean``
    says no line holds a NUL byte (a fixed-width numpy bytes array would drop one at a
    line's end, so such a chunk is read line by line)."""

    first: int
    lines: list[bytes]
    clean: bool = True

    def array(self) -> Any:
        """The lines as a numpy array for ``decode_rows``: fixed-width bytes when clean."""
        np = numpy()
        if self.clean:
            return np.array(self.lines, dtype="S")
        return np.array(self.lines, dtype=object)


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
        yield LineReader(number, lines, b"\0" not in data)
        number += len(lines)
    if rest:
        last = rest[:-1] if rest.endswith(b"\r") else rest
        yield LineReader(number, [last], b"\0" not in last)


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
    comma = _byte(np, count, b",")
    parts = [_number(np, ids, 20), comma, _iso(np, ms)]
    for value, maximum in zip(fields, layout.maxima[1:], strict=True):
        parts += [comma, _number(np, value.view(np.uint64), len(str(maximum)))]
    parts.append(_byte(np, count, b"\n"))
    matrix = np.concatenate(parts, axis=1).reshape(-1)
    return bytes(matrix[matrix != 0].data)


_PAIRS: Final = b"".join(f"{pair:02d}".encode() for pair in range(100))
"""The two ASCII digits of 0..99, side by side: one uint16 per pair."""


def _byte(np: Any, count: int, char: bytes) -> Any:
    return np.full((count, 1), char[0], np.uint8)


def _pairs(np: Any, values: Any, pairs: int) -> Any:
    """(pairs, n) uint16: each value's decimal digits, two per element, most significant
    first, zero-filled (one contiguous row per position: the fast way round)."""
    table = np.frombuffer(_PAIRS, np.uint16)
    out = np.empty((pairs, len(values)), np.uint16)
    rest = values.astype(np.uint64, copy=True)
    hundred = np.uint64(100)
    for row in range(pairs - 1, -1, -1):
        rest, pair = np.divmod(rest, hundred)
        np.take(table, pair, out=out[row])
    return out


def _as_bytes(np: Any, pairs: Any) -> Any:
    """(pairs, n) uint16 as (n, 2 * pairs) bytes, one row per value."""
    return np.ascontiguousarray(pairs.T).view(np.uint8)


def _number(np: Any, values: Any, width: int) -> Any:
    """Each value in decimal, right-aligned in ``width`` (rounded up to even) bytes, NUL
    before its first digit (0 itself keeps its one digit)."""
    count = (width + 1) // 2
    digits = 2 * count
    pairs = _pairs(np, values, count)
    for row in range(count):
        first = 2 * row  # the position of the pair's first digit
        both = values < np.uint64(10 ** (digits - 2 - first)) if first < digits - 2 else None
        one = values < np.uint64(10 ** (digits - 1 - first))
        # little-endian: the first digit is the low byte
        pairs[row] = np.where(one, pairs[row] & np.uint16(0xFF00), pairs[row])
        if both is not None:
            pairs[row][both] = 0
    return _as_bytes(np, pairs)


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
    count = len(ms)
    two = [year // 100, year % 100, month, day, rest // 3_600_000, rest // 60_000 % 60]
    two += [rest // 1_000 % 60, rest % 1_000 // 10]
    pairs = _as_bytes(np, np.stack([_pairs(np, part, 1)[0] for part in two]))
    last = (rest % 10 + 48).astype(np.uint8).reshape(count, 1)
    marks = {4: b"-", 6: b"-", 8: b"T", 10: b":", 12: b":", 14: b"."}
    pieces = []
    for at in range(0, 16, 2):
        pieces.append(pairs[:, at : at + 2])
        if at + 2 in marks:
            pieces.append(_byte(np, count, marks[at + 2]))
    pieces += [last, _byte(np, count, b"Z")]
    out = np.concatenate(pieces, axis=1)
    out[ms > LAST_DATETIME_MS] = 0
    return out
