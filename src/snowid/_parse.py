"""Turning untrusted input into whole numbers, once, at the boundary.

Only ints pass unchanged. Strings must be plain decimal digits (an optional sign,
surrounding white space and ``_`` separators as Python allows); floats only when
whole. A bool is never a number here: ``True`` as a machine id is a bug, not 1.
"""

from __future__ import annotations

from snowid.errors import EmptyValueError, NotAnIntegerError

_MAX_DIGITS = 40  # far beyond any 64-bit id; stops int() on megabyte strings


def to_int(field: str, value: object) -> int:
    """``value`` as an int, or a NotAnIntegerError / EmptyValueError naming ``field``."""
    if isinstance(value, bool):
        raise NotAnIntegerError(field=field, value=repr(value))
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if value.is_integer():
            return int(value)
        raise NotAnIntegerError(field=field, value=repr(value))
    if isinstance(value, str):
        text = value.strip()
        if not text:
            raise EmptyValueError(field=field, value=value)
        digits = text.lstrip("+-").replace("_", "")
        if len(digits) > _MAX_DIGITS or not digits.isascii() or not digits.isdigit():
            raise NotAnIntegerError(field=field, value=_shorten(value))
        try:
            return int(text)
        except ValueError:  # misplaced "_" or sign
            raise NotAnIntegerError(field=field, value=_shorten(value)) from None
    raise NotAnIntegerError(field=field, value=_shorten(repr(value)))


def _shorten(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
