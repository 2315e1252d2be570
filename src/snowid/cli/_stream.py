"""``snowid decode -`` and ``snowid decode --file PATH``: many ids through the command line.

Ids come one per line (standard input or a file), from one column of a CSV file
(``--column``), or from a Parquet file's column; they go out as CSV (``id,time,`` then
the layout's fields), JSON lines (each line the object ``snowid decode --json`` prints
for that id) or Parquet. With numpy (``snowid[bulk]``) the CSV and Parquet rows come from
``snowid.bulk``'s columns a chunk at a time; without it, from ``snowid.decode`` line by
line, the same rows more slowly. JSON lines always come from ``snowid.decode``: its
object is the one ``--json`` gives.

A bad line (not digits, a negative id where the layout has none, one past its largest)
is reported on standard error with its line number and the error its value gets; with
``--on-error stop`` (the default) nothing after it is read and the exit status is 1,
with ``skip`` it is left out and the rest goes on (exit 0). The output written before a
bad line is whole: complete lines, or a Parquet file closed properly.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any, BinaryIO, Final

from snowid import decode
from snowid._exceptions import ExtraMissingError, InvalidValueError
from snowid.bulk import (
    LineReader,
    Rows,
    columnar,
    csv_header,
    csv_lines,
    decode_rows,
    read_id,
    read_lines,
)
from snowid.cli._common import write_bytes
from snowid.cli._exceptions import ColumnMissingError, FileUnusableError
from snowid.i18n import translate
from snowid.ids import Layout, get_layout

__all__ = ["decode_stream"]

_CSV_BATCH: Final = 65_536
_PARQUET_BATCH: Final = 262_144


@dataclass(frozen=True, slots=True)
class Batch:
    """Values read together: ``values`` (bytes lines, CSV text, or an Arrow array) and
    the number of each, for the messages (``unit`` says "line" or "row")."""

    values: LineReader | list[str | None] | Any
    number: Callable[[int], int]
    unit: str

    def array(self) -> Any:
        """The values as ``decode_rows`` takes them."""
        if isinstance(self.values, LineReader):
            return self.values.array()
        return self.values

    def items(self) -> list[Any]:
        """The values one by one."""
        if isinstance(self.values, LineReader):
            return self.values.lines
        if isinstance(self.values, list):
            return self.values
        return list(self.values.to_pylist())


_MESSAGES: Final = {
    "line": ("cli.bad_line", "cli.skipped_line"),
    "row": ("cli.bad_row", "cli.skipped_row"),
}
"""The messages of a bad line (or row): stopped there, or skipped."""


class _StopError(Exception):
    """A bad value under ``--on-error stop``: the output so far is closed, exit 1."""


def decode_stream(args: argparse.Namespace, lang: str) -> int:
    """The handler of ``snowid decode -`` and ``snowid decode --file PATH``."""
    layout = get_layout(args.layout or "twitter")
    fmt = args.format or ("jsonl" if args.json else "csv")
    stop = args.on_error == "stop"
    parquet_in = args.file is not None and args.file.lower().endswith(".parquet")
    fast = columnar() and fmt != "jsonl"
    if (fmt == "parquet" or parquet_in) and not fast:
        needs = "numpy" if not columnar() else "pyarrow"
        raise ExtraMissingError(feature="Parquet", package=needs, extra="parquet")
    with contextlib.ExitStack() as stack:
        sink = stack.enter_context(_sink(fmt, layout, args.output, lang))
        if parquet_in:
            batches = _parquet_batches(args.file, args.column)
        else:
            stream: BinaryIO = (
                sys.stdin.buffer if args.file is None else stack.enter_context(_open(args.file))
            )
            name = "-" if args.file is None else args.file
            batches = (
                _csv_batches(stream, args.column, name) if args.column else _line_batches(stream)
            )
        try:
            for batch in batches:
                if fast:
                    sink.rows(batch, _checked_rows(batch, layout, stop, lang))
                else:
                    _one_by_one(batch, layout, stop, lang, sink)
        except _StopError:
            return 1
    return 0


# --- reading ------------------------------------------------------------------------


def _line_batches(stream: BinaryIO) -> Iterator[Batch]:
    for chunk in read_lines(stream):
        first = chunk.first
        yield Batch(chunk, _counted_from(first), "line")


def _counted_from(first: int) -> Callable[[int], int]:
    """The number of the value at each index of a batch whose first value is ``first``."""

    def number(index: int) -> int:
        return first + index

    return number


def _csv_batches(stream: BinaryIO, column: str, name: str) -> Iterator[Batch]:
    text = io.TextIOWrapper(stream, encoding="utf-8", errors="replace", newline="")
    try:
        yield from _csv_rows(csv.reader(text), column, name)
    finally:
        text.detach()  # the stream is its owner's to close (standard input: never)


def _csv_rows(reader: Any, column: str, name: str) -> Iterator[Batch]:
    header = next(reader, None)
    if header is None:
        return
    if column not in header:
        raise ColumnMissingError(file=name, column=column, columns=", ".join(header))
    at = header.index(column)
    values: list[str | None] = []
    numbers: list[int] = []
    for row in reader:
        values.append(row[at] if at < len(row) else None)
        numbers.append(reader.line_num)
        if len(values) == _CSV_BATCH:
            yield Batch(values, numbers.__getitem__, "line")
            values, numbers = [], []
    if values:
        yield Batch(values, numbers.__getitem__, "line")


def _parquet_batches(path: str, column: str | None) -> Iterator[Batch]:
    parquet = _pyarrow_parquet()
    try:
        source = parquet.ParquetFile(path)
    except OSError as error:
        raise FileUnusableError(file=path, reason=error.strerror or str(error)) from None
    except Exception as error:  # pyarrow's ArrowInvalid: not a Parquet file
        raise FileUnusableError(file=path, reason=str(error)) from None
    names = list(source.schema_arrow.names)
    chosen = column or (names[0] if len(names) == 1 else "id")
    if chosen not in names:
        raise ColumnMissingError(file=path, column=chosen, columns=", ".join(names))
    done = 0
    for record in source.iter_batches(batch_size=_PARQUET_BATCH, columns=[chosen]):
        start = done
        yield Batch(record.column(0), _counted_from(start + 1), "row")
        done += record.num_rows


def _open(path: str, writing: bool = False) -> BinaryIO:
    """``path`` opened to read (or write) bytes, or the error naming it and the reason."""
    try:
        stream = open(path, "wb" if writing else "rb")  # noqa: SIM115 - an ExitStack closes it
    except OSError as error:
        raise FileUnusableError(file=path, reason=error.strerror or str(error)) from None
    return stream


def _pyarrow_parquet() -> Any:
    try:
        from pyarrow import parquet
    except ImportError:
        raise ExtraMissingError(feature="Parquet", package="pyarrow", extra="parquet") from None
    return parquet


# --- bad values ------------------------------------------------------------------


def _report(batch: Batch, index: int, error: InvalidValueError, stop: bool, lang: str) -> None:
    """One bad value on standard error: its line (or row) and the error it gets."""
    bad, skipped = _MESSAGES[batch.unit]
    said = translate(
        bad if stop else skipped, lang, number=batch.number(index), reason=error.message(lang)
    )
    line = translate("cli.error", lang, message=said) if stop else said
    sys.stdout.flush()
    with contextlib.suppress(OSError):
        print(line, file=sys.stderr, flush=True)


def _checked_rows(batch: Batch, layout: Layout, stop: bool, lang: str) -> tuple[Rows, int | None]:
    """The decoded rows of a batch, every bad one reported; with ``stop``, also the index
    of the first bad one (the rows before it are to be written, then the run ends)."""
    rows = decode_rows(batch.array(), layout, first_only=stop)
    for index, _, error in rows.problems:
        _report(batch, index, error, stop, lang)
    if stop and rows.problems:
        return rows, rows.problems[0][0]
    return rows, None


def _one_by_one(batch: Batch, layout: Layout, stop: bool, lang: str, sink: Sink) -> None:
    """Each value alone through ``snowid.decode`` (JSON lines; CSV without numpy)."""
    for index, value in enumerate(batch.items()):
        try:
            read_id(value, layout)
        except InvalidValueError as error:
            _report(batch, index, error, stop, lang)
            if stop:
                sink.flush()
                raise _StopError from None
            continue
        sink.one(decode(int(value), layout))
    sink.flush()


# --- writing ------------------------------------------------------------------------


class Sink:
    """Where the decoded rows go: CSV, JSON lines or Parquet, to a file or stdout."""

    def __init__(self, layout: Layout, lang: str, target: IO[bytes] | None) -> None:
        self.layout = layout
        self.lang = lang
        self.target = target
        self.pending: list[str] = []

    def emit(self, data: bytes) -> None:
        if self.target is None:
            write_bytes(data)
        else:
            self.target.write(data)

    def start(self) -> None:
        """Before the first row (the CSV header)."""

    def rows(self, batch: Batch, checked: tuple[Rows, int | None]) -> None:
        raise NotImplementedError

    def one(self, decoded: Any) -> None:
        raise NotImplementedError

    def flush(self) -> None:
        if self.pending:
            self.emit("".join(self.pending).encode("utf-8"))
            self.pending = []

    def close(self) -> None:
        self.flush()


def _good(rows: Rows, cut: int | None) -> tuple[Any, Any, list[Any]]:
    """(ids, ms, fields) of the rows to write: before ``cut``, or every good one."""
    fields = list(rows.fields.values())
    if cut is not None:
        return rows.ids[:cut], rows.ms[:cut], [value[:cut] for value in fields]
    if rows.bad is None:
        return rows.ids, rows.ms, fields
    keep = ~rows.bad
    return rows.ids[keep], rows.ms[keep], [value[keep] for value in fields]


class CsvSink(Sink):
    def start(self) -> None:
        self.emit(csv_header(self.layout).encode("ascii"))

    def rows(self, batch: Batch, checked: tuple[Rows, int | None]) -> None:
        rows, cut = checked
        ids, ms, fields = _good(rows, cut)
        self.emit(csv_lines(ids, ms, fields, self.layout))
        if cut is not None:
            raise _StopError

    def one(self, decoded: Any) -> None:
        values = [str(decoded.id), decoded.iso_utc or ""]
        values += [str(value) for value in decoded.fields.values()]
        self.pending.append(",".join(values) + "\n")
        if len(self.pending) >= 4096:
            self.flush()


class JsonlSink(Sink):
    def one(self, decoded: Any) -> None:
        self.pending.append(json.dumps(decoded.as_dict(self.lang), ensure_ascii=False) + "\n")
        if len(self.pending) >= 1024:
            self.flush()


class ParquetSink(Sink):
    def start(self) -> None:
        import pyarrow as pa

        self.pa = pa
        self.parquet = _pyarrow_parquet()
        kind = pa.int64() if self.layout.signed else pa.uint64()
        fields = [pa.field("id", kind), pa.field("time", pa.timestamp("ms", tz="UTC"))]
        fields += [pa.field(name, pa.int64()) for name in self.layout.field_names]
        self.schema = pa.schema(fields)
        sink = self.target if self.target is not None else _stdout_binary()
        self.writer = self.parquet.ParquetWriter(sink, self.schema)

    def rows(self, batch: Batch, checked: tuple[Rows, int | None]) -> None:
        rows, cut = checked
        ids, ms, fields = _good(rows, cut)
        pa = self.pa
        arrays = [pa.array(ids, type=self.schema.field("id").type)]
        arrays.append(pa.array(ms, type=pa.timestamp("ms", tz="UTC")))
        arrays += [pa.array(value, type=pa.int64()) for value in fields]
        self.writer.write_table(pa.Table.from_arrays(arrays, schema=self.schema))
        if cut is not None:
            raise _StopError

    def close(self) -> None:
        self.writer.close()


def _stdout_binary() -> IO[bytes]:
    sys.stdout.flush()
    stream = sys.__stdout__
    if stream is None:
        raise OSError("standard output is closed")
    binary: IO[bytes] = stream.buffer  # type: ignore[assignment]
    return binary


@contextlib.contextmanager
def _sink(fmt: str, layout: Layout, output: str | None, lang: str) -> Iterator[Sink]:
    kinds: dict[str, type[Sink]] = {"csv": CsvSink, "jsonl": JsonlSink, "parquet": ParquetSink}
    with contextlib.ExitStack() as stack:
        target = None if output is None else stack.enter_context(_open(output, writing=True))
        sink = kinds[fmt](layout, lang, target)
        sink.start()
        try:
            yield sink
        finally:
            sink.close()
