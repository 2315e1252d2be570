"""snowid: Twitter Snowflake ids, exactly right and never a duplicate.

The public API; the logic lives in the private modules. The id layer's names load with
the package; the generator's (``Generator``, ``Fence``, ``next_id`` …) load on first use
(``_LAZY``, PEP 562), so that reading an id (``snowid decode``) does not pay for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import snowid.generate._stop
import snowid.integrations._hooks  # noqa: F401  (installs pydantic's hooks on SnowId)
from snowid._lazy import lazy_names as _lazy_names
from snowid._version import __version__ as __version__
from snowid.ids._anchors import Anchor, AnchorSource
from snowid.ids._bigint import BIGINT_WRAP_MS, as_bigint, bigint_ranges, from_bigint
from snowid.ids._breakdown import Breakdown, Decoded, Segment, Step
from snowid.ids._builtins import DISCORD, INSTAGRAM, LAYOUTS, MASTODON, SONYFLAKE, SONYFLAKE_V2
from snowid.ids._clock import SYSTEM_CLOCK, Clock, SystemClock
from snowid.ids._decode import breakdown, compose, decode, readings
from snowid.ids._encoding import BASES
from snowid.ids._estimate import Estimate
from snowid.ids._json import JSON_ENCODERS, JSONEncoder, json_default
from snowid.ids._layout import TWITTER, TWITTER_EPOCH_MS, Layout, Parts
from snowid.ids._snowid import SnowId
from snowid.ids._timerange import first_id_at, id_range, last_id_at

if TYPE_CHECKING:  # what mypy and IDEs see; at run time _LAZY loads these on first use
    from snowid.generate._clockback import ClockBack
    from snowid.generate._fence import Fence, Grant
    from snowid.generate._generator import Generator, GeneratorStats
    from snowid.process._default import anext_id, close, configure, next_id, next_ids, warm_up

# name -> the module that defines it, imported when the name is first read
_LAZY = {
    "ClockBack": "snowid.generate._clockback",
    "Fence": "snowid.generate._fence",
    "Generator": "snowid.generate._generator",
    "GeneratorStats": "snowid.generate._generator",
    "Grant": "snowid.generate._fence",
    "anext_id": "snowid.process._default",
    "close": "snowid.process._default",
    "configure": "snowid.process._default",
    "next_id": "snowid.process._default",
    "next_ids": "snowid.process._default",
    "warm_up": "snowid.process._default",
}

__all__ = [
    "BASES",
    "BIGINT_WRAP_MS",
    "DISCORD",
    "INSTAGRAM",
    "JSON_ENCODERS",
    "LAYOUTS",
    "MASTODON",
    "SONYFLAKE",
    "SONYFLAKE_V2",
    "SYSTEM_CLOCK",
    "TWITTER",
    "TWITTER_EPOCH_MS",
    "Anchor",
    "AnchorSource",
    "Breakdown",
    "Clock",
    "ClockBack",
    "Decoded",
    "Estimate",
    "Fence",
    "Generator",
    "GeneratorStats",
    "Grant",
    "JSONEncoder",
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
    "close",
    "compose",
    "configure",
    "decode",
    "first_id_at",
    "from_bigint",
    "id_range",
    "json_default",
    "last_id_at",
    "next_id",
    "next_ids",
    "readings",
    "warm_up",
]


# Reprs, docs and pickles name the public path (snowid.SnowId), not the private module.
# (The classes in _LAZY are named so where they are defined.)
for _public in (
    Anchor,
    AnchorSource,
    Breakdown,
    Clock,
    Decoded,
    Estimate,
    JSONEncoder,
    Layout,
    Parts,
    Segment,
    SnowId,
    Step,
    SystemClock,
):
    _public.__module__ = __name__
del _public


# PEP 562 hooks; hidden from mypy, for which an unknown name stays an error.
if not TYPE_CHECKING:
    __getattr__, __dir__ = _lazy_names(globals(), _LAZY)
