"""Turning untrusted input into whole numbers, once, at the boundary.

Only ints pass unchanged. Strings must be plain ASCII decimal digits (an optional sign,
surrounding white space and ``_`` separators as Python allows); floats only when
whole. A bool is never a number here: ``True`` as a machine id is a bug, not 1.
A number too long to be worth converting (thousands of digits) is refused as such;
any shorter one is converted exactly, so the range check can say what is wrong.
"""

from __future__ import annotations

from snowid.errors import EmptyValueError, NotAnIntegerError, NumberTooLongError

_MAX_DIGITS = 4000  # under CPython's int() limit (4300); no field needs more than 20


def to_int(field: str, value: object) -> int:
    """``value`` as an int, or an InvalidValueError subclass naming ``field``."""
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
        if not digits.isascii() or not digits.isdigit():
            raise NotAnIntegerError(field=field, value=value)
        if len(digits) > _MAX_DIGITS:
            raise NumberTooLongError(field=field, value=text, digits=len(digits))
        try:
            return int(text)
        except ValueError:  # misplaced "_" or sign
            raise NotAnIntegerError(field=field, value=value) from None
    raise NotAnIntegerError(field=field, value=repr(value))
