"""Turning input into whole numbers, once, at the boundary.

``to_int`` is the lenient door (what a person or a config file types): only ints
pass unchanged (an int subclass, such as an IntEnum member, as its plain value). Strings must be plain ASCII decimal digits (an optional sign,
surrounding white space and ``_`` separators as Python allows); floats only when
whole. A bool is never a number here: ``True`` as a machine id is a bug, not 1.
A number too long to be worth converting (thousands of digits) is refused as such;
any shorter one is converted exactly, so the range check can say what is wrong.

``strict_int`` and ``digits_int`` are for the strict constructors inside (an int and
nothing else; a string of ASCII digits and nothing else): a wrong type is a
WrongTypeError naming the function that refused it.
"""

from __future__ import annotations

import datetime as _dt
from typing import Final

from snowid._exceptions import (
    ContainsSpacesError,
    EmptyValueError,
    InvalidDateTimeError,
    NotAnIntegerError,
    NumberTooLongError,
    OutOfRangeError,
    WrongTypeError,
)
from snowid._isotime import MAX_EXACT_MS

_MAX_DIGITS = 4000  # under CPython's int() limit (4300); no field needs more than 20


def to_int(field: str, value: object) -> int:
    """``value`` as an int, or an InvalidValueError subclass naming ``field``."""
    if isinstance(value, bool):
        raise NotAnIntegerError(field=field, value=repr(value))
    if isinstance(value, int):
        return int(value)  # an int subclass (an IntEnum member) as its plain value
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


def strict_int(field: str, value: object, function: str) -> int:
    """``value`` if it is an int (a bool is not), else a WrongTypeError from ``function``."""
    if type(value) is int:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return int(value)  # an int subclass (an IntEnum member): its plain value
    raise wrong_type(field, value, function, "int")


def digits_int(field: str, text: object, function: str) -> int:
    """``text`` if it is a str of ASCII decimal digits only (no sign, space or ``_``);
    other text as ``strict_text`` judges it."""
    if not isinstance(text, str):
        raise wrong_type(field, text, function, "str")
    if text.isascii() and text.isdigit():
        if len(text) > _MAX_DIGITS:
            raise NumberTooLongError(field=field, value=text, digits=len(text))
        return int(text)
    return strict_text(field, text)


def strict_text(field: str, text: str) -> int:
    """The one rule of the readers that take digits alone (``SnowId.from_str``, pydantic,
    Django), for text that is not plain digits, so each mistake is worded alike wherever
    it is refused: blank is EmptyValueError; a minus sign before digits is read, so the
    caller's range check gives the negative-id error, as for the int; digits with white
    space around them are ContainsSpacesError (the space is invisible in "ID  123 is not a
    whole number"); anything else is NotAnIntegerError."""
    stripped = text.strip()
    if not stripped:
        raise EmptyValueError(field=field, value=text)
    body = stripped.removeprefix("-")
    if not (body.isascii() and body.isdigit()):
        raise NotAnIntegerError(field=field, value=text)
    if len(body) > _MAX_DIGITS:
        raise NumberTooLongError(field=field, value=text, digits=len(body))
    number = int(stripped)
    if number >= 0 and stripped != text:  # a negative number: its range says more
        raise ContainsSpacesError(field=field, value=text)
    return number


def wrong_type(field: str, value: object, function: str, expected: str) -> WrongTypeError:
    return WrongTypeError(
        field=field,
        value=repr(value),
        function=function,
        expected=expected,
        given_type=type(value).__name__,
    )


_UNIX: Final = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
_ONE_MS: Final = _dt.timedelta(milliseconds=1)
_MAX_TIME_TEXT: Final = 64  # longer than any ISO 8601 date and time


def unix_ms(when: object, *, round_up: bool = False) -> int:
    """A datetime (naive = UTC; rounded to the ms, up or down), Unix ms, or text of either
    (``parse_time``) as whole Unix ms."""
    if isinstance(when, str):
        return parse_time("timestamp", when)
    if isinstance(when, _dt.datetime):
        if when.tzinfo is None:
            when = when.replace(tzinfo=_dt.UTC)
        whole, part = divmod(when - _UNIX, _ONE_MS)
        return int(whole) + (1 if round_up and part else 0)
    return to_int("timestamp", when)


def parse_time(field: str, text: str) -> int:
    """A time as typed: Unix milliseconds (digits) or ISO 8601 (no zone = UTC), as Unix ms.

    ``2016-04-30T11:18:25.796Z``, ``2016-04-30 11:18:25+07:00`` and ``2016-04-30`` are
    read; a fraction finer than a millisecond is cut off.
    """
    stripped = text.strip()
    if stripped.isascii() and stripped.isdigit():
        ms = to_int(field, stripped)
        if ms > MAX_EXACT_MS:
            raise OutOfRangeError(field=field, value=ms, min=0, max=MAX_EXACT_MS)
        return ms
    if not stripped or len(stripped) > _MAX_TIME_TEXT:
        raise InvalidDateTimeError(field=field, value=text)
    try:
        when = _dt.datetime.fromisoformat(stripped)
    except ValueError:
        raise InvalidDateTimeError(field=field, value=text) from None
    return unix_ms(when, round_up=False)
