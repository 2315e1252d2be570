"""The id layouts by name, and what the CLI and the service say about them.

``get_layout`` takes a ``Layout``, a built-in's name (any case) or a custom spec
(``epoch=…,unit=…,fields=…``); ``builtin_layout`` takes only a built-in's exact name.
``layout_info`` and ``range_info`` are the JSON objects of ``GET /api/layouts`` and
``GET /api/range`` (and of ``snowid layouts --json`` and ``snowid range --json``).
``encode`` writes a number in one of ``snowid.BASES``, ``iso_ms`` a Unix ms time as they
write it (ISO 8601 UTC, ``Z``). The warning codes a ``Decoded``
may carry are ``BEFORE_FIRST_SNOWFLAKE`` and ``IN_THE_FUTURE``; ``MAX_EXACT_MS`` is the
last time (Unix ms) a JSON number holds exactly. See docs/layout.md.
"""

from __future__ import annotations

from snowid._decode import BEFORE_FIRST_SNOWFLAKE, IN_THE_FUTURE
from snowid._encoding import encode
from snowid._layout_check import MAX_EXACT_MS
from snowid._layouts import LAYOUTS, builtin_layout, get_layout, layout_info
from snowid._timerange import iso_ms, range_info

__all__ = [
    "BEFORE_FIRST_SNOWFLAKE",
    "IN_THE_FUTURE",
    "LAYOUTS",
    "MAX_EXACT_MS",
    "builtin_layout",
    "encode",
    "get_layout",
    "iso_ms",
    "layout_info",
    "range_info",
]
