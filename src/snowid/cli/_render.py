"""Plain-text rendering for the terminal (colour optional): labelled rows, an id's bits as
blocks in any layout, and the Twitter breakdown with its formula."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from itertools import cycle

from snowid import Breakdown, Layout, Segment
from snowid.i18n import translate, translate_field

_GREY, _TIME = "\033[90m", "\033[34m"
# The fields below the time take these in turn; with the time's blue and the sign's grey,
# a Twitter id gets the web page's colours in its order.
_OTHERS = ("\033[32m", "\033[33m", "\033[35m", "\033[36m", "\033[31m")
_RESET = "\033[0m"


def aligned(rows: Sequence[tuple[str, str]]) -> list[str]:
    """``label  value`` lines with the values in one column."""
    width = max(len(label) for label, _ in rows)
    return [f"{label:<{width}}  {value}".rstrip() for label, value in rows]


def local_text(when: _dt.datetime | None) -> str:
    """A time in this machine's zone, with the zone's name; "—" when no date shows it (past
    year 9999, or within hours of it in a zone east of UTC)."""
    if when is None:
        return "—"
    try:
        local = when.astimezone()
    except OverflowError:
        return "—"
    name = local.tzname()
    return local.isoformat(timespec="milliseconds") + (f" {name}" if name else "")


def render_blocks(
    layout: Layout,
    segments: Sequence[Segment],
    lang: str,
    *,
    colour: bool,
    segment_names: bool = False,
) -> list[str]:
    """An id's bits (the library's ``segments`` of it in ``layout``) as one line of blocks,
    then one row per block: label, span, width, value and bits. A block is labelled by its
    field's name (``field.*``), or with ``segment_names`` by the Twitter breakdown's segment
    names (``segment.*``), which the rows of ``render_parts`` above it match; the sign bit
    always by ``segment.sign``."""
    others = cycle(_OTHERS)
    blocks = []
    for index, seg in enumerate(segments):
        if layout.signed and index == 0:  # by position: a custom field may be called "sign"
            paint, label = _GREY, translate("segment.sign", lang)
        else:
            paint = _TIME if seg.name == layout.time_field else next(others)
            label = (
                translate(f"segment.{seg.name}", lang)
                if segment_names
                else translate_field(seg.name, lang)
            )
        blocks.append((paint, label, seg.high_bit, seg.low_bit, seg.value, seg.bits))

    def painted(text: str, paint: str) -> str:
        return f"{paint}{text}{_RESET}" if colour else text

    width = max(len(name) for _, name, *_ in blocks)
    # At least 16 wide (a Twitter id's values fit), wider for a 15-digit Mastodon time.
    value_width = max(16, *(len(f"= {value}") for *_, value, _ in blocks))
    lines = [
        translate("cli.bits", lang) + ":",
        "  " + " ".join(painted(bits, paint) for paint, *_, bits in blocks),
    ]
    for paint, name, high, low, value, bits in blocks:
        span = str(high) if high == low else f"{high}..{low}"
        shown = f"= {value}"
        lines.append(
            f"  {painted(f'{name:<{width}}', paint)}  {span:>6}  {high - low + 1:>2}"
            f"  {shown:<{value_width}}  {bits}"
        )
    return lines


def render_breakdown(data: Breakdown, lang: str, *, colour: bool, steps: bool) -> list[str]:
    """A Twitter id as ``compose``, ``explain`` and ``decode`` show it: its fields, its
    blocks and, with ``steps``, the formula."""
    lines = [
        *render_parts(data, lang),
        "",
        *render_blocks(data.decoded.spec, data.segments, lang, colour=colour, segment_names=True),
    ]
    if steps:
        lines += ["", *render_steps(data, lang)]
    return lines


def render_parts(data: Breakdown, lang: str) -> list[str]:
    snow_id = data.id
    parts = data.parts
    rows = [
        ("cli.id", str(snow_id)),
        ("cli.hex", "0x" + snow_id.hex),
        ("cli.timestamp", str(parts.timestamp)),
        ("cli.utc", data.iso_utc),
        ("cli.local", local_text(data.datetime)),
        ("cli.datacenter", str(parts.datacenter)),
        ("cli.machine", str(parts.machine)),
        ("cli.sequence", str(parts.sequence)),
        ("cli.worker", str(data.worker)),
    ]
    return aligned([(translate(key, lang), value) for key, value in rows])


def render_steps(data: Breakdown, lang: str) -> list[str]:
    lines = [translate("cli.steps", lang) + ":"]
    for step in data.steps:
        lines.append(f"  {translate(f'step.{step.key}', lang)}")
        lines.append(f"    {step.expression} = {step.result}")
    return lines
