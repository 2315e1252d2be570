"""SnowId: one Twitter-layout Snowflake id as an immutable, hashable, ordered value."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from typing import Final

from snowid._clock import SYSTEM_CLOCK, Clock
from snowid._layout import TWITTER, Parts
from snowid._parse import to_int
from snowid.errors import InvalidValueError

__all__ = ["SnowId"]

_UTC: Final = _dt.UTC


class SnowId:
    """One id, like ``uuid.UUID``: immutable, compared only with other SnowIds.

    >>> SnowId.from_parts(timestamp=1288834975657, datacenter=1, machine=1, sequence=0)
    SnowId(4194439168)
    """

    __slots__ = ("_value",)
    _value: int

    def __init__(self, value: int) -> None:
        number = to_int("id", value)
        object.__setattr__(self, "_value", TWITTER.check_id(number))

    # --- constructors, one per input form --------------------------------

    @classmethod
    def from_str(cls, text: str) -> SnowId:
        """From a decimal string such as ``"4194439168"``."""
        return cls(to_int("id", text))

    @classmethod
    def from_parts(
        cls,
        *,
        timestamp: object | None = None,
        datacenter: object,
        machine: object,
        sequence: object = 0,
    ) -> SnowId:
        """From the four fields; ``timestamp`` is Unix ms.

        A blank timestamp (``None``, or a string of white space) means now, as in the
        seed's tool; a blank sequence means 0. The identity is always required.
        """
        value = TWITTER.compose(
            field_value("timestamp", timestamp),
            field_value("datacenter", datacenter),
            field_value("machine", machine),
            field_value("sequence", sequence),
        )
        return cls._trusted(value)

    @classmethod
    def from_datetime(
        cls, when: _dt.datetime, *, datacenter: int, machine: int, sequence: int = 0
    ) -> SnowId:
        """From an aware datetime (naive ones are taken as UTC), truncated to the millisecond."""
        if not isinstance(when, _dt.datetime):
            raise InvalidValueError(field="datetime", value=repr(when))
        if when.tzinfo is None:
            when = when.replace(tzinfo=_UTC)
        delta = when - _dt.datetime(1970, 1, 1, tzinfo=_UTC)
        ms = (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000
        return cls.from_parts(
            timestamp=ms, datacenter=datacenter, machine=machine, sequence=sequence
        )

    @classmethod
    def parse(cls, value: object) -> SnowId:
        """Lenient, for untrusted input: a SnowId, an int or a decimal string (spaces allowed)."""
        if isinstance(value, SnowId):
            return value
        return cls(to_int("id", value))

    @classmethod
    def _trusted(cls, value: int) -> SnowId:
        instance = object.__new__(cls)
        object.__setattr__(instance, "_value", value)
        return instance

    # --- fields ------------------------------------------------------------

    @property
    def parts(self) -> Parts:
        return TWITTER.decompose(self._value)

    @property
    def timestamp(self) -> int:
        """Unix milliseconds."""
        return self.parts.timestamp

    @property
    def datacenter(self) -> int:
        return self.parts.datacenter

    @property
    def machine(self) -> int:
        return self.parts.machine

    @property
    def sequence(self) -> int:
        return self.parts.sequence

    @property
    def worker(self) -> int:
        """datacenter << 5 | machine, 0..1023."""
        parts = self.parts
        return TWITTER.worker(parts.datacenter, parts.machine)

    @property
    def datetime(self) -> _dt.datetime:
        """The timestamp as an aware UTC datetime."""
        return _dt.datetime(1970, 1, 1, tzinfo=_UTC) + _dt.timedelta(milliseconds=self.timestamp)

    @property
    def hex(self) -> str:
        """16 lowercase hex digits."""
        return f"{self._value:016x}"

    @property
    def binary(self) -> str:
        """All 64 bits, most significant first."""
        return f"{self._value:0{TWITTER.total_bits}b}"

    # --- value-type protocol ------------------------------------------------

    def __int__(self) -> int:
        return self._value

    def __index__(self) -> int:
        return self._value

    def __str__(self) -> str:
        return str(self._value)

    def __repr__(self) -> str:
        return f"SnowId({self._value})"

    def __hash__(self) -> int:
        return hash((SnowId, self._value))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SnowId):
            return self._value == other._value
        return NotImplemented

    def __lt__(self, other: SnowId) -> bool:
        if isinstance(other, SnowId):
            return self._value < other._value
        return NotImplemented

    def __le__(self, other: SnowId) -> bool:
        if isinstance(other, SnowId):
            return self._value <= other._value
        return NotImplemented

    def __gt__(self, other: SnowId) -> bool:
        if isinstance(other, SnowId):
            return self._value > other._value
        return NotImplemented

    def __ge__(self, other: SnowId) -> bool:
        if isinstance(other, SnowId):
            return self._value >= other._value
        return NotImplemented

    def __setattr__(self, name: str, value: object) -> None:
        raise TypeError("SnowId is immutable")

    def __delattr__(self, name: str) -> None:
        raise TypeError("SnowId is immutable")

    def __reduce__(self) -> tuple[type[SnowId], tuple[int]]:
        return (SnowId, (self._value,))


def _blank(value: object) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


COMPOSE_FIELDS = ("timestamp", "datacenter", "machine", "sequence")
_CHECKS: dict[str, Callable[[int], int]] = {
    "timestamp": TWITTER.check_timestamp,
    "datacenter": TWITTER.check_datacenter,
    "machine": TWITTER.check_machine,
    "sequence": TWITTER.check_sequence,
}


def field_value(name: str, value: object, clock: Clock = SYSTEM_CLOCK) -> int:
    """One of the four compose fields from untrusted input, checked against its range.

    The one place for the seed's defaults: a blank timestamp (``None`` or white space)
    is now, a blank sequence is 0; datacenter and machine are required.
    """
    if _blank(value):
        if name == "timestamp":
            return clock.time_ms()
        if name == "sequence":
            return 0
    return _CHECKS[name](to_int(name, value))
