"""SnowId: one Twitter-layout Snowflake id as an immutable, hashable, ordered value."""

from __future__ import annotations

import datetime as _dt
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from itertools import repeat
from typing import Any

from snowid._isotime import utc_datetime
from snowid.ids._clock import SYSTEM_CLOCK
from snowid.ids._encoding import encode, read_number
from snowid.ids._layout import TWITTER, Parts
from snowid.ids._parse import digits_int, strict_int, unix_ms, wrong_type
from snowid.ids._timerange import first_id_at, last_id_at

__all__ = ["SnowId"]


class SnowId:
    """One id, like ``uuid.UUID``: immutable and hashable, but a number to its users.

    It compares with ints exactly as an int would (``SnowId(5) == 5``, ``sid < 2**40``),
    hashes as its int (so ``{SnowId(5): a, 5: b}`` holds one key) and formats with int's
    specs (``f"{sid:,}"``). It never equals its str (equal objects must hash alike) nor a
    float, and it is no int subclass: no arithmetic, and ``json.dumps`` never writes it as
    a JSON number (``snowid.json_default`` writes a decimal string).

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
        return cls._from_int(value)

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
        return cls._from_int(first_id_at(when))

    @classmethod
    def last_at(cls, when: _dt.datetime | int) -> SnowId:
        """The largest id made at or before ``when`` (``snowid.last_id_at``)."""
        return cls._from_int(last_id_at(when))

    @classmethod
    def _from_int(cls, value: int) -> SnowId:
        """The one fast constructor, for an int already known to be a Twitter id (the
        generator's, a packed form, a checked row): no second check, as with
        ``uuid.UUID._from_int``, but an assertion for the bug of a wrong int."""
        assert 0 <= value <= _MAX_ID, f"not a Twitter id: {value!r}"
        made = _new(cls)
        _set_value(made, value)  # the slot's own setter: __setattr__ refuses every write
        return made

    @classmethod
    def _from_ints(cls, values: Sequence[int]) -> list[SnowId]:
        """``[_from_int(v) for v in values]`` at about half the CPU: the objects are made
        and filled by two C loops (``map``), with no Python call per id; for
        ``snowid.next_ids``. Same trust as ``_from_int``, asserted at both ends."""
        if values:
            assert values[0] >= 0, f"not a Twitter id: {values[0]!r}"
            assert values[-1] <= _MAX_ID, f"not a Twitter id: {values[-1]!r}"
        made = list(map(_new, repeat(cls, len(values))))
        _drain(map(_set_value, made, values))
        return made

    @classmethod
    def _reader(cls, otherwise: Callable[[Any], SnowId]) -> Callable[[Any], SnowId]:
        """A reader of the usual inputs of the lenient tier for programs, fused with the
        construction: a decimal string of at most 19 ASCII digits or an int, within range
        (checked here, so no assertion is needed); ``otherwise(value)`` decides anything
        else (a SnowId, every refusal: ``to_snowid``'s rules). For pydantic's validator,
        which runs once per field of every model: a second call per value cost 10 %."""

        # Everything the common cases touch is a local (a default argument): global or
        # closure look-ups cost a few percent here. Positional, not keyword-only:
        # keyword-only defaults are looked up in a dict per call.
        def read(  # noqa: PLR0917 - only ``value`` is ever passed
            value: Any,
            str: type[str] = str,
            int: type[int] = int,
            new: Callable[[type[SnowId]], SnowId] = _new,
            set_value: Callable[[SnowId, int], None] = _set_value,
            cls: type[SnowId] = cls,
            top: int = _MAX_ID,
            digits: int = _MAX_DIGITS,
            otherwise: Callable[[Any], SnowId] = otherwise,
        ) -> SnowId:
            if type(value) is str:
                if len(value) <= digits and value.isascii() and value.isdigit():
                    number = int(value)
                    if number <= top:
                        made = new(cls)
                        set_value(made, number)
                        return made
            elif type(value) is int and 0 <= value <= top:
                made = new(cls)
                set_value(made, value)
                return made
            return otherwise(value)

        return read

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

    # --- value-type protocol ------------------------------------------------

    def __int__(self) -> int:
        return self._value

    def __str__(self) -> str:
        return str(self._value)

    def __repr__(self) -> str:
        return f"SnowId({self._value})"

    def __hash__(self) -> int:
        return hash(self._value)  # as its int: sets and dict keys mix SnowIds and ints

    def __format__(self, spec: str) -> str:
        return format(self._value, spec)  # int's specs: ",", "_", "x", "d", widths

    # Ints only (a bool is an int, so compared as an int would be); a float, a str and
    # anything else get NotImplemented, so Python falls back to identity or a TypeError.
    def __eq__(self, other: object) -> bool:
        if isinstance(other, SnowId):
            return self._value == other._value
        if isinstance(other, int):
            return self._value == other
        return NotImplemented

    def __lt__(self, other: SnowId | int) -> bool:
        if isinstance(other, SnowId):
            return self._value < other._value
        if isinstance(other, int):
            return self._value < other
        return NotImplemented

    def __le__(self, other: SnowId | int) -> bool:
        if isinstance(other, SnowId):
            return self._value <= other._value
        if isinstance(other, int):
            return self._value <= other
        return NotImplemented

    def __gt__(self, other: SnowId | int) -> bool:
        if isinstance(other, SnowId):
            return self._value > other._value
        if isinstance(other, int):
            return self._value > other
        return NotImplemented

    def __ge__(self, other: SnowId | int) -> bool:
        if isinstance(other, SnowId):
            return self._value >= other._value
        if isinstance(other, int):
            return self._value >= other
        return NotImplemented

    def __setattr__(self, name: str, value: object) -> None:
        raise TypeError("SnowId is immutable")

    def __delattr__(self, name: str) -> None:
        raise TypeError("SnowId is immutable")

    def __reduce__(self) -> tuple[type[SnowId], tuple[int]]:
        return (SnowId, (self._value,))


_MAX_ID = TWITTER.max_id
_MAX_DIGITS = len(str(_MAX_ID))
_new = object.__new__
_set_value = SnowId.__dict__["_value"].__set__
_drain: Callable[[Iterable[None]], None] = deque[None](
    maxlen=0
).extend  # runs an iterator to its end in C, keeping nothing
