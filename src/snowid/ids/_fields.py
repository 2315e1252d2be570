"""Reading what a person types into the compose fields: the page's and the CLI's one reader.

The core's constructors are strict (ints in, ``None`` for now); the lenient rules of a
form live here, once: a blank timestamp is now, a blank sequence is 0, datacenter and
machine are required, and a number may carry surrounding spaces or ``_`` separators
(``to_int``). Each field is converted and checked against its range exactly once, and
every bad field is reported on its own, so one never hides another.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Final

from snowid._exceptions import InvalidValueError
from snowid.ids._clock import SYSTEM_CLOCK, Clock
from snowid.ids._layout import TWITTER
from snowid.ids._parse import to_int
from snowid.ids._snowid import SnowId

__all__ = [
    "COMPOSE_FIELDS",
    "ComposeFields",
    "first_error",
    "read_compose_fields",
    "read_field",
    "read_id",
]

COMPOSE_FIELDS: Final = ("timestamp", "datacenter", "machine", "sequence")
_CHECKS: Final[dict[str, Callable[[int], int]]] = {
    "timestamp": TWITTER.check_timestamp,
    "datacenter": TWITTER.check_datacenter,
    "machine": TWITTER.check_machine,
    "sequence": TWITTER.check_sequence,
}


def read_field(name: str, text: str | None, clock: Clock = SYSTEM_CLOCK) -> int:
    """One compose field as typed, checked against its range; blank timestamp = the clock's
    now, blank sequence = 0, a blank identity is an EmptyValueError naming its field."""
    if text is None or not text.strip():
        if name == "timestamp":
            return _CHECKS[name](clock.time_ms())
        if name == "sequence":
            return 0
        text = text or ""
    return _CHECKS[name](to_int(name, text))


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
    texts: Mapping[str, str | None], clock: Clock = SYSTEM_CLOCK
) -> ComposeFields:
    """All four fields from ``texts`` (a missing one is blank), each read once."""
    read = ComposeFields()
    for name in COMPOSE_FIELDS:
        try:
            read.numbers[name] = read_field(name, texts.get(name), clock)
        except InvalidValueError as error:
            read.errors[name] = error
    return read


def read_id(text: str) -> SnowId:
    """An id typed or pasted by a person: decimal digits, white space and ``_`` allowed."""
    return SnowId.parse(text)
