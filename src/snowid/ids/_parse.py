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

from snowid.errors import EmptyValueError, NotAnIntegerError, NumberTooLongError, WrongTypeError

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
    """``text`` if it is a str of ASCII decimal digits only (no sign, space or ``_``)."""
    if not isinstance(text, str):
        raise wrong_type(field, text, function, "str")
    if not text:
        raise EmptyValueError(field=field, value=text)
    if not (text.isascii() and text.isdigit()):
        raise NotAnIntegerError(field=field, value=text)
    if len(text) > _MAX_DIGITS:
        raise NumberTooLongError(field=field, value=text, digits=len(text))
    return int(text)


def wrong_type(field: str, value: object, function: str, expected: str) -> WrongTypeError:
    return WrongTypeError(
        field=field,
        value=repr(value),
        function=function,
        expected=expected,
        given_type=type(value).__name__,
    )
