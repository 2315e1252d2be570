"""SnowId: one Twitter-layout Snowflake id as an immutable, hashable, ordered value."""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, Any

from snowid.ids._clock import SYSTEM_CLOCK
from snowid.ids._encoding import encode, read_number
from snowid.ids._layout import TWITTER, Parts
from snowid.ids._parse import digits_int, strict_int, wrong_type
from snowid.ids._timerange import first_id_at, last_id_at, unix_ms, utc_datetime

if TYPE_CHECKING:
    from snowid.ids._breakdown import Decoded

__all__ = ["SnowId"]


class SnowId:
    """One id, like ``uuid.UUID``: immutable, compared only with other SnowIds.

    >>> SnowId.from_parts(timestamp=1288834975657, datacenter=1, machine=1, sequence=0)
    SnowId(4194439168)
    """

    __slots__ = ("_value",)
    _value: int

    def __init__(self, value: int) -> None:
        """From an int (not a bool) and nothing else; ``SnowId.parse`` reads other forms."""
        number = strict_int("id", value, "SnowId()")
        object.__setattr__(self, "_value", TWITTER.check_id(number))

    # --- constructors, one per input form --------------------------------

    @classmethod
    def from_str(cls, text: str) -> SnowId:
        """From a string of decimal digits such as ``"4194439168"`` and nothing else."""
        return cls(digits_int("id", text, "SnowId.from_str()"))

    @classmethod
    def from_parts(
        cls,
        *,
        timestamp: int | None = None,
        datacenter: int,
        machine: int,
        sequence: int = 0,
    ) -> SnowId:
        """From the four fields, ints each; ``timestamp`` is Unix ms, ``None`` meaning now.

        Text typed by a person (blank fields, digits with spaces) is read by the page and
        the CLI (``snowid.ids._fields``), not here.
        """
        function = "SnowId.from_parts()"
        value = TWITTER.compose(
            SYSTEM_CLOCK.time_ms()
            if timestamp is None
            else strict_int("timestamp", timestamp, function),
            strict_int("datacenter", datacenter, function),
            strict_int("machine", machine, function),
            strict_int("sequence", sequence, function),
        )
        return cls._trusted(value)

    @classmethod
    def from_datetime(
        cls, when: _dt.datetime, *, datacenter: int, machine: int, sequence: int = 0
    ) -> SnowId:
        """From an aware datetime (naive ones are taken as UTC), truncated to the millisecond."""
        if not isinstance(when, _dt.datetime):
            raise wrong_type("datetime", when, "SnowId.from_datetime()", "datetime")
        return cls.from_parts(
            timestamp=unix_ms(when), datacenter=datacenter, machine=machine, sequence=sequence
        )

    @classmethod
    def parse(cls, value: object, base: str | None = None) -> SnowId:
        """The lenient entry, for untrusted input: a SnowId, an int, a decimal string
        (surrounding spaces and ``_`` separators allowed; a whole float too) or ``0x…`` hex;
        with ``base`` (one of ``snowid.BASES``: hex, base32, base36, base58, base62), text
        in that base."""
        if isinstance(value, SnowId) and base is None:
            return value
        return cls(read_number(value, "id", base))

    @classmethod
    def first_at(cls, when: _dt.datetime | int) -> SnowId:
        """The smallest id made at or after ``when`` (``snowid.first_id_at``)."""
        return cls._trusted(first_id_at(when))

    @classmethod
    def last_at(cls, when: _dt.datetime | int) -> SnowId:
        """The largest id made at or before ``when`` (``snowid.last_id_at``)."""
        return cls._trusted(last_id_at(when))

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
        return TWITTER.worker_of(self._value)

    @property
    def datetime(self) -> _dt.datetime:
        """The timestamp as an aware UTC datetime."""
        return utc_datetime(TWITTER.timestamp_of(self._value))

    @property
    def hex(self) -> str:
        """16 lowercase hex digits."""
        return encode(self._value, "hex")

    @property
    def binary(self) -> str:
        """All 64 bits, most significant first."""
        return TWITTER.bits(self._value)

    def format(self, base: str) -> str:
        """This id written in ``base``: hex (16 digits), base32 (Crockford), base36, base58
        (Bitcoin's alphabet) or base62 (0-9A-Za-z); ``SnowId.parse(text, base=…)`` reads it
        back."""
        return encode(self._value, base)

    def decode(self) -> Decoded:
        """``snowid.decode(self)``: the fields by name, the time and any warnings."""
        from snowid.ids._decode import decode

        return decode(self)

    # --- value-type protocol ------------------------------------------------

    def __int__(self) -> int:
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

    # --- pydantic v2 -----------------------------------------------------------
    # pydantic finds these on the class; the work lives in snowid.integrations.pydantic, imported
    # only when a model uses SnowId, so ``import snowid`` never loads pydantic.

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        from snowid.integrations.pydantic import snowid_core_schema

        return snowid_core_schema(source, handler)

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: Any, handler: Any) -> Any:
        from snowid.integrations.pydantic import snowid_json_schema

        return snowid_json_schema(schema, handler)
