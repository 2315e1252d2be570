"""snowid: Twitter Snowflake ids, exactly right and never a duplicate.

The public API; the logic lives in the private modules.
"""

from __future__ import annotations

from snowid._breakdown import Breakdown, Segment, Step, breakdown
from snowid._clock import Clock, SystemClock
from snowid._default import anext_id, configure, next_id, next_ids
from snowid._fence import Fence, Grant
from snowid._generator import Generator, GeneratorStats
from snowid._id import SnowId
from snowid._layout import TWITTER, TWITTER_EPOCH_MS, Layout, Parts

__all__ = [
    "TWITTER",
    "TWITTER_EPOCH_MS",
    "Breakdown",
    "Clock",
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
    "configure",
    "next_id",
    "next_ids",
]

__version__ = "0.1.0"
"""The package version: written only here (pyproject.toml reads it, via hatch)."""

# Reprs, docs and pickles name the public path (snowid.SnowId), not the private module.
for _public in (
    Breakdown,
    Clock,
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
