"""One value of a column, read as ``snowid.decode`` reads it: the authority for every row.

The column paths are fast paths over whole arrays; wherever one of them flags a row (a
negative id, a number too large, text that is not digits, a null) this module reads that
value alone and gives the specific error ``snowid.decode`` would give, so a column and the
scalar decode never disagree on what an id is. Standard library only.
"""

from __future__ import annotations

from typing import Final

from snowid._exceptions import (
    ContainsSpacesError,
    EmptyValueError,
    NotAnIntegerError,
    NumberTooLongError,
)
from snowid.ids import Layout, SnowId, get_layout

__all__ = ["read_id", "stored_form_reads"]

_TOP: Final = 2**63
_SPAN: Final = 2**64
_MAX_DIGITS: Final = 4000
_INSTAGRAM: Final = get_layout("instagram")


def stored_form_reads(layout: Layout) -> bool:
    """Whether a negative 64-bit number is an id of ``layout`` (Instagram's stored
    ``bigint``, as ``snowid.decode`` reads it), not an error."""
    return layout is _INSTAGRAM  # the one exception snowid.decode makes, for the same layout


def read_id(value: object, layout: Layout | str, field: str = "id") -> int:
    """The unsigned id ``value`` (an int, a string of ASCII digits, bytes of them) is in
    ``layout``; else the error ``snowid.decode`` gives for it (a null is empty, a float or
    text that is not plain digits is no integer)."""
    spec = get_layout(layout)
    number = _number(value, field)
    if stored_form_reads(spec) and -_TOP <= number < 0:
        return number + _SPAN
    return spec.check_id(number, field)


def _number(value: object, field: str) -> int:
    if value is None or _is_missing(value):
        raise EmptyValueError(field=field, value=value)
    if isinstance(value, SnowId):
        return int(value)
    if isinstance(value, bool):
        raise NotAnIntegerError(field=field, value=value)
    if isinstance(value, int):
        return value
    if isinstance(value, bytes | bytearray):
        try:
            value = bytes(value).decode("ascii")
        except UnicodeDecodeError:
            raise NotAnIntegerError(field=field, value=value) from None
    if isinstance(value, str):
        return _digits(value, field)
    if type(value).__module__ == "numpy" and hasattr(value, "dtype"):
        kind = value.dtype.kind  # a numpy scalar out of an object column
        if kind in "iu":
            number: int = value.item()  # type: ignore[attr-defined]
            return number
    raise NotAnIntegerError(field=field, value=value)


def _digits(text: str, field: str) -> int:
    """A decimal string: ASCII digits, a leading ``-`` allowed (a negative number, refused
    or read as a stored form by the layout), nothing else."""
    if not text:
        raise EmptyValueError(field=field, value=text)
    body = text[1:] if text[0] == "-" else text
    if body.isascii() and body.isdigit():
        if len(body) > _MAX_DIGITS:  # past int()'s limit, and every range
            raise NumberTooLongError(field=field, value=text, digits=len(body))
        return int(text)
    stripped = text.strip()
    if stripped != text and stripped.isascii() and stripped.lstrip("-").isdigit():
        raise ContainsSpacesError(field=field, value=text)
    raise NotAnIntegerError(field=field, value=text)


def _is_missing(value: object) -> bool:
    """NaN, NaT and pandas' NA: the nulls of the column libraries."""
    if isinstance(value, float):
        return value != value  # noqa: PLR0124 - NaN is the one float unequal to itself
    name = type(value).__name__
    return name in ("NAType", "NaTType") or (name == "datetime64" and str(value) == "NaT")
