"""Turning another library's exception into a snowid error that keeps nothing of it.

A driver's exception may hold a secret where tooling looks: psycopg's error keeps its
connection object (whose repr shows ``password=``), a parse error keeps the text it could
not read (``u:SECRET@1``). Python links every exception raised while another is handled
to it (``__context__``; ``raise … from None`` only hides it from the traceback print), so
error reporters, debuggers and ``logging.exception`` would find the secret there.

- :class:`detached` (a decorator or a ``with`` block) cuts ``__cause__`` and
  ``__context__`` of every snowid exception that leaves it: wrap each function that
  translates a foreign exception, and the chain ends at snowid's error.
- :func:`driver_detail` gives what is kept instead, as the error's attributes
  ``driver_class`` (the foreign class's name) and ``driver_message`` (its message,
  scrubbed of every secret of the URL, :func:`snowid._redact.scrub`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from types import TracebackType
from typing import Literal

from snowid._redact import scrub

__all__ = ["detached", "driver_detail"]


class detached(contextlib.ContextDecorator):  # noqa: N801 - used like a function
    """A snowid exception leaving this block (or decorated function) has no chain.

    Only snowid's own exceptions are cut (a snowid error, or an internal signal such as
    the stores' ``StoreMissing``): anything else is left as it is, untouched.
    """

    def __enter__(self) -> detached:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> Literal[False]:
        del kind, traceback
        if error is not None and _ours(error):
            error.__cause__ = None
            error.__context__ = None
            error.__suppress_context__ = False  # nothing is left to suppress
        return False  # never swallows: the exception goes on as it is


def _ours(error: BaseException) -> bool:
    return type(error).__module__.partition(".")[0] == "snowid"


def driver_detail(
    error: BaseException, source: str, secrets: Iterable[str] = (), message: str | None = None
) -> dict[str, str]:
    """``driver_class`` and ``driver_message`` of ``error`` (raised about ``source``, a
    lease or database URL; ``secrets`` are held apart from it), for a snowid error's
    keyword arguments. The message (``str(error)`` unless the caller reads it better, as
    PyMySQL's ``(code, text)`` pair) is scrubbed: no secret of ``source``, no quoted
    token that is not a known name."""
    text = str(error).strip() if message is None else message
    return {
        "driver_class": type(error).__qualname__,
        "driver_message": scrub(text, source, secrets),
    }
