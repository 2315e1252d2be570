"""snowid: Twitter Snowflake ids, exactly right and never a duplicate.

The public API; the logic lives in the private modules.
"""

from __future__ import annotations

from snowid._breakdown import Breakdown, Segment, Step, breakdown
from snowid._clock import SYSTEM_CLOCK, Clock, SystemClock
from snowid._decode import Decoded, compose, decode, readings
from snowid._default import anext_id, configure, next_id, next_ids
from snowid._encoding import BASES
from snowid._fence import Fence, Grant
from snowid._generator import Generator, GeneratorStats
from snowid._id import SnowId
from snowid._layout import TWITTER, TWITTER_EPOCH_MS, Layout, Parts
from snowid._layouts import DISCORD, INSTAGRAM, LAYOUTS, MASTODON, SONYFLAKE, SONYFLAKE_V2
from snowid._timerange import first_id_at, id_range, last_id_at

__all__ = [
    "BASES",
    "DISCORD",
    "INSTAGRAM",
    "LAYOUTS",
    "MASTODON",
    "SONYFLAKE",
    "SONYFLAKE_V2",
    "SYSTEM_CLOCK",
    "TWITTER",
    "TWITTER_EPOCH_MS",
    "Breakdown",
    "Clock",
    "Decoded",
    "Fence",
    "Generator",
    "GeneratorStats",
    "Grant",
    "Layout",
    "Parts",
    "Segment",
    "SnowId",
    "Step",
    "SystemClock",
    "anext_id",
    "breakdown",
    "compose",
    "configure",
    "decode",
    "first_id_at",
    "id_range",
    "last_id_at",
    "next_id",
    "next_ids",
    "readings",
]

__version__ = "0.1.0"
"""The package version: written only here (pyproject.toml reads it, via hatch)."""

# Reprs, docs and pickles name the public path (snowid.SnowId), not the private module.
for _public in (
    Breakdown,
    Clock,
    Decoded,
    Fence,
    Generator,
    GeneratorStats,
    Grant,
    Layout,
    Parts,
    Segment,
    SnowId,
    Step,
    SystemClock,
):
    _public.__module__ = __name__
del _public
