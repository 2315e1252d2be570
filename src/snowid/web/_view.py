"""What the page shows of one id, or of a list of ids, as typed views ready for the templates.

The numbers are the library's (the bit blocks of every layout its ``segments``, the
Twitter formula its ``steps``); this module only words them in the page's language: bit
strings grouped for reading, times with a relative time beside them, and the values the
copy buttons copy. The pieces every result shares are here (``TimeView``, ``Block``,
``Math``), with the decoder's table of many ids (``TableView``); the result of one id,
in any layout, is ``_decoded_view.ResultView``; the decoder's box is read in ``_box``.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import cycle
from urllib.parse import urlencode

from snowid import SYSTEM_CLOCK, TWITTER, Decoded, Layout, Segment, Step
from snowid._exceptions import InvalidValueError
from snowid.i18n import catalog, translate
from snowid.ids import GROUP_MARKS, iso_ms
from snowid.web._forms import localized_message

__all__ = [
    "DEFAULT_LAYOUT",
    "MAX_IDS",
    "BadRow",
    "Block",
    "IdList",
    "Math",
    "TableRow",
    "TableView",
    "TimeView",
    "bit_groups",
    "decode_href",
    "field_label",
    "group_digits",
    "group_numbers",
    "input_value",
    "layout_blocks",
    "math",
    "relative_time",
    "table_view",
    "time_view",
    "translator",
    "utc_text",
]

MAX_IDS = 100  # ids the decoder takes at once, one per line
DEFAULT_LAYOUT = TWITTER
"""The layout a page reads when none is named: its links leave the layout out."""
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


def group_digits(number: int, lang: str) -> str:
    """``number`` with its digits grouped in threes by ``lang``'s mark, as people read it
    (vi ``4.194.304.000``, en ``4,194,304,000``); never for a value someone copies."""
    text = f"{number:,}"
    return text.replace(",", GROUP_MARKS.get(lang, ","))


_NUMBER = re.compile(r"(?<![\w.])\d{4,}(?![\w.])")


def group_numbers(text: str, lang: str) -> str:
    """Every whole number of four digits or more in ``text`` grouped as ``group_digits``."""
    return _NUMBER.sub(lambda m: group_digits(int(m.group(0)), lang), text)


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
    if layout is not DEFAULT_LAYOUT:
        query["layout"] = layout.name
    query["lang"] = lang
    return "/decode?" + urlencode(query)


@dataclass(frozen=True, slots=True)
class IdList:
    """The decoder's input read line by line, in one layout: each line's reading or error,
    and per line what a Discord link's id names (``labels``; empty when none does)."""

    layout: Layout
    lines: list[tuple[str, Decoded | InvalidValueError]]
    labels: tuple[str, ...] = ()


def input_value(ms: int) -> str | None:
    """Unix ms as the value of the range form's ``datetime-local`` inputs (which the page
    reads as UTC, so no zone), if a date shows it."""
    iso = iso_ms(ms)
    return None if iso is None else iso.removesuffix("Z")


def utc_text(iso: str) -> str:
    """An ISO 8601 UTC time as the page writes it: ``2010-11-04 01:42:54.657 UTC``."""
    return iso.replace("T", " ").replace("Z", " UTC")


@dataclass(frozen=True, slots=True)
class TimeView:
    """A time (Unix ms) as the page shows it (the ``when`` macro): ``utc`` and ``iso``, the
    local time and its zone, and how long ago or ahead of now it is. Past what a date can
    show (after year 9999: a Mastodon id can be) ``iso`` and ``local`` are None and
    ``utc`` says so in words."""

    iso: str | None
    utc: str
    local: str | None
    local_zone: str
    timestamp: int
    relative: str


def time_view(ms: int, lang: str, now_ms: int) -> TimeView:
    """``ms`` as the page shows it, seen from ``now_ms``, in ``lang``."""
    iso = iso_ms(ms)
    relative = relative_time(ms, now_ms, lang)
    if iso is None:
        utc = translate("web.result.past_9999", lang, timestamp=ms)
        return TimeView(iso, utc, None, "", ms, relative)
    try:
        local = _dt.datetime.fromisoformat(iso).astimezone()
    except OverflowError:  # within hours of year 1 or 9999 and the zone crosses it
        return TimeView(iso, utc_text(iso), None, "", ms, relative)
    return TimeView(
        iso=iso,
        utc=utc_text(iso),
        local=local.strftime("%Y-%m-%d %H:%M:%S.") + f"{local.microsecond // 1000:03d}",
        local_zone=local.strftime("%Z") or local.strftime("%z"),
        timestamp=ms,
        relative=relative,
    )


@dataclass(frozen=True, slots=True)
class Block:
    """One block of an id's bit picture: its field, label, bits and which colour it takes."""

    name: str
    label: str
    value_text: str
    tone: str
    """One of the five colours: sign, timestamp, then the Twitter fields' three hues."""
    width: int
    width_text: str
    span_text: str
    bits: str
    groups: list[str]


def layout_blocks(layout: Layout, segments: Sequence[Segment], lang: str) -> list[Block]:
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
            label, value_text, tone = t("web.block.sign"), t("web.block.value", value=0), "sign"
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
            Block(
                name=seg.name,
                label=label,
                value_text=value_text,
                tone=tone,
                width=seg.width,
                width_text=t("web.block.width_one")
                if one
                else t("web.block.width", width=seg.width),
                span_text=t("web.block.span_one", high=high)
                if one
                else t("web.block.span", high=high, low=low),
                bits=seg.bits,
                groups=bit_groups(seg.bits),
            )
        )
    return blocks


@dataclass(frozen=True, slots=True)
class Math:
    """One step of arithmetic as the ``math`` macros show it: ``expression = result``; in a
    list of steps, with its ``label`` and the ``key`` its class is named after."""

    expression: str
    result: str
    label: str | None = None
    key: str | None = None


def math(step: Step, lang: str, label: str | None = None, *, keyed: bool = False) -> Math:
    """A step of the library's formula as the page shows it, its numbers grouped in
    ``lang``'s way (nothing in a step is copied); with ``keyed``, its class names the step's
    key (the seed's shifts: ``shift-datacenter``)."""
    return Math(
        group_numbers(step.expression, lang),
        group_digits(step.result, lang),
        label,
        step.key if keyed else None,
    )


@dataclass(frozen=True, slots=True)
class BadRow:
    """A line of the decoder's table that is not an id: the text and why."""

    input: str
    error: str


@dataclass(frozen=True, slots=True)
class TableRow:
    """A line of the decoder's table read as an id: its time, its fields (the table's
    columns, in order), a short word per warning and the link to its full result."""

    input: str
    decimal: str
    time: TimeView
    values: list[int]
    warnings: list[str]
    href: str
    details_label: str
    label: str = ""
    """What a Discord link's id names (server, channel, message…), in the page's language."""
    error: None = None


@dataclass(frozen=True, slots=True)
class TableView:
    """The decoder's compact table of up to ``MAX_IDS`` ids, all in one layout."""

    columns: list[str]
    rows: list[TableRow | BadRow]
    count: int
    announce: str
    tsv: str = ""
    """The table as tab-separated lines (a header, then a row per line) for a spreadsheet."""
    by_time: bool = False
    """The rows are sorted by time, earliest first (the lines that are not ids last)."""


def _tsv(columns: Sequence[str], rows: Sequence[TableRow | BadRow]) -> str:
    """The table as a spreadsheet pastes it: tab-separated cells, one line per row; an id's
    time as ISO 8601 (a sheet reads it), a line that is not an id with its error."""

    def cell(text: str) -> str:
        """One cell: a tab or a line break inside would split it, and text a sheet would
        take for a formula (typed input such as ``=1+1``) is kept as text."""
        flat = " ".join(text.split())
        return "'" + flat if flat[:1] in ("=", "+", "-", "@") else flat

    lines = ["\t".join(cell(c) for c in columns)]
    for row in rows:
        if isinstance(row, BadRow):
            lines.append(f"{cell(row.input)}\t{cell(row.error)}")
        else:
            time = row.time.iso or row.time.utc
            lines.append("\t".join([row.decimal, cell(time), *map(str, row.values)]))
    return "\n".join(lines)


def table_view(
    ids: IdList, lang: str, now_ms: int | None = None, *, by_time: bool = False
) -> TableView:
    """The decoder's compact table: one row per line (with ``by_time``, sorted by time,
    earliest first, the lines that are not ids last), the layout's fields as columns, each
    row with a link to its breakdown and a short word for each warning, and the whole
    table tab-separated for the "copy all" button."""
    t = translator(lang)
    now = SYSTEM_CLOCK.time_ms() if now_ms is None else now_ms
    layout = ids.layout
    rows: list[TableRow | BadRow] = []
    labels = ids.labels or ("",) * len(ids.lines)
    for (text, read), label in zip(ids.lines, labels, strict=True):
        if isinstance(read, InvalidValueError):
            rows.append(BadRow(text, localized_message(read, lang)))
            continue
        decimal = str(read.id)
        rows.append(
            TableRow(
                input=text,
                decimal=decimal,
                time=time_view(read.timestamp, lang, now),
                values=list(read.fields.values()),
                warnings=[t(f"web.warning_short.{code}") for code in read.warnings],
                href=decode_href(read.id, layout, lang),
                details_label=t("web.table.details_label", id=decimal),
                label=t(f"pasted.{label}") if label else "",
            )
        )
    valid = sum(1 for row in rows if row.error is None)
    if by_time:  # stable: ids of one millisecond keep the order they were typed in
        rows.sort(key=lambda row: (1, 0) if isinstance(row, BadRow) else (0, row.time.timestamp))
    columns = [field_label(name, lang) for name in layout.field_names]
    return TableView(
        columns=columns,
        rows=rows,
        count=len(rows),
        announce=t("web.announce.many", count=len(rows), valid=valid),
        tsv=_tsv([t("web.table.id"), t("web.table.utc"), *columns], rows),
        by_time=by_time,
    )
