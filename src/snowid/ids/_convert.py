"""What every integration (pydantic, SQLAlchemy, Django, drivers) accepts as an id.

A ``SnowId``; an ``int``; or a decimal string (ASCII digits; the way ids should travel in
JSON). Everything else is refused with the specific error: a float in particular, since
a float above 2^53 may already be a different id (what JavaScript does to big numbers).
Stricter than ``SnowId.parse`` (no spaces, signs or ``_``) because these values come
from machines, and a schema that says ``^[0-9]{1,19}$`` should mean it.
"""

from __future__ import annotations

from typing import Final

from snowid._exceptions import FloatIdError, NotAnIntegerError
from snowid.ids._layout import TWITTER
from snowid.ids._parse import strict_text, to_int
from snowid.ids._snowid import SnowId

__all__ = ["MAX_DIGITS", "MAX_ID", "to_snowid"]

MAX_ID: Final = TWITTER.max_id
MAX_DIGITS: Final = len(str(MAX_ID))
from_int: Final = SnowId._from_int  # bound once: this runs once per model field or row


def to_snowid(value: object, field: str = "id") -> SnowId:
    """``value`` as a SnowId, or the InvalidValueError subclass that says what is wrong."""
    # The common cases first and cheaply: this runs once per row or model field.
    if type(value) is SnowId:
        return value
    if type(value) is int:
        if 0 <= value <= MAX_ID:
            return from_int(value)
    elif type(value) is str and len(value) <= MAX_DIGITS and value.isdigit() and value.isascii():
        number = int(value)
        if number <= MAX_ID:
            return from_int(number)
    return _slow(value, field)


def _slow(value: object, field: str) -> SnowId:
    """Subclasses and every refusal, each with its own error."""
    if isinstance(value, SnowId):
        return value
    if isinstance(value, bool) or not isinstance(value, int | str | float):
        raise NotAnIntegerError(field=field, value=repr(value))
    if isinstance(value, float):
        raise FloatIdError(field=field, value=repr(value))
    # "-5", " 5", "" or 30 digits: worded as SnowId.from_str words them
    number = strict_text(field, value) if isinstance(value, str) else to_int(field, value)
    return from_int(TWITTER.check_id(number, field))
