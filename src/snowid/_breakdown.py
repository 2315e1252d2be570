"""The breakdown of one id as data: its bit segments and the formula worked through.

The CLI and the web page only render this; neither shifts bits itself. The steps
follow the seed's worked example: the delta, each shift, then the OR (a sum, since
no shifted field overlaps another), then the result.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass

from snowid._id import SnowId
from snowid._layout import TWITTER

__all__ = ["Breakdown", "Segment", "Step", "breakdown", "iso_utc", "to_json"]


@dataclass(frozen=True, slots=True)
class Segment:
    """One block of the 64 bits: ``bits`` is its slice of the binary string."""

    name: str
    high_bit: int
    low_bit: int
    width: int
    value: int
    bits: str


@dataclass(frozen=True, slots=True)
class Step:
    """One line of the formula: ``key`` names its label in the catalogs ("step.<key>")."""

    key: str
    expression: str
    result: int


@dataclass(frozen=True, slots=True)
class Breakdown:
    id: SnowId
    segments: tuple[Segment, ...]
    steps: tuple[Step, ...]


def segments(snow_id: SnowId) -> tuple[Segment, ...]:
    binary = snow_id.binary
    top = TWITTER.total_bits - 1
    parts = snow_id.parts
    values = {
        "sign": 0,
        "timestamp": parts.timestamp - TWITTER.epoch_ms,
        "datacenter": parts.datacenter,
        "machine": parts.machine,
        "sequence": parts.sequence,
    }
    return tuple(
        Segment(
            name=name,
            high_bit=high,
            low_bit=low,
            width=high - low + 1,
            value=values[name],
            bits=binary[top - high : top - low + 1],
        )
        for name, high, low in TWITTER.segment_spans()
    )


def steps(snow_id: SnowId) -> tuple[Step, ...]:
    parts = snow_id.parts
    delta = parts.timestamp - TWITTER.epoch_ms
    shifted = (
        Step(
            "timestamp", f"{delta} << {TWITTER.timestamp_shift}", delta << TWITTER.timestamp_shift
        ),
        Step(
            "datacenter",
            f"{parts.datacenter} << {TWITTER.datacenter_shift}",
            parts.datacenter << TWITTER.datacenter_shift,
        ),
        Step(
            "machine",
            f"{parts.machine} << {TWITTER.machine_shift}",
            parts.machine << TWITTER.machine_shift,
        ),
        Step("sequence", f"{parts.sequence}", parts.sequence),
    )
    return (
        Step("delta", f"{parts.timestamp} − {TWITTER.epoch_ms}", delta),
        *shifted,
        Step("combine", " + ".join(str(step.result) for step in shifted), int(snow_id)),
    )


def breakdown(snow_id: SnowId) -> Breakdown:
    return Breakdown(id=snow_id, segments=segments(snow_id), steps=steps(snow_id))


def iso_utc(snow_id: SnowId) -> str:
    """ISO 8601 in UTC with milliseconds and ``Z``: ``2010-11-04T01:42:55.657Z``."""
    return snow_id.datetime.astimezone(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def to_json(snow_id: SnowId) -> dict[str, object]:
    """The JSON object the CLI's ``--json`` prints and the HTTP API returns."""
    parts = snow_id.parts
    return {
        "id": str(snow_id),
        "timestamp": parts.timestamp,
        "datacenter": parts.datacenter,
        "machine": parts.machine,
        "sequence": parts.sequence,
        "worker": snow_id.worker,
        "datetime": iso_utc(snow_id),
        "hex": snow_id.hex,
        "binary": snow_id.binary,
        "segments": [
            {
                "name": s.name,
                "high_bit": s.high_bit,
                "low_bit": s.low_bit,
                "width": s.width,
                "value": s.value,
                "bits": s.bits,
            }
            for s in segments(snow_id)
        ],
        "steps": [
            {"key": s.key, "expression": s.expression, "result": s.result} for s in steps(snow_id)
        ],
    }
