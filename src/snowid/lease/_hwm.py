"""The per-slot high-water mark: two checksummed records (A/B), written ahead of use.

File layout (little endian)::

    offset   0: record A (64 bytes)   magic "SNWH", version, seq, hwm_ms, epoch, crc32
    offset  64: record B (64 bytes)
    offset 128: holder info (384 bytes of JSON, NUL padded; for humans and `lease status`)

Each write goes to the record with the older ``seq``, then ``fdatasync``: a crash
mid-write can tear at most the record being written, and the other still holds the
previous mark. On read the newest valid record wins. A record of zeros (or a file too
short to hold it) was never written; a non-zero record that fails its checksum is
corrupt. Both corrupt (or one corrupt and the other never written) means the mark is
unknown: the slot is quarantined, never reused silently. A file with data but neither
record even starting with the magic was never a slot file (SlotEntryError, "foreign").

The write-ahead horizon (``HORIZON_MS``) bounds how far ahead of its clock any holder
persists a mark, and so how far ahead of the clock a holder may issue. Every claim
starts above ``now + HORIZON_MS`` (see ``file``): a claimant that finds the slot file
missing or replaced by an older copy still starts above anything a holder of the lost
file can issue. It is one fixed number, not a per-lease choice, so that no claimant
can use a smaller one than a holder.
"""

from __future__ import annotations

import json
import os
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass

from snowid._exceptions import SlotEntryError, SlotQuarantinedError

__all__ = [
    "HORIZON_MS",
    "RECORD_SIZE",
    "HwmFile",
    "HwmRecord",
    "decode_record",
    "encode_record",
]

HORIZON_MS = 250
"""The most a mark is ever written ahead of the clock reading it is based on (ms); also
what every claim adds to its clock for its start, so a claim waits about this long."""

MAGIC = b"SNWH"
VERSION = 1
RECORD_SIZE = 64
INFO_OFFSET = 2 * RECORD_SIZE
INFO_SIZE = 384
_BODY = struct.Struct("<4sHHQqQ")  # magic, version, reserved, seq, hwm_ms, epoch
_CRC = struct.Struct("<I")


@dataclass(frozen=True, slots=True)
class HwmRecord:
    seq: int
    hwm_ms: int
    epoch: int


def encode_record(record: HwmRecord) -> bytes:
    body = _BODY.pack(MAGIC, VERSION, 0, record.seq, record.hwm_ms, record.epoch)
    data = body + _CRC.pack(zlib.crc32(body))
    return data.ljust(RECORD_SIZE, b"\0")


def decode_record(data: bytes) -> HwmRecord | bool | None:
    """The record; None if never written (zeros or absent); False if corrupt."""
    if len(data) < RECORD_SIZE:
        return None if not data.strip(b"\0") else False
    if not data.strip(b"\0"):
        return None
    body = data[: _BODY.size]
    (crc,) = _CRC.unpack_from(data, _BODY.size)
    if zlib.crc32(body) != crc or data[_BODY.size + _CRC.size :].strip(b"\0"):
        return False
    magic, version, _reserved, seq, hwm_ms, epoch = _BODY.unpack(body)
    if magic != MAGIC or version != VERSION:
        return False
    return HwmRecord(seq, hwm_ms, epoch)


class HwmFile:
    """The A/B records of one open slot file (the caller holds its lock)."""

    def __init__(
        self, fd: int, path: str, before_sync: Callable[[HwmRecord], None] | None = None
    ) -> None:
        self.fd = fd
        self.path = path
        self.before_sync = before_sync
        self.current = HwmRecord(0, 0, 0)
        self._slots = [HwmRecord(0, 0, 0), HwmRecord(0, 0, 0)]

    def load(self) -> HwmRecord:
        """Read both records; the newest valid one (seq 0 for a fresh slot)."""
        raw = os.pread(self.fd, 2 * RECORD_SIZE, 0)
        decoded = [decode_record(raw[i * RECORD_SIZE : (i + 1) * RECORD_SIZE]) for i in (0, 1)]
        valid = [rec for rec in decoded if isinstance(rec, HwmRecord)]
        if not valid:
            if any(rec is False for rec in decoded):
                if not any(raw[i : i + len(MAGIC)] == MAGIC for i in (0, RECORD_SIZE)):
                    raise SlotEntryError(path=self.path, kind="foreign")
                raise SlotQuarantinedError(path=self.path)
            self._slots = [HwmRecord(0, 0, 0), HwmRecord(0, 0, 0)]
            self.current = HwmRecord(0, 0, 0)
            return self.current
        self._slots = [rec if isinstance(rec, HwmRecord) else HwmRecord(0, 0, 0) for rec in decoded]
        self.current = max(valid, key=lambda rec: rec.seq)
        return self.current

    def write(self, hwm_ms: int, epoch: int) -> HwmRecord:
        """Persist a new mark over the older record; returns once it is on disk."""
        record = HwmRecord(self.current.seq + 1, hwm_ms, epoch)
        index = 0 if self._slots[0].seq <= self._slots[1].seq else 1
        os.pwrite(self.fd, encode_record(record), index * RECORD_SIZE)
        if self.before_sync is not None:
            self.before_sync(record)
        os.fdatasync(self.fd)
        self._slots[index] = record
        self.current = record
        return record

    def write_info(self, info: dict[str, object]) -> None:
        data = json.dumps(info, separators=(",", ":")).encode()[:INFO_SIZE]
        os.pwrite(self.fd, data.ljust(INFO_SIZE, b"\0"), INFO_OFFSET)

    def read_info(self) -> dict[str, object]:
        raw = os.pread(self.fd, INFO_SIZE, INFO_OFFSET).rstrip(b"\0")
        try:
            value = json.loads(raw) if raw else {}
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}
