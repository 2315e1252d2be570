"""The built-in layouts, each defined from its primary source, and reading a layout's name.

Field order matters and was checked against each source's own code: several Sonyflake
ports order the fields differently from Sony's own (time, sequence, machine).
"""

from __future__ import annotations

from typing import Final

from snowid._exceptions import InvalidLayoutError
from snowid.ids._layout import TWITTER, Layout, constant_name, register_builtin
from snowid.ids._parse import wrong_type

__all__ = [
    "DISCORD",
    "INSTAGRAM",
    "LAYOUTS",
    "MASTODON",
    "SONYFLAKE",
    "SONYFLAKE_V2",
    "SOURCES",
    "builtin_layout",
    "get_layout",
    "layout_info",
    "parse_layout_spec",
]

# Discord's developer docs, "Snowflakes" (discord.com/developers/docs/reference#snowflakes):
# milliseconds since the Discord epoch 1420070400000 (2015-01-01) in bits 63..22, internal
# worker id 21..17, internal process id 16..12, increment 11..0. Discord documents its ids
# as unsigned 64-bit integers (sent as strings), so bit 63 is the top of the time.
DISCORD: Final = Layout(
    name="discord",
    epoch_ms=1420070400000,
    unit_ms=1,
    fields=[("timestamp", 42), ("worker", 5), ("process", 5), ("increment", 12)],
    signed=False,
)

# Instagram Engineering, "Sharding & IDs at Instagram" (2012): 41 bits of milliseconds,
# 13 bits of logical shard id, 10 bits of a per-table sequence modulo 1024; its PL/pgSQL
# next_id() has our_epoch = 1314220021721 and (now_millis - our_epoch) << 23, so the time
# fills bits 63..23 (no sign bit). The post's prose example says the epoch is 2011-01-01
# but its numbers, like its code, fit 1314220021721 (2011-08-24T21:07:01.721Z).
INSTAGRAM: Final = Layout(
    name="instagram",
    epoch_ms=1314220021721,
    unit_ms=1,
    fields=[("timestamp", 41), ("shard", 13), ("sequence", 10)],
    signed=False,
)

# sony/sonyflake, sonyflake.go: BitLenTime = 39 (units of 10 ms), BitLenSequence = 8,
# BitLenMachineID = 63 - 39 - 8 = 16; the default StartTime is 2014-09-01 00:00:00 UTC;
# toID() packs time << (8 + 16) | sequence << 16 | machine, bit 63 unused.
SONYFLAKE: Final = Layout(
    name="sonyflake",
    epoch_ms=1409529600000,
    unit_ms=10,
    fields=[("time", 39), ("sequence", 8), ("machine", 16)],
    signed=True,
)

# sony/sonyflake, v2/sonyflake.go: the same default widths (BitsSequence 8, BitsMachineID
# 16, time 63 - 8 - 16 = 39) and TimeUnit (10 ms), the same order in toID() and Compose(),
# and a new default StartTime, 2025-01-01 00:00:00 UTC. (v2 lets each deployment change
# the widths, unit and start: such ids need a custom layout.)
SONYFLAKE_V2: Final = Layout(
    name="sonyflake-v2",
    epoch_ms=1735689600000,
    unit_ms=10,
    fields=[("time", 39), ("sequence", 8), ("machine", 16)],
    signed=True,
)

# mastodon/mastodon, lib/mastodon/snowflake.rb: timestamp_id() shifts Unix milliseconds
# left by 16 and ORs in two bytes that are not a counter: the first two bytes of an MD5 of
# the table name, a secret salt and the time, plus the table's sequence, modulo 2**16.
# The low field is named "sequence" here but only tells ids of one millisecond apart.
MASTODON: Final = Layout(
    name="mastodon",
    epoch_ms=0,
    unit_ms=1,
    fields=[("timestamp", 48), ("sequence", 16)],
    signed=False,
)

LAYOUTS: Final[tuple[Layout, ...]] = (
    TWITTER,
    DISCORD,
    INSTAGRAM,
    SONYFLAKE,
    SONYFLAKE_V2,
    MASTODON,
)
"""The built-in layouts in the order snowid lists and tries them: Twitter first."""

SOURCES: Final[dict[str, str]] = {
    "twitter": "https://github.com/twitter-archive/snowflake/blob/snowflake-2010/src/main/scala/com/twitter/service/snowflake/IdWorker.scala",
    "discord": "https://discord.com/developers/docs/reference#snowflakes",
    "instagram": "https://instagram-engineering.com/sharding-ids-at-instagram-1cf5a71e5a5c",
    "sonyflake": "https://github.com/sony/sonyflake/blob/master/sonyflake.go",
    "sonyflake-v2": "https://github.com/sony/sonyflake/blob/master/v2/sonyflake.go",
    "mastodon": "https://github.com/mastodon/mastodon/blob/main/lib/mastodon/snowflake.rb",
}
"""Where each built-in layout is defined (its primary source)."""

_BY_NAME: Final = {layout.name: layout for layout in LAYOUTS}
for _builtin in LAYOUTS:
    register_builtin(_builtin)
del _builtin
_MAX_SPEC = 300  # a spec longer than this is not a layout anyone typed


def get_layout(layout: Layout | str) -> Layout:
    """A Layout as is; a built-in's name (any case); or a spec ``epoch=…,unit=…,fields=…``."""
    if isinstance(layout, Layout):
        return layout
    if not isinstance(layout, str):
        raise wrong_type("layout", layout, "layout=", "Layout or str")
    text = layout.strip()
    found = _BY_NAME.get(text.lower())
    if found is not None:
        return found
    if "=" in text:
        return parse_layout_spec(text)
    raise InvalidLayoutError(value=layout, reason="unknown", allowed=", ".join(_BY_NAME))


def builtin_layout(name: str) -> Layout:
    """A built-in layout by its exact name (the HTTP API's strict door), else the error
    listing them."""
    found = _BY_NAME.get(name)
    if found is None:
        # Not "unknown": that message offers a custom layout, which this door refuses.
        raise InvalidLayoutError(value=name, reason="unknown_builtin", allowed=", ".join(_BY_NAME))
    return found


def layout_info(layout: Layout, lang: str = "en") -> dict[str, object]:
    """The JSON object describing ``layout`` (``GET /api/layouts``, ``snowid layouts --json``);
    ``note`` says in ``lang`` what is special about a built-in (None for a custom one)."""
    from snowid._isotime import iso_ms
    from snowid.i18n import translate, translate_layout

    builtin = constant_name(layout) is not None

    return {
        "name": layout.name,
        "label": translate_layout(layout.name),
        "epoch_ms": layout.epoch_ms,
        "epoch": iso_ms(layout.epoch_ms),
        "unit_ms": layout.unit_ms,
        "signed": layout.signed,
        "fields": [
            {"name": name, "width": width, "shift": shift, "max": maximum}
            for (name, width), shift, maximum in zip(
                layout.fields, layout.shifts, layout.maxima, strict=True
            )
        ],
        "max_id": str(layout.max_id),
        "last_timestamp": layout.max_timestamp,
        "last_datetime": iso_ms(layout.max_timestamp),
        "generates": layout is TWITTER,
        "source": SOURCES[layout.name] if builtin else None,
        "note": translate(f"layout_note.{layout.name}", lang) if builtin else None,
    }


def parse_layout_spec(spec: str, name: str = "custom") -> Layout:
    """``epoch=1409529600000,unit=10,fields=time:39,sequence:8,machine:16[,signed=no]``.

    ``epoch`` is Unix ms (or an ISO 8601 date and time); ``unit`` defaults to 1 ms;
    ``signed`` (yes/no) defaults to yes when the widths add up to 63 and no when they
    add up to 64; ``name`` may also be given. Everything after ``fields=`` up to the
    next ``key=`` is the field list.
    """
    if len(spec) > _MAX_SPEC:
        raise InvalidLayoutError(value=spec, reason="syntax")
    options = _split_spec(spec)
    if options is None or "fields" not in options or "epoch" not in options:
        raise InvalidLayoutError(value=spec, reason="syntax")
    fields = _read_field_list(options["fields"])
    epoch = _read_epoch(options["epoch"])
    unit_text = options.get("unit", "1").strip().lower().removesuffix("ms")
    signed_text = options.get("signed", "").strip().lower()
    if fields is None or epoch is None or not unit_text.isdigit() or len(unit_text) > 12:
        raise InvalidLayoutError(value=spec, reason="syntax")
    if signed_text in ("", "auto"):
        signed = sum(width for _, width in fields) != 64
    elif signed_text in ("yes", "true", "1", "on"):
        signed = True
    elif signed_text in ("no", "false", "0", "off"):
        signed = False
    else:
        raise InvalidLayoutError(value=spec, reason="syntax")
    try:
        return Layout(
            name=options.get("name", name).strip() or name,
            epoch_ms=epoch,
            unit_ms=int(unit_text),
            fields=fields,
            signed=signed,
        )
    except InvalidLayoutError as error:
        error.value = spec  # the message quotes what the user typed
        raise


_SPEC_KEYS: Final = ("name", "epoch", "unit", "fields", "signed")


def _split_spec(spec: str) -> dict[str, str] | None:
    """``key=value`` parts split at commas; a part without ``=`` continues the previous value
    (the field list has commas of its own). None when a key is unknown or repeated."""
    options: dict[str, str] = {}
    key = None
    for part in spec.split(","):
        head, sep, rest = part.partition("=")
        if sep:
            key = head.strip().lower()
            if key not in _SPEC_KEYS or key in options:
                return None
            options[key] = rest
        elif key is None:
            return None
        else:
            options[key] += "," + part
    return options


def _read_field_list(text: str) -> list[tuple[str, int]] | None:
    fields = []
    for item in text.split(","):
        name, sep, width = item.strip().partition(":")
        width = width.strip()
        if not sep or not width.isascii() or not width.isdigit() or len(width) > 3:
            return None
        fields.append((name.strip(), int(width)))
    return fields


def _read_epoch(text: str) -> int | None:
    from snowid._exceptions import InvalidDateTimeError
    from snowid.ids._parse import parse_time  # ISO 8601 or Unix ms, read once

    try:
        return parse_time("epoch", text)
    except InvalidDateTimeError:
        return None
