"""Id layouts: the only module that shifts or masks id bits.

A layout is an epoch, a time unit and the fields of a 64-bit id from the most
significant bit down, the first of them the time; bit 63 is either a sign bit (always
0) or the top of the time field. Every shift, mask and limit is worked out from the
widths when the layout is made, so no other module writes a shift or a mask. Twitter's::

    | 0 | timestamp - epoch (41) | datacenter (5) | machine (5) | sequence (12) |
     63  62                   22  21           17  16        12  11          0

    d  = t - 1288834974657
    id = (d << 22) | (c << 17) | (m << 12) | s

``TWITTER``, the one layout snowid generates, also carries the names the generator, the
leases and the breakdown use (``timestamp_shift``, ``max_datacenter``, ``worker`` …).
The other built-in layouts and the reading of layout names live in ``_builtins.py``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple

from snowid._exceptions import (
    IdTooLargeError,
    NegativeIdError,
    OutOfRangeError,
    SignBitSetError,
    TimestampAfterEndError,
    TimestampBeforeEpochError,
    UnknownFieldError,
)
from snowid.ids._validate import ID_BITS, check_layout, read_fields

TWITTER_EPOCH_MS = 1288834974657
"""2010-11-04T01:42:54.657Z in Unix milliseconds; fixed, never configurable for generating."""


class Parts(NamedTuple):
    """The four fields of one Twitter id; ``timestamp`` is Unix milliseconds, not the delta."""

    timestamp: int
    datacenter: int
    machine: int
    sequence: int


@dataclass(frozen=True, slots=True, kw_only=True, eq=False, repr=False)
class Layout:
    """One id layout: ``fields`` are (name, width) pairs from bit 63 down, the time first.

    ``Layout(name="mine", epoch_ms=1409529600000, unit_ms=10,
    fields=[("time", 39), ("sequence", 8), ("machine", 16)], signed=True)``; the widths add
    up to 63 when ``signed`` (bit 63 is a sign bit, always 0), else to 64.
    """

    name: str
    epoch_ms: int
    unit_ms: int = 1
    fields: tuple[tuple[str, int], ...] | list[tuple[str, int]]
    """Given as a list or a tuple; always held as a tuple of (name, width) tuples."""
    signed: bool = True

    time_field: str = field(init=False, repr=False)
    shifts: tuple[int, ...] = field(init=False, repr=False)
    """The shift of each field, in the order of ``fields``."""
    maxima: tuple[int, ...] = field(init=False, repr=False)
    """The largest value of each field (for the time: the largest tick count)."""
    max_delta: int = field(init=False, repr=False)
    max_timestamp: int = field(init=False, repr=False)
    """The last Unix ms an id holds (the start of the last tick)."""
    total_bits: int = field(init=False, repr=False)
    max_id: int = field(init=False, repr=False)
    low_mask: int = field(init=False, repr=False)
    """Every bit below the time field: OR it in for the last id of a tick."""

    def __post_init__(self) -> None:
        pairs = read_fields(self.fields)
        check_layout(self.name, self.epoch_ms, self.unit_ms, pairs, self.signed)
        widths = [width for _, width in pairs]
        shifts = tuple(sum(widths[i + 1 :]) for i in range(len(widths)))
        derived = {
            "fields": pairs,
            "time_field": pairs[0][0],
            "shifts": shifts,
            "maxima": tuple((1 << width) - 1 for width in widths),
            "max_delta": (1 << widths[0]) - 1,
            "max_timestamp": self.epoch_ms + ((1 << widths[0]) - 1) * self.unit_ms,
            "total_bits": ID_BITS,
            "max_id": (1 << (ID_BITS - 1 if self.signed else ID_BITS)) - 1,
            "low_mask": (1 << shifts[0]) - 1,
        }
        for key, value in derived.items():
            object.__setattr__(self, key, value)

    # --- identity: five values say everything ---------------------------------

    def _key(self) -> tuple[str, int, int, tuple[tuple[str, int], ...], bool]:
        return (self.name, self.epoch_ms, self.unit_ms, tuple(self.fields), self.signed)

    def __repr__(self) -> str:
        return (
            f"Layout(name={self.name!r}, epoch_ms={self.epoch_ms}, unit_ms={self.unit_ms},"
            f" fields={list(self.fields)!r}, signed={self.signed})"
        )

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Layout):
            return self._key() == other._key()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self) -> str | tuple[object, ...]:
        # A built-in pickles as its name in snowid (snowid.TWITTER), a custom one by value.
        constant = constant_name(self)
        if constant is not None:
            return constant
        return (Layout._restore, self._key())

    @staticmethod
    def _restore(
        name: str, epoch_ms: int, unit_ms: int, fields: tuple[tuple[str, int], ...], signed: bool
    ) -> Layout:
        return Layout(name=name, epoch_ms=epoch_ms, unit_ms=unit_ms, fields=fields, signed=signed)

    # --- what the fields are ---------------------------------------------------

    @property
    def field_names(self) -> tuple[str, ...]:
        """Every field's name except the time's, most significant first."""
        return tuple(name for name, _ in self.fields[1:])

    def field_max(self, name: str) -> int:
        """The largest value of field ``name`` (a KeyError when the layout has none)."""
        for (field_name, _), maximum in zip(self.fields, self.maxima, strict=True):
            if field_name == name:
                return maximum
        raise KeyError(name)

    # --- validation ---------------------------------------------------------

    def check_id(self, value: int, field_name: str = "id") -> int:
        """``value`` if it is an id of this layout, else the error naming its range."""
        name, top = self.name, self.max_id
        if value < 0:
            raise NegativeIdError(field=field_name, value=value, layout=name, max=top)
        if value >= 1 << self.total_bits:
            raise IdTooLargeError(
                field=field_name, value=value, layout=name, max=top, bits=self.total_bits
            )
        if value > self.max_id:
            raise SignBitSetError(
                field=field_name, value=value, layout=name, max=top, bit=self.total_bits - 1
            )
        return value

    def check_timestamp(self, timestamp: int) -> int:
        """``timestamp`` (Unix ms) if some id of this layout holds it (within its last tick)."""
        if not self.epoch_ms <= timestamp <= self.max_timestamp + self.unit_ms - 1:
            raise self.time_error(timestamp)
        return timestamp

    def check_field_names(self, fields: Mapping[str, Any]) -> None:
        """Refuse the first of ``fields`` this layout does not have, naming the ones it has."""
        for name, value in fields.items():
            if name not in self.field_names:
                raise UnknownFieldError(
                    field=name, value=value, layout=self.name, allowed=", ".join(self.field_names)
                )

    def time_error(self, timestamp: int) -> TimestampBeforeEpochError | TimestampAfterEndError:
        """The error for a Unix-ms ``timestamp`` outside this layout, naming its range."""
        error = TimestampBeforeEpochError if timestamp < self.epoch_ms else TimestampAfterEndError
        return error(
            field="timestamp",
            value=timestamp,
            min=self.epoch_ms,
            max=self.max_timestamp + self.unit_ms - 1,
            layout=self.name,
        )

    def check_field(self, name: str, value: int) -> int:
        return _check_range(name, value, self.field_max(name))

    # --- bit maths, generic ------------------------------------------------------

    def ticks(self, timestamp: int) -> int:
        """The time field's value for Unix ms ``timestamp`` (whole ticks since the epoch)."""
        return (timestamp - self.epoch_ms) // self.unit_ms

    def join(self, values: Sequence[int]) -> int:
        """The id of every field's raw value (the time as ticks), already checked."""
        result = 0
        for value, shift in zip(values, self.shifts, strict=True):
            result |= value << shift
        return result

    def split(self, value: int) -> tuple[int, ...]:
        """Every field's raw value of an id known valid (the time as ticks); no checks."""
        return tuple(
            (value >> shift) & maximum
            for shift, maximum in zip(self.shifts, self.maxima, strict=True)
        )

    def split_fast(self, values: Any) -> tuple[Any, ...]:
        """``split`` with the fewest operations, for a whole numpy array of valid ids
        (``snowid.bulk``; an int works too): the time is the top field, with nothing above
        it in a valid id, so it needs no mask; a field at bit 0 needs no shift. Each part is
        a new array (masked in place)."""
        parts = []
        for index, (shift, maximum) in enumerate(zip(self.shifts, self.maxima, strict=True)):
            if not shift:
                part = values & maximum
            else:
                part = values >> shift
                if index:
                    part &= maximum
            parts.append(part)
        return tuple(parts)

    def tick_ids(self, ticks: int) -> tuple[int, int]:
        """(first, last) id of one tick: every lower field 0, then every lower bit set."""
        first = ticks << self.shifts[0]
        return first, first | self.low_mask

    def spans(self) -> tuple[tuple[str, int, int], ...]:
        """(name, high bit, low bit) of each block, most significant first, sign included."""
        top = self.total_bits - 1
        blocks = [("sign", top, top)] if self.signed else []
        for (name, width), shift in zip(self.fields, self.shifts, strict=True):
            blocks.append((name, shift + width - 1, shift))
        return tuple(blocks)

    def shifted_fields(self, values: Sequence[int]) -> tuple[tuple[str, int, int, int], ...]:
        """(name, raw value, shift, value shifted into place) of each field, most significant
        first, from every field's raw value (the time as ticks, as ``split`` gives them):
        the worked formula's shifts. Their sum is the id (no two of them overlap)."""
        return tuple(
            (name, value, shift, value << shift)
            for (name, _), value, shift in zip(self.fields, values, self.shifts, strict=True)
        )

    def bits(self, value: int) -> str:
        """All 64 bits of ``value``, most significant first."""
        return f"{value:0{self.total_bits}b}"


def _check_range(field_name: str, value: int, maximum: int) -> int:
    if not 0 <= value <= maximum:
        raise OutOfRangeError(field=field_name, value=value, min=0, max=maximum)
    return value


@dataclass(frozen=True, slots=True, kw_only=True, eq=False, repr=False)
class TwitterLayout(Layout):
    """A Twitter-shaped layout (timestamp, datacenter, machine, sequence; 1 ms) with the
    names the generator, leases, breakdown and SQL functions use. ``TWITTER`` is one; other
    widths or epochs are for tests of code written against these names."""

    timestamp_bits: int = field(init=False, repr=False)
    datacenter_bits: int = field(init=False, repr=False)
    machine_bits: int = field(init=False, repr=False)
    sequence_bits: int = field(init=False, repr=False)
    timestamp_shift: int = field(init=False, repr=False)
    datacenter_shift: int = field(init=False, repr=False)
    machine_shift: int = field(init=False, repr=False)
    sequence_shift: int = field(init=False, repr=False)
    max_datacenter: int = field(init=False, repr=False)
    max_machine: int = field(init=False, repr=False)
    max_sequence: int = field(init=False, repr=False)
    max_worker: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        Layout.__post_init__(self)
        names = ("timestamp", "datacenter", "machine", "sequence")
        if tuple(name for name, _ in self.fields) != names or self.unit_ms != 1:
            raise ValueError(f"a TwitterLayout has the fields {names} and a 1 ms unit")
        for (name, width), shift, maximum in zip(
            self.fields, self.shifts, self.maxima, strict=True
        ):
            object.__setattr__(self, f"{name}_bits", width)
            object.__setattr__(self, f"{name}_shift", shift)
            if name != "timestamp":
                object.__setattr__(self, f"max_{name}", maximum)
        worker_bits = self.datacenter_bits + self.machine_bits
        object.__setattr__(self, "max_worker", (1 << worker_bits) - 1)

    # --- validation (field ranges; the values are already ints) -------------

    def check_datacenter(self, datacenter: int) -> int:
        return _check_range("datacenter", datacenter, self.max_datacenter)

    def check_machine(self, machine: int) -> int:
        return _check_range("machine", machine, self.max_machine)

    def check_sequence(self, sequence: int) -> int:
        return _check_range("sequence", sequence, self.max_sequence)

    def check_worker(self, worker: int) -> int:
        return _check_range("worker", worker, self.max_worker)

    # --- bit maths -----------------------------------------------------------

    def compose(self, timestamp: int, datacenter: int, machine: int, sequence: int) -> int:
        """Validate the four fields and pack them into one id."""
        return self.pack(
            self.check_timestamp(timestamp),
            self.check_datacenter(datacenter),
            self.check_machine(machine),
            self.check_sequence(sequence),
        )

    def pack(self, timestamp: int, datacenter: int, machine: int, sequence: int) -> int:
        """Four fields already checked (each once, by a reader that reports them one by
        one) packed into one id; no checks here."""
        return (
            ((timestamp - self.epoch_ms) << self.timestamp_shift)
            | (datacenter << self.datacenter_shift)
            | (machine << self.machine_shift)
            | (sequence << self.sequence_shift)
        )

    def decompose(self, value: int) -> Parts:
        """Validate an id and unpack its four fields."""
        self.check_id(value)
        return Parts(
            timestamp=(value >> self.timestamp_shift) + self.epoch_ms,
            datacenter=(value >> self.datacenter_shift) & self.max_datacenter,
            machine=(value >> self.machine_shift) & self.max_machine,
            sequence=(value >> self.sequence_shift) & self.max_sequence,
        )

    def worker(self, datacenter: int, machine: int) -> int:
        """The 10-bit worker number: datacenter and machine side by side."""
        return (self.check_datacenter(datacenter) << self.machine_bits) | self.check_machine(
            machine
        )

    def split_worker(self, worker: int) -> tuple[int, int]:
        """(datacenter, machine) of a worker number."""
        self.check_worker(worker)
        return worker >> self.machine_bits, worker & self.max_machine

    def worker_blocks(self, block_bits: int) -> int:
        """How many blocks the worker field splits into when its top ``block_bits`` bits
        number the block (``k8s:`` pods; ``datacenter_bits``: the datacenters)."""
        return 1 << block_bits

    def worker_block(self, block_bits: int, block: int) -> tuple[int, int]:
        """(first, last) worker of block ``block`` when the top ``block_bits`` bits of the
        worker field number blocks (with ``datacenter_bits``: that datacenter's machines)."""
        low = self.datacenter_bits + self.machine_bits - block_bits
        first = block << low
        return first, first + (1 << low) - 1

    def worker_bits(self, datacenter: int, machine: int) -> int:
        """Datacenter and machine already shifted into place, for the generator's hot path."""
        return self.worker(datacenter, machine) << self.machine_shift

    def millisecond_ids(self, timestamp: int, worker_bits: int) -> tuple[int, int]:
        """(first, last) id of one worker's millisecond: sequence 0 and the last sequence.

        No checks (the generator's per-millisecond step; its hot path only counts up).
        """
        first = ((timestamp - self.epoch_ms) << self.timestamp_shift) | worker_bits
        return first, first | self.max_sequence

    def timestamp_of(self, value: int) -> int:
        """The Unix-ms timestamp of an id known valid (no checks; for hot paths)."""
        return (value >> self.timestamp_shift) + self.epoch_ms

    def worker_of(self, value: int) -> int:
        """The 10-bit worker (datacenter and machine) of an id known valid (no checks)."""
        return (value >> self.machine_shift) & self.max_worker


TwitterLayout.__module__ = "snowid"  # pickles name snowid.TWITTER, never this class

# Twitter's own Snowflake: 41 bits of milliseconds since its epoch, 5 + 5 bits of worker
# identity, 12 of sequence, under a sign bit. The widths and the epoch are in IdWorker.scala
# of twitter-archive/snowflake (tag snowflake-2010): twepoch = 1288834974657L,
# workerIdBits = 5, datacenterIdBits = 5, sequenceBits = 12.
TWITTER: Final = TwitterLayout(
    name="twitter",
    epoch_ms=TWITTER_EPOCH_MS,
    unit_ms=1,
    fields=(("timestamp", 41), ("datacenter", 5), ("machine", 5), ("sequence", 12)),
    signed=True,
)
"""The one layout snowid generates: Twitter's widths and epoch."""


_CONSTANTS: Final[dict[int, str]] = {}
"""id() of each built-in layout -> its name in the snowid package. The catalogue of
built-ins registers them here (``register_builtin``), so a Layout pickles by name without
this module importing the catalogue. Built-ins live as long as the process: no id is reused."""


def register_builtin(layout: Layout) -> None:
    """Make ``layout`` a built-in: it pickles as ``snowid.<NAME>`` (``"sonyflake-v2"``:
    ``SONYFLAKE_V2``)."""
    _CONSTANTS[id(layout)] = layout.name.upper().replace("-", "_")


def constant_name(layout: Layout) -> str | None:
    """The name of ``layout`` in the snowid package (``"TWITTER"``) when it is a built-in."""
    return _CONSTANTS.get(id(layout))
