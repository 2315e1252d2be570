"""snowid: Twitter Snowflake ids, exactly right and never a duplicate.

The public API; the logic lives in the private modules.
"""

from __future__ import annotations

import snowid.integrations._hooks  # noqa: F401  (installs pydantic's hooks on SnowId)
from snowid._version import __version__ as __version__
from snowid.generate._fence import Fence, Grant
from snowid.generate._generator import Generator, GeneratorStats
from snowid.ids._bigint import BIGINT_WRAP_MS, as_bigint, bigint_ranges, from_bigint
from snowid.ids._breakdown import Breakdown, Decoded, Segment, Step
from snowid.ids._builtins import DISCORD, INSTAGRAM, LAYOUTS, MASTODON, SONYFLAKE, SONYFLAKE_V2
from snowid.ids._clock import SYSTEM_CLOCK, Clock, SystemClock
from snowid.ids._decode import breakdown, compose, decode, readings
from snowid.ids._encoding import BASES
from snowid.ids._layout import TWITTER, TWITTER_EPOCH_MS, Layout, Parts
from snowid.ids._snowid import SnowId
from snowid.ids._timerange import first_id_at, id_range, last_id_at
from snowid.process._default import anext_id, configure, next_id, next_ids

__all__ = [
    "BASES",
    "BIGINT_WRAP_MS",
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
    "as_bigint",
    "bigint_ranges",
    "breakdown",
    "compose",
    "configure",
    "decode",
    "first_id_at",
    "from_bigint",
    "id_range",
    "last_id_at",
    "next_id",
    "next_ids",
    "readings",
]


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
