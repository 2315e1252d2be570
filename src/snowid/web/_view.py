"""What the page shows of one id, or of a list of ids, as strings ready for the templates.

The numbers are the library's (the Twitter formula is the core's ``breakdown``, the bit
blocks of every layout its ``spans`` and ``split``); this module only words them in the
page's language: bit strings grouped for reading, the formula as the seed's three steps,
times with a relative time beside them, and the values the copy buttons copy. What
every result shows of an id, in any layout, is built once (``id_view``). The decoder reads what is typed with the library's one
reader (``snowid.decode``: decimal or ``0x`` hex, in the chosen layout); the views of
other layouts, readings and warnings are in ``_decoded_view.py``.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import cycle
from typing import Any
from urllib.parse import urlencode

from snowid import (
    SYSTEM_CLOCK,
    TWITTER,
    Clock,
    Decoded,
    Layout,
    Segment,
    SnowId,
    Step,
    breakdown,
    decode,
)
from snowid._exceptions import InvalidValueError
from snowid.i18n import catalog, translate
from snowid.ids import iso_ms
from snowid.web._forms import localized_message

__all__ = [
    "MAX_IDS",
    "IdList",
    "bit_groups",
    "decode_href",
    "field_label",
    "id_lines",
    "id_view",
    "input_value",
    "layout_blocks",
    "read_page_ids",
    "relative_time",
    "result_view",
    "table_view",
    "time_view",
    "translator",
    "utc_text",
]

MAX_IDS = 100  # ids the decoder takes at once, one per line
# The colours of the blocks below the time, in order (the Twitter fields' three hues).
_TONES = ("datacenter", "machine", "sequence")
_DAY = 86_400.0
# Largest unit first; the same table is in static/app.js, so the server's fallback and
# the browser's Intl.RelativeTimeFormat pick the same unit (tests/web/test_view.py checks).
_UNITS = (
    ("year", 365.2425 * _DAY),
    ("month", 30.436875 * _DAY),
    ("day", _DAY),
    ("hour", 3600.0),
    ("minute", 60.0),
    ("second", 1.0),
)


def translator(lang: str) -> Callable[..., str]:
    def t(key: str, /, **params: object) -> str:
        return translate(key, lang, **params)

    return t


def bit_groups(bits: str, size: int = 4) -> list[str]:
    """``bits`` cut into groups of ``size`` counted from the right (the least significant
    end), as binary is usually written; strings of 8 bits or fewer stay whole."""
    if len(bits) <= 2 * size:
        return [bits]
    head = len(bits) % size
    return ([bits[:head]] if head else []) + [
        bits[i : i + size] for i in range(head, len(bits), size)
    ]


def relative_time(ms: int, now_ms: int, lang: str) -> str:
    """``ms`` seen from ``now_ms`` in words ("3 years ago", "in 54 years"), in ``lang``:
    the server's stand-in for what Intl.RelativeTimeFormat says in the browser."""
    seconds = (ms - now_ms) / 1000
    size = abs(seconds)
    if size < 1:
        return translate("web.rel.now", lang)
    unit, length = next((u, s) for u, s in _UNITS if size >= s)
    count = int(size // length)
    side = "past" if seconds < 0 else "future"
    return translate(f"web.rel.{side}.{unit}{'_one' if count == 1 else ''}", lang, n=count)


def field_label(name: str, lang: str) -> str:
    """A layout field's name as the page shows it ("increment" -> "Increment"); a custom
    layout's field keeps its own name."""
    return catalog(lang).get(f"web.field.{name}") or catalog("en").get(f"web.field.{name}", name)


def decode_href(number: int, layout: Layout, lang: str) -> str:
    """The decoder's address for ``number`` in ``layout`` (Twitter, the default, unnamed)."""
    query: dict[str, str | int] = {"id": number}
    if layout is not TWITTER:
        query["layout"] = layout.name
    query["lang"] = lang
    return "/decode?" + urlencode(query)


@dataclass(frozen=True, slots=True)
class IdList:
    """The decoder's input read line by line, in one layout: each line's reading or error."""

    layout: Layout
    lines: list[tuple[str, Decoded | InvalidValueError]]


def id_lines(text: str) -> list[str]:
    """The decoder's non-blank lines, stripped: one id each."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def read_page_ids(
    text: str, layout: Layout = TWITTER, clock: Clock = SYSTEM_CLOCK
) -> Decoded | IdList:
    """One id (a single non-blank line), or the list of several; blank lines are skipped.
    Each id is read in ``layout`` by the library's one reader (``snowid.decode``: decimal,
    ``_`` separators and spaces allowed, or hex after ``0x``). A single bad id raises the
    error naming the layout's range; in a list, each line keeps its own. The caller checks
    the count first (``id_lines``): at most MAX_IDS are read."""
    lines = id_lines(text)[: MAX_IDS + 1]
    if len(lines) <= 1:
        return decode(lines[0] if lines else text, layout, clock=clock)
    read: list[tuple[str, Decoded | InvalidValueError]] = []
    for line in lines:
        try:
            read.append((line, decode(line, layout, clock=clock)))
        except InvalidValueError as error:
            read.append((line, error))
    return IdList(layout, read)


def input_value(ms: int) -> str | None:
    """Unix ms as the value of the range form's ``datetime-local`` inputs (which the page
    reads as UTC, so no zone), if a date shows it."""
    iso = iso_ms(ms)
    return None if iso is None else iso.removesuffix("Z")


def utc_text(iso: str) -> str:
    """An ISO 8601 UTC time as the page writes it: ``2010-11-04 01:42:54.657 UTC``."""
    return iso.replace("T", " ").replace("Z", " UTC")


def time_view(ms: int, lang: str, now_ms: int) -> dict[str, Any]:
    """A time (Unix ms) as the page shows it: UTC, local, and relative to now. Past what a
    date can show (after year 9999: a Mastodon id can be) ``iso`` and ``local`` are None."""
    iso = iso_ms(ms)
    shown: dict[str, Any] = {
        "iso": iso,
        "utc": translate("web.result.past_9999", lang, timestamp=ms),
        "local": None,
        "local_zone": "",
        "timestamp": ms,
        "relative": relative_time(ms, now_ms, lang),
    }
    if iso is None:
        return shown
    shown["utc"] = utc_text(iso)
    try:
        local = _dt.datetime.fromisoformat(iso).astimezone()
    except OverflowError:  # within hours of year 1 or 9999 and the zone crosses it
        return shown
    shown["local"] = local.strftime("%Y-%m-%d %H:%M:%S.") + f"{local.microsecond // 1000:03d}"
    shown["local_zone"] = local.strftime("%Z") or local.strftime("%z")
    return shown


def layout_blocks(layout: Layout, segments: Sequence[Segment], lang: str) -> list[dict[str, Any]]:
    """The bit picture of an id: the library's ``segments`` of it in ``layout`` (the sign
    bit when the layout has one, then each field), each with its label, its value and its
    ``tone`` (which of the five colours it takes: the time is always the timestamp's, the
    other fields take the Twitter fields' three hues in turn)."""
    t = translator(lang)
    tones = cycle(_TONES)
    blocks = []
    for index, seg in enumerate(segments):
        high, low = seg.high_bit, seg.low_bit
        if layout.signed and index == 0:  # by position: a custom field may be called "sign"
            label, value_text, tone = t("segment.sign"), t("web.block.value", value=0), "sign"
        elif seg.name == layout.time_field:
            label, tone = field_label(seg.name, lang), "timestamp"
            value_text = (
                t("web.block.value_delta", value=seg.value)
                if layout.unit_ms == 1
                else t("web.block.value_ticks", value=seg.value, unit=layout.unit_ms)
            )
        else:
            label, tone = field_label(seg.name, lang), next(tones)
            value_text = t("web.block.value", value=seg.value)
        one = high == low
        blocks.append(
            {
                "name": seg.name,
                "label": label,
                "value_text": value_text,
                "tone": tone,
                "width": seg.width,
                "width_text": t("web.block.width_one")
                if one
                else t("web.block.width", width=seg.width),
                "span_text": t("web.block.span_one", high=high)
                if one
                else t("web.block.span", high=high, low=low),
                "bits": seg.bits,
                "groups": bit_groups(seg.bits),
            }
        )
    return blocks


def id_view(
    number: int,
    layout: Layout,
    segments: Sequence[Segment],
    timestamp: int,
    *,
    lang: str,
    now_ms: int,
) -> dict[str, Any]:
    """What every result shows of one id, whatever its layout: its decimal, hex and binary
    writings, its time (``timestamp``, Unix ms), its bit blocks (from ``segments``), what
    the live region announces and the decoder's link. The callers add the fields and the
    steps."""
    binary = layout.bits(number)
    decimal = str(number)
    return {
        "decimal": decimal,
        "hex": f"0x{number:016x}",
        "binary": binary,
        "binary_groups": bit_groups(binary),
        **time_view(timestamp, lang, now_ms),
        "blocks": layout_blocks(layout, segments, lang),
        "announce": translate("web.announce.id", lang, id=decimal),
        "decode_href": decode_href(number, layout, lang),
    }


def result_view(snow_id: SnowId, lang: str, now_ms: int | None = None) -> dict[str, Any]:
    """Everything the result block shows of one Twitter id (the compose page's result, and
    the decoder's in the Twitter layout, which adds its readings and warnings)."""
    t = translator(lang)
    now = SYSTEM_CLOCK.time_ms() if now_ms is None else now_ms
    view = breakdown(snow_id)
    parts = view.parts
    steps = {s.key: s for s in view.steps}
    shifts = [
        {"key": key, "label": t(f"web.step.shift.{key}"), **_math(steps[key])}
        for key in ("timestamp", "datacenter", "machine", "sequence")
    ]
    return {
        "kind": "twitter",
        **id_view(int(snow_id), TWITTER, view.segments, parts.timestamp, lang=lang, now_ms=now),
        "fields": [
            (t("web.label.timestamp"), parts.timestamp),
            (t("web.label.datacenter"), parts.datacenter),
            (t("web.label.machine"), parts.machine),
            (t("web.label.sequence"), parts.sequence),
            (t("web.result.worker"), view.worker),
        ],
        "delta": _math(steps["delta"]),
        "shifts": shifts,
        "combine": _math(steps["combine"]),
        "compose_href": "/?"
        + urlencode(
            {
                "timestamp": parts.timestamp,
                "datacenter": parts.datacenter,
                "machine": parts.machine,
                "sequence": parts.sequence,
                "lang": lang,
            }
        ),
        # What only the decoder shows (``_decoded_view.decoded_view`` fills them in).
        "layout": None,
        "warnings": [],
        "readings": None,
        "range_href": None,
    }


def _math(step: Step) -> dict[str, str]:
    return {"expression": step.expression, "result": str(step.result)}


def table_view(ids: IdList, lang: str, now_ms: int | None = None) -> dict[str, Any]:
    """The decoder's compact table: one row per line, the layout's fields as columns, each
    row with a link to its breakdown and a short word for each warning."""
    t = translator(lang)
    now = SYSTEM_CLOCK.time_ms() if now_ms is None else now_ms
    layout = ids.layout
    rows: list[dict[str, Any]] = []
    for text, read in ids.lines:
        if isinstance(read, InvalidValueError):
            rows.append({"input": text, "error": localized_message(read, lang)})
            continue
        decimal = str(read.id)
        rows.append(
            {
                "input": text,
                "error": None,
                "decimal": decimal,
                **time_view(read.timestamp, lang, now),
                "values": list(read.fields.values()),
                "warnings": [t(f"web.warning_short.{code}") for code in read.warnings],
                "href": decode_href(read.id, layout, lang),
                "details_label": t("web.table.details_label", id=decimal),
            }
        )
    valid = sum(1 for row in rows if row["error"] is None)
    return {
        "columns": [field_label(name, lang) for name in layout.field_names],
        "rows": rows,
        "count": len(rows),
        "announce": t("web.announce.many", count=len(rows), valid=valid),
    }
