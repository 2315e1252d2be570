"""Reading what a person types into the compose fields: the page's and the CLI's one reader.

The core's constructors are strict (ints in, ``None`` for now); the lenient rules of a
form live here, once: a blank timestamp is now, a blank sequence is 0, datacenter and
machine are required, and a number may be written as people write it: digit groups
(``1 288 834 975 657``, ``1.288.834.975.657``; ``_groups``), read in the page's language. Each field is converted and checked against its range exactly once, and
every bad field is reported on its own, so one never hides another.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Final

from snowid._exceptions import InvalidValueError, OutOfRangeError
from snowid._isotime import MAX_EXACT_MS
from snowid.ids._clock import SYSTEM_CLOCK, Clock
from snowid.ids._groups import read_grouped
from snowid.ids._layout import TWITTER
from snowid.ids._parse import parse_time, to_int
from snowid.ids._snowid import SnowId

__all__ = [
    "COMPOSE_FIELDS",
    "ComposeFields",
    "first_error",
    "read_compose_fields",
    "read_field",
    "read_id",
    "read_people_int",
    "read_people_time",
]

COMPOSE_FIELDS: Final = ("timestamp", "datacenter", "machine", "sequence")
_CHECKS: Final[dict[str, Callable[[int], int]]] = {
    "timestamp": TWITTER.check_timestamp,
    "datacenter": TWITTER.check_datacenter,
    "machine": TWITTER.check_machine,
    "sequence": TWITTER.check_sequence,
}


def read_people_int(name: str, text: str, lang: str = "en") -> int:
    """A whole number as a person types it: digit groups in ``lang``'s convention, or
    anything ``to_int`` reads; the error names ``name``."""
    number = read_grouped(name, text, lang)
    return to_int(name, text) if number is None else number


def read_people_time(name: str, text: str, lang: str = "en") -> int:
    """A time as a person types it: Unix ms (digit groups allowed) or ISO 8601 (``parse_time``)."""
    number = read_grouped(name, text, lang)
    if number is None:
        return parse_time(name, text)
    if not 0 <= number <= MAX_EXACT_MS:
        raise OutOfRangeError(field=name, value=number, min=0, max=MAX_EXACT_MS)
    return number


def read_field(
    name: str, text: str | None, clock: Clock = SYSTEM_CLOCK, lang: str | None = "en"
) -> int:
    """One compose field as typed, checked against its range; blank timestamp = the clock's
    now, blank sequence = 0, a blank identity is an EmptyValueError naming its field.
    Digit groups are read in ``lang``'s convention; ``lang`` None reads as a program does
    (``to_int``: the JSON API's compose)."""
    if text is None or not text.strip():
        if name == "timestamp":
            return _CHECKS[name](clock.time_ms())
        if name == "sequence":
            return 0
        text = text or ""
    number = to_int(name, text) if lang is None else read_people_int(name, text, lang)
    return _CHECKS[name](number)


@dataclass(slots=True)
class ComposeFields:
    """The four fields read: the numbers of the valid ones and the error of each bad one."""

    numbers: dict[str, int] = field(default_factory=dict)
    errors: dict[str, InvalidValueError] = field(default_factory=dict)

    @property
    def first_error(self) -> InvalidValueError | None:
        return first_error(self.errors)

    def snow_id(self) -> SnowId:
        """The id of four valid fields (packed without checking them again); else the
        first field's error."""
        error = self.first_error
        if error is not None:
            raise error
        n = self.numbers
        packed = TWITTER.pack(n["timestamp"], n["datacenter"], n["machine"], n["sequence"])
        return SnowId._from_int(packed)


def first_error(errors: Mapping[str, InvalidValueError]) -> InvalidValueError | None:
    """The first bad field's error, in the form's order."""
    return next((errors[name] for name in COMPOSE_FIELDS if name in errors), None)


def read_compose_fields(
    texts: Mapping[str, str | None], clock: Clock = SYSTEM_CLOCK, lang: str | None = "en"
) -> ComposeFields:
    """All four fields from ``texts`` (a missing one is blank), each read once, digit
    groups in ``lang``'s convention."""
    read = ComposeFields()
    for name in COMPOSE_FIELDS:
        try:
            read.numbers[name] = read_field(name, texts.get(name), clock, lang)
        except InvalidValueError as error:
            read.errors[name] = error
    return read


def read_id(text: str, lang: str = "en") -> SnowId:
    """A Twitter id typed or pasted by a person: digit groups in ``lang``'s convention, or
    what ``SnowId.parse`` reads."""
    number = read_grouped("id", text, lang)
    return SnowId.parse(text) if number is None else SnowId.parse(number)
