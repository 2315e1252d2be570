"""The id layer: the value, its bits and layouts, the decoded id, readers and time ranges.

Standard library only; it imports nothing above it. The names below are what the
layers above (generate, lease, process, integrations, web, cli) may use: the value type,
the Twitter layout, the clock, the readers (strict ``to_int``, ``wrong_type`` for a
refused type, lenient ``to_snowid`` for programs), time ranges. Everything else here is
private to the layer. Users import from ``snowid``.

The readers of what a person types (the web page, the CLI, your own forms): ``to_int``
reads a whole number given as text (surrounding white space and ``_`` separators
allowed) and names the field in its error; ``read_compose_fields`` reads the four compose
fields (a blank timestamp is now, a blank sequence is 0), every bad field reported on its
own; ``read_id`` reads an id typed or pasted; ``read_pasted`` the ids in what is pasted
into a decoder (an id as written, or a tweet, Discord, Mastodon or Instagram link or a
Discord mention, the layout it names, and whether a bare number looks like a time in ms),
and ``choose_layout`` the layout to read them in (the link's; one named that contradicts
it is a LayoutConflictError); ``read_people_int``/``read_people_time`` a number or time as typed,
digit groups allowed (``1.288.834.975.657``); ``read_number`` a number as typed (decimal,
``0x…`` hex, or text in a named base) and ``parse_time`` a time as typed (Unix ms or ISO
8601); ``display_value`` shows a value back as snowid's messages do.

The layouts by name: ``get_layout`` takes a ``Layout``, a built-in's name (any case) or a
custom spec (``epoch=…,unit=…,fields=…``); ``builtin_layout`` takes only a built-in's
exact name. ``layout_info`` is the JSON object of ``GET /api/layouts``; ``id_range`` and
``bigint_ranges`` give a time window's ids (the second as a signed 64-bit column stores
them: ``as_bigint``/``from_bigint``). ``encode`` writes a number in one of
``snowid.BASES``, ``iso_ms`` a Unix ms time (ISO 8601 UTC, ``Z``); ``estimate_words`` the
headline and words of a pre-Snowflake tweet's ``Estimate``. ``BEFORE_FIRST_SNOWFLAKE``,
``IN_THE_FUTURE`` and ``INSTAGRAM_BIGINT`` are
the warning codes a ``Decoded`` may carry; ``MAX_EXACT_MS`` is the last time (Unix ms) a
JSON number holds exactly.
"""

from __future__ import annotations

from snowid._exceptions import display_value
from snowid._isotime import iso_ms
from snowid.ids._bigint import as_bigint, bigint_ranges, from_bigint
from snowid.ids._builtins import LAYOUTS, builtin_layout, get_layout, layout_info
from snowid.ids._choice import ChosenBy, LayoutConflictError, choose_layout
from snowid.ids._clock import SYSTEM_CLOCK, Clock, SystemClock, wall_lead_ms
from snowid.ids._convert import to_snowid
from snowid.ids._decode import BEFORE_FIRST_SNOWFLAKE, IN_THE_FUTURE, INSTAGRAM_BIGINT
from snowid.ids._encoding import encode, read_number
from snowid.ids._estimate import BASES as ESTIMATE_BASES
from snowid.ids._estimate import Estimate, estimate_words
from snowid.ids._fields import (
    COMPOSE_FIELDS,
    ComposeFields,
    first_error,
    read_compose_fields,
    read_field,
    read_id,
    read_people_int,
    read_people_time,
)
from snowid.ids._groups import GROUP_MARKS, DigitGroupError
from snowid.ids._layout import TWITTER, Layout, TwitterLayout
from snowid.ids._parse import parse_time, strict_int, to_int, wrong_type
from snowid.ids._pasted import (
    MS_TIME_FIRST,
    MS_TIME_LAST,
    InstagramShareLinkError,
    NotAnIdOrLinkError,
    Pasted,
    PastedId,
    read_pasted,
)
from snowid.ids._snowid import SnowId
from snowid.ids._timerange import id_range
from snowid.ids._validate import MAX_EXACT_MS

__all__ = [
    "BEFORE_FIRST_SNOWFLAKE",
    "COMPOSE_FIELDS",
    "ESTIMATE_BASES",
    "GROUP_MARKS",
    "INSTAGRAM_BIGINT",
    "IN_THE_FUTURE",
    "LAYOUTS",
    "MAX_EXACT_MS",
    "MS_TIME_FIRST",
    "MS_TIME_LAST",
    "SYSTEM_CLOCK",
    "TWITTER",
    "ChosenBy",
    "Clock",
    "ComposeFields",
    "DigitGroupError",
    "Estimate",
    "InstagramShareLinkError",
    "Layout",
    "LayoutConflictError",
    "NotAnIdOrLinkError",
    "Pasted",
    "PastedId",
    "SnowId",
    "SystemClock",
    "TwitterLayout",
    "as_bigint",
    "bigint_ranges",
    "builtin_layout",
    "choose_layout",
    "display_value",
    "encode",
    "estimate_words",
    "first_error",
    "from_bigint",
    "get_layout",
    "id_range",
    "iso_ms",
    "layout_info",
    "parse_time",
    "read_compose_fields",
    "read_field",
    "read_id",
    "read_number",
    "read_pasted",
    "read_people_int",
    "read_people_time",
    "strict_int",
    "to_int",
    "to_snowid",
    "wall_lead_ms",
    "wrong_type",
]
