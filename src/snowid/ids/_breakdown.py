"""The breakdown of one id as data: its bit segments and the formula worked through.

The CLI and the web page only render this; neither shifts bits itself (nor does this
module: the shifts are ``Layout``'s). The steps follow the seed's worked example: the
delta, each shift, then the OR (a sum, since no shifted field overlaps another), then
the result. The id is decoded once, here; everything shown comes from that.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass

from snowid._isotime import iso_utc, utc_datetime
from snowid.ids._layout import TWITTER, Layout, Parts
from snowid.ids._snowid import SnowId

__all__ = ["Breakdown", "Segment", "Step", "breakdown", "segments"]


@dataclass(frozen=True, slots=True)
class Segment:
    """One block of the 64 bits: ``bits`` is its slice of the binary string."""

    name: str
    high_bit: int
    low_bit: int
    width: int
    value: int
    bits: str

    def as_dict(self) -> dict[str, object]:
        """The JSON object of one segment (in ``segments`` of the decode answers)."""
        return {
            "name": self.name,
            "high_bit": self.high_bit,
            "low_bit": self.low_bit,
            "width": self.width,
            "value": self.value,
            "bits": self.bits,
        }


def segments(layout: Layout, value: int) -> tuple[Segment, ...]:
    """``value``'s bits in ``layout`` as blocks, most significant first: the sign bit (when
    the layout has one; its value is 0), then each field with its raw value (the time as
    ticks since the epoch) and its slice of the binary string."""
    binary = layout.bits(value)
    top = layout.total_bits - 1
    # By position, not by name: a custom field may itself be called "sign".
    values = ((0,) if layout.signed else ()) + layout.split(value)
    return tuple(
        Segment(
            name=name,
            high_bit=high,
            low_bit=low,
            width=high - low + 1,
            value=field_value,
            bits=binary[top - high : top - low + 1],
        )
        for (name, high, low), field_value in zip(layout.spans(), values, strict=True)
    )


@dataclass(frozen=True, slots=True)
class Step:
    """One line of the formula: ``key`` names its label in the catalogs ("step.<key>")."""

    key: str
    expression: str
    result: int


@dataclass(frozen=True, slots=True)
class Breakdown:
    """One id taken apart: its fields, its 64 bits as segments and the formula, step by step."""

    id: SnowId
    segments: tuple[Segment, ...]
    steps: tuple[Step, ...]
    parts: Parts
    worker: int

    @property
    def datetime(self) -> _dt.datetime:
        """The timestamp as an aware UTC datetime."""
        return utc_datetime(self.parts.timestamp)

    @property
    def iso_utc(self) -> str:
        """ISO 8601 in UTC with milliseconds and ``Z``: ``2010-11-04T01:42:55.657Z``."""
        return iso_utc(self.datetime)

    def as_dict(self) -> dict[str, object]:
        """The JSON object the CLI's ``--json`` prints and the HTTP API returns.

        Every value that can pass 2**53 (the id, each step's result) is a decimal string:
        JavaScript's ``JSON.parse`` rounds larger numbers. The fields stay numbers (the
        41-bit delta and the Unix milliseconds are far below 2**53)."""
        parts = self.parts
        return {
            "id": str(self.id),
            "timestamp": parts.timestamp,
            "datacenter": parts.datacenter,
            "machine": parts.machine,
            "sequence": parts.sequence,
            "worker": self.worker,
            "datetime": self.iso_utc,
            "hex": self.id.hex,
            "binary": self.id.binary,
            "segments": [segment.as_dict() for segment in self.segments],
            "steps": [
                {"key": s.key, "expression": s.expression, "result": str(s.result)}
                for s in self.steps
            ],
        }


def _steps(snow_id: SnowId, parts: Parts) -> tuple[Step, ...]:
    shifted = tuple(
        Step(name, f"{value} << {shift}" if shift else f"{value}", result)
        for name, value, shift, result in TWITTER.shifted_fields(parts)
    )
    delta = parts.timestamp - TWITTER.epoch_ms
    return (
        Step("delta", f"{parts.timestamp} − {TWITTER.epoch_ms}", delta),
        *shifted,
        Step("combine", " + ".join(str(step.result) for step in shifted), int(snow_id)),
    )


def breakdown(snow_id: SnowId) -> Breakdown:
    """``snow_id`` taken apart, decoding it once."""
    parts = snow_id.parts
    return Breakdown(
        id=snow_id,
        segments=segments(TWITTER, int(snow_id)),
        steps=_steps(snow_id, parts),
        parts=parts,
        worker=TWITTER.worker_of(int(snow_id)),
    )
