"""The bit layout of a Twitter Snowflake id: the only module that shifts or masks id bits.

::

    | 0 | timestamp - epoch (41) | datacenter (5) | machine (5) | sequence (12) |
     63  62                   22  21           17  16        12  11          0

    d  = t - 1288834974657
    id = (d << 22) | (c << 17) | (m << 12) | s

Every shift and mask is derived from the field widths, so the numbers 22, 17 and 12
appear nowhere as literals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from snowid.errors import (
    IdTooLargeError,
    NegativeIdError,
    OutOfRangeError,
    SignBitSetError,
    TimestampAfterEndError,
    TimestampBeforeEpochError,
)

TWITTER_EPOCH_MS = 1288834974657
"""2010-11-04T01:42:54.657Z in Unix milliseconds; fixed, never configurable for generating."""


class Parts(NamedTuple):
    """The four fields of one id; ``timestamp`` is Unix milliseconds, not the delta."""

    timestamp: int
    datacenter: int
    machine: int
    sequence: int


@dataclass(frozen=True, slots=True)
class Layout:
    """Field widths and epoch; everything else is derived."""

    name: str
    epoch_ms: int
    timestamp_bits: int = 41
    datacenter_bits: int = 5
    machine_bits: int = 5
    sequence_bits: int = 12

    sequence_shift: int = field(init=False)
    machine_shift: int = field(init=False)
    datacenter_shift: int = field(init=False)
    timestamp_shift: int = field(init=False)
    max_sequence: int = field(init=False)
    max_machine: int = field(init=False)
    max_datacenter: int = field(init=False)
    max_worker: int = field(init=False)
    max_delta: int = field(init=False)
    max_timestamp: int = field(init=False)
    total_bits: int = field(init=False)
    max_id: int = field(init=False)

    def __post_init__(self) -> None:
        derived = {
            "sequence_shift": 0,
            "machine_shift": self.sequence_bits,
            "datacenter_shift": self.sequence_bits + self.machine_bits,
            "timestamp_shift": self.sequence_bits + self.machine_bits + self.datacenter_bits,
            "max_sequence": (1 << self.sequence_bits) - 1,
            "max_machine": (1 << self.machine_bits) - 1,
            "max_datacenter": (1 << self.datacenter_bits) - 1,
            "max_worker": (1 << (self.datacenter_bits + self.machine_bits)) - 1,
            "max_delta": (1 << self.timestamp_bits) - 1,
            "max_timestamp": self.epoch_ms + (1 << self.timestamp_bits) - 1,
            "total_bits": 1
            + self.timestamp_bits
            + self.datacenter_bits
            + self.machine_bits
            + self.sequence_bits,
        }
        derived["max_id"] = (1 << (derived["total_bits"] - 1)) - 1
        for name, value in derived.items():
            object.__setattr__(self, name, value)

    # --- validation (field ranges; the values are already ints) -------------

    def check_timestamp(self, timestamp: int) -> int:
        if timestamp < self.epoch_ms:
            raise TimestampBeforeEpochError(
                field="timestamp", value=timestamp, min=self.epoch_ms, max=self.max_timestamp
            )
        if timestamp > self.max_timestamp:
            raise TimestampAfterEndError(
                field="timestamp", value=timestamp, min=self.epoch_ms, max=self.max_timestamp
            )
        return timestamp

    def check_datacenter(self, datacenter: int) -> int:
        return _check_range("datacenter", datacenter, self.max_datacenter)

    def check_machine(self, machine: int) -> int:
        return _check_range("machine", machine, self.max_machine)

    def check_sequence(self, sequence: int) -> int:
        return _check_range("sequence", sequence, self.max_sequence)

    def check_worker(self, worker: int) -> int:
        return _check_range("worker", worker, self.max_worker)

    def check_id(self, value: int, field_name: str = "id") -> int:
        if value < 0:
            raise NegativeIdError(field=field_name, value=value)
        if value >= 1 << self.total_bits:
            raise IdTooLargeError(field=field_name, value=value, bits=self.total_bits)
        if value > self.max_id:
            raise SignBitSetError(field=field_name, value=value, bit=self.total_bits - 1)
        return value

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

    def worker_ms(self, value: int) -> tuple[int, int]:
        """(worker, Unix-ms timestamp) of an id known valid: what two writers must never share."""
        return (value >> self.machine_shift) & self.max_worker, (
            value >> self.timestamp_shift
        ) + self.epoch_ms

    def shifted_fields(self, parts: Parts) -> tuple[tuple[str, int, int, int], ...]:
        """(name, value, shift, value shifted into place) of each field, most significant
        first; the timestamp's value is its delta from the epoch. Their sum is the id."""
        delta = parts.timestamp - self.epoch_ms
        return (
            ("timestamp", delta, self.timestamp_shift, delta << self.timestamp_shift),
            (
                "datacenter",
                parts.datacenter,
                self.datacenter_shift,
                parts.datacenter << self.datacenter_shift,
            ),
            ("machine", parts.machine, self.machine_shift, parts.machine << self.machine_shift),
            (
                "sequence",
                parts.sequence,
                self.sequence_shift,
                parts.sequence << self.sequence_shift,
            ),
        )

    def segment_spans(self) -> tuple[tuple[str, int, int], ...]:
        """(name, high bit, low bit) of each block, most significant first, sign included."""
        top = self.total_bits - 1
        return (
            ("sign", top, top),
            ("timestamp", top - 1, self.timestamp_shift),
            ("datacenter", self.timestamp_shift - 1, self.datacenter_shift),
            ("machine", self.datacenter_shift - 1, self.machine_shift),
            ("sequence", self.machine_shift - 1, self.sequence_shift),
        )


def _check_range(field_name: str, value: int, maximum: int) -> int:
    if not 0 <= value <= maximum:
        raise OutOfRangeError(field=field_name, value=value, min=0, max=maximum)
    return value


TWITTER = Layout(name="twitter", epoch_ms=TWITTER_EPOCH_MS)
"""The one layout snowid generates: Twitter's widths and epoch."""
