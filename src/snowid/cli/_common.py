"""What the sub-commands share: the handler type, JSON output, colour, a checked stdout."""

from __future__ import annotations

import argparse
import contextlib
import errno
import io
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO, cast

from snowid.i18n import LANGS, translate

Handler = Callable[[argparse.Namespace, str], int]


def add_lang_option(parser: argparse.ArgumentParser) -> None:
    """``--lang`` after the sub-command too (``snowid compose … --lang vi``)."""
    parser.add_argument(
        "--lang",
        choices=LANGS,
        default=argparse.SUPPRESS,
        help="language of messages (default: the locale)",
    )


def print_json(value: object, stream: TextIO | None = None) -> None:
    import json  # only for --json: a text decode starts without it

    print(json.dumps(value, ensure_ascii=False, indent=2), file=stream or sys.stdout)


def use_colour(stream: TextIO | None = None) -> bool:
    """Colour only on a terminal, never with NO_COLOR set (https://no-color.org)."""
    if "NO_COLOR" in os.environ:
        return False
    target = stream or sys.stdout
    return hasattr(target, "isatty") and target.isatty()


# --- standard output that fails loudly -----------------------------------------

# A few write failures an operator meets, with their own words in the catalogs.
_OUTPUT_REASONS = {errno.ENOSPC: "no_space", errno.EBADF: "closed", errno.EDQUOT: "no_space"}


class OutputError(Exception):
    """Standard output cannot be written (a full disk, a closed descriptor, an I/O error)."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.errno = error.errno or 0

    def message(self, lang: str) -> str:
        key = _OUTPUT_REASONS.get(self.errno, "other")
        name = errno.errorcode.get(self.errno, str(self.errno))
        reason = translate(f"cli.output.{key}", lang, errno=name, text=os.strerror(self.errno))
        return translate("cli.output_failed", lang, reason=reason)


class _GuardedStream(io.TextIOBase):
    """``sys.stdout`` while a command runs: a failed write raises OutputError.

    Only a failure of this stream becomes OutputError, so an OSError from anywhere else
    is never mistaken for it. BrokenPipeError passes through unchanged: a reader that
    left early (``| head``) is not an error.
    """

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as error:
            raise OutputError(error) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as error:
            raise OutputError(error) from None

    def write_bytes(self, data: bytes) -> None:
        """Bytes as they are, past the text layer when the stream has one (the columns
        of ``snowid decode -`` are written as bytes, never decoded to text and back)."""
        try:
            binary = getattr(self._stream, "buffer", None)
            if binary is None:
                self._stream.write(data.decode("utf-8"))
                return
            self._stream.flush()
            binary.write(data)
        except BrokenPipeError:
            raise
        except OSError as error:
            raise OutputError(error) from None

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()

    def writable(self) -> bool:
        return True


@contextmanager
def guarded_stdout(*, closed_is_error: bool = True) -> Iterator[None]:
    """Run a command with its output checked: a write that fails is OutputError.

    A closed standard output (``>&-``, where Python sets ``sys.stdout`` to None and
    ``print`` would drop every line in silence) is refused before the command starts,
    unless ``closed_is_error`` is false. The output is flushed at the end, also when
    argparse exits after ``--help``, so a full disk is noticed for one short line too.
    """
    stream = sys.stdout
    if stream is None:
        if closed_is_error:
            raise OutputError(OSError(errno.EBADF, os.strerror(errno.EBADF)))
        yield
        return
    guarded = _GuardedStream(stream)
    sys.stdout = cast(TextIO, guarded)
    try:
        yield
        guarded.flush()
    except SystemExit:
        guarded.flush()
        raise
    finally:
        sys.stdout = stream


def write_bytes(data: bytes) -> None:
    """``data`` to standard output as bytes (checked, as every write of a command is)."""
    stream = sys.stdout
    if isinstance(stream, _GuardedStream):
        stream.write_bytes(data)
        return
    binary = getattr(stream, "buffer", None)
    if binary is None:
        stream.write(data.decode("utf-8"))
    else:
        stream.flush()
        binary.write(data)


def discard_stdout() -> None:
    """After a failed or abandoned write: nothing left for the exit-time flush to fail on.

    The process's real standard output is pointed at /dev/null (Python flushes it at
    exit and would report a second error, exit 120); a test's replacement is left alone.
    """
    stream = sys.__stdout__
    if stream is None or sys.stdout is not stream:
        return
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
