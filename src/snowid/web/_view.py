"""What the page shows of one id, or of a list of ids, as strings ready for the templates.

The breakdown itself (fields, bit segments, formula) is the core's ``breakdown``; this
module only words it in the page's language: bit strings grouped for reading, the
formula as the seed's three steps, times with a relative time beside them, and the
values the copy buttons copy.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from snowid import Breakdown, SnowId, Step, breakdown
from snowid._clock import SYSTEM_CLOCK
from snowid.errors import InvalidValueError, NotAnIntegerError, NumberTooLongError
from snowid.i18n import translate
from snowid.web._forms import localized_message, read_id

__all__ = [
    "MAX_IDS",
    "IdList",
    "bit_groups",
    "id_lines",
    "read_page_ids",
    "relative_time",
    "result_view",
    "table_view",
    "translator",
]

MAX_IDS = 100  # ids the decoder takes at once, one per line
_HEX_DIGITS = frozenset(string.hexdigits)
_DAY = 86_400.0
# Largest unit first; the same table is in static/app.js, so the server's fallback and
# the browser's Intl.RelativeTimeFormat pick the same unit.
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


def read_page_id(text: str) -> SnowId:
    """One id as typed into the decoder: decimal as everywhere, or hexadecimal after ``0x``
    (the page only: the JSON API keeps the decimal path parameter its schema states)."""
    stripped = text.strip()
    if stripped[:2].lower() != "0x":
        return read_id(text)
    digits = stripped[2:].replace("_", "")
    if not digits or not _HEX_DIGITS.issuperset(digits):
        raise NotAnIntegerError(field="id", value=text)
    if len(digits) > 4000:
        raise NumberTooLongError(field="id", value=stripped, digits=len(digits))
    return SnowId(int(digits, 16))


@dataclass(frozen=True, slots=True)
class IdList:
    """The decoder's input read line by line: each line's id or its error."""

    lines: list[tuple[str, SnowId | InvalidValueError]]


def id_lines(text: str) -> list[str]:
    """The decoder's non-blank lines, stripped: one id each."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def read_page_ids(text: str) -> SnowId | IdList:
    """One id (a single non-blank line), or the list of several; blank lines are skipped.
    A single bad id raises its error; in a list, each line keeps its own. The caller
    checks the count first (``id_lines``): at most MAX_IDS are read."""
    lines = id_lines(text)[: MAX_IDS + 1]
    if len(lines) <= 1:
        return read_page_id(lines[0] if lines else text)
    read: list[tuple[str, SnowId | InvalidValueError]] = []
    for line in lines:
        try:
            read.append((line, read_page_id(line)))
        except InvalidValueError as error:
            read.append((line, error))
    return IdList(read)


def _times(view: Breakdown, lang: str, now_ms: int) -> dict[str, Any]:
    local = view.datetime.astimezone()
    return {
        "iso": view.iso_utc,
        "utc": view.iso_utc.replace("T", " ").replace("Z", " UTC"),
        "local": local.strftime("%Y-%m-%d %H:%M:%S.") + f"{local.microsecond // 1000:03d}",
        "local_zone": local.strftime("%Z") or local.strftime("%z"),
        "timestamp": view.parts.timestamp,
        "relative": relative_time(view.parts.timestamp, now_ms, lang),
    }


def result_view(snow_id: SnowId, lang: str, now_ms: int | None = None) -> dict[str, Any]:
    """Everything the result block shows of one id."""
    t = translator(lang)
    now = SYSTEM_CLOCK.time_ms() if now_ms is None else now_ms
    view = breakdown(snow_id)
    parts = view.parts
    blocks = []
    for seg in view.segments:
        one = seg.width == 1
        blocks.append(
            {
                "name": seg.name,
                "label": t(f"segment.{seg.name}"),
                "width": seg.width,
                "width_text": t("web.block.width_one")
                if one
                else t("web.block.width", width=seg.width),
                "span_text": t("web.block.span_one", high=seg.high_bit)
                if one
                else t("web.block.span", high=seg.high_bit, low=seg.low_bit),
                "value_text": t(
                    "web.block.value_delta" if seg.name == "timestamp" else "web.block.value",
                    value=seg.value,
                ),
                "bits": seg.bits,
                "groups": bit_groups(seg.bits),
            }
        )
    steps = {s.key: s for s in view.steps}
    shifts = [
        {"key": key, "label": t(f"web.step.shift.{key}"), **_math(steps[key])}
        for key in ("timestamp", "datacenter", "machine", "sequence")
    ]
    decimal = str(snow_id)
    return {
        "decimal": decimal,
        "hex": "0x" + snow_id.hex,
        "binary": snow_id.binary,
        "binary_groups": bit_groups(snow_id.binary),
        **_times(view, lang, now),
        "fields": [
            (t("web.label.timestamp"), parts.timestamp),
            (t("web.label.datacenter"), parts.datacenter),
            (t("web.label.machine"), parts.machine),
            (t("web.label.sequence"), parts.sequence),
            (t("web.result.worker"), view.worker),
        ],
        "blocks": blocks,
        "delta": _math(steps["delta"]),
        "shifts": shifts,
        "combine": _math(steps["combine"]),
        "announce": t("web.announce.id", id=decimal),
        "decode_href": "/decode?" + urlencode({"id": decimal, "lang": lang}),
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
    }


def _math(step: Step) -> dict[str, str]:
    return {"expression": step.expression, "result": str(step.result)}


def table_view(ids: IdList, lang: str, now_ms: int | None = None) -> dict[str, Any]:
    """The decoder's compact table: one row per line, each with a link to its breakdown."""
    t = translator(lang)
    now = SYSTEM_CLOCK.time_ms() if now_ms is None else now_ms
    rows: list[dict[str, Any]] = []
    for text, read in ids.lines:
        if isinstance(read, InvalidValueError):
            rows.append({"input": text, "error": localized_message(read, lang)})
            continue
        view = breakdown(read)
        parts = view.parts
        decimal = str(read)
        rows.append(
            {
                "input": text,
                "error": None,
                "decimal": decimal,
                **_times(view, lang, now),
                "datacenter": parts.datacenter,
                "machine": parts.machine,
                "sequence": parts.sequence,
                "href": "/decode?" + urlencode({"id": decimal, "lang": lang}),
                "details_label": t("web.table.details_label", id=decimal),
            }
        )
    valid = sum(1 for row in rows if row["error"] is None)
    return {
        "rows": rows,
        "count": len(rows),
        "announce": t("web.announce.many", count=len(rows), valid=valid),
    }
